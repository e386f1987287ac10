/*
 * rules.h - how one metric of one benchmark is judged (DESIGN.md section 6):
 * its direction, its threshold (relative for values, percentage points for
 * rates), the noise gate, the significance level, and whether it gates the
 * build; the defaults, the overrides of perfgate.json's "compare" section,
 * and the judgement of a baseline/head pair of metrics.
 *
 * A change is a regression or an improvement only when it is beyond the
 * threshold, beyond the noise (noise_factor x the larger relative MAD of the
 * two sides) and significant (two-sided Mann-Whitney p < alpha). Beyond the
 * threshold in the bad direction but not significant or within noise is
 * inconclusive ("rerun with more repetitions"). Nothing here produces NaN
 * or Inf: undefined changes are "not comparable" with a reason.
 *
 * Ownership: struct pg_rules owns its strings and tables; release with
 * pg_rules_release(). struct pg_judgement owns its reason string.
 */
#ifndef PG_COMPARE_RULES_H
#define PG_COMPARE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

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

/** Hotspot rules (compare/hotspot.h). */
struct pg_hotspot_rule {
        double threshold_pp;  /* self share growth that counts, percentage points */
        double alpha;         /* significance of the two-proportion test */
        uint64_t min_samples; /* a function needs this many samples on one side */
        double new_pp;        /* a new function at or above this share is a new hotspot */
        bool gate;            /* a hotspot regression fails the benchmark */
};

struct pg_rule_override;

/** Defaults plus the overrides of one perfgate.json. */
struct pg_rules {
        double alpha;
        double noise_factor;
        double min_coverage;
        bool fail_on_missing; /* a benchmark missing in HEAD fails the build */
        bool has_gate_list;   /* "gate": [...] replaces the default gating set */
        size_t ngate;
        char **gate; /* metric names that gate (when has_gate_list) */
        struct pg_hotspot_rule hotspots;
        size_t noverrides;
        struct pg_rule_override *overrides; /* per metric and per benchmark */
        char *origin;                       /* the config file, for messages; NULL: none */
};

/** Fill @r with perfgate's defaults (docs/compare.md, "Defaults"). */
void pg_rules_init(struct pg_rules *r);
/** Free what @r owns. */
void pg_rules_release(struct pg_rules *r);

/**
 * Apply the "compare" object of perfgate.json (@compare; NULL: nothing) to
 * @r. Keys: "alpha", "noise_factor", "min_coverage", "fail_on_missing",
 * "gate" (array of metric names), "metrics" ({name: override}),
 * "benchmarks" ({name: {"gate": [...], "metrics": {name: override}}}),
 * "hotspots" ({"threshold": "2pp", "alpha", "min_samples", "new": "1pp",
 * "gate"}). An override: {"threshold": "5%" | "0.5pp", "direction": "lower" |
 * "higher" | "none", "gate": bool, "noise_factor", "alpha"}.
 * @origin names the file in messages.
 * Errors: PG_EINPUT naming the key and the expected form; an unknown key at
 * any level (a typo would silently keep the default), listing the known
 * keys; an empty "gate" list (nothing would ever fail the build).
 * Metric names are checked later, against the results: pg_rules_check().
 */
int pg_rules_load(struct pg_rules *r, const cJSON *compare, const char *origin);

/**
 * Check the names @r's config uses against what is compared. Every metric
 * named in "gate", "metrics" and "benchmarks" must be one perfgate measures
 * or derives (the perf stat -d -d events, duration_time, user-time,
 * system-time, max-rss, the derived ratios: docs/result-format.md) or appear
 * in @base or @head (events counted with --events). A benchmark named in
 * "benchmarks" that is in neither set is only a warning (it may have been
 * removed, or be measured by another shard).
 * @base, @head: the loaded result sets (either may be NULL or empty).
 * @warnings: set to NULL, or to an owned string of warning lines joined by
 * '\n' (no trailing newline) for the caller to print.
 * Errors: PG_EINPUT naming the metric, its key and the file, listing the
 * known metric names and the nearest one.
 */
int pg_rules_check(const struct pg_rules *r, const struct pg_result_set *base,
                   const struct pg_result_set *head, char **warnings);

/**
 * The rule for @metric in @benchmark: built-in default for the metric name
 * (unknown metrics: direction none, not gating), then "gate", then
 * "metrics", then the benchmark's own overrides.
 */
void pg_rules_get(const struct pg_rules *r, const char *benchmark, const char *metric,
                  struct pg_metric_rule *out);

/**
 * pg_rules_get() for a metric simulated on both sides (counters
 * "simulated", pg_metric_is_simulated()): the built-in simulated defaults
 * (tight: the counts are deterministic; docs/compare.md), then the same
 * overrides; out->deterministic is set.
 */
void pg_rules_get_simulated(const struct pg_rules *r, const char *benchmark, const char *metric,
                            struct pg_metric_rule *out);

/** Whether @metric is one `--counters simulated` produces (a count or a ratio of them). */
bool pg_metric_is_simulated(const char *metric);

/**
 * The counter that explains a change of @metric (its numerator):
 * branch-miss-rate -> branch-misses, L1-dcache-miss-rate ->
 * L1-dcache-load-misses, LLC-miss-rate -> LLC-load-misses, ipc -> cycles;
 * a simulated count is its own; NULL for anything else.
 */
const char *pg_metric_cause_counter(const char *metric);

/**
 * Parse a threshold string: "5%" (relative) or "0.5pp" (percentage points).
 * Errors: PG_EINPUT for anything else, negative, or non-finite.
 */
int pg_threshold_parse(const char *s, enum pg_threshold_kind *kind, double *value);

/** Whether @metric is a hardware-counter metric (or derived from them). */
bool pg_metric_is_counter(const char *metric);

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
        double pp_change;                  /* (median(H) - median(B)) x 100 */
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
};

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
