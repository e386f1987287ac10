/*
 * test_hotspot_runs.c - the hotspot test against run-to-run variation,
 * under real perf events. tests/fixtures/hotspot/split.c shares a fixed
 * amount of work between alpha() and beta(); in "noise" mode each run
 * gives alpha a random 20-80% of it, so the code is unchanged but the
 * self shares move from run to run (as heap growth or a harness's own
 * iteration count move them). Pooling every run's samples as independent
 * draws made such A/A comparisons fail the hotspot gate (p ~ 1e-10 for a
 * few pp); `run` now stores each sampling run's self counts (run_samples,
 * run_self) and `compare` scales the test by their variation
 * (pg_stats_two_proportion_runs()). Asserted: over four A/A comparisons
 * of the noisy program at most one flags a hotspot (the rate the test
 * allows, below) and the others pass the gate; alpha doing twice the work
 * in every run is still a regressed hotspot that fails the build (exit 1),
 * judged by the per-run test.
 * Judged on verdicts and shapes, never on speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

#define PG_AA_HEADS 4 /* A/A comparisons of the noisy program */

static const char *pg_sb;

/* perfgate run of `split ARG...` into @dir/res (config @dir/perfgate.json,
 * which gates on hotspots). */
static void pg_run_split(const char *dir, const char *args)
{
        char *cfg =
            pg_xasprintf("{\"compare\": {\"hotspots\": {\"gate\": true}},\n"
                         " \"benchmarks\": [{\"name\": \"split\", \"argv\": [\"%s\", %s]}]}\n",
                         pg_test_fixture("hotspot_split"), args);
        char *res = pg_xasprintf("%s/res", dir), *path = pg_path_join(dir, "perfgate.json");
        struct pg_run_out o;

        assert_int_equal(pg_mkdir_p(dir), 0);
        pg_test_write(path, cfg);
        pg_test_perfgate(&o, "run", "-q", "--repeat", "3", "--warmup", "0", "--min-samples", "1000",
                         "--out", res, path, NULL);
        if (o.status != 0)
                fail_msg("run %s: exit %d: %s", dir, o.status, o.err.ptr);
        pg_run_out_release(&o);
        free(path);
        free(res);
        free(cfg);
}

/* The stored profile has one self count per sampling run, adding up. */
static void pg_assert_runs_stored(const char *dir)
{
        char *path = pg_xasprintf("%s/res/split.json", dir);
        struct pg_result r;
        uint64_t sum = 0;

        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, path), 0);
        assert_true(r.profile.present);
        assert_true(r.profile.runs >= 2);
        assert_non_null(r.profile.run_samples);
        for (uint64_t j = 0; j < r.profile.runs; j++)
                sum += r.profile.run_samples[j];
        assert_int_equal(sum, r.profile.samples);
        assert_true(r.profile.nrun_self >= 2);
        pg_result_release(&r);
        free(path);
}

/* compare @head against @base (their res/), the JSON report parsed; the
 * exit status in *@status. */
static cJSON *pg_compare_split(const char *base, const char *head, int *status)
{
        char *bres = pg_xasprintf("%s/res", base), *hres = pg_xasprintf("%s/res", head);
        char *cfg = pg_path_join(head, "perfgate.json");
        char *json = pg_xasprintf("%s/compare.json", head);
        struct pg_run_out o;
        cJSON *doc;
        char *text;

        pg_test_perfgate(&o, "compare", bres, "--results", hres, "--config", cfg, "--json", json,
                         NULL);
        *status = o.status;
        text = pg_test_read(json);
        doc = cJSON_Parse(text);
        if (!doc)
                fail_msg("compare wrote no JSON: exit %d: %s%s", o.status, o.out.ptr, o.err.ptr);
        pg_run_out_release(&o);
        free(text);
        free(json);
        free(cfg);
        free(hres);
        free(bres);
        return doc;
}

static const cJSON *pg_split_hotspots(const cJSON *doc)
{
        const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "benchmarks"), 0);
        const cJSON *h = cJSON_GetObjectItem(b, "hotspots");

        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(h, "judged")));
        return cJSON_GetObjectItem(h, "functions");
}

/* The per-run test takes z/sqrt(phi) against the normal, phi treated as
 * known (pg_stats_two_proportion_runs()): with the 6 to 14 degrees of
 * freedom these runs give, an unchanged wandering function crosses alpha
 * 0.001 with the t tail's probability, 0.5% to 1.7% a comparison (3% at 4
 * degrees of freedom, a run cut short by the 20 s sampling limit on a
 * loaded machine). So one comparison of the four may flag alpha or beta;
 * two would happen about twice in 1000 test runs at 6 degrees of freedom.
 * The pooled test flagged 4 of 8 such pairs (p down to 3e-15). */
static void test_aa_noise_never_gates(void **state)
{
        char *base = pg_path_join(pg_sb, "aa-base");
        int flagged = 0;
        (void) state;

        pg_run_split(base, "\"noise\"");
        pg_assert_runs_stored(base);
        for (int i = 0; i < PG_AA_HEADS; i++) {
                char *head = pg_xasprintf("%s/aa-head%d", pg_sb, i);
                const cJSON *f;
                cJSON *doc;
                int status, here = 0;

                pg_run_split(head, "\"noise\"");
                doc = pg_compare_split(base, head, &status);
                cJSON_ArrayForEach(f, pg_split_hotspots(doc))
                {
                        const char *kind = cJSON_GetObjectItem(f, "kind")->valuestring;
                        if (strcmp(kind, "regressed") == 0 || strcmp(kind, "improved") == 0) {
                                print_message("A/A %d: unchanged '%s' %s (%+.2f pp, p = %g)\n", i,
                                              cJSON_GetObjectItem(f, "function")->valuestring, kind,
                                              cJSON_GetObjectItem(f, "delta_self_pp")->valuedouble,
                                              cJSON_GetObjectItem(f, "p_value")->valuedouble);
                                here = 1;
                        }
                }
                /* the gate, task-clock included (it is the same work) */
                if (!here)
                        assert_int_equal(status, 0);
                flagged += here;
                cJSON_Delete(doc);
                free(head);
        }
        if (flagged > 1)
                fail_msg("%d of %d A/A comparisons flagged a hotspot of unchanged code", flagged,
                         PG_AA_HEADS);
        free(base);
}

static void test_real_regression_caught(void **state)
{
        char *base = pg_path_join(pg_sb, "rg-base"), *head = pg_path_join(pg_sb, "rg-head");
        const cJSON *f, *alpha = NULL;
        cJSON *doc;
        int status;
        (void) state;

        pg_run_split(base, "\"fixed\", \"1\"");
        pg_run_split(head, "\"fixed\", \"2\"");
        doc = pg_compare_split(base, head, &status);
        cJSON_ArrayForEach(f, pg_split_hotspots(doc))
        {
                if (strcmp(cJSON_GetObjectItem(f, "function")->valuestring, "alpha") == 0)
                        alpha = f;
        }
        if (!alpha)
                fail_msg("alpha (50%% -> 67%% of the work) is not listed");
        assert_string_equal(cJSON_GetObjectItem(alpha, "kind")->valuestring, "regressed");
        /* judged by the per-run test: both sides stored their runs */
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(alpha, "dispersion")));
        assert_true(cJSON_GetObjectItem(alpha, "dispersion")->valuedouble >= 1);
        assert_true(cJSON_GetObjectItem(alpha, "dispersion_df")->valuedouble >= 1);
        assert_int_equal(status, 1);
        cJSON_Delete(doc);
        free(head);
        free(base);
}

static int pg_setup(void **state)
{
        (void) state;
        pg_sb = pg_test_sandbox();
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_real_regression_caught),
                cmocka_unit_test(test_aa_noise_never_gates),
        };
        return cmocka_run_group_tests(tests, pg_setup, NULL);
}
