/*
 * defaults.h - what perfgate knows about each metric before any config: its
 * built-in rule (direction, threshold, gating; measured basis in
 * docs/compare.md, "Defaults"), whether it is a simulated count, a hardware
 * counter, or a name perfgate produces at all.
 */
#ifndef PG_COMPARE_DEFAULTS_H
#define PG_COMPARE_DEFAULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/judge.h"

/**
 * The built-in rule for @metric into @out (cleared first): the simulated
 * table when @simulated and the metric is one (deterministic counts: tight
 * thresholds), else the measured table; a metric in neither gets direction
 * none, 10%, not gating, except a name ending in "-rate" (lower is better,
 * 2 percentage points). Leaves alpha, noise_factor, min_coverage and
 * deterministic 0: they are the config's (compare/rules.h).
 */
void pg_metric_default_rule(const char *metric, bool simulated, struct pg_metric_rule *out);

/**
 * The metric names perfgate itself produces (docs/result-format.md): the
 * events of `perf stat -d -d` the runner counts, the rusage and wall-clock
 * metrics, the derived ratios. Sets *n; the array is static.
 */
const char *const *pg_metric_builtin_names(size_t *n);

/** Whether @metric is one `--counters simulated` produces (a count or a ratio of them). */
bool pg_metric_is_simulated(const char *metric);

/**
 * The counter that explains a change of @metric (its numerator):
 * branch-miss-rate -> branch-misses, L1-dcache-miss-rate ->
 * L1-dcache-load-misses, LLC-miss-rate -> LLC-load-misses, ipc -> cycles;
 * a simulated count is its own; NULL for anything else.
 */
const char *pg_metric_cause_counter(const char *metric);

/** Whether @metric is a hardware-counter metric (or derived from them). */
bool pg_metric_is_counter(const char *metric);

#endif
