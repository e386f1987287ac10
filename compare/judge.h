/*
 * judge.h - the judgement of one metric of one benchmark: baseline against
 * head under one rule (DESIGN.md section 6). This is where a threshold is
 * applied; the rule itself comes from compare/rules.h (defaults in
 * compare/defaults.h, overrides from perfgate.json).
 *
 * A change is a regression or an improvement only when it is beyond the
 * threshold, beyond the noise (noise_factor x the larger relative MAD of the
 * two sides) and significant (two-sided Mann-Whitney p < alpha). Beyond the
 * threshold in the bad direction but not significant or within noise is
 * inconclusive ("rerun with more repetitions"). Nothing here produces NaN
 * or Inf: undefined changes are "not comparable" with a reason.
 *
 * Ownership: struct pg_judgement owns its strings and causes;
 * pg_judgement_release() frees them.
 */
#ifndef PG_COMPARE_JUDGE_H
#define PG_COMPARE_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"

enum pg_direction {
        PG_DIR_LOWER_IS_BETTER = 0,
        PG_DIR_HIGHER_IS_BETTER,
        PG_DIR_NONE /* informational: never a regression or improvement */
};

enum pg_threshold_kind {
        PG_THRESHOLD_RELATIVE = 0, /* |median(H)/median(B) - 1| > threshold (fraction) */
        PG_THRESHOLD_POINTS        /* |median(H) - median(B)| x 100 > threshold (pp) */
};

/** The rule for one metric (after defaults and overrides). */
struct pg_metric_rule {
        enum pg_direction direction;
        enum pg_threshold_kind kind;
        double threshold;    /* fraction (0.10 = 10%) for RELATIVE; points (0.5 = 0.5pp) */
        bool gate;           /* a regression of this metric fails the benchmark */
        double noise_factor; /* change must exceed this x relative MAD */
        double alpha;        /* significance level of the Mann-Whitney test */
        double min_coverage; /* counters below this coverage are not judged */
        bool deterministic;  /* simulated on both sides: beyond the threshold is enough (no
                                significance test, no noise gate; runner/simulate.h) */
};

enum pg_outcome {
        PG_OUTCOME_REGRESSION = 0,
        PG_OUTCOME_IMPROVEMENT,
        PG_OUTCOME_UNCHANGED,
        PG_OUTCOME_INCONCLUSIVE,
        PG_OUTCOME_NOT_JUDGED,     /* coverage, status differs, missing on one side */
        PG_OUTCOME_NOT_COMPARABLE, /* zero or undefined baseline */
        PG_OUTCOME_NOT_MEASURED    /* not counted on either side (same status) */
};

/** Name of @o as written in reports ("regression", "not comparable", ...). */
const char *pg_outcome_name(enum pg_outcome o);

/** A function whose count of a counter grew (compare/verdict.c, simulated results). */
struct pg_cause {
        char *function;    /* function name ("[other]" possible) */
        char *file;        /* its source file, NULL when unknown */
        uint64_t line;     /* its hottest line in head, 0 when unknown */
        double base_count; /* the counter in the baseline (0 if absent there) */
        double head_count; /* the counter in head */
        double base_share; /* fraction of the benchmark's total, baseline */
        double head_share; /* fraction of the benchmark's total, head */
};

/** The judgement of one metric. */
struct pg_judgement {
        char *metric; /* owned copy of the name */
        char *unit;   /* owned copy ("ns", "count", ...) */
        struct pg_metric_rule rule;
        enum pg_outcome outcome;
        char *reason; /* owned; NULL or why (not judged, inconclusive, ...) */
        size_t nbase, nhead;
        bool has_base, has_head; /* medians are defined */
        double base_median, head_median;
        bool has_base_noise, has_head_noise;
        double base_rel_mad, head_rel_mad; /* fractions */
        bool has_rel;                      /* relative change defined */
        double rel_change;                 /* median(H)/median(B) - 1 */
        bool has_pp;                       /* pp_change defined: rates only, finite */
        double pp_change;                  /* (median(H) - median(B)) x 100; 0 unless has_pp */
        bool has_p;
        double p_value;
        bool exact;
        bool has_hl;
        double hl_shift, hl_lo, hl_hi, hl_conf; /* Hodges-Lehmann shift H - B, base units */
        double badness;          /* change in the bad direction in threshold units (>1: beyond) */
        bool blocks;             /* not judged although the baseline had it: a gating metric
                           so affected makes its benchmark inconclusive */
        char *cause_counter;     /* owned; the counter the causes are about, or NULL */
        size_t ncauses;          /* where a regression comes from, largest growth first */
        struct pg_cause *causes; /* owned */
        bool unconfirmed;        /* `compare --confirm`'s paired runs found no regression
                                    where this gating metric's stored comparison said
                                    regression or inconclusive (docs/compare.md, "Confirming
                                    by paired runs"): the reports word it "vs stored
                                    baseline, not confirmed by paired runs", outcome kept */
        bool pairs_undecided;    /* the same, but the paired runs were inconclusive at
                                    their budget: worded "vs stored baseline, paired runs
                                    inconclusive", still listed with what is undecided */
};

/**
 * Whether @j's head took a tenth of the baseline's time or less in a whole
 * run's time (task-clock, cpu-clock, duration_time): the order-of-magnitude
 * rule (docs/compare.md, "A benchmark that measured nothing") makes such a
 * metric "not comparable", most likely other work, and `compare --confirm`
 * keeps it undecided (its paired runs run the same head). False when a
 * median is missing or the baseline's is not positive.
 */
bool pg_judge_too_fast(const struct pg_judgement *j);

/*
 * The lowest coverage at which the shift's interval is reported. The Moses
 * interval covers the lowest level at or above 95% that the sample sizes
 * can achieve (97% with 5 and 5); when none can, it is the full range of
 * the differences, whose coverage falls with the repetitions (90% with 3 and
 * 3, 67% with 2 and 2, 0% with 1 and 1, where it is one point). Below this
 * level it is left out rather than printed as "0% CI".
 */
#define PG_HL_MIN_LEVEL 0.9

/**
 * Whether @j's Hodges-Lehmann shift has an interval worth reporting: the
 * shift is defined (has_hl) and its interval covers at least
 * PG_HL_MIN_LEVEL (hl_conf). Reports print the shift alone otherwise.
 */
bool pg_judgement_has_interval(const struct pg_judgement *j);

/** Free what @j owns. */
void pg_judgement_release(struct pg_judgement *j);

/**
 * Judge metric @base against @head (either may be NULL when absent) under
 * @rule into @out. @host_diff: NULL, or why the two hosts differ
 * ("cpu model 'A' vs 'B'"); @host_cpu_diff: the difference includes the CPU
 * model (then every verdict becomes inconclusive, else only counters).
 * @name: the metric's name. Never fails.
 */
void pg_judge_metric(const char *name, const struct pg_metric *base, const struct pg_metric *head,
                     const struct pg_metric_rule *rule, const char *host_diff, bool host_cpu_diff,
                     struct pg_judgement *out);

#endif
