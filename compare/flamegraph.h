/*
 * flamegraph.h - flame graphs and differential flame graphs as standalone
 * SVG 1.1 (DESIGN.md section 7; research/flamegraphs.md sections 5.1-5.2).
 * Input is folded stacks (struct pg_stack, root first, ';'-separated).
 */
#ifndef PG_COMPARE_FLAMEGRAPH_H
#define PG_COMPARE_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/result.h"
#include "common/buf.h"

struct pg_flame_opts {
        const char *title;      /* NULL: "Flame Graph" ("Icicle Graph" inverted) */
        const char *subtitle;   /* NULL: none */
        double width_px;        /* 0: 1200 */
        double frame_height_px; /* 0: 16 */
        double minwidth_px;     /* frames narrower are pruned; < 0: default 0.1 */
        const char *countname;  /* NULL: "samples" */
        bool inverted;          /* icicle graph */
        bool reverse;           /* reverse each stack before merging */
        const char *colors;     /* palette name; NULL: "hot" */
        bool negate;            /* differential: companion graph (baseline shape) */
        double noise_floor;     /* differential: |delta share| below this is white */
};

/** Fill @o with the defaults above. */
void pg_flame_opts_init(struct pg_flame_opts *o);

/**
 * Append a flame graph SVG of @n stacks to @out. Deterministic bytes.
 * Errors: PG_EINPUT when the stacks hold no samples.
 */
int pg_flamegraph_svg(struct pg_buf *out, const struct pg_stack *stacks, size_t n,
                      const struct pg_flame_opts *o);

/**
 * Append a differential flame graph SVG to @out: HEAD's shape (or BASE's with
 * o->negate), colour = change of each frame's self share
 * (h/T_H - b/T_B; red grew, blue shrank). Deterministic bytes.
 * Errors: PG_EINPUT when either profile holds no samples.
 */
int pg_flamegraph_diff_svg(struct pg_buf *out, const struct pg_stack *base, size_t nbase,
                           const struct pg_stack *head, size_t nhead,
                           const struct pg_flame_opts *o);

#endif
