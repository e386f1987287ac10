/*
 * rules.h - perfgate.json's "compare" section and the rule it makes for one
 * metric of one benchmark (DESIGN.md section 6): its direction, its
 * threshold (relative for values, percentage points for rates), the noise
 * gate, the significance level, and whether it gates the build. The rule
 * starts from the built-in default (compare/defaults.h) and takes the
 * section's overrides; compare/judge.h applies it.
 *
 * Ownership: struct pg_rules owns its strings and tables; release with
 * pg_rules_release().
 */
#ifndef PG_COMPARE_RULES_H
#define PG_COMPARE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "baselines/result.h"
#include "compare/defaults.h"
#include "compare/judge.h"
#include "compare/offcpu.h"

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
        struct pg_offcpu_rule offcpu; /* when a blocking path regressed (compare/offcpu.h) */
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
 * "gate"}), "offcpu" ({"threshold": "50%", "min_ms": 2, "min_share": "5%"}:
 * compare/offcpu.h). An override: {"threshold": "5%" | "0.5pp", "direction": "lower" |
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
 * known metric names and the nearest one; PG_EINPUT for a threshold in
 * percentage points ("5pp") on a metric whose unit in the results is not
 * "ratio".
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

/**
 * Parse a threshold string: "5%" (relative) or "0.5pp" (percentage points).
 * Errors: PG_EINPUT for anything else, negative, or non-finite.
 */
int pg_threshold_parse(const char *s, enum pg_threshold_kind *kind, double *value);

#endif
