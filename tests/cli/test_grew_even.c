/*
 * A slowdown spread evenly over two functions: neither holds more than half
 * of task-clock's growth, together they do, so the report names both as
 * "grew (own time)" (docs/compare.md, Hotspots), largest growth first, in the
 * text and the Markdown. Spread over eight, none is named; nor when what
 * regressed is not task-clock and its rise is not significant. One function
 * that is all of the run is named when task-clock's significant rise is
 * inconclusive (within noise), not when the rise is not significant.
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
#include "common/buf.h"
#include "tests/util/testutil.h"

/* Result @dir/t100.json: @metrics (the JSON object's members), profile
 * @stacks (a JSON object) of @samples samples in all. */
static void pg_write_result_metrics(const char *dir, const char *metrics, const char *stacks,
                                    int samples)
{
        char *path = pg_xasprintf("%s/t100.json", dir);
        char *text = pg_xasprintf(
            "{\"schema\": \"perfgate/result/1\", \"name\": \"t100\", \"metrics\": "
            "{%s}, \"profile\": "
            "{\"call_graph\": \"fp\", \"event\": \"cpu-clock\", \"frequency_hz\": 999, "
            "\"lost\": 0, \"runs\": 1, \"samples\": %d, \"stacks\": %s}}",
            metrics, samples, stacks);

        mkdir(dir, 0755);
        pg_test_write(path, text);
        free(text);
        free(path);
}

/* The same with task-clock @values (ns, JSON array) alone. */
static void pg_write_result(const char *dir, const char *values, const char *stacks, int samples)
{
        char *metrics = pg_xasprintf("\"task-clock\": {\"unit\": \"ns\", \"values\": %s}", values);

        pg_write_result_metrics(dir, metrics, stacks, samples);
        free(metrics);
}

/* Own time = self share x median task-clock. Base: 86.4 ms, funcA 1022 and
 * funcB 1012 of 2089 samples (42.3 and 41.9 ms); head: 110.6 ms (+24.2 ms),
 * 1027 and 1019 of 2100 (54.1 and 53.7 ms): each +11.8 ms, 48.8% and 48.7%
 * of the growth (the figures of a +30% workload split over two functions
 * measured on the development VM). */
static void test_grew_even_names_both(void **state)
{
        struct pg_run_out o;
        char *md, *a, *b;
        (void) state;

        pg_write_result("b", "[86.1e6, 86.9e6, 86.4e6, 86.2e6, 86.7e6]",
                        "{\"t100;main;funcA\": 1022, \"t100;main;funcB\": 1012, "
                        "\"t100;main\": 55}",
                        2089);
        pg_write_result("h", "[110.2e6, 111.0e6, 110.6e6, 110.4e6, 110.9e6]",
                        "{\"t100;main;funcA\": 1027, \"t100;main;funcB\": 1019, "
                        "\"t100;main\": 54}",
                        2100);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "out.md", NULL);
        assert_int_equal(o.status, 1);
        a = strstr(o.out.ptr, "    funcA ");
        b = strstr(o.out.ptr, "    funcB ");
        assert_non_null(a);
        assert_non_null(b);
        assert_true(a < b); /* funcA grew a little more */
        assert_non_null(strstr(a, "own time +11.8 ms"));
        assert_non_null(strstr(b, "own time +11.8 ms"));
        assert_non_null(strstr(a, ") grew (own time)\n      via main > funcA\n"));
        assert_non_null(strstr(b, ") grew (own time)\n      via main > funcB\n"));
        assert_null(strstr(o.out.ptr, "    main "));
        pg_run_out_release(&o);
        md = pg_test_read("out.md");
        a = strstr(md, "funcA");
        b = strstr(md, "funcB");
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(strstr(a, "grew (own time)"));
        assert_non_null(strstr(b, "grew (own time)"));
        free(md);
}

/* The same growth spread over eight functions (each +3.0 ms, an eighth):
 * the three largest hold less than half, so none is named. */
static void test_grew_spread_wider_names_none(void **state)
{
        struct pg_run_out o;
        struct pg_buf b = PG_BUF_INIT, h = PG_BUF_INIT;
        (void) state;

        pg_buf_puts(&b, "{");
        pg_buf_puts(&h, "{");
        for (int i = 0; i < 8; i++) {
                pg_buf_printf(&b, "\"t100;main;f%d\": 250, ", i);
                pg_buf_printf(&h, "\"t100;main;f%d\": 253, ", i);
        }
        pg_buf_puts(&b, "\"t100;main\": 89}");
        pg_buf_puts(&h, "\"t100;main\": 76}");
        pg_write_result("b", "[86.1e6, 86.9e6, 86.4e6, 86.2e6, 86.7e6]", b.ptr, 2089);
        pg_write_result("h", "[110.2e6, 111.0e6, 110.6e6, 110.4e6, 110.9e6]", h.ptr, 2100);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        assert_int_equal(o.status, 1);
        assert_null(strstr(o.out.ptr, "grew (own time)"));
        pg_run_out_release(&o);
        pg_buf_release(&b);
        pg_buf_release(&h);
}

/* The profiles of test_grew_even_names_both, but what failed the benchmark
 * is instructions (+5%, beyond its 2%), while task-clock's rise of the
 * medians (+28%) is not significant (head's runs straddle the baseline's):
 * own times then grew with task-clock's noise, and no function is named as
 * "grew (own time)" (docs/compare.md, Hotspots). */
static void test_grew_needs_task_clock_regression(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_write_result_metrics(
            "b",
            "\"task-clock\": {\"unit\": \"ns\", \"values\": [86.1e6, 86.9e6, 86.4e6, 86.2e6, "
            "86.7e6]}, \"instructions\": {\"unit\": \"count\", \"values\": [1.000e9, 1.001e9, "
            "0.999e9, 1.0005e9, 0.9995e9]}",
            "{\"t100;main;funcA\": 1022, \"t100;main;funcB\": 1012, \"t100;main\": 55}", 2089);
        pg_write_result_metrics(
            "h",
            "\"task-clock\": {\"unit\": \"ns\", \"values\": [110.6e6, 80.0e6, 112.0e6, 85.0e6, "
            "111.0e6]}, \"instructions\": {\"unit\": \"count\", \"values\": [1.050e9, "
            "1.051e9, 1.049e9, 1.0505e9, 1.0495e9]}",
            "{\"t100;main;funcA\": 1027, \"t100;main;funcB\": 1019, \"t100;main\": 54}", 2100);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        assert_int_equal(o.status, 1);
        if (!strstr(o.out.ptr, "instructions +5.0% (regression)") ||
            strstr(o.out.ptr, "task-clock +28.0% (regression)") ||
            strstr(o.out.ptr, "grew (own time)"))
                fail_msg("expected an instructions regression and no function named:\n%s",
                         o.out.ptr);
        pg_run_out_release(&o);
}

/* One function that is all of the run (97.6% of the samples on both sides:
 * its share cannot grow) does a third more work: task-clock +31.0%, every
 * run of head above every run of base (p < alpha), but head's runs spread
 * so widely (relative MAD ~9%) that the rise is "within noise", the
 * benchmark inconclusive. The function is named as grew (own time) all the
 * same, in the text, the JSON and the Markdown, and the verdict stays
 * inconclusive (exit 0): naming it never fails a build. */
static void test_grew_named_when_inconclusive(void **state)
{
        struct pg_run_out o;
        char *md, *js, *x;
        (void) state;

        pg_write_result("b", "[86.1e6, 86.9e6, 86.4e6, 86.2e6, 86.7e6]",
                        "{\"t100;main;checksum_block\": 2039, \"t100;main\": 50}", 2089);
        pg_write_result("h", "[90.0e6, 95.0e6, 130.0e6, 180.0e6, 190.0e6]",
                        "{\"t100;main;checksum_block\": 2051, \"t100;main\": 49}", 2100);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "out.md", "--json",
                         "out.json", NULL);
        if (o.status != 0 || !strstr(o.out.ptr, "inconclusive") ||
            !strstr(o.out.ptr, "within noise") || !(x = strstr(o.out.ptr, "    checksum_block ")) ||
            !strstr(x, ") grew (own time)\n      via main > checksum_block\n"))
                fail_msg("expected an inconclusive task-clock (within noise), exit 0, "
                         "checksum_block named as grew (own time):\n%s%s",
                         o.out.ptr, o.err.ptr);
        pg_run_out_release(&o);
        md = pg_test_read("out.md");
        x = strstr(md, "| t100 | checksum&#95;block | 97.61% | 97.67% |");
        if (!x || !strstr(x, "| grew (own time) |"))
                fail_msg("no Hotspots row names checksum_block:\n%s", md);
        free(md);
        js = pg_test_read("out.json");
        x = strstr(js, "\"function\": \"checksum_block\"");
        if (!x)
                x = strstr(js, "\"function\":\"checksum_block\"");
        assert_non_null(x);
        assert_non_null(strstr(js, "\"grew (own time)\""));
        assert_non_null(strstr(js, "\"verdict\": \"inconclusive\""));
        free(js);
}

/* The same profiles, but head's runs straddle the baseline's: task-clock's
 * rise of the medians is not significant, so own time moved with its noise
 * and nothing is named (the benchmark is inconclusive or unchanged). */
static void test_grew_not_named_when_not_significant(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_write_result("b", "[86.1e6, 86.9e6, 86.4e6, 86.2e6, 86.7e6]",
                        "{\"t100;main;checksum_block\": 2039, \"t100;main\": 50}", 2089);
        pg_write_result("h", "[113.2e6, 80.0e6, 125.0e6, 85.0e6, 148.0e6]",
                        "{\"t100;main;checksum_block\": 2051, \"t100;main\": 49}", 2100);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        if (o.status != 0 || strstr(o.out.ptr, "grew (own time)"))
                fail_msg("expected exit 0 and no function named:\n%s%s", o.out.ptr, o.err.ptr);
        pg_run_out_release(&o);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, pg_test_setup_sandbox, pg_test_teardown_sandbox)
        const struct CMUnitTest tests[] = {
                T(test_grew_even_names_both),
                T(test_grew_spread_wider_names_none),
                T(test_grew_needs_task_clock_regression),
                T(test_grew_named_when_inconclusive),
                T(test_grew_not_named_when_not_significant),
        };
#undef T
        return cmocka_run_group_tests(tests, NULL, NULL);
}
