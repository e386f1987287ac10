/*
 * test_compare_machine.c - `perfgate compare REV` when the data branch has
 * no baseline for this machine but has one at a searched commit under
 * another machine name (a baseline job and a PR job configured with
 * different machine names): the "nothing to compare" line names those
 * machines and says how to match them; exit 0, or 2 with
 * --require-baseline (docs/baseline.md, "How compare finds a baseline").
 * A real repository built with libgit2, the real binary.
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
#include "tests/util/store_fixture.h"
#include "tests/util/testutil.h"

static void test_compare_machine_names_the_machines_with_a_baseline(void **state)
{
        const char *sb = fx_sandbox();
        char *path = pg_xasprintf("%s/work", sb);
        git_repository *repo = fx_init(path, false);
        git_oid c0, c1, c2;
        struct pg_run_out o;
        char *md;
        (void) state;

        /* main: c0 - c1 - c2; the PR branch sits at c1 (merge-base c1, and
         * the walk searches c1 then c0) */
        fx_commit(repo, "refs/heads/main", NULL, 0, "src.c", "int a;\n", 1000, &c0);
        fx_commit(repo, "refs/heads/main", &c0, 1, "src.c", "int b;\n", 2000, &c1);
        fx_commit(repo, "refs/heads/main", &c1, 1, "src.c", "int c;\n", 3000, &c2);
        assert_int_equal(chdir(path), 0);
        /* baselines at c1 under 'ci-runner-a' and 'ci-runner-b', at c2 only
         * (not searched) under 'later' */
        fx_checkout(repo, "main");
        fx_result_file("later", "parse", fx_hex(&c2), "later", false, 1e6);
        FX_PERFGATE(&o, 0, "baseline", "save", "--results", "later");
        pg_run_out_release(&o);
        fx_commit(repo, "refs/heads/pr", &c0, 1, "src.c", "int b;\n", 2000, &c1);
        fx_checkout(repo, "pr");
        fx_result_file("ra", "parse", fx_hex(&c1), "ci-runner-a", false, 1e6);
        fx_result_file("rb", "parse", fx_hex(&c1), "ci-runner-b", false, 1e6);
        FX_PERFGATE(&o, 0, "baseline", "save", "--results", "ra");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 0, "baseline", "save", "--results", "rb");
        pg_run_out_release(&o);
        /* the PR's results, measured on machine 'default' */
        fx_result_file(".perfgate/results", "parse", fx_hex(&c1), "default", false, 1e6);

        FX_PERFGATE(&o, 0, "compare", "main", "--markdown", "report/comment.md");
        fx_expect(&o.out, "no baseline for 'main' on machine 'default'");
        /* the PR comment, what a CI user sees, says the same */
        md = pg_test_read("report/comment.md");
        if (!strstr(md, "### perfgate: no baseline yet"))
                fail_msg("%s", md);
        if (!strstr(md, "Baselines there exist for machine(s) ci-runner-a, "
                        "ci-runner-b: give the baseline job and this job the "
                        "same machine name"))
                fail_msg("%s", md);
        free(md);
        fx_expect(&o.out, "Baselines there exist for machine(s) ci-runner-a, ci-runner-b: pass "
                          "--machine NAME, or give the baseline job and this job the same "
                          "machine name");
        assert_null(strstr(o.out.ptr, "later"));
        assert_null(strstr(o.out.ptr, "Record one with"));
        pg_run_out_release(&o);

        FX_PERFGATE(&o, 2, "compare", "main", "--require-baseline");
        fx_expect(&o.err, "perfgate: error: no baseline for 'main' on machine 'default'");
        fx_expect(&o.err, "machine(s) ci-runner-a, ci-runner-b");
        pg_run_out_release(&o);

        /* the machine named: the comparison happens */
        FX_PERFGATE(&o, 0, "compare", "main", "--machine", "ci-runner-a");
        assert_null(strstr(o.out.ptr, "no baseline"));
        fx_expect(&o.out, "parse");
        pg_run_out_release(&o);

        /* --max-walk 0 searches the merge-base only: still c1 */
        FX_PERFGATE(&o, 0, "compare", "main", "--machine", "nowhere", "--max-walk", "0");
        fx_expect(&o.out, "on machine 'nowhere'");
        fx_expect(&o.out, "machine(s) ci-runner-a, ci-runner-b:");
        pg_run_out_release(&o);

        /* no other machine at a searched commit (base0 = c0, the root): the
         * advice to record one */
        fx_tag(repo, "base0", &c0);
        FX_PERFGATE(&o, 0, "compare", "base0");
        fx_expect(&o.out, "no baseline for 'base0' on machine 'default'");
        fx_expect(&o.out, "Record one with 'perfgate baseline save' on base0.");
        assert_null(strstr(o.out.ptr, "Baselines there exist"));
        pg_run_out_release(&o);

        git_repository_free(repo);
        free(path);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_compare_machine_names_the_machines_with_a_baseline),
        };
        return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
