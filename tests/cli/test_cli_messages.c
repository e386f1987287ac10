/*
 * test_cli_messages.c - messages that must say what is wrong and what to do,
 * with the documented exit status (docs/compare.md, docs/bisect.md):
 *   - `perfgate compare --branch NAME` naming a baseline branch that exists
 *     neither locally nor on origin says so and what to do (still exit 0,
 *     "no baseline yet", or 2 with --require-baseline);
 *   - `perfgate bisect --budget/--floor/--build-timeout` with a bad value
 *     name the option, whether the value came as "--opt V" or "--opt=V".
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

#include "common/buf.h"
#include "tests/util/testutil.h"

static void test_compare_branch_that_does_not_exist(void **state)
{
        const char *sb = pg_test_sandbox();
        char *repo = pg_xasprintf("%s/repo", sb);
        char *head =
            pg_xasprintf("%s/tests/golden/compare/cases/26/head", pg_test_env("PG_SOURCE_DIR"));
        const char *init[] = { "git", "init", "-q", "-b", "main", repo, NULL };
        const char *commit[] = { "git",
                                 "-C",
                                 repo,
                                 "-c",
                                 "user.name=t",
                                 "-c",
                                 "user.email=t@t",
                                 "commit",
                                 "-q",
                                 "--allow-empty",
                                 "-m",
                                 "one",
                                 NULL };
        struct pg_run_out o;
        (void) state;

        pg_test_run(&o, NULL, (char *const *) init);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        pg_test_run(&o, NULL, (char *const *) commit);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        assert_int_equal(chdir(repo), 0);

        /* a --branch that exists neither locally nor on origin: named, with
         * what to do; still "no baseline yet" (exit 0), as before the first
         * baseline save, unless a baseline is required */
        assert_int_equal(
            pg_test_perfgate(&o, "compare", "--branch", "nosuch", "--results", head, NULL), 0);
        assert_non_null(strstr(o.out.ptr, "no baseline for 'main': the baseline branch 'nosuch' "
                                          "does not exist (neither a local branch nor "
                                          "origin/nosuch); nothing to compare."));
        assert_non_null(strstr(o.out.ptr, "Check the name given to --branch"));
        assert_non_null(strstr(o.out.ptr, "git fetch origin nosuch:nosuch"));
        assert_non_null(strstr(o.out.ptr, "'perfgate baseline save --branch nosuch' on main"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "compare", "--branch", "nosuch", "--require-baseline",
                                          "--results", head, NULL),
                         2);
        assert_non_null(strstr(o.err.ptr, "perfgate: error: no baseline for 'main': the baseline "
                                          "branch 'nosuch' does not exist"));
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);
        /* the default branch missing: named too, without the --branch advice */
        assert_int_equal(pg_test_perfgate(&o, "compare", "--results", head, NULL), 0);
        assert_non_null(
            strstr(o.out.ptr, "the baseline branch 'perfgate-baselines' does not exist"));
        assert_non_null(strstr(o.out.ptr, "'perfgate baseline save' on main"));
        assert_null(strstr(o.out.ptr, "--branch"));
        pg_run_out_release(&o);
        /* the branch exists (no baseline for main on it): the other message */
        {
                const char *mk[] = { "git", "-C", repo, "branch", "nosuch", NULL };
                pg_test_run(&o, NULL, (char *const *) mk);
                assert_int_equal(o.status, 0);
                pg_run_out_release(&o);
        }
        assert_int_equal(
            pg_test_perfgate(&o, "compare", "--branch", "nosuch", "--results", head, NULL), 0);
        assert_non_null(strstr(o.out.ptr, "no baseline for 'main' on machine"));
        assert_null(strstr(o.out.ptr, "does not exist"));
        pg_run_out_release(&o);
        free(head);
        free(repo);
        pg_test_sandbox_remove();
}

struct bad_value {
        const char *opt, *value, *joined, *want;
};

static void test_bisect_bad_values_name_the_option(void **state)
{
        static const struct bad_value cases[] = {
                { "--budget", "x", "--budget=x",
                  "--budget 'x' is not a number of pairs, 8 or more" },
                { "--budget", "7", "--budget=7",
                  "--budget '7' is not a number of pairs, 8 or more" },
                { "--budget", "12.5", "--budget=12.5", "--budget '12.5' is not a number of pairs" },
                { "--floor", "x", "--floor=x", "--floor 'x' is not a positive percentage" },
                { "--floor", "-1", "--floor=-1", "--floor '-1' is not a positive percentage" },
                { "--floor", "0%", "--floor=0%", "--floor '0%' is not a positive percentage" },
                { "--build-timeout", "0", "--build-timeout=0",
                  "--build-timeout '0' is not a positive number of seconds" },
        };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const struct bad_value *c = &cases[i];
                assert_int_equal(
                    pg_test_perfgate(&o, "bisect", c->opt, c->value, "HEAD~1", "HEAD", NULL), 2);
                if (!strstr(o.err.ptr, c->want))
                        fail_msg("%s %s: got '%s'", c->opt, c->value, o.err.ptr);
                assert_non_null(strstr(o.err.ptr, "see 'perfgate help bisect'"));
                pg_run_out_release(&o);
                assert_int_equal(pg_test_perfgate(&o, "bisect", c->joined, "HEAD~1", "HEAD", NULL),
                                 2);
                if (!strstr(o.err.ptr, c->want))
                        fail_msg("%s: got '%s'", c->joined, o.err.ptr);
                pg_run_out_release(&o);
        }
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_compare_branch_that_does_not_exist),
                cmocka_unit_test(test_bisect_bad_values_name_the_option),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
