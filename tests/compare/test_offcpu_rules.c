/*
 * test_offcpu_rules.c - the off-CPU gate's thresholds come from
 * perfgate.json's compare.offcpu, and an off-CPU regression shows in the
 * JUnit and OpenMetrics reports like any other regression.
 *
 * Two results of one benchmark whose task-clock is the same and whose one
 * blocking path (worker > update_table > pthread_mutex_lock) grew from 100
 * to 130 ms blocked per run (+30%, +30 ms): under the default 50% it passes;
 * with "threshold": "20%" it regresses (exit status 1), JUnit names the path
 * in its <failure>, OpenMetrics gives its base/head ms and a 1; with
 * "min_ms": 50 on top it passes again. Bad values are refused naming the key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"

#define PG_PATH     "worker > update_table > pthread_mutex_lock"
#define PG_PATH_XML "worker &gt; update_table &gt; pthread_mutex_lock"

/* A result "contend": task-clock 5 x 100 ms, and an off-CPU profile of 3
 * runs whose mutex path blocked @ms_per_run (and a sleep 20 ms per run). */
static void pg_make(struct pg_result_set *set, double ms_per_run)
{
        struct pg_result r;
        const double tc[5] = { 100e6, 101e6, 99e6, 100e6, 100.5e6 };
        struct pg_stack st[2] = {
                { "contend;worker;update_table;pthread_mutex_lock;futex_wait_[k];schedule_[k]",
                  (uint64_t) (ms_per_run * 3e6) },
                { "contend;main;nanosleep;schedule_[k]", (uint64_t) 60e6 },
        };

        pg_result_set_init(set);
        pg_result_init(&r);
        r.name = strdup("contend");
        r.machine = strdup("default");
        r.counters = strdup("software");
        r.repeat = 5;
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, 5, NULL);
        r.offcpu.present = true;
        r.offcpu.event = strdup("context-switches");
        r.offcpu.call_graph = strdup("dwarf");
        r.offcpu.runs = 3;
        r.offcpu.kernel = true;
        pg_profile_set_stacks(&r.offcpu, st, 2);
        r.offcpu.samples = st[0].count + st[1].count;
        assert_int_equal(pg_result_set_add(set, &r), 0);
}

/* Compare base 100 ms against head 130 ms under the "compare" JSON @cfg
 * (NULL: defaults); the exit status, the JUnit and OpenMetrics texts. */
static int pg_judge(const char *cfg, struct pg_buf *junit, struct pg_buf *om)
{
        struct pg_result_set base, head;
        struct pg_rules rules;
        struct pg_comparison c;
        struct pg_report_opts o = { 0 };
        cJSON *j = cfg ? cJSON_Parse(cfg) : NULL;
        int status;

        pg_make(&base, 100);
        pg_make(&head, 130);
        pg_rules_init(&rules);
        assert_int_equal(pg_rules_load(&rules, j, "perfgate.json"), 0);
        pg_comparison_init(&c);
        pg_compare_sets(&base, &head, &rules, &c);
        status = pg_comparison_exit_status(&c);
        pg_report_junit(junit, &c, &o);
        pg_report_openmetrics(om, &c, &o);
        pg_comparison_release(&c);
        pg_rules_release(&rules);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
        cJSON_Delete(j);
        return status;
}

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

static void test_default_threshold_passes_30_percent(void **state)
{
        struct pg_buf junit = PG_BUF_INIT, om = PG_BUF_INIT;
        (void) state;

        assert_int_equal(pg_judge(NULL, &junit, &om), 0);
        assert_null(strstr(junit.ptr, "<failure"));
        /* listed (moved by 2 ms or more) but not regressed */
        pg_assert_has(om.ptr,
                      "perfgate_offcpu_head_ms{benchmark=\"contend\",path=\"" PG_PATH "\"} 130\n");
        pg_assert_has(om.ptr,
                      "perfgate_offcpu_regression{benchmark=\"contend\",path=\"" PG_PATH "\"} 0\n");
        pg_buf_release(&junit);
        pg_buf_release(&om);
}

static void test_configured_threshold_regresses_in_reports(void **state)
{
        struct pg_buf junit = PG_BUF_INIT, om = PG_BUF_INIT;
        (void) state;

        assert_int_equal(pg_judge("{\"offcpu\": {\"threshold\": \"20%\"}}", &junit, &om), 1);
        pg_assert_has(junit.ptr, "failures=\"1\"");
        pg_assert_has(junit.ptr, "<failure message=\"off-CPU path " PG_PATH_XML
                                 " regressed: 100.0 -&gt; 130.0 ms blocked per run (+30.0 ms; "
                                 "threshold +20%, 2 ms, 5% of head)");
        pg_assert_has(om.ptr,
                      "perfgate_offcpu_base_ms{benchmark=\"contend\",path=\"" PG_PATH "\"} 100\n");
        pg_assert_has(om.ptr,
                      "perfgate_offcpu_regression{benchmark=\"contend\",path=\"" PG_PATH "\"} 1\n");
        pg_assert_has(om.ptr, "perfgate_regression{benchmark=\"contend\"} 1\n");
        pg_buf_release(&junit);
        pg_buf_release(&om);

        /* the absolute floor: +30 ms is below 50 ms per run */
        assert_int_equal(
            pg_judge("{\"offcpu\": {\"threshold\": \"20%\", \"min_ms\": 50}}", &junit, &om), 0);
        /* the share: the path holds 130 / 150 ms of head, below 90% */
        pg_buf_reset(&junit);
        pg_buf_reset(&om);
        assert_int_equal(
            pg_judge("{\"offcpu\": {\"threshold\": \"20%\", \"min_share\": \"90%\"}}", &junit, &om),
            0);
        pg_buf_release(&junit);
        pg_buf_release(&om);
}

static void test_bad_offcpu_rules_are_refused(void **state)
{
        static const struct {
                const char *json, *want;
        } bad[] = {
                { "{\"offcpu\": {\"threshold\": \"2pp\"}}", "compare.offcpu.threshold" },
                { "{\"offcpu\": {\"threshold\": 0.5}}", "compare.offcpu.threshold" },
                { "{\"offcpu\": {\"min_ms\": -1}}", "compare.offcpu.min_ms" },
                { "{\"offcpu\": {\"min_share\": \"150%\"}}", "compare.offcpu.min_share" },
                { "{\"offcpu\": {\"min_msec\": 2}}", "min_msec" },
                { "{\"offcpu\": true}", "compare.offcpu" },
        };
        (void) state;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_rules rules;
                cJSON *j = cJSON_Parse(bad[i].json);

                pg_rules_init(&rules);
                assert_int_equal(pg_rules_load(&rules, j, "perfgate.json"), PG_EINPUT);
                pg_assert_has(pg_error_last(), bad[i].want);
                pg_rules_release(&rules);
                cJSON_Delete(j);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_default_threshold_passes_30_percent),
                cmocka_unit_test(test_configured_threshold_regresses_in_reports),
                cmocka_unit_test(test_bad_offcpu_rules_are_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
