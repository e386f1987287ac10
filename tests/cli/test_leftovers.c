/*
 * test_leftovers.c - processes a benchmark leaves running (docs/run.md,
 * "Processes a benchmark leaves behind") are kept in its result as
 * "leftovers" (docs/result-format.md), and `compare` names the side whose
 * runs had them, in the text report and in the Markdown comment. Real runs
 * of a benchmark that leaves a daemon behind (the perms_daemonize fixture)
 * and of the same program waiting for its daemon.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

/* `perfgate run` of one benchmark "daemon" into @out: the fixture leaves
 * its daemon behind, or with @waits waits for it. */
static void pg_run(const char *out, bool waits)
{
        struct pg_run_out o;
        char *cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"daemon\", \"argv\": [\"%s\", "
                                 "\"d.txt\"%s]}]}\n",
                                 pg_test_fixture("perms_daemonize"), waits ? ", \"wait\"" : "");

        pg_test_write("perfgate.json", cfg);
        pg_test_perfgate(&o, "run", "--repeat", "3", "--warmup", "1", "--no-profile", "--out", out,
                         ".", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        assert_int_equal(strstr(o.err.ptr, "still running when it exited") != NULL, !waits);
        pg_run_out_release(&o);
        free(cfg);
}

static void pg_load(struct pg_result *r, const char *path)
{
        pg_result_init(r);
        if (pg_result_load(r, path) < 0)
                fail_msg("%s: %s", path, pg_error_last());
}

static void test_stored_and_named(void **state)
{
        struct pg_result r;
        struct pg_run_out o;
        char *md;

        (void) state;
        pg_test_sandbox();
        pg_run("base", false);
        pg_run("head", true);

        /* the result keeps what the warning said: 1 process, 4 of 4 runs
         * (the warmup run counts: it ran the same program) */
        pg_load(&r, "base/daemon.json");
        assert_true(r.leftovers.present);
        assert_int_equal(r.leftovers.runs, 4);
        assert_int_equal(r.leftovers.of_runs, 4);
        assert_int_equal(r.leftovers.processes, 1);
        pg_result_release(&r);
        pg_load(&r, "head/daemon.json");
        assert_false(r.leftovers.present);
        pg_result_release(&r);
        {
                char *text = pg_test_read("base/daemon.json");
                assert_non_null(strstr(text, "\"leftovers\""));
                free(text);
                text = pg_test_read("head/daemon.json");
                assert_null(strstr(text, "\"leftovers\""));
                free(text);
        }

        /* show says so under the counters, only for the result that had them */
        pg_test_perfgate(&o, "show", "base/daemon.json", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, " Processes left running: 1 process it started was "
                                          "still running at its exit in 4 of 4 runs, its CPU "
                                          "time counted above.\n"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "show", "head/daemon.json", NULL);
        assert_int_equal(o.status, 0);
        assert_null(strstr(o.out.ptr, "Processes left running"));
        pg_run_out_release(&o);

        /* compare names the side that had them, and only that side */
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--markdown", "pr.md", NULL);
        if (o.status != 0 && o.status != 1)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        assert_non_null(strstr(o.out.ptr, "baseline disturbed: 1 process it started was still "
                                          "running at its exit in 4 of 4 runs, its CPU time "
                                          "counted\n"));
        assert_null(strstr(o.out.ptr, "head disturbed"));
        md = pg_test_read("pr.md");
        assert_non_null(strstr(md, "Processes left running: baseline disturbed: 1 process it "
                                   "started was still running at its exit in 4 of 4 runs, "
                                   "its CPU time counted.\n"));
        assert_null(strstr(md, "head disturbed"));
        free(md);
        pg_run_out_release(&o);

        /* the other way round: head */
        pg_test_perfgate(&o, "compare", "head", "--results", "base", NULL);
        if (o.status != 0 && o.status != 1)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        assert_non_null(strstr(o.out.ptr, "head disturbed: 1 process"));
        assert_null(strstr(o.out.ptr, "baseline disturbed"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* A result that claims more disturbed runs than it made is refused. */
static void test_bad_leftovers_refused(void **state)
{
        struct pg_result r;
        const char *bad = "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", \"command\": "
                          "[\"x\"], \"created\": \"2026-12-02T06:00:00Z\", \"machine\": "
                          "\"default\", \"host\": {\"cpu\": \"c\", \"cpus\": 1, \"kernel\": "
                          "\"k\", \"arch\": \"x86_64\", \"pmu\": [], \"virtualized\": true, "
                          "\"perf_event_paranoid\": 2, \"exclude_kernel\": true}, \"counters\": "
                          "\"software\", \"repeat\": 1, \"warmup\": 0, \"metrics\": "
                          "{\"task-clock\": {\"unit\": \"ns\", \"values\": [1]}}, "
                          "\"leftovers\": {\"runs\": 5, \"of_runs\": 4, \"processes\": 1}}";

        (void) state;
        pg_result_init(&r);
        assert_int_equal(pg_result_from_json(&r, bad, strlen(bad), "x.json"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "leftovers.runs"));
        pg_result_release(&r);
}

/* Load the result of test_bad_leftovers_refused() with @leftovers in its
 * place (repeat 1, warmup 0): refused, the message naming @path. */
static void pg_refused_naming(const char *leftovers, const char *path)
{
        struct pg_result r;
        struct pg_buf json = PG_BUF_INIT;

        pg_buf_printf(&json,
                      "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", \"command\": "
                      "[\"x\"], \"created\": \"2026-12-02T06:00:00Z\", \"machine\": "
                      "\"default\", \"counters\": \"software\", \"repeat\": 1, \"warmup\": 0, "
                      "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": [1]}}, "
                      "\"leftovers\": %s}",
                      leftovers);
        pg_result_init(&r);
        assert_int_equal(pg_result_from_json(&r, json.ptr, json.len, "x.json"), PG_EINPUT);
        if (strstr(pg_error_last(), path) == NULL)
                fail_msg("the message does not name '%s': %s", path, pg_error_last());
        pg_result_release(&r);
        pg_buf_release(&json);
}

/* of_runs is the result's warmup + repeat; a field of the wrong type is
 * named by its path in the result, not by its bare key. */
static void test_leftovers_checked(void **state)
{
        (void) state;
        pg_refused_naming("{\"runs\": 1, \"of_runs\": 4, \"processes\": 1}",
                          "'leftovers.of_runs' must be 1 (warmup 0 + repeat 1)");
        pg_refused_naming("{\"runs\": \"1\", \"of_runs\": 1, \"processes\": 1}",
                          "'leftovers.runs' must be a number");
        pg_refused_naming("{\"runs\": 1, \"of_runs\": 1.5, \"processes\": 1}",
                          "'leftovers.of_runs' must be a non-negative integer");
        pg_refused_naming("{\"runs\": 1, \"of_runs\": 1}", "'leftovers.processes' is missing");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stored_and_named),
                cmocka_unit_test(test_bad_leftovers_refused),
                cmocka_unit_test(test_leftovers_checked),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
