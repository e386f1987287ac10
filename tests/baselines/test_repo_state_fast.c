/*
 * test_repo_state_fast.c - pg_repo_state_fast() (baselines/worktree.h), the
 * repository state read from .git's files without libgit2, against the git
 * command as the oracle (`git rev-parse HEAD`; `git --no-optional-locks
 * status --porcelain --untracked-files=no --ignore-submodules`, which never
 * rewrites the index), on real repositories:
 *   - whenever it answers, the commit is git's and git sees no change;
 *   - it answers for the plain shapes a CI checkout has: a loose commit, a
 *     packed commit with packed refs (git gc), loose objects with packed
 *     refs, a detached HEAD, an untracked file, a subdirectory as cwd;
 *   - it does not answer when a tracked file was modified (also with the
 *     same size and its mtime put back: libgit2 then finds it), staged, deleted, touched only (libgit2 hashes it: clean),
 *     made executable, for an index of version 4 and in a linked work tree;
 *     pg_repo_state_get() then agrees with git (libgit2 decides);
 *   - entries as new as the index (racily clean: files written in the
 *     index's clock tick, as a fresh checkout leaves some) are hashed as
 *     blobs, unless attributes could filter content (text=auto: libgit2
 *     decides; export-subst does not filter);
 *   - outside any repository it says so (PG_ENOTFOUND) as libgit2 would.
 * Files get an old mtime before they are added, so no entry is racily
 * clean (as new as the index) on a file system with coarse timestamps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/worktree.h"
#include "common/error.h"
#include "tests/util/testutil.h"

#define GIT     "git -c user.name=t -c user.email=t@e -c init.defaultBranch=main "
#define OLDTIME "touch -d @1700000000 "

static int setup(void **state)
{
        (void) state;
        pg_test_sandbox();
        assert_int_equal(system(GIT "init -q repo && cd repo && mkdir sub && printf 'one\\n' >a "
                                    "&& printf 'two\\n' >sub/b && ln -s a link && " OLDTIME
                                    "a sub/b && touch -h -d @1700000000 link && " GIT
                                    "add -A && " GIT "commit -qm one"),
                         0);
        assert_int_equal(chdir("repo"), 0);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        pg_test_sandbox_remove();
        return 0;
}

/* git's answer in the cwd: HEAD's commit (41 bytes) and whether tracked
 * files differ; false when it is not a repository */
static bool oracle(char *head, bool *dirty)
{
        FILE *p = popen("git rev-parse HEAD 2>/dev/null", "r");
        char line[256];
        bool ok;

        assert_non_null(p);
        ok = fgets(line, sizeof(line), p) != NULL && strlen(line) == 41;
        assert_true(pclose(p) == 0 || !ok);
        if (!ok)
                return false;
        memcpy(head, line, 40);
        head[40] = '\0';
        p = popen("git --no-optional-locks status --porcelain --untracked-files=no "
                  "--ignore-submodules",
                  "r");
        assert_non_null(p);
        *dirty = fgets(line, sizeof(line), p) != NULL;
        assert_int_equal(pclose(p), 0);
        return true;
}

/* pg_repo_state_fast() and pg_repo_state_get() against git; @fast: whether
 * the reader must answer by itself */
static void check(const char *what, bool fast)
{
        struct pg_repo_state s, g;
        char head[41];
        bool dirty = false;
        int rc = pg_repo_state_fast(NULL, &s);

        assert_true(oracle(head, &dirty));
        if (fast && rc != 1)
                fail_msg("%s: the reader did not answer (rc %d)", what, rc);
        if (!fast && rc != 0)
                fail_msg("%s: the reader answered (rc %d) where libgit2 must decide", what, rc);
        if (rc == 1) {
                assert_false(dirty);
                assert_string_equal(s.head, head);
                assert_false(s.dirty);
                assert_null(s.changed);
                pg_repo_state_release(&s);
        }
        assert_int_equal(pg_repo_state_get(NULL, &g), 0);
        assert_non_null(g.head);
        assert_string_equal(g.head, head);
        if (g.dirty != dirty)
                fail_msg("%s: pg_repo_state_get says dirty=%d, git says %d", what, g.dirty, dirty);
        pg_repo_state_release(&g);
}

static void test_fast_plain_shapes(void **state)
{
        char top[PATH_MAX];
        struct pg_repo_state s;
        (void) state;

        check("a loose commit", true);
        assert_int_equal(system("printf 'x\\n' >untracked"), 0);
        check("an untracked file", true);
        assert_int_equal(system(GIT "pack-refs --all"), 0);
        check("loose objects, packed refs", true);
        assert_int_equal(system(GIT "gc -q"), 0);
        assert_int_equal(system("test -z \"$(ls .git/objects | grep -v -e pack -e info)\""), 0);
        check("a packed commit (git gc)", true);
        assert_int_equal(system(GIT "checkout -q --detach"), 0);
        check("a detached HEAD", true);

        /* an index older than the files: every entry is racily clean and
         * hashed (libgit2 does the same) */
        assert_int_equal(system("touch -d @1600000000 .git/index"), 0);
        check("racy entries, hashed", true);
        /* attributes that only git archive reads do not filter content */
        assert_int_equal(system("printf 'a export-subst\\n' >.gitattributes && " OLDTIME
                                ".gitattributes && " GIT "add .gitattributes && " GIT
                                "commit -qm attrs && touch -d @1600000000 .git/index"),
                         0);
        check("racy entries, export-subst attributes", true);
        /* text conversion may: libgit2 decides */
        assert_int_equal(system("printf '* text=auto\\n' >.gitattributes && " OLDTIME
                                ".gitattributes && " GIT "add .gitattributes && " GIT
                                "commit -qm text && touch -d @1600000000 .git/index"),
                         0);
        check("racy entries, text attributes", false);
        assert_int_equal(system(GIT "update-index --refresh -q; touch .git/index"), 0);

        assert_non_null(getcwd(top, sizeof(top)));
        assert_int_equal(chdir("sub"), 0);
        check("a subdirectory", true);
        assert_int_equal(pg_repo_state_fast(NULL, &s), 1);
        assert_string_equal(s.top, top);
        assert_false(s.shallow);
        pg_repo_state_release(&s);
        assert_int_equal(chdir(".."), 0);
}

static void test_fast_leaves_changes_to_libgit2(void **state)
{
        struct pg_repo_state s;
        (void) state;

        /* same size, mtime put back: only the ctime tells, and git itself
         * (built without nanosecond stat data) misses it within the second
         * of the `git add`: the content differs, libgit2 hashes it */
        assert_int_equal(system("printf 'ONE\\n' >a && " OLDTIME "a"), 0);
        assert_int_equal(pg_repo_state_fast(NULL, &s), 0);
        assert_int_equal(pg_repo_state_get(NULL, &s), 0);
        assert_true(s.dirty);
        assert_string_equal(s.changed, "a");
        pg_repo_state_release(&s);
        assert_int_equal(system("printf 'ONE!\\n' >a && " OLDTIME "a"), 0);
        check("a modified file", false);
        assert_int_equal(
            system(GIT "checkout -q -- a && " OLDTIME "a && " GIT "update-index --refresh -q"), 0);
        check("the file restored", true);

        assert_int_equal(system("touch a"), 0);
        check("a touched file (clean, hashed by libgit2)", false);
        assert_int_equal(system(GIT "update-index --refresh -q"), 0);

        assert_int_equal(system("printf 'new\\n' >sub/b && " GIT "add sub/b"), 0);
        check("a staged change", false);
        assert_int_equal(
            system(GIT "reset -q --hard && " OLDTIME "a sub/b && " GIT "update-index --refresh -q"),
            0);
        check("reset", true);

        assert_int_equal(system("rm sub/b"), 0);
        check("a deleted file", false);
        assert_int_equal(system(GIT "checkout -q -- sub/b && " OLDTIME "sub/b && " GIT
                                    "update-index --refresh -q"),
                         0);

        assert_int_equal(system("chmod +x a"), 0);
        check("an executable bit", false);
        /* a new mtime: git compares stat times in whole seconds, so a change
         * of the ctime alone may not make it record the new stat data */
        assert_int_equal(
            system("chmod -x a && touch -d @1700000100 a && " GIT "update-index --refresh -q"), 0);
        check("the bit removed", true);

        assert_int_equal(system(GIT "update-index --index-version 4"), 0);
        check("index version 4", false);
        assert_int_equal(system(GIT "update-index --index-version 2"), 0);

        assert_int_equal(system(GIT "worktree add -q ../linked 2>/dev/null"), 0);
        assert_int_equal(chdir("../linked"), 0);
        check("a linked work tree", false);
        assert_int_equal(chdir("../repo"), 0);
}

static void test_fast_not_a_repository(void **state)
{
        struct pg_repo_state s;
        char dir[PATH_MAX], *slash;
        bool in_git = false;
        int rc;
        (void) state;

        assert_int_equal(chdir(".."), 0);
        assert_int_equal(mkdir("plain", 0755), 0);
        assert_int_equal(chdir("plain"), 0);
        /* the sandbox may lie inside a checkout ($TMPDIR): then git decides */
        assert_non_null(getcwd(dir, sizeof(dir)));
        while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
                struct stat st;
                char probe[PATH_MAX + 8];
                *slash = '\0';
                snprintf(probe, sizeof(probe), "%s/.git", dir);
                in_git |= stat(probe, &st) == 0 ||
                          (snprintf(probe, sizeof(probe), "%s/HEAD", dir), stat(probe, &st) == 0);
        }
        rc = pg_repo_state_fast(NULL, &s);
        if (!in_git) {
                assert_int_equal(rc, PG_ENOTFOUND);
                assert_non_null(strstr(pg_error_last(), "not a git repository: '.'"));
                assert_int_equal(pg_repo_state_get(NULL, &s), PG_ENOTFOUND);
                assert_non_null(strstr(pg_error_last(), "not a git repository: '.'"));
        } else {
                assert_true(rc == 0 || rc == PG_ENOTFOUND);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_fast_plain_shapes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_leaves_changes_to_libgit2, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_fast_not_a_repository, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
