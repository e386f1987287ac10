/*
 * cases.h - table-driven cmocka tests: one test function run once per row of
 * a table of cases, each row a test of its own in cmocka's output (named by
 * the row) and receiving the row as its state. Include after <cmocka.h>.
 */
#ifndef PG_TEST_CASES_H
#define PG_TEST_CASES_H

#include <stdlib.h>

#define PG_NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/**
 * Runs @tests (@ntests entries), then @fn once per row of @rows: @nrows rows
 * of @row_size bytes each, whose first member is the row's test name
 * (`const char *`). Each row's test gets a pointer to the row in `*state`
 * (const: the function must not write through it), with @setup and
 * @teardown (either may be NULL) around it; they must leave `*state` alone.
 * Returns what cmocka_run_group_tests() returns: the number of failed tests.
 */
static inline int pg_run_tests_and_cases(const struct CMUnitTest *tests, size_t ntests,
                                         CMUnitTestFunction fn, CMFixtureFunction setup,
                                         CMFixtureFunction teardown, const void *rows,
                                         size_t row_size, size_t nrows)
{
        struct CMUnitTest *all = calloc(ntests + nrows, sizeof(*all));
        int failed;

        if (!all)
                abort();
        for (size_t i = 0; i < ntests; i++)
                all[i] = tests[i];
        for (size_t i = 0; i < nrows; i++) {
                const char *row = (const char *) rows + i * row_size;
                all[ntests + i].name = *(const char *const *) row;
                all[ntests + i].test_func = fn;
                all[ntests + i].setup_func = setup;
                all[ntests + i].teardown_func = teardown;
                all[ntests + i].initial_state = (void *) row;
        }
        failed = _cmocka_run_group_tests("tests", all, ntests + nrows, NULL, NULL);
        free(all);
        return failed;
}

#endif
