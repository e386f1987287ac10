/*
 * test_stats.c - compare/stats.c against values worked out from the
 * definitions: medians and MADs by hand; Mann-Whitney p-values by hand for
 * small cases (with and without ties), by brute-force enumeration of every
 * assignment of the pooled values for all sizes up to 5 x 5 (an independent
 * implementation: U counted pairwise, no ranks), against the published
 * two-sided alpha = 0.05 critical values of U (e.g. Zar, Biostatistical
 * Analysis, table B.11; the same table in most statistics texts), and the
 * normal approximation against hand evaluation of its formula. Also the
 * two-proportion test (case 16's counts) and the Hodges-Lehmann interval.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "compare/stats.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_stats_median_odd_even_one(void **state)
{
        double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 }, neg[] = { -2, -8, 0 };
        (void) state;
        assert_true(pg_stats_median(odd, 3) == 3);
        assert_true(odd[0] == 5 && odd[1] == 1); /* input untouched */
        assert_true(pg_stats_median(even, 4) == 2.5);
        assert_true(pg_stats_median(one, 1) == 7);
        assert_true(pg_stats_median(neg, 3) == -2);
        assert_true(pg_stats_median(NULL, 0) == 0);
}

static void test_stats_mad_and_relative_spread(void **state)
{
        /* median 2; |x - 2| = 1 1 0 0 2 4 7 -> median 1 */
        double x[] = { 1, 1, 2, 2, 4, 6, 9 }, one[] = { 3 }, zeros[] = { 0, 0, 1 };
        double same[] = { 5, 5, 5, 5 }, rel = -1;
        (void) state;
        assert_true(pg_stats_mad(x, 7) == 1);
        assert_true(pg_stats_rel_mad(x, 7, &rel));
        assert_true(rel == 0.5);
        assert_true(pg_stats_mad(one, 1) == 0); /* one repetition: no spread */
        assert_true(pg_stats_mad(same, 4) == 0);
        rel = -1;
        assert_false(pg_stats_rel_mad(zeros, 3, &rel)); /* median 0: undefined */
        assert_true(rel == -1);
}

static void test_stats_mwu_hand_worked(void **state)
{
        struct pg_mwu m;
        double a1[] = { 1, 2, 3 }, b1[] = { 4, 5, 6 };
        double a2[] = { 1, 2, 4 }, b2[] = { 3, 5, 6 };
        double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };
        double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
        (void) state;
        /* 3 vs 3 separated: U = 0, P(U <= 0) = 1/C(6,3) = 1/20, p = 0.1 */
        assert_int_equal(pg_stats_mann_whitney(a1, 3, b1, 3, &m), 0);
        assert_true(m.exact);
        assert_true(m.u == 0);
        NEAR(m.p_value, 0.1, 1e-12);
        /* reversed: U = 9, same p */
        assert_int_equal(pg_stats_mann_whitney(b1, 3, a1, 3, &m), 0);
        assert_true(m.u == 9);
        NEAR(m.p_value, 0.1, 1e-12);
        /* U = 1: subsets with U <= 1 are {1,2,3} and {1,2,4}: p = 2 * 2/20 */
        assert_int_equal(pg_stats_mann_whitney(a2, 3, b2, 3, &m), 0);
        assert_true(m.u == 1);
        NEAR(m.p_value, 0.2, 1e-12);
        /* 4 vs 4 separated: 2/C(8,4) = 2/70; 5 vs 5: 2/252 */
        assert_int_equal(pg_stats_mann_whitney(a4, 4, b4, 4, &m), 0);
        NEAR(m.p_value, 2.0 / 70, 1e-12);
        assert_int_equal(pg_stats_mann_whitney(a5, 5, b5, 5, &m), 0);
        NEAR(m.p_value, 2.0 / 252, 1e-12);
}

static void test_stats_mwu_ties_hand_worked(void **state)
{
        /* pooled 1 2 2 2 3 4: mid-ranks 1 3 3 3 5 6, doubled 2 6 6 6 10 12.
         * a = {1,2,2}: doubled sum 14. Of the 20 3-subsets, sums: {2,6,6}=14 x3,
         * {2,6,10}=18 x3, {2,6,12}=20 x3, {2,10,12}=24, {6,6,6}=18,
         * {6,6,10}=22 x3, {6,6,12}=24 x3, {6,10,12}=28 x3. P(<= 14) = 3/20,
         * P(>= 14) = 1: p = 0.3. U = 0 + 4 x 0.5 ties... = 1. */
        double a[] = { 1, 2, 2 }, b[] = { 2, 3, 4 };
        struct pg_mwu m;
        (void) state;
        assert_int_equal(pg_stats_mann_whitney(a, 3, b, 3, &m), 0);
        assert_true(m.ties);
        assert_true(m.u == 1);
        NEAR(m.p_value, 0.3, 1e-12);
}

static void test_stats_mwu_degenerate(void **state)
{
        double same[] = { 5, 5, 5 }, one_a[] = { 1 }, one_b[] = { 2 };
        double zeros[] = { 0, 0, 0, 0, 0 }, ones[] = { 1, 1, 1, 1, 1 };
        struct pg_mwu m;
        double big_a[30], big_b[30];
        (void) state;
        /* identical samples: every assignment gives the same U: p = 1 */
        assert_int_equal(pg_stats_mann_whitney(same, 3, same, 3, &m), 0);
        assert_true(m.p_value == 1);
        /* one repetition per side can never be significant */
        assert_int_equal(pg_stats_mann_whitney(one_a, 1, one_b, 1, &m), 0);
        assert_true(m.p_value == 1);
        /* all-zero baseline against all-ones: two tie groups; as separated as
         * 5 vs 5 can be: 2/252 */
        assert_int_equal(pg_stats_mann_whitney(zeros, 5, ones, 5, &m), 0);
        NEAR(m.p_value, 2.0 / 252, 1e-12);
        /* missing values: an empty side is refused */
        assert_int_equal(pg_stats_mann_whitney(same, 0, same, 3, &m), PG_EINPUT);
        assert_int_equal(pg_stats_mann_whitney(same, 3, NULL, 0, &m), PG_EINPUT);
        /* large identical samples: normal path, variance 0 -> p = 1, never NaN */
        for (int i = 0; i < 30; i++)
                big_a[i] = big_b[i] = 42;
        assert_int_equal(pg_stats_mann_whitney(big_a, 30, big_b, 30, &m), 0);
        assert_false(m.exact);
        assert_true(m.p_value == 1);
}

/* Independent reference: U by pairwise counting over every assignment. */
static double pg_ref_p(const double *a, int na, const double *b, int nb)
{
        double pool[10];
        int n = na + nb;
        long u2obs = 0, le = 0, ge = 0, all = 0;

        memcpy(pool, a, (size_t) na * sizeof(double));
        memcpy(pool + na, b, (size_t) nb * sizeof(double));
        for (int i = 0; i < na; i++)
                for (int j = 0; j < nb; j++)
                        u2obs += 2 * (a[i] > b[j]) + (a[i] == b[j]);
        for (unsigned mask = 0; mask < (1u << n); mask++) {
                long u2 = 0;
                if (__builtin_popcount(mask) != na)
                        continue;
                for (int i = 0; i < n; i++)
                        for (int j = 0; j < n; j++)
                                if ((mask >> i & 1) && !(mask >> j & 1))
                                        u2 += 2 * (pool[i] > pool[j]) + (pool[i] == pool[j]);
                all++;
                le += u2 <= u2obs;
                ge += u2 >= u2obs;
        }
        return fmin(1.0, 2.0 * (double) (le < ge ? le : ge) / (double) all);
}

static void test_stats_mwu_matches_enumeration(void **state)
{
        unsigned seed = 12345;
        int checked = 0;
        (void) state;
        for (int na = 1; na <= 5; na++)
                for (int nb = 1; nb <= 5; nb++)
                        for (int rep = 0; rep < 40; rep++) {
                                double a[5], b[5];
                                struct pg_mwu m;
                                int range = rep < 20 ? 3 : 1000; /* many ties, then few */
                                for (int i = 0; i < na; i++) {
                                        seed = seed * 1103515245u + 12345u;
                                        a[i] = (double) ((seed >> 16) % (unsigned) range);
                                }
                                for (int i = 0; i < nb; i++) {
                                        seed = seed * 1103515245u + 12345u;
                                        b[i] = (double) ((seed >> 16) % (unsigned) range);
                                }
                                assert_int_equal(
                                    pg_stats_mann_whitney(a, (size_t) na, b, (size_t) nb, &m), 0);
                                NEAR(m.p_value, pg_ref_p(a, na, b, nb), 1e-12);
                                checked++;
                        }
        assert_int_equal(checked, 1000);
}

/* Samples of sizes n1, n2 whose U (of a) is exactly u, without ties (the
 * tables assume none): b = 10, 20, ...; a_i = 10 k_i + 1 + i/10 beats k_i of
 * them, the k_i summing to u. */
static void pg_make_u(double *a, int n1, double *b, int n2, int u)
{
        for (int j = 0; j < n2; j++)
                b[j] = 10.0 * (j + 1);
        for (int i = 0; i < n1; i++) {
                int k = u > n2 ? n2 : u;
                a[i] = 10.0 * k + 1 + i / 10.0;
                u -= k;
        }
        assert_int_equal(u, 0);
}

static void test_stats_mwu_critical_values(void **state)
{
        /* two-sided alpha = 0.05 critical values of U (reject when U <= value) */
        static const int table[][3] = {
                { 5, 5, 2 },     { 6, 6, 5 },    { 7, 7, 8 },    { 8, 8, 13 },   { 9, 9, 17 },
                { 10, 10, 23 },  { 11, 11, 30 }, { 12, 12, 37 }, { 13, 13, 45 }, { 14, 14, 55 },
                { 15, 15, 64 },  { 16, 16, 75 }, { 17, 17, 87 }, { 18, 18, 99 }, { 19, 19, 113 },
                { 20, 20, 127 }, { 3, 5, 0 },    { 3, 8, 2 },    { 4, 5, 1 },    { 4, 8, 4 },
                { 5, 10, 8 },    { 5, 20, 20 },  { 10, 20, 55 }, { 8, 12, 22 },
        };
        (void) state;
        for (size_t t = 0; t < sizeof(table) / sizeof(table[0]); t++) {
                int n1 = table[t][0], n2 = table[t][1], crit = table[t][2];
                double a[20], b[20];
                struct pg_mwu m;
                pg_make_u(a, n1, b, n2, crit);
                assert_int_equal(pg_stats_mann_whitney(a, (size_t) n1, b, (size_t) n2, &m), 0);
                assert_true(m.exact);
                assert_true(m.u == crit);
                if (!(m.p_value <= 0.05))
                        fail_msg("n1=%d n2=%d U=%d: p=%g should be <= 0.05", n1, n2, crit,
                                 m.p_value);
                pg_make_u(a, n1, b, n2, crit + 1);
                assert_int_equal(pg_stats_mann_whitney(a, (size_t) n1, b, (size_t) n2, &m), 0);
                if (!(m.p_value > 0.05))
                        fail_msg("n1=%d n2=%d U=%d: p=%g should be > 0.05", n1, n2, crit + 1,
                                 m.p_value);
        }
}

static void test_stats_mwu_normal_approximation(void **state)
{
        double a[25], b[25];
        struct pg_mwu m;
        (void) state;
        /* 1..25 vs 26..50: U = 0, mu = 312.5, sigma^2 = 25*25*51/12;
         * z = 312/sqrt(2656.25) = 6.053689201, p = erfc(z/sqrt 2) = 1.415656225e-9 */
        for (int i = 0; i < 25; i++) {
                a[i] = i + 1;
                b[i] = i + 26;
        }
        assert_int_equal(pg_stats_mann_whitney(a, 25, b, 25, &m), 0);
        assert_false(m.exact);
        NEAR(m.z, 6.053689201, 1e-8);
        NEAR(m.p_value, 1.415656225e-9, 1e-17);
        /* ties: a = 12 x 1 + 13 x 2, b = 10 x 2 + 15 x 3; U = 65; tie groups
         * 12, 23, 15: sigma^2 = 625/12 (51 - sum(t^3-t)/(50*49));
         * z = 5.161337754, p = 2.451913422e-7 */
        for (int i = 0; i < 25; i++) {
                a[i] = i < 12 ? 1 : 2;
                b[i] = i < 10 ? 2 : 3;
        }
        assert_int_equal(pg_stats_mann_whitney(a, 25, b, 25, &m), 0);
        assert_true(m.ties);
        assert_true(m.u == 65);
        NEAR(m.z, 5.161337754, 1e-8);
        NEAR(m.p_value, 2.451913422e-7, 1e-15);
}

static void test_stats_two_proportion(void **state)
{
        struct pg_prop_test t;
        (void) state;
        /* case 16: write_out 990/10000 -> 999/10000, not significant */
        assert_int_equal(pg_stats_two_proportion(990, 10000, 999, 10000, &t), 0);
        NEAR(t.z, 0.2126528476, 1e-9);
        NEAR(t.p_value, 0.8315977477, 1e-9);
        assert_int_equal(pg_stats_two_proportion(800, 2000, 1400, 2600, &t), 0);
        NEAR(t.z, 9.319503573, 1e-8);
        NEAR(t.p_value, 1.168858957e-20, 1e-28);
        /* 0 of n on both sides, or all: standard error 0 -> p = 1, not NaN */
        assert_int_equal(pg_stats_two_proportion(0, 100, 0, 50, &t), 0);
        assert_true(t.p_value == 1 && t.z == 0);
        assert_int_equal(pg_stats_two_proportion(10, 10, 7, 7, &t), 0);
        assert_true(t.p_value == 1);
        /* empty profile, impossible counts */
        assert_int_equal(pg_stats_two_proportion(0, 0, 1, 10, &t), PG_EINPUT);
        assert_int_equal(pg_stats_two_proportion(11, 10, 1, 10, &t), PG_EINPUT);
}

/* Runs that vary far more than binomial sampling allows widen the test
 * (z / sqrt(phi) against the normal); runs that agree leave z alone (phi
 * floored at 1). */
static void test_stats_two_proportion_runs(void **state)
{
        const uint64_t n[3] = { 1000, 1000, 1000 };
        const uint64_t wide1[3] = { 100, 300, 200 }, wide2[3] = { 250, 350, 150 };
        const uint64_t tight1[3] = { 100, 102, 98 }, tight2[3] = { 150, 148, 152 };
        const uint64_t big[3] = { 1001, 0, 0 };
        struct pg_prop_test t;
        (void) state;
        /* pooled: 600/3000 vs 750/3000, z 4.64, p 3.5e-6; the runs: Pearson
         * X2 50 + 181.67 over 4 df, phi 57.92, z 0.609, p 0.542 */
        assert_int_equal(pg_stats_two_proportion_runs(wide1, n, 3, wide2, n, 3, &t), 0);
        NEAR(t.phi, 57.916666666667, 1e-9);
        assert_int_equal(t.df, 4);
        NEAR(t.z, 0.60935691556, 1e-9);
        NEAR(t.p_value, 0.5422878891, 1e-8);
        assert_int_equal(pg_stats_two_proportion_runs(tight1, n, 3, tight2, n, 3, &t), 0);
        /* X2 0.16, phi 0.04: no more than sampling noise, the plain test */
        assert_true(t.phi == 1 && t.df == 4);
        NEAR(t.z, 5.8554004377, 1e-9);
        NEAR(t.p_value, 4.7586203160e-09, 1e-17);
        /* the counts of a loaded-machine run of test-self-inlined.sh, whose
         * dedup_count does three times the work in head: 45.3% -> 68.2%
         * while a neighbour's memory traffic moved its share between 30%
         * and 51% (base) and 55% and 72% (head) from run to run. X2 over 5
         * df: phi 25.16, z 17.18 / 5.016 = 3.425, p 6.1e-4: a regression at
         * alpha 0.001, which Student's t(5) (p 0.019) missed */
        {
                const uint64_t xb[4] = { 304, 337, 303, 133 }, nb[4] = { 633, 657, 649, 441 };
                const uint64_t xh[3] = { 375, 881, 918 }, nh[3] = { 685, 1235, 1268 };
                assert_int_equal(pg_stats_two_proportion_runs(xb, nb, 4, xh, nh, 3, &t), 0);
                NEAR(t.phi, 25.162628883, 1e-6);
                assert_int_equal(t.df, 5);
                NEAR(t.z, 3.4250146070, 1e-8);
                NEAR(t.p_value, 6.14766367e-4, 1e-11);
        }
        /* one run a side: no degree of freedom, the plain test */
        assert_int_equal(pg_stats_two_proportion_runs(wide1, n, 1, wide2, n, 1, &t), 0);
        assert_true(t.phi == 0 && t.df == 0);
        NEAR(t.p_value, 1.0718661311e-18, 1e-27);
        /* one run beside two: phi would rest on 1 degree of freedom, the
         * plain test */
        assert_int_equal(pg_stats_two_proportion_runs(wide1, n, 1, wide2, n, 2, &t), 0);
        assert_true(t.phi == 0 && t.df == 0);
        /* runs with no samples count for nothing */
        {
                const uint64_t n0[3] = { 1000, 0, 1000 }, x0[3] = { 100, 0, 200 };
                assert_int_equal(pg_stats_two_proportion_runs(x0, n0, 3, wide2, n, 3, &t), 0);
                assert_int_equal(t.df, 3);
        }
        assert_int_equal(pg_stats_two_proportion_runs(big, n, 3, wide2, n, 3, &t), PG_EINPUT);
}

static void test_stats_hodges_lehmann(void **state)
{
        double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
        double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 11, 12, 13, 14, 15 };
        struct pg_hl hl;
        (void) state;
        /* differences 1 2 2 3 3 3 4 4 5: shift 3; 3 x 3 cannot reach 95%
         * (P(U <= 0) = 0.05 > 0.025): full range, coverage 1 - 2 x 0.05 */
        assert_int_equal(pg_stats_hodges_lehmann(a3, 3, b3, 3, 0.95, &hl), 0);
        assert_true(hl.shift == 3 && hl.lo == 1 && hl.hi == 5);
        NEAR(hl.conf, 0.9, 1e-12);
        /* 5 x 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3:
         * the 3rd smallest (7) and 3rd largest (13) of the differences 6..14 */
        assert_int_equal(pg_stats_hodges_lehmann(a5, 5, b5, 5, 0.95, &hl), 0);
        assert_true(hl.shift == 10 && hl.lo == 7 && hl.hi == 13);
        NEAR(hl.conf, 1 - 8.0 / 252, 1e-12);
        assert_int_equal(pg_stats_hodges_lehmann(a5, 0, b5, 5, 0.95, &hl), PG_EINPUT);
        assert_int_equal(pg_stats_hodges_lehmann(a5, 5, b5, 5, 1.5, &hl), PG_EINPUT);
}

static void test_stats_hodges_lehmann_large(void **state)
{
        double a[30], b[30];
        struct pg_hl hl;
        (void) state;
        for (int i = 0; i < 30; i++) {
                a[i] = i;
                b[i] = i + 100;
        }
        assert_int_equal(pg_stats_hodges_lehmann(a, 30, b, 30, 0.95, &hl), 0);
        assert_true(hl.shift == 100);
        assert_true(hl.lo < 100 && hl.hi > 100 && hl.lo > 70 && hl.hi < 130);
        assert_true(isfinite(hl.conf));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stats_median_odd_even_one),
                cmocka_unit_test(test_stats_mad_and_relative_spread),
                cmocka_unit_test(test_stats_mwu_hand_worked),
                cmocka_unit_test(test_stats_mwu_ties_hand_worked),
                cmocka_unit_test(test_stats_mwu_degenerate),
                cmocka_unit_test(test_stats_mwu_matches_enumeration),
                cmocka_unit_test(test_stats_mwu_critical_values),
                cmocka_unit_test(test_stats_mwu_normal_approximation),
                cmocka_unit_test(test_stats_two_proportion),
                cmocka_unit_test(test_stats_two_proportion_runs),
                cmocka_unit_test(test_stats_hodges_lehmann),
                cmocka_unit_test(test_stats_hodges_lehmann_large),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
