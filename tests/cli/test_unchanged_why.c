/*
 * test_unchanged_why.c - a metric that moved beyond its threshold yet is
 * "unchanged" says why, on the benchmark's line and on its detail row (a
 * user saw "unchanged checksum task-clock -14.9%" at a 10% threshold, and
 * "cpus-utilized +17.1% ... unchanged", with no reason, and took both for
 * bugs): a fall of task-clock within the noise (3 x relative MAD = 18.0%)
 * is a possible improvement, within noise; one the rank test does not
 * support is a possible improvement, not significant, with its p; a change
 * of cpus-utilized, which has no direction, is informational, whatever the
 * test and the noise say (docs/compare.md, "Outcome of a metric").
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

/* Result @dir/checksum.json with task-clock @tc (ns) and cpus-utilized
 * @cpus (as perfgate run derives it, task-clock / duration_time), JSON
 * arrays. */
static void pg_write_result(const char *dir, const char *tc, const char *cpus)
{
        char *path = pg_xasprintf("%s/checksum.json", dir);
        char *text =
            pg_xasprintf("{\"schema\": \"perfgate/result/1\", \"name\": \"checksum\", \"metrics\": "
                         "{\"task-clock\": {\"unit\": \"ns\", \"values\": %s}, "
                         "\"cpus-utilized\": {\"unit\": \"ratio\", \"values\": %s}}}",
                         tc, cpus);

        mkdir(dir, 0755);
        pg_test_write(path, text);
        free(text);
        free(path);
}

/* The line of @text that starts with @start (after spaces), or fail. */
static char *pg_line(const char *text, const char *start)
{
        for (const char *p = text; p && *p;) {
                const char *q = p;
                const char *nl = strchr(p, '\n');
                while (*q == ' ')
                        q++;
                if (strncmp(q, start, strlen(start)) == 0)
                        return pg_xstrndup(p, nl ? (size_t) (nl - p) : strlen(p));
                p = nl ? nl + 1 : NULL;
        }
        fail_msg("no line starting with '%s' in:\n%s", start, text);
        return NULL;
}

/* Base: task-clock median 100 ms, relative MAD 6% (noise 3 x 6% = 18%);
 * head 85.1 ms (-14.9%), every run below every base run (p = 0.0079).
 * cpus-utilized: 1.0 in every base run; head 1.171 median (+17.1%),
 * relative MAD 6.1% (noise 18.2%), p = 0.0079. */
static void test_unchanged_within_noise_says_why(void **state)
{
        struct pg_run_out o;
        char *line, *md;
        (void) state;

        pg_write_result("b", "[100e6, 106e6, 94e6, 112e6, 88e6]", "[1, 1, 1, 1, 1]");
        pg_write_result("h", "[85.1e6, 86e6, 84e6, 87e6, 83e6]", "[1.171, 1.10, 1.24, 1.05, 1.30]");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "out.md", "--json",
                         "v.json", NULL);
        assert_int_equal(o.status, 0);
        line = pg_line(o.out.ptr, "unchanged ");
        if (!strstr(line, "task-clock -14.9% (possible improvement, within noise: 3 x relative "
                          "MAD = 18.0%)"))
                fail_msg("benchmark line: %s\n%s", line, o.out.ptr);
        free(line);
        md = pg_test_read("out.md");
        /* the summary row and the detail rows of the <details> table */
        if (!strstr(md, "task-clock -14.9% (possible improvement, within noise: 3 x relative "
                        "MAD = 18.0%)") ||
            !strstr(md, "| 10% | yes | unchanged: possible improvement, within noise: 3 x "
                        "relative MAD = 18.0% |") ||
            !strstr(md, "| unchanged: informational: the metric has no direction, so no change "
                        "of it is judged |"))
                fail_msg("Markdown:\n%s", md);
        free(md);
        md = pg_test_read("v.json");
        assert_non_null(strstr(md, "\"reason\": \"informational: the metric has no direction"));
        free(md);
        pg_run_out_release(&o);
}

/* The same fall of task-clock with the runs overlapping (p = 0.31): not
 * significant, and the line gives the p. */
static void test_unchanged_not_significant_says_why(void **state)
{
        struct pg_run_out o;
        char *line;
        (void) state;

        pg_write_result("b", "[100e6, 101e6, 99e6, 80e6, 120e6]", "[1, 1, 1, 1, 1]");
        pg_write_result("h", "[85.1e6, 125e6, 84e6, 130e6, 83e6]", "[1, 1, 1, 1, 1]");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        assert_int_equal(o.status, 0);
        line = pg_line(o.out.ptr, "unchanged ");
        if (!strstr(line, "task-clock -14.9% (possible improvement, not significant: p = "))
                fail_msg("benchmark line: %s\n%s", line, o.out.ptr);
        free(line);
        pg_run_out_release(&o);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, pg_test_setup_sandbox, pg_test_teardown_sandbox)
        const struct CMUnitTest tests[] = {
                T(test_unchanged_within_noise_says_why),
                T(test_unchanged_not_significant_says_why),
        };
#undef T
        return cmocka_run_group_tests(tests, NULL, NULL);
}
