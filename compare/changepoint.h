/*
 * changepoint.h - change points of a series of per-commit values: where the
 * level of a benchmark's metric moved and stayed.
 *
 * Method: E-divisive means (Matteson & James 2014, "A Nonparametric
 * Approach for Multiple Change Point Analysis of Multivariate Data", JASA
 * 109:334-345), the detector of MongoDB's performance CI (Daly et al.,
 * "Change Point Detection in Software Performance Testing", ICPE 2020) and
 * of Apache Otava (formerly Hunter): within a segment, the split that
 * maximises the energy-distance statistic (exponent alpha = 1)
 *   Q(tau) = m k / (m + k) * ( 2/(m k) sum |X_i - Y_j|
 *                              - 1/C(m,2) sum_{i<j} |X_i - X_j|
 *                              - 1/C(k,2) sum_{i<j} |Y_i - Y_j| )
 * (X the m values before tau, Y the k values from tau on) is the candidate;
 * if it is significant the segment is split there and both halves are
 * searched again (binary segmentation); otherwise the search stops.
 *
 * Significance: Matteson & James use a permutation test, which is random
 * and costs a full scan per permutation; Otava replaces it with a Student
 * t-test of the two sides. perfgate uses the two-sided Mann-Whitney U test
 * of the two sides (compare/stats.h), because per-commit values on shared
 * runners are heavy-tailed and bimodal (docs/compare.md), with a Bonferroni
 * correction for the choice of the split among the m + k - 2 min_size + 1
 * candidates (p x candidates < alpha), so that the chance of a false change
 * point in a segment of pure noise is at most alpha whichever split the
 * statistic picks. Results are deterministic: no random numbers.
 *
 * A significant split is kept only when its effect, the relative change of
 * the medians of the neighbouring segments, is at least min_effect; points
 * dropped for that merge their segments and the effects are recomputed.
 */
#ifndef PG_COMPARE_CHANGEPOINT_H
#define PG_COMPARE_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>

#define PG_CP_DEFAULT_ALPHA      0.001
#define PG_CP_DEFAULT_MIN_EFFECT 0.01
#define PG_CP_DEFAULT_MIN_SIZE   3

struct pg_cp_opts {
        double alpha;      /* significance level after the Bonferroni factor; 0: default */
        double min_effect; /* smallest |relative change of medians| kept (0.01 = 1%); < 0: 0 */
        size_t min_size;   /* fewest points on each side of a split (>= 2); 0: default */
};

/** Fill @o with the defaults above. */
void pg_cp_opts_init(struct pg_cp_opts *o);

/** One change point. */
struct pg_changepoint {
        size_t index;    /* first point of the new level (1 <= index < n) */
        double before;   /* median of the segment before it (up to the previous change) */
        double after;    /* median of the segment from it (up to the next change) */
        bool has_effect; /* before != 0, so effect is defined */
        double effect;   /* after / before - 1 (0.04 = +4%) */
        double p_value;  /* Mann-Whitney p of the split when found, x the Bonferroni factor */
        double q;        /* the E-divisive statistic Q(tau) at the split */
};

/**
 * Find the change points of @x (@n finite values, in commit order).
 * @out: set to a new array of *nout change points sorted by index (free());
 * NULL when there are none.
 * Errors: PG_EINPUT when a value is not finite or min_size < 2.
 */
int pg_changepoints_find(const double *x, size_t n, const struct pg_cp_opts *o,
                         struct pg_changepoint **out, size_t *nout);

/**
 * The Q(tau) statistic above for every split @tau of @x in [min_size,
 * n - min_size], written to q[tau] (other entries 0); q has @n entries.
 * O(n^2) time, O(n) memory. Exposed for tests that check it against a
 * direct evaluation of the definition.
 */
void pg_cp_edivisive_q(const double *x, size_t n, size_t min_size, double *q);

#endif
