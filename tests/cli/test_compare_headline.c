/*
 * test_compare_headline.c - the one-line summary of a benchmark (text and
 * Markdown; docs/compare.md, "Outcome of a metric"): a metric that does not
 * gate is never called a regression or an improvement there ("worse, not
 * gating", "better, not gating"), while the JSON keeps the judgement
 * (outcome and gate); and the metrics not judged although the baseline had
 * them are named with their reason, grouped by reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error.h"
#include "tests/util/testutil.h"

/* A result of benchmark "b": task-clock around @tc ms, duration_time around
 * @dt ms, page-faults around @pf, cpu-migrations @mig, five values each. */
static void write_result(const char *path, double tc, double dt, double pf, double mig)
{
        char *text = pg_xasprintf(
            "{\"schema\":\"perfgate/result/1\",\"name\":\"b\",\"command\":[\"b\"],"
            "\"created\":\"2026-11-29T10:00:00Z\",\"machine\":\"default\",\"counters\":"
            "\"software\","
            "\"repeat\":5,\"warmup\":0,\"host\":{\"cpu\":\"c\",\"cpus\":1,\"kernel\":\"k\","
            "\"arch\":\"x86_64\",\"pmu\":[],\"virtualized\":true,\"perf_event_paranoid\":2,"
            "\"exclude_kernel\":false},\"metrics\":{"
            "\"task-clock\":{\"unit\":\"ns\",\"values\":[%g,%g,%g,%g,%g]},"
            "\"duration_time\":{\"unit\":\"ns\",\"values\":[%g,%g,%g,%g,%g]},"
            "\"page-faults\":{\"unit\":\"count\",\"values\":[%g,%g,%g,%g,%g]},"
            "\"cpu-migrations\":{\"unit\":\"count\",\"values\":[%g,%g,%g,%g,%g]}}}",
            tc * 1e6, tc * 1.001e6, tc * 0.999e6, tc * 1.002e6, tc * 0.998e6, dt * 1e6,
            dt * 1.001e6, dt * 0.999e6, dt * 1.002e6, dt * 0.998e6, pf, pf + 1, pf - 1, pf + 2,
            pf - 2, mig, mig, mig, mig, mig);

        pg_test_write(path, text);
        free(text);
}

static void test_headline_words(void **state)
{
        struct pg_run_out o;
        char *md, *js;

        (void) state;
        pg_test_sandbox();
        assert_int_equal(mkdir("base", 0755), 0);
        assert_int_equal(mkdir("head", 0755), 0);
        /* task-clock unchanged (gates); duration_time +33% and page-faults
         * -50% (neither gates); cpu-migrations 0 -> 3 (a zero baseline) */
        write_result("base/b.json", 100, 100, 1000, 0);
        write_result("head/b.json", 101, 133, 500, 3);
        pg_test_perfgate(&o, "compare", "--results", "head", "--markdown", "c.md", "--json",
                         "c.json", "./base", NULL);
        if (o.status != 0)
                fprintf(stderr, "%s%s", o.out.ptr, o.err.ptr);
        assert_int_equal(o.status, 0);
        print_message("%s", o.out.ptr);
        assert_non_null(strstr(o.out.ptr, "\nunchanged     b "));
        assert_non_null(strstr(o.out.ptr, "duration_time +33.0% (worse, not gating)"));
        assert_non_null(strstr(o.out.ptr, "page-faults -50.0% (better, not gating)"));
        assert_non_null(strstr(o.out.ptr, "; not judged: cpu-migrations (zero baseline)\n"));
        assert_null(strstr(o.out.ptr, "(regression"));
        assert_null(strstr(o.out.ptr, "(improvement"));
        md = pg_test_read("c.md");
        assert_non_null(strstr(md, "duration&#95;time +33.0% (worse, not gating)"));
        assert_non_null(strstr(md, "not judged: cpu-migrations (zero baseline)"));
        assert_null(strstr(md, "(regression, not gating)"));
        /* the JSON keeps the judgement and says that it does not gate */
        js = pg_test_read("c.json");
        assert_non_null(strstr(js, "\"metric\": \"duration_time\""));
        assert_non_null(strstr(js, "\"outcome\": \"regression\""));
        free(md);
        free(js);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_headline_words),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
