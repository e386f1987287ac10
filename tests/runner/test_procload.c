/*
 * test_procload.c - the machine's other load from /proc/stat (proc(5);
 * runner/procload.h): parsing the "cpu" line and the deltas between two
 * reads, on crafted lines whose answers are worked out by hand below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "runner/procload.h"

static struct pg_proc_cpu pg_parse(const char *line)
{
        struct pg_proc_cpu c;

        if (pg_proc_cpu_parse(line, strlen(line), &c) < 0)
                fail_msg("refused: %s", line);
        assert_true(c.ok);
        return c;
}

/* user nice system idle iowait irq softirq steal guest guest_nice: guest
 * time is already inside user and nice, iowait is idle time */
static void test_fields(void **state)
{
        struct pg_proc_cpu c = pg_parse("cpu  100 20 30 400 5 6 7 8 50 9\ncpu0 1 2 3 4\n");

        (void) state;
        assert_int_equal(c.busy, 100 + 20 + 30 + 6 + 7);
        assert_int_equal(c.idle, 400 + 5);
        assert_int_equal(c.steal, 8);

        /* a kernel before steal (2.6.11) printed fewer fields */
        c = pg_parse("cpu 1 2 3 4\n");
        assert_int_equal(c.busy, 6);
        assert_int_equal(c.idle, 4);
        assert_int_equal(c.steal, 0);

        /* a read cut in the middle of the line still has its first fields */
        c = pg_parse("cpu  7523904 2471765 2394128 2126758 61904 0 44522 136057 0 0");
        assert_int_equal(c.busy, 7523904ull + 2471765 + 2394128 + 44522);
        assert_int_equal(c.steal, 136057);
}

static void test_refused(void **state)
{
        static const char *const bad[] = {
                "",
                "cpu0 1 2 3 4\n",                    /* a per-CPU line, not the total */
                "intr 1 2 3 4\n",                    /* another line */
                "cpu  1 2 3\n",                      /* too few fields */
                "cpu  1 2 x 4\n",                    /* not a number */
                "cpu  1 2 -3 4\n",                   /* not a count */
                "cpu  99999999999999999999 2 3 4\n", /* past 2^64 */
        };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_proc_cpu c;
                assert_int_equal(pg_proc_cpu_parse(bad[i], strlen(bad[i]), &c), PG_EINPUT);
                assert_false(c.ok);
        }
}

/* 2 CPUs for 1 s at USER_HZ 100: 200 ticks. 150 busy ticks = 1.5 CPU-s, of
 * which the benchmark's own 0.4 s: other work kept 1.1 CPUs busy; 20 steal
 * ticks of 200 = 10%. */
static void test_deltas(void **state)
{
        struct pg_proc_cpu a = pg_parse("cpu  1000 0 0 5000 0 0 0 100 0 0\n");
        struct pg_proc_cpu b = pg_parse("cpu  1100 40 10 5030 0 0 0 120 0 0\n");
        struct pg_load l;

        (void) state;
        assert_true(pg_proc_load_compute(&a, &b, 0.4e9, 1000000000ull, 100, &l));
        assert_true(l.present);
        assert_float_equal(l.other_cpus, 1.1, 1e-9);
        assert_float_equal(l.steal, 0.1, 1e-9);
        assert_int_equal(l.window_ns, 1000000000ull);

        /* the benchmark's time measured finer than the ticks: never below 0 */
        assert_true(pg_proc_load_compute(&a, &b, 2e9, 1000000000ull, 100, &l));
        assert_float_equal(l.other_cpus, 0, 0);

        /* another USER_HZ: 150 ticks at 250 per second are 0.6 CPU-s */
        assert_true(pg_proc_load_compute(&a, &b, 0, 2000000000ull, 250, &l));
        assert_float_equal(l.other_cpus, 0.3, 1e-9);

        /* no tick passed: no steal, no other work */
        assert_true(pg_proc_load_compute(&a, &a, 0, 1000, 100, &l));
        assert_float_equal(l.other_cpus, 0, 0);
        assert_float_equal(l.steal, 0, 0);
}

static void test_not_recorded(void **state)
{
        struct pg_proc_cpu a = pg_parse("cpu  1000 0 0 5000 0 0 0 100 0 0\n");
        struct pg_proc_cpu b = pg_parse("cpu  1100 40 10 5030 0 0 0 120 0 0\n");
        struct pg_proc_cpu none = { 0 };
        struct pg_load l;

        (void) state;
        assert_false(pg_proc_load_compute(&none, &b, 0, 1000000000ull, 100, &l));
        assert_false(l.present);
        assert_false(pg_proc_load_compute(&a, &none, 0, 1000000000ull, 100, &l));
        assert_false(pg_proc_load_compute(&b, &a, 0, 1000000000ull, 100, &l)); /* backwards */
        assert_false(l.present);
        assert_false(pg_proc_load_compute(&a, &b, 0, 0, 100, &l));
        assert_false(pg_proc_load_compute(&a, &b, 0, 1000000000ull, -1, &l));
}

/* The real file on this machine reads, and two reads go forwards. */
static void test_real_proc_stat(void **state)
{
        struct pg_proc_cpu a, b;
        struct pg_load l;

        (void) state;
        pg_proc_cpu_read(&a);
        usleep(20000);
        pg_proc_cpu_read(&b);
        assert_true(a.ok);
        assert_true(b.ok);
        assert_true(pg_proc_load_compute(&a, &b, 0, 20000000ull, sysconf(_SC_CLK_TCK), &l));
        assert_true(l.other_cpus >= 0);
        assert_true(l.steal >= 0 && l.steal <= 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fields),         cmocka_unit_test(test_refused),
                cmocka_unit_test(test_deltas),         cmocka_unit_test(test_not_recorded),
                cmocka_unit_test(test_real_proc_stat),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
