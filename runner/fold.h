/*
 * fold.h - the folding rules shared by everything that makes folded stacks
 * (the sampler in runner/sample.c and the `perf script` importer behind
 * `perfgate fold`), so one function name always becomes the same frame.
 *
 * Rules (stackcollapse-perf.pl's, DESIGN.md section 3): frames root first,
 * joined by ';'; the process name (comm) is the first frame, with spaces
 * turned into '_'; a ';' inside a name becomes ':'; a newline or carriage
 * return inside a name becomes ' ' (folded text is line-based); invalid UTF-8
 * is replaced by U+FFFD (common/json.h's rule, so the JSON key is the same
 * bytes); an empty name becomes "[unknown]". Annotations are appended:
 * "_[k]" kernel, "_[i]" inlined, "_[j]" JIT.
 */
#ifndef PG_RUNNER_FOLD_H
#define PG_RUNNER_FOLD_H

#include <stddef.h>

#include "common/buf.h"

enum pg_frame_kind {
        PG_FRAME_USER = 0, /* no annotation */
        PG_FRAME_KERNEL,   /* "_[k]" */
        PG_FRAME_INLINED,  /* "_[i]" */
        PG_FRAME_JIT       /* "_[j]" */
};

/** How the comm (first frame) is written (shared/cases/13). */
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

#endif
