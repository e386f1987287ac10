/*
 * test_report_details.c - details of the comparison reports that a reader
 * takes literally (docs/compare.md, "How one metric is judged" and "Verdict
 * per benchmark"):
 *  - the JSON "change.points" exists for rates only: a time in ns has no
 *    percentage points (it was 100 x the difference of the medians in ns);
 *  - the shift's interval is printed with the coverage its sample sizes
 *    achieve, and left out below 90% (1 and 1 repetitions printed "0% CI
 *    +300 ms .. +300 ms");
 *  - "could not have failed" names the side that has too few repetitions,
 *    so the advice re-records that side;
 *  - a gating metric that was not judged is named on the benchmark's line
 *    whichever side could not count it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"
#include "tests/util/testutil.h"

#define pg_assert_near(a, b, eps) assert_true(fabs((a) - (b)) < (eps))

/* One metric of a result: values (n of them), or a status without any. */
struct pg_m {
        const char *name, *unit;
        enum pg_metric_status status;
        size_t n;
        double v[8];
};

static void pg_add(struct pg_result_set *s, const struct pg_m *ms, size_t nm)
{
        struct pg_result r;

        pg_result_init(&r);
        r.name = strdup("b");
        r.machine = strdup("default");
        r.counters = strdup("software");
        for (size_t i = 0; i < nm; i++)
                pg_result_add_metric(&r, ms[i].name, ms[i].unit, ms[i].status,
                                     ms[i].status == PG_METRIC_OK ? ms[i].v : NULL, NULL,
                                     ms[i].status == PG_METRIC_OK ? ms[i].n : 0, NULL);
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

/* The two sides of the last comparison: it borrows their names, so they
 * live until the next one (static, so never a leak). */
static struct pg_result_set pg_sides[2];

static void pg_compare(struct pg_comparison *c, const struct pg_m *base, size_t nb,
                       const struct pg_m *head, size_t nh)
{
        struct pg_rules rules;

        pg_result_set_release(&pg_sides[0]);
        pg_result_set_release(&pg_sides[1]);
        pg_add(&pg_sides[0], base, nb);
        pg_add(&pg_sides[1], head, nh);
        pg_rules_init(&rules);
        pg_comparison_init(c);
        pg_compare_sets(&pg_sides[0], &pg_sides[1], &rules, c);
        assert_int_equal(c->n, 1);
        pg_rules_release(&rules);
}

/* Compare task-clock alone: @nb values from @b0 ns and @nh from @h0 ns,
 * each 1 ms above the one before. */
static void pg_compare_tc(struct pg_comparison *c, size_t nb, double b0, size_t nh, double h0)
{
        struct pg_m base = { "task-clock", "ns", PG_METRIC_OK, nb, { 0 } };
        struct pg_m head = { "task-clock", "ns", PG_METRIC_OK, nh, { 0 } };

        for (size_t i = 0; i < nb; i++)
                base.v[i] = b0 + 1e6 * (double) i;
        for (size_t i = 0; i < nh; i++)
                head.v[i] = h0 + 1e6 * (double) i;
        pg_compare(c, &base, 1, &head, 1);
}

static const struct pg_judgement *pg_find(const struct pg_comparison *c, const char *metric)
{
        for (size_t k = 0; k < c->benches[0].njudgements; k++)
                if (strcmp(c->benches[0].judgements[k].metric, metric) == 0)
                        return &c->benches[0].judgements[k];
        fail_msg("no judgement of %s", metric);
        return NULL;
}

/* The JSON verdict's metric object of @metric (owned by @root). */
static const cJSON *pg_json_metric(const cJSON *root, const char *metric)
{
        const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0), *m;

        cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "metrics"))
        {
                if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(m, "metric")), metric) == 0)
                        return m;
        }
        fail_msg("no %s in the JSON verdict", metric);
        return NULL;
}

static cJSON *pg_json(const struct pg_comparison *c)
{
        struct pg_buf out = PG_BUF_INIT;
        cJSON *root;

        assert_int_equal(pg_report_json(&out, c, NULL), 0);
        root = cJSON_Parse(out.ptr);
        assert_non_null(root);
        pg_buf_release(&out);
        return root;
}

static void test_points_for_rates_only(void **state)
{
        /* task-clock +5.1e7 ns: "points" was 5.1e9; a miss rate 2% -> 3.5% */
        const struct pg_m base[] = {
                { "task-clock", "ns", PG_METRIC_OK, 5, { 100e6, 101e6, 99e6, 100.5e6, 99.5e6 } },
                { "branch-miss-rate", "ratio", PG_METRIC_OK, 5, { .02, .02, .02, .02, .02 } },
        };
        const struct pg_m head[] = {
                { "task-clock", "ns", PG_METRIC_OK, 5, { 151e6, 152e6, 150e6, 151.5e6, 150.5e6 } },
                { "branch-miss-rate", "ratio", PG_METRIC_OK, 5, { .035, .035, .035, .035, .035 } },
        };
        struct pg_comparison c;
        const cJSON *ch;
        cJSON *root;

        (void) state;
        pg_compare(&c, base, 2, head, 2);
        assert_false(pg_find(&c, "task-clock")->has_pp);
        assert_true(pg_find(&c, "branch-miss-rate")->has_pp);
        root = pg_json(&c);
        ch = cJSON_GetObjectItem(pg_json_metric(root, "task-clock"), "change");
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(ch, "points")));
        pg_assert_near(cJSON_GetNumberValue(cJSON_GetObjectItem(ch, "relative")), 151e6 / 100e6 - 1,
                       1e-12);
        ch = cJSON_GetObjectItem(pg_json_metric(root, "branch-miss-rate"), "change");
        pg_assert_near(cJSON_GetNumberValue(cJSON_GetObjectItem(ch, "points")), 1.5, 1e-9);
        cJSON_Delete(root);
        pg_comparison_release(&c);
}

/* The text report's shift line of task-clock, base n values against head n
 * values 300 ms higher, and the JSON's interval fields. */
static char *pg_shift_line(size_t nb, size_t nh, cJSON **hl)
{
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT;
        const char *p, *e;
        char *line;
        cJSON *root;

        pg_compare_tc(&c, nb, 1e9, nh, 1.3e9);
        pg_report_text(&text, &c, NULL);
        p = strstr(text.ptr, "      shift ");
        assert_non_null(p);
        e = strchr(p, '\n');
        line = strndup(p + 6, (size_t) (e - p - 6));
        root = pg_json(&c);
        *hl = cJSON_DetachItemFromObject((cJSON *) pg_json_metric(root, "task-clock"),
                                         "hodges_lehmann");
        cJSON_Delete(root);
        pg_buf_release(&text);
        pg_comparison_release(&c);
        return line;
}

static void test_interval_at_its_achieved_level_or_none(void **state)
{
        static const struct {
                size_t nb, nh;
                const char *line; /* the text report's, from "shift" */
                double conf;      /* the JSON's, 0: null (no interval) */
        } cases[] = {
                /* P(U <= 2) = 4/252 is the last tail within 2.5%: 1 - 8/252 */
                { 5, 5, "shift +300 ms (97% CI +297 ms .. +303 ms)", 1 - 8.0 / 252 },
                /* no tail within 2.5%: the full range, 1 - 2/C(6,3) */
                { 3, 3, "shift +300 ms (90% CI +298 ms .. +302 ms)", 0.9 },
                /* 1 - 2/C(7,2) = 90.5%: the baseline's 2 still give one */
                { 2, 5, "shift +301.5 ms (90% CI +299 ms .. +304 ms)", 1 - 2.0 / 21 },
                /* 1 - 2/C(4,2) = 67% and 1 - 2/2 = 0: none */
                { 2, 2,
                  "shift +300 ms (no interval: 2 and 2 repetitions cannot reach 90% "
                  "coverage)",
                  0 },
                { 1, 1,
                  "shift +300 ms (no interval: 1 and 1 repetitions cannot reach 90% "
                  "coverage)",
                  0 },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cJSON *hl;
                char *line = pg_shift_line(cases[i].nb, cases[i].nh, &hl);
                const cJSON *conf = cJSON_GetObjectItem(hl, "conf");

                assert_string_equal(line, cases[i].line);
                assert_non_null(cJSON_GetObjectItem(hl, "shift"));
                if (cases[i].conf > 0) {
                        pg_assert_near(cJSON_GetNumberValue(conf), cases[i].conf, 1e-9);
                } else {
                        assert_true(cJSON_IsNull(conf));
                        assert_true(cJSON_IsNull(cJSON_GetObjectItem(hl, "lo")));
                        assert_true(cJSON_IsNull(cJSON_GetObjectItem(hl, "hi")));
                }
                cJSON_Delete(hl);
                free(line);
        }
}

/* The reason of task-clock +50% with nb and nh repetitions. */
static char *pg_too_few(size_t nb, size_t nh)
{
        struct pg_comparison c;
        const struct pg_judgement *j;
        char *reason;

        pg_compare_tc(&c, nb, 100e6, nh, 150e6);
        j = pg_find(&c, "task-clock");
        assert_int_equal(j->outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_non_null(j->reason);
        reason = strdup(j->reason);
        pg_comparison_release(&c);
        return reason;
}

static void test_too_few_names_the_short_side(void **state)
{
        char *r;

        (void) state;
        r = pg_too_few(2, 5);
        assert_string_equal(r, "could not have failed: the baseline has 2 repetitions (head 5), "
                               "too few for any change to reach p < 0.05 (the best possible p "
                               "is 0.0952); record the baseline with --repeat 5");
        free(r);
        r = pg_too_few(5, 2);
        assert_string_equal(r, "could not have failed: head has 2 repetitions (the baseline 5), "
                               "too few for any change to reach p < 0.05 (the best possible p "
                               "is 0.0952); run head with --repeat 5");
        free(r);
        r = pg_too_few(1, 4);
        assert_non_null(strstr(r, "the baseline has 1 repetition (head 4)"));
        free(r);
        r = pg_too_few(3, 3);
        assert_string_equal(r, "could not have failed: with 3 and 3 repetitions no change "
                               "reaches p < 0.05 (the best possible p is 0.1); record the "
                               "baseline and run head with --repeat 5");
        free(r);
}

/* The benchmark's line of the text report and its Markdown summary row. */
static void pg_lines(const struct pg_comparison *c, char **text_line, char **md_row)
{
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;
        const char *p, *e;

        pg_report_text(&text, c, NULL);
        pg_report_markdown(&md, c, NULL);
        p = strstr(text.ptr, "\n");
        assert_non_null(p);
        p++;
        e = strchr(p, '\n');
        *text_line = strndup(p, (size_t) (e - p));
        p = strstr(md.ptr, " | b | ");
        assert_non_null(p);
        e = strchr(p, '\n');
        *md_row = strndup(p, (size_t) (e - p));
        pg_buf_release(&text);
        pg_buf_release(&md);
}

/* Whether @metric gates under the default rules. */
static bool pg_rules_gate(const char *metric)
{
        struct pg_rules rules;
        struct pg_metric_rule r;

        pg_rules_init(&rules);
        pg_rules_get(&rules, "b", metric, &r);
        pg_rules_release(&rules);
        return r.gate;
}

/* Compare two results of task-clock and instructions: @verdict, and the
 * text line has @named (NULL: no "not judged"), the Markdown row its start
 * (its parentheses are entities there). */
static void pg_check_named(const struct pg_m *base, const struct pg_m *head,
                           enum pg_verdict verdict, const char *named)
{
        struct pg_comparison c;
        char *line, *row;

        pg_compare(&c, base, 2, head, 2);
        assert_int_equal(c.benches[0].verdict, verdict);
        pg_lines(&c, &line, &row);
        if (named) {
                assert_non_null(strstr(line, named));
                assert_non_null(strstr(row, "not judged: instructions"));
        } else {
                assert_null(strstr(line, "not judged"));
                assert_null(strstr(row, "not judged"));
        }
        free(line);
        free(row);
        pg_comparison_release(&c);
}

static void test_gating_metric_not_judged_named_both_ways(void **state)
{
        const struct pg_m tc = {
                "task-clock", "ns", PG_METRIC_OK, 5, { 100e6, 101e6, 99e6, 100.5e6, 99.5e6 }
        };
        const struct pg_m ins_vm = { "instructions", "count", PG_METRIC_NOT_SUPPORTED, 0, { 0 } };
        const struct pg_m ins_pmu = { "instructions",
                                      "count",
                                      PG_METRIC_OK,
                                      5,
                                      { 5e8, 5e8 + 1, 5e8 + 2, 5e8 + 3, 5e8 + 4 } };
        const struct pg_m vm[] = { tc, ins_vm }, pmu[] = { tc, ins_pmu };

        (void) state;
        assert_true(pg_rules_gate("instructions"));
        /* a VM baseline against a bare-metal head: nothing gated fails, but
         * the line says instructions was not judged */
        pg_check_named(vm, pmu, PG_VERDICT_UNCHANGED,
                       "; not judged: instructions (status 'not-supported' in the baseline, 'ok' "
                       "in head)");
        /* the reverse: inconclusive, and named as before */
        pg_check_named(pmu, vm, PG_VERDICT_INCONCLUSIVE,
                       "not judged: instructions (status 'ok' in the baseline, 'not-supported' "
                       "in head)");
        /* neither side counts it (two VMs): nothing to say */
        pg_check_named(vm, vm, PG_VERDICT_UNCHANGED, NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_points_for_rates_only),
                cmocka_unit_test(test_interval_at_its_achieved_level_or_none),
                cmocka_unit_test(test_too_few_names_the_short_side),
                cmocka_unit_test(test_gating_metric_not_judged_named_both_ways),
        };
        int rc = cmocka_run_group_tests(tests, NULL, NULL);

        pg_result_set_release(&pg_sides[0]);
        pg_result_set_release(&pg_sides[1]);
        return rc;
}
