/*
 * stats.h - the robust statistics perfgate judges with (DESIGN.md section 6):
 * median, median absolute deviation, relative spread, the two-sided
 * Mann-Whitney U test (exact permutation distribution for small samples,
 * ties included; normal approximation with tie correction above), the
 * two-proportion z test for sample shares, and the Hodges-Lehmann shift.
 *
 * Why robust: task-clock on shared VMs is bimodal (DESIGN.md section 6), so
 * means, standard deviations and t-tests would cry wolf; medians, MAD and
 * rank tests do not.
 *
 * Invariants: no function returns NaN or Inf. Inputs must be finite (the
 * result loader guarantees it); sample sizes of 0 are refused with PG_EINPUT.
 * Inputs are never modified (functions sort private copies).
 */
#ifndef PG_COMPARE_STATS_H
#define PG_COMPARE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest per-side sample size for which the exact distribution is used. */
#define PG_MWU_EXACT_MAX 20

/**
 * Median of @n finite values (@n >= 1): the middle order statistic, or the
 * mean of the two middle ones when @n is even. Returns 0 for @n == 0.
 */
double pg_stats_median(const double *x, size_t n);

/**
 * Median absolute deviation of @n values: median(|x_i - median(x)|),
 * unscaled (no 1.4826 consistency factor; perfgate only compares it with
 * itself). Returns 0 for @n < 2. Source: Hampel (1974), "The influence curve
 * and its role in robust estimation", JASA 69:383-393.
 */
double pg_stats_mad(const double *x, size_t n);

/**
 * Relative spread: MAD / |median|, written to @out (a fraction; 0.007 is
 * 0.7%). Returns false (and leaves @out untouched) when the median is 0, where
 * a relative spread is undefined.
 */
bool pg_stats_rel_mad(const double *x, size_t n, double *out);

/** Outcome of a Mann-Whitney U test. */
struct pg_mwu {
        double u;       /* U of sample a: #(a_i > b_j) + 0.5 #(a_i == b_j) */
        double p_value; /* two-sided, in [0, 1] */
        double z;       /* normal approximation's z (0 when exact) */
        bool exact;     /* true: exact permutation distribution was used */
        bool ties;      /* the pooled sample has ties */
};

/**
 * Two-sided Mann-Whitney U (Wilcoxon rank-sum) test of @a (@na values)
 * against @b (@nb values).
 *
 * U_a = R_a - na(na+1)/2 with R_a the sum of a's mid-ranks in the pooled
 * sample (Mann & Whitney 1947, Ann. Math. Statist. 18:50-60).
 *
 * Exact when na <= 20 and nb <= 20: the permutation distribution of R_a
 * given the observed tie pattern (all C(N, na) ways to pick a's positions
 * among the pooled mid-ranks, equally likely under H0), computed by dynamic
 * programming over the doubled mid-ranks (integers), so ties are exact too
 * (Streitberg & Roehmel 1986, "Exact distributions for permutation and rank
 * tests", Statistical Software Newsletter 12:10-17). p = min(1, 2 min(P(R <=
 * r), P(R >= r))), the definition R's wilcox.test and scipy use.
 *
 * Otherwise the normal approximation with continuity and tie correction:
 * sigma^2 = na nb / 12 ((N+1) - sum(t^3 - t) / (N(N-1))), z = (|U - na nb/2|
 * - 1/2) / sigma, p = erfc(z / sqrt 2) (Hollander & Wolfe, Nonparametric
 * Statistical Methods, 2nd ed., section 4.1; Lehmann, Nonparametrics, 1975,
 * eq. 1.76). All values tied (sigma = 0): p = 1.
 *
 * Errors: PG_EINPUT when @na or @nb is 0.
 */
int pg_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                          struct pg_mwu *out);

/**
 * The smallest p-value pg_stats_mann_whitney() can return for samples of
 * @na and @nb values: that of two samples wholly apart (2 / C(na+nb, na)
 * when exact). With 3 values a side it is 0.1, so no change can be
 * significant at alpha 0.05. Returns 1 when @na or @nb is 0.
 */
double pg_stats_mwu_best_p(size_t na, size_t nb);

/** Outcome of a two-proportion z test. */
struct pg_prop_test {
        double p1, p2;  /* x1/n1 and x2/n2 */
        double z;       /* (p2 - p1) / pooled standard error; 0 when undefined */
        double p_value; /* two-sided; 1 when the standard error is 0 */
        double phi;     /* pg_stats_two_proportion_runs(): the dispersion factor the
                         * variance was scaled by (>= 1); 0: not estimated (the plain
                         * z test) */
        unsigned df;    /* the degrees of freedom phi was estimated with (runs - 2); 0
                         * with phi 0 */
};

/**
 * Two-sided two-proportion z test with pooled variance: is x2/n2 different
 * from x1/n1? p = (x1+x2)/(n1+n2), se = sqrt(p(1-p)(1/n1 + 1/n2)),
 * z = (p2 - p1)/se, p-value = erfc(|z|/sqrt 2) (Agresti, Categorical Data
 * Analysis, 3rd ed., section 3.1.4; NIST/SEMATECH e-Handbook 7.3.3).
 * Errors: PG_EINPUT when n1 or n2 is 0 or x > n.
 */
int pg_stats_two_proportion(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2,
                            struct pg_prop_test *out);

/**
 * The two-proportion test of pg_stats_two_proportion() on counts gathered
 * over several independent runs, scaled for the variation between runs: a
 * side's proportion differs from run to run by more than its binomial
 * sampling error when the runs themselves differ (a heap grown further in
 * one run, another machine load), so pooled samples are not independent
 * draws. @x1[j] of @n1[j] in each of @r1 runs against @x2/@n2 in @r2 runs.
 * The quasi-binomial model: Var(x) = phi * n p (1 - p), with phi estimated
 * by Pearson's statistic over the runs of both sides about each side's own
 * proportion, phi = (X2_1 + X2_2) / (r1 + r2 - 2), X2 = sum_j (x_j - n_j
 * p)^2 / (n_j p (1 - p)) (Williams 1982, Appl. Statist. 31:144-148;
 * McCullagh & Nelder, Generalized Linear Models, 2nd ed., sections 4.5 and
 * 4.7.2). When phi > 1, z is divided by sqrt(phi) and its p-value taken
 * from the normal, phi treated as known: the quasi-likelihood Wald test
 * (Wedderburn 1974, Biometrika 61:439-447; McCullagh & Nelder chapter 9).
 * Its estimation error is not carried into the p-value: with the r1 + r2 - 2
 * degrees of freedom of a few runs, Student's t would be exact for normal
 * shares, but at alpha 0.001 it needs |z/sqrt(phi)| >= 5.04 at 8 of them
 * and missed a function whose own time tripled on a loaded machine; the
 * normal needs 3.29 and rejects an unchanged wandering function about 1%
 * of the time at 5 runs a side (docs/compare.md). When phi <= 1 the runs
 * vary no more than binomial sampling alone makes them, whose variance is
 * known: the plain test (out->phi 1), never more liberal than it. Runs with n 0 are left out. With fewer than 4 runs with
 * samples in all (phi on fewer than 2 degrees of freedom), the plain test of the
 * totals (out->phi 0). Errors: PG_EINPUT when a side has no samples or some x > n.
 */
int pg_stats_two_proportion_runs(const uint64_t *x1, const uint64_t *n1, size_t r1,
                                 const uint64_t *x2, const uint64_t *n2, size_t r2,
                                 struct pg_prop_test *out);

/** Hodges-Lehmann shift of b against a, with a confidence interval. */
struct pg_hl {
        double shift;  /* median of all b_j - a_i */
        double lo, hi; /* confidence interval of the shift */
        double conf;   /* its actual coverage (>= the asked level when exact) */
};

/**
 * Hodges-Lehmann estimate of the shift b - a: the median of the na*nb
 * pairwise differences (Hodges & Lehmann 1963, Ann. Math. Statist.
 * 34:598-611), with the distribution-free interval of Moses: the k-th
 * smallest and k-th largest difference, k = the largest U critical value with
 * P(U < k) <= (1 - @conf)/2 under H0 (exact no-ties distribution when both
 * sides have at most 20, normal approximation when either has more;
 * Hollander & Wolfe section 4.3). When the samples are too small for the
 * asked level the interval is the full range of differences and out->conf
 * says what it covers.
 * Errors: PG_EINPUT when na or nb is 0 or @conf is not in (0, 1).
 */
int pg_stats_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double conf,
                            struct pg_hl *out);

#endif
