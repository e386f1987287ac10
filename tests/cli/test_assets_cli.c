/*
 * test_assets_cli.c - `perfgate assets publish` on an assets branch that a
 * person edited with git itself: where --path needs a folder, the branch
 * holds a file, a symbolic link or a submodule (planted with the real git
 * CLI). publish refuses with exit 2 and names the entry and the prune that
 * removes it (libgit2 alone says "D/F conflict"); after that prune, the
 * same publish succeeds.
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

/* A repository "r" whose perfgate-assets branch holds @mode @object at
 * "pr-7/old" (so "pr-7" is a folder and "pr-7/old" the entry in the way),
 * and a directory "fg" with one image. */
static void pg_plant(const char *mode, const char *object_cmd)
{
        char *cmd = pg_xasprintf(
            "set -e; git init -q r; cd r; git -c user.name=t -c user.email=t@t commit -q "
            "--allow-empty -m init; o=$(%s); t=$(printf '%s %s %%s\\told\\n' \"$o\" | git mktree); "
            "t=$(printf '040000 tree %%s\\tpr-7\\n' \"$t\" | git mktree); c=$(git -c user.name=t "
            "-c user.email=t@t commit-tree \"$t\" -m hand-edited); git update-ref "
            "refs/heads/perfgate-assets \"$c\"; mkdir ../fg; echo '<svg/>' > ../fg/a.svg",
            object_cmd, mode, strstr(mode, "160000") ? "commit" : "blob");
        pg_test_sh(cmd);
        free(cmd);
}

static void pg_check_refused_then_pruned(const char *what)
{
        struct pg_run_out o;
        char *want =
            pg_xasprintf("'pr-7/old' on branch 'perfgate-assets' is %s, not a folder", what);
        char *tip;

        pg_test_perfgate(&o, "assets", "publish", "../fg", "--path", "pr-7/old/abc", NULL);
        assert_int_equal(o.status, 2);
        if (!strstr(o.err.ptr, want))
                fail_msg("wanted \"%s\" in:\n%s", want, o.err.ptr);
        assert_non_null(strstr(o.err.ptr, "'perfgate assets prune --path pr-7/old"));
        assert_null(strstr(o.err.ptr, "D/F"));
        pg_run_out_release(&o);

        pg_test_perfgate(&o, "assets", "prune", "--path", "pr-7/old", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "assets", "publish", "../fg", "--path", "pr-7/old/abc", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        pg_test_sh("git -C . ls-tree -r --name-only perfgate-assets > ../tree.txt");
        tip = pg_test_read("../tree.txt");
        assert_string_equal(tip, "pr-7/old/abc/a.svg\n");
        free(tip);
        free(want);
}

static void test_assets_file_in_the_way(void **state)
{
        (void) state;
        pg_plant("100644", "echo hi | git hash-object -w --stdin");
        assert_int_equal(chdir("r"), 0);
        pg_check_refused_then_pruned("a file");
}

static void test_assets_link_in_the_way(void **state)
{
        (void) state;
        pg_plant("120000", "printf /etc/passwd | git hash-object -w --stdin");
        assert_int_equal(chdir("r"), 0);
        pg_check_refused_then_pruned("a symbolic link");
}

static void test_assets_submodule_in_the_way(void **state)
{
        (void) state;
        pg_plant("160000", "git rev-parse HEAD");
        assert_int_equal(chdir("r"), 0);
        pg_check_refused_then_pruned("a submodule");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, pg_test_setup_sandbox, pg_test_teardown_sandbox)
        const struct CMUnitTest tests[] = {
                T(test_assets_file_in_the_way),
                T(test_assets_link_in_the_way),
                T(test_assets_submodule_in_the_way),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
