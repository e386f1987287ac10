/*
 * bisect.h - the search of a bisection over commits 0..n (0 is GOOD, n is
 * BAD, the ones between in history order), as git-bisect(1) does it on a
 * line: each commit is marked good, bad or skipped (it did not build or
 * run); the next commit to test is the untested one nearest the middle of
 * the interval between the newest good commit and the oldest bad one after
 * it, and the search ends when that interval holds no commit left to test.
 * A skipped commit is never blamed alone: when skipped commits are left
 * inside the final interval, the first bad commit is any of them or the
 * bad end (git bisect prints "the first bad commit could be any of").
 *
 * Stored baselines can only order the tests, never decide them: the step
 * between two stored commits where the stored values rose most is tested
 * first (pg_bisect_hint), and every commit is still classed by paired runs.
 *
 * Also the rule that classes a commit between GOOD and BAD from its paired
 * comparisons (compare/confirm.h) with each end.
 *
 * Ownership: struct pg_bisect owns its marks; pg_bisect_release().
 */
#ifndef PG_COMPARE_BISECT_H
#define PG_COMPARE_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/confirm.h"

enum pg_bisect_mark {
        PG_BISECT_UNTESTED = 0,
        PG_BISECT_GOOD,
        PG_BISECT_BAD,
        PG_BISECT_SKIP,
};

struct pg_bisect {
        size_t n;                   /* index of BAD; commits 0..n */
        enum pg_bisect_mark *marks; /* n + 1 marks; marks[0] GOOD, marks[n] BAD */
};

/** Start a search over commits 0..@n (@n >= 1): 0 good, @n bad, others untested. */
void pg_bisect_init(struct pg_bisect *b, size_t n);

/** Free what @b owns. */
void pg_bisect_release(struct pg_bisect *b);

/** The interval still searched: *lo the newest good commit, *hi the oldest bad one after it. */
void pg_bisect_bounds(const struct pg_bisect *b, size_t *lo, size_t *hi);

/**
 * The next commit to test, or 0 when the search is over (commit 0 is never
 * tested). Nearest to (lo + hi) / 2 among the untested commits strictly
 * between the bounds; of two as near, the older.
 */
size_t pg_bisect_next(const struct pg_bisect *b);

/** Untested commits left strictly between the bounds. */
size_t pg_bisect_left(const struct pg_bisect *b);

/**
 * When the search is over: the first bad commit (*first, the bad bound)
 * and how many skipped commits before it might be it instead (*nskipped;
 * 0: *first is the answer).
 */
void pg_bisect_result(const struct pg_bisect *b, size_t *first, size_t *nskipped);

/**
 * Where stored values suggest the change: of the @n commits @idx (indexes
 * 0..b->n, ascending) with stored values @value (> 0, e.g. the median
 * task-clock of a stored baseline), the consecutive pair whose log ratio
 * value[k] / value[k - 1] is largest. *lo = idx[k - 1], *hi = idx[k]: test
 * those two first; if *lo is like GOOD and *hi like BAD, the first bad
 * commit is in (*lo, *hi]. Returns false (nothing to suggest) when fewer
 * than two values are given or no rise reaches @min_log (a log ratio, e.g.
 * half the measured change of the range: a smaller step is noise of the
 * stored runs).
 */
bool pg_bisect_hint(const size_t *idx, const double *value, size_t n, double min_log, size_t *lo,
                    size_t *hi);

/**
 * Class a commit M from the look of "M against GOOD" @vs_good (head M,
 * base GOOD, floor half the GOOD..BAD change) and, when that was not
 * decided, the look of "BAD against M" @vs_bad (head BAD, base M, same
 * floor; NULL when not measured). A regression against GOOD, or no
 * regression of BAD over M, is bad; the converse is good. When neither
 * decided, *guessed is set and the commit goes to the end its estimate
 * against GOOD is nearer to in log scale (@half_log = log of 1 + that
 * floor). Returns PG_BISECT_GOOD or PG_BISECT_BAD.
 */
enum pg_bisect_mark pg_bisect_classify(const struct pg_confirm_look *vs_good,
                                       const struct pg_confirm_look *vs_bad, double half_log,
                                       bool *guessed);

#endif
