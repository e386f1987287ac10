/*
 * test_events.c - the event table: perf names map to the kernel ABI's
 * type/config (HW_CACHE encodings checked against the values perf_event_open(2)
 * documents), the default set is perf stat -d -d grouped as docs/run.md
 * says, and --events parsing (order, duplicates, unknown names
 * listing the valid ones).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <string.h>

#include "common/error.h"
#include "runner/events.h"
#include "tests/util/testutil.h"

static void test_events_cache_encoding(void **state)
{
        /* config = id | op << 8 | result << 16 with the kernel's enum values:
         * L1D 0, L1I 1, LL 2, DTLB 3, ITLB 4; READ 0; ACCESS 0, MISS 1 */
        static const struct {
                const char *name;
                uint64_t config;
        } want[] = {
                { "L1-dcache-loads", 0x0 }, { "L1-dcache-load-misses", 0x10000 },
                { "L1-icache-loads", 0x1 }, { "L1-icache-load-misses", 0x10001 },
                { "LLC-loads", 0x2 },       { "LLC-load-misses", 0x10002 },
                { "dTLB-loads", 0x3 },      { "dTLB-load-misses", 0x10003 },
                { "iTLB-loads", 0x4 },      { "iTLB-load-misses", 0x10004 },
        };
        (void) state;
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                const struct pg_event_def *d = pg_event_find(want[i].name);
                assert_non_null(d);
                assert_int_equal(d->type, 3); /* PERF_TYPE_HW_CACHE */
                assert_int_equal(d->config, want[i].config);
                assert_true(d->hardware);
        }
}

static void test_events_generic_encoding(void **state)
{
        static const struct {
                const char *name;
                uint32_t type;
                uint64_t config;
                const char *unit;
        } want[] = {
                { "cycles", 0, 0, "count" },           { "instructions", 0, 1, "count" },
                { "cache-references", 0, 2, "count" }, { "cache-misses", 0, 3, "count" },
                { "branches", 0, 4, "count" },         { "branch-misses", 0, 5, "count" },
                { "cpu-clock", 1, 0, "ns" },           { "task-clock", 1, 1, "ns" },
                { "page-faults", 1, 2, "count" },      { "context-switches", 1, 3, "count" },
                { "cpu-migrations", 1, 4, "count" },
        };
        (void) state;
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                const struct pg_event_def *d = pg_event_find(want[i].name);
                assert_non_null(d);
                assert_int_equal(d->type, want[i].type);
                assert_int_equal(d->config, want[i].config);
                assert_string_equal(d->unit, want[i].unit);
        }
        assert_true(pg_event_find("context-switches")->kernel_only);
        assert_true(pg_event_find("cpu-migrations")->kernel_only);
        assert_false(pg_event_find("page-faults")->kernel_only);
        assert_false(pg_event_find("task-clock")->hardware);
        assert_null(pg_event_find("Cycles"));
        assert_null(pg_event_find("cycles:u"));
}

static void test_events_default_groups(void **state)
{
        static const char *const groups[][4] = {
                { "task-clock", "context-switches", "cpu-migrations", "page-faults" },
                { "cycles", "instructions", "branches", "branch-misses" },
                { "cache-references", "cache-misses", NULL, NULL },
                { "L1-dcache-loads", "L1-dcache-load-misses", NULL, NULL },
                { "LLC-loads", "LLC-load-misses", NULL, NULL },
                { "L1-icache-loads", "L1-icache-load-misses", NULL, NULL },
                { "dTLB-loads", "dTLB-load-misses", NULL, NULL },
                { "iTLB-loads", "iTLB-load-misses", NULL, NULL },
        };
        struct pg_event_list l;
        size_t k = 0;
        (void) state;

        pg_events_default(&l);
        for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
                for (size_t m = 0; m < 4 && groups[g][m]; m++, k++) {
                        assert_true(k < l.n);
                        assert_string_equal(l.ev[k]->name, groups[g][m]);
                        /* same group as its first member, another than the previous group */
                        assert_int_equal(l.ev[k]->group, l.ev[k - m]->group);
                        if (m == 0 && k > 0)
                                assert_int_not_equal(l.ev[k]->group, l.ev[k - 1]->group);
                }
        }
        assert_int_equal(l.n, k);
        assert_int_equal(l.ev[0]->group, 0);
}

static void test_events_parse_order_and_duplicates(void **state)
{
        struct pg_event_list l;
        (void) state;

        assert_int_equal(pg_events_parse(&l, "page-faults,cycles,task-clock,,page-faults"), 0);
        assert_int_equal(l.n, 3);
        /* table order, so groups stay adjacent: software first */
        assert_string_equal(l.ev[0]->name, "task-clock");
        assert_string_equal(l.ev[1]->name, "page-faults");
        assert_string_equal(l.ev[2]->name, "cycles");
        assert_int_equal(pg_events_parse(&l, "ref-cycles"), 0);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.ev[0]->config, 9); /* PERF_COUNT_HW_REF_CPU_CYCLES */
}

static void test_events_parse_unknown_lists_valid(void **state)
{
        struct pg_event_list l;
        const char *msg;
        size_t n;
        const struct pg_event_def *t = pg_events_table(&n);
        (void) state;

        assert_int_equal(pg_events_parse(&l, "task-clock,cycels"), PG_EINPUT);
        msg = pg_error_last();
        assert_non_null(strstr(msg, "unknown event 'cycels'"));
        for (size_t i = 0; i < n; i++)
                assert_non_null(strstr(msg, t[i].name));
        assert_int_equal(pg_events_parse(&l, ",,"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "names no event"));
}

static bool pg_keep_sw(const struct pg_event_def *d)
{
        return !d->hardware;
}

static void test_events_filter_software(void **state)
{
        struct pg_event_list l;
        (void) state;
        pg_events_default(&l);
        pg_events_filter(&l, pg_keep_sw);
        assert_int_equal(l.n, 4);
        for (size_t i = 0; i < l.n; i++)
                assert_int_equal(l.ev[i]->type, PERF_TYPE_SOFTWARE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_events_cache_encoding),
                cmocka_unit_test(test_events_generic_encoding),
                cmocka_unit_test(test_events_default_groups),
                cmocka_unit_test(test_events_parse_order_and_duplicates),
                cmocka_unit_test(test_events_parse_unknown_lists_valid),
                cmocka_unit_test(test_events_filter_software),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
