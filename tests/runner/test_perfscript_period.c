/*
 * test_perfscript_period.c - the sample period of a perf script header
 * (runner/perfscript.h): perf prints it as "%10" PRIu64 between the time and
 * "EVENT:" (process_event() in tools/perf/builtin-script.c), so a token
 * there that is not a decimal number below 2^64 ("-5", "0x10", "1e3",
 * "12abc", 21 digits, 2^64) is not perf's: its sample is skipped and counted
 * once as odd input with its line, never folded with another weight, and the
 * event name never becomes a frame. 0 and 2^64 - 1 are perf's and kept. A
 * total past 2^64 - 1 stops the import with the line of the first sample it
 * could not add, where the sum once wrapped silently.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/perfscript.h"

/* Feed @text to a new importer; return pg_perfscript_end()'s result (or the
 * first feed error), the folded lines in @out and the stats in @st. */
static int pg_fold_period(const char *text, struct pg_buf *out, struct pg_perfscript_stats *st)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript *ps;
        struct pg_folded *v;
        size_t n;
        int error;

        assert_int_equal(pg_perfscript_new(&ps, &o), 0);
        pg_perfscript_begin(ps, "in");
        error = pg_perfscript_feed(ps, text, strlen(text));
        if (error == 0)
                error = pg_perfscript_end(ps);
        pg_perfscript_sorted(ps, &v, &n);
        for (size_t i = 0; i < n; i++)
                pg_buf_printf(out, "%s %llu\n", v[i].stack, (unsigned long long) v[i].count);
        *st = *pg_perfscript_stats(ps);
        free(v);
        pg_perfscript_free(ps);
        return error;
}

/* One record of period @period, then one good record of period 3 (line 4). */
static char *pg_two(const char *period)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_buf_printf(&b, "prog 1 [000] 1.0: %s cpu-clock:\n\t1 f (/b)\n\n", period);
        pg_buf_puts(&b, "prog 1 [000] 2.0: 3 cpu-clock:\n\t1 g (/b)\n\n");
        return pg_buf_detach(&b, NULL);
}

static void test_period_not_perfs_is_skipped(void **state)
{
        static const char *const bad[] = { "123456789012345678901234", "-5", "0x10", "1e3", "12abc",
                                           "18446744073709551616",     "+7" };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_buf out = PG_BUF_INIT;
                struct pg_perfscript_stats st;
                char *text = pg_two(bad[i]);
                assert_int_equal(pg_fold_period(text, &out, &st), 0);
                /* only the good record; no "cpu-clock:" frame, no weight of 1 */
                assert_string_equal(out.ptr, "prog;g 3\n");
                assert_int_equal(st.samples, 1);
                assert_int_equal(st.weight_total, 3);
                assert_int_equal(st.odd[PG_PS_ODD_BAD_PERIOD].count, 1);
                assert_int_equal(st.odd[PG_PS_ODD_BAD_PERIOD].first_line, 1);
                assert_non_null(strstr(st.odd[PG_PS_ODD_BAD_PERIOD].excerpt, bad[i]));
                assert_int_equal(st.odd[PG_PS_ODD_UNRECOGNIZED].count, 0);
                free(text);
                pg_buf_release(&out);
        }
}

static void test_period_perfs_range_kept(void **state)
{
        struct pg_buf out = PG_BUF_INIT;
        struct pg_perfscript_stats st;
        char *text = pg_two("18446744073709551612");
        (void) state;

        /* 2^64 - 4 + 3 = 2^64 - 1: the largest total that fits */
        assert_int_equal(pg_fold_period(text, &out, &st), 0);
        assert_string_equal(out.ptr, "prog;f 18446744073709551612\nprog;g 3\n");
        assert_true(st.weight_total == UINT64_MAX);
        free(text);
        pg_buf_reset(&out);
        /* period 0 counts as 1, as stackcollapse-perf.pl counts it */
        text = pg_two("0");
        assert_int_equal(pg_fold_period(text, &out, &st), 0);
        assert_string_equal(out.ptr, "prog;f 1\nprog;g 3\n");
        assert_int_equal(st.odd[PG_PS_ODD_BAD_PERIOD].count, 0);
        free(text);
        pg_buf_release(&out);
}

static void test_period_sum_past_2_64_refused(void **state)
{
        struct pg_buf in = PG_BUF_INIT, out = PG_BUF_INIT;
        struct pg_perfscript_stats st;
        (void) state;

        /* 2^62 five times: the fourth (line 10) brings the total to 2^64 */
        for (int i = 0; i < 5; i++)
                pg_buf_puts(&in, "prog 1 [000] 1.0: 4611686018427387904 cpu-clock:\n"
                                 "\t1 f (/b)\n\n");
        assert_int_equal(pg_fold_period(in.ptr, &out, &st), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "'in': the sample periods add up to more than "
                                                "2^64 - 1 at the sample of line 10"));
        pg_buf_release(&in);
        pg_buf_release(&out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_period_not_perfs_is_skipped),
                cmocka_unit_test(test_period_perfs_range_kept),
                cmocka_unit_test(test_period_sum_past_2_64_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
