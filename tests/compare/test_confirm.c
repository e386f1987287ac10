/*
 * test_confirm.c - the statistics of compare/confirm.h: the signed-rank
 * interval against the published critical values, the exact one-sided
 * p-value against brute-force enumeration of every sign pattern, Holm's
 * adjustment by hand, the error of the sequential looks under the null by
 * simulation, and the paired hotspot test on profiles built for the case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "compare/confirm.h"

static int cmp_d(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* Sorted Walsh averages of @d, computed here independently. */
static double *walsh(const double *d, size_t n, size_t *m)
{
        double *w = malloc(n * (n + 1) / 2 * sizeof(double));
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t j = i; j < n; j++)
                        w[k++] = (d[i] + d[j]) / 2;
        qsort(w, k, sizeof(double), cmp_d);
        *m = k;
        return w;
}

/* Two-sided 5% critical values of the signed-rank statistic (reject when
 * T <= t): n = 8..15 and 20, from the standard tables (Hollander & Wolfe,
 * table A.4; also Wilcoxon, Katti & Wilcox 1970). The interval is then
 * [W_(t+1), W_(M-t)]. */
static void test_confirm_hl_interval_matches_tables(void **state)
{
        static const struct {
                size_t n;
                size_t t;
        } crit[] = { { 8, 3 },   { 9, 5 },   { 10, 8 },  { 11, 10 }, { 12, 13 },
                     { 13, 17 }, { 14, 21 }, { 15, 25 }, { 20, 52 } };
        (void) state;
        for (size_t c = 0; c < sizeof(crit) / sizeof(crit[0]); c++) {
                size_t n = crit[c].n, m;
                double d[20], *w;
                struct pg_hl1 hl;
                for (size_t i = 0; i < n; i++)
                        d[i] = sin((double) (i + 1) * 1.7) + 0.01 * (double) i;
                w = walsh(d, n, &m);
                assert_int_equal(pg_stats_hl_signed_rank(d, n, 0.95, &hl), 0);
                assert_true(hl.lo == w[crit[c].t]);
                assert_true(hl.hi == w[m - 1 - crit[c].t]);
                assert_true(hl.conf >= 0.95);
                assert_true(hl.estimate == (m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2));
                free(w);
        }
}

static void test_confirm_hl_bad_input(void **state)
{
        struct pg_hl1 hl;
        double d[1] = { 0.0 };
        (void) state;
        assert_int_equal(pg_stats_hl_signed_rank(d, 0, 0.95, &hl), -2);
        assert_int_equal(pg_stats_hl_signed_rank(d, 1, 1.0, &hl), -2);
        /* one value: the interval is that value, with what it covers said */
        assert_int_equal(pg_stats_hl_signed_rank(d, 1, 0.95, &hl), 0);
        assert_true(hl.lo == 0.0 && hl.hi == 0.0 && hl.conf < 0.95);
}

/* P(T+ >= observed) by enumerating all 2^n sign patterns of the mid-ranks. */
static double brute_p(const double *d, size_t n)
{
        double a[16], r[16], obs = 0;
        size_t nz = 0, hits = 0;
        for (size_t i = 0; i < n; i++)
                if (d[i] != 0)
                        a[nz++] = fabs(d[i]);
        for (size_t i = 0; i < nz; i++) {
                double less = 0, eq = 0;
                for (size_t j = 0; j < nz; j++) {
                        less += a[j] < a[i];
                        eq += a[j] == a[i];
                }
                r[i] = less + (eq + 1) / 2;
        }
        for (size_t i = 0, k = 0; i < n; i++)
                if (d[i] != 0) {
                        if (d[i] > 0)
                                obs += r[k];
                        k++;
                }
        for (size_t mask = 0; mask < ((size_t) 1 << nz); mask++) {
                double t = 0;
                for (size_t i = 0; i < nz; i++)
                        if (mask >> i & 1)
                                t += r[i];
                hits += t >= obs - 1e-9;
        }
        return (double) hits / (double) ((size_t) 1 << nz);
}

static void test_confirm_signed_rank_exact(void **state)
{
        static const double cases[][10] = {
                { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 },
                { -1, 2, 3, 4, 5, 6, 7, 8, 9, 10 },
                { 0.5, -0.2, 0.3, 0.3, -0.3, 0.1, 0, 0.7, -0.9, 0.2 }, /* ties and a zero */
                { -1, -2, -3, -4, -5, 6, 0.5, -0.1, 0.2, 0.3 },
        };
        (void) state;
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                double p = pg_stats_signed_rank_greater(cases[c], 10);
                assert_true(fabs(p - brute_p(cases[c], 10)) < 1e-12);
        }
        assert_true(fabs(pg_stats_signed_rank_greater(cases[0], 10) - 1.0 / 1024) < 1e-15);
        assert_true(pg_stats_signed_rank_greater((const double[]){ 0, 0, 0 }, 3) == 1.0);
}

static void test_confirm_holm_by_hand(void **state)
{
        /* sorted 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 -> 0.06 */
        double p[4] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
        (void) state;
        pg_stats_holm(p, 4, adj);
        assert_true(fabs(adj[0] - 0.03) < 1e-12);
        assert_true(fabs(adj[1] - 0.06) < 1e-12);
        assert_true(fabs(adj[2] - 0.06) < 1e-12);
        assert_true(fabs(adj[3] - 0.02) < 1e-12);
}

static void test_confirm_look_schedule(void **state)
{
        static const size_t want[] = { 8, 12, 16, 24, 32, 48, 64, 96 };
        double sum = 0;
        (void) state;
        for (unsigned k = 1; k <= 8; k++)
                assert_int_equal(pg_confirm_look_pairs(k), want[k - 1]);
        for (unsigned k = 1; k <= 100000; k++)
                sum += pg_confirm_look_alpha(0.05, k);
        assert_true(sum <= 0.05 && sum > 0.0499);
}

/* xorshift64 and Box-Muller: a fixed stream of normal deviates. */
static uint64_t rng_state = 88172645463325252ull;
static double unif(void)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return ((double) (rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(void)
{
        return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/* Under the null (true change 0), looking at every scheduled look up to 96
 * pairs and stopping at the first decisive one must claim "above +0" at
 * most alpha/2 of the time, and the interval must miss 0 at some look at
 * most alpha of the time. */
static void test_confirm_sequential_null_error(void **state)
{
        struct pg_confirm_opts o = { 1e-9, 0.05 };
        const int reps = 600;
        int above = 0, miss = 0;
        double d[96];
        (void) state;
        for (int r = 0; r < reps; r++) {
                bool missed = false;
                for (size_t i = 0; i < 96; i++)
                        d[i] = 0.01 * normal();
                for (unsigned k = 1; pg_confirm_look_pairs(k) <= 96; k++) {
                        struct pg_confirm_look lk;
                        assert_int_equal(pg_confirm_judge(d, pg_confirm_look_pairs(k), k, &o, &lk),
                                         0);
                        if (lk.outcome == PG_CONFIRM_REGRESSION) {
                                above++;
                                missed = true;
                                break;
                        }
                        if (lk.hi < 0) {
                                missed = true;
                                break;
                        }
                }
                miss += missed;
        }
        /* binomial slack: 3 standard deviations above the bound */
        assert_true(above <= reps * 0.025 + 3 * sqrt(reps * 0.025));
        assert_true(miss <= reps * 0.05 + 3 * sqrt(reps * 0.05));
}

/* A 3% change with 1% per-pair noise is decided at the first looks. */
static void test_confirm_detects_shift(void **state)
{
        struct pg_confirm_opts o = { 0.01, 0.05 };
        struct pg_confirm_look lk;
        double d[16];
        (void) state;
        for (size_t i = 0; i < 16; i++)
                d[i] = log(1.03) + 0.01 * normal();
        assert_int_equal(pg_confirm_judge(d, 16, 3, &o, &lk), 0);
        assert_int_equal(lk.outcome, PG_CONFIRM_REGRESSION);
        assert_true(lk.lo > 0.01 && lk.estimate > lk.lo && lk.hi > lk.estimate);
        for (size_t i = 0; i < 16; i++)
                d[i] = 0.002 * normal();
        assert_int_equal(pg_confirm_judge(d, 16, 3, &o, &lk), 0);
        assert_int_equal(lk.outcome, PG_CONFIRM_NO_REGRESSION);
}

static void profile(struct pg_profile *p, double f, double g)
{
        struct pg_stack s[2] = { { "w;main;f", (uint64_t) f }, { "w;main;g", (uint64_t) g } };
        memset(p, 0, sizeof(*p));
        p->present = true;
        p->frequency_hz = 1000;
        pg_profile_set_stacks(p, s, 2);
        p->samples = (uint64_t) f + (uint64_t) g;
}

/* f's own time grows by 60 samples of a 1000-sample run, g stays: f is
 * confirmed and the cause, g is not. */
static void test_confirm_hotspot_names_the_cause(void **state)
{
        struct pg_profile base[10], head[10];
        struct pg_confirm_hotspots h;
        (void) state;
        for (int i = 0; i < 10; i++) {
                profile(&base[i], 700 + 5 * normal(), 300 + 5 * normal());
                profile(&head[i], 760 + 5 * normal(), 300 + 5 * normal());
        }
        assert_int_equal(pg_confirm_hotspots(base, head, 10, 8, 0.0, 0.05, &h), 0);
        assert_int_equal(h.n, 2);
        assert_string_equal(h.items[0].function, "f");
        assert_true(h.items[0].confirmed && h.items[0].cause);
        assert_true(h.items[0].head_share > h.items[0].base_share);
        assert_true(fabs(h.items[0].self_growth_ns - 60e6) < 20e6);
        assert_string_equal(h.items[1].function, "g");
        assert_false(h.items[1].confirmed);
        pg_confirm_hotspots_release(&h);
        for (int i = 0; i < 10; i++) {
                pg_profile_release(&base[i]);
                pg_profile_release(&head[i]);
        }
}

/* Work moved from g into f: f's own time grows by 400 samples of a
 * 1000-sample run, its inclusive time (stacks with f, each once, its
 * recursion inlined into itself too) stays at 700; the leaf h, 300 -> 350,
 * has an inclusive growth equal to its own. */
static void test_confirm_hotspot_inclusive_growth(void **state)
{
        struct pg_profile base[10], head[10];
        struct pg_confirm_hotspots h;
        (void) state;
        for (int i = 0; i < 10; i++) {
                struct pg_stack b[3] = { { "w;main;f", 300 },
                                         { "w;main;f;g", 400 },
                                         { "w;main;h", 300 + (uint64_t) i } };
                struct pg_stack d[3] = { { "w;main;f", 600 },
                                         { "w;main;f;f_[i];f_[i]", 100 },
                                         { "w;main;h", 350 + (uint64_t) i } };
                memset(&base[i], 0, sizeof(base[i]));
                memset(&head[i], 0, sizeof(head[i]));
                base[i].present = head[i].present = true;
                base[i].frequency_hz = head[i].frequency_hz = 1000;
                pg_profile_set_stacks(&base[i], b, 3);
                pg_profile_set_stacks(&head[i], d, 3);
                base[i].samples = 1000 + (uint64_t) i;
                head[i].samples = 1050 + (uint64_t) i;
        }
        assert_int_equal(pg_confirm_hotspots(base, head, 10, 8, 0.0, 0.05, &h), 0);
        assert_int_equal(h.n, 2);
        assert_string_equal(h.items[0].function, "f");
        assert_true(h.items[0].confirmed);
        assert_true(fabs(h.items[0].self_growth_ns - 400e6) < 1e3);
        assert_true(fabs(h.items[0].incl_growth_ns) < 1e3);
        assert_string_equal(h.items[1].function, "h");
        assert_true(fabs(h.items[1].self_growth_ns - 50e6) < 1e3);
        assert_true(fabs(h.items[1].incl_growth_ns - 50e6) < 1e3);
        pg_confirm_hotspots_release(&h);
        for (int i = 0; i < 10; i++) {
                pg_profile_release(&base[i]);
                pg_profile_release(&head[i]);
        }
}

static void test_confirm_describe(void **state)
{
        struct pg_bench_confirm *c = pg_bench_confirm_new();
        struct pg_buf b = PG_BUF_INIT;
        (void) state;
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_string_equal(b.ptr, "unconfirmed");
        c->outcome = PG_CONFIRM_REGRESSION;
        c->has_interval = true;
        c->estimate = 0.023;
        c->lo = 0.015;
        c->hi = 0.031;
        c->level = 0.997;
        c->pairs = 24;
        c->seconds = 41;
        c->floor = 0.01;
        c->ncpus = 1;
        c->cpus = pg_xcalloc(4, sizeof(int));
        c->cpus[0] = 1;
        pg_buf_reset(&b);
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_string_equal(b.ptr, "confirmed regression: +2.30% [+1.50%, +3.10%] (99.7% "
                                   "interval), 24 pairs in 41 s, floor +1.0%, pinned to CPU 1");
        /* several CPUs as a Linux CPU list: runs of consecutive ones as
         * first-last (cpuset(7), "List format") */
        c->ncpus = 4;
        c->cpus[0] = 0;
        c->cpus[1] = 2;
        c->cpus[2] = 3;
        c->cpus[3] = 4;
        pg_buf_reset(&b);
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_non_null(strstr(b.ptr, "floor +1.0%, pinned to CPUs 0,2-4"));
        c->ncpus = 2;
        c->cpus[0] = 6;
        c->cpus[1] = 7;
        pg_buf_reset(&b);
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_non_null(strstr(b.ptr, "floor +1.0%, pinned to CPUs 6-7"));
        /* not pinned: pairs were kept within one CPU */
        c->ncpus = 0;
        pg_buf_reset(&b);
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_non_null(strstr(b.ptr, "floor +1.0%, unpinned: pairs kept within one CPU"));
        c->ncpus = 1;
        c->cpus[0] = 1;
        /* the look that decided is named, and a level of look 12 (1 - 0.0304/144,
         * the next level 296 pairs reach) is not rounded to "100.0%" */
        c->look = 12;
        c->level = 0.99979;
        pg_buf_reset(&b);
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_non_null(strstr(b.ptr, "(99.98% interval, look 12), "));
        c->level = 0.977;
        c->look = 1;
        pg_buf_reset(&b);
        pg_bench_confirm_describe(&b, c, NULL, NULL);
        assert_non_null(strstr(b.ptr, "(97.7% interval, look 1), "));
        /* and the reason levels differ, once per report */
        pg_buf_reset(&b);
        pg_confirm_levels_note(&b, PG_CONFIRM_DEFAULT_ALPHA);
        assert_string_equal(b.ptr, "Paired runs: an interval's level is that of the sequential "
                                   "test's look that decided it (at least 1 - 0.0304/k^2 at "
                                   "look k: 97.0% at the first, after 8 pairs, 99.9% at the "
                                   "fifth, after 32), so that all looks together err at most "
                                   "5%; a benchmark that needed more pairs shows a higher "
                                   "level.");
        pg_buf_release(&b);
        pg_bench_confirm_free(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_confirm_hl_interval_matches_tables),
                cmocka_unit_test(test_confirm_hl_bad_input),
                cmocka_unit_test(test_confirm_signed_rank_exact),
                cmocka_unit_test(test_confirm_holm_by_hand),
                cmocka_unit_test(test_confirm_look_schedule),
                cmocka_unit_test(test_confirm_sequential_null_error),
                cmocka_unit_test(test_confirm_detects_shift),
                cmocka_unit_test(test_confirm_hotspot_names_the_cause),
                cmocka_unit_test(test_confirm_hotspot_inclusive_growth),
                cmocka_unit_test(test_confirm_describe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
