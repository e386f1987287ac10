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
#include <stdbool.h>
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

/* @dir/x.json: a result on a 2-CPU host with task-clock @ms milliseconds
 * five times (within 0.1%) and @load ("" for none, else the "load" member's
 * JSON). */
static void pg_write_result_ms(const char *dir, const char *kernel, const char *load, double ms)
{
        char *path = pg_xasprintf("%s/x.json", dir);
        char *text = pg_xasprintf(
            "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", \"command\": [\"x\"], "
            "\"created\": \"2026-12-02T06:00:00Z\", \"machine\": \"default\", \"host\": "
            "{\"cpu\": \"c\", \"cpus\": 2, \"kernel\": \"%s\", \"arch\": \"x86_64\", \"pmu\": [], "
            "\"virtualized\": true, \"perf_event_paranoid\": 2, \"exclude_kernel\": true}, "
            "\"counters\": \"software\", \"repeat\": 5, \"warmup\": 1, \"metrics\": "
            "{\"task-clock\": {\"unit\": \"ns\", \"values\": [%.0f, %.0f, %.0f, %.0f, %.0f]}}%s%s}",
            kernel, ms * 1e6, ms * 1.001e6, ms * 0.999e6, ms * 1.0005e6, ms * 0.9995e6,
            *load ? ", \"load\": " : "", load);

        mkdir(dir, 0755);
        pg_test_write(path, text);
        free(text);
        free(path);
}

static void pg_write_result_k(const char *dir, const char *kernel, const char *load)
{
        pg_write_result_ms(dir, kernel, load, 100);
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

/* No note: alike load that left CPUs free (0.4 + 0.56 of the benchmark
 * + 2% steal, 0.8 + 0.56 + 5%: under 90% of 2 CPUs), a window too short to
 * tell, a side without load (a result from before the field); the other
 * side left CPUs free (1.0 + 0.25 + 9%). */
static void test_not_noted(void **state)
{
        static const char *const cases[][2] = {
                { "{\"other_cpus\": 0.4, \"steal\": 0.02, \"window_ns\": 900000000}",
                  "{\"other_cpus\": 0.8, \"steal\": 0.05, \"window_ns\": 900000000}" },
                { "{\"other_cpus\": 0.1, \"steal\": 0, \"window_ns\": 100000000}",
                  "{\"other_cpus\": 1.0, \"steal\": 0.09, \"window_ns\": 2000000000}" },
                { "", "{\"other_cpus\": 1.0, \"steal\": 0.09, \"window_ns\": 2000000000}" },
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

/* compare base with head, expecting exit @status (@strict: with
 * --strict); the JSON's only benchmark in *@root (the caller's to delete);
 * the text report in *@text (the caller's). */
static const cJSON *pg_compare_exit(int status, bool strict, char **text, cJSON **root)
{
        struct pg_run_out o;
        char *json;

        if (strict)
                pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "v.json",
                                 "--strict", NULL);
        else
                pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "v.json",
                                 NULL);
        if (o.status != status)
                fail_msg("exit %d, not %d: %s%s", o.status, status, o.out.ptr, o.err.ptr);
        *text = pg_xstrdup(o.out.ptr);
        pg_run_out_release(&o);
        json = pg_test_read("v.json");
        *root = cJSON_Parse(json);
        free(json);
        assert_non_null(*root);
        return cJSON_GetArrayItem(cJSON_GetObjectItem(*root, "benchmarks"), 0);
}

/* other work kept 1.8 of 2 CPUs busy on both sides: the figures are alike
 * (no "busier" side), but the runner was saturated (1.8 + 0.5 s of task-clock
 * over 0.6 s), and the note says so; a side with CPUs to spare is not */
static const char *const pg_full = "{\"other_cpus\": 1.8, \"steal\": 0, \"window_ns\": 600000000}";
static const char *const pg_full_note =
    "the runner was saturated during both sides: other work kept 1.8 of 2 CPUs busy besides "
    "the benchmark in head, 1.8 in the baseline: time metrics may have moved with the "
    "machine; --confirm measures both sides together";

static void test_saturated_noted(void **state)
{
        char *text, *md;
        cJSON *root;
        const cJSON *notes;

        (void) state;
        pg_write_result("base", pg_full);
        pg_write_result("head", pg_full);
        notes = pg_compare(&text, &md, &root);
        assert_int_equal(cJSON_GetArraySize(notes), 1);
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(notes, 0), "kind")->valuestring,
                            "load");
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(notes, 0), "text")->valuestring,
                            pg_full_note);
        assert_non_null(strstr(text, pg_full_note));
        assert_non_null(strstr(md, "\nRunner load: the runner was saturated during both sides"));
        free(text);
        free(md);
        cJSON_Delete(root);
        /* one side: 0.5 other CPUs + 0.5 of the benchmark leave a CPU free */
        pg_write_result("base", "{\"other_cpus\": 0.5, \"steal\": 0, \"window_ns\": 1000000000}");
        pg_write_result("head", "{\"other_cpus\": 1.4, \"steal\": 0, \"window_ns\": 1000000000}");
        notes = pg_compare(&text, &md, &root);
        assert_int_equal(cJSON_GetArraySize(notes), 1);
        assert_non_null(strstr(text, "busier during head")); /* differs: that note, as before */
        free(text);
        free(md);
        cJSON_Delete(root);
        /* a saturated head against a baseline from before the field: head's
         * figures alone */
        pg_write_result("base", "");
        pg_write_result("head", pg_full);
        notes = pg_compare(&text, &md, &root);
        assert_int_equal(cJSON_GetArraySize(notes), 1);
        assert_non_null(strstr(text, "the runner was saturated during head: other work kept 1.8 "
                                     "of 2 CPUs busy besides the benchmark in head: time metrics"));
        free(text);
        free(md);
        cJSON_Delete(root);
        /* alike figures (0.34 CPUs and 3 points of steal apart), one side
         * saturated: 1.36 + 0.5 of the benchmark, against 1.02 + 0.5 + 6% */
        pg_write_result("base", "{\"other_cpus\": 1.36, \"steal\": 0, \"window_ns\": 1000000000}");
        pg_write_result("head",
                        "{\"other_cpus\": 1.02, \"steal\": 0.03, \"window_ns\": 1000000000}");
        notes = pg_compare(&text, &md, &root);
        assert_non_null(strstr(text, "the runner was saturated during the baseline: other work "
                                     "kept 1.0 of 2 CPUs busy besides the benchmark in head, 1.4 "
                                     "in the baseline; steal 3% in head, 0% in the baseline"));
        free(text);
        free(md);
        cJSON_Delete(root);
}

/*
 * A +20% task-clock, separated on every repetition, is a regression between
 * batches with CPUs to spare; on a saturated runner (either side) it is
 * inconclusive, naming the load (failing under --strict); +150% is beyond the
 * threshold after the allowance for saturated batches (a doubling: 2.5 / 2 =
 * 1.25), and stays a regression; +115% is not.
 */
static void test_saturated_regression_inconclusive(void **state)
{
        static const char *const quiet =
            "{\"other_cpus\": 0.1, \"steal\": 0, \"window_ns\": 600000000}";
        const cJSON *bench, *m;
        char *text;
        cJSON *root;

        (void) state;
        pg_write_result("base", quiet);
        pg_write_result_ms("head", "k", quiet, 120);
        bench = pg_compare_exit(1, false, &text, &root);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "regression");
        free(text);
        cJSON_Delete(root);

        pg_write_result("base", quiet);
        pg_write_result_ms("head", "k", pg_full, 120);
        bench = pg_compare_exit(0, false, &text, &root);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "inconclusive");
        m = cJSON_GetArrayItem(cJSON_GetObjectItem(bench, "metrics"), 0);
        assert_string_equal(cJSON_GetObjectItem(m, "metric")->valuestring, "task-clock");
        assert_string_equal(cJSON_GetObjectItem(m, "outcome")->valuestring, "inconclusive");
        assert_non_null(strstr(cJSON_GetObjectItem(m, "reason")->valuestring,
                               "the runner was saturated during head (other work kept 1.8 of 2 "
                               "CPUs busy besides the benchmark in head, 0.1 in the baseline): "
                               "the times of batches taken under such load move by tens of "
                               "percent whatever the spread inside each, so a change under +120% "
                               "is not told from that; --confirm measures both sides together"));
        assert_non_null(strstr(text, "the runner was saturated during head"));
        free(text);
        cJSON_Delete(root);
        bench = pg_compare_exit(1, true, &text, &root);
        free(text);
        cJSON_Delete(root);

        /* the baseline's side saturated is enough */
        pg_write_result("base", pg_full);
        pg_write_result_ms("head", "k", quiet, 120);
        bench = pg_compare_exit(0, false, &text, &root);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "inconclusive");
        free(text);
        cJSON_Delete(root);

        pg_write_result("base", pg_full);
        pg_write_result_ms("head", "k", pg_full, 215);
        bench = pg_compare_exit(0, false, &text, &root);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "inconclusive");
        free(text);
        cJSON_Delete(root);
        pg_write_result_ms("head", "k", pg_full, 250);
        bench = pg_compare_exit(1, false, &text, &root);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "regression");
        free(text);
        cJSON_Delete(root);
}

/* A benchmark that fills the CPUs itself (0.5 s of task-clock in a 0.27 s
 * window: 1.85 CPUs) beside little other work is not saturated by others:
 * its +20% stays a regression, with no load note. */
static void test_own_threads_not_saturation(void **state)
{
        static const char *const own =
            "{\"other_cpus\": 0.1, \"steal\": 0, \"window_ns\": 270000000}";
        const cJSON *bench;
        char *text;
        cJSON *root;

        (void) state;
        pg_write_result("base", own);
        pg_write_result_ms("head", "k", own, 120);
        bench = pg_compare_exit(1, false, &text, &root);
        assert_string_equal(cJSON_GetObjectItem(bench, "verdict")->valuestring, "regression");
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(bench, "host_notes")), 0);
        free(text);
        cJSON_Delete(root);
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
                cmocka_unit_test_setup_teardown(test_saturated_noted, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_saturated_regression_inconclusive,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_own_threads_not_saturation,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_bad_load_refused, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_run_records_load, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
