/*
 * changepoint.c - E-divisive means with a rank-test significance check
 * (changepoint.h has the method and its sources).
 *
 * The within-segment sums of |x_i - x_j| are built incrementally: W_L(tau)
 * over pairs before tau grows by sum_{i<tau} |x_i - x_tau| per step, W_R
 * likewise from the end, and the between sum is the whole segment's pair
 * sum less both, so one segment costs O(n^2) and no n x n matrix is stored.
 */
#include "compare/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "compare/stats.h"

void pg_cp_opts_init(struct pg_cp_opts *o)
{
        o->alpha = PG_CP_DEFAULT_ALPHA;
        o->min_effect = PG_CP_DEFAULT_MIN_EFFECT;
        o->min_size = PG_CP_DEFAULT_MIN_SIZE;
}

void pg_cp_edivisive_q(const double *x, size_t n, size_t min_size, double *q)
{
        double *wl, *wr;

        memset(q, 0, n * sizeof(*q));
        if (min_size < 2 || n < 2 * min_size)
                return;
        wl = pg_xcalloc(n + 1, sizeof(*wl));
        wr = pg_xcalloc(n + 1, sizeof(*wr));
        /* wl[t]: pair sum within x[0..t); wr[t]: within x[t..n) */
        for (size_t t = 1; t < n; t++) {
                double s = 0;
                for (size_t i = 0; i < t; i++)
                        s += fabs(x[i] - x[t]);
                wl[t + 1] = wl[t] + s;
        }
        for (size_t t = n - 1; t-- > 0;) {
                double s = 0;
                for (size_t j = t + 1; j < n; j++)
                        s += fabs(x[j] - x[t]);
                wr[t] = wr[t + 1] + s;
        }
        for (size_t t = min_size; t + min_size <= n; t++) {
                double m = (double) t, k = (double) (n - t);
                double between = wl[n] - wl[t] - wr[t];
                double e =
                    2.0 * between / (m * k) - wl[t] / (m * (m - 1) / 2) - wr[t] / (k * (k - 1) / 2);
                q[t] = m * k / (m + k) * e;
        }
        free(wl);
        free(wr);
}

struct pg_cp_list {
        size_t n, cap;
        struct pg_changepoint *items;
};

/* Binary segmentation of x[lo, hi): the best split, kept when significant,
 * then both halves. */
static void pg_cp_search(const double *x, size_t lo, size_t hi, const struct pg_cp_opts *o,
                         double *q, struct pg_cp_list *l)
{
        size_t n = hi - lo, best = 0, candidates;
        struct pg_mwu mwu;
        double p;

        if (n < 2 * o->min_size)
                return;
        pg_cp_edivisive_q(x + lo, n, o->min_size, q);
        for (size_t t = o->min_size; t + o->min_size <= n; t++)
                if (best == 0 || q[t] > q[best])
                        best = t;
        candidates = n - 2 * o->min_size + 1;
        if (pg_stats_mann_whitney(x + lo, best, x + lo + best, n - best, &mwu) < 0)
                return;
        p = mwu.p_value * (double) candidates;
        if (p > 1)
                p = 1;
        if (!(p < o->alpha) || !(q[best] > 0))
                return;
        if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 8;
                l->items = pg_xreallocarray(l->items, l->cap, sizeof(*l->items));
        }
        memset(&l->items[l->n], 0, sizeof(l->items[0]));
        l->items[l->n].index = lo + best;
        l->items[l->n].p_value = p;
        l->items[l->n].q = q[best];
        l->n++;
        pg_cp_search(x, lo, lo + best, o, q, l);
        pg_cp_search(x, lo + best, hi, o, q, l);
}

static int pg_cp_cmp(const void *a, const void *b)
{
        const struct pg_changepoint *x = a, *y = b;
        return x->index < y->index ? -1 : x->index > y->index;
}

/* Medians of the segments around each change point, and the effects. */
static void pg_cp_effects(const double *x, size_t n, struct pg_changepoint *cp, size_t ncp)
{
        for (size_t i = 0; i < ncp; i++) {
                size_t lo = i ? cp[i - 1].index : 0, hi = i + 1 < ncp ? cp[i + 1].index : n;
                cp[i].before = pg_stats_median(x + lo, cp[i].index - lo);
                cp[i].after = pg_stats_median(x + cp[i].index, hi - cp[i].index);
                cp[i].has_effect = cp[i].before != 0;
                cp[i].effect = cp[i].has_effect ? cp[i].after / cp[i].before - 1 : 0;
        }
}

int pg_changepoints_find(const double *x, size_t n, const struct pg_cp_opts *opts,
                         struct pg_changepoint **out, size_t *nout)
{
        struct pg_cp_opts o;
        struct pg_cp_list l = { 0, 0, NULL };
        double *q;

        *out = NULL;
        *nout = 0;
        pg_cp_opts_init(&o);
        if (opts) {
                if (opts->alpha > 0)
                        o.alpha = opts->alpha;
                o.min_effect = opts->min_effect < 0 ? 0 : opts->min_effect;
                if (opts->min_size)
                        o.min_size = opts->min_size;
        }
        if (o.min_size < 2)
                return pg_error_set(PG_EINPUT,
                                    "a change point needs at least 2 points on each "
                                    "side (min_size %zu)",
                                    o.min_size);
        for (size_t i = 0; i < n; i++)
                if (!isfinite(x[i]))
                        return pg_error_set(PG_EINPUT, "value %zu of the series is not finite", i);
        if (n < 2 * o.min_size)
                return 0;
        q = pg_xcalloc(n, sizeof(*q));
        pg_cp_search(x, 0, n, &o, q, &l);
        free(q);
        if (l.n == 0) {
                free(l.items);
                return 0;
        }
        qsort(l.items, l.n, sizeof(*l.items), pg_cp_cmp);
        /* drop the weakest change below min_effect, one at a time: removing one
         * merges two segments and moves its neighbours' effects */
        for (;;) {
                size_t weakest = l.n;
                pg_cp_effects(x, n, l.items, l.n);
                for (size_t i = 0; i < l.n; i++) {
                        double e = l.items[i].has_effect ? fabs(l.items[i].effect) : 0;
                        if (e < o.min_effect &&
                            (weakest == l.n || e < fabs(l.items[weakest].effect)))
                                weakest = i;
                }
                if (weakest == l.n)
                        break;
                memmove(&l.items[weakest], &l.items[weakest + 1],
                        (l.n - weakest - 1) * sizeof(*l.items));
                l.n--;
        }
        if (l.n == 0) {
                free(l.items);
                return 0;
        }
        *out = l.items;
        *nout = l.n;
        return 0;
}
