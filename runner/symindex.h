/*
 * symindex.h - a sorted index of one libdwfl module's symbol table that
 * answers dwfl_module_addrinfo()'s question (which symbol names an address)
 * by binary search (plus a walk over the symbols that overlap the address,
 * usually one) instead of a scan of the whole table per address, with the
 * same answer: the same symbol by libdwfl's own rules (elfutils
 * libdwfl/dwfl_module_addrsym.c: globals before locals, a sized symbol that
 * contains the address, closer start or stronger binding first, and a
 * sizeless label in the address's section as the fallback). It also finds
 * the symbols that start at one address (aliases) without a scan.
 */
#ifndef PG_RUNNER_SYMINDEX_H
#define PG_RUNNER_SYMINDEX_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_symindex_sym; /* runner/symindex.c */

/* One symbol table half (libdwfl's globals, or its locals), sorted by address. */
struct pg_symindex_part {
        struct pg_symindex_sym *v; /* candidates, by (value, table index) */
        uint64_t *maxend;          /* maxend[i]: the highest value + size of v[0..i] */
        size_t n;
};

struct pg_symindex {
        bool built;
        bool exact; /* false: libdwfl resolves values here (function
                       descriptors, ET_REL); ask it instead */
        Dwfl_Module *mod;
        struct pg_symindex_part globals, locals;
        struct pg_symindex_sym *all; /* every named symbol, by (value, table index) */
        size_t nall;
};

/**
 * Index the symbol table of @mod (libdwfl module; it must outlive @ix).
 * Reads every symbol once (dwfl_module_getsym_info). Never fails: a module
 * without symbols gives an empty index, one whose symbol values libdwfl
 * resolves (ppc64 function descriptors) or relocates per section (ET_REL)
 * is marked inexact and its lookups are passed to libdwfl.
 */
void pg_symindex_build(struct pg_symindex *ix, Dwfl_Module *mod);

/**
 * The name of the symbol at module address @addr, exactly as
 * dwfl_module_addrinfo(@ix->mod, @addr, ...) names it, and *@start its
 * value (module address where it starts; @addr - *start is libdwfl's
 * offset). NULL when no symbol names @addr. The name is owned by the
 * module's ELF data. Builds the index on first use.
 */
const char *pg_symindex_lookup(struct pg_symindex *ix, Dwfl_Module *mod, uint64_t addr,
                               uint64_t *start);

/**
 * Calls @fn(@arg, table index, symbol, name) for every named symbol whose
 * value is @addr, in symbol table order (libdwfl's index, as
 * dwfl_module_getsym_info takes it). Builds the index on first use.
 */
void pg_symindex_at(struct pg_symindex *ix, Dwfl_Module *mod, uint64_t addr,
                    void (*fn)(void *arg, int ndx, const GElf_Sym *sym, const char *name),
                    void *arg);

/** Free @ix's arrays (the module is not touched). */
void pg_symindex_release(struct pg_symindex *ix);

#endif
