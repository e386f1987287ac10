/*
 * test_short_warning.c - `perfgate run` warns once per benchmark whose
 * median task-clock is below 50 ms (docs/run.md, "Short benchmarks"), also
 * with -q, and not for a longer one. The fixture spins for the given
 * milliseconds of its own CPU time (CLOCK_PROCESS_CPUTIME_ID), so its
 * task-clock is at least that however loaded the machine is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

static size_t pg_count(const char *hay, const char *needle)
{
        size_t n = 0;
        for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
                n++;
        return n;
}

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not in:\n%s", needle, hay);
}

static void test_short_benchmark_warned_once(void **state)
{
        struct pg_run_out o;
        char *busy = pg_xstrdup(pg_test_fixture("runner-busy")), *cfg;
        (void) state;

        cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"tiny\", \"argv\": [\"%s\", \"2\"]},"
                           " {\"name\": \"long\", \"argv\": [\"%s\", \"120\"]}]}\n",
                           busy, busy);
        pg_test_write("perfgate.json", cfg);
        pg_test_perfgate(&o, "run", "-q", "--repeat", "3", "--warmup", "0", "--no-profile",
                         "perfgate.json", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        /* what, the measured figures, and what to do */
        assert_int_equal(pg_count(o.err.ptr, "is below 50 ms"), 1);
        pg_assert_has(o.err.ptr, "perfgate: warning: tiny: task-clock median ");
        pg_assert_has(o.err.ptr, "drifted 9-30% between batches");
        pg_assert_has(o.err.ptr, "loop inside the benchmark until a run takes at least 50 ms");
        pg_assert_has(o.err.ptr, "--confirm");
        pg_assert_has(o.err.ptr, "see its log: a benchmark filter that matches nothing also "
                                 "exits 0");
        assert_null(strstr(o.err.ptr, "long: task-clock median"));
        pg_run_out_release(&o);
        free(cfg);
        free(busy);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_short_benchmark_warned_once,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
