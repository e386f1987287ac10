/*
 * offcpu.h - where blocking moved: the off-CPU profiles of the baseline and
 * head (runner/offcpu.h: stacks weighted by ns blocked) compared per
 * blocking path, so that a lock that became contended names the function
 * that takes it.
 *
 * A blocking path is the user-space part of an off-CPU stack, root first:
 * the comm and every kernel frame dropped (every stack ends in the
 * scheduler, which says nothing about why), as `perfgate show` lists them.
 * Its figure is ns blocked per sampling run (the stacks' sum / runs), in
 * each profile. A path regressed when it grew by at least the rule's
 * min_ms per run and by its threshold of its baseline time, and holds at
 * least its min_share of head's blocked time (a path new in head has a
 * baseline of 0). The defaults are PG_OFFCPU_*; perfgate.json's
 * compare.offcpu sets them (compare/rules.h). The figures are totals over a few
 * runs, with no per-run spread to test, so the floors are wide: a real
 * contention regression multiplies a path's time (docs/compare.md,
 * "Off-CPU time").
 *
 * Ownership: struct pg_offcpu_cmp owns everything; pg_offcpu_cmp_release().
 */
#ifndef PG_COMPARE_OFFCPU_H
#define PG_COMPARE_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/result.h"
#include "common/buf.h"

#define PG_OFFCPU_THRESHOLD 0.5  /* relative growth of a path's blocked time */
#define PG_OFFCPU_MIN_MS    2.0  /* absolute growth, ms per run */
#define PG_OFFCPU_MIN_SHARE 0.05 /* of head's blocked time per run */

/** When a blocking path regressed (defaults: PG_OFFCPU_*). */
struct pg_offcpu_rule {
        double threshold; /* relative growth of its blocked time (0.5 = 50%) */
        double min_ms;    /* absolute growth, ms per run; also what reports list */
        double min_share; /* its share of head's blocked time, 0..1 */
};

/** @r with the defaults PG_OFFCPU_THRESHOLD, PG_OFFCPU_MIN_MS, PG_OFFCPU_MIN_SHARE. */
void pg_offcpu_rule_init(struct pg_offcpu_rule *r);

struct pg_offcpu_path {
        char *path;              /* user frames, " > "-joined, root first; "[kernel]" if none */
        double base_ms, head_ms; /* blocked per run */
        double delta_ms;
        bool regressed;
};

struct pg_offcpu_cmp {
        bool judged;                /* both results have an off-CPU profile with blocked time */
        struct pg_offcpu_rule rule; /* what it was judged by */
        char *reason;               /* why not judged, or NULL */
        double base_total_ms, head_total_ms; /* blocked per run, all paths */
        size_t n;
        struct pg_offcpu_path *items; /* sorted: regressed first, then by delta, then path */
};

void pg_offcpu_cmp_init(struct pg_offcpu_cmp *c);
void pg_offcpu_cmp_release(struct pg_offcpu_cmp *c);

/**
 * The user-space blocking path of the folded off-CPU stack @frames (comm
 * first) into @out (reset first): its frames up to the first kernel frame,
 * " > "-joined; "[kernel]" when there is none.
 */
void pg_offcpu_path(struct pg_buf *out, const char *frames);

/**
 * Compare the off-CPU profiles @base and @head (either may be absent) into
 * @out (initialised by the caller) by @rule (NULL: the defaults). Never
 * fails: profiles that cannot be compared give out->judged = false with a
 * reason.
 */
void pg_offcpu_compare(const struct pg_profile *base, const struct pg_profile *head,
                       const struct pg_offcpu_rule *rule, struct pg_offcpu_cmp *out);

/** Whether reports list @p of @c: regressed, or moved by c->rule.min_ms or more per run. */
bool pg_offcpu_path_listed(const struct pg_offcpu_cmp *c, const struct pg_offcpu_path *p);

/** The regressed path that grew most, or NULL. */
const struct pg_offcpu_path *pg_offcpu_culprit(const struct pg_offcpu_cmp *c);

#endif
