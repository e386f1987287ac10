/*
 * annotate.h - `perfgate annotate` as a library: a function's own samples
 * (the profile's address histogram, docs/result-format.md "addresses")
 * attributed to source lines through the DWARF line table of its ELF file
 * (libdwfl: dwfl_module_getsrc) and to its instructions, disassembled with
 * capstone, as `perf annotate --stdio` shows them
 * (tools/perf/util/annotate.c).
 *
 * Ownership: a struct pg_annotation owns its strings and arrays;
 * pg_annotation_release() frees them.
 */
#ifndef PG_RUNNER_ANNOTATE_H
#define PG_RUNNER_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/scopeindex.h"

/** Samples of one source line. */
struct pg_annot_line {
        char *file;     /* as the line table names it (usually absolute) */
        uint64_t line;  /* 1-based */
        uint64_t count; /* samples at instructions of this line */
        char *comp_dir; /* when file is relative: its compile unit's DW_AT_comp_dir (the
                           directory it is relative to, DWARF 5 section 3.1.1), else NULL */
};

/** One instruction of the function. */
struct pg_annot_insn {
        uint64_t addr;  /* link-time address */
        uint64_t count; /* samples whose IP was this instruction */
        char *text;     /* "imul %rsi, %rax" (AT&T syntax on x86, as objdump) */
        size_t line;    /* index in lines[] + 1, 0 when the line table has none */
};

/** One symbol of the function's name that holds some of its samples. */
struct pg_annot_symbol {
        char *symbol;    /* as in the file (mangled): "_Z1fl" */
        char *signature; /* demangled with parameters: "f(long)" */
        uint64_t start;  /* link-time address */
        uint64_t end;    /* [start, end) */
        uint64_t count;  /* samples in it */
};

struct pg_annotation {
        char *function;
        char *module;         /* the ELF file read */
        uint64_t samples;     /* the function's samples in the profile */
        uint64_t start, end;  /* the symbol's link-time range [start, end) */
        uint64_t outside;     /* samples at addresses outside that range */
        char *outside_symbol; /* NULL, or the symbol (as in the file: mangled) holding
                               * the hottest of those: another of the same demangled
                               * name (a C++ overload, a Rust generic); NULL when no
                               * symbol holds it (another build) */
        uint64_t no_line;     /* samples at addresses the line table does not cover */
        size_t nlines;
        struct pg_annot_line *lines; /* by count (descending), then file and line */
        size_t ninsns;
        struct pg_annot_insn *insns; /* in address order; empty when it cannot be read */
        char *disasm_error;          /* NULL, or why there are no instructions */
        size_t nsymbols;
        struct pg_annot_symbol *symbols; /* the symbols of that name holding samples, most
                                          * samples first (two or more: C++ overloads,
                                          * Rust generics) */
        size_t chosen;                   /* the one annotated: index in symbols */
        bool selected;                   /* chosen by its mangled name, not by samples */
        char *warning; /* NULL, or why the shares may not match the file read (for a
                        * result without build-ids: its line table differs from the
                        * recorded lines) */
};

/**
 * Annotate @function of profile @p (taken from its "addresses"; the module
 * with the most samples when several have it). @function is a name as the
 * profile gives it (demangled, no parameters), or a symbol's mangled name
 * ("_Z1fl"), which selects that one of the symbols sharing a demangled name
 * (C++ overloads, Rust generics); by name, the symbol with the most samples
 * is annotated, and out->symbols lists them all. @debug_dir: an extra
 * debuginfo root searched by build-id, or NULL.
 * Errors: PG_ENOTFOUND when @function has no samples of its own in @p (the
 * message lists up to 5 functions that can be annotated instead, hottest
 * first, never @function itself: when @function is a caller in the stacks,
 * the functions below it that hold its samples, else those whose name
 * contains it or is within a few edits of it); PG_EINPUT when
 * the profile has no address histogram (an older result: run again);
 * PG_EIO when libdw or libelf cannot be loaded (pg_libdw_init()), or the
 * module cannot be read (message names it), or it has no
 * symbol table (stripped) and no separate debuginfo was found; PG_EINPUT
 * when its build-id differs from the recorded one (it was rebuilt since:
 * both ids named), or it has no symbol at the sampled addresses (another
 * build), or @function is a kernel function ("_[k]": no kernel image is
 * read); PG_ENOTFOUND when a mangled @function holds none of its name's
 * samples (the message lists the symbols that do).
 */
int pg_annotate(const struct pg_profile *p, const char *function, const char *debug_dir,
                struct pg_annotation *out);

/**
 * DW_AT_comp_dir of the compile unit holding @addr (a link-time address of
 * @mod; the CU as pg_scopeindex_cu(@cus, @mod, @addr) finds it, @cus the
 * module's CU index), the directory its relative file names are relative
 * to (DWARF 5 section 3.1.1; a split unit without one takes its
 * skeleton's); NULL when none. Borrowed from libdw, valid
 * while @mod and @cus are.
 */
const char *pg_module_comp_dir(struct pg_scopeindex *cus, Dwfl_Module *mod, uint64_t addr);

/**
 * The source line of link-time address @addr of @mod (a module reported at
 * its link-time addresses), from the line table of the CU that
 * pg_scopeindex_cu(@cus, @mod, @addr) finds (the CU the inlined frames of
 * the address come from, also in objects without .debug_aranges: clang's,
 * lld's, Go's): the file name as the line table gives it (borrowed from
 * libdw), with *@lineno; NULL (and *@lineno 0) when no line covers it.
 */
const char *pg_module_line(struct pg_scopeindex *cus, Dwfl_Module *mod, uint64_t addr, int *lineno);

/**
 * Append to @b one line per symbol of @a->symbols, each starting with a
 * newline: "  MANGLED  SIGNATURE  SHARE%" (share of the function's samples),
 * with "  (shown)" after the chosen one when @mark.
 */
void pg_annotation_list_symbols(struct pg_buf *b, const struct pg_annotation *a, bool mark);

/** Free what @a owns and zero it. */
void pg_annotation_release(struct pg_annotation *a);

#endif
