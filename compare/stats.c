/*
 * stats.c - median, MAD, Mann-Whitney U, two-proportion test, Hodges-Lehmann
 * (formulas and sources in stats.h).
 *
 * The exact Mann-Whitney distribution works on doubled mid-ranks: a mid-rank
 * is an integer or a half-integer, so 2 x rank is an integer and the rank sum
 * distribution is an integer-indexed table. Counts are kept in doubles:
 * C(40, 20) ~ 1.4e11 is far below 2^53, so every count is exact.
 */
#include "compare/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"

static int pg_dbl_cmp(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

static double pg_median_sorted(const double *s, size_t n)
{
        if (n == 0)
                return 0;
        if (n % 2)
                return s[n / 2];
        /* halves first: no overflow for huge magnitudes */
        return s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

double pg_stats_median(const double *x, size_t n)
{
        double *s, m;

        if (n == 0)
                return 0;
        s = pg_xmalloc(n * sizeof(*s));
        memcpy(s, x, n * sizeof(*s));
        qsort(s, n, sizeof(*s), pg_dbl_cmp);
        m = pg_median_sorted(s, n);
        free(s);
        return m;
}

double pg_stats_mad(const double *x, size_t n)
{
        double *d, med, mad;

        if (n < 2)
                return 0;
        med = pg_stats_median(x, n);
        d = pg_xmalloc(n * sizeof(*d));
        for (size_t i = 0; i < n; i++)
                d[i] = fabs(x[i] - med);
        mad = pg_stats_median(d, n);
        free(d);
        return mad;
}

bool pg_stats_rel_mad(const double *x, size_t n, double *out)
{
        double med = pg_stats_median(x, n);

        if (n == 0 || med == 0)
                return false;
        *out = pg_stats_mad(x, n) / fabs(med);
        return true;
}

/* Upper tail of the standard normal distribution, P(Z > z) = erfc(z/sqrt 2)/2. */
static double pg_stats_normal_sf(double z)
{
        return 0.5 * erfc(z / M_SQRT2);
}

/* The z with P(Z > z) = q, by bisection on erfc (monotone; 200 steps reach
 * double precision). Only used for interval widths, never for p-values. */
static double pg_normal_isf(double q)
{
        double lo = -40, hi = 40;

        for (int i = 0; i < 200; i++) {
                double mid = (lo + hi) / 2;
                if (pg_stats_normal_sf(mid) > q)
                        lo = mid;
                else
                        hi = mid;
        }
        return (lo + hi) / 2;
}

struct pg_pooled {
        double value;
        int from_a;
};

static int pg_pooled_cmp(const void *a, const void *b)
{
        const struct pg_pooled *x = a, *y = b;
        return (x->value > y->value) - (x->value < y->value);
}

/*
 * Doubled mid-ranks of the pooled sample (a first, then b) into @r2 (N
 * entries, pooled order after sorting), the doubled rank sum of a into
 * *r2_a, and sum(t^3 - t) over tie groups into *tie_term.
 */
static void pg_midranks(const double *a, size_t na, const double *b, size_t nb, long *r2,
                        int *from_a, long *r2_a, double *tie_term)
{
        size_t n = na + nb;
        struct pg_pooled *p = pg_xmalloc(n * sizeof(*p));

        for (size_t i = 0; i < na; i++)
                p[i] = (struct pg_pooled){ a[i], 1 };
        for (size_t i = 0; i < nb; i++)
                p[na + i] = (struct pg_pooled){ b[i], 0 };
        qsort(p, n, sizeof(*p), pg_pooled_cmp);
        *r2_a = 0;
        *tie_term = 0;
        for (size_t i = 0; i < n;) {
                size_t j = i;
                while (j + 1 < n && p[j + 1].value == p[i].value)
                        j++;
                /* positions i..j (0-based) share the rank ((i+1)+(j+1))/2 */
                long twice = (long) (i + 1 + j + 1);
                double t = (double) (j - i + 1);
                *tie_term += t * t * t - t;
                for (size_t k = i; k <= j; k++) {
                        r2[k] = twice;
                        from_a[k] = p[k].from_a;
                        if (p[k].from_a)
                                *r2_a += twice;
                }
                i = j + 1;
        }
        free(p);
}

/*
 * Permutation distribution of the sum of @k of the @n doubled ranks @r2:
 * returns a table dist[0..*smax] with the number of k-subsets having each
 * sum (caller frees). DP over items, k descending so each item is used once.
 */
static double *pg_rank_sum_dist(const long *r2, size_t n, size_t k, long *smax)
{
        long total = 0;
        double *c;
        size_t width;

        for (size_t i = 0; i < n; i++)
                total += r2[i];
        width = (size_t) total + 1;
        c = pg_xcalloc((k + 1) * width, sizeof(*c));
        c[0] = 1; /* choosing nothing sums to 0 */
        for (size_t i = 0; i < n; i++) {
                size_t top = i + 1 < k ? i + 1 : k;
                for (size_t j = top; j >= 1; j--) {
                        double *row = c + j * width, *prev = c + (j - 1) * width;
                        for (long s = total; s >= r2[i]; s--)
                                row[s] += prev[s - r2[i]];
                }
        }
        memmove(c, c + k * width, width * sizeof(*c));
        *smax = total;
        return c;
}

int pg_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                          struct pg_mwu *out)
{
        size_t n = na + nb;
        long *r2, r2_a;
        int *from_a;
        double tie_term;

        if (na == 0 || nb == 0)
                return pg_error_set(PG_EINPUT,
                                    "a rank test needs at least one value on each side (got "
                                    "%zu and %zu)",
                                    na, nb);
        r2 = pg_xmalloc(n * sizeof(*r2));
        from_a = pg_xmalloc(n * sizeof(*from_a));
        pg_midranks(a, na, b, nb, r2, from_a, &r2_a, &tie_term);
        memset(out, 0, sizeof(*out));
        out->u = (double) r2_a / 2 - (double) na * (double) (na + 1) / 2;
        out->ties = tie_term > 0;
        if (na <= PG_MWU_EXACT_MAX && nb <= PG_MWU_EXACT_MAX) {
                long smax;
                double *dist = pg_rank_sum_dist(r2, n, na, &smax);
                double all = 0, le = 0, ge = 0;
                for (long s = 0; s <= smax; s++) {
                        all += dist[s];
                        if (s <= r2_a)
                                le += dist[s];
                        if (s >= r2_a)
                                ge += dist[s];
                }
                free(dist);
                out->exact = true;
                out->p_value = fmin(1.0, 2 * fmin(le, ge) / all);
        } else {
                double mu = (double) na * (double) nb / 2;
                double nn = (double) n;
                double var =
                    (double) na * (double) nb / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
                if (var <= 0) {
                        out->p_value = 1;
                } else {
                        double dev = fabs(out->u - mu) - 0.5;
                        out->z = (dev > 0 ? dev : 0) / sqrt(var);
                        out->p_value = fmin(1.0, 2 * pg_stats_normal_sf(out->z));
                }
        }
        free(r2);
        free(from_a);
        return 0;
}

int pg_stats_two_proportion(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2,
                            struct pg_prop_test *out)
{
        double p, se;

        if (n1 == 0 || n2 == 0 || x1 > n1 || x2 > n2)
                return pg_error_set(PG_EINPUT,
                                    "a proportion test needs 0 <= x <= n and n > 0 (got "
                                    "%llu/%llu and %llu/%llu)",
                                    (unsigned long long) x1, (unsigned long long) n1,
                                    (unsigned long long) x2, (unsigned long long) n2);
        memset(out, 0, sizeof(*out));
        out->p1 = (double) x1 / (double) n1;
        out->p2 = (double) x2 / (double) n2;
        p = ((double) x1 + (double) x2) / ((double) n1 + (double) n2);
        se = sqrt(p * (1 - p) * (1 / (double) n1 + 1 / (double) n2));
        if (!(se > 0)) {
                out->p_value = 1;
                return 0;
        }
        out->z = (out->p2 - out->p1) / se;
        out->p_value = fmin(1.0, 2 * pg_stats_normal_sf(fabs(out->z)));
        return 0;
}

/* Pearson's X2 of the runs of one side about its own proportion; adds the
 * runs with samples to *runs */
static double pg_runs_pearson(const uint64_t *x, const uint64_t *n, size_t r, uint64_t sx,
                              uint64_t sn, size_t *runs)
{
        double p = (double) sx / (double) sn, x2 = 0;

        for (size_t j = 0; j < r; j++) {
                double e;

                if (n[j] == 0)
                        continue;
                (*runs)++;
                e = (double) n[j] * p;
                if (p > 0 && p < 1)
                        x2 += ((double) x[j] - e) * ((double) x[j] - e) / (e * (1 - p));
        }
        return x2;
}

/* The totals of one side's runs into *@sx, *@sn; PG_EINPUT when x > n */
static int pg_runs_sum(const uint64_t *x, const uint64_t *n, size_t r, uint64_t *sx, uint64_t *sn)
{
        for (size_t j = 0; j < r; j++) {
                if (x[j] > n[j])
                        return pg_error_set(PG_EINPUT,
                                            "run %zu has more samples of a function (%llu) than "
                                            "in all (%llu)",
                                            j + 1, (unsigned long long) x[j],
                                            (unsigned long long) n[j]);
                *sx += x[j];
                *sn += n[j];
        }
        return 0;
}

int pg_stats_two_proportion_runs(const uint64_t *x1, const uint64_t *n1, size_t r1,
                                 const uint64_t *x2, const uint64_t *n2, size_t r2,
                                 struct pg_prop_test *out)
{
        uint64_t s[4] = { 0 };
        size_t runs = 0;
        double chi2;
        int error;

        if ((error = pg_runs_sum(x1, n1, r1, &s[0], &s[1])) < 0 ||
            (error = pg_runs_sum(x2, n2, r2, &s[2], &s[3])) < 0)
                return error;
        if ((error = pg_stats_two_proportion(s[0], s[1], s[2], s[3], out)) < 0)
                return error;
        chi2 = pg_runs_pearson(x1, n1, r1, s[0], s[1], &runs) +
               pg_runs_pearson(x2, n2, r2, s[2], s[3], &runs);
        /* phi from 1 degree of freedom is no estimate (X2 on 1 df lies
         * between 0.001 and 5.0 times its mean 19 times in 20): a side
         * sampled once beside a side sampled twice took a regression of
         * +19 pp to p = 0.008 on a machine at load 25 */
        if (runs < 4)
                return 0;
        out->df = (unsigned) (runs - 2);
        out->phi = chi2 / (double) out->df;
        if (out->phi <= 1) {
                /* the runs vary no more than sampling alone makes them: the
                 * binomial variance, known, not estimated: the plain test */
                out->phi = 1;
                return 0;
        }
        /* against the normal, phi taken as known: Student's t(df) with the
         * 3 to 8 degrees of freedom of 3 to 5 runs a side missed a function
         * whose own time tripled (dedup_count +23 pp, p = 0.019: docs/compare.md) */
        out->z /= sqrt(out->phi);
        out->p_value = fmin(1.0, 2 * pg_stats_normal_sf(fabs(out->z)));
        return 0;
}

int pg_stats_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double conf,
                            struct pg_hl *out)
{
        size_t m = na * nb, k;
        double *d, alpha_half = (1 - conf) / 2, cover;

        if (na == 0 || nb == 0)
                return pg_error_set(PG_EINPUT, "a shift estimate needs values on both sides");
        if (!(conf > 0 && conf < 1))
                return pg_error_set(PG_EINPUT, "confidence level %g is not in (0, 1)", conf);
        d = pg_xmalloc(m * sizeof(*d));
        for (size_t i = 0; i < na; i++)
                for (size_t j = 0; j < nb; j++)
                        d[i * nb + j] = b[j] - a[i];
        qsort(d, m, sizeof(*d), pg_dbl_cmp);
        if (na <= PG_MWU_EXACT_MAX && nb <= PG_MWU_EXACT_MAX) {
                /* no-ties null distribution of R_a: ranks 1..N, doubled */
                size_t n = na + nb;
                long *r2 = pg_xmalloc(n * sizeof(*r2)), smax;
                double *dist, all = 0, cum = 0, base = (double) na * (double) (na + 1);
                for (size_t i = 0; i < n; i++)
                        r2[i] = 2 * (long) (i + 1);
                dist = pg_rank_sum_dist(r2, n, na, &smax);
                for (long s = 0; s <= smax; s++)
                        all += dist[s];
                /* P(U <= u) with U = (R2 - na(na+1)) / 2; find the largest k
                 * with P(U <= k - 1) <= alpha/2 */
                k = 1;
                cover = 1 - 2 * dist[(long) base] / all;
                for (size_t u = 0; u < m; u++) {
                        long s = (long) (2 * u + base);
                        cum += s <= smax ? dist[s] : 0;
                        if (cum / all > alpha_half)
                                break;
                        k = u + 1;
                        cover = 1 - 2 * cum / all;
                }
                free(dist);
                free(r2);
        } else {
                double z = pg_normal_isf(alpha_half);
                double c = (double) m / 2 - z * sqrt((double) m * (double) (na + nb + 1) / 12);
                k = c < 1 ? 1 : (size_t) floor(c);
                cover = conf;
        }
        if (k > (m + 1) / 2)
                k = (m + 1) / 2;
        out->shift = pg_median_sorted(d, m);
        out->lo = d[k - 1];
        out->hi = d[m - k];
        out->conf = cover;
        free(d);
        return 0;
}

double pg_stats_mwu_best_p(size_t na, size_t nb)
{
        double *v;
        struct pg_mwu m;

        if (!na || !nb)
                return 1;
        v = pg_xcalloc(na + nb, sizeof(double));
        for (size_t i = 0; i < na + nb; i++)
                v[i] = (double) i;
        if (pg_stats_mann_whitney(v, na, v + na, nb, &m) < 0)
                m.p_value = 1;
        free(v);
        return m.p_value;
}
