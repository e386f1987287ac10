/*
 * test_simulate.c - `perfgate run --counters simulated` end to end under the
 * real valgrind (skipped with a reason where it is not installed): the
 * simulated counters, ratios and per-function costs in the result (child
 * processes followed), native time metrics beside them; an A/A pair gives
 * identical counts and no simulated change; a 1% increase of instructions
 * is a regression naming the function; simulated against software counters
 * is inconclusive with the reason. Bad input: valgrind not in PATH (exit 3
 * with the install command), an instruction valgrind rejects (exit 3 naming
 * the benchmark and valgrind's message), truncated or garbage cachegrind
 * files (exit 4, no result). Also, without valgrind: the "functions" object
 * of the result model (round trip and validation), folding into "[other]"
 * and merging processes, the deterministic rules of compare.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/json.h"
#include "compare/rules.h"
#include "runner/simulate.h"
#include "tests/util/testutil.h"

static bool pg_have_valgrind(void)
{
        char *p = NULL;
        bool ok = pg_sim_find_valgrind(&p) == 0;
        free(p);
        return ok;
}

#define PG_NEED_VALGRIND()                                                                         \
        do {                                                                                       \
                if (!pg_have_valgrind()) {                                                         \
                        fprintf(stderr, "skipped: valgrind is not installed\n");                   \
                        skip();                                                                    \
                }                                                                                  \
        } while (0)

/* Write manifest @path with one benchmark "work" running simwork @n. */
static void pg_manifest(const char *path, const char *fixture, const char *arg)
{
        char *text;
        if (arg)
                text = pg_xasprintf("{\"benchmarks\": [{\"name\": \"work\", \"argv\": [\"%s\", "
                                    "\"%s\"]}]}\n",
                                    pg_test_fixture(fixture), arg);
        else
                text =
                    pg_xasprintf("{\"benchmarks\": [{\"name\": \"work\", \"argv\": [\"%s\"]}]}\n",
                                 pg_test_fixture(fixture));
        pg_test_write(path, text);
        free(text);
}

static int pg_run_sim(struct pg_run_out *o, const char *manifest, const char *out_dir,
                      const char *counters)
{
        return pg_test_perfgate(o, "run", "-q", "--counters", counters, "--repeat", "2", "--warmup",
                                "0", "--no-profile", "--out", out_dir, manifest, NULL);
}

static void pg_load_result(struct pg_result *r, const char *path)
{
        pg_result_init(r);
        if (pg_result_load(r, path) != 0)
                fail_msg("cannot load %s: %s", path, pg_error_last());
}

static double pg_value(const struct pg_result *r, const char *name)
{
        const struct pg_metric *m = pg_result_find_metric(r, name);
        if (!m || m->status != PG_METRIC_OK || m->nvalues < 1)
                fail_msg("metric %s missing", name);
        return m->values[0];
}

static const char *const pg_sim_names[] = { "instructions",          "branches",
                                            "branch-misses",         "L1-dcache-loads",
                                            "L1-dcache-load-misses", "LLC-loads",
                                            "LLC-load-misses",       "cycles" };

static void test_simulate_run_records_counters_and_functions(void **state)
{
        struct pg_run_out o;
        struct pg_result r;
        const struct pg_metric *tc;
        const struct pg_function *hot, *child;
        int ci;
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        pg_manifest("m.json", "sim-simwork", "200000");
        assert_int_equal(pg_run_sim(&o, "m.json", "res", "simulated"), 0);
        pg_run_out_release(&o);
        pg_load_result(&r, "res/work.json");
        assert_string_equal(r.counters, "simulated");
        for (size_t i = 0; i < sizeof(pg_sim_names) / sizeof(pg_sim_names[0]); i++) {
                const struct pg_metric *m = pg_result_find_metric(&r, pg_sim_names[i]);
                assert_non_null(m);
                assert_int_equal(m->status, PG_METRIC_OK);
                assert_int_equal(m->nvalues, 1); /* deterministic: one simulated run */
                assert_string_equal(m->unit, "count");
        }
        /* 2 x 200000 loop rounds of several instructions each, in two processes */
        assert_true(pg_value(&r, "instructions") > 2 * 200000 * 4);
        assert_true(pg_value(&r, "branch-misses") > 200000 / 10); /* work_hot's random branch */
        assert_true(pg_value(&r, "branch-misses") < pg_value(&r, "branches"));
        assert_true(pg_value(&r, "cycles") >= pg_value(&r, "instructions"));
        for (size_t i = 0; i < 4; i++) {
                static const char *const ratios[] = { "ipc", "branch-miss-rate",
                                                      "L1-dcache-miss-rate", "LLC-miss-rate" };
                assert_non_null(pg_result_find_metric(&r, ratios[i]));
        }
        assert_true(pg_value(&r, "branch-miss-rate") ==
                    pg_value(&r, "branch-misses") / pg_value(&r, "branches"));
        /* time is still measured natively, once per repetition */
        tc = pg_result_find_metric(&r, "task-clock");
        assert_non_null(tc);
        assert_int_equal(tc->nvalues, 2);
        assert_int_equal(pg_result_find_metric(&r, "duration_time")->nvalues, 2);
        /* per function: the parent's and the child's hot functions */
        assert_true(r.functions.present);
        assert_string_equal(r.functions.source, "cachegrind");
        ci = pg_functions_counter_index(&r.functions, "instructions");
        assert_true(ci >= 0);
        hot = pg_functions_find(&r.functions, "work_hot");
        child = pg_functions_find(&r.functions, "child_work");
        assert_non_null(hot);
        assert_non_null(child);
        assert_non_null(hot->file);
        assert_non_null(strstr(hot->file, "simwork.c"));
        assert_true(hot->line > 0);
        assert_true(hot->counts[ci] > 200000 * 4);
        assert_true(child->counts[ci] > 200000 * 3);
        /* the per-function counts add up to the totals */
        {
                double sum = 0;
                for (size_t i = 0; i < r.functions.n; i++)
                        sum += (double) r.functions.items[i].counts[ci];
                assert_true(sum == pg_value(&r, "instructions"));
        }
        /* no cachegrind leftovers beside the results */
        assert_false(pg_test_exists("res/.simulate-work"));
        pg_result_release(&r);
        pg_test_sandbox_remove();
}

/* Run `perfgate compare BASE --results HEAD --json v.json` and parse it. */
static cJSON *pg_compare_json(const char *base, const char *head, int *status)
{
        struct pg_run_out o;
        cJSON *root = NULL;
        char *text;

        *status =
            pg_test_perfgate(&o, "compare", base, "--results", head, "--json", "v.json", NULL);
        pg_run_out_release(&o);
        text = pg_test_read("v.json");
        assert_int_equal(pg_json_parse(text, strlen(text), "v.json", 0, &root), 0);
        free(text);
        return root;
}

static const cJSON *pg_metric_json(const cJSON *root, const char *metric)
{
        const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0), *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "metrics"))
        {
                if (strcmp(cJSON_GetObjectItem(m, "metric")->valuestring, metric) == 0)
                        return m;
        }
        fail_msg("metric %s not in the verdict", metric);
        return NULL;
}

static void test_simulate_aa_identical_counts(void **state)
{
        struct pg_run_out o;
        struct pg_result a, b;
        cJSON *root;
        int status;
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        pg_manifest("m.json", "sim-simwork", "100000");
        assert_int_equal(pg_run_sim(&o, "m.json", "a", "simulated"), 0);
        pg_run_out_release(&o);
        assert_int_equal(pg_run_sim(&o, "m.json", "b", "simulated"), 0);
        pg_run_out_release(&o);
        pg_load_result(&a, "a/work.json");
        pg_load_result(&b, "b/work.json");
        for (size_t i = 0; i < sizeof(pg_sim_names) / sizeof(pg_sim_names[0]); i++)
                assert_true(pg_value(&a, pg_sim_names[i]) == pg_value(&b, pg_sim_names[i]));
        assert_int_equal(a.functions.n, b.functions.n);
        for (size_t i = 0; i < a.functions.n; i++) {
                assert_string_equal(a.functions.items[i].name, b.functions.items[i].name);
                assert_memory_equal(a.functions.items[i].counts, b.functions.items[i].counts,
                                    a.functions.ncounters * sizeof(uint64_t));
        }
        root = pg_compare_json("a", "b", &status);
        for (size_t i = 0; i < sizeof(pg_sim_names) / sizeof(pg_sim_names[0]); i++) {
                const cJSON *m = pg_metric_json(root, pg_sim_names[i]);
                assert_string_equal(cJSON_GetObjectItem(m, "outcome")->valuestring, "unchanged");
                assert_true(cJSON_IsNull(cJSON_GetObjectItem(m, "p_value")));
        }
        cJSON_Delete(root);
        pg_result_release(&a);
        pg_result_release(&b);
        pg_test_sandbox_remove();
}

static void test_simulate_one_percent_more_instructions_is_caught(void **state)
{
        struct pg_run_out o;
        const cJSON *m, *cause;
        cJSON *root;
        int status;
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        pg_manifest("base.json", "sim-simwork", "100000");
        pg_manifest("head.json", "sim-simwork", "101000"); /* +1% loop rounds */
        assert_int_equal(pg_run_sim(&o, "base.json", "a", "simulated"), 0);
        pg_run_out_release(&o);
        assert_int_equal(pg_run_sim(&o, "head.json", "b", "simulated"), 0);
        pg_run_out_release(&o);
        root = pg_compare_json("a", "b", &status);
        assert_int_equal(status, 1);
        m = pg_metric_json(root, "instructions");
        assert_string_equal(cJSON_GetObjectItem(m, "outcome")->valuestring, "regression");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(m, "gate")));
        cause = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "causes"), 0);
        assert_non_null(cause);
        /* both functions grew by 1%; the parent's loop body is the larger one */
        assert_string_equal(cJSON_GetObjectItem(cause, "function")->valuestring, "work_hot");
        assert_string_equal(cJSON_GetObjectItem(cause, "counter")->valuestring, "instructions");
        assert_true(cJSON_GetObjectItem(cause, "head")->valuedouble >
                    cJSON_GetObjectItem(cause, "base")->valuedouble);
        cJSON_Delete(root);
        /* the text report names it too */
        pg_test_perfgate(&o, "compare", "a", "--results", "b", NULL);
        assert_non_null(strstr(o.out.ptr, "instructions in `work_hot()` (simwork.c:"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_simulate_never_compared_with_measured(void **state)
{
        struct pg_run_out o;
        const cJSON *m, *b;
        cJSON *root;
        int status;
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        pg_manifest("m.json", "sim-simwork", "50000");
        assert_int_equal(pg_run_sim(&o, "m.json", "sw", "software"), 0);
        pg_run_out_release(&o);
        assert_int_equal(pg_run_sim(&o, "m.json", "sim", "simulated"), 0);
        pg_run_out_release(&o);
        root = pg_compare_json("sw", "sim", &status);
        assert_int_equal(status, 0); /* inconclusive passes without --strict */
        b = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0);
        assert_string_equal(cJSON_GetObjectItem(b, "verdict")->valuestring, "inconclusive");
        m = pg_metric_json(root, "instructions");
        assert_string_equal(cJSON_GetObjectItem(m, "outcome")->valuestring, "inconclusive");
        assert_non_null(strstr(cJSON_GetObjectItem(m, "reason")->valuestring,
                               "'software' counters in the baseline, 'simulated' in head"));
        cJSON_Delete(root);
        pg_test_sandbox_remove();
}

static void test_simulate_valgrind_missing(void **state)
{
        struct pg_run_out o;
        char *old = pg_xstrdup(getenv("PATH") ? getenv("PATH") : "");
        (void) state;

        pg_test_sandbox();
        pg_manifest("m.json", "sim-simwork", "1000");
        setenv("PATH", "/nonexistent-for-perfgate", 1);
        assert_int_equal(pg_run_sim(&o, "m.json", "res", "simulated"), 3);
        setenv("PATH", old, 1);
        assert_non_null(strstr(o.err.ptr, "'valgrind' is not in PATH"));
        assert_non_null(strstr(o.err.ptr, "sudo apt-get install valgrind"));
        assert_false(pg_test_exists("res/work.json"));
        pg_run_out_release(&o);
        free(old);
        pg_test_sandbox_remove();
}

static void test_simulate_unsupported_instruction(void **state)
{
        struct pg_run_out o;
        char *argv[] = { NULL, NULL };
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        argv[0] = (char *) pg_test_fixture("sim-avx512");
        if (pg_test_run(&o, NULL, argv) != 0) {
                pg_run_out_release(&o);
                pg_test_sandbox_remove();
                fprintf(stderr, "skipped: this CPU cannot run the AVX-512 fixture natively\n");
                skip();
        }
        pg_run_out_release(&o);
        pg_manifest("m.json", "sim-avx512", NULL);
        assert_int_equal(pg_run_sim(&o, "m.json", "res", "simulated"), 3);
        assert_non_null(strstr(o.err.ptr, "benchmark 'work' cannot run under valgrind"));
        assert_non_null(strstr(o.err.ptr, "unhandled instruction"));
        assert_non_null(strstr(o.err.ptr, "SIGILL"));
        assert_false(pg_test_exists("res/work.json"));
        pg_run_out_release(&o);
        /* valgrind's own messages are kept in the benchmark's log */
        {
                char *log = pg_test_read("res/work.log");
                assert_non_null(strstr(log, "--- valgrind"));
                free(log);
        }
        pg_test_sandbox_remove();
}

static void pg_broken_file(const char *mode)
{
        struct pg_run_out o;
        char *old = pg_xstrdup(getenv("PATH") ? getenv("PATH") : "");
        char *dir = pg_xstrdup(pg_test_fixture("fake-valgrind"));
        char *path = pg_xasprintf("%s:%s", dir, old);

        pg_test_sandbox();
        pg_manifest("m.json", "sim-simwork", "1000");
        setenv("PATH", path, 1);
        setenv("PG_FAKE_VALGRIND", mode, 1);
        assert_int_equal(pg_run_sim(&o, "m.json", "res", "simulated"), 4);
        setenv("PATH", old, 1);
        unsetenv("PG_FAKE_VALGRIND");
        assert_non_null(strstr(o.err.ptr, "cannot read cachegrind's output"));
        assert_false(pg_test_exists("res/work.json"));
        assert_false(pg_test_exists("res/.simulate-work"));
        pg_run_out_release(&o);
        free(old);
        free(dir);
        free(path);
        pg_test_sandbox_remove();
}

static void test_simulate_truncated_cachegrind_file(void **state)
{
        (void) state;
        pg_broken_file("truncated");
}

static void test_simulate_garbage_cachegrind_file(void **state)
{
        (void) state;
        pg_broken_file("garbage");
}

/* ---- without valgrind ---------------------------------------------------- */

static const char pg_proc1[] = "events: Ir Dr D1mr DLmr Bc Bcm\n"
                               "fl=a.c\n"
                               "fn=big\n"
                               "10 9000 100 10 1 500 50\n"
                               "fn=tiny\n"
                               "3 10\n"
                               "fn=missy\n"
                               "20 30 0 0 0 40 40\n"
                               "summary: 9040 100 10 1 540 90\n";
static const char pg_proc2[] = "events: Ir Dr D1mr DLmr Bc Bcm\n"
                               "fl=b.c\n"
                               "fn=big\n"
                               "12 1000 0 0 0 0 0\n"
                               "summary: 1000 0 0 0 0 0\n";

static void test_simulate_merge_and_fold(void **state)
{
        struct pg_cg cg[2];
        struct pg_sim sim;
        struct pg_result r;
        struct pg_buf json = PG_BUF_INIT;
        const struct pg_function *big, *missy, *other;
        int ci, cm;
        (void) state;

        assert_int_equal(pg_cg_parse(&cg[0], pg_proc1, strlen(pg_proc1), "p1"), 0);
        assert_int_equal(pg_cg_parse(&cg[1], pg_proc2, strlen(pg_proc2), "p2"), 0);
        pg_sim_merge(cg, 2, 0.005, &sim);
        assert_true(sim.counts[PG_CG_INSTRUCTIONS] == 10040);
        assert_int_equal(sim.nprocs, 2);
        ci = pg_functions_counter_index(&sim.functions, "instructions");
        cm = pg_functions_counter_index(&sim.functions, "branch-misses");
        big = pg_functions_find(&sim.functions, "big");
        assert_non_null(big);
        assert_int_equal(big->counts[ci], 10000); /* merged over both processes */
        assert_string_equal(big->file, "a.c");    /* where its hottest line is */
        assert_int_equal(big->line, 10);
        /* 0.3% of instructions but 44% of branch misses: kept */
        missy = pg_functions_find(&sim.functions, "missy");
        assert_non_null(missy);
        assert_int_equal(missy->counts[cm], 40);
        /* 0.1% of everything: folded */
        assert_null(pg_functions_find(&sim.functions, "tiny"));
        other = pg_functions_find(&sim.functions, PG_FUNCTIONS_OTHER);
        assert_non_null(other);
        assert_int_equal(other->counts[ci], 10);
        assert_null(other->file);

        /* stored into a result: metrics of one value, the ratios, and a round trip */
        pg_result_init(&r);
        r.name = pg_xstrdup("m");
        pg_sim_store(&sim, &r);
        assert_string_equal(r.counters, "simulated");
        assert_true(pg_value(&r, "branch-miss-rate") == 90.0 / 540.0);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        {
                struct pg_result back;
                struct pg_buf again = PG_BUF_INIT;
                pg_result_init(&back);
                assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "m"), 0);
                assert_int_equal(back.functions.n, r.functions.n);
                assert_int_equal(pg_result_to_json(&back, &again), 0);
                assert_string_equal(again.ptr, json.ptr);
                pg_buf_release(&again);
                pg_result_release(&back);
        }
        assert_non_null(strstr(json.ptr, "\"functions\""));
        assert_non_null(strstr(json.ptr, "\"[other]\""));
        pg_buf_release(&json);
        pg_result_release(&r);
        pg_sim_release(&sim);
        pg_cg_release(&cg[0]);
        pg_cg_release(&cg[1]);
}

static void pg_expect_invalid(const char *functions, const char *what)
{
        struct pg_result r;
        char *text = pg_xasprintf("{\"schema\": \"perfgate/result/1\", \"name\": \"x\", "
                                  "\"functions\": %s}",
                                  functions);
        pg_result_init(&r);
        assert_int_equal(pg_result_from_json(&r, text, strlen(text), "x.json"), PG_EINPUT);
        if (!strstr(pg_error_last(), what))
                fail_msg("'%s' does not say '%s'", pg_error_last(), what);
        free(text);
}

static void test_simulate_functions_validation(void **state)
{
        (void) state;
        pg_expect_invalid("[]", "field 'functions' must be an object");
        pg_expect_invalid("{\"items\": {}}", "field 'source' is missing");
        pg_expect_invalid("{\"source\": \"cachegrind\"}", "'functions.items' is missing");
        pg_expect_invalid("{\"source\": \"c\", \"min_share\": 2, \"items\": {}}",
                          "'functions.min_share' must be a number in [0, 1]");
        pg_expect_invalid("{\"source\": \"c\", \"items\": {\"f\": {\"counts\": {\"a\": 1}}, "
                          "\"g\": {\"counts\": {\"b\": 1}}}}",
                          "is missing");
        pg_expect_invalid("{\"source\": \"c\", \"items\": {\"f\": {\"counts\": {\"a\": 1}}, "
                          "\"g\": {\"counts\": {\"a\": 1, \"b\": 2}}}}",
                          "must have the same counters for every function");
        pg_expect_invalid("{\"source\": \"c\", \"items\": {\"f\": {\"counts\": {\"a\": -1}}}}",
                          "must be a non-negative integer");
        pg_expect_invalid("{\"source\": \"c\", \"items\": {\"f\": {}}}",
                          "'functions.items.counts' must be an object");
}

static void test_simulate_rules_deterministic(void **state)
{
        struct pg_rules rules;
        struct pg_metric_rule rule;
        struct pg_metric b = { 0 }, h = { 0 };
        struct pg_judgement j;
        double bv = 1000000, hv = 1006000; /* +0.6% */
        (void) state;

        pg_rules_init(&rules);
        pg_rules_get_simulated(&rules, "x", "instructions", &rule);
        assert_true(rule.deterministic);
        assert_true(rule.gate);
        assert_true(rule.threshold < 0.01);
        pg_rules_get_simulated(&rules, "x", "branch-miss-rate", &rule);
        assert_true(rule.gate);
        pg_rules_get_simulated(&rules, "x", "task-clock", &rule); /* not simulated: usual rule */
        assert_false(rule.deterministic);
        assert_string_equal(pg_metric_cause_counter("branch-miss-rate"), "branch-misses");
        assert_string_equal(pg_metric_cause_counter("LLC-miss-rate"), "LLC-load-misses");
        assert_null(pg_metric_cause_counter("task-clock"));

        /* one value a side: beyond the threshold is a regression, no test */
        pg_rules_get_simulated(&rules, "x", "instructions", &rule);
        b.name = h.name = (char *) "instructions";
        b.unit = h.unit = (char *) "count";
        b.nvalues = h.nvalues = 1;
        b.values = &bv;
        h.values = &hv;
        pg_judge_metric("instructions", &b, &h, &rule, NULL, false, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_REGRESSION);
        assert_false(j.has_p);
        pg_judgement_release(&j);
        hv = 1004000; /* +0.4%: within the threshold */
        pg_judge_metric("instructions", &b, &h, &rule, NULL, false, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        pg_judgement_release(&j);
        /* the same values under the measured rule: one value a side proves nothing */
        hv = 1100000;
        pg_rules_get(&rules, "x", "instructions", &rule);
        pg_judge_metric("instructions", &b, &h, &rule, NULL, false, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        pg_judgement_release(&j);
        pg_rules_release(&rules);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_simulate_merge_and_fold),
                cmocka_unit_test(test_simulate_functions_validation),
                cmocka_unit_test(test_simulate_rules_deterministic),
                cmocka_unit_test(test_simulate_valgrind_missing),
                cmocka_unit_test(test_simulate_truncated_cachegrind_file),
                cmocka_unit_test(test_simulate_garbage_cachegrind_file),
                cmocka_unit_test(test_simulate_run_records_counters_and_functions),
                cmocka_unit_test(test_simulate_aa_identical_counts),
                cmocka_unit_test(test_simulate_one_percent_more_instructions_is_caught),
                cmocka_unit_test(test_simulate_never_compared_with_measured),
                cmocka_unit_test(test_simulate_unsupported_instruction),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
