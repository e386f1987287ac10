/*
 * test_harden.c - perfgate run and compare used by a hostile second user, a
 * cancelling CI system and unusual benchmarks.
 *
 * - Links planted in an output directory (by the benchmark itself, racing
 *   perfgate between repetitions, or by another user) never redirect a
 *   write: <name>.log and <name>.json of `run`, <name>.diff.svg of
 *   `compare --flamegraph-dir` are replaced or refused, their targets stay
 *   untouched. A directory that belongs to another user is refused (as root,
 *   the test makes one owned by "nobody" and has that user plant the link).
 *   A link the user names with -o is written through as cp(1) would.
 * - SIGTERM to perfgate's whole process group (timeout(1), a CI cancel)
 *   exits 130 keeping the finished results; a benchmark that reads
 *   /dev/tty while perfgate runs in a terminal (a real pty, script(1)) gets
 *   no terminal and fails at once; one that stops itself is detected,
 *   killed and reported, instead of perfgate waiting forever.
 * - A benchmark's log keeps its first and last MiB and says how much was
 *   dropped between them; a failing benchmark's huge log costs perfgate no
 *   memory (only its end is read), and the end is printed with NUL, ESC and
 *   BEL escaped, nothing after a NUL hidden.
 * - --counters simulated (real valgrind; skipped without it) works with a
 *   benchmark "cwd" and the default relative --out, with a '%' in the
 *   benchmark name (valgrind expands %p and %q{VAR} in its file options),
 *   and a failure under valgrind shows valgrind's own message.
 * - Messages: --freq above kernel.perf_event_max_sample_rate names the
 *   sysctl and its value; a --timeout that rounds to no timeout is refused;
 *   the repeat errors state the range they accept; --machine is checked at
 *   `run` with the rule `baseline save` applies; an unwritable
 *   --flamegraph-dir is one error; change.points is null when the change
 *   overflows; `doctor /dev/zero` is not called a script.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/json.h"
#include <cjson/cJSON.h>
#include "baselines/result.h"
#include "common/error.h"
#include "runner/simulate.h"
#include "tests/util/cases.h"
#include "tests/util/testutil.h"

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

/* perfgate.json with one benchmark @name running `sh -c @script`. */
static void pg_write_sh_config(const char *path, const char *name, const char *script)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_buf_printf(&b, "{\"benchmarks\": [{\"name\": \"%s\", \"argv\": [\"/bin/sh\", \"-c\", ",
                      name);
        pg_json_write_string(&b, script);
        pg_buf_puts(&b, "]}]}\n");
        pg_test_write(path, b.ptr);
        pg_buf_release(&b);
}

static bool pg_is_link(const char *path)
{
        struct stat st;
        return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static bool pg_is_regular(const char *path)
{
        struct stat st;
        return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- links planted in output directories -------------------------------- */

/* The benchmark (standing in for a user racing perfgate) replaces its own
 * log and result by links to victims after the first repetition. */
static void test_harden_run_out_planted_links(void **state)
{
        struct pg_run_out o;
        char *v;
        (void) state;

        pg_test_sandbox();
        pg_test_write("victim-log", "secret\n");
        pg_test_write("victim-json", "secret\n");
        pg_write_sh_config("perfgate.json", "b",
                           "echo line-from-$$; if [ ! -e flag ]; then : > flag; "
                           "rm -f out/b.log out/b.json; ln -s ../victim-log out/b.log; "
                           "ln -s ../victim-json out/b.json; fi");
        pg_test_perfgate(&o, "run", "--out", "out", "--repeat", "3", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 0);
        v = pg_test_read("victim-log");
        assert_string_equal(v, "secret\n");
        free(v);
        v = pg_test_read("victim-json");
        assert_string_equal(v, "secret\n");
        free(v);
        assert_true(pg_is_regular("out/b.json")); /* the planted link was replaced */
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_harden_compare_flamegraph_dir_planted_link(void **state)
{
        struct pg_run_out o;
        char *src = pg_xasprintf("%s/tests/golden/compare", pg_test_env("PG_SOURCE_DIR"));
        char *base = pg_xasprintf("%s/base", src), *head = pg_xasprintf("%s/head", src);
        char *v;
        (void) state;

        pg_test_sandbox();
        pg_test_write("victim", "secret\n");
        assert_int_equal(mkdir("fg", 0755), 0);
        assert_int_equal(symlink("../victim", "fg/parse.diff.svg"), 0);
        pg_test_perfgate(&o, "compare", base, "--results", head, "--flamegraph-dir", "fg", NULL);
        assert_int_equal(o.status, 1);
        v = pg_test_read("victim");
        assert_string_equal(v, "secret\n");
        free(v);
        assert_true(pg_is_regular("fg/parse.diff.svg"));
        v = pg_test_read("fg/parse.diff.svg");
        pg_assert_has(v, "<svg");
        free(v);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
        free(src);
        free(base);
        free(head);
}

/* As root: "nobody" owns a directory and plants links in it; perfgate
 * refuses to write there at all. */
static void test_harden_dir_of_another_user_refused(void **state)
{
        struct passwd *pw = getpwnam("nobody");
        struct pg_run_out o;
        const char *sb;
        char *src, *base, *head, *v;
        pid_t pid;
        int status;
        (void) state;

        if (geteuid() != 0 || !pw) {
                print_message("skipped: needs root and a 'nobody' user to own a directory\n");
                skip();
        }
        sb = pg_test_sandbox();
        assert_int_equal(chmod(sb, 0755), 0); /* nobody must reach shared/ */
        pg_test_write("victim", "secret\n");
        pg_write_sh_config("perfgate.json", "b", "echo hello");
        assert_int_equal(mkdir("shared", 0755), 0);
        assert_int_equal(chown("shared", pw->pw_uid, pw->pw_gid), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
                        _exit(1);
                if (symlink("../victim", "shared/b.json") < 0 ||
                    symlink("../victim", "shared/parse.diff.svg") < 0)
                        _exit(2);
                _exit(0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

        pg_test_perfgate(&o, "run", "--out", "shared", "--repeat", "1", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "refusing to write into 'shared': it belongs to user 'nobody'");
        pg_run_out_release(&o);

        src = pg_xasprintf("%s/tests/golden/compare", pg_test_env("PG_SOURCE_DIR"));
        base = pg_xasprintf("%s/base", src);
        head = pg_xasprintf("%s/head", src);
        pg_test_perfgate(&o, "compare", base, "--results", head, "--flamegraph-dir", "shared",
                         NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "refusing to write into 'shared': it belongs to user 'nobody'");
        pg_run_out_release(&o);
        v = pg_test_read("victim");
        assert_string_equal(v, "secret\n");
        free(v);
        free(src);
        free(base);
        free(head);
        pg_test_sandbox_remove();
}

/* -o names a link: it is written through like cp(1) (the target keeps its
 * inode, the link stays); a dangling one is refused as cp refuses it. */
static void test_harden_output_link_written_through_like_cp(void **state)
{
        struct pg_run_out o;
        struct stat before, after;
        char *v, old[8];
        int old_fd;
        (void) state;

        pg_test_sandbox();
        pg_test_write("in.folded", "main;work 10\nmain;idle 5\n");
        pg_test_write("real.svg", "old\n");
        assert_int_equal(chmod("real.svg", 0640), 0);
        assert_int_equal(stat("real.svg", &before), 0);
        assert_int_equal(symlink("real.svg", "link.svg"), 0);
        /* a reader that has the old file open */
        old_fd = open("real.svg", O_RDONLY);
        assert_true(old_fd >= 0);
        pg_test_perfgate(&o, "flamegraph", "in.folded", "-o", "link.svg", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        /* the link stays; its target is replaced by a renamed temporary file
         * (a new inode, so a full disk could not have left it truncated)
         * with the old one's mode, and the old file was never written */
        assert_true(pg_is_link("link.svg"));
        assert_int_equal(stat("real.svg", &after), 0);
        assert_int_not_equal(before.st_ino, after.st_ino);
        assert_int_equal(after.st_mode & 07777, 0640);
        assert_int_equal(after.st_uid, before.st_uid);
        v = pg_test_read("real.svg");
        pg_assert_has(v, "<svg");
        free(v);
        assert_int_equal(read(old_fd, old, sizeof(old)), 4);
        assert_memory_equal(old, "old\n", 4);
        close(old_fd);
        /* a target with another hard link is written in place, as cp does:
         * a rename would part it from its other name */
        pg_test_write("kept.svg", "old\n");
        assert_int_equal(link("kept.svg", "kept2.svg"), 0);
        assert_int_equal(stat("kept.svg", &before), 0);
        assert_int_equal(symlink("kept.svg", "klink.svg"), 0);
        pg_test_perfgate(&o, "flamegraph", "in.folded", "-o", "klink.svg", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        assert_int_equal(stat("kept.svg", &after), 0);
        assert_int_equal(before.st_ino, after.st_ino);
        v = pg_test_read("kept2.svg");
        pg_assert_has(v, "<svg");
        free(v);

        assert_int_equal(symlink("nowhere.svg", "dangling.svg"), 0);
        pg_test_perfgate(&o, "flamegraph", "in.folded", "-o", "dangling.svg", NULL);
        assert_int_equal(o.status, 4);
        pg_assert_has(o.err.ptr, "not writing through dangling symlink 'dangling.svg'");
        assert_false(pg_test_exists("nowhere.svg"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* ---- cancelled jobs and hangs ------------------------------------------- */

static void test_harden_sigterm_to_process_group_is_130(void **state)
{
        struct pg_buf b = PG_BUF_INIT;
        int status, fd;
        pid_t pid;
        char *err;
        (void) state;

        pg_test_sandbox();
        pg_buf_puts(&b, "{\"benchmarks\": [{\"name\": \"a\", \"argv\": [\"/bin/sh\", \"-c\", "
                        "\"echo hi\"]}, {\"name\": \"b\", \"argv\": [\"/bin/sh\", \"-c\", "
                        "\"exec sleep 60\"]}]}\n");
        pg_test_write("perfgate.json", b.ptr);
        pg_buf_release(&b);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                setpgid(0, 0); /* as timeout(1) and CI runners start a job */
                fd = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(fd, 2);
                dup2(fd, 1);
                execl(pg_test_env("PERFGATE_BIN"), "perfgate", "run", "--out", "out", "--repeat",
                      "1", "--warmup", "0", "--no-profile", "perfgate.json", (char *) NULL);
                _exit(127);
        }
        setpgid(pid, pid);
        for (int i = 0; i < 1500 && !pg_test_exists("out/a.json"); i++)
                usleep(20000);
        assert_true(pg_test_exists("out/a.json"));
        usleep(300000); /* b is running */
        assert_int_equal(kill(-pid, SIGTERM), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        err = pg_test_read("err.txt");
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 130)
                fail_msg("status 0x%x, stderr:\n%s", status, err);
        pg_assert_has(err, "interrupted; kept the 1 finished results in 'out'");
        assert_null(strstr(err, "wait4"));
        free(err);
        pg_test_sandbox_remove();
}

/* perfgate in a real terminal (script(1) gives it a pty as its controlling
 * terminal); the benchmark reads /dev/tty. */
static void test_harden_tty_reader_under_pty_fails_fast(void **state)
{
        struct pg_run_out o;
        char *cmd, *log;
        (void) state;

        if (access("/usr/bin/script", X_OK) != 0) {
                print_message("skipped: needs script(1) from util-linux for a pty\n");
                skip();
        }
        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "tty", "read x < /dev/tty && echo got \"$x\"");
        cmd = pg_xasprintf("'%s' run --out out --repeat 1 --warmup 0 --no-profile perfgate.json",
                           pg_test_env("PERFGATE_BIN"));
        {
                char *argv[] = { "timeout", "-s", "KILL",      "30", "script",
                                 "-qec",    cmd,  "/dev/null", NULL };
                pg_test_run(&o, NULL, argv);
        }
        if (o.status != 3)
                fail_msg("status %d (137: perfgate hung), output:\n%s%s", o.status, o.out.ptr,
                         o.err.ptr);
        assert_false(pg_test_exists("out/tty.json"));
        log = pg_test_read("out/tty.log");
        pg_assert_has(log, "/dev/tty");
        pg_assert_has(log, "No such device or address"); /* ENXIO: no controlling terminal */
        free(log);
        pg_run_out_release(&o);
        free(cmd);
        pg_test_sandbox_remove();
}

static void test_harden_stopped_benchmark_detected(void **state)
{
        struct pg_run_out o;
        char *argv[] = { "timeout",
                         "-s",
                         "KILL",
                         "30",
                         (char *) pg_test_env("PERFGATE_BIN"),
                         "run",
                         "--out",
                         "out",
                         "--repeat",
                         "1",
                         "--warmup",
                         "0",
                         "--no-profile",
                         "perfgate.json",
                         NULL };
        (void) state;

        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "stops", "kill -STOP $$; echo resumed");
        pg_test_run(&o, NULL, argv);
        if (o.status != 3)
                fail_msg("status %d (137: perfgate hung), stderr:\n%s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "benchmark 'stops' was stopped by signal 19 (SIGSTOP");
        assert_false(pg_test_exists("out/stops.json"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* ---- bounded logs --------------------------------------------------------- */

static void test_harden_log_keeps_head_and_tail(void **state)
{
        struct pg_run_out o;
        struct stat st;
        char *log, *note;
        unsigned long long dropped;
        (void) state;

        pg_test_sandbox();
        /* 3 runs of 3 MiB each, marked at both ends */
        pg_write_sh_config("perfgate.json", "big",
                           "n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; "
                           "echo START-$n; head -c 3145728 /dev/zero | tr '\\000' a; "
                           "echo; echo END-$n");
        pg_test_perfgate(&o, "run", "--out", "out", "--repeat", "3", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        assert_int_equal(stat("out/big.log", &st), 0);
        assert_true(st.st_size <= 2 * 1048576 + 256);
        log = pg_test_read("out/big.log");
        assert_true(strncmp(log, "START-1\n", 8) == 0);
        note = strstr(log + 1048576 - 1, "[perfgate: ");
        assert_non_null(note);
        assert_int_equal(note - log, 1048576 + 1); /* right after the first MiB and a newline */
        assert_int_equal(sscanf(note, "[perfgate: %llu bytes of this log dropped here", &dropped),
                         1);
        /* everything written, less what is kept */
        assert_int_equal(dropped, 3 * (3145728ull + 8 + 1 + 6) - 2 * 1048576ull);
        assert_true(strlen(log) > 16);
        assert_string_equal(log + strlen(log) - 6, "END-3\n");
        assert_null(strstr(log, "START-2"));
        free(log);
        pg_test_sandbox_remove();
}

static void test_harden_failing_huge_log_costs_no_memory(void **state)
{
        struct rusage ru;
        int status, fd;
        pid_t pid;
        char *err;
        (void) state;

        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "huge",
                           "head -c 150000000 /dev/zero | tr '\\000' a; echo; echo last words; "
                           "exit 1");
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                fd = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(fd, 2);
                dup2(fd, 1);
                execl(pg_test_env("PERFGATE_BIN"), "perfgate", "run", "--out", "out", "--repeat",
                      "1", "--warmup", "0", "--no-profile", "perfgate.json", (char *) NULL);
                _exit(127);
        }
        assert_int_equal(wait4(pid, &status, 0, &ru), pid);
        err = pg_test_read("err.txt");
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
        pg_assert_has(err, "last words");
        /* perfgate itself (its children are not waited for by the test) */
        if (ru.ru_maxrss > 64 * 1024)
                fail_msg("perfgate's max RSS is %ld KiB for a 150 MB log", ru.ru_maxrss);
        free(err);
        pg_test_sandbox_remove();
}

static void test_harden_log_tail_printed_safely(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "ctl",
                           "printf 'before\\000after \\033[31mred\\007bell\\n'; exit 1");
        pg_test_perfgate(&o, "run", "--out", "out", "--repeat", "1", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "before\\x00after \\x1b[31mred\\x07bell");
        assert_null(memchr(o.err.ptr, 0x1b, o.err.len));
        assert_null(memchr(o.err.ptr, 0x07, o.err.len));
        assert_null(memchr(o.err.ptr, 0, o.err.len));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* ---- simulated counters --------------------------------------------------- */

static bool pg_have_valgrind(void)
{
        char *p = NULL;
        bool ok = pg_sim_find_valgrind(&p) == 0;
        free(p);
        return ok;
}

#define PG_NEED_VALGRIND()                                                                         \
        do {                                                                                       \
                if (!pg_have_valgrind()) {                                                         \
                        print_message("skipped: valgrind is not installed\n");                     \
                        skip();                                                                    \
                }                                                                                  \
        } while (0)

static void test_harden_simulated_with_cwd_and_relative_out(void **state)
{
        struct pg_run_out o;
        struct pg_result r;
        char *cfg;
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        assert_int_equal(mkdir("sub", 0755), 0);
        cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"w\", \"cwd\": \"sub\", "
                           "\"argv\": [\"%s\", \"2000\"]}]}\n",
                           pg_test_fixture("sim-simwork"));
        pg_test_write("perfgate.json", cfg);
        free(cfg);
        pg_test_perfgate(&o, "run", "--counters", "simulated", "--repeat", "1", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        if (o.status != 0)
                fail_msg("status %d:\n%s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, ".perfgate/results/w.json"), 0);
        assert_string_equal(r.counters, "simulated");
        assert_non_null(pg_result_find_metric(&r, "instructions"));
        pg_result_release(&r);
        pg_test_sandbox_remove();
}

static void test_harden_simulated_percent_in_name(void **state)
{
        static const char *const name = "p%p%q{HOME}%%x";
        struct pg_run_out o;
        struct pg_result r;
        struct dirent *de;
        size_t n = 0;
        DIR *d;
        char *cfg, *path;
        (void) state;

        PG_NEED_VALGRIND();
        pg_test_sandbox();
        cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"%s\", \"argv\": [\"%s\", "
                           "\"2000\"]}]}\n",
                           name, pg_test_fixture("sim-simwork"));
        pg_test_write("perfgate.json", cfg);
        free(cfg);
        pg_test_perfgate(&o, "run", "--counters", "simulated", "--repeat", "1", "--warmup", "0",
                         "--no-profile", "--out", "out", "perfgate.json", NULL);
        if (o.status != 0)
                fail_msg("status %d:\n%s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        path = pg_xasprintf("out/%s.json", name);
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, path), 0);
        assert_non_null(pg_result_find_metric(&r, "instructions"));
        pg_result_release(&r);
        free(path);
        /* nothing left in out/ but the result and the log, nothing beside it */
        d = opendir("out");
        assert_non_null(d);
        while ((de = readdir(d)) != NULL)
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                        n++;
        closedir(d);
        assert_int_equal(n, 2);
        d = opendir(".");
        n = 0;
        while ((de = readdir(d)) != NULL)
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                        n++;
        closedir(d);
        assert_int_equal(n, 2); /* perfgate.json and out */
        pg_test_sandbox_remove();
}

/* A program valgrind cannot start (its interpreter does not exist): the
 * error carries valgrind's own words, not "valgrind gave no reason". */
static void test_harden_simulated_failure_shows_valgrinds_message(void **state)
{
        char *argv[] = { "./bad", NULL };
        struct pg_sim_opts so = { 0 };
        struct pg_sim sim;
        char *valgrind = NULL, *work;
        int fd, error;
        (void) state;

        PG_NEED_VALGRIND();
        work = pg_xasprintf("%s/work", pg_test_sandbox());
        pg_test_write("bad", "#!/nonexistent/interpreter\necho hi\n");
        assert_int_equal(chmod("bad", 0755), 0);
        fd = open("bad.log", O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        assert_true(fd > 2);
        assert_int_equal(pg_sim_find_valgrind(&valgrind), 0);
        so.valgrind = valgrind;
        so.name = "bad";
        so.argv = argv;
        so.log_fd = fd;
        so.log_path = "bad.log";
        so.work_dir = work;
        so.timeout_ns = 60000000000ull;
        error = pg_simulate(&so, &sim);
        pg_sim_release(&sim);
        assert_int_equal(error, PG_EMEASURE);
        pg_assert_has(pg_error_last(), "bad interpreter");
        close(fd);
        free(valgrind);
        free(work);
        pg_test_sandbox_remove();
}

/* ---- messages --------------------------------------------------------------- */

static void test_harden_freq_above_kernel_max_names_sysctl(void **state)
{
        struct pg_run_out o;
        char *max_text, *freq, *want;
        long max;
        (void) state;

        max_text = pg_test_read("/proc/sys/kernel/perf_event_max_sample_rate");
        max = atol(max_text);
        free(max_text);
        if (max <= 0 || max >= 1000000) {
                print_message("skipped: kernel.perf_event_max_sample_rate is %ld\n", max);
                skip();
        }
        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "b", "echo hi");
        freq = pg_xasprintf("%ld", max + 1);
        pg_test_perfgate(&o, "run", "--out", "out", "--repeat", "1", "--warmup", "0", "--freq",
                         freq, "perfgate.json", NULL);
        assert_int_equal(o.status, 2);
        want = pg_xasprintf("--freq %ld is above kernel.perf_event_max_sample_rate (%ld)", max + 1,
                            max);
        pg_assert_has(o.err.ptr, want);
        assert_false(pg_test_exists("out/b.json"));
        pg_run_out_release(&o);
        free(want);
        free(freq);
        pg_test_sandbox_remove();
}

static void test_harden_timeout_and_repeat_messages(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "b", "echo hi");
        pg_test_perfgate(&o, "run", "--timeout", "1e-10", "perfgate.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "--timeout '1e-10' must be 0 (none) or at least 0.001 seconds");
        pg_run_out_release(&o);
        pg_test_write("t.json", "{\"benchmarks\": [{\"name\": \"b\", \"argv\": [\"/bin/true\"], "
                                "\"timeout\": 1e-10}]}\n");
        pg_test_perfgate(&o, "run", "t.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "must be 0 (none) or at least 0.001 seconds");
        pg_run_out_release(&o);
        pg_test_write("r.json", "{\"benchmarks\": [{\"name\": \"b\", \"argv\": [\"/bin/true\"], "
                                "\"repeat\": 0.5}]}\n");
        pg_test_perfgate(&o, "run", "r.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "must be a whole number from 1 to 1000000");
        assert_null(strstr(o.err.ptr, "from 0"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "run", "--repeat", "0", "perfgate.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "--repeat '0' must be a whole number from 1 to 1000000");
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_harden_machine_checked_at_run(void **state)
{
        static const char *const bad[] = { "..", ".", ".git", ".GIT", "a\nb", "a/b", "" };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "b", "echo hi");
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                pg_test_perfgate(&o, "run", "--out", "out", "--machine", bad[i], "perfgate.json",
                                 NULL);
                if (o.status != 2)
                        fail_msg("--machine '%s': status %d\n%s", bad[i], o.status, o.err.ptr);
                pg_assert_has(o.err.ptr, "is not a valid machine name");
                assert_false(pg_test_exists("out"));
                pg_run_out_release(&o);
        }
        pg_test_sandbox_remove();
}

static void test_harden_unwritable_flamegraph_dir_is_one_error(void **state)
{
        struct pg_run_out o;
        char *src = pg_xasprintf("%s/tests/golden/compare", pg_test_env("PG_SOURCE_DIR"));
        char *base = pg_xasprintf("%s/base", src), *head = pg_xasprintf("%s/head", src);
        (void) state;

        pg_test_sandbox();
        pg_test_write("file", "x");
        pg_test_perfgate(&o, "compare", base, "--results", head, "--flamegraph-dir", "file/fg",
                         NULL);
        assert_int_equal(o.status, 4);
        pg_assert_has(o.err.ptr, "perfgate: error: ");
        pg_assert_has(o.err.ptr, "file/fg");
        assert_null(strstr(o.err.ptr, "warning"));
        assert_null(strstr(strstr(o.err.ptr, "perfgate: error: ") + 1, "perfgate: "));
        pg_run_out_release(&o);
        free(src);
        free(base);
        free(head);
        pg_test_sandbox_remove();
}

static void test_harden_change_points_null_after_overflow(void **state)
{
        char *src =
            pg_xasprintf("%s/tests/golden/compare/base/parse.json", pg_test_env("PG_SOURCE_DIR"));
        struct pg_result r;
        struct pg_metric *m;
        struct pg_run_out o;
        cJSON *root, *it, *found = NULL;
        char *text;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(mkdir("b", 0755), 0);
        assert_int_equal(mkdir("h", 0755), 0);
        for (int side = 0; side < 2; side++) {
                pg_result_init(&r);
                assert_int_equal(pg_result_load(&r, src), 0);
                m = (struct pg_metric *) pg_result_find_metric(&r, "task-clock");
                assert_non_null(m);
                for (size_t i = 0; i < m->nvalues; i++)
                        m->values[i] = side ? 1e307 * (1 + (double) i / 100) : 1e-300;
                assert_int_equal(pg_result_save(&r, side ? "h/parse.json" : "b/parse.json"), 0);
                pg_result_release(&r);
        }
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--json", "c.json", NULL);
        text = pg_test_read("c.json");
        root = cJSON_Parse(text);
        free(text);
        assert_non_null(root);
        /* find the task-clock metric object anywhere in the report */
        {
                cJSON *stack[64];
                int n = 0;
                stack[n++] = root;
                while (n && !found) {
                        cJSON *x = stack[--n];
                        const cJSON *name = cJSON_GetObjectItemCaseSensitive(x, "metric");
                        if (cJSON_IsString(name) && strcmp(name->valuestring, "task-clock") == 0 &&
                            cJSON_GetObjectItemCaseSensitive(x, "change"))
                                found = x;
                        cJSON_ArrayForEach(it, x) if ((cJSON_IsObject(it) || cJSON_IsArray(it)) &&
                                                      n < 64) stack[n++] = it;
                }
        }
        assert_non_null(found);
        it = cJSON_GetObjectItemCaseSensitive(found, "change");
        assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(it, "points")));
        assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(it, "relative")));
        cJSON_Delete(root);
        pg_run_out_release(&o);
        free(src);
        pg_test_sandbox_remove();
}

static void test_harden_lock_error_has_a_reason(void **state)
{
        char *src =
            pg_xasprintf("%s/tests/golden/compare/base/parse.json", pg_test_env("PG_SOURCE_DIR"));
        char *init[] = { "git", "init", "-q", "-b", "main", ".", NULL };
        char *commit[] = { "git",    "-c", "user.name=t",   "-c", "user.email=t@t",
                           "commit", "-q", "--allow-empty", "-m", "x",
                           NULL };
        struct pg_run_out o;
        char *text;
        const char *line;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_test_run(&o, NULL, init), 0);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_run(&o, NULL, commit), 0);
        pg_run_out_release(&o);
        assert_int_equal(mkdir("res", 0755), 0);
        text = pg_test_read(src);
        pg_test_write("res/parse.json", text);
        free(text);
        pg_test_perfgate(&o, "baseline", "save", "--results", "res", "--force", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        pg_test_write(".git/refs/heads/perfgate-baselines.lock", ""); /* a crashed writer's */
        pg_test_perfgate(&o, "baseline", "save", "--results", "res", "--force", NULL);
        assert_int_equal(o.status, 4);
        line = strstr(o.err.ptr, "perfgate: error: ");
        assert_non_null(line);
        pg_assert_has(line, "is locked by another writer");
        pg_assert_has(line, "perfgate-baselines.lock");
        assert_null(strstr(line, ": \n"));
        assert_true(o.err.len > 2 && o.err.ptr[o.err.len - 2] != ' ' &&
                    o.err.ptr[o.err.len - 2] != ':');
        pg_run_out_release(&o);
        free(src);
        pg_test_sandbox_remove();
}

static void test_harden_few_repetitions_warned(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        pg_write_sh_config("perfgate.json", "b", "echo hi");
        pg_test_perfgate(&o, "run", "-q", "--out", "out", "--repeat", "3", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 0);
        pg_assert_has(o.err.ptr, "3 repetitions per benchmark cannot gate on their own");
        pg_assert_has(o.err.ptr, "p = 0.1 ");
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "run", "-q", "--out", "out", "--repeat", "5", "--warmup", "0",
                         "--no-profile", "perfgate.json", NULL);
        assert_int_equal(o.status, 0);
        assert_null(strstr(o.err.ptr, "cannot gate"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* The golden parse.json with task-clock set to @n values @v0 * (1 + i/100)
 * in unit @unit, saved as @path. */
static void pg_parse_variant(const char *path, size_t n, double v0, const char *unit)
{
        char *src =
            pg_xasprintf("%s/tests/golden/compare/base/parse.json", pg_test_env("PG_SOURCE_DIR"));
        struct pg_result r;
        struct pg_metric *m;

        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, src), 0);
        m = (struct pg_metric *) pg_result_find_metric(&r, "task-clock");
        assert_non_null(m);
        assert_true(m->nvalues >= n);
        m->nvalues = n;
        for (size_t i = 0; i < n; i++)
                m->values[i] = v0 * (1 + (double) i / 100);
        free(m->unit);
        m->unit = pg_xstrdup(unit);
        assert_int_equal(pg_result_save(&r, path), 0);
        pg_result_release(&r);
        free(src);
}

/*
 * `perfgate compare b --results h` on one benchmark whose samples are made
 * for the case (pg_parse_variant: n values from v0 up by 1% each, in unit).
 */
struct pg_variant {
        size_t n;
        double v0;
        const char *unit;
};

struct pg_compare_case {
        const char *name;             /* the test's name in cmocka's output */
        struct pg_variant base, head; /* b/parse.json, h/parse.json */
        const char *config;           /* perfgate.json, or NULL */
        int status;                   /* the exit status, or -1: not checked */
        const char *out_has;          /* on stdout, or NULL */
        const char *err_has[2];       /* on stderr */
};

static const struct pg_compare_case pg_compare_cases[] = {
        { .name = "test_harden_compare_says_could_not_have_failed",
          .base = { 3, 1e8, "ns" },
          .head = { 3, 1e9, "ns" }, /* +900% */
          .status = -1,
          .out_has = "could not have failed: with 3 and 3 repetitions" },
        { .name = "test_harden_compare_unit_mismatch_not_comparable",
          .base = { 5, 1e8, "ns" },
          .head = { 5, 1e8, "count" },
          .status = -1,
          .out_has = "units differ: 'ns' in the baseline, 'count' in head" },
        { .name = "test_harden_points_threshold_on_time_metric_refused",
          .base = { 5, 1e8, "ns" },
          .head = { 5, 1.0018e8, "ns" },
          .config = "{\"compare\": {\"metrics\": {\"task-clock\": {\"threshold\": \"5pp\"}}}}\n",
          .status = 2,
          .err_has = { "compare.metrics.task-clock.threshold is in percentage points",
                       "'task-clock' is in 'ns'" } },
};

static void test_harden_compare_case(void **state)
{
        const struct pg_compare_case *c = *state;
        struct pg_run_out o;

        pg_test_sandbox();
        assert_int_equal(mkdir("b", 0755), 0);
        assert_int_equal(mkdir("h", 0755), 0);
        pg_parse_variant("b/parse.json", c->base.n, c->base.v0, c->base.unit);
        pg_parse_variant("h/parse.json", c->head.n, c->head.v0, c->head.unit);
        if (c->config)
                pg_test_write("perfgate.json", c->config);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        if (c->status >= 0)
                assert_int_equal(o.status, c->status);
        if (c->out_has)
                pg_assert_has(o.out.ptr, c->out_has);
        for (size_t i = 0; i < 2 && c->err_has[i]; i++)
                pg_assert_has(o.err.ptr, c->err_has[i]);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* A repository with a main/ source folder: `compare main` is the branch,
 * and says so; ./main is the folder. */
static void test_harden_compare_main_with_a_main_directory(void **state)
{
        char *init[] = { "git", "init", "-q", "-b", "main", ".", NULL };
        char *commit[] = { "git",    "-c", "user.name=t",   "-c", "user.email=t@t",
                           "commit", "-q", "--allow-empty", "-m", "x",
                           NULL };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_test_run(&o, NULL, init), 0);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_run(&o, NULL, commit), 0);
        pg_run_out_release(&o);
        assert_int_equal(mkdir("main", 0755), 0);
        pg_test_write("main/app.c", "int main(void) { return 0; }\n");
        assert_int_equal(mkdir("h", 0755), 0);
        pg_parse_variant("h/parse.json", 5, 1e8, "ns");
        pg_test_perfgate(&o, "compare", "main", "--results", "h", "--require-baseline", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "'main' is both a directory and a git revision: comparing with "
                                 "the revision");
        pg_assert_has(o.err.ptr, "no baseline for 'main'");
        assert_null(strstr(o.out.ptr, "no baseline results in 'main'"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "./main", "--results", "h", NULL);
        pg_assert_has(o.out.ptr, "no baseline results in './main'");
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_harden_doctor_device_is_not_a_script(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_perfgate(&o, "doctor", "/dev/zero", NULL);
        pg_assert_has(o.out.ptr, "not a regular file");
        assert_null(strstr(o.out.ptr, "script"));
        pg_run_out_release(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_harden_run_out_planted_links),
                cmocka_unit_test(test_harden_compare_flamegraph_dir_planted_link),
                cmocka_unit_test(test_harden_dir_of_another_user_refused),
                cmocka_unit_test(test_harden_output_link_written_through_like_cp),
                cmocka_unit_test(test_harden_sigterm_to_process_group_is_130),
                cmocka_unit_test(test_harden_tty_reader_under_pty_fails_fast),
                cmocka_unit_test(test_harden_stopped_benchmark_detected),
                cmocka_unit_test(test_harden_log_keeps_head_and_tail),
                cmocka_unit_test(test_harden_failing_huge_log_costs_no_memory),
                cmocka_unit_test(test_harden_log_tail_printed_safely),
                cmocka_unit_test(test_harden_simulated_with_cwd_and_relative_out),
                cmocka_unit_test(test_harden_simulated_percent_in_name),
                cmocka_unit_test(test_harden_simulated_failure_shows_valgrinds_message),
                cmocka_unit_test(test_harden_freq_above_kernel_max_names_sysctl),
                cmocka_unit_test(test_harden_timeout_and_repeat_messages),
                cmocka_unit_test(test_harden_machine_checked_at_run),
                cmocka_unit_test(test_harden_unwritable_flamegraph_dir_is_one_error),
                cmocka_unit_test(test_harden_change_points_null_after_overflow),
                cmocka_unit_test(test_harden_lock_error_has_a_reason),
                cmocka_unit_test(test_harden_few_repetitions_warned),
                cmocka_unit_test(test_harden_compare_main_with_a_main_directory),
                cmocka_unit_test(test_harden_doctor_device_is_not_a_script),
        };
        return pg_run_tests_and_cases(tests, PG_NELEMS(tests), test_harden_compare_case, NULL, NULL,
                                      pg_compare_cases, sizeof(pg_compare_cases[0]),
                                      PG_NELEMS(pg_compare_cases));
}
