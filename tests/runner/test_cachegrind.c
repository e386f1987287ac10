/*
 * test_cachegrind.c - the cachegrind output parser on real valgrind output
 * of a fixture (totals equal the summary valgrind printed; the fixture's own
 * functions are found with their source file and hot line), and on broken
 * files: truncated (costs do not add up), garbage lines, missing headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "runner/cachegrind.h"
#include "tests/util/testutil.h"

static const char pg_small[] = "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
                               "cmd: ./app x\n"
                               "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
                               "fl=a.c\n"
                               "fn=hot\n"
                               "10 100 1 1 40 4 2 10 1 0 20 5 2 1\n"
                               "11 300 0 0 60 6 1\n"
                               "fl=b.h\n"
                               "fn=hot\n"
                               "3 50\n"
                               "fn=cold\n"
                               "7 10 0 0 0 0 0 0 0 0 1\n"
                               "summary: 460 1 1 100 10 3 10 1 0 21 5 2 1\n";

static void test_cachegrind_parse_and_counters(void **state)
{
        struct pg_cg cg;
        double c[PG_CG_NCOUNTERS];
        (void) state;

        assert_int_equal(pg_cg_parse(&cg, pg_small, strlen(pg_small), "small"), 0);
        assert_int_equal(cg.nevents, 13);
        assert_string_equal(cg.cmd, "./app x");
        assert_int_equal(cg.nfuncs, 2);
        assert_string_equal(cg.funcs[0].name, "cold");
        assert_string_equal(cg.funcs[1].name, "hot");
        assert_int_equal(cg.funcs[1].costs[0], 450); /* merged over a.c and b.h */
        assert_string_equal(cg.funcs[1].file, "a.c");
        assert_int_equal(cg.funcs[1].hot_line, 11);
        pg_cg_counters(&cg, cg.totals, c);
        assert_true(c[PG_CG_INSTRUCTIONS] == 460);
        assert_true(c[PG_CG_BRANCHES] == 23);
        assert_true(c[PG_CG_BRANCH_MISSES] == 6);
        assert_true(c[PG_CG_L1D_LOADS] == 100);
        assert_true(c[PG_CG_L1D_LOAD_MISSES] == 10);
        assert_true(c[PG_CG_LLC_LOADS] == 10);
        assert_true(c[PG_CG_LLC_LOAD_MISSES] == 3);
        /* RAM = 1+3+0 = 4; LL = 1+10+1-4 = 8; L1 = 460+100+10-(8+4) = 558 */
        assert_true(c[PG_CG_CYCLES] == 558 + 5 * 8 + 35 * 4);
        assert_string_equal(pg_cg_counter_name(PG_CG_LLC_LOAD_MISSES), "LLC-load-misses");
        pg_cg_release(&cg);
}

static void pg_expect_bad(const char *text, const char *needle)
{
        struct pg_cg cg;
        assert_int_equal(pg_cg_parse(&cg, text, strlen(text), "f"), PG_EINPUT);
        if (!strstr(pg_error_last(), needle))
                fail_msg("'%s' lacks '%s'", pg_error_last(), needle);
        assert_int_equal(cg.nfuncs, 0);
}

static void test_cachegrind_broken_files(void **state)
{
        char *cut;
        (void) state;

        /* truncated before the summary, and truncated with a wrong summary */
        cut = strndup(pg_small, strstr(pg_small, "fn=cold") - pg_small);
        pg_expect_bad(cut, "truncated");
        free(cut);
        pg_expect_bad("events: Ir\nfl=a\nfn=f\n1 5\nsummary: 6\n", "add up to 5");
        pg_expect_bad("events: Ir\nfl=a\nfn=f\n1 5x\nsummary: 5\n", "line 4: malformed cost");
        pg_expect_bad("events: Ir\n1 5\nsummary: 5\n", "outside a function");
        pg_expect_bad("fl=a\nfn=f\n", "before events");
        pg_expect_bad("", "no 'events:'");
        pg_expect_bad("events: Ir\nfl=a\nfn=f\n1 5 6\nsummary: 11\n", "malformed cost");
        pg_expect_bad("events: Ir\nbogus\n", "line 2: unrecognised");
        pg_expect_bad("events: Ir\nfl=a\nfn=f\n1 99999999999999999999999\nsummary: 1\n",
                      "malformed");
}

static void test_cachegrind_real_valgrind_output(void **state)
{
        struct pg_run_out o;
        struct pg_cg cg;
        char *text;
        int found = 0;
        (void) state;

        pg_test_sandbox();
        {
                char *argv[] = { "valgrind",
                                 "--tool=cachegrind",
                                 "--cache-sim=yes",
                                 "--branch-sim=yes",
                                 "--cachegrind-out-file=cg.out",
                                 (char *) pg_test_fixture("fp_with"),
                                 "x",
                                 NULL };
                if (access("/usr/bin/valgrind", X_OK) != 0) {
                        skip();
                        return;
                }
                assert_int_equal(pg_test_run(&o, NULL, argv), 0);
                pg_run_out_release(&o);
        }
        text = pg_test_read("cg.out");
        assert_int_equal(pg_cg_parse(&cg, text, strlen(text), "cg.out"), 0);
        assert_string_equal(cg.events[0], "Ir");
        assert_true(cg.totals[0] > 10000);
        for (size_t i = 0; i < cg.nfuncs; i++)
                if (strcmp(cg.funcs[i].name, "work_b") == 0) {
                        found = 1;
                        assert_non_null(strstr(cg.funcs[i].file, "fpcheck.c"));
                        assert_true(cg.funcs[i].hot_line > 0);
                        assert_true(cg.funcs[i].costs[0] > 0);
                }
        assert_true(found);
        pg_cg_release(&cg);
        free(text);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cachegrind_parse_and_counters),
                cmocka_unit_test(test_cachegrind_broken_files),
                cmocka_unit_test(test_cachegrind_real_valgrind_output),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
