/*
 * test_not_gating_words.c - the detail tables (text and Markdown) name a
 * metric that does not gate and got worse as the summary line does ("worse,
 * not gating", docs/compare.md "Outcome of a metric"), never "regression";
 * and a hotspot that regressed under a benchmark whose hotspots do not gate
 * (the default, perfgate.json "compare": {"hotspots": {"gate": false}})
 * carries one note per table naming that setting. With hotspots.gate true,
 * no such note, and a gating metric still reads "regression". The JSON
 * verdict says whether a confirmed hotspot gated ("hotspot_gated") and
 * validates against tests/golden/compare/verdict.schema.json (ajv).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/confirm.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"
#include "tests/util/testutil.h"

static const double pg_tc_base[] = { 100e6, 101e6, 99e6, 100.5e6, 100.2e6 };
static const double pg_tc_head[] = { 100.1e6, 100.9e6, 99.2e6, 100.4e6, 100.3e6 };
static const double pg_ut_base[] = { 90e6, 91e6, 89e6, 90.5e6, 90.2e6 };
static const double pg_ut_head[] = { 180e6, 181e6, 179e6, 180.5e6, 180.2e6 };

static void pg_add(struct pg_result_set *s, const double *tc, const double *ut, const char *folded)
{
        struct pg_result r;

        pg_result_init(&r);
        r.name = strdup("geo");
        r.machine = strdup("default");
        r.counters = strdup("software");
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, 5, NULL);
        pg_result_add_metric(&r, "user-time", "ns", PG_METRIC_OK, ut, NULL, 5, NULL);
        pg_test_profile_from_folded(&r.profile, folded, "cpu-clock");
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

/* The two sides of the last comparison: it borrows their names, so they
 * live until the next one (static, so never a leak). */
static struct pg_result_set pg_sides[2];

static void pg_compare(struct pg_comparison *c, bool hotspots_gate)
{
        struct pg_result_set *base = &pg_sides[0], *head = &pg_sides[1];
        struct pg_rules rules;

        pg_result_set_release(base); /* the previous comparison's */
        pg_result_set_release(head);
        pg_add(base, pg_tc_base, pg_ut_base, "main;smooth 8000\nmain;dot 2000\n");
        pg_add(head, pg_tc_head, pg_ut_head, "main;smooth 7000\nmain;dot 3000\n");
        pg_rules_init(&rules);
        rules.hotspots.gate = hotspots_gate;
        pg_comparison_init(c);
        pg_compare_sets(base, head, &rules, c);
        assert_int_equal(c->n, 1);
        pg_rules_release(&rules);
}

static size_t pg_count(const char *hay, const char *needle)
{
        size_t n = 0;

        for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

static void test_not_gating_metric_and_hotspot(void **state)
{
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;

        (void) state;
        pg_compare(&c, false);
        assert_int_equal(c.benches[0].verdict, PG_VERDICT_UNCHANGED);
        pg_report_text(&text, &c, NULL);
        pg_report_markdown(&md, &c, NULL);
        /* the Markdown table row of user-time */
        assert_non_null(strstr(md.ptr, "| no | worse, not gating"));
        assert_null(strstr(md.ptr, "| no | regression"));
        /* the text detail row: its verdict column */
        assert_non_null(strstr(strstr(text.ptr, "\n    user-time"), "worse, not gating\n"));
        /* the hotspot regressed, and the tables say it does not gate, once */
        assert_non_null(strstr(md.ptr, "| regressed |"));
        assert_int_equal(pg_count(md.ptr, "hotspots.gate"), 1);
        assert_int_equal(pg_count(text.ptr, "hotspots.gate"), 1);
        pg_buf_release(&text);
        pg_buf_release(&md);
        pg_comparison_release(&c);
}

static void test_gating_hotspots_have_no_note(void **state)
{
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;

        (void) state;
        pg_compare(&c, true);
        assert_int_equal(c.benches[0].verdict, PG_VERDICT_REGRESSION);
        pg_report_text(&text, &c, NULL);
        pg_report_markdown(&md, &c, NULL);
        assert_null(strstr(md.ptr, "hotspots.gate"));
        assert_null(strstr(text.ptr, "hotspots.gate"));
        pg_buf_release(&text);
        pg_buf_release(&md);
        pg_comparison_release(&c);
}

/* A hotspot that paired runs confirmed gated the verdict (hotspots.gate
 * false): no report says hotspots do not gate it. */
static void test_confirmed_hotspot_gated_has_no_note(void **state)
{
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;

        (void) state;
        pg_compare(&c, false);
        c.benches[0].confirm = pg_bench_confirm_new();
        c.benches[0].confirm->hotspot_gated = true;
        c.benches[0].verdict = PG_VERDICT_REGRESSION;
        pg_report_text(&text, &c, NULL);
        pg_report_markdown(&md, &c, NULL);
        assert_null(strstr(md.ptr, "hotspots.gate"));
        assert_null(strstr(text.ptr, "hotspots.gate"));
        pg_buf_release(&text);
        pg_buf_release(&md);
        pg_comparison_release(&c);
}

/* Validate JSON @text against the verdict schema with ajv (tests/node),
 * as tests/golden/compare/run-checks.sh does. */
static void pg_validate_verdict(const char *text)
{
        const char *src = pg_test_env("PG_SOURCE_DIR");
        char *ajv = pg_xasprintf("%s/tests/node/node_modules/.bin/ajv", src);
        char *schema = pg_xasprintf("%s/tests/golden/compare/verdict.schema.json", src);
        char *const argv[] = {
                ajv, "validate", "--spec=draft7", "-s", schema, "-d", "v.json", NULL
        };
        struct pg_run_out o;

        if (access(ajv, X_OK) != 0)
                fail_msg("%s is missing: run tests/node/install.sh", ajv);
        pg_test_write("v.json", text);
        if (pg_test_run(&o, NULL, argv) != 0)
                fail_msg("the verdict does not validate:\n%s\n%s%s", text,
                         o.out.ptr ? o.out.ptr : "", o.err.ptr ? o.err.ptr : "");
        pg_run_out_release(&o);
        free(ajv);
        free(schema);
}

/* report.json says whether a confirmed hotspot gated the verdict, and
 * says so in the schema's terms; false for a confirmation whose hotspot
 * did not gate. */
static void test_hotspot_gated_in_json(void **state)
{
        struct pg_comparison c;
        struct pg_buf js = PG_BUF_INIT;

        (void) state;
        pg_compare(&c, false);
        c.benches[0].confirm = pg_bench_confirm_new();
        c.benches[0].confirm->stored = strdup("regression");
        c.benches[0].confirm->outcome = PG_CONFIRM_NO_REGRESSION;
        c.benches[0].confirm->hotspot_gated = true;
        c.benches[0].verdict = PG_VERDICT_REGRESSION;
        assert_int_equal(pg_report_json(&js, &c, NULL), 0);
        assert_non_null(strstr(js.ptr, "\"hotspot_gated\": true"));
        pg_validate_verdict(js.ptr);
        pg_buf_reset(&js);
        c.benches[0].confirm->hotspot_gated = false;
        assert_int_equal(pg_report_json(&js, &c, NULL), 0);
        assert_non_null(strstr(js.ptr, "\"hotspot_gated\": false"));
        assert_null(strstr(js.ptr, "\"hotspot_gated\": true"));
        pg_validate_verdict(js.ptr);
        pg_buf_release(&js);
        pg_comparison_release(&c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_not_gating_metric_and_hotspot),
                cmocka_unit_test(test_gating_hotspots_have_no_note),
                cmocka_unit_test(test_confirmed_hotspot_gated_has_no_note),
                cmocka_unit_test_setup_teardown(test_hotspot_gated_in_json, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
