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
 *     made executable, for an index of version 4;
 *     pg_repo_state_get() then agrees with git (libgit2 decides);
 *   - in a linked work tree (`git worktree add`) it answers as in a clone,
 *     and leaves a same-size edit in the checkout's clock tick, a staged
 *     change, a .git or commondir file git would not write and a HEAD on a
 *     per-work-tree ref to libgit2;
 *   - entries as new as the index (racily clean: files written in the
 *     index's clock tick, as a fresh checkout leaves some) are hashed as
 *     blobs, unless attributes could filter content (text=auto, a macro:
 *     libgit2 decides; export-subst does not filter);
 *   - it does not answer, and never crashes or blocks, for shapes it cannot
 *     be sure of: a tracked directory replaced by a symbolic link, a loose
 *     ref or attributes file too long for it, attributes an untracked
 *     .gitattributes, $XDG_CONFIG_HOME or an included configuration file
 *     could set for racy entries, HOME unset, a corrupted pack index
 *     fanout, an index whose checksum does not match, a submodule replaced
 *     by a file, a packed-refs that is a FIFO or /dev/zero;
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
#include "common/buf.h"
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
        /* a .gitattributes file beside a racy entry that names none of the
         * converting attributes (this project's own has export-subst) */
        check("racy entries, export-subst attributes", true);
        /* a macro could expand to one: libgit2 decides */
        assert_int_equal(
            system("printf '[attr]conv text\\na conv\\n' >sub/.gitattributes && " OLDTIME
                   "sub/.gitattributes && touch -d @1600000000 .git/index"),
            0);
        check("racy entries, a macro in an untracked attributes file", false);
        assert_int_equal(system("rm sub/.gitattributes"), 0);
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
}

/* the reader must not answer here (and must return) */
static void no_answer(const char *what)
{
        struct pg_repo_state s;
        int rc = pg_repo_state_fast(NULL, &s);

        if (rc != 0)
                fail_msg("%s: the reader answered (rc %d) where libgit2 must decide", what, rc);
}

/* git's own status, submodules included: whether anything tracked differs */
static bool git_dirty(void)
{
        FILE *p = popen("git --no-optional-locks status --porcelain -uno 2>&1", "r");
        char line[256];
        bool dirty;

        assert_non_null(p);
        dirty = fgets(line, sizeof(line), p) != NULL;
        pclose(p);
        return dirty;
}

/* the 4 big-endian bytes at @off of @path (a negative @off counts from the
 * end) XOR @mask, or set to @value when @mask is 0; written to a new file
 * renamed over @path */
static void poke(const char *path, long off, uint32_t mask, uint32_t value)
{
        FILE *f = fopen(path, "rb");
        char tmp[PATH_MAX];
        unsigned char *d;
        long len;

        assert_non_null(f);
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        len = ftell(f);
        rewind(f);
        d = malloc((size_t) len);
        assert_non_null(d);
        assert_int_equal(fread(d, 1, (size_t) len, f), (size_t) len);
        fclose(f);
        if (off < 0)
                off += len;
        assert_true(off >= 0 && off + 4 <= len);
        for (int i = 0; i < 4; i++) {
                unsigned char b = (unsigned char) ((mask ? mask : value) >> (24 - 8 * i));
                d[off + i] = mask ? (unsigned char) (d[off + i] ^ b) : b;
        }
        snprintf(tmp, sizeof(tmp), "%s.new", path);
        f = fopen(tmp, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(d, 1, (size_t) len, f), (size_t) len);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(rename(tmp, path), 0);
        free(d);
}

/* git does not look through a symbolic link in a leading path component:
 * sub/b counts as deleted, while a stat of "sub/b" follows the link to
 * the very same file */
/* A linked work tree (`git worktree add`: .git is a file naming
 * .git/worktrees/<name>, whose commondir names the shared .git): the
 * reader answers where git sees no change, and leaves every change to
 * libgit2, including an edit of the same size in the clock tick of the
 * checkout (racy: its stat data may equal the index's record) */
static void test_fast_linked_worktree(void **state)
{
        struct pg_repo_state s;
        char top[PATH_MAX];
        (void) state;

        assert_int_equal(
            system(GIT "gc -q && " GIT "worktree add -q -b side ../linked 2>/dev/null"), 0);
        assert_int_equal(chdir("../linked"), 0);
        assert_non_null(getcwd(top, sizeof(top)));
        check("a fresh linked work tree (racy entries hashed)", true);
        assert_int_equal(pg_repo_state_fast(NULL, &s), 1);
        assert_string_equal(s.top, top);
        pg_repo_state_release(&s);
        assert_int_equal(chdir("sub"), 0);
        check("a subdirectory of a linked work tree", true);
        assert_int_equal(chdir(".."), 0);

        /* the same size, written in the tick of the checkout */
        assert_int_equal(system("rm -f a && " GIT "checkout -q -- a && printf 'ONE\\n' >a"), 0);
        check("a same-second edit of the same size", false);
        assert_int_equal(
            system(GIT "checkout -q -- a && " OLDTIME "a && " GIT "update-index --refresh -q"), 0);
        check("the edit undone", true);
        assert_int_equal(system("printf 'new\\n' >sub/b && " GIT "add sub/b"), 0);
        check("a staged change in a linked work tree", false);
        assert_int_equal(
            system(GIT "commit -qm side && " OLDTIME "sub/b && " GIT "update-index --refresh -q"),
            0);
        check("a new commit on the linked work tree's branch (loose)", true);

        /* a relative gitdir, as `git worktree add --relative-paths` writes */
        assert_int_equal(system("printf 'gitdir: ../repo/.git/worktrees/linked\\n' >.git"), 0);
        check("a relative gitdir", true);
        /* what git would not write: libgit2 decides */
        assert_int_equal(system("printf 'gitdir:  ../repo/.git/worktrees/linked \\n' >.git"), 0);
        no_answer("a .git file with extra white space");
        assert_int_equal(system("printf 'gitdir: ../repo/.git/worktrees/linked\\n' >.git && "
                                "printf '../..\\n\\n' >../repo/.git/worktrees/linked/commondir"),
                         0);
        no_answer("a commondir file of two lines");
        assert_int_equal(system("printf '../..\\n' >../repo/.git/worktrees/linked/commondir"), 0);
        assert_int_equal(system(GIT "update-ref refs/worktree/mine HEAD && " GIT
                                    "symbolic-ref HEAD refs/worktree/mine"),
                         0);
        no_answer("HEAD on a per-work-tree ref");
        assert_int_equal(system(GIT "checkout -q side"), 0);
        check("back on the branch", true);
        assert_int_equal(chdir("../repo"), 0);
        check("the main work tree beside a linked one", true);
}

static void test_fast_symlinked_directory(void **state)
{
        (void) state;
        check("before", true);
        assert_int_equal(system("mv sub sub.real && ln -s sub.real sub"), 0);
        check("a tracked directory replaced by a symbolic link", false);
        assert_true(git_dirty());
        assert_int_equal(
            system("rm sub && mkdir -p ../elsewhere && mv sub.real ../elsewhere/sub && "
                   "ln -s ../elsewhere/sub sub"),
            0);
        check("a tracked directory moved away behind a symbolic link", false);
}

/* a file longer than the reader's buffer is "cannot tell", never "absent" */
static void test_fast_oversized_files(void **state)
{
        char head[41];
        bool dirty;
        (void) state;

        /* a loose ref padded past 512 bytes (git reads its first line) over
         * an older packed value whose commit has the same tree */
        assert_int_equal(system(GIT "pack-refs --all && " GIT "commit -q --allow-empty -m empty && "
                                    "for i in $(seq 600); do echo; done >>.git/refs/heads/main"),
                         0);
        assert_true(oracle(head, &dirty));
        check("a loose ref of 641 bytes", false);
        assert_int_equal(system(GIT "pack-refs --all"), 0);
        check("the ref packed", true);

        /* a tracked .gitattributes of 24 KB that converts CRLF, racy entries */
        assert_int_equal(system("printf 'x\\r\\ny\\r\\n' >c.txt && " OLDTIME "c.txt && " GIT
                                "add c.txt && " GIT "commit -qm crlf && "
                                "for i in $(seq 1000); do echo \"# comment line $i\"; done "
                                ">.gitattributes && echo '*.txt text' >>.gitattributes && " OLDTIME
                                ".gitattributes && " GIT "add .gitattributes && " GIT
                                "commit -qm attrs && touch -d @1600000000 .git/index"),
                         0);
        assert_true(git_dirty());
        check("racy entries under a 24 KB .gitattributes", false);
}

/* racy entries are hashed raw only when no attribute source can exist */
static void test_fast_attribute_sources(void **state)
{
        char *home = pg_xstrdup(getenv("HOME")), cwd[PATH_MAX];
        (void) state;

        assert_non_null(getcwd(cwd, sizeof(cwd)));
        assert_int_equal(system("printf 'id: $Id: deadbeef $\\n' >f.txt && " OLDTIME "f.txt && " GIT
                                "add f.txt && " GIT "commit -qm ident && touch -d @1600000000 "
                                ".git/index"),
                         0);
        check("racy entries, no attributes", true);

        assert_int_equal(system("echo '* ident' >.gitattributes"), 0);
        assert_true(git_dirty());
        check("an untracked .gitattributes", false);
        assert_int_equal(system("rm .gitattributes && mkdir -p sub && echo '* ident' "
                                ">sub/.gitattributes && touch -d @1600000000 .git/index"),
                         0);
        no_answer("an untracked .gitattributes beside a racy entry in a subdirectory");
        assert_int_equal(system("rm sub/.gitattributes && touch -d @1600000000 .git/index"), 0);

        /* the XDG attributes file */
        assert_int_equal(system("mkdir -p ../xdg/git && echo '* ident' >../xdg/git/attributes"), 0);
        {
                char xdg[PATH_MAX + 8];
                snprintf(xdg, sizeof(xdg), "%s/../xdg", cwd);
                setenv("XDG_CONFIG_HOME", xdg, 1);
        }
        assert_true(git_dirty());
        no_answer("$XDG_CONFIG_HOME/git/attributes");
        unsetenv("XDG_CONFIG_HOME");

        /* core.attributesFile behind an [include] of the global config, and
         * in the XDG config ~/.config/git/config */
        assert_int_equal(
            system("mkdir -p ../h1 && echo '* ident' >../h1/attrs && "
                   "printf '[core]\\n\\tattributesFile = %s/../h1/attrs\\n' \"$PWD\" "
                   ">../h1/inc && printf '[include]\\n\\tpath = inc\\n' >../h1/.gitconfig && "
                   "mkdir -p ../h2/.config/git && cp ../h1/inc ../h2/.config/git/config"),
            0);
        {
                char h[PATH_MAX + 8];
                snprintf(h, sizeof(h), "%s/../h1", cwd);
                setenv("HOME", h, 1);
                assert_true(git_dirty());
                no_answer("core.attributesFile in a file the global config includes");
                snprintf(h, sizeof(h), "%s/../h2", cwd);
                setenv("HOME", h, 1);
                assert_true(git_dirty());
                no_answer("core.attributesFile in ~/.config/git/config");
        }
        unsetenv("HOME");
        no_answer("HOME unset");
        setenv("HOME", home, 1);
        check("the home restored", true);
        free(home);
}

/* a fanout that is not monotonic sends a bisection out of the mapping */
static void test_fast_corrupt_pack_index(void **state)
{
        char head[41], idx[PATH_MAX];
        bool dirty;
        unsigned first = 0;
        FILE *p;
        (void) state;

        assert_int_equal(system(GIT "gc -q"), 0);
        assert_true(oracle(head, &dirty));
        check("packed", true);
        p = popen("ls .git/objects/pack/*.idx", "r");
        assert_non_null(p);
        assert_non_null(fgets(idx, sizeof(idx), p));
        pclose(p);
        idx[strcspn(idx, "\n")] = '\0';
        /* from the commit's first byte on, past the object count */
        assert_int_equal(sscanf(head, "%2x", &first), 1);
        for (unsigned i = first; i < 255; i++)
                poke(idx, 8 + 4 * (long) i, 0, 0x7ffffff0u);
        no_answer("a pack index with a fanout past its object count");
}

/* the index's trailing checksum covers every entry */
static void test_fast_corrupt_index(void **state)
{
        (void) state;
        check("before", true);
        assert_int_equal(system("cp .git/index ../index.good"), 0);
        poke(".git/index", 12 + 40, 0xff000000u, 0);
        assert_true(git_dirty());
        no_answer("an index entry's object id changed");
        assert_int_equal(system("cp ../index.good .git/index"), 0);
        check("the index restored", true);
        poke(".git/index", -4, 0x01u, 0);
        no_answer("an index checksum changed");
}

/* a gitlink whose path became a file: libgit2 reports the type change even
 * when it leaves submodules out */
static void test_fast_gitlink_file(void **state)
{
        struct pg_repo_state g;
        (void) state;

        assert_int_equal(system(GIT "update-index --add --cacheinfo 160000,$(git rev-parse "
                                    "HEAD),mod && " GIT "commit -qm gitlink && echo x >mod"),
                         0);
        assert_true(git_dirty());
        no_answer("a submodule replaced by a file");
        assert_int_equal(pg_repo_state_get(NULL, &g), 0);
        assert_true(g.dirty);
        pg_repo_state_release(&g);
}

/* packed-refs must be a regular file: a FIFO would block, /dev/zero never
 * ends */
static void test_fast_special_files(void **state)
{
        (void) state;
        assert_int_equal(system(GIT "pack-refs --all && test ! -e .git/refs/heads/main"), 0);
        check("packed refs", true);
        assert_int_equal(system("mv .git/packed-refs ../packed-refs && mkfifo .git/packed-refs"),
                         0);
        no_answer("packed-refs a FIFO");
        assert_int_equal(system("rm .git/packed-refs && ln -s /dev/zero .git/packed-refs"), 0);
        no_answer("packed-refs /dev/zero");
        assert_int_equal(system("rm .git/packed-refs && mv ../packed-refs .git/ && "
                                "mkfifo .git/refs/heads/main"),
                         0);
        no_answer("a loose ref a FIFO");
        assert_int_equal(system("rm .git/refs/heads/main"), 0);
        check("packed refs again", true);
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
                cmocka_unit_test_setup_teardown(test_fast_linked_worktree, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_symlinked_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_oversized_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_attribute_sources, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_corrupt_pack_index, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_corrupt_index, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_gitlink_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_special_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fast_not_a_repository, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
