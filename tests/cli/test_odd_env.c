/*
 * test_odd_env.c - `perfgate run` in odd environments says what happened and
 * what to do, with the documented exit status (docs/run.md, "Errors"), and
 * the tables perfgate prints line up in columns, not bytes (docs/limits.md,
 * "Names"):
 *   - under a process limit (ulimit -u, as uid 65534: root is exempt) a
 *     fork that fails names the limit to raise, whichever fork it is (exit 4);
 *   - in a working directory that was removed: the message says so (exit 4
 *     for run, 2 for a relative input path);
 *   - in a read-only checkout (a read-only bind mount in a private mount
 *     namespace, unshare -m) or a directory the user cannot write: the
 *     message says to use --out DIR, and --out on a writable one works;
 *   - --counters simulated with a TMPDIR no file can be made in (missing,
 *     /proc): exit 3 before anything runs, naming TMPDIR;
 *   - compare's table and show's counter table with names outside ASCII
 *     ("ベンチ mark é"): the next column starts at the same terminal column
 *     on every row, as wcswidth(3) under C.UTF-8 counts them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

/* Fail the test unless @o exited @status saying @said on stderr; release @o. */
static void pg_assert_says(struct pg_run_out *o, int status, const char *said)
{
        if (o->status != status)
                fail_msg("exit %d, want %d: %s", o->status, status, o->err.ptr);
        pg_assert_has(o->err.ptr, said);
        pg_run_out_release(o);
}

/* bench/a, a benchmark that does nothing, in the sandbox (reachable by uid
 * 65534: the sandbox is made 0777) */
static const char *pg_bench(void)
{
        const char *sb = pg_test_sandbox();

        chmod(sb, 0777);
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_test_write("bench/a", "#!/bin/sh\n:\n");
        chmod("bench/a", 0755);
        return sb;
}

#define PG_QUICK "run", "-q", "--no-profile", "--repeat", "1", "--warmup", "0"

static void test_process_limit(void **state)
{
        const char *sb;
        (void) state;

        if (!pg_test_can_be_nobody() || access("/usr/bin/prlimit", X_OK) != 0) {
                skip(); /* RLIMIT_NPROC does not hold root back */
                return;
        }
        sb = pg_bench();
        /* a copy uid 65534 can execute: prlimit(1) execs it after setpriv has
         * dropped root, and a clone under /root (mode 0700) is out of reach */
        char *bin = pg_test_copy_program(pg_test_env("PERFGATE_BIN"), sb);
        /* a sanitized perfgate: LeakSanitizer's check at exit starts a
         * thread, which the same limit refuses (exit 1, "LeakSanitizer has
         * encountered a fatal error") */
        const char *asan = getenv("ASAN_OPTIONS");
        char *saved = asan ? pg_xstrdup(asan) : NULL, *opts;
        opts = pg_xasprintf("%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        free(opts);
        /* 1: the spawner's fork fails; 2: the benchmark's (more when other
         * processes of uid 65534 run: an earlier fork fails, with the same
         * hint) */
        for (int n = 1; n <= 2; n++) {
                char lim[32], *out = pg_xasprintf("%s/o%d", sb, n);
                char *argv[] = { "/usr/bin/prlimit", lim, bin, PG_QUICK, "--out", out,
                                 "bench/a",          NULL };
                struct pg_run_out o;

                snprintf(lim, sizeof(lim), "--nproc=%d:%d", n, n);
                pg_test_run_as_nobody(&o, argv);
                if (o.status != 4)
                        fail_msg("nproc %d: exit %d, want 4: %s", n, o.status, o.err.ptr);
                pg_assert_has(o.err.ptr, "Resource temporarily unavailable; no more processes may "
                                         "start: raise the process limit (ulimit -u)");
                pg_run_out_release(&o);
                free(out);
        }
        if (saved)
                setenv("ASAN_OPTIONS", saved, 1);
        else
                unsetenv("ASAN_OPTIONS");
        free(saved);
        free(bin);
}

static void test_cwd_removed(void **state)
{
        const char *sb = pg_bench();
        char *bench = pg_xasprintf("%s/bench/a", sb);
        struct pg_run_out o;
        (void) state;

        assert_int_equal(mkdir("gone", 0755), 0);
        assert_int_equal(chdir("gone"), 0);
        assert_int_equal(rmdir("../gone"), 0);
        pg_test_perfgate(&o, PG_QUICK, bench, NULL);
        assert_int_equal(chdir(sb), 0);
        pg_assert_says(&o, 4,
                       "cannot create directory '.perfgate': the current directory no "
                       "longer exists (it was removed after perfgate started in it); cd "
                       "into an existing directory");

        /* any command, any relative path */
        assert_int_equal(mkdir("gone", 0755), 0);
        assert_int_equal(chdir("gone"), 0);
        assert_int_equal(rmdir("../gone"), 0);
        pg_test_perfgate(&o, "show", "a.json", NULL);
        assert_int_equal(chdir(sb), 0);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "'a.json': No such file or directory; the current directory no "
                                 "longer exists");
        pg_run_out_release(&o);
        free(bench);
}

/* `perfgate <QUICK> ARGS` in @dir made read-only by a bind mount in a
 * private mount namespace; returns the exit status, or -1 when the mount
 * namespace cannot be made. */
static int pg_run_read_only(struct pg_run_out *o, const char *dir, const char *args)
{
        char *script = pg_xasprintf("mount --bind '%s' '%s' && mount -o remount,bind,ro '%s' || "
                                    "exit 99; cd '%s' && exec '%s' run -q --no-profile --repeat 1 "
                                    "--warmup 0 %s",
                                    dir, dir, dir, dir, pg_test_env("PERFGATE_BIN"), args);
        char *argv[] = { "unshare", "-m", "sh", "-c", script, NULL };

        pg_test_run(o, NULL, argv);
        free(script);
        return o->status == 99 || (o->status != 0 && strstr(o->err.ptr, "unshare:")) ? -1
                                                                                     : o->status;
}

static void test_read_only(void **state)
{
        const char *sb = pg_bench();
        char *out = pg_xasprintf("%s/writable", sb), *args = pg_xasprintf("--out '%s' bench/", out);
        char *ro = pg_xasprintf("%s/ro", sb);
        struct pg_run_out o;
        int st;
        (void) state;

        /* a checkout with results from an earlier run */
        PG_TEST_PERFGATE_EXPECT(&o, 0, PG_QUICK, "bench/");
        pg_run_out_release(&o);
        assert_int_equal(mkdir("ro", 0755), 0);
        if (geteuid() != 0 || (st = pg_run_read_only(&o, sb, "bench/")) < 0) {
                pg_run_out_release(&o);
                skip(); /* a bind mount needs root */
                return;
        }
        if (st != 4)
                fail_msg("exit %d, want 4: %s", st, o.err.ptr);
        /* the run's marker (docs/limits.md) is its first write there */
        pg_assert_has(o.err.ptr, "cannot create a temporary file beside "
                                 "'.perfgate/results/.perfgate-run': Read-only file system");
        pg_assert_has(o.err.ptr, "'.perfgate/results' is on a read-only file system: use --out DIR "
                                 "on a writable file system");
        pg_run_out_release(&o);
        /* one without: .perfgate cannot be made */
        pg_test_sh("mkdir -p ro/bench && cp bench/a ro/bench/");
        assert_int_equal(pg_run_read_only(&o, ro, "bench/"), 4);
        pg_assert_has(o.err.ptr, "cannot create directory '.perfgate': Read-only file system; '.' "
                                 "is on a read-only file system: use --out DIR on a writable file "
                                 "system");
        pg_run_out_release(&o);
        /* what the message says works */
        if (pg_run_read_only(&o, ro, args) != 0)
                fail_msg("--out on a writable directory: exit %d: %s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        assert_true(pg_test_exists("writable/a.json"));

        /* a directory the user may not write in: the same advice */
        if (pg_test_can_be_nobody()) {
                char *argv[] = { (char *) pg_test_env("PERFGATE_BIN"), PG_QUICK, "bench/", NULL };

                assert_int_equal(chmod("ro", 0755), 0);
                assert_int_equal(chdir("ro"), 0);
                pg_test_run_as_nobody(&o, argv);
                assert_int_equal(chdir(sb), 0);
                pg_assert_says(&o, 4,
                               "cannot create directory '.perfgate': Permission denied; "
                               "you cannot write in '.': use --out DIR on a writable "
                               "file system");
        }
        free(out);
        free(args);
        free(ro);
}

static void test_simulated_tmpdir(void **state)
{
        const char *dirs[] = { "/nonexistent", "/proc" };
        (void) state;

        if (system("valgrind --version >/dev/null 2>&1") != 0) {
                skip(); /* without valgrind, run says that first */
                return;
        }
        pg_bench();
        for (size_t i = 0; i < 2; i++) {
                char *env = pg_xasprintf("TMPDIR=%s", dirs[i]);
                char *want = pg_xasprintf("no file can be created in TMPDIR '%s'", dirs[i]);
                char *argv[] = { "env",     env,          (char *) pg_test_env("PERFGATE_BIN"),
                                 PG_QUICK,  "--counters", "simulated",
                                 "bench/a", NULL };
                struct pg_run_out o;

                pg_test_run(&o, NULL, argv);
                if (o.status != 3)
                        fail_msg("TMPDIR=%s: exit %d, want 3: %s", dirs[i], o.status, o.err.ptr);
                pg_assert_has(o.err.ptr, want);
                pg_assert_has(o.err.ptr, "set TMPDIR to a writable directory");
                /* before anything ran */
                assert_false(pg_test_exists(".perfgate/results/a.log"));
                pg_run_out_release(&o);
                free(env);
                free(want);
        }
}

/* The terminal column where @needle starts in @line (up to its newline), by
 * glibc's wcswidth() under C.UTF-8; -1 when absent. */
static int pg_column_of(const char *line, const char *needle)
{
        const char *at = strstr(line, needle), *nl = strchr(line, '\n');
        char *head;
        wchar_t w[512];
        size_t n;
        int cols;

        if (!at || (nl && at > nl))
                return -1;
        head = pg_xstrndup(line, (size_t) (at - line));
        n = mbstowcs(w, head, 511);
        assert_true(n != (size_t) -1);
        cols = wcswidth(w, n);
        free(head);
        return cols;
}

/* The start of the line of @text that holds @needle (fails the test without one). */
static const char *pg_line_with(const char *text, const char *needle)
{
        const char *at = strstr(text, needle);

        if (!at)
                fail_msg("no '%s' in:\n%s", needle, text);
        while (at > text && at[-1] != '\n')
                at--;
        return at;
}

/* Fail the test unless @column starts at the same terminal column on the
 * first line of @text holding @row_a and on the first holding @row_b. */
static void pg_assert_same_column(const char *text, const char *row_a, const char *row_b,
                                  const char *column)
{
        int a = pg_column_of(pg_line_with(text, row_a), column);
        int b = pg_column_of(pg_line_with(text, row_b), column);

        if (a < 0 || a != b)
                fail_msg("'%s' starts at column %d after '%s' and %d after '%s':\n%s", column, a,
                         row_a, b, row_b, text);
}

static void test_tables_in_columns(void **state)
{
        const char *src = pg_test_env("PG_SOURCE_DIR");
        char *py;
        struct pg_run_out o;
        (void) state;

        if (!setlocale(LC_CTYPE, "C.UTF-8")) {
                skip(); /* the oracle, wcswidth(), needs a UTF-8 locale */
                return;
        }
        pg_test_sandbox();
        py = pg_xasprintf(
            "python3 - <<'EOF'\n"
            "import json, os\n"
            "for side in ('base', 'head'):\n"
            "    os.makedirs(side)\n"
            "    for src, name in (('parse', '\\u30d9\\u30f3\\u30c1 mark \\u00e9'), "
            "('checksum', 'plain')):\n"
            "        d = json.load(open('%s/tests/golden/compare/' + side + '/' + src + '.json'))\n"
            "        d['name'] = name\n"
            "        for m in ('\\u6642\\u9593-\\u00e9', 'ascii-count'):\n"
            "            d['metrics'][m] = dict(d['metrics']['task-clock'], unit='count')\n"
            "        json.dump(d, open(side + '/' + src + '.json', 'w'), ensure_ascii=False)\n"
            "EOF",
            src);
        pg_test_sh(py);
        free(py);

        PG_TEST_PERFGATE_EXPECT(&o, 1, "compare", "base", "--results", "head");
        pg_assert_same_column(o.out.ptr, "ベンチ mark é", "plain", "task-clock");
        pg_run_out_release(&o);
        PG_TEST_PERFGATE_EXPECT(&o, 0, "show", "head/checksum.json");
        pg_assert_same_column(o.out.ptr, "時間-é", "ascii-count", "#");
        pg_run_out_release(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_process_limit, pg_test_teardown_sandbox),
                cmocka_unit_test_teardown(test_cwd_removed, pg_test_teardown_sandbox),
                cmocka_unit_test_teardown(test_read_only, pg_test_teardown_sandbox),
                cmocka_unit_test_teardown(test_simulated_tmpdir, pg_test_teardown_sandbox),
                cmocka_unit_test_teardown(test_tables_in_columns, pg_test_teardown_sandbox),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
