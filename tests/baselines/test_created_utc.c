/*
 * test_created_utc.c - the result's `created` stamp (pg_result_created_at)
 * is the text glibc's gmtime_r(3) + strftime("%Y-%m-%dT%H:%M:%SZ") gives,
 * for every day boundary, leap days and centuries (1900, 2000, 2100, 2400)
 * and a million pseudo-random instants from year 1000 to 9999, before and
 * after the epoch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baselines/result.h"

/* the oracle: glibc */
static void pg_libc_stamp(int64_t t, char *buf, size_t cap)
{
        time_t tt = (time_t) t;
        struct tm tm;
        assert_non_null(gmtime_r(&tt, &tm));
        assert_true(strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0);
}

static void pg_check(int64_t t)
{
        char want[64];
        char *got = pg_result_created_at(t);
        pg_libc_stamp(t, want, sizeof(want));
        if (strcmp(got, want) != 0)
                fail_msg("t=%lld: got %s, gmtime_r says %s", (long long) t, got, want);
        free(got);
}

#define PG_Y1000  (-30610224000LL) /* 1000-01-01T00:00:00Z */
#define PG_Y10000 253402300800LL   /* 10000-01-01T00:00:00Z */

static void test_created_matches_gmtime_day_edges(void **state)
{
        (void) state;
        /* every day from 1899 to 2401, its first and last second */
        for (int64_t day = -25567 - 365; day < 157100; day++) {
                pg_check(day * 86400);
                pg_check(day * 86400 + 86399);
        }
        pg_check(0);
        pg_check(-1);
        pg_check(PG_Y1000);
        pg_check(PG_Y10000 - 1);
}

static void test_created_matches_gmtime_random(void **state)
{
        uint64_t x = 0x9e3779b97f4a7c15ull;
        (void) state;
        for (int i = 0; i < 1000000; i++) {
                /* xorshift64 */
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                pg_check(PG_Y1000 + (int64_t) (x % (uint64_t) (PG_Y10000 - PG_Y1000)));
        }
}

static void test_created_now_is_now(void **state)
{
        char want[64];
        char *got;
        time_t before = time(NULL);
        (void) state;
        got = pg_result_created_now();
        pg_libc_stamp((int64_t) before, want, sizeof(want));
        /* the same second, or the next one if the clock ticked in between */
        if (strcmp(got, want) != 0) {
                pg_libc_stamp((int64_t) before + 1, want, sizeof(want));
                assert_string_equal(got, want);
        }
        free(got);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_created_matches_gmtime_day_edges),
                cmocka_unit_test(test_created_matches_gmtime_random),
                cmocka_unit_test(test_created_now_is_now),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
