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

static void pg_judge(const char *name, const struct pg_metric *b, const struct pg_metric *h,
                     struct pg_judgement *j)
{
        struct pg_rules r;
        struct pg_metric_rule rule;
        pg_rules_init(&r);
        pg_rules_get(&r, "bench", name, &rule);
        pg_judge_metric(name, b, h, &rule, NULL, false, j);
        pg_rules_release(&r);
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
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_rules r;
                assert_int_equal(pg_load_rules(&r, bad[i][0]), PG_EINPUT);
                if (!strstr(pg_error_last(), bad[i][1]))
                        fail_msg("config %s: message '%s' lacks '%s'", bad[i][0], pg_error_last(),
                                 bad[i][1]);
                assert_non_null(strstr(pg_error_last(), "perfgate.json"));
                pg_rules_release(&r);
        }
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
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_rules r;
                assert_int_equal(pg_load_rules(&r, bad[i][0]), PG_EINPUT);
                if (!strstr(pg_error_last(), bad[i][1]))
                        fail_msg("config %s: message '%s' lacks '%s'", bad[i][0], pg_error_last(),
                                 bad[i][1]);
                assert_non_null(strstr(pg_error_last(), "'perfgate.json'"));
                pg_rules_release(&r);
        }
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

/* A change no double can hold is not comparable, never inf. */
static void test_rules_overflow_not_comparable(void **state)
{
        double tiny[] = { 1e-300, 1e-300, 1e-300, 1e-300, 1e-300 };
        double huge[] = { 1e308, 1e308, 1e308, 1e308, 1e308 };
        double neg[] = { -1e308, -1e308, -1e308, -1e308, -1e308 };
        double zero[] = { 0, 0, 0, 0, 0 };
        double mixed[] = { 1e308, -1e308, 1e308, -1e308, 1e308 };
        struct pg_metric b, h;
        struct pg_judgement j;
        (void) state;
        b = pg_m("task-clock", "ns", tiny, 5);
        h = pg_m("task-clock", "ns", huge, 5);
        pg_judge("task-clock", &b, &h, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_COMPARABLE);
        assert_false(j.has_rel);
        assert_true(j.blocks);
        assert_non_null(strstr(j.reason, "change too large to compute"));
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        /* in memory (the loader refuses negatives): still finite */
        b = pg_m("task-clock", "ns", huge, 5);
        h = pg_m("task-clock", "ns", neg, 5);
        pg_judge("task-clock", &b, &h, &j);
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        b = pg_m("task-clock", "ns", mixed, 5);
        h = pg_m("task-clock", "ns", huge, 5);
        pg_judge("task-clock", &b, &h, &j);
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        /* a rate: the change in points overflows */
        b = pg_m("branch-miss-rate", "ratio", zero, 5);
        h = pg_m("branch-miss-rate", "ratio", huge, 5);
        pg_judge("branch-miss-rate", &b, &h, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_COMPARABLE);
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        /* a relative metric with a zero baseline keeps its own reason */
        b = pg_m("task-clock", "ns", zero, 5);
        h = pg_m("task-clock", "ns", huge, 5);
        pg_judge("task-clock", &b, &h, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_COMPARABLE);
        assert_string_equal(j.reason, "zero baseline");
        pg_assert_finite(&j);
        pg_judgement_release(&j);
}

static void test_rules_regression_improvement_unchanged(void **state)
{
        double b[] = { 100, 101, 99, 100.5, 100.2 }, slow[] = { 125, 126, 124, 125.5, 125.2 };
        double fast[] = { 70, 71, 69, 70.5, 70.2 }, same[] = { 101, 100, 99.5, 100.8, 100.1 };
        struct pg_metric mb = pg_m("task-clock", "ns", b, 5), mh;
        struct pg_judgement j;
        (void) state;
        mh = pg_m("task-clock", "ns", slow, 5);
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_REGRESSION);
        assert_true(fabs(j.rel_change - (125.2 / 100.2 - 1)) < 1e-12);
        assert_true(j.has_p && j.p_value < 0.01 && j.exact);
        assert_true(j.badness > 1 && j.has_hl && j.hl_shift > 0);
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        mh = pg_m("task-clock", "ns", fast, 5);
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_IMPROVEMENT);
        pg_judgement_release(&j);
        mh = pg_m("task-clock", "ns", same, 5);
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        pg_judgement_release(&j);
        /* identical samples: unchanged, p = 1 */
        pg_judge("task-clock", &mb, &mb, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        assert_true(j.p_value == 1 && j.rel_change == 0);
        pg_judgement_release(&j);
}

static void test_rules_direction(void **state)
{
        double b[] = { 2.0, 2.01, 1.99, 2.0, 2.0 }, lower[] = { 1.8, 1.79, 1.81, 1.8, 1.8 };
        double br[] = { 0.010, 0.0101, 0.0099, 0.010, 0.010 };
        double brh[] = { 0.020, 0.0201, 0.0199, 0.020, 0.020 };
        struct pg_metric mb = pg_m("ipc", "ratio", b, 5), mh = pg_m("ipc", "ratio", lower, 5);
        struct pg_judgement j;
        (void) state;
        /* ipc is higher-is-better: a drop is the regression */
        pg_judge("ipc", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_REGRESSION);
        pg_judgement_release(&j);
        pg_judge("ipc", &mh, &mb, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_IMPROVEMENT);
        pg_judgement_release(&j);
        /* a rate in percentage points: 1% -> 2% is +1 pp > 0.5 pp */
        mb = pg_m("branch-miss-rate", "ratio", br, 5);
        mh = pg_m("branch-miss-rate", "ratio", brh, 5);
        pg_judge("branch-miss-rate", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_REGRESSION);
        assert_true(fabs(j.pp_change - 1.0) < 1e-9);
        pg_judgement_release(&j);
        /* no direction: informational, never a regression */
        mb = pg_m("my-custom", "count", b, 5);
        mh = pg_m("my-custom", "count", br, 5);
        pg_judge("my-custom", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        assert_non_null(j.reason);
        assert_non_null(strstr(j.reason, "no direction"));
        pg_judgement_release(&j);
}

static void test_rules_inconclusive(void **state)
{
        double b[] = { 100, 140, 95, 130, 98 }, h[] = { 120, 96, 150, 99, 135 };
        double wide[] = { 80, 100, 120, 90, 110 }, up[] = { 121, 122, 123, 124, 125 };
        double one_b[] = { 100 }, one_h[] = { 150 };
        struct pg_metric mb = pg_m("task-clock", "ns", b, 5), mh = pg_m("task-clock", "ns", h, 5);
        struct pg_judgement j;
        (void) state;
        /* beyond threshold, not significant */
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_non_null(strstr(j.reason, "rerun with more repetitions"));
        assert_non_null(strstr(j.reason, "not significant"));
        pg_judgement_release(&j);
        /* significant (separated) but within 3x the baseline's relative MAD (10%) */
        mb = pg_m("task-clock", "ns", wide, 5);
        mh = pg_m("task-clock", "ns", up, 5);
        pg_judge("task-clock", &mb, &mh, &j);
        assert_true(j.p_value < 0.05);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_non_null(strstr(j.reason, "within noise"));
        pg_judgement_release(&j);
        /* one repetition per side: a 50% change can never be significant */
        mb = pg_m("task-clock", "ns", one_b, 1);
        mh = pg_m("task-clock", "ns", one_h, 1);
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        /* an improvement that is not significant is not "inconclusive" */
        mb = pg_m("task-clock", "ns", one_h, 1);
        mh = pg_m("task-clock", "ns", one_b, 1);
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        pg_judgement_release(&j);
}

static void test_rules_zero_and_missing(void **state)
{
        double zero[] = { 0, 0, 0 }, some[] = { 800000, 801000, 799000 };
        double cov_low[] = { 1, 0.4, 1 };
        struct pg_metric mb = pg_m("task-clock", "ns", zero, 3),
                         mh = pg_m("task-clock", "ns", some, 3);
        struct pg_metric ns;
        struct pg_judgement j;
        (void) state;
        pg_judge("task-clock", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_COMPARABLE);
        assert_string_equal(j.reason, "zero baseline");
        assert_true(j.blocks && !j.has_rel);
        pg_assert_finite(&j);
        pg_judgement_release(&j);
        pg_judge("task-clock", &mb, &mb, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        pg_judgement_release(&j);
        /* present in the baseline, missing in head: never a silent pass */
        mb = pg_m("task-clock", "ns", some, 3);
        pg_judge("task-clock", &mb, NULL, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_JUDGED);
        assert_true(j.blocks);
        assert_non_null(strstr(j.reason, "missing in head"));
        pg_judgement_release(&j);
        /* new in head: reported, does not block */
        pg_judge("task-clock", NULL, &mb, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_JUDGED);
        assert_false(j.blocks);
        pg_judgement_release(&j);
        /* a derived ratio absent on one side is not comparable */
        mh = pg_m("ipc", "ratio", some, 3);
        pg_judge("ipc", NULL, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_COMPARABLE);
        assert_string_equal(j.reason, "undefined in the baseline");
        pg_judgement_release(&j);
        /* status differs: not judged, with both statuses named */
        memset(&ns, 0, sizeof(ns));
        ns.name = "cycles";
        ns.unit = "count";
        ns.status = PG_METRIC_NOT_SUPPORTED;
        mb = pg_m("cycles", "count", some, 3);
        pg_judge("cycles", &mb, &ns, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_JUDGED);
        assert_string_equal(j.reason, "status 'ok' in the baseline, 'not-supported' in head");
        pg_judgement_release(&j);
        pg_judge("cycles", &ns, &ns, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_MEASURED);
        assert_false(j.blocks);
        pg_judgement_release(&j);
        /* coverage below 50% in one repetition: multiplexed, not judged */
        mh = pg_m("cycles", "count", some, 3);
        mh.coverage = cov_low;
        pg_judge("cycles", &mb, &mh, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_NOT_JUDGED);
        assert_non_null(strstr(j.reason, "40%"));
        assert_non_null(strstr(j.reason, "head"));
        pg_judgement_release(&j);
}

static void test_rules_host_mismatch(void **state)
{
        double b[] = { 100, 101, 99, 100.5, 100.2 }, slow[] = { 125, 126, 124, 125.5, 125.2 };
        struct pg_metric mb = pg_m("task-clock", "ns", b, 5),
                         mh = pg_m("task-clock", "ns", slow, 5);
        struct pg_rules r;
        struct pg_metric_rule rule;
        struct pg_judgement j;
        (void) state;
        pg_rules_init(&r);
        pg_rules_get(&r, "x", "task-clock", &rule);
        /* PMU or counters mode differ: time is still judged */
        pg_judge_metric("task-clock", &mb, &mh, &rule, "pmu [cpu] vs []", false, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_REGRESSION);
        pg_judgement_release(&j);
        /* ... but counters are not */
        pg_rules_get(&r, "x", "instructions", &rule);
        pg_judge_metric("instructions", &mb, &mh, &rule, "pmu [cpu] vs []", false, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_non_null(strstr(j.reason, "hosts differ (pmu [cpu] vs [])"));
        pg_judgement_release(&j);
        /* another CPU model: nothing is judged */
        pg_rules_get(&r, "x", "task-clock", &rule);
        pg_judge_metric("task-clock", &mb, &mh, &rule, "cpu model 'A' vs 'B'", true, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        pg_judgement_release(&j);
        pg_rules_release(&r);
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
                cmocka_unit_test(test_rules_overflow_not_comparable),
                cmocka_unit_test(test_rules_regression_improvement_unchanged),
                cmocka_unit_test(test_rules_direction),
                cmocka_unit_test(test_rules_inconclusive),
                cmocka_unit_test(test_rules_zero_and_missing),
                cmocka_unit_test(test_rules_host_mismatch),
                cmocka_unit_test(test_verdict_sets_and_exit_status),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
