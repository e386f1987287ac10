/*
 * test_roi.c - region-of-interest markers end to end: `perfgate run` on a
 * real benchmark (tests/fixtures/roi/roi_work.c, include/perfgate.h) under
 * real perf events. Counts are judged against the benchmark's own CPU
 * accounting (CLOCK_PROCESS_CPUTIME_ID around its region), in generous
 * bands, never against wall-clock thresholds: task-clock covers the region
 * and not the 1 s setup, also across a thread started before the region;
 * the profile holds the region's frames and none of the setup's; a
 * benchmark that exits inside the region, or disables and never enables
 * again, is counted up to that point with a warning; "roi": true without
 * any 'enable' fails with exit 3; the same works for an unprivileged user.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/paired.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

#define PG_REPS 3

static const char *pg_sb; /* the sandbox of the running test */

/* Write perfgate.json for roi_work in @mode (@prog: its path), "roi" as given. */
static void pg_write_bench(const char *prog, const char *mode, bool roi, const char *report)
{
        char *cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"roi\", \"argv\": [\"%s\", "
                                 "\"%s\", \"%s\"], \"roi\": %s}]}\n",
                                 prog, mode, report, roi ? "true" : "false");
        pg_test_write("bench/perfgate.json", cfg);
        free(cfg);
}

/* The first @n lines of the benchmark's report: region and setup CPU ns. */
static void pg_read_report(const char *path, size_t n, double *region, double *setup)
{
        char *text = pg_test_read(path), *p = text;
        for (size_t i = 0; i < n; i++) {
                unsigned long long r, s;
                if (sscanf(p, "%llu %llu", &r, &s) != 2)
                        fail_msg("report line %zu malformed in:\n%s", i + 1, text);
                region[i] = (double) r;
                setup[i] = (double) s;
                p = strchr(p, '\n');
                if (!p)
                        fail_msg("report has fewer than %zu lines:\n%s", n, text);
                p++;
        }
        free(text);
}

static void pg_load_roi(struct pg_result *r)
{
        pg_result_init(r);
        if (pg_result_load(r, ".perfgate/results/roi.json") != 0)
                fail_msg("cannot load the result");
}

/* Each repetition's task-clock is within [0.7 x want - 30 ms, 1.3 x want + 30 ms]. */
static void pg_assert_task_clock(const struct pg_result *r, const double *want, const char *what)
{
        const struct pg_metric *m = pg_result_find_metric(r, "task-clock");
        assert_non_null(m);
        assert_int_equal(m->nvalues, PG_REPS);
        for (size_t i = 0; i < PG_REPS; i++)
                if (!(m->values[i] > 0.7 * want[i] - 3e7 && m->values[i] < 1.3 * want[i] + 3e7))
                        fail_msg("repetition %zu: task-clock %.0f ns, but the %s took %.0f ns of "
                                 "CPU time",
                                 i + 1, m->values[i], what, want[i]);
}

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

/* Run roi_work @mode with "roi" = @roi, as uid 65534 when @as_nobody. */
static void pg_roi_run(struct pg_run_out *o, const char *prog, const char *mode, bool roi,
                       bool profile, bool as_nobody)
{
        char *report = pg_xasprintf("%s/report.txt", pg_sb);
        char *argv[24];
        size_t n = 0;

        assert_int_equal(pg_mkdir_p("bench"), 0);
        unlink(report);
        pg_write_bench(prog, mode, roi, report);
        argv[n++] = (char *) pg_test_env("PERFGATE_BIN");
        argv[n++] = "run";
        argv[n++] = "--repeat";
        argv[n++] = "3";
        argv[n++] = "--warmup";
        argv[n++] = "0";
        if (profile) {
                argv[n++] = "--min-samples";
                argv[n++] = "100";
        } else {
                argv[n++] = "--no-profile";
        }
        argv[n++] = "bench";
        argv[n] = NULL;
        if (as_nobody)
                pg_test_run_as_nobody(o, argv);
        else
                pg_test_run(o, NULL, argv);
        free(report);
}

static void test_roi_region_counts_and_profile(void **state)
{
        double region[PG_REPS], setup[PG_REPS];
        struct pg_run_out o;
        struct pg_result r;
        const struct pg_metric *share;
        bool work = false;
        (void) state;

        pg_sb = pg_test_sandbox();
        pg_roi_run(&o, pg_test_fixture("roi_work"), "region", true, true, false);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        assert_null(strstr(o.err.ptr, "region of interest"));
        pg_read_report("report.txt", PG_REPS, region, setup);
        pg_load_roi(&r);
        pg_assert_task_clock(&r, region, "region");
        /* the setup (about 3x the region) is outside */
        for (size_t i = 0; i < PG_REPS; i++)
                assert_true(setup[i] > 2.0 * region[i]);
        share = pg_result_find_metric(&r, "roi-share");
        assert_non_null(share);
        assert_string_equal(share->unit, "ratio");
        for (size_t i = 0; i < share->nvalues; i++)
                assert_true(share->values[i] > 0.0 && share->values[i] < 0.9);
        /* samples only in the region: its function, never the setup's or
         * the teardown's (main calls spin directly after the region) */
        assert_true(r.profile.present);
        assert_true(r.profile.samples > 0);
        for (size_t i = 0; i < r.profile.nstacks; i++) {
                const char *k = r.profile.stacks[i].frames;
                if (strstr(k, "setup_tables") || strstr(k, ";main;spin"))
                        fail_msg("a sample outside the region: %s", k);
                work |= strstr(k, "measured_work") != NULL;
        }
        assert_true(work);
        pg_result_release(&r);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_roi_without_markers_counts_everything(void **state)
{
        double region[PG_REPS], setup[PG_REPS], all[PG_REPS];
        struct pg_run_out o;
        struct pg_result r;
        (void) state;

        /* the control: the same band check fails the region when it is not one */
        pg_sb = pg_test_sandbox();
        pg_roi_run(&o, pg_test_fixture("roi_work"), "none", false, false, false);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_read_report("report.txt", PG_REPS, region, setup);
        for (size_t i = 0; i < PG_REPS; i++)
                all[i] = region[i] + setup[i];
        pg_load_roi(&r);
        pg_assert_task_clock(&r, all, "whole run");
        assert_null(pg_result_find_metric(&r, "roi-share")); /* no protocol used */
        pg_result_release(&r);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_roi_exit_inside_region_warns(void **state)
{
        double region[PG_REPS], setup[PG_REPS];
        struct pg_run_out o;
        struct pg_result r;
        (void) state;

        pg_sb = pg_test_sandbox();
        pg_roi_run(&o, pg_test_fixture("roi_work"), "no-end", true, false, false);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "exited inside its region of interest");
        pg_read_report("report.txt", PG_REPS, region, setup);
        pg_load_roi(&r);
        pg_assert_task_clock(&r, region, "region");
        pg_result_release(&r);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_roi_disable_never_enabled_warns(void **state)
{
        double region[PG_REPS], setup[PG_REPS];
        struct pg_run_out o;
        struct pg_result r;
        (void) state;

        /* no "roi": counting runs from exec to the 'disable' after the setup */
        pg_sb = pg_test_sandbox();
        pg_roi_run(&o, pg_test_fixture("roi_work"), "end-only", false, false, false);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "disabled counting and never enabled it again");
        pg_read_report("report.txt", PG_REPS, region, setup);
        pg_load_roi(&r);
        pg_assert_task_clock(&r, setup, "setup");
        assert_non_null(pg_result_find_metric(&r, "roi-share"));
        pg_result_release(&r);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_roi_never_enabled_fails(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_sb = pg_test_sandbox();
        pg_roi_run(&o, pg_test_fixture("roi_work"), "none", true, false, false);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "never completed an 'enable' command");
        pg_assert_has(o.err.ptr, "perfgate_roi_begin()");
        assert_false(pg_test_exists(".perfgate/results/roi.json"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_roi_paired_runs_count_the_region(void **state)
{
        char *report, *argv[4];
        struct pg_bench b;
        struct pg_paired_opts po;
        struct pg_paired p;
        double region[6], setup[6], lo = 1e18, hi = 0;
        (void) state;

        /* compare --confirm's paired runs measure what run measured */
        pg_sb = pg_test_sandbox();
        report = pg_xasprintf("%s/report.txt", pg_sb);
        argv[0] = (char *) pg_test_fixture("roi_work");
        argv[1] = "region";
        argv[2] = report;
        argv[3] = NULL;
        memset(&b, 0, sizeof(b));
        b.name = "roi";
        b.argc = 3;
        b.argv = argv;
        b.exec_path = argv[0];
        b.repeat = b.warmup = -1;
        b.timeout_sec = -1;
        b.roi = true;
        memset(&po, 0, sizeof(po));
        po.base = po.head = &b;
        po.timeout_ns = 120000000000ull;
        pg_paired_init(&p, &po);
        assert_int_equal(pg_paired_block(&p), 0);
        pg_read_report("report.txt", 6, region, setup); /* 2 warmups, then the block */
        for (size_t i = 0; i < 6; i++) {
                lo = region[i] < lo ? region[i] : lo;
                hi = region[i] > hi ? region[i] : hi;
        }
        for (size_t i = 0; i < p.n; i++) {
                const double v[2] = { p.pairs[i].base_ns, p.pairs[i].head_ns };
                for (int k = 0; k < 2; k++)
                        if (!(v[k] > 0.7 * lo - 3e7 && v[k] < 1.3 * hi + 3e7))
                                fail_msg("pair %zu: task-clock %.0f ns, the regions took %.0f to "
                                         "%.0f ns of CPU",
                                         i, v[k], lo, hi);
        }
        assert_true(p.n > 0 || p.ndiscarded > 0);
        pg_paired_release(&p);
        free(report);
        pg_test_sandbox_remove();
}

static void test_roi_config_must_be_bool(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_sb = pg_test_sandbox();
        pg_test_write("perfgate.json",
                      "{\"benchmarks\": [{\"argv\": [\"/bin/true\"], \"roi\": \"yes\"}]}\n");
        pg_test_perfgate(&o, "run", "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "benchmarks[0].roi must be true");
        assert_false(pg_test_exists(".perfgate/results/true.json"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_roi_unprivileged(void **state)
{
        double region[PG_REPS], setup[PG_REPS];
        struct pg_run_out o;
        struct pg_result r;
        char *prog;
        (void) state;

        if (!pg_test_can_be_nobody()) {
                skip(); /* needs root to drop to an unprivileged uid */
                return;
        }
        pg_sb = pg_test_sandbox();
        chmod(pg_sb, 0777);
        prog = pg_test_copy_program(pg_test_fixture("roi_work"), pg_sb);
        pg_roi_run(&o, prog, "region", true, true, true);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_read_report("report.txt", PG_REPS, region, setup);
        pg_load_roi(&r);
        pg_assert_task_clock(&r, region, "region");
        assert_true(r.profile.samples > 0);
        for (size_t i = 0; i < r.profile.nstacks; i++)
                if (strstr(r.profile.stacks[i].frames, "setup_tables"))
                        fail_msg("a sample outside the region: %s", r.profile.stacks[i].frames);
        pg_result_release(&r);
        free(prog);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_roi_region_counts_and_profile),
                cmocka_unit_test(test_roi_without_markers_counts_everything),
                cmocka_unit_test(test_roi_exit_inside_region_warns),
                cmocka_unit_test(test_roi_disable_never_enabled_warns),
                cmocka_unit_test(test_roi_never_enabled_fails),
                cmocka_unit_test(test_roi_paired_runs_count_the_region),
                cmocka_unit_test(test_roi_config_must_be_bool),
                cmocka_unit_test(test_roi_unprivileged),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
