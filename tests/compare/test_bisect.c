/*
 * test_bisect.c - the bisection search (compare/bisect.h): on 16 commits
 * (GOOD, 14 between, BAD) every first bad commit is found in at most 4
 * tests, as git bisect does; a skipped commit is stepped around and, when it
 * is left inside the final interval, reported as a possible first bad
 * commit; the hint of stored values; and the classing rule of a commit from its comparisons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>

#include "compare/bisect.h"

/* Run the search with a first bad commit @first and commits @skip (index,
 * or 0) that cannot be built; return the tests made. */
static size_t search(size_t n, size_t first, size_t skip, size_t *found, size_t *nskipped)
{
        struct pg_bisect b;
        size_t tests = 0;

        pg_bisect_init(&b, n);
        for (size_t m; (m = pg_bisect_next(&b)) != 0;) {
                assert_true(m > 0 && m < n);
                assert_int_equal(b.marks[m], PG_BISECT_UNTESTED);
                tests++;
                if (m == skip)
                        b.marks[m] = PG_BISECT_SKIP;
                else
                        b.marks[m] = m >= first ? PG_BISECT_BAD : PG_BISECT_GOOD;
        }
        pg_bisect_result(&b, found, nskipped);
        pg_bisect_release(&b);
        return tests;
}

static void test_bisect_finds_every_first_bad_in_log2_steps(void **state)
{
        (void) state;
        for (size_t first = 1; first <= 15; first++) {
                size_t found, nskipped;
                size_t tests = search(15, first, 0, &found, &nskipped);
                assert_int_equal(found, first);
                assert_int_equal(nskipped, 0);
                assert_true(tests <= 4); /* ceil(log2(15)) */
        }
}

static void test_bisect_steps_around_a_skipped_commit(void **state)
{
        size_t found, nskipped;
        (void) state;
        /* commit 12 of the scripted repository is index 11; the regression
         * at commit 11 is index 10 */
        search(15, 10, 11, &found, &nskipped);
        assert_int_equal(found, 10);
        assert_int_equal(nskipped, 0);
        /* the skipped commit is the first bad one: it cannot be told from
         * the next one, and is reported as a possibility */
        search(15, 11, 11, &found, &nskipped);
        assert_int_equal(found, 12);
        assert_int_equal(nskipped, 1);
}

static void test_bisect_range_of_one_commit_needs_no_test(void **state)
{
        struct pg_bisect b;
        size_t found, nskipped;
        (void) state;
        pg_bisect_init(&b, 1);
        assert_int_equal(pg_bisect_next(&b), 0);
        pg_bisect_result(&b, &found, &nskipped);
        assert_int_equal(found, 1);
        pg_bisect_release(&b);
}

static void test_bisect_classify(void **state)
{
        struct pg_confirm_look g = { 0 }, b = { 0 };
        double half = log1p(0.05) / 2;
        bool guessed;
        (void) state;
        g.outcome = PG_CONFIRM_REGRESSION;
        assert_int_equal(pg_bisect_classify(&g, NULL, half, &guessed), PG_BISECT_BAD);
        assert_false(guessed);
        g.outcome = PG_CONFIRM_NO_REGRESSION;
        assert_int_equal(pg_bisect_classify(&g, NULL, half, &guessed), PG_BISECT_GOOD);
        /* undecided against GOOD: BAD's comparison decides */
        g.outcome = PG_CONFIRM_INCONCLUSIVE;
        b.outcome = PG_CONFIRM_REGRESSION; /* BAD slower than it: it is like GOOD */
        assert_int_equal(pg_bisect_classify(&g, &b, half, &guessed), PG_BISECT_GOOD);
        b.outcome = PG_CONFIRM_NO_REGRESSION;
        assert_int_equal(pg_bisect_classify(&g, &b, half, &guessed), PG_BISECT_BAD);
        assert_false(guessed);
        /* neither decided: the nearer end, flagged as a guess */
        b.outcome = PG_CONFIRM_INCONCLUSIVE;
        g.estimate = 0.04;
        assert_int_equal(pg_bisect_classify(&g, &b, half, &guessed), PG_BISECT_BAD);
        assert_true(guessed);
        g.estimate = 0.01;
        assert_int_equal(pg_bisect_classify(&g, &b, half, &guessed), PG_BISECT_GOOD);
        assert_true(guessed);
}

static void test_bisect_hint_largest_rise(void **state)
{
        /* stored at commits 0, 3, 6, 9, 12, 15: the rise is between 9 and 12 */
        const size_t idx[] = { 0, 3, 6, 9, 12, 15 };
        const double v[] = { 100, 99, 101, 100, 105.5, 104 };
        const double flat[] = { 100, 99, 98, 97, 96, 95 };
        size_t lo = 0, hi = 0;
        (void) state;
        assert_true(pg_bisect_hint(idx, v, 6, 0.02, &lo, &hi));
        assert_int_equal(lo, 9);
        assert_int_equal(hi, 12);
        assert_false(pg_bisect_hint(idx, flat, 6, 0.02, &lo, &hi));
        /* a rise below the floor is noise of the stored runs */
        assert_false(pg_bisect_hint(idx, v, 6, 0.06, &lo, &hi));
        assert_false(pg_bisect_hint(idx, v, 1, 0.02, &lo, &hi));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bisect_finds_every_first_bad_in_log2_steps),
                cmocka_unit_test(test_bisect_steps_around_a_skipped_commit),
                cmocka_unit_test(test_bisect_range_of_one_commit_needs_no_test),
                cmocka_unit_test(test_bisect_classify),
                cmocka_unit_test(test_bisect_hint_largest_rise),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
