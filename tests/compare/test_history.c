/*
 * test_history.c - change points (compare/changepoint.h), the history of a
 * branch read from a real git repository (baselines/history.h), its trends
 * and JSON (compare/trends.h), the static site and `perfgate history`.
 *
 * Repositories are built in the sandbox by tests/util/history-repo.sh with
 * git fast-import: main with N first-parent commits, and a data branch with
 * a baseline of every commit; `git rev-list` is the oracle for the order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "baselines/history.h"
#include "common/buf.h"
#include "common/error.h"
#include "compare/changepoint.h"
#include "compare/history_html.h"
#include "compare/trends.h"
#include "tests/util/testutil.h"

/* ---- deterministic noise ------------------------------------------------ */

static uint64_t rng_state;

static double rng_uniform(void)
{
        /* splitmix64 */
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return ((double) (z >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_gauss(void)
{
        return sqrt(-2 * log(rng_uniform())) * cos(2 * M_PI * rng_uniform());
}

/* @n values around 100 with relative noise @noise, x (1 + @step) from @at on. */
static void series(double *x, size_t n, double noise, size_t at, double step, uint64_t seed)
{
        rng_state = seed;
        for (size_t i = 0; i < n; i++)
                x[i] = 100 * (i >= at ? 1 + step : 1) * (1 + noise * rng_gauss());
}

/* ---- change points ------------------------------------------------------ */

/* Q(tau) by the definition in changepoint.h, term by term. */
static double q_direct(const double *x, size_t n, size_t t)
{
        double m = (double) t, k = (double) (n - t), between = 0, wl = 0, wr = 0;
        for (size_t i = 0; i < t; i++)
                for (size_t j = t; j < n; j++)
                        between += fabs(x[i] - x[j]);
        for (size_t i = 0; i < t; i++)
                for (size_t j = i + 1; j < t; j++)
                        wl += fabs(x[i] - x[j]);
        for (size_t i = t; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        wr += fabs(x[i] - x[j]);
        return m * k / (m + k) *
               (2 * between / (m * k) - wl / (m * (m - 1) / 2) - wr / (k * (k - 1) / 2));
}

static void test_changepoint_q_matches_the_definition(void **state)
{
        double x[23], q[23];
        (void) state;
        series(x, 23, 0.05, 11, 0.1, 7);
        pg_cp_edivisive_q(x, 23, 3, q);
        for (size_t t = 0; t < 23; t++) {
                if (t < 3 || t > 20)
                        assert_true(q[t] == 0);
                else
                        assert_true(fabs(q[t] - q_direct(x, 23, t)) <=
                                    1e-9 * fabs(q_direct(x, 23, t)) + 1e-9);
        }
}

/* A +4% step at the 35th of 60 values (index 34), with relative noise 0.5%
 * per value (what the median of 5 repetitions with 1% noise each has):
 * found once, exactly there. With 1% per value (a 4-sigma step) a neighbour
 * of the boundary can look like the other side: still found once, within
 * one commit. */
static void test_changepoint_step_found_once_at_its_commit(void **state)
{
        double x[60];
        struct pg_changepoint *cp;
        size_t n;
        (void) state;
        for (uint64_t seed = 1; seed <= 20; seed++) {
                series(x, 60, 0.005, 34, 0.04, seed);
                assert_int_equal(pg_changepoints_find(x, 60, NULL, &cp, &n), 0);
                assert_int_equal(n, 1);
                assert_int_equal(cp[0].index, 34);
                assert_true(cp[0].effect > 0.03 && cp[0].effect < 0.05);
                assert_true(cp[0].p_value < PG_CP_DEFAULT_ALPHA);
                free(cp);
                series(x, 60, 0.01, 34, 0.04, seed);
                assert_int_equal(pg_changepoints_find(x, 60, NULL, &cp, &n), 0);
                assert_int_equal(n, 1);
                assert_true(cp[0].index >= 33 && cp[0].index <= 35);
                free(cp);
        }
}

static void test_changepoint_aa_noise_gives_none(void **state)
{
        double x[200];
        struct pg_changepoint *cp;
        size_t n;
        (void) state;
        /* noise only, at several lengths and noise levels; min_effect 0 so
         * only the significance test stands between noise and a change */
        struct pg_cp_opts o;
        pg_cp_opts_init(&o);
        o.min_effect = 0;
        for (uint64_t seed = 100; seed < 150; seed++) {
                size_t len = 20 + (size_t) (seed % 4) * 60;
                series(x, len, 0.002 + 0.01 * (double) (seed % 3), 0, 0, seed);
                assert_int_equal(pg_changepoints_find(x, len, &o, &cp, &n), 0);
                if (n)
                        fail_msg("seed %llu: %zu change points, first at %zu (p %g)",
                                 (unsigned long long) seed, n, cp[0].index, cp[0].p_value);
                assert_null(cp);
        }
}

static void test_changepoint_two_steps_and_min_effect(void **state)
{
        double x[90];
        struct pg_changepoint *cp;
        size_t n;
        struct pg_cp_opts o;
        (void) state;
        series(x, 90, 0.005, 30, 0.05, 3);
        for (size_t i = 60; i < 90; i++)
                x[i] *= 0.9; /* back down, 10% below the middle */
        assert_int_equal(pg_changepoints_find(x, 90, NULL, &cp, &n), 0);
        assert_int_equal(n, 2);
        assert_int_equal(cp[0].index, 30);
        assert_int_equal(cp[1].index, 60);
        assert_true(cp[0].effect > 0 && cp[1].effect < 0);
        free(cp);
        /* a 2% step is significant but below a 3% floor */
        series(x, 90, 0.002, 45, 0.02, 4);
        pg_cp_opts_init(&o);
        o.min_effect = 0.03;
        assert_int_equal(pg_changepoints_find(x, 90, &o, &cp, &n), 0);
        assert_int_equal(n, 0);
        o.min_effect = 0.01;
        assert_int_equal(pg_changepoints_find(x, 90, &o, &cp, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(cp[0].index, 45);
        free(cp);
}

static void test_changepoint_refuses_bad_input(void **state)
{
        double x[10] = { 1, 2, 3, 4, NAN, 6, 7, 8, 9, 10 };
        struct pg_changepoint *cp;
        size_t n;
        struct pg_cp_opts o;
        (void) state;
        assert_int_equal(pg_changepoints_find(x, 10, NULL, &cp, &n), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "not finite"));
        pg_cp_opts_init(&o);
        o.min_size = 1;
        x[4] = 5;
        assert_int_equal(pg_changepoints_find(x, 10, &o, &cp, &n), PG_EINPUT);
        /* too short to split: no change, no error */
        assert_int_equal(pg_changepoints_find(x, 5, NULL, &cp, &n), 0);
        assert_int_equal(n, 0);
}

/* ---- repositories ------------------------------------------------------- */

static void make_repo(const char *dir, int commits, int benchmarks, int step_at, double pct)
{
        struct pg_run_out o;
        char *script = pg_xasprintf("%s/tests/util/history-repo.sh", pg_test_env("PG_SOURCE_DIR"));
        char nc[16], nb[16], st[16], pc[32];
        snprintf(nc, sizeof(nc), "%d", commits);
        snprintf(nb, sizeof(nb), "%d", benchmarks);
        snprintf(st, sizeof(st), "%d", step_at);
        snprintf(pc, sizeof(pc), "%g", pct);
        char *argv[] = { "sh", script, (char *) dir, nc, nb, st, pc, "1", "42", NULL };
        if (pg_test_run(&o, NULL, argv) != 0)
                fail_msg("history-repo.sh: %s", o.err.ptr);
        pg_run_out_release(&o);
        free(script);
}

/* `git -C @dir rev-parse @rev` */
static char *git_rev(const char *dir, const char *rev)
{
        struct pg_run_out o;
        char *argv[] = { "git", "-C", (char *) dir, "rev-parse", (char *) rev, NULL };
        char *s;
        assert_int_equal(pg_test_run(&o, NULL, argv), 0);
        s = pg_xstrndup(o.out.ptr, 40);
        pg_run_out_release(&o);
        return s;
}

static int git_in(const char *dir, const char *const *args)
{
        struct pg_run_out o;
        char *argv[16] = {
                "git", "-C", (char *) dir, "-c", "user.name=T", "-c", "user.email=t@example.com"
        };
        size_t n = 7;
        int rc;
        for (size_t i = 0; args[i]; i++)
                argv[n++] = (char *) args[i];
        argv[n] = NULL;
        rc = pg_test_run(&o, NULL, argv);
        if (rc)
                print_error("git: %s\n", o.err.ptr);
        pg_run_out_release(&o);
        return rc;
}

static void test_history_step_in_a_real_repository(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb);
        struct pg_store_opts so = { NULL, NULL, NULL };
        struct pg_history h;
        struct pg_trends t;
        char *c35, *first;
        size_t total = 0;
        (void) state;

        make_repo(repo, 60, 5, 35, 4);
        so.repo_path = repo;
        assert_int_equal(pg_history_load(&so, NULL, 0, &h), 0);
        assert_int_equal(h.n, 60);
        assert_int_equal(h.walked, 60);
        assert_int_equal(h.off_line, 0);
        assert_string_equal(h.source_ref, "perfgate-baselines");
        /* oldest first, along the first parents */
        first = git_rev(repo, "main~59");
        assert_string_equal(h.points[0].commit, first);
        assert_string_equal(h.points[0].subject, "change 1");
        assert_int_equal(h.points[0].results.n, 5);
        c35 = git_rev(repo, "main~25"); /* the 35th of 60 commits */
        assert_string_equal(h.points[34].commit, c35);

        assert_int_equal(pg_trends_build(&t, &h, NULL), 0);
        assert_int_equal(t.nbench, 5);
        for (size_t b = 0; b < t.nbench; b++) {
                assert_int_equal(t.bench[b].nseries, 1);
                assert_string_equal(t.bench[b].series[0].metric, "task-clock");
                total += t.bench[b].series[0].ncp;
        }
        assert_int_equal(total, 1); /* exactly one change point in all series */
        assert_string_equal(t.bench[0].name, "bench00");
        assert_int_equal(t.bench[0].series[0].ncp, 1);
        assert_int_equal(t.bench[0].series[0].points[t.bench[0].series[0].cps[0].index].commit, 34);
        assert_true(t.bench[0].series[0].cps[0].effect > 0.03);
        assert_true(t.bench[0].series[0].trend > 0.03);
        /* the function that took the extra time leads the hotspots */
        assert_true(t.bench[0].nfunctions >= 3);
        assert_string_equal(t.bench[0].functions[0].name, "parse");
        {
                const struct pg_function_share *work = NULL;
                for (size_t f = 0; f < t.bench[0].nfunctions; f++)
                        if (strcmp(t.bench[0].functions[f].name, "work") == 0)
                                work = &t.bench[0].functions[f];
                assert_non_null(work);
                assert_true(work->share[59] > work->share[0] + 0.05);
        }
        pg_trends_release(&t);
        pg_history_release(&h);

        /* from main~5: the five newest are not on that line */
        assert_int_equal(pg_history_load(&so, "main~5", 0, &h), 0);
        assert_int_equal(h.n, 55);
        assert_int_equal(h.off_line, 5);
        pg_history_release(&h);
        assert_int_equal(pg_history_load(&so, "main", 10, &h), 0);
        assert_int_equal(h.n, 10);
        assert_true(h.limit_reached);
        {
                char *tip = git_rev(repo, "main");
                assert_string_equal(h.points[9].commit, tip);
                free(tip);
        }
        pg_history_release(&h);
        free(first);
        free(c35);
        free(repo);
        pg_test_sandbox_remove();
}

static void test_history_aa_repository_has_no_change_point(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb);
        struct pg_store_opts so = { repo, NULL, NULL };
        struct pg_history h;
        struct pg_trends t;
        (void) state;
        make_repo(repo, 60, 8, 0, 0);
        assert_int_equal(pg_history_load(&so, NULL, 0, &h), 0);
        assert_int_equal(pg_trends_build(&t, &h, NULL), 0);
        assert_int_equal(t.nbench, 8);
        for (size_t b = 0; b < t.nbench; b++)
                assert_int_equal(t.bench[b].series[0].ncp, 0);
        pg_trends_release(&t);
        pg_history_release(&h);
        free(repo);
        pg_test_sandbox_remove();
}

static void test_history_follows_first_parents_across_a_merge(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb);
        struct pg_store_opts so = { repo, NULL, NULL };
        struct pg_history h;
        const char *const side[] = { "checkout", "-q", "-b", "side", "main~2", NULL };
        const char *const commit[] = { "commit", "-q", "--allow-empty", "-m", "side work", NULL };
        const char *const back[] = { "checkout", "-q", "main", NULL };
        const char *const merge[] = { "merge", "-q", "--no-ff", "-m", "merge side", "side", NULL };
        (void) state;
        make_repo(repo, 12, 1, 0, 0);
        assert_int_equal(
            git_in(repo, (const char *const[]){ "checkout", "-q", "-f", "main", NULL }), 0);
        assert_int_equal(git_in(repo, side), 0);
        assert_int_equal(git_in(repo, commit), 0);
        assert_int_equal(git_in(repo, back), 0);
        assert_int_equal(git_in(repo, merge), 0);
        assert_int_equal(pg_history_load(&so, NULL, 0, &h), 0);
        assert_int_equal(h.walked, 13); /* the merge and the 12 commits, not the side one */
        assert_int_equal(h.n, 12);
        {
                char *first_parent = git_rev(repo, "main^1");
                assert_string_equal(h.points[11].commit, first_parent);
                free(first_parent);
        }
        pg_history_release(&h);
        free(repo);
        pg_test_sandbox_remove();
}

/* ---- the command -------------------------------------------------------- */

static void test_history_cli_text_json_and_site(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb), *c35, *site, *json, *page, *text, *diff;
        struct pg_run_out o;
        cJSON *root, *b0, *cps;
        (void) state;
        make_repo(repo, 60, 3, 35, 4);
        assert_int_equal(chdir(repo), 0);
        c35 = git_rev(repo, "main~25");
        site = pg_xasprintf("%s/site", sb);
        json = pg_xasprintf("%s/h.json", sb);
        assert_int_equal(pg_test_perfgate(&o, "history", "--html", site, "--json", json, NULL), 0);
        /* one line per benchmark and metric */
        assert_non_null(strstr(o.out.ptr, "60 commits with baselines"));
        {
                char *want = pg_xasprintf("%.12s +", c35);
                char *line = strstr(o.out.ptr, "\nbench00 ");
                assert_non_null(line);
                assert_non_null(strstr(line, want));
                assert_non_null(strstr(line, "(commit 35 of 60)"));
                assert_non_null(strstr(strstr(o.out.ptr, "\nbench01 "), "none"));
                free(want);
        }
        pg_run_out_release(&o);

        text = pg_test_read(json);
        root = cJSON_Parse(text);
        assert_non_null(root);
        assert_string_equal(cJSON_GetObjectItem(root, "schema")->valuestring, "perfgate/history/1");
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "commits")), 60);
        b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0);
        assert_string_equal(cJSON_GetObjectItem(b0, "page")->valuestring, "bench00.html");
        cps = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b0, "series"), 0),
                                  "change_points");
        assert_int_equal(cJSON_GetArraySize(cps), 1);
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cps, 0), "commit")->valuestring,
                            c35);
        assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cps, 0), "index")->valueint, 34);
        diff = pg_xasprintf(
            "%s/%s", site,
            cJSON_GetObjectItem(cJSON_GetArrayItem(cps, 0), "diff_flamegraph")->valuestring);
        assert_true(pg_test_exists(diff));
        cJSON_Delete(root);
        free(text);

        /* the site: index, pages, a flame graph per commit, the marker */
        page = pg_xasprintf("%s/bench00.html", site);
        text = pg_test_read(page);
        assert_non_null(strstr(text, "data-metric=\"task-clock\""));
        assert_null(strstr(text, "src=")); /* no external asset */
        assert_null(strstr(text, "href=\"http"));
        assert_null(strstr(text, "<script"));
        free(text);
        free(page);
        page = pg_xasprintf("%s/flame/bench00.%.12s.svg", site, c35);
        assert_true(pg_test_exists(page));
        free(page);
        page = pg_xasprintf("%s/.perfgate-history", site);
        assert_true(pg_test_exists(page));
        free(page);
        /* a second run replaces the site */
        assert_int_equal(
            pg_test_perfgate(&o, "history", "--html", site, "--flamegraphs", "5", NULL), 0);
        pg_run_out_release(&o);
        {
                /* older than the newest 5: only the commits at and before the
                 * change point keep theirs */
                char *c34 = git_rev(repo, "main~26"), *c10 = git_rev(repo, "main~50");
                char *tip = git_rev(repo, "main");
                page = pg_xasprintf("%s/flame/bench00.%.12s.svg", site, c35);
                assert_true(pg_test_exists(page));
                free(page);
                page = pg_xasprintf("%s/flame/bench00.%.12s.svg", site, c34);
                assert_true(pg_test_exists(page));
                free(page);
                page = pg_xasprintf("%s/flame/bench00.%.12s.svg", site, c10);
                assert_false(pg_test_exists(page));
                free(page);
                page = pg_xasprintf("%s/flame/bench01.%.12s.svg", site, c35);
                assert_false(pg_test_exists(page)); /* no change point in bench01 */
                free(page);
                page = pg_xasprintf("%s/flame/bench01.%.12s.svg", site, tip);
                assert_true(pg_test_exists(page));
                free(page);
                free(c34);
                free(c10);
                free(tip);
        }
        free(diff);
        free(site);
        free(json);
        free(c35);
        free(repo);
        pg_test_sandbox_remove();
}

/* A finite 1.7e308 ns in one baseline: the chart's scale must not overflow
 * (it turned every point of the benchmark's chart into NaN). */
static void test_history_site_survives_huge_values(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb), *site = pg_xasprintf("%s/site", sb), *page;
        char *script = pg_xasprintf("%s/tests/util/history-repo.sh", pg_test_env("PG_SOURCE_DIR"));
        char *argv[] = { "sh", script, repo, "12", "2", "0", "0", "1", "7", "3", NULL };
        struct pg_run_out o;
        (void) state;

        if (pg_test_run(&o, NULL, argv) != 0)
                fail_msg("history-repo.sh: %s", o.err.ptr);
        pg_run_out_release(&o);
        assert_int_equal(chdir(repo), 0);
        assert_int_equal(pg_test_perfgate(&o, "history", "--html", site, NULL), 0);
        pg_run_out_release(&o);
        page = pg_xasprintf("%s/bench01.html", site);
        {
                char *text = pg_test_read(page);
                assert_non_null(strstr(text, "data-v=\"1.6999999999999999e+308\""));
                if (strstr(text, "nan") || strstr(text, "inf\""))
                        fail_msg("a NaN or infinite coordinate in %s", page);
                free(text);
        }
        free(page);
        free(script);
        free(site);
        free(repo);
        pg_test_sandbox_remove();
}

static void test_history_cli_errors(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb), *other, *keep, *link;
        struct pg_run_out o;
        (void) state;

        /* not a repository */
        assert_int_equal(pg_test_perfgate(&o, "history", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "not a git repository"));
        pg_run_out_release(&o);
        make_repo(repo, 8, 1, 0, 0);
        assert_int_equal(chdir(repo), 0);
        assert_int_equal(pg_test_perfgate(&o, "history", "--branch", "nope", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "unknown revision 'nope'"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "history", "--alpha", "2", NULL), 2);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "history", "--min-effect", "x", NULL), 2);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "history", "stray", NULL), 2);
        pg_run_out_release(&o);
        /* a directory with other content is never replaced */
        other = pg_xasprintf("%s/mine", sb);
        keep = pg_xasprintf("%s/mine/keep.txt", sb);
        assert_int_equal(mkdir(other, 0755), 0);
        pg_test_write(keep, "mine\n");
        assert_int_equal(pg_test_perfgate(&o, "history", "--html", other, NULL), 2);
        assert_non_null(strstr(o.err.ptr, "not empty"));
        assert_true(pg_test_exists(keep));
        pg_run_out_release(&o);
        /* nor written through a symlink */
        link = pg_xasprintf("%s/link", sb);
        assert_int_equal(symlink(other, link), 0);
        assert_int_equal(pg_test_perfgate(&o, "history", "--html", link, NULL), 2);
        assert_non_null(strstr(o.err.ptr, "symbolic link"));
        pg_run_out_release(&o);
        /* no data branch: a warning, exit 0 */
        assert_int_equal(pg_test_perfgate(&o, "history", "--data-branch", "none", NULL), 0);
        assert_non_null(strstr(o.err.ptr, "no baselines yet"));
        pg_run_out_release(&o);
        free(link);
        free(keep);
        free(other);
        free(repo);
        pg_test_sandbox_remove();
}

/* perfgate.json: its "base" is the default branch and its "compare" rules
 * choose the metrics, as for `perfgate compare` */
static void test_history_cli_reads_the_config(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb), *cfg;
        struct pg_run_out o;
        (void) state;
        make_repo(repo, 20, 2, 0, 0);
        assert_int_equal(chdir(repo), 0);
        cfg = pg_xasprintf("%s/perfgate.json", repo);
        pg_test_write(cfg, "{\"base\": \"main~5\", \"compare\": {\"metrics\": {\"task-clock\": "
                           "{\"gate\": false}}}}\n");
        assert_int_equal(pg_test_perfgate(&o, "history", NULL), 0);
        assert_non_null(strstr(o.out.ptr, "history of main~5 "));
        assert_non_null(strstr(o.out.ptr, "15 commits with baselines"));
        assert_non_null(strstr(o.out.ptr, "bench00    (no gating metric counted)"));
        pg_run_out_release(&o);
        assert_int_equal(
            pg_test_perfgate(&o, "history", "--metric", "task-clock", "--branch", "main", NULL), 0);
        assert_non_null(strstr(o.out.ptr, "20 commits with baselines"));
        assert_non_null(strstr(o.out.ptr, "\nbench00    task-clock"));
        pg_run_out_release(&o);
        pg_test_write(cfg, "{\"compare\": {\"gate\": \"task-clock\"}}\n");
        assert_int_equal(pg_test_perfgate(&o, "history", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "gate"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "history", "--config", "missing.json", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "config 'missing.json' does not exist"));
        pg_run_out_release(&o);
        free(cfg);
        free(repo);
        pg_test_sandbox_remove();
}

/* compare --history-url: each benchmark of the comment links to its page */
static void test_history_compare_links_to_the_page(void **state)
{
        const char *sb = pg_test_sandbox();
        char *base =
            pg_xasprintf("%s/tests/golden/compare/cases/26/base", pg_test_env("PG_SOURCE_DIR"));
        char *head =
            pg_xasprintf("%s/tests/golden/compare/cases/26/head", pg_test_env("PG_SOURCE_DIR"));
        char *md = pg_xasprintf("%s/c.md", sb), *text;
        struct pg_run_out o;
        (void) state;
        pg_test_perfgate(&o, "compare", base, "--results", head, "--markdown", md, "--history-url",
                         "https://example.com/perf/", NULL);
        assert_true(o.status == 0 || o.status == 1);
        pg_run_out_release(&o);
        text = pg_test_read(md);
        assert_non_null(strstr(text, "<a href=\"https://example.com/perf/tiny_5fkernel.html\">"
                                     "history</a>"));
        free(text);
        pg_test_perfgate(&o, "compare", base, "--results", head, "--markdown", md, NULL);
        pg_run_out_release(&o);
        text = pg_test_read(md);
        assert_null(strstr(text, ">history</a>"));
        free(text);
        free(md);
        free(head);
        free(base);
        pg_test_sandbox_remove();
}

static void test_history_page_names(void **state)
{
        struct pg_buf b = PG_BUF_INIT;
        (void) state;
        pg_trends_page_name(&b, "word freq_2/x");
        assert_string_equal(b.ptr, "word_20freq_5f2_2fx.html");
        pg_buf_release(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_changepoint_q_matches_the_definition),
                cmocka_unit_test(test_changepoint_step_found_once_at_its_commit),
                cmocka_unit_test(test_changepoint_aa_noise_gives_none),
                cmocka_unit_test(test_changepoint_two_steps_and_min_effect),
                cmocka_unit_test(test_changepoint_refuses_bad_input),
                cmocka_unit_test(test_history_step_in_a_real_repository),
                cmocka_unit_test(test_history_aa_repository_has_no_change_point),
                cmocka_unit_test(test_history_follows_first_parents_across_a_merge),
                cmocka_unit_test(test_history_cli_text_json_and_site),
                cmocka_unit_test(test_history_cli_errors),
                cmocka_unit_test(test_history_site_survives_huge_values),
                cmocka_unit_test(test_history_cli_reads_the_config),
                cmocka_unit_test(test_history_compare_links_to_the_page),
                cmocka_unit_test(test_history_page_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
