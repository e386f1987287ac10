/*
 * judge.c - the judgement of one metric (judge.h): medians, noise, the rank
 * test, and the threshold applied to the change in pg_judge_metric().
 *
 * Invariant: every double stored in a struct pg_judgement is finite; a
 * change that would divide by zero, or overflow (1e-300 -> 1e308), is not
 * computed (has_rel = false) and the outcome says "not comparable" with the
 * reason.
 */
#include "compare/judge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "compare/defaults.h"
#include "compare/stats.h"

static const char *const pg_outcome_names[] = { "regression",   "improvement", "unchanged",
                                                "inconclusive", "not judged",  "not comparable",
                                                "not measured" };

const char *pg_outcome_name(enum pg_outcome o)
{
        if ((size_t) o < sizeof(pg_outcome_names) / sizeof(pg_outcome_names[0]))
                return pg_outcome_names[o];
        return "unknown";
}

void pg_judgement_release(struct pg_judgement *j)
{
        for (size_t i = 0; i < j->ncauses; i++) {
                free(j->causes[i].function);
                free(j->causes[i].file);
        }
        free(j->causes);
        free(j->cause_counter);
        free(j->metric);
        free(j->unit);
        free(j->reason);
        memset(j, 0, sizeof(*j));
}

static double pg_min_coverage(const struct pg_metric *m)
{
        double c = 1;
        if (!m->coverage)
                return 1;
        for (size_t i = 0; i < m->nvalues; i++)
                if (m->coverage[i] < c)
                        c = m->coverage[i];
        return c;
}

static void pg_set_reason(struct pg_judgement *j, char *reason)
{
        free(j->reason);
        j->reason = reason;
}

/* Drop statistics that overflowed (values near DBL_MAX, medians near the
 * smallest double): they are reported as absent, never as inf or nan. */
static void pg_judgement_finite_stats(struct pg_judgement *j)
{
        if (!isfinite(j->base_rel_mad)) {
                j->has_base_noise = false;
                j->base_rel_mad = 0;
        }
        if (!isfinite(j->head_rel_mad)) {
                j->has_head_noise = false;
                j->head_rel_mad = 0;
        }
        if (!isfinite(j->p_value)) {
                j->has_p = false;
                j->p_value = 0;
        }
        if (!isfinite(j->hl_shift) || !isfinite(j->hl_lo) || !isfinite(j->hl_hi) ||
            !isfinite(j->hl_conf)) {
                j->has_hl = false;
                j->hl_shift = j->hl_lo = j->hl_hi = j->hl_conf = 0;
        }
}

/* The fewest repetitions per side with which a change can reach p < @alpha
 * when both sides have as many (4 at alpha 0.05: best p 2/70). */
static size_t pg_repeat_least(double alpha)
{
        size_t n = 1;

        while (n < 1000 && !(pg_stats_mwu_best_p(n, n) < alpha))
                n++;
        return n;
}

/*
 * Why a change beyond the threshold could not have been a regression: with
 * @nbase and @nhead repetitions no p reaches @alpha. Names the side that is
 * short (fewer than pg_repeat_least()), so that the advice re-records that
 * side, not one that already has enough; it advises perfgate run's default
 * of 5 repetitions, or more where alpha needs more.
 */
static char *pg_too_few_reason(size_t nbase, size_t nhead, double alpha)
{
        size_t least = pg_repeat_least(alpha), need = least < 5 ? 5 : least;
        double best = pg_stats_mwu_best_p(nbase, nhead);

        if (nbase < least && nhead >= least)
                return pg_xasprintf("could not have failed: the baseline has %zu repetition%s "
                                    "(head %zu), too few for any change to reach p < %g (the "
                                    "best possible p is %.3g); record the baseline with "
                                    "--repeat %zu",
                                    nbase, nbase == 1 ? "" : "s", nhead, alpha, best, need);
        if (nhead < least && nbase >= least)
                return pg_xasprintf("could not have failed: head has %zu repetition%s (the "
                                    "baseline %zu), too few for any change to reach p < %g (the "
                                    "best possible p is %.3g); run head with --repeat %zu",
                                    nhead, nhead == 1 ? "" : "s", nbase, alpha, best, need);
        return pg_xasprintf("could not have failed: with %zu and %zu repetitions no change "
                            "reaches p < %g (the best possible p is %.3g); record the baseline "
                            "and run head with --repeat %zu",
                            nbase, nhead, alpha, best, need);
}

/*
 * The median change and the Hodges-Lehmann shift (relative to median(B), or
 * in pp for rates) are two estimates of the same change. On a unimodal
 * metric they agree; on a multimodal one (a 50/50 mixture of a fast and a
 * slow mode, as shared runners produce) the median of 5 runs jumps between
 * the modes and can hide a shift of the whole distribution: +1.7% between
 * medians against +29% for the median of all pairwise differences. So a
 * metric is unchanged only when neither estimate is beyond the threshold in
 * the bad direction; when exactly one is, it is at least inconclusive, with
 * both figures named (docs/compare.md, "Outcome of a metric"). A regression
 * still needs the rule above (the median change beyond the threshold and the
 * noise, and p < alpha), so a regression stays one. @median_bad: the median
 * change is beyond the threshold in the bad direction. Rates: hl_shift is in
 * the metric's fraction, so x 100 is pp as for the median change.
 */
static void pg_judge_two_estimates(struct pg_judgement *j, bool is_rate, bool median_bad)
{
        const struct pg_metric_rule *r = &j->rule;
        double hl, hl_bad;

        if (!j->has_hl || r->deterministic || r->direction == PG_DIR_NONE)
                return;
        if (is_rate)
                hl = j->hl_shift * 100;
        else if (j->base_median > 0)
                hl = j->hl_shift / j->base_median;
        else
                return;
        if (!isfinite(hl))
                return;
        hl_bad = r->direction == PG_DIR_HIGHER_IS_BETTER ? -hl : hl;
        /* the median beyond, the shift within: already inconclusive or a
         * regression by the rule above, whose reason stands */
        if (median_bad || !(hl_bad > r->threshold))
                return;
        j->outcome = PG_OUTCOME_INCONCLUSIVE;
        if (is_rate)
                pg_set_reason(j, pg_xasprintf("the values look multimodal: medians %+.2f pp, "
                                              "shift of all pairs %+.2f pp; --confirm or more "
                                              "repetitions settle it",
                                              j->pp_change, hl));
        else
                pg_set_reason(j, pg_xasprintf("the %s look multimodal: medians %+.1f%%, shift "
                                              "of all pairs %+.1f%%; --confirm or more "
                                              "repetitions settle it",
                                              strcmp(j->unit, "ns") == 0 ? "timings" : "values",
                                              100 * j->rel_change, 100 * hl));
}

/*
 * A whole run's time (task-clock, cpu-clock, duration_time) that changed by
 * PG_JUDGE_MAGNITUDE or more is most likely other work, not faster or slower
 * code: a Google Benchmark `--benchmark_filter` that matches nothing exits 0
 * after 9 ms of dynamic-loader start-up where the baseline ran 500 ms
 * (docs/compare.md, "A benchmark that measured nothing"). user-time and
 * system-time are left out: the kernel splits a short run between them by
 * clock ticks.
 */
#define PG_JUDGE_MAGNITUDE 10.0

static bool pg_is_run_time(const char *name)
{
        return strcmp(name, "task-clock") == 0 || strcmp(name, "cpu-clock") == 0 ||
               strcmp(name, "duration_time") == 0;
}

bool pg_judge_too_fast(const struct pg_judgement *j)
{
        return pg_is_run_time(j->metric) && j->rule.direction == PG_DIR_LOWER_IS_BETTER &&
               j->has_base && j->has_head && j->base_median > 0 &&
               j->head_median * PG_JUDGE_MAGNITUDE <= j->base_median;
}

/*
 * The order-of-magnitude rule on @j (medians set, both > 0, not a rate):
 * head PG_JUDGE_MAGNITUDE times faster or more is "not comparable" and
 * blocks when it gates (the benchmark is inconclusive, a failure under --strict): a
 * benchmark that measured nothing must not pass as an improvement, nor be
 * saved as a baseline unnoticed. Returns true when it decided @j. Head as
 * many times slower is left to the rule (a real 10x slowdown must still
 * fail); pg_judge_magnitude_hint() adds why it may not be one.
 */
static bool pg_judge_magnitude(struct pg_judgement *j)
{
        if (!pg_judge_too_fast(j))
                return false;
        j->outcome = PG_OUTCOME_NOT_COMPARABLE;
        j->blocks = j->rule.gate;
        pg_set_reason(j, pg_xasprintf("%.0fx less time than the baseline: beyond %gx it is most "
                                      "likely other work, not faster code (did the command "
                                      "change? a filter that matches nothing runs only "
                                      "start-up); see head's log",
                                      j->base_median / j->head_median, PG_JUDGE_MAGNITUDE));
        return true;
}

/* Head PG_JUDGE_MAGNITUDE times slower or more, judged by the rule: say that
 * the baseline may have measured nothing (a reason of the rule's stays). */
static void pg_judge_magnitude_hint(struct pg_judgement *j)
{
        if (!pg_is_run_time(j->metric) || j->rule.direction != PG_DIR_LOWER_IS_BETTER ||
            !(j->head_median >= PG_JUDGE_MAGNITUDE * j->base_median) ||
            (j->outcome != PG_OUTCOME_REGRESSION && j->outcome != PG_OUTCOME_INCONCLUSIVE))
                return;
        pg_set_reason(j, pg_xasprintf("%s%s%.0fx the baseline's time: if the baseline "
                                      "measured nothing (a filter that matched nothing runs "
                                      "only start-up; see its log), record it again",
                                      j->reason ? j->reason : "", j->reason ? "; " : "",
                                      j->head_median / j->base_median));
}

void pg_judge_metric(const char *name, const struct pg_metric *base, const struct pg_metric *head,
                     const struct pg_metric_rule *rule, const char *host_diff, bool host_cpu_diff,
                     struct pg_judgement *out)
{
        const struct pg_metric *any = head ? head : base;
        double change, noise, bad, abs_mad_b, abs_mad_h;
        bool beyond, significant, in_noise, is_rate, overflow;
        struct pg_mwu mwu;
        struct pg_hl hl;

        memset(out, 0, sizeof(*out));
        out->metric = pg_xstrdup(name);
        out->unit = pg_xstrdup(any && any->unit ? any->unit : "");
        out->rule = *rule;
        is_rate = rule->kind == PG_THRESHOLD_POINTS;
        if (base && base->status == PG_METRIC_OK) {
                out->nbase = base->nvalues;
                out->has_base = true;
                out->base_median = pg_stats_median(base->values, base->nvalues);
                out->has_base_noise =
                    pg_stats_rel_mad(base->values, base->nvalues, &out->base_rel_mad);
        }
        if (head && head->status == PG_METRIC_OK) {
                out->nhead = head->nvalues;
                out->has_head = true;
                out->head_median = pg_stats_median(head->values, head->nvalues);
                out->has_head_noise =
                    pg_stats_rel_mad(head->values, head->nvalues, &out->head_rel_mad);
        }
        if (!base || !head) {
                bool derived = any && any->unit && strcmp(any->unit, "ratio") == 0;
                out->outcome = derived ? PG_OUTCOME_NOT_COMPARABLE : PG_OUTCOME_NOT_JUDGED;
                if (!base)
                        out->reason = pg_xstrdup(derived ? "undefined in the baseline"
                                                         : "new metric, no baseline");
                else
                        out->reason = pg_xstrdup(derived ? "present in the baseline, undefined "
                                                           "in head"
                                                         : "present in the baseline, missing "
                                                           "in head");
                out->blocks = base && base->status == PG_METRIC_OK;
                return;
        }
        if (base->status != PG_METRIC_OK || head->status != PG_METRIC_OK) {
                if (base->status == head->status) {
                        out->outcome = PG_OUTCOME_NOT_MEASURED;
                        out->reason =
                            pg_xasprintf("%s on both sides", pg_metric_status_name(base->status));
                } else {
                        out->outcome = PG_OUTCOME_NOT_JUDGED;
                        out->reason = pg_xasprintf("status '%s' in the baseline, '%s' in head",
                                                   pg_metric_status_name(base->status),
                                                   pg_metric_status_name(head->status));
                        out->blocks = base->status == PG_METRIC_OK;
                }
                return;
        }
        if (base->unit && head->unit && strcmp(base->unit, head->unit) != 0) {
                /* ns against count: no change between them means anything */
                out->outcome = PG_OUTCOME_NOT_COMPARABLE;
                out->reason = pg_xasprintf("units differ: '%s' in the baseline, '%s' in head",
                                           base->unit, head->unit);
                out->blocks = true;
                return;
        }
        if (pg_min_coverage(base) < rule->min_coverage ||
            pg_min_coverage(head) < rule->min_coverage) {
                bool b = pg_min_coverage(base) < rule->min_coverage;
                out->outcome = PG_OUTCOME_NOT_JUDGED;
                out->reason = pg_xasprintf(
                    "counted only %.0f%% of the time in %s (multiplexed; needs %.0f%%)",
                    100 * pg_min_coverage(b ? base : head), b ? "the baseline" : "head",
                    100 * rule->min_coverage);
                out->blocks = true;
                return;
        }
        /* deterministic counts: no test and no interval (one value a side) */
        if (!rule->deterministic && pg_stats_mann_whitney(head->values, head->nvalues, base->values,
                                                          base->nvalues, &mwu) == 0) {
                out->has_p = true;
                out->p_value = mwu.p_value;
                out->exact = mwu.exact;
        }
        if (!rule->deterministic &&
            pg_stats_hodges_lehmann(base->values, base->nvalues, head->values, head->nvalues, 0.95,
                                    &hl) == 0) {
                out->has_hl = true;
                out->hl_shift = hl.shift;
                out->hl_lo = hl.lo;
                out->hl_hi = hl.hi;
                out->hl_conf = hl.conf;
        }
        pg_judgement_finite_stats(out);
        /* points are a change of rates only (docs/compare.md, "How one metric
         * is judged"): a time in ns has no percentage points */
        out->pp_change = is_rate ? (out->head_median - out->base_median) * 100 : 0;
        out->has_pp = is_rate;
        if (out->base_median > 0) {
                out->has_rel = true;
                out->rel_change = out->head_median / out->base_median - 1;
        }
        overflow = is_rate ? !isfinite(out->pp_change) : !isfinite(out->rel_change);
        if (!isfinite(out->pp_change)) {
                out->pp_change = 0;
                out->has_pp = false;
        }
        if (!isfinite(out->rel_change)) {
                out->rel_change = 0;
                out->has_rel = false;
        }
        if (overflow) {
                /* e.g. 1e-300 -> 1e308: a change no double holds is no
                 * verdict either; never report it as "+inf%" */
                out->outcome = PG_OUTCOME_NOT_COMPARABLE;
                out->reason = pg_xasprintf("change too large to compute (median %g -> %g)",
                                           out->base_median, out->head_median);
                out->blocks = true;
                return;
        }
        abs_mad_b = pg_stats_mad(base->values, base->nvalues);
        abs_mad_h = pg_stats_mad(head->values, head->nvalues);
        if (is_rate) {
                change = out->pp_change;
                noise = rule->noise_factor * 100 * fmax(abs_mad_b, abs_mad_h);
        } else {
                if (out->base_median == 0 && out->head_median == 0) {
                        out->outcome = PG_OUTCOME_UNCHANGED;
                        out->reason = pg_xstrdup("0 on both sides");
                        return;
                }
                if (!out->has_rel) {
                        out->outcome = PG_OUTCOME_NOT_COMPARABLE;
                        out->reason = pg_xstrdup(out->base_median == 0 ? "zero baseline"
                                                                       : "negative baseline");
                        out->blocks = true;
                        return;
                }
                if (pg_judge_magnitude(out))
                        return;
                change = out->rel_change;
                noise = rule->noise_factor * fmax(out->has_base_noise ? out->base_rel_mad : 0,
                                                  out->has_head_noise ? out->head_rel_mad : 0);
        }
        bad = rule->direction == PG_DIR_HIGHER_IS_BETTER ? -change : change;
        out->badness = rule->threshold > 0 ? bad / rule->threshold : (bad > 0 ? 1e9 : 0);
        if (!isfinite(out->badness)) /* a tiny threshold: far beyond it either way */
                out->badness = bad > 0 ? 1e9 : -1e9;
        if (!isfinite(noise))
                noise = 0;
        beyond = fabs(change) > rule->threshold;
        /* deterministic (simulated) counts: no noise to rule out, and one value
         * per side gives no test anyway */
        significant = rule->deterministic || (out->has_p && out->p_value < rule->alpha);
        in_noise = !rule->deterministic && !(fabs(change) > noise);
        if (rule->direction == PG_DIR_NONE) {
                out->outcome = PG_OUTCOME_UNCHANGED;
                out->badness = 0;
                /* a change beyond the threshold called unchanged says why */
                if (beyond)
                        out->reason = pg_xstrdup("informational: the metric has no direction, "
                                                 "so no change of it is judged");
        } else if (!beyond) {
                out->outcome = PG_OUTCOME_UNCHANGED;
        } else if (significant && !in_noise) {
                out->outcome = bad > 0 ? PG_OUTCOME_REGRESSION : PG_OUTCOME_IMPROVEMENT;
        } else if (bad > 0) {
                out->outcome = PG_OUTCOME_INCONCLUSIVE;
                if (!significant && !rule->deterministic &&
                    !(pg_stats_mwu_best_p(out->nbase, out->nhead) < rule->alpha))
                        out->reason = pg_too_few_reason(out->nbase, out->nhead, rule->alpha);
                else if (!significant)
                        out->reason = pg_xasprintf(
                            "beyond the threshold but not significant (p = %.3g, needs < %g "
                            "with %zu and %zu repetitions); rerun with more repetitions",
                            out->p_value, rule->alpha, out->nbase, out->nhead);
                else
                        out->reason = pg_xasprintf(
                            is_rate ? "beyond the threshold but within noise (%g x MAD = "
                                      "%.2f pp); rerun with more repetitions"
                                    : "beyond the threshold but within noise (%g x relative "
                                      "MAD = %.1f%%); rerun with more repetitions",
                            rule->noise_factor, is_rate ? noise : 100 * noise);
        } else {
                /* beyond the threshold in the good direction, but not an
                 * improvement by the same rule a regression needs */
                out->outcome = PG_OUTCOME_UNCHANGED;
                if (!significant && !out->has_p)
                        out->reason = pg_xstrdup("possible improvement, not tested");
                else if (!significant)
                        out->reason = pg_xasprintf(
                            "possible improvement, not significant: p = %.3g, needs < %g",
                            out->p_value, rule->alpha);
                else
                        out->reason = pg_xasprintf(
                            is_rate ? "possible improvement, within noise: %g x MAD = %.2f pp"
                                    : "possible improvement, within noise: %g x relative MAD = "
                                      "%.1f%%",
                            rule->noise_factor, is_rate ? noise : 100 * noise);
        }
        pg_judge_two_estimates(out, is_rate, bad > rule->threshold);
        pg_judge_magnitude_hint(out);
        if (host_diff && (host_cpu_diff || pg_metric_is_counter(name)) &&
            (out->outcome == PG_OUTCOME_REGRESSION || out->outcome == PG_OUTCOME_IMPROVEMENT ||
             out->outcome == PG_OUTCOME_INCONCLUSIVE)) {
                out->outcome = PG_OUTCOME_INCONCLUSIVE;
                pg_set_reason(out, pg_xasprintf("hosts differ (%s); compare on the baseline's "
                                                "host",
                                                host_diff));
        }
}

bool pg_judgement_has_interval(const struct pg_judgement *j)
{
        /* the achieved levels are fractions with small denominators
         * (1 - 2/20 = 0.9 for 3 and 3): compare with a margin */
        return j->has_hl && j->hl_conf >= PG_HL_MIN_LEVEL - 1e-9;
}
