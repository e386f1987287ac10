/*
 * bisect.c - the bisection search and the rule that classes a commit
 * (bisect.h). Invariant: marks[0] is good and marks[n] bad; the bounds are
 * recomputed from the marks each time, so a mark can be given in any order.
 */
#include <math.h>
#include <stdlib.h>

#include "common/buf.h"
#include "compare/bisect.h"

void pg_bisect_init(struct pg_bisect *b, size_t n)
{
        b->n = n;
        b->marks = pg_xcalloc(n + 1, sizeof(*b->marks));
        b->marks[0] = PG_BISECT_GOOD;
        b->marks[n] = PG_BISECT_BAD;
}

void pg_bisect_release(struct pg_bisect *b)
{
        free(b->marks);
        b->marks = NULL;
        b->n = 0;
}

void pg_bisect_bounds(const struct pg_bisect *b, size_t *lo, size_t *hi)
{
        size_t l = 0, h;
        for (size_t i = 0; i <= b->n; i++)
                if (b->marks[i] == PG_BISECT_GOOD)
                        l = i;
        h = b->n;
        for (size_t i = l + 1; i <= b->n; i++)
                if (b->marks[i] == PG_BISECT_BAD) {
                        h = i;
                        break;
                }
        *lo = l;
        *hi = h;
}

size_t pg_bisect_next(const struct pg_bisect *b)
{
        size_t lo, hi, best = 0;
        double mid, dist = 0;

        pg_bisect_bounds(b, &lo, &hi);
        mid = ((double) lo + (double) hi) / 2.0;
        for (size_t i = lo + 1; i < hi; i++) {
                double d = fabs((double) i - mid);
                if (b->marks[i] != PG_BISECT_UNTESTED)
                        continue;
                if (best == 0 || d < dist) {
                        best = i;
                        dist = d;
                }
        }
        return best;
}

size_t pg_bisect_left(const struct pg_bisect *b)
{
        size_t lo, hi, n = 0;
        pg_bisect_bounds(b, &lo, &hi);
        for (size_t i = lo + 1; i < hi; i++)
                n += b->marks[i] == PG_BISECT_UNTESTED;
        return n;
}

void pg_bisect_result(const struct pg_bisect *b, size_t *first, size_t *nskipped)
{
        size_t lo, hi, n = 0;
        pg_bisect_bounds(b, &lo, &hi);
        for (size_t i = lo + 1; i < hi; i++)
                n += b->marks[i] == PG_BISECT_SKIP;
        *first = hi;
        *nskipped = n;
}

enum pg_bisect_mark pg_bisect_classify(const struct pg_confirm_look *vs_good,
                                       const struct pg_confirm_look *vs_bad, double half_log,
                                       bool *guessed)
{
        *guessed = false;
        if (vs_good->outcome == PG_CONFIRM_REGRESSION)
                return PG_BISECT_BAD;
        if (vs_good->outcome == PG_CONFIRM_NO_REGRESSION)
                return PG_BISECT_GOOD;
        if (vs_bad && vs_bad->outcome == PG_CONFIRM_REGRESSION)
                return PG_BISECT_GOOD;
        if (vs_bad && vs_bad->outcome == PG_CONFIRM_NO_REGRESSION)
                return PG_BISECT_BAD;
        *guessed = true;
        return log1p(vs_good->estimate) > half_log ? PG_BISECT_BAD : PG_BISECT_GOOD;
}

bool pg_bisect_hint(const size_t *idx, const double *value, size_t n, double min_log, size_t *lo,
                    size_t *hi)
{
        double best = 0;
        bool found = false;

        for (size_t k = 1; k < n; k++) {
                double r;
                if (!(value[k] > 0) || !(value[k - 1] > 0))
                        continue;
                r = log(value[k] / value[k - 1]);
                if (r >= min_log && (!found || r > best)) {
                        best = r;
                        *lo = idx[k - 1];
                        *hi = idx[k];
                        found = true;
                }
        }
        return found;
}
