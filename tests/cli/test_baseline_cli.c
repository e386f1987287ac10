/*
 * test_baseline_cli.c - `perfgate baseline save|list|show` run as the real
 * binary in a sandbox repository built with libgit2: what save prints, that
 * the work tree, index and HEAD are byte-identical afterwards, two saves
 * started at once both landing, every documented error with its exit
 * status (docs/baseline.md, EXIT STATUS), and a disk that fills at each of
 * save's writes in turn (as root, on a 1 MiB tmpfs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baselines/store.h"
#include "common/error.h"
#include "tests/util/store_fixture.h"
#include "tests/util/testutil.h"

/* A repository "work" with two commits on main, checked out, the sandbox's
 * cwd inside it, and results for HEAD in .perfgate/results (untracked, as
 * after `perfgate run`). */
struct fx_cli {
        char *sandbox;
        char *path;
        git_repository *repo;
        git_oid c0, head;
};

static void fx_cli_build(struct fx_cli *x)
{
        const char *sb = fx_sandbox();

        memset(x, 0, sizeof(*x));
        x->sandbox = pg_xstrdup(sb);
        x->path = pg_xasprintf("%s/work", sb);
        x->repo = fx_init(x->path, false);
        fx_commit(x->repo, "refs/heads/main", NULL, 0, "src.c", "int a;\n", 1000, &x->c0);
        fx_commit(x->repo, "refs/heads/main", &x->c0, 1, "src.c", "int b;\n", 2000, &x->head);
        fx_checkout(x->repo, "main");
        assert_int_equal(chdir(x->path), 0);
        fx_result_file(".perfgate/results", "parse", fx_hex(&x->head), "default", false, 1e6);
        fx_result_file(".perfgate/results", "sort", fx_hex(&x->head), "default", false, 2e6);
}

static void fx_cli_free(struct fx_cli *x)
{
        git_repository_free(x->repo);
        free(x->path);
        free(x->sandbox);
        pg_test_sandbox_remove();
}

/* ---- snapshot of what save must not touch -------------------------------- */

static struct pg_buf fx_snap;
static const char *fx_snap_root;

static int fx_snap_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        const char *rel = path + strlen(fx_snap_root);
        (void) ftw;
        /* the object database and the data branch's ref and log may grow; the
         * rest of .git (HEAD, index, other refs, config) and the work tree may not */
        if (strncmp(rel, "/.git/objects", 13) == 0 || strstr(rel, "perfgate-baselines") ||
            strcmp(rel, "/.git/logs") == 0 || strcmp(rel, "/.git/logs/refs") == 0 ||
            strcmp(rel, "/.git/logs/refs/heads") == 0 || strcmp(rel, "/.git/refs/heads") == 0)
                return 0;
        pg_buf_printf(&fx_snap, "%s %o %lld\n", rel, (unsigned) st->st_mode,
                      (long long) st->st_mtim.tv_sec);
        if (flag == FTW_F) {
                char *text = pg_test_read(path);
                pg_buf_puts(&fx_snap, text);
                pg_buf_putc(&fx_snap, '\n');
                free(text);
        }
        return 0;
}

static char *fx_snapshot(const char *root)
{
        pg_buf_init(&fx_snap);
        fx_snap_root = root;
        assert_int_equal(nftw(root, fx_snap_cb, 16, FTW_PHYS), 0);
        return pg_buf_detach(&fx_snap, NULL);
}

static void test_baseline_cli_save_touches_no_worktree_index_or_head(void **state)
{
        struct fx_cli x;
        struct pg_run_out o;
        char *before, *after, *want;
        git_oid tip;
        (void) state;

        fx_cli_build(&x);
        /* a staged change and a modified file, so the index and work tree differ from HEAD */
        pg_test_write("staged.c", "int staged;\n");
        {
                git_index *idx = NULL;
                fx_check(git_repository_index(&idx, x.repo), "index");
                fx_check(git_index_add_bypath(idx, "staged.c"), "add");
                fx_check(git_index_write(idx), "write index");
                git_index_free(idx);
        }
        pg_test_write("src.c", "int modified;\n");
        before = fx_snapshot(x.path);
        sleep(1); /* so a rewrite of any file would show in its mtime too */
        FX_PERFGATE(&o, 0, "baseline", "save", "--force");
        after = fx_snapshot(x.path);
        assert_string_equal(before, after);
        /* what it prints: the branch made, the commit, and how to publish it */
        fx_expect(&o.out, "created branch 'perfgate-baselines'");
        want =
            pg_xasprintf("saved 2 baselines for commit %s on machine 'default'", fx_hex(&x.head));
        fx_expect(&o.out, want);
        free(want);
        fx_ref(x.repo, "refs/heads/perfgate-baselines", &tip);
        want = pg_xasprintf("commit %s on branch 'perfgate-baselines'", fx_hex(&tip));
        fx_expect(&o.out, want);
        free(want);
        fx_expect(&o.out, "publish it with: git push origin perfgate-baselines\n");
        pg_run_out_release(&o);
        /* git itself agrees: HEAD is main, the branch holds only baselines */
        {
                const char *argv[] = { "git", "ls-tree", "-r", "--name-only", "perfgate-baselines",
                                       NULL };
                pg_test_run(&o, NULL, (char *const *) argv);
                want = pg_xasprintf("default/%s/parse.json\ndefault/%s/sort.json\n",
                                    fx_hex(&x.head), fx_hex(&x.head));
                assert_string_equal(o.out.ptr, want);
                free(want);
                pg_run_out_release(&o);
        }
        /* the objects written are sound for git itself */
        {
                const char *argv[] = { "git", "fsck", "--strict", "--no-dangling", NULL };
                assert_int_equal(pg_test_run(&o, NULL, (char *const *) argv), 0);
                pg_run_out_release(&o);
        }
        /* saving again replaces those files and says so */
        FX_PERFGATE(&o, 0, "baseline", "save", "--force");
        fx_expect(&o.out, "replaced 2 baselines already saved for this commit and machine");
        pg_run_out_release(&o);
        free(before);
        free(after);
        fx_cli_free(&x);
}

static void test_baseline_cli_refusals_and_force(void **state)
{
        struct fx_cli x;
        struct pg_run_out o;
        (void) state;

        fx_cli_build(&x);
        /* results from the previous commit */
        fx_result_file("old", "parse", fx_hex(&x.c0), "default", false, 1e6);
        FX_PERFGATE(&o, 2, "baseline", "save", "--results", "old");
        fx_expect(&o.err, "perfgate: error: result 'parse' was measured at commit");
        fx_expect(&o.err, "--force");
        pg_run_out_release(&o);
        /* measured on a dirty tree */
        fx_result_file("dirty", "parse", fx_hex(&x.head), "default", true, 1e6);
        FX_PERFGATE(&o, 2, "baseline", "save", "--results", "dirty");
        fx_expect(&o.err, "dirty work tree");
        pg_run_out_release(&o);
        assert_false(pg_test_exists(".git/refs/heads/perfgate-baselines"));
        FX_PERFGATE(&o, 0, "baseline", "save", "--results", "dirty", "--force", "--machine", "m1");
        fx_expect(&o.out, "on machine 'm1'");
        pg_run_out_release(&o);
        /* a clean save of HEAD needs no --force */
        FX_PERFGATE(&o, 0, "baseline", "save");
        pg_run_out_release(&o);
        fx_cli_free(&x);
}

static void test_baseline_cli_errors_exit_2(void **state)
{
        struct fx_cli x;
        struct pg_run_out o;
        git_oid tip, c;
        char *path, *want;
        (void) state;

        fx_cli_build(&x);
        /* empty and missing results directories */
        assert_int_equal(pg_mkdir_p("empty"), 0);
        FX_PERFGATE(&o, 2, "baseline", "save", "--results", "empty");
        fx_expect(&o.err, "no results in 'empty'");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "save", "--results", "missing");
        fx_expect(&o.err, "'missing'");
        pg_run_out_release(&o);
        /* unknown revision */
        FX_PERFGATE(&o, 0, "baseline", "save");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "show", "no-such-rev");
        fx_expect(&o.err, "unknown revision 'no-such-rev'");
        fx_expect(&o.err,
                  "`git fetch origin +refs/heads/no-such-rev:refs/remotes/origin/no-such-rev`");
        pg_run_out_release(&o);
        /* a revision without a baseline */
        FX_PERFGATE(&o, 2, "baseline", "show", "HEAD~1");
        fx_expect(&o.err, "no baseline for 'HEAD~1'");
        pg_run_out_release(&o);
        /* a corrupt blob, then one from a newer perfgate */
        fx_ref(x.repo, "refs/heads/perfgate-baselines", &tip);
        path = pg_xasprintf("default/%s/parse.json", fx_hex(&x.head));
        fx_commit(x.repo, "refs/heads/perfgate-baselines", &tip, 1, path, "{\"schema\": [1,}", 3000,
                  &c);
        FX_PERFGATE(&o, 2, "baseline", "show", "HEAD");
        want = pg_xasprintf("'perfgate-baselines:%s'", path);
        fx_expect(&o.err, want);
        fx_expect(&o.err, "(byte 14)");
        free(want);
        pg_run_out_release(&o);
        fx_commit(x.repo, "refs/heads/perfgate-baselines", &c, 1, path,
                  "{\"schema\": \"perfgate/result/7\", \"name\": \"parse\"}", 3001, &c);
        FX_PERFGATE(&o, 2, "baseline", "show", "HEAD");
        fx_expect(&o.err, "perfgate/result/7");
        pg_run_out_release(&o);
        free(path);
        /* usage errors */
        FX_PERFGATE(&o, 2, "baseline");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "frobnicate");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "list", "--force");
        fx_expect(&o.err, "does not take option '--force'");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "show");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "save", "--machine", "a/b");
        fx_expect(&o.err, "not a valid machine name");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "save", "--branch", "no..dots");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 0, "baseline", "--help");
        fx_expect(&o.out, "usage: perfgate baseline save");
        pg_run_out_release(&o);
        /* not a git repository */
        path = pg_xasprintf("%s/plain", x.sandbox);
        assert_int_equal(pg_mkdir_p(path), 0);
        assert_int_equal(chdir(path), 0);
        fx_result_file("results", "parse", fx_hex(&x.head), "default", false, 1e6);
        FX_PERFGATE(&o, 2, "baseline", "save", "--results", "results");
        fx_expect(&o.err, "not a git repository");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "show", "main");
        fx_expect(&o.err, "not a git repository");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "list");
        pg_run_out_release(&o);
        free(path);
        fx_cli_free(&x);
}

/* Start `perfgate baseline save --machine @machine` in the background. */
static pid_t fx_spawn_save(const char *machine, const int gate[2])
{
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char c;
                char *log = pg_xasprintf("save-%s.log", machine);
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(fd, 1);
                dup2(fd, 2);
                close(gate[1]);
                (void) !read(gate[0], &c, 1); /* start together, when the gate closes */
                execl(pg_test_env("PERFGATE_BIN"), "perfgate", "baseline", "save", "--machine",
                      machine, (char *) NULL);
                _exit(127);
        }
        return pid;
}

static void test_baseline_cli_two_saves_at_once_both_land(void **state)
{
        struct fx_cli x;
        struct pg_run_out o;
        int gate[2];
        pid_t a, b;
        char *want;
        (void) state;

        fx_cli_build(&x);
        for (int round = 0; round < 3; round++) {
                char ma[16], mb[16];
                int sa = 0, sb = 0;
                snprintf(ma, sizeof(ma), "a%d", round);
                snprintf(mb, sizeof(mb), "b%d", round);
                assert_int_equal(pipe(gate), 0);
                a = fx_spawn_save(ma, gate);
                b = fx_spawn_save(mb, gate);
                close(gate[0]);
                close(gate[1]);
                assert_int_equal(waitpid(a, &sa, 0), a);
                assert_int_equal(waitpid(b, &sb, 0), b);
                if (!WIFEXITED(sa) || WEXITSTATUS(sa) || !WIFEXITED(sb) || WEXITSTATUS(sb)) {
                        char *la = pg_xasprintf("save-%s.log", ma);
                        char *lb = pg_xasprintf("save-%s.log", mb);
                        fail_msg("saves failed: %s / %s", pg_test_read(la), pg_test_read(lb));
                }
        }
        FX_PERFGATE(&o, 0, "baseline", "list");
        for (int round = 0; round < 3; round++) {
                want = pg_xasprintf("%s  1970-01-01 00:33  a%d", fx_hex(&x.head), round);
                fx_expect(&o.out, want);
                free(want);
                want = pg_xasprintf("%s  1970-01-01 00:33  b%d", fx_hex(&x.head), round);
                fx_expect(&o.out, want);
                free(want);
        }
        fx_expect(&o.out, "6 baselines, newest first");
        pg_run_out_release(&o);
        fx_cli_free(&x);
}

static int fx_git_in(const char *dir, const char *a1, const char *a2, const char *a3,
                     const char *a4)
{
        struct pg_run_out o;
        const char *argv[] = { "git", "-C", dir, a1, a2, a3, a4, NULL };
        int status = pg_test_run(&o, NULL, (char *const *) argv);
        pg_run_out_release(&o);
        return status;
}

/* The CI flow of docs/baseline.md: two jobs save, the second push is
 * rejected, fetch and save again, and the push lands with both baselines. */
static void test_baseline_cli_rejected_push_then_resave_lands(void **state)
{
        struct fx_cli x;
        struct pg_run_out o;
        char *remote, *a, *b, *want;
        static const char *const refs[] = { "refs/heads/main:refs/heads/main", NULL };
        (void) state;

        fx_cli_build(&x);
        remote = pg_xasprintf("%s/remote.git", x.sandbox);
        a = pg_xasprintf("%s/job-a", x.sandbox);
        b = pg_xasprintf("%s/job-b", x.sandbox);
        git_repository_free(fx_init(remote, true));
        fx_push(x.repo, remote, refs);
        {
                const char *ca[] = { "git", "clone", "-q", remote, a, NULL };
                const char *cb[] = { "git", "clone", "-q", remote, b, NULL };
                assert_int_equal(pg_test_run(&o, NULL, (char *const *) ca), 0);
                pg_run_out_release(&o);
                assert_int_equal(pg_test_run(&o, NULL, (char *const *) cb), 0);
                pg_run_out_release(&o);
        }
        assert_int_equal(chdir(a), 0);
        fx_result_file(".perfgate/results", "parse", fx_hex(&x.head), "job-a", false, 1e6);
        FX_PERFGATE(&o, 0, "baseline", "save");
        fx_expect(&o.out, "created branch");
        pg_run_out_release(&o);
        assert_int_equal(fx_git_in(a, "push", "-q", "origin", "perfgate-baselines"), 0);
        assert_int_equal(chdir(b), 0);
        fx_result_file(".perfgate/results", "parse", fx_hex(&x.head), "job-b", false, 1e6);
        FX_PERFGATE(&o, 0, "baseline", "save");
        pg_run_out_release(&o);
        /* job a pushed first: rejected, not a fast-forward */
        assert_int_not_equal(fx_git_in(b, "push", "-q", "origin", "perfgate-baselines"), 0);
        assert_int_equal(fx_git_in(b, "fetch", "-q", "origin", "perfgate-baselines"), 0);
        FX_PERFGATE(&o, 0, "baseline", "save");
        fx_expect(&o.out, "built on origin/perfgate-baselines and merged the local baselines");
        pg_run_out_release(&o);
        assert_int_equal(fx_git_in(b, "push", "-q", "origin", "perfgate-baselines"), 0);
        {
                const char *ls[] = { "git",         "--git-dir",          remote, "ls-tree", "-r",
                                     "--name-only", "perfgate-baselines", NULL };
                assert_int_equal(pg_test_run(&o, NULL, (char *const *) ls), 0);
                want = pg_xasprintf("job-a/%s/parse.json\njob-b/%s/parse.json\n", fx_hex(&x.head),
                                    fx_hex(&x.head));
                assert_string_equal(o.out.ptr, want);
                free(want);
                pg_run_out_release(&o);
        }
        free(remote);
        free(a);
        free(b);
        fx_cli_free(&x);
}

static void test_baseline_cli_list_and_show(void **state)
{
        struct fx_cli x;
        struct pg_run_out o;
        char *want, shortsha[13];
        (void) state;

        fx_cli_build(&x);
        FX_PERFGATE(&o, 0, "baseline", "list");
        fx_expect(&o.out, "no branch 'perfgate-baselines'");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "show", "HEAD");
        fx_expect(&o.err, "no branch 'perfgate-baselines'");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 0, "baseline", "save");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 0, "baseline", "list");
        want = pg_xasprintf("%s  1970-01-01 00:33  default       parse,sort  # src.c\n",
                            fx_hex(&x.head));
        fx_expect(&o.out, want);
        free(want);
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 0, "baseline", "list", "--machine", "other");
        fx_expect(&o.out, "no baselines on 'perfgate-baselines' for machine 'other'");
        pg_run_out_release(&o);
        snprintf(shortsha, sizeof(shortsha), "%s", fx_hex(&x.head));
        FX_PERFGATE(&o, 0, "baseline", "show", shortsha);
        want = pg_xasprintf("# perfgate-baselines:default/%s/parse.json\n", fx_hex(&x.head));
        fx_expect(&o.out, want);
        free(want);
        want = pg_xasprintf("# perfgate-baselines:default/%s/sort.json\n", fx_hex(&x.head));
        fx_expect(&o.out, want);
        free(want);
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 0, "baseline", "show", "main", "--benchmark", "sort");
        assert_null(strstr(o.out.ptr, "parse.json"));
        fx_expect(&o.out, "sort.json");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "show", "main", "--benchmark", "nope");
        fx_expect(&o.err, "no benchmark 'nope'");
        pg_run_out_release(&o);
        FX_PERFGATE(&o, 2, "baseline", "show", "main", "--machine", "other");
        fx_expect(&o.err, "on machine 'other'");
        fx_expect(&o.err, "it has baselines for machine 'default' (pass --machine)");
        pg_run_out_release(&o);
        fx_cli_free(&x);
}

/* ---- a full disk under the object writes --------------------------------- */

static char *fx_tiny_mnt; /* the tmpfs mount of the test below, or NULL */

static int fx_tiny_teardown(void **state)
{
        (void) state;
        if (fx_tiny_mnt) {
                assert_int_equal(chdir("/"), 0);
                umount2(fx_tiny_mnt, MNT_DETACH);
                free(fx_tiny_mnt);
                fx_tiny_mnt = NULL;
        }
        return 0;
}

/* Fill the file system of @dir until @kib KiB (as statvfs counts) are left. */
static void fx_fill(const char *dir, unsigned kib)
{
        struct statvfs sv;
        char *path = pg_xasprintf("%s/fill", dir);
        static char page[4096];
        long long left;
        int fd;

        assert_int_equal(statvfs(dir, &sv), 0);
        left = (long long) sv.f_bavail * (long long) sv.f_frsize - (long long) kib * 1024;
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        for (; left > 0; left -= (long long) sizeof(page))
                if (write(fd, page,
                          left < (long long) sizeof(page) ? (size_t) left : sizeof(page)) < 0)
                        break;
        close(fd);
        free(path);
}

/* `baseline save` on a 1 MiB tmpfs left with 0, 4, ... 60 KiB free: the disk
 * fills at each of its writes in turn (blobs, trees, the commit, the ref and
 * its log), each at least once. Every failure exits 4 saying the disk is
 * full, that nothing was saved and what to do; the branch does not move and
 * git fsck finds the repository sound. libgit2 1.5 reports the
 * commit written when its loose object got ENOSPC, and the message then
 * said "target OID for the reference doesn't exist on the repository". */
static void test_baseline_cli_full_disk_exit_4_branch_unmoved(void **state)
{
        const char *sb = fx_sandbox();
        unsigned failed = 0, saved = 0, commit_lost = 0, blob = 0, tree = 0, reflog = 0,
                 ref_lock = 0;
        (void) state;

        fx_tiny_mnt = pg_xasprintf("%s/tiny", sb);
        assert_int_equal(pg_mkdir_p(fx_tiny_mnt), 0);
        if (geteuid() != 0 || mount("tmpfs", fx_tiny_mnt, "tmpfs", 0, "size=1m") < 0) {
                free(fx_tiny_mnt);
                fx_tiny_mnt = NULL;
                pg_test_sandbox_remove();
                skip(); /* needs root to mount a small tmpfs */
                return;
        }
        assert_int_equal(umount2(fx_tiny_mnt, MNT_DETACH), 0);
        for (unsigned kib = 0; kib <= 60; kib += 4) {
                char *work = pg_xasprintf("%s/work", fx_tiny_mnt);
                const char *fsck[] = { "git", "fsck", "--no-dangling", NULL };
                const char *ref[] = { "git",      "rev-parse",          "-q",
                                      "--verify", "perfgate-baselines", NULL };
                git_repository *repo;
                git_oid c0, head;
                struct pg_run_out o;
                int st;

                assert_int_equal(mount("tmpfs", fx_tiny_mnt, "tmpfs", 0, "size=1m"), 0);
                repo = fx_init(work, false);
                fx_commit(repo, "refs/heads/main", NULL, 0, "src.c", "int a;\n", 1000, &c0);
                fx_commit(repo, "refs/heads/main", &c0, 1, "src.c", "int b;\n", 2000, &head);
                fx_checkout(repo, "main");
                git_repository_free(repo);
                assert_int_equal(chdir(work), 0);
                fx_result_file(".perfgate/results", "parse", fx_hex(&head), "default", false, 1e6);
                fx_result_file(".perfgate/results", "sort", fx_hex(&head), "default", false, 2e6);
                fx_fill(fx_tiny_mnt, kib);

                st = pg_test_perfgate(&o, "baseline", "save", NULL);
                if (st != 0 && st != 4)
                        fail_msg("%u KiB free: exit %d\n%s", kib, st, o.err.ptr);
                if (strstr(o.err.ptr, "target OID"))
                        fail_msg("%u KiB free: misleading message\n%s", kib, o.err.ptr);
                if (st == 4) {
                        failed++;
                        if (!strstr(o.err.ptr, "No space left on device") &&
                            !strstr(o.err.ptr, "(is the disk full?)"))
                                fail_msg("%u KiB free: the message does not say the disk is "
                                         "full\n%s",
                                         kib, o.err.ptr);
                        /* whichever write failed: what was saved, what to do */
                        if (!strstr(o.err.ptr, "; nothing was saved") ||
                            !strstr(o.err.ptr, ": free some space, then run this again\n"))
                                fail_msg("%u KiB free: the message does not say that nothing "
                                         "was saved and what to do\n%s",
                                         kib, o.err.ptr);
                        if (strstr(o.err.ptr, "cannot write the commit object to '"))
                                commit_lost++;
                        blob += strstr(o.err.ptr, "to the object database: ") != NULL;
                        tree += strstr(o.err.ptr, "cannot write the tree of '") != NULL;
                        reflog += strstr(o.err.ptr, "/logs/refs/heads/perfgate-baselines'") != NULL;
                        ref_lock += strstr(o.err.ptr, "cannot update branch 'perfgate-baselines': "
                                                      "failed to write") != NULL;
                } else {
                        saved++;
                }
                pg_run_out_release(&o);
                /* the branch moved only by a save that said it did */
                assert_int_equal(pg_test_run(&o, NULL, (char *const *) ref), st == 0 ? 0 : 1);
                pg_run_out_release(&o);
                if (st == 4 && pg_test_exists(".git/refs/heads/perfgate-baselines.lock"))
                        fail_msg("%u KiB free: the ref's lock file is left", kib);
                if (pg_test_run(&o, NULL, (char *const *) fsck) != 0)
                        fail_msg("%u KiB free: git fsck: %s%s", kib, o.out.ptr, o.err.ptr);
                pg_run_out_release(&o);
                assert_int_equal(chdir(sb), 0);
                assert_int_equal(umount2(fx_tiny_mnt, MNT_DETACH), 0);
                free(work);
        }
        /* the range spans the save: refused at the first writes, landed at the end */
        assert_true(failed > 3);
        assert_true(saved > 0);
        /* at most one fill point is the commit's own write (4 KiB apart, one
         * page per loose object): libgit2 1.5 reports that write done and
         * pg_store_written() finds the object missing; a libgit2 that reports
         * the ENOSPC itself says "No space left on device" there instead */
        assert_true(commit_lost <= 1);
        /* and each of the other writes was the one that failed at some fill:
         * a blob, a tree, the ref's reflog, the ref itself (its lock file) */
        if (!blob || !tree || !reflog || !ref_lock)
                fail_msg("not every write failed once: blob %u, tree %u, reflog %u, ref %u", blob,
                         tree, reflog, ref_lock);
        free(fx_tiny_mnt);
        fx_tiny_mnt = NULL;
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_baseline_cli_save_touches_no_worktree_index_or_head),
                cmocka_unit_test(test_baseline_cli_refusals_and_force),
                cmocka_unit_test(test_baseline_cli_errors_exit_2),
                cmocka_unit_test(test_baseline_cli_two_saves_at_once_both_land),
                cmocka_unit_test(test_baseline_cli_rejected_push_then_resave_lands),
                cmocka_unit_test(test_baseline_cli_list_and_show),
                cmocka_unit_test_teardown(test_baseline_cli_full_disk_exit_4_branch_unmoved,
                                          fx_tiny_teardown),
        };
        return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
