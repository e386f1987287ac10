/*
 * test_interrupt.c - no partial files, no lost data, no stray processes.
 *
 * - `perfgate run` and `perfgate compare` (--markdown --json --junit
 *   --openmetrics --flamegraph-dir) are killed with SIGKILL at 20 seeded
 *   random moments each. Afterwards every result file loads, every report
 *   present is byte-identical to the one an uninterrupted run writes, and
 *   the only other files are the benchmarks' live logs (<name>.log, not
 *   data) and temporaries named <file>.tmp.XXXXXX, which later runs and
 *   compares ignore (shown by running them to completion over the leftovers).
 * - SIGINT during `perfgate run` stops the running benchmark's whole process
 *   group (a grandchild included), keeps the results already finished, and
 *   exits 130 with "interrupted; kept the N finished results in 'DIR'".
 * - SIGINT or SIGKILL during a run into a reused --out: the benchmarks not
 *   reached have no result (not the previous run's), and compare (HEAD and
 *   BASE) and show refuse the directory, exit 2, until a run into it
 *   completes.
 * - `perfgate baseline save` killed with SIGKILL at 20 random moments leaves
 *   the data branch at its old commit or its new one (git fsck clean, the
 *   ref resolves, every baseline in the tip's tree loads).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "baselines/result.h"
#include "tests/util/testutil.h"

#define PG_KILLS 20

static uint64_t pg_rng_state = 0x2545f4914f6cdd1dull; /* fixed seed: a failure reproduces */

static uint64_t pg_rng(void)
{
        pg_rng_state ^= pg_rng_state << 13;
        pg_rng_state ^= pg_rng_state >> 7;
        pg_rng_state ^= pg_rng_state << 17;
        return pg_rng_state;
}

static uint64_t pg_now_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void pg_sleep_us(uint64_t us)
{
        struct timespec ts = { (time_t) (us / 1000000u), (long) (us % 1000000u) * 1000 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* Start perfgate with @argv (after the binary), output to err.txt/out.txt. */
static pid_t pg_spawn(char *const *args)
{
        const char *bin = pg_test_env("PERFGATE_BIN");
        char *argv[32];
        size_t n = 0;
        pid_t pid;

        argv[n++] = (char *) bin;
        for (; *args && n < 31; args++)
                argv[n++] = *args;
        argv[n] = NULL;
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int o = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                int e = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(o, 1);
                dup2(e, 2);
                execv(bin, argv);
                _exit(127);
        }
        return pid;
}

static int pg_wait(pid_t pid)
{
        int st;
        while (waitpid(pid, &st, 0) < 0)
                assert_int_equal(errno, EINTR);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run to completion; returns the exit status and the wall time in us. */
static int pg_run_full(char *const *args, uint64_t *us)
{
        uint64_t t0 = pg_now_us();
        int rc = pg_wait(pg_spawn(args));
        *us = pg_now_us() - t0;
        return rc;
}

/* Run and SIGKILL after a random delay in [0, @span_us). */
static void pg_run_killed(char *const *args, uint64_t span_us)
{
        uint64_t delay = span_us ? pg_rng() % span_us : 0;
        pid_t pid = pg_spawn(args);
        pg_sleep_us(delay);
        kill(pid, SIGKILL);
        (void) pg_wait(pid);
}

static size_t pg_complete_files; /* complete files seen after kills: the kills hit */

static bool pg_is_tmp(const char *name)
{
        const char *t = strstr(name, ".tmp.");
        return t && strlen(t + 5) == 6; /* mkstemp's XXXXXX */
}

static bool pg_ends(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && strcmp(s + a - b, suffix) == 0;
}

/*
 * Check @dir after a kill: every *.json loads as a result (or, with @golden,
 * equals the golden file of that name), *.log and temporaries are allowed,
 * nothing else exists. Returns the number of temporaries seen.
 */
static size_t pg_check_dir(const char *dir, const char *golden, bool results)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t tmps = 0;
        if (!d)
                return 0; /* not created yet: nothing half-written either */
        while ((de = readdir(d)) != NULL) {
                char *p;
                if (de->d_name[0] == '.')
                        continue;
                p = pg_xasprintf("%s/%s", dir, de->d_name);
                if (pg_is_tmp(de->d_name)) {
                        tmps++;
                } else if (results && pg_ends(de->d_name, ".log")) {
                        /* the benchmark's live output, never read back */
                } else if (results && pg_ends(de->d_name, ".json")) {
                        struct pg_result r;
                        pg_result_init(&r);
                        if (pg_result_load(&r, p) != 0)
                                fail_msg("'%s' is not a complete result", p);
                        pg_result_release(&r);
                        pg_complete_files++;
                } else if (golden) {
                        char *g = pg_xasprintf("%s/%s", golden, de->d_name);
                        char *a = pg_test_read(p), *b = pg_test_read(g);
                        if (strcmp(a, b) != 0)
                                fail_msg("'%s' differs from a complete run's", p);
                        free(a);
                        free(b);
                        free(g);
                        pg_complete_files++;
                } else {
                        fail_msg("unexpected file '%s'", p);
                }
                free(p);
        }
        closedir(d);
        return tmps;
}

static void test_interrupt_run_sigkill(void **state)
{
        char *args[] = { "run",      "bench", "--out",        "out", "--repeat", "2",
                         "--warmup", "0",     "--no-profile", "-q",  NULL };
        uint64_t span;
        size_t tmps = 0;
        struct pg_run_out o;
        (void) state;
        assert_int_equal(mkdir("bench", 0777), 0);
        pg_test_write("bench/perfgate.json",
                      "{\"benchmarks\": ["
                      "{\"name\": \"a\", \"argv\": [\"true\"]},"
                      "{\"name\": \"b\", \"argv\": [\"sh\", \"-c\", \"echo b\"]},"
                      "{\"name\": \"c\", \"argv\": [\"true\"]},"
                      "{\"name\": \"d\", \"argv\": [\"sh\", \"-c\", \"echo d >&2\"]}]}\n");
        assert_int_equal(pg_run_full(args, &span), 0);
        assert_int_equal(system("rm -rf out"), 0);
        pg_complete_files = 0;
        for (int i = 0; i < PG_KILLS; i++) {
                pg_run_killed(args, span + span / 4);
                tmps = pg_check_dir("out", NULL, true);
        }
        print_message("run: %d kills within %llu us: %zu complete results checked, "
                      "%zu temporaries left\n",
                      PG_KILLS, (unsigned long long) span, pg_complete_files, tmps);
        /* leftovers are ignored: a full run and the loaders succeed over them */
        assert_int_equal(pg_run_full(args, &span), 0);
        pg_check_dir("out", NULL, true);
        pg_test_perfgate(&o, "show", "out", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "out", "--results", "out", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
}

/* A result with @nstacks distinct stacks, task-clock around @ms. */
static void pg_write_result(const char *path, const char *name, double ms, size_t nstacks)
{
        char *text;
        struct pg_buf b = PG_BUF_INIT;
        pg_buf_printf(&b,
                      "{\"schema\": \"perfgate/result/1\", \"name\": \"%s\", \"command\": [\"x\"],"
                      "\"created\": \"2026-11-29T10:00:00Z\", \"machine\": \"default\","
                      "\"counters\": \"software\", \"repeat\": 5, \"warmup\": 1,"
                      "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": [",
                      name);
        for (int i = 0; i < 5; i++)
                pg_buf_printf(&b, "%s%.0f", i ? ", " : "", (ms + i * 0.1) * 1e6);
        pg_buf_puts(&b, "]}}, \"profile\": {\"event\": \"cpu-clock\", \"frequency_hz\": 999,"
                        "\"call_graph\": \"fp\", \"lost\": 0, \"truncated\": 0, \"samples\": ");
        pg_buf_printf(&b, "%zu, \"stacks\": {", nstacks * 3);
        for (size_t i = 0; i < nstacks; i++)
                pg_buf_printf(&b, "%s\"x;main;f%zu;g%zu;h%zu\": 3", i ? ", " : "", i % 97, i % 13,
                              i);
        pg_buf_puts(&b, "}}}\n");
        text = pg_buf_detach(&b, NULL);
        pg_test_write(path, text);
        free(text);
}

static void test_interrupt_compare_sigkill(void **state)
{
        char *args[] = {
                "compare",       "base",       "--results",        "head",    "--markdown",
                "rep/out.md",    "--json",     "rep/out.json",     "--junit", "rep/out.xml",
                "--openmetrics", "rep/out.om", "--flamegraph-dir", "fg",      NULL
        };
        uint64_t span;
        size_t tmps = 0;
        (void) state;
        assert_int_equal(system("mkdir -p base head rep"), 0);
        for (int i = 0; i < 4; i++) {
                char *p = pg_xasprintf("base/b%d.json", i), *q = pg_xasprintf("head/b%d.json", i),
                     *n = pg_xasprintf("b%d", i);
                pg_write_result(p, n, 100, 4000);
                pg_write_result(q, n, i % 2 ? 150 : 100, 4000);
                free(p);
                free(q);
                free(n);
        }
        /* the complete outputs, for comparison */
        assert_int_equal(pg_run_full(args, &span), 1);
        assert_int_equal(system("mv rep golden-rep && mv fg golden-fg && mkdir rep"), 0);
        pg_complete_files = 0;
        for (int i = 0; i < PG_KILLS; i++) {
                /* from scratch each time, so every kill can catch a write */
                assert_int_equal(system("rm -rf rep fg && mkdir rep"), 0);
                pg_run_killed(args, span + span / 4);
                tmps += pg_check_dir("rep", "golden-rep", false);
                tmps += pg_check_dir("fg", "golden-fg", false);
        }
        print_message("compare: %d kills within %llu us: %zu complete reports checked, "
                      "%zu temporaries left\n",
                      PG_KILLS, (unsigned long long) span, pg_complete_files, tmps);
        assert_int_equal(pg_run_full(args, &span), 1);
        pg_check_dir("rep", "golden-rep", false);
        pg_check_dir("fg", "golden-fg", false);
}

static bool pg_pid_alive(pid_t pid)
{
        char path[64], buf[256];
        FILE *f;
        char *rp;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        f = fopen(path, "r");
        if (!f)
                return false;
        buf[0] = '\0';
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        rp = strrchr(buf, ')');
        return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X'; /* a zombie is dead */
}

static pid_t pg_read_pid(const char *path)
{
        char *s;
        pid_t pid;
        if (!pg_test_exists(path))
                return 0;
        s = pg_test_read(path);
        pid = (pid_t) atoi(s);
        free(s);
        return pid;
}

static void test_interrupt_run_sigint(void **state)
{
        char *args[] = { "run", "bench",    "--out", "out",          "--repeat",
                         "1",   "--warmup", "0",     "--no-profile", NULL };
        pid_t pid, sh = 0, child = 0;
        char *err, *cwd = getcwd(NULL, 0), *cfg;
        uint64_t t0;
        int rc;
        (void) state;
        assert_int_equal(mkdir("bench", 0777), 0);
        /* b starts a grandchild in its process group, records both pids, waits */
        cfg = pg_xasprintf("{\"benchmarks\": ["
                           "{\"name\": \"a\", \"argv\": [\"true\"]},"
                           "{\"name\": \"b\", \"argv\": [\"sh\", \"-c\", "
                           "\"sleep 30 & echo $! > %s/child.pid; echo $$ > %s/sh.pid; wait\"]},"
                           "{\"name\": \"c\", \"argv\": [\"true\"]}]}\n",
                           cwd, cwd);
        pg_test_write("bench/perfgate.json", cfg);
        free(cfg);
        pid = pg_spawn(args);
        t0 = pg_now_us();
        while ((!pg_test_exists("child.pid") || !pg_test_exists("sh.pid")) &&
               pg_now_us() - t0 < 20000000u)
                pg_sleep_us(10000);
        pg_sleep_us(50000); /* both pid files written in full */
        sh = pg_read_pid("sh.pid");
        child = pg_read_pid("child.pid");
        assert_true(sh > 0 && child > 0);
        assert_true(pg_pid_alive(child));
        kill(pid, SIGINT);
        rc = pg_wait(pid);
        err = pg_test_read("err.txt");
        if (rc != 130)
                fail_msg("exit %d, want 130:\n%s", rc, err);
        if (!strstr(err, "interrupted; kept the 1 finished results in 'out'"))
                fail_msg("no clear message:\n%s", err);
        free(err);
        /* the finished result is kept, the interrupted and the later ones are not */
        assert_true(pg_test_exists("out/a.json"));
        assert_false(pg_test_exists("out/b.json"));
        assert_false(pg_test_exists("out/c.json"));
        pg_check_dir("out", NULL, true);
        /* the benchmark's whole process group is gone */
        t0 = pg_now_us();
        while ((pg_pid_alive(sh) || pg_pid_alive(child)) && pg_now_us() - t0 < 2000000u)
                pg_sleep_us(10000);
        if (pg_pid_alive(child)) {
                kill(child, SIGKILL);
                fail_msg("the benchmark's child %d survived SIGINT", (int) child);
        }
        assert_false(pg_pid_alive(sh));
        free(cwd);
}

/*
 * A run into a reused --out (a previous run's results there, as in the
 * default .perfgate/results) stopped by @sig while its second benchmark
 * runs: the two benchmarks never reached must not pass as measured. Every
 * reader refuses the directory (exit 2, what happened and what to do) until
 * a run into it completes; no old result is left under its name.
 */
static void pg_reused_out_stopped(int sig)
{
        char *run[] = { "run",      "bench", "--out",        "out", "--repeat", "2",
                        "--warmup", "0",     "--no-profile", "-q",  NULL };
        char *cwd = getcwd(NULL, 0), *cfg, *err;
        struct pg_run_out o;
        pid_t pid, b;
        uint64_t t0, us;
        int rc;

        assert_int_equal(mkdir("bench", 0777), 0);
        /* b stops (its pid written) only while the file "slow" exists */
        cfg = pg_xasprintf("{\"benchmarks\": ["
                           "{\"name\": \"a\", \"argv\": [\"true\"]},"
                           "{\"name\": \"b\", \"argv\": [\"sh\", \"-c\", "
                           "\"if [ -e %s/slow ]; then echo $$ > %s/b.pid; exec sleep 30; fi\"]},"
                           "{\"name\": \"c\", \"argv\": [\"true\"]},"
                           "{\"name\": \"d\", \"argv\": [\"true\"]}]}\n",
                           cwd, cwd);
        pg_test_write("bench/perfgate.json", cfg);
        free(cfg);
        assert_int_equal(pg_run_full(run, &us), 0);
        assert_int_equal(system("cp -r out base"), 0);
        pg_test_write("slow", "");
        pid = pg_spawn(run);
        t0 = pg_now_us();
        while (!pg_test_exists("b.pid") && pg_now_us() - t0 < 20000000u)
                pg_sleep_us(10000);
        pg_sleep_us(50000); /* the pid written in full */
        b = pg_read_pid("b.pid");
        assert_true(b > 0);
        kill(pid, sig);
        rc = pg_wait(pid);
        if (sig == SIGKILL)
                kill(b, SIGKILL); /* nobody stopped the benchmark */
        err = pg_test_read("err.txt");
        if (rc != (sig == SIGKILL ? 128 + SIGKILL : 130))
                fail_msg("run exit %d:\n%s", rc, err);
        if (sig == SIGINT &&
            !strstr(err, "interrupted; kept the 1 finished results in 'out' (of 4 benchmarks: "
                         "compare, show and baseline save refuse the directory until a run into "
                         "it completes)"))
                fail_msg("no clear message:\n%s", err);
        free(err);
        /* the benchmarks not reached have no result, not the previous run's */
        assert_true(pg_test_exists("out/a.json"));
        assert_false(pg_test_exists("out/b.json"));
        assert_false(pg_test_exists("out/c.json"));
        assert_false(pg_test_exists("out/d.json"));
        assert_true(pg_test_exists("out/" PG_RUN_MARKER));
        /* every reader refuses the half-done set, as HEAD and as BASE */
        {
                const char *want = "perfgate: error: the last perfgate run into 'out' (pid ";
                const char *want2 = ") stopped after 1 of 4 benchmarks (interrupted, killed or "
                                    "failed), so its results are a half-done set; run it again "
                                    "(perfgate run --out 'out'), or remove 'out/.perfgate-run' to "
                                    "use the 1 finished results as they are";
                pg_test_perfgate(&o, "compare", "./base", "--results", "out", NULL);
                if (o.status != 2 || !strstr(o.err.ptr, want) || !strstr(o.err.ptr, want2))
                        fail_msg("compare exit %d:\n%s", o.status, o.err.ptr);
                pg_run_out_release(&o);
                pg_test_perfgate(&o, "compare", "./out", "--results", "base", NULL);
                if (o.status != 2 || !strstr(o.err.ptr, "run into './out' (pid ") ||
                    !strstr(o.err.ptr, "stopped after 1 of 4 benchmarks"))
                        fail_msg("compare against it exit %d:\n%s", o.status, o.err.ptr);
                pg_run_out_release(&o);
                pg_test_perfgate(&o, "show", "out", NULL);
                if (o.status != 2 || !strstr(o.err.ptr, want2))
                        fail_msg("show exit %d:\n%s", o.status, o.err.ptr);
                pg_run_out_release(&o);
        }
        /* a completed run into it makes it whole again */
        unlink("slow");
        assert_int_equal(pg_run_full(run, &us), 0);
        assert_false(pg_test_exists("out/" PG_RUN_MARKER));
        pg_check_dir("out", NULL, true);
        pg_test_perfgate(&o, "show", "out", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        free(cwd);
}

static void test_interrupt_reused_out_sigint(void **state)
{
        (void) state;
        pg_reused_out_stopped(SIGINT);
}

static void test_interrupt_reused_out_sigkill(void **state)
{
        (void) state;
        pg_reused_out_stopped(SIGKILL);
}

/* Run git with @args (NULL-terminated) in the cwd; stdout in @o. */
static int pg_git(struct pg_run_out *o, ...)
{
        char *argv[16];
        size_t n = 0;
        va_list ap;
        argv[n++] = "git";
        va_start(ap, o);
        while (n < 15 && (argv[n] = va_arg(ap, char *)) != NULL)
                n++;
        va_end(ap);
        argv[n] = NULL;
        return pg_test_run(o, NULL, argv);
}

/* `git rev-parse --verify REV^{commit}`, or "" when it does not resolve. */
static char *pg_rev(const char *rev)
{
        struct pg_run_out o;
        char *spec = pg_xasprintf("%s^{commit}", rev), *r;
        if (pg_git(&o, "rev-parse", "--verify", "-q", spec, NULL) == 0) {
                o.out.ptr[strcspn(o.out.ptr, "\n")] = '\0';
                r = pg_xstrdup(o.out.ptr);
        } else {
                r = pg_xstrdup("");
        }
        pg_run_out_release(&o);
        free(spec);
        return r;
}

static void pg_write_baseline_results(const char *head, int round)
{
        const char *names[] = { "a", "b", "c" };
        for (int i = 0; i < 3; i++) {
                char *path = pg_xasprintf("res/%s.json", names[i]);
                char *text = pg_xasprintf(
                    "{\"schema\": \"perfgate/result/1\", \"name\": \"%s\", \"command\": [\"x\"],"
                    "\"created\": \"2026-11-29T10:00:00Z\", \"machine\": \"default\","
                    "\"git\": {\"commit\": \"%s\", \"dirty\": false},"
                    "\"counters\": \"software\", \"repeat\": 3, \"warmup\": 0,"
                    "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": [%d, %d, "
                    "%d]}}}\n",
                    names[i], head, 1000 + round, 1001 + round, 1002 + round);
                pg_test_write(path, text);
                free(text);
                free(path);
        }
}

/*
 * `perfgate baseline save` killed at random moments: the data branch is at
 * its old commit or at a new one whose parent is the old one, `git fsck`
 * is clean, and the tip's tree holds every baseline as a loadable result.
 * A kill while the ref is locked leaves "<ref>.lock" behind (as git does);
 * the next save then stops naming it (exit 4), and removing it recovers.
 */
static void test_interrupt_baseline_save_sigkill(void **state)
{
        char *args[] = { "baseline", "save", "--results", "res", NULL };
        const char *ref = "perfgate-baselines", *lock = ".git/refs/heads/perfgate-baselines.lock";
        struct pg_run_out o;
        char *head, *old;
        uint64_t span;
        size_t moved = 0, kept = 0, locks = 0;
        (void) state;
        assert_int_equal(system("git init -q . && git -c user.name=t -c user.email=t@e "
                                "commit -q --allow-empty -m init && mkdir res"),
                         0);
        head = pg_rev("HEAD");
        pg_write_baseline_results(head, 0);
        assert_int_equal(pg_run_full(args, &span), 0);
        pg_write_baseline_results(head, 1000);
        assert_int_equal(pg_run_full(args, &span), 0); /* the span of a save onto a tip */
        old = pg_rev(ref);
        assert_int_equal(strlen(old), 40);
        for (int i = 1; i <= PG_KILLS; i++) {
                char *tip, *parent, *spec;
                pg_write_baseline_results(head, i);
                pg_run_killed(args, span + span / 4);
                if (pg_test_exists(lock)) {
                        locks++;
                        /* the next save refuses to guess and names the lock */
                        assert_int_equal(pg_run_full(args, &span), 4);
                        char *err = pg_test_read("err.txt");
                        if (!strstr(err, "perfgate-baselines.lock"))
                                fail_msg("stale lock not named:\n%s", err);
                        free(err);
                        assert_int_equal(unlink(lock), 0);
                }
                tip = pg_rev(ref);
                assert_int_equal(strlen(tip), 40); /* the ref resolves to a commit */
                spec = pg_xasprintf("%s^", tip);
                parent = pg_rev(spec);
                if (strcmp(tip, old) == 0)
                        kept++;
                else if (strcmp(parent, old) == 0)
                        moved++;
                else
                        fail_msg("round %d: branch at %s, neither %s nor a child of it", i, tip,
                                 old);
                assert_int_equal(pg_git(&o, "fsck", "--no-progress", NULL), 0);
                pg_run_out_release(&o);
                /* the tip's tree is complete: every baseline loads */
                for (int k = 0; k < 3; k++) {
                        char *obj = pg_xasprintf("%s:default/%s/%c.json", tip, head, 'a' + k);
                        struct pg_result r;
                        assert_int_equal(pg_git(&o, "cat-file", "blob", obj, NULL), 0);
                        pg_result_init(&r);
                        if (pg_result_from_json(&r, o.out.ptr, o.out.len, obj) != 0)
                                fail_msg("round %d: %s is not a complete result", i, obj);
                        pg_result_release(&r);
                        pg_run_out_release(&o);
                        free(obj);
                }
                free(old);
                old = tip;
                free(parent);
                free(spec);
        }
        print_message("baseline save: %d kills within %llu us: branch kept %zu, moved %zu, "
                      "stale ref locks %zu\n",
                      PG_KILLS, (unsigned long long) span, kept, moved, locks);
        /* a complete save after all that */
        assert_int_equal(pg_run_full(args, &span), 0);
        free(old);
        free(head);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_interrupt_run_sigkill, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_interrupt_compare_sigkill,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_interrupt_run_sigint, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_interrupt_reused_out_sigint,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_interrupt_reused_out_sigkill,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_interrupt_baseline_save_sigkill,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
