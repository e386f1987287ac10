/*
 * fold.h - the folding rules shared by everything that makes folded stacks
 * (the sampler in runner/sample.c and the `perf script` importer behind
 * `perfgate fold`, runner/perfscript.h), so one function name always becomes
 * the same frame.
 *
 * Rules (stackcollapse-perf.pl's, DESIGN.md section 3): frames root first,
 * joined by ';'; the process name (comm) is the first frame, with spaces
 * turned into '_'; a ';' inside a name becomes ':'; a control character
 * (newline, carriage return, tab, NUL, ESC, DEL) inside a name becomes ' '
 * (folded text is line-based, names are C strings and end up in XML); invalid UTF-8
 * is replaced by U+FFFD (common/json.h's rule, so the JSON key is the same
 * bytes); an empty name becomes "[unknown]". The kind's annotation is appended
 * (baselines/frame.h).
 *
 * Symbol tidying (pg_fold_append_symbol, used by the importer and available to
 * the sampler): the "+0x.." offset perf prints is dropped, then the
 * outermost trailing parameter list (and what follows it: " const", a JVM
 * return type, "[clone .cold]"), found by balancing parentheses from the
 * end, so "(" inside template arguments, "(anonymous namespace)",
 * "operator()", "{lambda(int)#1}" and Go's "pkg.(*T).M" survive
 * (tests/data/cases/01); '"' and '\'' are deleted as stackcollapse-perf.pl does.
 */
#ifndef PG_RUNNER_FOLD_H
#define PG_RUNNER_FOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/frame.h"
#include "common/buf.h"

/** How the comm (first frame) is written (tests/data/cases/13). */
enum pg_comm_mode {
        PG_COMM_KEEP = 0,  /* as is, spaces -> '_' (stackcollapse-perf default) */
        PG_COMM_NORMALIZE, /* trailing digits after '-', '_', '/', '#' or ' ' -> '*' */
        PG_COMM_NONE       /* no comm frame at all */
};

/**
 * Append frame @name (@len bytes, not NUL-terminated necessarily) to @out
 * following the rules above, then the annotation of @kind. Does not add the
 * ';' separator.
 */
void pg_fold_append_frame(struct pg_buf *out, const char *name, size_t len,
                          enum pg_frame_kind kind);

/**
 * Append the comm frame for @comm (@len bytes) under @mode (nothing for
 * PG_COMM_NONE). Spaces become '_', then the frame rules apply.
 */
void pg_fold_append_comm(struct pg_buf *out, const char *comm, size_t len, enum pg_comm_mode mode);

/**
 * Length of @sym (@len bytes) once a trailing perf symbol offset "+0x<hex>"
 * is removed (perf script prints it since Linux 4.8); @len when there is
 * none. Source: stackcollapse-perf.pl ("s/\+0x[\da-f]+$//").
 */
size_t pg_fold_strip_offset(const char *sym, size_t len);

/**
 * Append @sym (@len bytes) to @out tidied as stackcollapse-perf.pl's
 * "tidy generic" step with the parameter rule of pg_fold_strip_params():
 * offset and parameters stripped, '"' and '\'' deleted, then
 * pg_fold_append_frame() with @kind. @java: also drop a leading 'L' from a
 * name containing '/' (the reference does this when the comm starts with
 * "java").
 */
void pg_fold_append_symbol(struct pg_buf *out, const char *sym, size_t len, bool java,
                           enum pg_frame_kind kind);

/**
 * Append the frame of an unresolved address: "[<basename of @module>]", or
 * "[unknown]" when @module is NULL, empty or "[unknown]"; a kernel
 * pseudo-module ("[kernel.kallsyms]", "[kernel.*]", "[guest.kernel.*]")
 * keeps its single brackets (tests/data/cases/10) while other bracketed modules
 * get the reference's double brackets ("[[vdso]]"). @pc (may be NULL): the
 * address as text, written as "[module <pc>]" (stackcollapse-perf --addrs).
 * Then @kind's annotation.
 */
void pg_fold_append_unresolved(struct pg_buf *out, const char *module, size_t module_len,
                               const char *pc, size_t pc_len, enum pg_frame_kind kind);

/**
 * Whether perf's module name @mod (@len bytes) is kernel code for the "_[k]"
 * annotation: stackcollapse-perf.pl's rule (starts with '[' or ends with
 * "vmlinux", and does not contain "unknown"; this includes "[vdso]") plus
 * inferno's extensions (a versioned "vmlinux-*", a "*.ko[.xz|.gz|.zst]"
 * module, a "bpf_prog_*" pseudo-module; tests/data/cases/10).
 */
bool pg_fold_module_is_kernel(const char *mod, size_t len);

/**
 * Whether module @mod (@len bytes) is JIT code for the "_[j]" annotation: a
 * perf map "/tmp/perf-<pid>.map" or a jitdump object "jitted-<pid>-<n>.so"
 * (stackcollapse-perf.pl).
 */
bool pg_fold_module_is_jit(const char *mod, size_t len);

#endif
