/*
 * test_measured_nothing.c - a benchmark that measured nothing (a Google
 * Benchmark filter that matches nothing exits 0 after start-up) is never an
 * improvement: head with a tenth of the baseline's task-clock or less is
 * "not comparable" and the benchmark inconclusive (exit 0, exit 1 under
 * --strict); the other way round, a baseline that measured nothing, stays a
 * regression that says the baseline may be empty (docs/compare.md, "Outcome
 * of a metric"). Real runs: the busy fixture spins for 150 ms of its own CPU
 * time, or exits at once with 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tests/util/testutil.h"

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not in:\n%s", needle, hay);
}

/* Run the busy fixture for @ms ms of CPU into results directory @out. */
static void pg_run_busy(const char *out, const char *ms)
{
        struct pg_run_out o;
        char *cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"bench\", \"argv\": [\"%s\", "
                                 "\"%s\"]}]}\n",
                                 pg_test_fixture("runner-busy"), ms);

        pg_test_write("perfgate.json", cfg);
        PG_TEST_PERFGATE_EXPECT(&o, 0, "run", "-q", "--repeat", "5", "--warmup", "0",
                                "--no-profile", "--out", out, "perfgate.json");
        pg_run_out_release(&o);
        free(cfg);
}

static void test_measured_nothing(void **state)
{
        struct pg_run_out o;
        char *json;
        (void) state;

        pg_run_busy("full", "150");
        pg_run_busy("empty", "0");

        /* head measured nothing: not an improvement, not a silent pass */
        PG_TEST_PERFGATE_EXPECT(&o, 0, "compare", "full", "--results", "empty", "--json", "v.json");
        pg_assert_has(o.out.ptr, "inconclusive  bench");
        pg_assert_has(o.out.ptr, "not comparable");
        pg_assert_has(o.out.ptr, "x less time than the baseline: beyond 10x it is most likely "
                                 "other work");
        pg_assert_has(o.out.ptr, "did the command change?");
        assert_null(strstr(o.out.ptr, "improvement"));
        json = pg_test_read("v.json");
        pg_assert_has(json, "\"outcome\": \"not comparable\"");
        free(json);
        pg_run_out_release(&o);
        PG_TEST_PERFGATE_EXPECT(&o, 1, "compare", "full", "--results", "empty", "--strict");
        pg_run_out_release(&o);

        /* the baseline measured nothing: a 10x slowdown still fails, and says
         * why it may be the baseline's */
        PG_TEST_PERFGATE_EXPECT(&o, 1, "compare", "empty", "--results", "full");
        pg_assert_has(o.out.ptr, "regression    bench");
        pg_assert_has(o.out.ptr, "x the baseline's time: if the baseline measured nothing");
        pg_run_out_release(&o);

        /* within an order of magnitude the rule is the usual one */
        PG_TEST_PERFGATE_EXPECT(&o, 0, "compare", "full", "--results", "full");
        assert_null(strstr(o.out.ptr, "not comparable"));
        pg_run_out_release(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_measured_nothing, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
