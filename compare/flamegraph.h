/*
 * flamegraph.h - flame graphs and differential flame graphs as standalone
 * SVG 1.1 (docs/flamegraph.md).
 * Input is folded stacks (struct pg_stack, root first, ';'-separated).
 * The SVG format (data attributes, colours, name rules, URL parameters) is
 * documented in docs/flamegraph.md and docs/diff.md.
 */
#ifndef PG_COMPARE_FLAMEGRAPH_H
#define PG_COMPARE_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/result.h"
#include "common/buf.h"

/* A focus view is drawn when the focused frame is narrower than 1/N of the graph. */
#define PG_FLAME_FOCUS_RATIO 10

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
        double noise_floor;     /* differential: |delta| below this fraction of the total
                                   (0.001 = 0.1 percentage points) is drawn white */
        /* Added by the flame graph issue (all zero = default): */
        double minwidth_pct;   /* > 0: prune frames narrower than this % of the total
                                (overrides minwidth_px) */
        size_t max_depth;      /* frames drawn above the root before a "[N more frames]"
                                marker; 0: 512 (less when the height would pass 30000 px) */
        bool raw_delta;        /* differential: delta = (self_head - self_base) / total of the
                                drawn profile, counts taken as given (difffolded.pl two-column
                                input, as flamegraph.pl does); default: share mode */
        const char *base_name; /* differential: names BASE in the subtitle; NULL: "base" */
        const char *head_name; /* differential: names HEAD in the subtitle; NULL: "head" */
        /* For images in PR/MR comments (all zero = default): */
        bool image;            /* a static image: no script, no buttons or status lines, and
                                fonts, fills and outlines as presentation attributes instead
                                of a style sheet, so it reads the same when an image proxy
                                strips scripts and styles */
        const char *highlight; /* NULL, or a function name: its frames and their ancestors
                                get a red outline (the regressed path) */
        bool focus;            /* with @highlight: draw only the subtree of an ancestor of
                                the widest @highlight frame (see pg_flamegraph_diff_svg()) */
        /* Own-time colours (both > 0; share mode otherwise): */
        double base_time; /* the time BASE's samples stand for (e.g. the median
                                  task-clock of a run), in any unit, the same for both */
        double head_time; /* the same for HEAD */
};

/** Fill @o with the defaults above. */
void pg_flame_opts_init(struct pg_flame_opts *o);

/**
 * Set the option called @name (as on the command line, without "--") from
 * the string @value, as `perfgate flamegraph` and `perfgate diff` take it:
 * "title", "subtitle", "countname", "colors" (borrowed: @value must outlive
 * @o), "width" and "height" (px), "minwidth" (px, or "N%" of the total),
 * "max-depth" (frames), "noise-floor" (percentage points, stored as a
 * fraction). Range checks happen when the graph is drawn.
 * Errors: PG_EINPUT for a value that is not a number, or an unknown @name.
 */
int pg_flame_opts_set(struct pg_flame_opts *o, const char *name, const char *value);

/**
 * Append a flame graph SVG of @n stacks to @out. Deterministic bytes.
 * @stacks: folded keys (root first, ';'-separated, any bytes; duplicates are
 *          merged) with their counts; not modified, not kept.
 * @o: options, or NULL for the defaults.
 * Layout, colour and text rules: those of flamegraph.pl (brendangregg/
 * FlameGraph) with the changes listed in docs/flamegraph.md.
 * Errors: PG_EINPUT when the stacks hold no samples, the counts add up to more
 * than 2^64, or an option is out of range (unknown palette, width, height,
 * minwidth, max_depth); @out is then left as it was.
 */
int pg_flamegraph_svg(struct pg_buf *out, const struct pg_stack *stacks, size_t n,
                      const struct pg_flame_opts *o);

/**
 * Append a differential flame graph SVG to @out: HEAD's shape (or BASE's with
 * o->negate), colour = change of each frame's self share
 * (h/T_H - b/T_B; red grew, blue shrank). Deterministic bytes.
 * Formula and palette: Gregg's difffolded.pl -n | flamegraph.pl
 * (brendangregg/FlameGraph) without its integer truncation: with M
 * the largest |delta| drawn, c = floor(210 * (1 - |delta| / M)), growth
 * rgb(255,c,c), shrinkage rgb(c,c,255), zero (or below o->noise_floor)
 * white. With o->raw_delta the counts are compared as given (flamegraph.pl's
 * two-column semantics). With o->base_time and o->head_time (T'_B, T'_H) the
 * colour is the change of each frame's estimated own time instead,
 * (h/T_H * T'_H - b/T_B * T'_B) / T'_H: a frame whose share fell only because
 * another frame's time grew stays white, as in the compare report's
 * "own time" column (docs/diff.md); a frame whose self share moved the other
 * way by at least o->noise_floor (task-clock noise moving every own time) is
 * white too. Frames present only in the drawn profile are marked
 * (class "new", or "gone" in the negated graph) with a dashed outline.
 * With o->focus and o->highlight set, the graph is rooted at the highest
 * ancestor of the widest frame named o->highlight that is at most
 * PG_FLAME_FOCUS_RATIO times that frame's weight, so the frame fills at least
 * 1/PG_FLAME_FOCUS_RATIO of the width; colours stay the deltas of the whole
 * profiles. When no such frame is drawn, or it is already at least
 * 1/PG_FLAME_FOCUS_RATIO of the whole graph (no focus needed), nothing is
 * appended and 0 is returned.
 * Errors: PG_EINPUT when either profile holds no samples (in raw_delta mode:
 * when the drawn one holds none), or as pg_flamegraph_svg().
 */
int pg_flamegraph_diff_svg(struct pg_buf *out, const struct pg_stack *base, size_t nbase,
                           const struct pg_stack *head, size_t nhead,
                           const struct pg_flame_opts *o);

/** The prefix tree of a differential flame graph, built once and drawn as often as needed. */
struct pg_flame_tree;

/**
 * Build the tree pg_flamegraph_diff_svg() would build from @base and @head
 * (the same arguments; @reverse: o->reverse of every drawing), so that
 * several drawings of one pair (head shape, baseline shape, image, focus)
 * merge the stacks once: pg_flamegraph_diff_svg_tree().
 * The tree borrows the stacks' strings: they must outlive it.
 * *out: the tree (free with pg_flame_tree_free()), NULL on error.
 * Errors: PG_EINPUT when the counts add up to more than 2^64 or there are
 * more than 2^32 - 2 distinct frames.
 */
int pg_flame_tree_new(struct pg_flame_tree **out, const struct pg_stack *base, size_t nbase,
                      const struct pg_stack *head, size_t nhead, bool reverse);

/** Free @t (NULL: nothing). */
void pg_flame_tree_free(struct pg_flame_tree *t);

/**
 * pg_flamegraph_diff_svg() drawn from tree @t: the same bytes and errors.
 * @t keeps what a drawing finds that the next can reuse (the frames of
 * o->highlight, the subtrees one profile lacks); its tree is not changed.
 * PG_ERROR when o->reverse differs from the tree's.
 */
int pg_flamegraph_diff_svg_tree(struct pg_buf *out, struct pg_flame_tree *t,
                                const struct pg_flame_opts *o);

#endif
