/*
 * test_load_note.c - the machine's other load during a benchmark's measured
 * repetitions (the result's "load", docs/result-format.md) and compare's
 * host note of kind "load" when the two sides' load differs enough
 * (docs/compare.md, "Host fingerprint"): in the text report, the Markdown
 * comment and the JSON verdict, never changing a verdict. Crafted results
 * whose task-clock values are the same on both sides, and a real run.
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

#include <cjson/cJSON.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

/* @dir/x.json: a result on a 2-CPU host with task-clock 100 ms five times
 * and @load ("" for none, else the "load" member's JSON). */
static void pg_write_result_k(const char *dir, const char *kernel, const char *load)
{
        char *path = pg_xasprintf("%s/x.json", dir);
        char *text = pg_xasprintf(
            "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", \"command\": [\"x\"], "
            "\"created\": \"2026-12-02T06:00:00Z\", \"machine\": \"default\", \"host\": "
            "{\"cpu\": \"c\", \"cpus\": 2, \"kernel\": \"%s\", \"arch\": \"x86_64\", \"pmu\": [], "
            "\"virtualized\": true, \"perf_event_paranoid\": 2, \"exclude_kernel\": true}, "
            "\"counters\": \"software\", \"repeat\": 5, \"warmup\": 1, \"metrics\": "
            "{\"task-clock\": {\"unit\": \"ns\", \"values\": [100000000, 100100000, 99900000, "
            "100050000, 99950000]}}%s%s}",
            kernel, *load ? ", \"load\": " : "", load);

        mkdir(dir, 0755);
        pg_test_write(path, text);
        free(text);
        free(path);
}

static void pg_write_result(const char *dir, const char *load)
{
        pg_write_result_k(dir, "k", load);
}

static const char *const pg_quiet = "{\"other_cpus\": 0.1, \"steal\": 0, \"window_ns\": 600000000}";
static const char *const pg_busy =
    "{\"other_cpus\": 1.6, \"steal\": 0.09, \"window_ns\": 700000000}";
static const char *const pg_note =
    "the runner was busier during head: other work kept 1.6 of 2 CPUs busy (baseline 0.1), "
    "steal 9% (0%): time metrics may have moved with the machine; --confirm measures both "
    "sides together";

/* compare base with head: exit 0 (the same times: unchanged), the text
 * report in @text (owned by the caller), the JSON's benchmark's host_notes
 * (in *@root, the caller's to delete). */
static const cJSON *pg_compare(char **text, char **md, cJSON **root)
{
        struct pg_run_out o;
        char *json;
        const cJSON *bench;

        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "v.json",
                         "--markdown", "pr.md", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        *text = pg_xstrdup(o.out.ptr);
        pg_run_out_release(&o);
        *md = pg_test_read("pr.md");
        json = pg_test_read("v.json");
        *root = cJSON_Parse(json);
        free(json);
        assert_non_null(*root);
        bench = cJSON_GetArrayItem(cJSON_GetObjectItem(*root, "benchmarks"), 0);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "unchanged");
        return cJSON_GetObjectItem(bench, "host_notes");
}

static void test_busier_head_noted(void **state)
{
        char *text, *md;
        cJSON *root;
        const cJSON *notes, *n;

        (void) state;
        pg_write_result("base", pg_quiet);
        pg_write_result("head", pg_busy);
        notes = pg_compare(&text, &md, &root);
        assert_int_equal(cJSON_GetArraySize(notes), 1);
        n = cJSON_GetArrayItem(notes, 0);
        assert_string_equal(cJSON_GetObjectItem(n, "kind")->valuestring, "load");
        assert_string_equal(cJSON_GetObjectItem(n, "text")->valuestring, pg_note);
        assert_non_null(strstr(text, pg_note));
        assert_non_null(strstr(md, "\nRunner load: the runner was busier during head: other work "
                                   "kept 1.6 of 2"));
        assert_null(strstr(text, "hosts differ"));
        assert_null(strstr(md, "Hosts differ"));
        free(text);
        free(md);
        cJSON_Delete(root);
}

/* the other way round, the baseline is the busier side */
static void test_busier_baseline_noted(void **state)
{
        char *text, *md;
        cJSON *root;
        const cJSON *notes;

        (void) state;
        pg_write_result("base", pg_busy);
        pg_write_result("head", pg_quiet);
        notes = pg_compare(&text, &md, &root);
        assert_int_equal(cJSON_GetArraySize(notes), 1);
        assert_non_null(strstr(text, "the runner was busier during the baseline: other work kept "
                                     "1.6 of 2 CPUs busy (head 0.1), steal 9% (0%)"));
        free(text);
        free(md);
        cJSON_Delete(root);
}

/* with a kernel difference: that one under "hosts differ", the load on a
 * line of its own; the JSON's host_note joins both */
static void test_with_kernel_note(void **state)
{
        char *text, *md, *want;
        cJSON *root;
        const cJSON *notes, *bench;

        (void) state;
        pg_write_result_k("base", "6.1.0-28", pg_quiet);
        pg_write_result_k("head", "6.1.0-30", pg_busy);
        notes = pg_compare(&text, &md, &root);
        assert_int_equal(cJSON_GetArraySize(notes), 2);
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(notes, 0), "kind")->valuestring,
                            "kernel_release");
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(notes, 1), "kind")->valuestring,
                            "load");
        want = pg_xasprintf("\n              hosts differ: kernel '6.1.0-28' vs '6.1.0-30' "
                            "(verdicts kept)\n              %s\n",
                            pg_note);
        assert_non_null(strstr(text, want));
        free(want);
        bench = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0);
        want = pg_xasprintf("kernel '6.1.0-28' vs '6.1.0-30' (verdicts kept); %s", pg_note);
        assert_string_equal(cJSON_GetObjectItem(bench, "host_note")->valuestring, want);
        free(want);
        assert_non_null(strstr(md, "Hosts differ: kernel &#39;6.1.0-28&#39;"));
        free(text);
        free(md);
        cJSON_Delete(root);
}

/* no steal on either side: left unsaid */
static void test_no_steal_unsaid(void **state)
{
        char *text, *md;
        cJSON *root;

        (void) state;
        pg_write_result("base", "{\"other_cpus\": 0.02, \"steal\": 0, \"window_ns\": 1300000000}");
        pg_write_result("head",
                        "{\"other_cpus\": 1.12, \"steal\": 0.004, \"window_ns\": 1200000000}");
        assert_int_equal(cJSON_GetArraySize(pg_compare(&text, &md, &root)), 1);
        assert_non_null(strstr(text, "busier during head: other work kept 1.1 of 2 CPUs busy "
                                     "(baseline 0.0): time metrics may have moved"));
        free(text);
        free(md);
        cJSON_Delete(root);
}

/* steal alone is enough */
static void test_steal_alone_noted(void **state)
{
        char *text, *md;
        cJSON *root;

        (void) state;
        pg_write_result("base",
                        "{\"other_cpus\": 1.0, \"steal\": 0.01, \"window_ns\": 1000000000}");
        pg_write_result("head", "{\"other_cpus\": 1.0, \"steal\": 0.2, \"window_ns\": 1000000000}");
        assert_int_equal(cJSON_GetArraySize(pg_compare(&text, &md, &root)), 1);
        assert_non_null(strstr(text, "busier during head: other work kept 1.0 of 2 CPUs busy "
                                     "(baseline 1.0), steal 20% (1%)"));
        free(text);
        free(md);
        cJSON_Delete(root);
}

/* No note: alike load, a window too short to tell, a side without load
 * (a result from before the field). */
static void test_not_noted(void **state)
{
        static const char *const cases[][2] = {
                { "{\"other_cpus\": 1.2, \"steal\": 0.02, \"window_ns\": 900000000}",
                  "{\"other_cpus\": 1.6, \"steal\": 0.05, \"window_ns\": 900000000}" },
                { "{\"other_cpus\": 0.1, \"steal\": 0, \"window_ns\": 100000000}",
                  "{\"other_cpus\": 1.6, \"steal\": 0.09, \"window_ns\": 700000000}" },
                { "", "{\"other_cpus\": 1.6, \"steal\": 0.09, \"window_ns\": 700000000}" },
        };
        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *text, *md;
                cJSON *root;

                pg_write_result("base", cases[i][0]);
                pg_write_result("head", cases[i][1]);
                assert_int_equal(cJSON_GetArraySize(pg_compare(&text, &md, &root)), 0);
                assert_null(strstr(text, "busier"));
                assert_null(strstr(md, "busier"));
                free(text);
                free(md);
                cJSON_Delete(root);
        }
}

/* A load out of range is refused with the field named. */
static void test_bad_load_refused(void **state)
{
        struct pg_run_out o;

        (void) state;
        pg_write_result("base", "{\"other_cpus\": -1, \"steal\": 0, \"window_ns\": 1}");
        pg_write_result("head", pg_quiet);
        pg_test_perfgate(&o, "compare", "base", "--results", "head", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "load.other_cpus"));
        pg_run_out_release(&o);
        pg_write_result("base", "{\"other_cpus\": 1, \"steal\": 1.5, \"window_ns\": 1}");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "load.steal"));
        pg_run_out_release(&o);
}

/* A real run records the load of its measured repetitions: a window as
 * long as they took at least, figures in range; the file round-trips. */
static void test_run_records_load(void **state)
{
        struct pg_run_out o;
        struct pg_result r;
        const struct pg_metric *d;
        double sum = 0;

        (void) state;
        pg_test_write("perfgate.json", "{\"benchmarks\": [{\"name\": \"t\", \"argv\": [\"sh\", "
                                       "\"-c\", \"i=0; while [ $i -lt 20000 ]; do "
                                       "i=$((i+1)); done\"]}]}\n");
        pg_test_perfgate(&o, "run", "--repeat", "3", "--warmup", "1", "--no-profile", "--out", "r",
                         ".", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        pg_result_init(&r);
        if (pg_result_load(&r, "r/t.json") < 0)
                fail_msg("%s", pg_error_last());
        assert_true(r.load.present);
        assert_true(r.load.other_cpus >= 0);
        assert_true(r.load.steal >= 0 && r.load.steal <= 1);
        d = pg_result_find_metric(&r, "duration_time");
        assert_non_null(d);
        for (size_t i = 0; i < d->nvalues; i++)
                sum += d->values[i];
        assert_true((double) r.load.window_ns >= sum);
        pg_result_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_busier_head_noted, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_busier_baseline_noted, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_with_kernel_note, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_no_steal_unsaid, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_steal_alone_noted, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_not_noted, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_bad_load_refused, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_run_records_load, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
