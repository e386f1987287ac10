/*
 * test_rules.c - compare/rules.c and compare/verdict.c: threshold parsing,
 * defaults and perfgate.json overrides (and their errors), every outcome of
 * one metric's judgement (regression, improvement, unchanged, inconclusive
 * by significance and by noise, not comparable on a zero baseline, not
 * judged on coverage, status or a missing side, host mismatch), and the
 * benchmark verdicts and exit status (new, missing, failed, strict).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/error.h"
#include "common/json.h"
#include "compare/rules.h"
#include "compare/verdict.h"
#include "tests/util/cases.h"

static struct pg_metric pg_m(const char *name, const char *unit, double *v, size_t n)
{
        struct pg_metric m;
        memset(&m, 0, sizeof(m));
        m.name = (char *) name;
        m.unit = (char *) unit;
        m.status = PG_METRIC_OK;
        m.values = v;
        m.nvalues = n;
        return m;
}

static void pg_assert_finite(const struct pg_judgement *j)
{
        assert_true(isfinite(j->base_median) && isfinite(j->head_median));
        assert_true(isfinite(j->rel_change) && isfinite(j->pp_change));
        assert_true(isfinite(j->p_value) && isfinite(j->badness));
        assert_true(isfinite(j->base_rel_mad) && isfinite(j->head_rel_mad));
        assert_true(isfinite(j->hl_shift) && isfinite(j->hl_lo) && isfinite(j->hl_hi));
}

static void test_rules_threshold_parse(void **state)
{
        enum pg_threshold_kind k;
        double v;
        (void) state;
        assert_int_equal(pg_threshold_parse("5%", &k, &v), 0);
        assert_int_equal(k, PG_THRESHOLD_RELATIVE);
        assert_true(v == 0.05);
        assert_int_equal(pg_threshold_parse("0.5pp", &k, &v), 0);
        assert_int_equal(k, PG_THRESHOLD_POINTS);
        assert_true(v == 0.5);
        assert_int_equal(pg_threshold_parse("5", &k, &v), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "\"5%\""));
        assert_int_equal(pg_threshold_parse("-1%", &k, &v), PG_EINPUT);
        assert_int_equal(pg_threshold_parse("nan%", &k, &v), PG_EINPUT);
        assert_int_equal(pg_threshold_parse("inf%", &k, &v), PG_EINPUT);
        assert_int_equal(pg_threshold_parse("", &k, &v), PG_EINPUT);
        assert_int_equal(pg_threshold_parse("5 %", &k, &v), PG_EINPUT);
}

static void test_rules_defaults(void **state)
{
        struct pg_rules r;
        struct pg_metric_rule m;
        (void) state;
        pg_rules_init(&r);
        pg_rules_get(&r, "b", "task-clock", &m);
        assert_true(m.gate && m.direction == PG_DIR_LOWER_IS_BETTER);
        assert_true(m.kind == PG_THRESHOLD_RELATIVE && m.threshold == 0.10);
        assert_true(m.alpha == 0.05 && m.noise_factor == 3 && m.min_coverage == 0.5);
        pg_rules_get(&r, "b", "ipc", &m);
        assert_true(!m.gate && m.direction == PG_DIR_HIGHER_IS_BETTER);
        pg_rules_get(&r, "b", "branch-miss-rate", &m);
        assert_true(m.kind == PG_THRESHOLD_POINTS && m.direction == PG_DIR_LOWER_IS_BETTER);
        pg_rules_get(&r, "b", "instructions", &m);
        assert_true(m.gate);
        /* custom metrics must declare a direction: until then informational */
        pg_rules_get(&r, "b", "my-custom", &m);
        assert_true(!m.gate && m.direction == PG_DIR_NONE);
        pg_rules_get(&r, "b", "dTLB-miss-rate", &m);
        assert_true(m.kind == PG_THRESHOLD_POINTS && m.direction == PG_DIR_LOWER_IS_BETTER);
        assert_true(pg_metric_is_counter("cycles") && !pg_metric_is_counter("task-clock"));
        pg_rules_release(&r);
}

static int pg_load_rules(struct pg_rules *r, const char *json)
{
        cJSON *root = NULL;
        int error;
        pg_rules_init(r);
        assert_int_equal(pg_json_parse(json, strlen(json), "perfgate.json", 1, &root), 0);
        error =
            pg_rules_load(r, cJSON_GetObjectItemCaseSensitive(root, "compare"), "perfgate.json");
        cJSON_Delete(root);
        return error;
}

static void test_rules_overrides(void **state)
{
        struct pg_rules r;
        struct pg_metric_rule m;
        (void) state;
        assert_int_equal(
            pg_load_rules(&r, "{\"compare\": {\"alpha\": 0.01, \"gate\": [\"cycles\"],"
                              " \"metrics\": {\"cycles\": {\"threshold\": \"3%\"},"
                              "   \"my-custom\": {\"direction\": \"higher\", \"gate\": true}},"
                              " \"benchmarks\": {\"noisy\": {\"gate\": [\"instructions\"],"
                              "   \"metrics\": {\"cycles\": {\"threshold\": \"20%\","
                              "     \"noise_factor\": 5}}}},"
                              " \"hotspots\": {\"threshold\": \"5pp\", \"min_samples\": 50,"
                              "   \"gate\": true}, \"fail_on_missing\": true}}"),
            0);
        pg_rules_get(&r, "other", "task-clock", &m);
        assert_false(m.gate); /* "gate" replaces the default set */
        assert_true(m.alpha == 0.01);
        pg_rules_get(&r, "other", "cycles", &m);
        assert_true(m.gate && m.threshold == 0.03);
        pg_rules_get(&r, "other", "my-custom", &m);
        assert_true(m.gate && m.direction == PG_DIR_HIGHER_IS_BETTER);
        pg_rules_get(&r, "noisy", "cycles", &m);
        assert_true(!m.gate && m.threshold == 0.20 && m.noise_factor == 5);
        pg_rules_get(&r, "noisy", "instructions", &m);
        assert_true(m.gate);
        assert_true(r.hotspots.threshold_pp == 5 && r.hotspots.min_samples == 50);
        assert_true(r.hotspots.gate && r.fail_on_missing);
        pg_rules_release(&r);
}

/*
 * Each config of @bad (n rows: JSON text, a part of the message) is refused
 * with PG_EINPUT, a message containing that part and naming @file.
 */
static void pg_assert_refused(const char *const (*bad)[2], size_t n, const char *file)
{
        for (size_t i = 0; i < n; i++) {
                struct pg_rules r;
                assert_int_equal(pg_load_rules(&r, bad[i][0]), PG_EINPUT);
                if (!strstr(pg_error_last(), bad[i][1]))
                        fail_msg("config %s: message '%s' lacks '%s'", bad[i][0], pg_error_last(),
                                 bad[i][1]);
                assert_non_null(strstr(pg_error_last(), file));
                pg_rules_release(&r);
        }
}

static void test_rules_override_errors(void **state)
{
        static const char *const bad[][2] = {
                { "{\"compare\": {\"metrics\": {\"ipc\": {\"threshold\": 5}}}}", "\"5%\"" },
                { "{\"compare\": {\"metrics\": {\"ipc\": {\"direction\": \"up\"}}}}",
                  "\"higher\"" },
                { "{\"compare\": {\"gate\": \"task-clock\"}}", "compare.gate" },
                { "{\"compare\": {\"alpha\": 2}}", "compare.alpha" },
                { "{\"compare\": {\"hotspots\": {\"threshold\": \"2%\"}}}", "\"2pp\"" },
                { "{\"compare\": {\"benchmarks\": {\"x\": []}}}", "compare.benchmarks.x" },
                { "{\"compare\": {\"metrics\": {\"ipc\": {\"gate\": \"yes\"}}}}", "true or false" },
                { "{\"compare\": []}", "\"compare\" must be an object" },
        };
        (void) state;
        pg_assert_refused(bad, PG_NELEMS(bad), "perfgate.json");
}

/* A typo anywhere in "compare" is refused, naming the key, where it is, the
 * file and the keys that exist; so is an empty gate list. */
static void test_rules_unknown_keys_and_empty_gate(void **state)
{
        static const char *const bad[][2] = {
                { "{\"compare\": {\"metrics\": {\"task-clock\": {\"threshhold\": \"5%\"}}}}",
                  "unknown key 'threshhold' in compare.metrics.task-clock; known keys: "
                  "threshold, direction, gate, noise_factor, alpha" },
                { "{\"compare\": {\"gates\": [\"task-clock\"]}}",
                  "unknown key 'gates' in compare; known keys: alpha, noise_factor, "
                  "min_coverage, fail_on_missing, gate, metrics, benchmarks, hotspots" },
                { "{\"compare\": {\"benchmarks\": {\"parse\": {\"gate\": [\"cycles\"], "
                  "\"metric\": {}}}}}",
                  "unknown key 'metric' in compare.benchmarks.parse; known keys: gate, metrics" },
                { "{\"compare\": {\"benchmarks\": {\"parse\": {\"metrics\": {\"cycles\": "
                  "{\"direction\": \"lower\", \"alfa\": 0.01}}}}}}",
                  "unknown key 'alfa' in compare.benchmarks.parse.metrics.cycles" },
                { "{\"compare\": {\"hotspots\": {\"treshold\": \"2pp\"}}}",
                  "unknown key 'treshold' in compare.hotspots; known keys: threshold, alpha, "
                  "min_samples, new, gate" },
                { "{\"compare\": {\"gate\": []}}",
                  "compare.gate is empty, so no metric would ever fail the build" },
                { "{\"compare\": {\"benchmarks\": {\"parse\": {\"gate\": []}}}}",
                  "compare.benchmarks.parse.gate is empty" },
        };
        (void) state;
        pg_assert_refused(bad, PG_NELEMS(bad), "'perfgate.json'");
}

static void pg_add(struct pg_result_set *s, const char *name, const char *cpu, const double *tc,
                   size_t n);

/* Metric names must be known or measured; benchmark names only warn. */
static void test_rules_check_names(void **state)
{
        static const double v[] = { 1, 2, 3 };
        static const char *const bad[][2] = {
                { "{\"compare\": {\"gate\": [\"task-clok\"]}}",
                  "'perfgate.json': compare.gate names unknown metric 'task-clok' (did you mean "
                  "'task-clock'?); known metrics: " },
                { "{\"compare\": {\"metrics\": {\"instrucions\": {\"threshold\": \"1%\"}}}}",
                  "compare.metrics names unknown metric 'instrucions' (did you mean "
                  "'instructions'?)" },
                { "{\"compare\": {\"benchmarks\": {\"parse\": {\"gate\": [\"wallclock\"]}}}}",
                  "compare.benchmarks.parse.gate names unknown metric 'wallclock'; known" },
                { "{\"compare\": {\"benchmarks\": {\"parse\": {\"metrics\": {\"LLC-miss\": "
                  "{\"gate\": true}}}}}}",
                  "compare.benchmarks.parse.metrics names unknown metric 'LLC-miss'" },
        };
        struct pg_result_set base, head;
        struct pg_rules r;
        char *warn = NULL;
        (void) state;
        pg_result_set_init(&base);
        pg_result_set_init(&head);
        pg_add(&base, "parse", "cpu", v, 3);
        pg_add(&head, "parse", "cpu", v, 3);
        assert_non_null(pg_result_add_metric(&head.items[0], "my-metric", "count", PG_METRIC_OK, v,
                                             NULL, 3, NULL));
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(pg_load_rules(&r, bad[i][0]), 0);
                assert_int_equal(pg_rules_check(&r, &base, &head, &warn), PG_EINPUT);
                if (!strstr(pg_error_last(), bad[i][1]))
                        fail_msg("config %s: message '%s' lacks '%s'", bad[i][0], pg_error_last(),
                                 bad[i][1]);
                /* the list holds the built-in names and those of the results */
                assert_non_null(strstr(pg_error_last(), "known metrics: "));
                assert_non_null(strstr(pg_error_last(), ", task-clock"));
                assert_non_null(strstr(pg_error_last(), ", my-metric, "));
                assert_non_null(strstr(pg_error_last(), "dTLB-load-misses"));
                assert_null(warn);
                pg_rules_release(&r);
        }
        /* known names, a metric only the results have, an --events name */
        assert_int_equal(pg_load_rules(&r, "{\"compare\": {\"gate\": [\"task-clock\", "
                                           "\"ipc\", \"max-rss\", \"iTLB-loads\"], \"metrics\": "
                                           "{\"my-metric\": {\"direction\": \"lower\"}}}}"),
                         0);
        assert_int_equal(pg_rules_check(&r, &base, &head, &warn), 0);
        assert_null(warn);
        /* ... but not without the results that have it */
        assert_int_equal(pg_rules_check(&r, &base, NULL, &warn), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "unknown metric 'my-metric'"));
        pg_rules_release(&r);
        /* a benchmark in neither set: a warning, not an error */
        assert_int_equal(pg_load_rules(&r, "{\"compare\": {\"benchmarks\": {\"nosuch\": {"
                                           "\"gate\": [\"task-clock\"], \"metrics\": "
                                           "{\"task-clock\": {\"threshold\": \"5%\"}}}, "
                                           "\"parse\": {\"gate\": [\"task-clock\"]}}}}"),
                         0);
        assert_int_equal(pg_rules_check(&r, &base, &head, &warn), 0);
        assert_non_null(warn);
        assert_string_equal(warn, "'perfgate.json': compare.benchmarks names benchmark 'nosuch', "
                                  "which is in neither the baseline nor head; its rules apply to "
                                  "nothing (a typo, or a removed benchmark?)");
        free(warn);
        pg_rules_release(&r);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
}

/* --- one metric's judgement: a table of cases ----------------------------- */

/* Samples of the cases (per repetition, base units). */
static double v_tiny[] = { 1e-300, 1e-300, 1e-300, 1e-300, 1e-300 };
static double v_huge[] = { 1e308, 1e308, 1e308, 1e308, 1e308 };
static double v_neg[] = { -1e308, -1e308, -1e308, -1e308, -1e308 };
static double v_zero5[] = { 0, 0, 0, 0, 0 };
static double v_mixed[] = { 1e308, -1e308, 1e308, -1e308, 1e308 };
static double v_base[] = { 100, 101, 99, 100.5, 100.2 };
static double v_slow[] = { 125, 126, 124, 125.5, 125.2 };
static double v_fast[] = { 70, 71, 69, 70.5, 70.2 };
static double v_same[] = { 101, 100, 99.5, 100.8, 100.1 };
static double v_ipc[] = { 2.0, 2.01, 1.99, 2.0, 2.0 };
static double v_ipc_lower[] = { 1.8, 1.79, 1.81, 1.8, 1.8 };
static double v_rate1[] = { 0.010, 0.0101, 0.0099, 0.010, 0.010 };
static double v_rate2[] = { 0.020, 0.0201, 0.0199, 0.020, 0.020 };
static double v_noisy_b[] = { 100, 140, 95, 130, 98 };
static double v_noisy_h[] = { 120, 96, 150, 99, 135 };
static double v_wide[] = { 80, 100, 120, 90, 110 };
static double v_up[] = { 121, 122, 123, 124, 125 };
static double v_one_b[] = { 100 };
static double v_one_h[] = { 150 };
static double v_zero3[] = { 0, 0, 0 };
static double v_some[] = { 800000, 801000, 799000 };
static double v_cov_low[] = { 1, 0.4, 1 };

/* One side of a case: its samples, or absent, or counted with another status. */
struct pg_side {
        double *v;
        size_t n;
        double *coverage;
        enum pg_metric_status status;
        bool absent;
};
#define SIDE(a)       .v = (a), .n = PG_NELEMS(a)
#define COVERED(a, c) .v = (a), .n = PG_NELEMS(a), .coverage = (c)
#define ABSENT        .absent = true
#define NOT_SUPPORTED .status = PG_METRIC_NOT_SUPPORTED

enum pg_tri { ANY = 0, YES, NO }; /* a boolean the case checks, or not */
#define ANY_OUTCOME (-1)

struct pg_judge_case {
        const char *what; /* the test's name in cmocka's output */
        const char *metric, *unit;
        struct pg_side base, head;
        const char *host_diff; /* NULL: same host */
        bool cpu_differs;
        int outcome;               /* enum pg_outcome, or ANY_OUTCOME */
        const char *reason;        /* the exact reason, or NULL */
        const char *reason_has[2]; /* parts the reason must contain */
        enum pg_tri blocks, has_rel;
        bool finite;                                 /* every figure of the judgement is finite */
        void (*check)(const struct pg_judgement *j); /* what only this case asserts */
};

static void check_regression(const struct pg_judgement *j)
{
        assert_true(fabs(j->rel_change - (125.2 / 100.2 - 1)) < 1e-12);
        assert_true(j->has_p && j->p_value < 0.01 && j->exact);
        assert_true(j->badness > 1 && j->has_hl && j->hl_shift > 0);
}

static void check_identical(const struct pg_judgement *j)
{
        assert_true(j->p_value == 1 && j->rel_change == 0);
}

static void check_one_point(const struct pg_judgement *j)
{
        assert_true(fabs(j->pp_change - 1.0) < 1e-9);
}

static void check_significant(const struct pg_judgement *j)
{
        assert_true(j->p_value < 0.05);
}

/* The parts every case names: test name, metric, unit, the two sides, outcome. */
#define JUDGE(w, m, u, b, h, o)                                                                    \
        .what = (w), .metric = (m), .unit = (u), .base = { b }, .head = { h }, .outcome = (o)

static const struct pg_judge_case pg_judge_cases[] = {
        /* a change no double can hold is not comparable, never inf */
        { JUDGE("test_rules_judge_overflow_not_comparable", "task-clock", "ns", SIDE(v_tiny),
                SIDE(v_huge), PG_OUTCOME_NOT_COMPARABLE),
          .reason_has = { "change too large to compute" }, .blocks = YES, .has_rel = NO,
          .finite = true },
        /* in memory (the loader refuses negatives): still finite */
        { JUDGE("test_rules_judge_overflow_negative_finite", "task-clock", "ns", SIDE(v_huge),
                SIDE(v_neg), ANY_OUTCOME),
          .finite = true },
        { JUDGE("test_rules_judge_overflow_mixed_signs_finite", "task-clock", "ns", SIDE(v_mixed),
                SIDE(v_huge), ANY_OUTCOME),
          .finite = true },
        /* a rate: the change in points overflows */
        { JUDGE("test_rules_judge_overflow_rate_points", "branch-miss-rate", "ratio", SIDE(v_zero5),
                SIDE(v_huge), PG_OUTCOME_NOT_COMPARABLE),
          .finite = true },
        /* a relative metric with a zero baseline keeps its own reason */
        { JUDGE("test_rules_judge_overflow_zero_baseline", "task-clock", "ns", SIDE(v_zero5),
                SIDE(v_huge), PG_OUTCOME_NOT_COMPARABLE),
          .reason = "zero baseline", .finite = true },

        { JUDGE("test_rules_judge_regression", "task-clock", "ns", SIDE(v_base), SIDE(v_slow),
                PG_OUTCOME_REGRESSION),
          .finite = true, .check = check_regression },
        { JUDGE("test_rules_judge_improvement", "task-clock", "ns", SIDE(v_base), SIDE(v_fast),
                PG_OUTCOME_IMPROVEMENT) },
        { JUDGE("test_rules_judge_unchanged", "task-clock", "ns", SIDE(v_base), SIDE(v_same),
                PG_OUTCOME_UNCHANGED) },
        /* identical samples: unchanged, p = 1 */
        { JUDGE("test_rules_judge_identical_samples", "task-clock", "ns", SIDE(v_base),
                SIDE(v_base), PG_OUTCOME_UNCHANGED),
          .check = check_identical },

        /* ipc is higher-is-better: a drop is the regression */
        { JUDGE("test_rules_judge_direction_ipc_drops", "ipc", "ratio", SIDE(v_ipc),
                SIDE(v_ipc_lower), PG_OUTCOME_REGRESSION) },
        { JUDGE("test_rules_judge_direction_ipc_rises", "ipc", "ratio", SIDE(v_ipc_lower),
                SIDE(v_ipc), PG_OUTCOME_IMPROVEMENT) },
        /* a rate in percentage points: 1% -> 2% is +1 pp > 0.5 pp */
        { JUDGE("test_rules_judge_direction_rate_in_points", "branch-miss-rate", "ratio",
                SIDE(v_rate1), SIDE(v_rate2), PG_OUTCOME_REGRESSION),
          .check = check_one_point },
        /* no direction: informational, never a regression */
        { JUDGE("test_rules_judge_direction_none", "my-custom", "count", SIDE(v_ipc), SIDE(v_rate1),
                PG_OUTCOME_UNCHANGED),
          .reason_has = { "no direction" } },

        /* beyond threshold, not significant */
        { JUDGE("test_rules_judge_inconclusive_not_significant", "task-clock", "ns",
                SIDE(v_noisy_b), SIDE(v_noisy_h), PG_OUTCOME_INCONCLUSIVE),
          .reason_has = { "rerun with more repetitions", "not significant" } },
        /* significant (separated) but within 3x the baseline's relative MAD (10%) */
        { JUDGE("test_rules_judge_inconclusive_within_noise", "task-clock", "ns", SIDE(v_wide),
                SIDE(v_up), PG_OUTCOME_INCONCLUSIVE),
          .reason_has = { "within noise" }, .check = check_significant },
        /* one repetition per side: a 50% change can never be significant */
        { JUDGE("test_rules_judge_inconclusive_one_repetition", "task-clock", "ns", SIDE(v_one_b),
                SIDE(v_one_h), PG_OUTCOME_INCONCLUSIVE),
          .finite = true },
        /* an improvement that is not significant is not "inconclusive" */
        { JUDGE("test_rules_judge_improvement_not_significant", "task-clock", "ns", SIDE(v_one_h),
                SIDE(v_one_b), PG_OUTCOME_UNCHANGED) },

        { JUDGE("test_rules_judge_zero_baseline", "task-clock", "ns", SIDE(v_zero3), SIDE(v_some),
                PG_OUTCOME_NOT_COMPARABLE),
          .reason = "zero baseline", .blocks = YES, .has_rel = NO, .finite = true },
        { JUDGE("test_rules_judge_zero_both_sides", "task-clock", "ns", SIDE(v_zero3),
                SIDE(v_zero3), PG_OUTCOME_UNCHANGED) },
        /* present in the baseline, missing in head: never a silent pass */
        { JUDGE("test_rules_judge_missing_in_head", "task-clock", "ns", SIDE(v_some), ABSENT,
                PG_OUTCOME_NOT_JUDGED),
          .reason_has = { "missing in head" }, .blocks = YES },
        /* new in head: reported, does not block */
        { JUDGE("test_rules_judge_new_in_head", "task-clock", "ns", ABSENT, SIDE(v_some),
                PG_OUTCOME_NOT_JUDGED),
          .blocks = NO },
        /* a derived ratio absent on one side is not comparable */
        { JUDGE("test_rules_judge_ratio_undefined_in_base", "ipc", "ratio", ABSENT, SIDE(v_some),
                PG_OUTCOME_NOT_COMPARABLE),
          .reason = "undefined in the baseline" },
        /* status differs: not judged, with both statuses named */
        { JUDGE("test_rules_judge_status_differs", "cycles", "count", SIDE(v_some), NOT_SUPPORTED,
                PG_OUTCOME_NOT_JUDGED),
          .reason = "status 'ok' in the baseline, 'not-supported' in head" },
        { JUDGE("test_rules_judge_not_supported_both_sides", "cycles", "count", NOT_SUPPORTED,
                NOT_SUPPORTED, PG_OUTCOME_NOT_MEASURED),
          .blocks = NO },
        /* coverage below 50% in one repetition: multiplexed, not judged */
        { JUDGE("test_rules_judge_low_coverage", "cycles", "count", SIDE(v_some),
                COVERED(v_some, v_cov_low), PG_OUTCOME_NOT_JUDGED),
          .reason_has = { "40%", "head" } },

        /* PMU or counters mode differ: time is still judged */
        { JUDGE("test_rules_judge_host_pmu_differs_time", "task-clock", "ns", SIDE(v_base),
                SIDE(v_slow), PG_OUTCOME_REGRESSION),
          .host_diff = "pmu [cpu] vs []" },
        /* ... but counters are not */
        { JUDGE("test_rules_judge_host_pmu_differs_counters", "instructions", "ns", SIDE(v_base),
                SIDE(v_slow), PG_OUTCOME_INCONCLUSIVE),
          .host_diff = "pmu [cpu] vs []", .reason_has = { "hosts differ (pmu [cpu] vs [])" } },
        /* another CPU model: nothing is judged */
        { JUDGE("test_rules_judge_host_cpu_model_differs", "task-clock", "ns", SIDE(v_base),
                SIDE(v_slow), PG_OUTCOME_INCONCLUSIVE),
          .host_diff = "cpu model 'A' vs 'B'", .cpu_differs = true },
};

static struct pg_metric pg_side_metric(const struct pg_judge_case *c, const struct pg_side *s)
{
        struct pg_metric m = pg_m(c->metric, c->unit, s->v, s->n);
        m.coverage = s->coverage;
        m.status = s->status;
        return m;
}

static void pg_assert_tri(enum pg_tri want, bool got)
{
        if (want != ANY)
                assert_int_equal(got, want == YES);
}

/* One row of pg_judge_cases: the metric judged with the default rules. */
static void test_rules_judge_case(void **state)
{
        const struct pg_judge_case *c = *state;
        struct pg_metric b = pg_side_metric(c, &c->base), h = pg_side_metric(c, &c->head);
        struct pg_rules r;
        struct pg_metric_rule rule;
        struct pg_judgement j;

        pg_rules_init(&r);
        pg_rules_get(&r, "bench", c->metric, &rule);
        pg_judge_metric(c->metric, c->base.absent ? NULL : &b, c->head.absent ? NULL : &h, &rule,
                        c->host_diff, c->cpu_differs, &j);
        pg_rules_release(&r);
        if (c->outcome != ANY_OUTCOME)
                assert_int_equal(j.outcome, c->outcome);
        if (c->reason)
                assert_string_equal(j.reason, c->reason);
        for (size_t i = 0; i < 2 && c->reason_has[i]; i++) {
                assert_non_null(j.reason);
                assert_non_null(strstr(j.reason, c->reason_has[i]));
        }
        pg_assert_tri(c->blocks, j.blocks);
        pg_assert_tri(c->has_rel, j.has_rel);
        if (c->finite)
                pg_assert_finite(&j);
        if (c->check)
                c->check(&j);
        pg_judgement_release(&j);
}

/* --- verdicts over result sets ------------------------------------------ */

static void pg_add(struct pg_result_set *s, const char *name, const char *cpu, const double *tc,
                   size_t n)
{
        struct pg_result r;
        pg_result_init(&r);
        r.name = strdup(name);
        r.machine = strdup("default");
        r.host.cpu = strdup(cpu);
        r.counters = strdup("software");
        if (tc)
                pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, n, NULL);
        else
                pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_NOT_COUNTED, NULL, NULL, 0,
                                     "never scheduled");
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

static void test_verdict_sets_and_exit_status(void **state)
{
        static const double b[] = { 100, 101, 99, 100.5, 100.2 };
        static const double slow[] = { 125, 126, 124, 125.5, 125.2 };
        static const double noisy_h[] = { 120, 96, 150, 99, 135 };
        static const double noisy_b[] = { 100, 140, 95, 130, 98 };
        struct pg_result_set base, head;
        struct pg_rules rules;
        struct pg_comparison c;
        char *summary;
        (void) state;
        pg_result_set_init(&base);
        pg_result_set_init(&head);
        pg_add(&base, "same", "cpu", b, 5);
        pg_add(&head, "same", "cpu", b, 5);
        pg_add(&base, "gone", "cpu", b, 5);
        pg_add(&head, "fresh", "cpu", b, 5);
        pg_add(&base, "noisy", "cpu", noisy_b, 5);
        pg_add(&head, "noisy", "cpu", noisy_h, 5);
        pg_add(&base, "crashed", "cpu", b, 5);
        pg_add(&head, "crashed", "cpu", NULL, 0);
        pg_add(&base, "moved", "cpu", b, 5);
        pg_add(&head, "moved", "other cpu", slow, 5);
        pg_rules_init(&rules);
        pg_comparison_init(&c);
        pg_compare_sets(&base, &head, &rules, &c);
        assert_int_equal(c.n, 6);
        /* worst first */
        assert_string_equal(c.benches[0].name, "crashed");
        assert_int_equal(c.benches[0].verdict, PG_VERDICT_FAILED);
        assert_int_equal(c.counts[PG_VERDICT_INCONCLUSIVE], 2); /* noisy, moved (other CPU) */
        assert_int_equal(c.counts[PG_VERDICT_MISSING], 1);
        assert_int_equal(c.counts[PG_VERDICT_NEW], 1);
        assert_int_equal(c.counts[PG_VERDICT_UNCHANGED], 1);
        assert_non_null(c.benches[1].host_diff);
        assert_int_equal(pg_comparison_exit_status(&c), 1); /* failed fails */
        summary = pg_comparison_summary(&c);
        /* the failure leads: exit status 1 never reads "no regression" */
        assert_string_equal(summary, "1 benchmark failed (no metrics measured), 0 regressions in "
                                     "6 benchmarks (2 inconclusive, 1 missing, 1 new)");
        free(summary);
        pg_comparison_release(&c);

        /* without the failed one: 0, --strict 1, fail_on_missing 1 */
        pg_result_set_release(&head);
        pg_result_set_init(&head);
        pg_add(&head, "same", "cpu", b, 5);
        pg_add(&head, "noisy", "cpu", noisy_h, 5);
        pg_add(&head, "crashed", "cpu", b, 5);
        pg_comparison_init(&c);
        pg_compare_sets(&base, &head, &rules, &c);
        assert_int_equal(pg_comparison_exit_status(&c), 0);
        summary = pg_comparison_summary(&c);
        assert_string_equal(summary, "no regression in 5 benchmarks (1 inconclusive, 2 missing)");
        free(summary);
        c.strict = true;
        assert_int_equal(pg_comparison_exit_status(&c), 1);
        summary = pg_comparison_summary(&c);
        assert_string_equal(summary, "1 benchmark inconclusive (failing under --strict), 0 "
                                     "regressions in 5 benchmarks (2 missing)");
        free(summary);
        c.strict = false;
        c.fail_on_missing = true;
        assert_int_equal(pg_comparison_exit_status(&c), 1);
        summary = pg_comparison_summary(&c);
        assert_string_equal(summary, "2 benchmarks missing (failing under fail_on_missing), 0 "
                                     "regressions in 5 benchmarks (1 inconclusive)");
        free(summary);
        pg_comparison_release(&c);
        pg_rules_release(&rules);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rules_threshold_parse),
                cmocka_unit_test(test_rules_defaults),
                cmocka_unit_test(test_rules_overrides),
                cmocka_unit_test(test_rules_override_errors),
                cmocka_unit_test(test_rules_unknown_keys_and_empty_gate),
                cmocka_unit_test(test_rules_check_names),
                cmocka_unit_test(test_verdict_sets_and_exit_status),
        };
        return pg_run_tests_and_cases(tests, PG_NELEMS(tests), test_rules_judge_case, NULL, NULL,
                                      pg_judge_cases, sizeof(pg_judge_cases[0]),
                                      PG_NELEMS(pg_judge_cases));
}
