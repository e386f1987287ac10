/*
 * test_run_cli.c - `perfgate run` end to end with real fixture programs:
 * results valid under the result loader, logs beside them and never on the
 * terminal, discovery (perfgate.json, a directory, a manifest, one
 * executable), --filter/--shard, git commit and dirty state, and every exit
 * status the command documents: missing or non-executable path (2), crash
 * (3, naming the signal, the other benchmarks still run), non-zero exit
 * (3 with the log tail), timeout (3), invalid perfgate.json (2 with line and
 * column), unknown event (2 listing the valid ones), hardware events on a
 * host without a PMU (recorded not-supported, 0), SIGINT (130, finished
 * results kept).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "runner/launch.h"
#include "runner/run.h"
#include "tests/util/testutil.h"

#define PG_RES ".perfgate/results"

static char *pg_fx(const char *name)
{
        return pg_xstrdup(pg_test_fixture(name));
}

/* Write bench/perfgate.json listing (name, fixture, arg) triples. */
static void pg_write_config(const char *path, const char *const *spec, size_t n)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_buf_puts(&b, "// written by test_run_cli\n{\"benchmarks\": [\n");
        for (size_t i = 0; i < n; i++) {
                char *fx = pg_fx(spec[3 * i + 1]);
                pg_buf_printf(&b, "  %s{\"name\": \"%s\", \"argv\": [\"%s\"%s%s%s]}\n",
                              i ? "," : "", spec[3 * i], fx, spec[3 * i + 2] ? ", \"" : "",
                              spec[3 * i + 2] ? spec[3 * i + 2] : "", spec[3 * i + 2] ? "\"" : "");
                free(fx);
        }
        pg_buf_puts(&b, "]}\n");
        pg_test_write(path, b.ptr);
        pg_buf_release(&b);
}

static void pg_load(struct pg_result *r, const char *name)
{
        char *p = pg_xasprintf(PG_RES "/%s.json", name);
        pg_result_init(r);
        if (pg_result_load(r, p) != 0)
                fail_msg("cannot load %s", p);
        free(p);
}

static size_t pg_count_str(const char *hay, const char *needle)
{
        size_t n = 0;
        for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
                n++;
        return n;
}

static bool pg_host_has_pmu(void)
{
        return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
               access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

/* ---- success paths -------------------------------------------------------- */

static void test_run_cli_config_writes_valid_results(void **state)
{
        static const char *const spec[] = { "busy",  "runner-busy",  "40",
                                            "hello", "runner-hello", "5" };
        struct pg_run_out o;
        struct pg_result r;
        struct pg_buf again = PG_BUF_INIT;
        char *log, *file;
        const struct pg_metric *m;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 2);
        pg_test_perfgate(&o, "run", "--repeat", "3", "--warmup", "1", "--no-profile", "bench",
                         NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        /* progress on stderr, benchmark output only in its log */
        pg_assert_has(o.err.ptr, "benchmark 1/2 busy, warmup 1/1");
        pg_assert_has(o.err.ptr, "benchmark 2/2 hello, repetition 3/3, elapsed");
        assert_null(strstr(o.out.ptr, "HELLO-"));
        assert_null(strstr(o.err.ptr, "HELLO-"));
        log = pg_test_read(PG_RES "/hello.log");
        assert_int_equal(pg_count_str(log, "HELLO-STDOUT-MARKER"), 4); /* warmup + 3 */
        assert_int_equal(pg_count_str(log, "HELLO-STDERR-MARKER"), 4);
        free(log);

        pg_load(&r, "busy");
        assert_string_equal(r.name, "busy");
        assert_int_equal(r.repeat, 3);
        assert_int_equal(r.warmup, 1);
        assert_string_equal(r.machine, "default");
        assert_int_equal(r.ncommand, 2);
        assert_string_equal(r.command[1], "40");
        m = pg_result_find_metric(&r, "task-clock");
        assert_non_null(m);
        assert_int_equal(m->status, PG_METRIC_OK);
        assert_int_equal(m->nvalues, 3);
        for (size_t i = 0; i < 3; i++)
                assert_true(m->values[i] >= 38e6);
        static const char *const always[] = { "duration_time", "user-time",   "system-time",
                                              "max-rss",       "page-faults", "cpus-utilized" };
        for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
                m = pg_result_find_metric(&r, always[i]);
                if (!m || m->status != PG_METRIC_OK || m->nvalues != 3)
                        fail_msg("metric %s missing or not counted", always[i]);
        }
        assert_true(pg_result_find_metric(&r, "max-rss")->values[0] >= 100 * 1024);
        assert_false(r.profile.present);
        assert_true(r.host.cpus >= 1);
        assert_non_null(r.host.kernel);
        /* the file is the deterministic serialisation of what it holds */
        assert_int_equal(pg_result_to_json(&r, &again), 0);
        file = pg_test_read(PG_RES "/busy.json");
        assert_string_equal(file, again.ptr);
        free(file);
        pg_buf_release(&again);
        pg_result_release(&r);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_directory_sorted_and_single_executable(void **state)
{
        struct pg_run_out o;
        char *hello = pg_fx("runner-hello"), *busy = pg_fx("runner-busy");
        const char *a, *b;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("dir"), 0);
        assert_int_equal(symlink(busy, "dir/b-busy"), 0);
        assert_int_equal(symlink(hello, "dir/a-hello"), 0);
        pg_test_write("dir/notes.txt", "not a benchmark\n");
        assert_int_equal(symlink(hello, "dir/.hidden"), 0);
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "dir", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        a = strstr(o.err.ptr, "benchmark 1/2 a-hello");
        b = strstr(o.err.ptr, "benchmark 2/2 b-busy");
        assert_non_null(a);
        assert_non_null(b);
        assert_true(a < b);
        assert_true(pg_test_exists(PG_RES "/a-hello.json"));
        assert_true(pg_test_exists(PG_RES "/b-busy.json"));
        assert_false(pg_test_exists(PG_RES "/notes.txt.json"));
        assert_false(pg_test_exists(PG_RES "/.hidden.json"));
        pg_run_out_release(&o);

        /* one executable, named after its file; --out elsewhere; -q is silent */
        pg_test_perfgate(&o, "run", "-q", "--repeat", "1", "--warmup", "0", "--no-profile", "--out",
                         "other", "dir/a-hello", NULL);
        assert_int_equal(o.status, 0);
        assert_true(pg_test_exists("other/a-hello.json"));
        assert_null(strstr(o.err.ptr, "benchmark 1/1"));
        pg_run_out_release(&o);
        free(hello);
        free(busy);
        pg_test_sandbox_remove();
}

static void test_run_cli_manifest_cwd_env(void **state)
{
        struct pg_run_out o;
        struct pg_result r;
        char *log, *want;
        const char *box;
        (void) state;

        box = pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("conf/sub"), 0);
        pg_test_write("conf/list.json",
                      "{\"defaults\": {\"repeat\": 2, \"warmup\": 0, \"env\": {\"PG_X\": \"1\"}},\n"
                      " \"benchmarks\": [{\"name\": \"sh\", \"argv\": [\"sh\", \"-c\", "
                      "\"pwd; echo X=$PG_X Y=$PG_Y\"], \"cwd\": \"sub\", "
                      "\"env\": {\"PG_X\": \"42\", \"PG_Y\": \"7\"}}]}\n");
        pg_test_perfgate(&o, "run", "--no-profile", "conf/list.json", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        log = pg_test_read(PG_RES "/sh.log");
        want = pg_xasprintf("%s/conf/sub\n", box);
        pg_assert_has(log, want);
        pg_assert_has(log, "X=42 Y=7"); /* the benchmark's env wins over the defaults' */
        pg_load(&r, "sh");
        assert_int_equal(r.repeat, 2); /* from "defaults" */
        assert_int_equal(r.warmup, 0);
        assert_string_equal(r.command[0], "sh");
        pg_result_release(&r);
        free(log);
        free(want);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_cpus_pins_the_benchmark(void **state)
{
        struct pg_run_out o;
        char *log;
        (void) state;

        pg_test_sandbox();
        pg_test_write("m.json", "{\"benchmarks\": [{\"name\": \"aff\", \"argv\": [\"sh\", "
                                "\"-c\", \"grep Cpus_allowed_list /proc/self/status\"]}]}");
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "--cpus", "0",
                         "m.json", NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        log = pg_test_read(PG_RES "/aff.log");
        pg_assert_has(log, "Cpus_allowed_list:\t0\n");
        free(log);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_filter_and_shard(void **state)
{
        static const char *const spec[] = { "a", "runner-hello", "1", "b", "runner-hello", "1",
                                            "c", "runner-hello", "1" };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 3);
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "--filter",
                         "^(a|c)$", "--out", "f", "bench", NULL);
        assert_int_equal(o.status, 0);
        assert_true(pg_test_exists("f/a.json"));
        assert_false(pg_test_exists("f/b.json"));
        assert_true(pg_test_exists("f/c.json"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "--shard",
                         "2/2", "--out", "s", "bench", NULL);
        assert_int_equal(o.status, 0);
        assert_false(pg_test_exists("s/a.json"));
        assert_true(pg_test_exists("s/b.json"));
        assert_false(pg_test_exists("s/c.json"));
        pg_run_out_release(&o);
        /* default path is bench/ */
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "--shard",
                         "1/2", NULL);
        assert_int_equal(o.status, 0);
        assert_true(pg_test_exists(PG_RES "/a.json"));
        assert_false(pg_test_exists(PG_RES "/b.json"));
        assert_true(pg_test_exists(PG_RES "/c.json"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "run", "--filter", "(", "bench", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "invalid --filter regex");
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* ---- exit statuses ----------------------------------------------------- */

static void test_run_cli_missing_or_not_executable_is_2(void **state)
{
        /* what the sandbox holds (a file with its text; no text: a directory), the path
         * run, the message */
        static const struct {
                const char *file, *text, *arg, *message;
        } bad[] = {
                { NULL, NULL, "nope/bench", "'nope/bench' does not exist" },
                { "plain", "#!/bin/sh\nexit 0\n", "plain", "'plain' is not an executable file" },
                { "m.json", "{\"benchmarks\": [{\"argv\": [\"./gone/prog\"]}]}", "m.json",
                  "'./gone/prog' does not exist" },
                { "e.json", "{\"benchmarks\": []}", "e.json", "'e.json' lists no benchmarks" },
                { "empty", NULL, "empty", "'empty' has no perfgate.json and no executable files" },
                { "n.json", "{\"benchmarks\": [{\"argv\": [\"no-such-program-pg\"]}]}", "n.json",
                  "'no-such-program-pg' not found in PATH" },
        };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (bad[i].file && !bad[i].text)
                        assert_int_equal(pg_mkdir_p(bad[i].file), 0);
                else if (bad[i].file)
                        pg_test_write(bad[i].file, bad[i].text);
                pg_test_perfgate(&o, "run", bad[i].arg, NULL);
                if (o.status != 2)
                        fail_msg("run %s: exit %d, want 2: %s", bad[i].arg, o.status, o.err.ptr);
                pg_assert_has(o.err.ptr, bad[i].message);
                pg_run_out_release(&o);
        }
        assert_false(pg_test_exists(PG_RES));
        pg_test_sandbox_remove();
}

static void test_run_cli_crash_is_3_others_still_run(void **state)
{
        static const char *const spec[] = { "a-crash", "runner-crash", NULL,
                                            "b-hello", "runner-hello", "1" };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 2);
        /* a stale result of the crashing benchmark must not survive */
        assert_int_equal(pg_mkdir_p(PG_RES), 0);
        pg_test_write(PG_RES "/a-crash.json", "{}");
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", NULL);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "'a-crash' was killed by signal 11 (SIGSEGV");
        pg_assert_has(o.err.ptr, "1 of 2 benchmarks failed: 'a-crash'");
        assert_false(pg_test_exists(PG_RES "/a-crash.json"));
        assert_true(pg_test_exists(PG_RES "/b-hello.json"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_nonzero_exit_is_3_with_log_tail(void **state)
{
        static const char *const spec[] = { "fail", "runner-fail", NULL };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 1);
        pg_test_perfgate(&o, "run", "--no-profile", NULL);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "'fail' exited with status 3");
        pg_assert_has(o.err.ptr, "fail fixture: cannot parse input line 42");
        pg_assert_has(o.err.ptr, "progress line 30");
        assert_null(strstr(o.err.ptr, "progress line 5\n")); /* only the tail */
        assert_false(pg_test_exists(PG_RES "/fail.json"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_hang_times_out_is_3(void **state)
{
        static const char *const spec[] = { "hang", "runner-hang", NULL };
        struct pg_run_out o;
        uint64_t t0;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 1);
        t0 = pg_now_ns();
        pg_test_perfgate(&o, "run", "--timeout", "0.3", "--warmup", "0", "--no-profile", NULL);
        assert_int_equal(o.status, 3);
        assert_true(pg_now_ns() - t0 < 5000000000ull);
        pg_assert_has(o.err.ptr, "'hang' timed out after 0.3 s");
        assert_false(pg_test_exists(PG_RES "/hang.json"));
        pg_run_out_release(&o);
        /* the same from perfgate.json's "timeout" */
        {
                char *hang = pg_fx("runner-hang");
                char *cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"hang\", \"argv\": "
                                         "[\"%s\"], \"timeout\": 0.2, \"warmup\": 0}]}",
                                         hang);
                pg_test_write("bench/perfgate.json", cfg);
                pg_test_perfgate(&o, "run", "--no-profile", NULL);
                assert_int_equal(o.status, 3);
                pg_assert_has(o.err.ptr, "'hang' timed out after 0.2 s");
                pg_run_out_release(&o);
                free(cfg);
                free(hang);
        }
        pg_test_sandbox_remove();
}

static void test_run_cli_invalid_config_is_2_with_position(void **state)
{
        /* bench/perfgate.json, and what the message must say */
        static const char *const bad[][2] = {
                { "{\n  \"benchmarks\": [\n    {\"argv\": [\"x\"],}\n  ]\n}\n",
                  "'bench/perfgate.json': invalid JSON at line 3, column" },
                { "{\"benchmarks\": [{\"argv\": [\"x\"], \"repeat\": \"many\"}]}",
                  "benchmarks[0].repeat" },
                /* a cwd that does not exist is the config's fault (2), not a failed run (3) */
                { "{\"benchmarks\": [{\"name\": \"a\", \"argv\": [\"/bin/true\"], \"cwd\": "
                  "\"/nonexistent/dir\"}]}",
                  "cwd '/nonexistent/dir', which is not a directory" },
        };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                pg_test_write("bench/perfgate.json", bad[i][0]);
                pg_test_perfgate(&o, "run", NULL);
                if (o.status != 2)
                        fail_msg("%s: exit %d, want 2: %s", bad[i][0], o.status, o.err.ptr);
                pg_assert_has(o.err.ptr, bad[i][1]);
                pg_run_out_release(&o);
        }
        pg_test_sandbox_remove();
}

static void test_run_cli_unknown_event_is_2_listing_valid(void **state)
{
        struct pg_run_out o;
        char *hello = pg_fx("runner-hello");
        (void) state;

        pg_test_sandbox();
        pg_test_perfgate(&o, "run", "--events", "task-clock,cycels", hello, NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "unknown event 'cycels'; valid events: task-clock,");
        pg_assert_has(o.err.ptr, "LLC-load-misses");
        assert_false(pg_test_exists(PG_RES));
        pg_run_out_release(&o);
        free(hello);
        pg_test_sandbox_remove();
}

static void test_run_cli_hardware_events_not_supported_exit_0(void **state)
{
        struct pg_run_out o;
        struct pg_result r;
        char *busy = pg_fx("runner-busy");
        const struct pg_metric *m;
        (void) state;

        if (pg_host_has_pmu())
                skip(); /* hardware counters exist here: nothing to mark */
        pg_test_sandbox();
        assert_int_equal(symlink(busy, "busy"), 0);
        pg_test_perfgate(&o, "run", "--repeat", "2", "--warmup", "0", "--no-profile", "--events",
                         "task-clock,cycles,instructions,LLC-loads,LLC-load-misses", "./busy",
                         NULL);
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_load(&r, "busy");
        for (const char *const *n = (const char *const[]){ "cycles", "instructions", "LLC-loads",
                                                           "LLC-load-misses", NULL };
             *n; n++) {
                m = pg_result_find_metric(&r, *n);
                assert_non_null(m);
                assert_int_equal(m->status, PG_METRIC_NOT_SUPPORTED);
                assert_int_equal(m->nvalues, 0);
        }
        assert_null(pg_result_find_metric(&r, "ipc"));
        assert_null(pg_result_find_metric(&r, "LLC-miss-rate"));
        assert_null(pg_result_find_metric(&r, "context-switches")); /* not asked for */
        assert_string_equal(r.counters, "software");
        assert_int_equal(pg_result_find_metric(&r, "task-clock")->status, PG_METRIC_OK);
        pg_result_release(&r);
        pg_run_out_release(&o);

        /* --counters hardware refuses a host where none count */
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "--counters",
                         "hardware", "./busy", NULL);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "no hardware counter");
        pg_run_out_release(&o);

        /* --counters software does not even ask */
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "--counters",
                         "software", "./busy", NULL);
        assert_int_equal(o.status, 0);
        pg_load(&r, "busy");
        assert_null(pg_result_find_metric(&r, "cycles"));
        assert_non_null(pg_result_find_metric(&r, "task-clock"));
        pg_result_release(&r);
        pg_run_out_release(&o);
        free(busy);
        pg_test_sandbox_remove();
}

static void test_run_cli_usage_errors_are_2(void **state)
{
        static const char *const bad[][3] = {
                { "--repeat", "0", "--repeat '0'" },
                { "--repeat", "x", "--repeat 'x'" },
                { "--warmup", "-1", "--warmup '-1'" },
                { "--timeout", "soon", "--timeout 'soon'" },
                { "--counters", "magic", "--counters 'magic'" },
                { "--call-graph", "lbr", "--call-graph 'lbr'" },
                { "--cpus", "99999", "--cpus '99999'" },
                { "--cpus", "1-0", "--cpus '1-0'" },
                { "--shard", "3/2", "--shard '3/2'" },
                { "--shard", "0/2", "--shard '0/2'" },
                { "--freq", "0", "--freq '0'" },
                { "--machine", "a/b", "--machine 'a/b'" },
        };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                pg_test_perfgate(&o, "run", bad[i][0], bad[i][1], "--no-profile", NULL);
                if (o.status != 2 || !strstr(o.err.ptr, bad[i][2]))
                        fail_msg("%s %s: exit %d, %s", bad[i][0], bad[i][1], o.status, o.err.ptr);
                pg_run_out_release(&o);
        }
        pg_test_perfgate(&o, "run", "--bogus", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "unknown option '--bogus'");
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "run", "--help", NULL);
        assert_int_equal(o.status, 0);
        pg_assert_has(o.out.ptr, "--shard I/N");
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_profile_placeholder_warns_once(void **state)
{
        static const char *const spec[] = { "a", "runner-hello", "1", "b", "runner-hello", "1" };
        struct pg_run_out o;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 2);
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", NULL);
        assert_int_equal(o.status, 0);
        if (!strstr(o.err.ptr, "no profile stored")) {
                pg_run_out_release(&o);
                pg_test_sandbox_remove();
                skip(); /* sampling is built in: nothing to warn about */
        }
        assert_int_equal(pg_count_str(o.err.ptr, "no profile stored"), 1);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* `perfgate run --out DIR` of bench/ under `ulimit -n @n` (bash -c), with
 * @extra options; the exit status. */
static int pg_run_fd_limited(struct pg_run_out *o, int n, const char *dir, const char *extra)
{
        char *cmd = pg_xasprintf("ulimit -n %d && exec '%s' run --repeat 2 --warmup 0 --out %s %s",
                                 n, pg_test_env("PERFGATE_BIN"), dir, extra);
        char *argv[] = { "bash", "-c", cmd, NULL };
        int st = pg_test_run(o, NULL, argv);
        free(cmd);
        return st;
}

/* A run whose sampling events do not fit the open-file limit keeps its
 * counted result but says in it why it has no profile ("profile_missing"),
 * and never as if it had been run with --no-profile; compare of a baseline
 * with a profile against it, hotspots gating, cannot judge the benchmark:
 * inconclusive (exit 0, 1 under --strict) with that reason in the text,
 * Markdown, JSON and JUnit reports. Head run with --no-profile stays
 * unchanged with the old reason. */
static void test_run_cli_fd_limit_profile_missing_cannot_judge(void **state)
{
        static const char *const spec[] = { "a", "runner-busy", "300" };
        struct pg_run_out o;
        struct pg_result r;
        char *text;
        int n;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 1);
        pg_test_write("gate.json", "{\"compare\": {\"hotspots\": {\"gate\": true}}}");
        pg_run_fd_limited(&o, 1024, "base", "");
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, "base/a.json"), 0);
        if (!r.profile.present || r.profile.samples == 0) {
                pg_result_release(&r);
                pg_test_sandbox_remove();
                skip(); /* no sampling here: nothing for the gate to lose */
        }
        pg_result_release(&r);
        /* the highest limit at which the counters still fit and sampling
         * does not (20 on 2 CPUs with the default events) */
        for (n = 40; n >= 10; n--) {
                int st = pg_run_fd_limited(&o, n, "head", "");
                bool lost = st == 0 && strstr(o.err.ptr, "no profile stored");
                if (lost)
                        break;
                pg_run_out_release(&o);
        }
        if (n < 10)
                fail_msg("no open-file limit between 10 and 40 left the counters and lost "
                         "the profile");
        pg_assert_has(o.err.ptr, "too many open files");
        pg_run_out_release(&o);
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, "head/a.json"), 0);
        assert_false(r.profile.present);
        if (!r.profile.missing || !strstr(r.profile.missing, "too many open files"))
                fail_msg("profile_missing: %s", r.profile.missing ? r.profile.missing : "(none)");
        pg_result_release(&r);
        text = pg_test_read("head/a.json");
        pg_assert_has(text, "\"profile_missing\": \"too many open files");
        free(text);

        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config", "gate.json",
                         "--markdown", "c.md", "--json", "c.json", "--junit", "c.xml", NULL);
        if (o.status != 0)
                fail_msg("exit %d\n%s%s", o.status, o.out.ptr, o.err.ptr);
        pg_assert_has(o.out.ptr, "inconclusive  a ");
        pg_assert_has(o.out.ptr, "head has no profile: the run could not sample it: too many "
                                 "open files");
        assert_null(strstr(o.out.ptr, "--no-profile"));
        pg_run_out_release(&o);
        text = pg_test_read("c.md");
        pg_assert_has(text, "head has no profile: the run could not sample it: too many open");
        free(text);
        text = pg_test_read("c.json");
        pg_assert_has(text, "\"verdict\": \"inconclusive\"");
        pg_assert_has(text, "\"reason\": \"hotspots not compared: head has no profile: the run "
                            "could not sample it: too many open");
        free(text);
        text = pg_test_read("c.xml");
        pg_assert_has(text, "<skipped message=\"");
        pg_assert_has(text, "head has no profile: the run could not sample it: too many open");
        free(text);
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config", "gate.json",
                         "--strict", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
        /* without the gate the profile decides nothing: not a verdict */
        pg_test_perfgate(&o, "compare", "base", "--results", "head", NULL);
        assert_int_equal(o.status, 0);
        assert_null(strstr(o.out.ptr, "inconclusive  a "));
        pg_assert_has(o.out.ptr, "not compared: head has no profile: the run could not sample");
        pg_run_out_release(&o);

        /* --no-profile was asked for: said so, and not a verdict */
        pg_run_fd_limited(&o, 1024, "head", "--no-profile");
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        text = pg_test_read("head/a.json");
        assert_null(strstr(text, "profile_missing"));
        free(text);
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config", "gate.json",
                         "--strict", NULL);
        if (o.status != 0)
                fail_msg("exit %d\n%s%s", o.status, o.out.ptr, o.err.ptr);
        pg_assert_has(o.out.ptr, "head has no profile (it was run with --no-profile)");
        assert_null(strstr(o.out.ptr, "inconclusive  a "));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_run_cli_software_mode_without_events_is_2(void **state)
{
        struct pg_run_out o;
        char *hello = pg_fx("runner-hello");
        (void) state;

        pg_test_sandbox();
        pg_test_perfgate(&o, "run", "--counters", "software", "--events", "cycles,instructions",
                         hello, NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "--counters software leaves none of the events");
        pg_run_out_release(&o);
        free(hello);
        pg_test_sandbox_remove();
}

/* Case 28 for real: an unprivileged user at perf_event_paranoid=2. */
static void test_run_cli_unprivileged_excludes_kernel_and_says_so(void **state)
{
        char *busy = pg_fx("runner-busy"), *err, *pgbin, *prog;
        const char *box;
        struct pg_result r;
        int status;
        pid_t pid;
        (void) state;

        if (geteuid() != 0 || pg_test_paranoid() != 2) {
                free(busy);
                skip(); /* needs root to become uid 65534, and paranoid=2 */
        }
        box = pg_test_sandbox();
        assert_int_equal(chmod(box, 0777), 0);
        /* uid 65534 may not reach the build tree (a clone under /root): run copies */
        pgbin = pg_test_copy_program(pg_test_env("PERFGATE_BIN"), box);
        prog = pg_test_copy_program(busy, box);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                int fd;
                if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(120);
                fd = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd < 0)
                        _exit(121);
                dup2(fd, 2);
                dup2(fd, 1);
                execl(pgbin, "perfgate", "run", "--repeat", "2", "--warmup", "0", "--no-profile",
                      prog, (char *) NULL);
                _exit(127);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        free(pgbin);
        free(prog);
        if (WEXITSTATUS(status) >= 120 && WEXITSTATUS(status) != 127) {
                free(busy);
                pg_test_sandbox_remove();
                skip(); /* cannot become uid 65534 here */
        }
        err = pg_test_read("err.txt");
        if (WEXITSTATUS(status) != 0)
                fail_msg("exit %d: %s", WEXITSTATUS(status), err);
        assert_int_equal(pg_count_str(err, "counting user space only (exclude_kernel=1)"), 1);
        pg_load(&r, "runner-busy");
        assert_true(r.host.exclude_kernel);
        assert_int_equal(pg_result_find_metric(&r, "context-switches")->status,
                         PG_METRIC_KERNEL_ONLY);
        assert_int_equal(pg_result_find_metric(&r, "cpu-migrations")->status,
                         PG_METRIC_KERNEL_ONLY);
        assert_int_equal(pg_result_find_metric(&r, "task-clock")->status, PG_METRIC_OK);
        assert_int_equal(pg_result_find_metric(&r, "page-faults")->status, PG_METRIC_OK);
        pg_result_release(&r);
        free(err);
        free(busy);
        pg_test_sandbox_remove();
}

/* ---- the library: a host where perf_event_open does not exist ------------ */

static int pg_open_enosys(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                          unsigned long flags)
{
        (void) ctx;
        (void) a;
        (void) pid;
        (void) cpu;
        (void) group_fd;
        (void) flags;
        return -ENOSYS;
}

/* A pre-4.13 kernel: inherit + PERF_FORMAT_GROUP is EINVAL. */
static int pg_open_old_kernel(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu,
                              int group_fd, unsigned long flags)
{
        long fd;
        (void) ctx;
        if (a->inherit && (a->read_format & PERF_FORMAT_GROUP))
                return -EINVAL;
        fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);
        return fd < 0 ? -errno : (int) fd;
}

struct pg_seen {
        struct pg_buf warnings;
        size_t done;
};

static void pg_collect(void *ctx, const struct pg_run_event *ev)
{
        struct pg_seen *seen = ctx;
        if (ev->kind == PG_RUN_EV_WARNING)
                pg_buf_printf(&seen->warnings, "%s\n", ev->message);
        if (ev->kind == PG_RUN_EV_DONE)
                seen->done++;
}

/*
 * Runs the fixture @fx @repeat times (no warm-up, no profile) through the
 * library with @open_fn in place of perf_event_open, results under res/,
 * events into @seen; asserts the run returns 0.
 */
static void pg_run_lib(const char *fx, int repeat, pg_perf_open_fn open_fn, struct pg_seen *seen,
                       struct pg_run_summary *sum)
{
        struct pg_bench_list l;
        struct pg_run_opts o;
        char *path = pg_fx(fx);
        const char *paths[1] = { path };

        assert_int_equal(pg_run_discover(&l, paths, 1), 0);
        memset(&o, 0, sizeof(o));
        o.out_dir = "res";
        o.repeat = repeat;
        o.warmup = 0;
        o.timeout_sec = -1;
        o.no_profile = true;
        o.open_fn = open_fn;
        o.report = pg_collect;
        o.report_ctx = seen;
        assert_int_equal(pg_run_benchmarks(&l, &o, sum), 0);
        pg_bench_list_release(&l);
        free(path);
}

static void test_run_lib_no_counter_at_all_still_times(void **state)
{
        struct pg_run_summary sum;
        struct pg_seen seen = { PG_BUF_INIT, 0 };
        struct pg_result r;
        const struct pg_metric *m;
        (void) state;

        pg_test_sandbox();
        pg_run_lib("runner-hello", 2, pg_open_enosys, &seen, &sum);
        assert_int_equal(sum.ok, 1);
        assert_int_equal(seen.done, 1);
        /* said once, with the likely causes */
        assert_int_equal(pg_count_str(seen.warnings.ptr, "no counter could be opened"), 1);
        pg_assert_has(seen.warnings.ptr, "seccomp");
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, "res/runner-hello.json"), 0);
        m = pg_result_find_metric(&r, "task-clock");
        assert_int_equal(m->status, PG_METRIC_NOT_SUPPORTED);
        assert_int_equal(m->nvalues, 0);
        assert_int_equal(pg_result_find_metric(&r, "duration_time")->nvalues, 2);
        assert_int_equal(pg_result_find_metric(&r, "user-time")->nvalues, 2);
        assert_null(pg_result_find_metric(&r, "cpus-utilized"));
        pg_result_release(&r);
        pg_buf_release(&seen.warnings);
        pg_test_sandbox_remove();
}

static void test_run_lib_old_kernel_says_so_and_counts(void **state)
{
        struct pg_seen seen = { PG_BUF_INIT, 0 };
        struct pg_result r;
        (void) state;

        pg_test_sandbox();
        pg_run_lib("runner-busy", 3, pg_open_old_kernel, &seen, NULL);
        assert_int_equal(pg_count_str(seen.warnings.ptr, "PERF_FORMAT_GROUP"), 1);
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, "res/runner-busy.json"), 0);
        assert_int_equal(pg_result_find_metric(&r, "task-clock")->nvalues, 3);
        assert_true(pg_result_find_metric(&r, "task-clock")->values[2] > 150e6);
        assert_int_equal(pg_result_find_metric(&r, "page-faults")->status, PG_METRIC_OK);
        pg_result_release(&r);
        pg_buf_release(&seen.warnings);
        pg_test_sandbox_remove();
}

/* ---- git -------------------------------------------------------------- */

static void pg_git_commit_file(git_repository *repo, const char *file, git_oid *out)
{
        git_index *idx;
        git_oid tree_id;
        git_tree *tree;
        git_signature *sig;

        assert_int_equal(git_repository_index(&idx, repo), 0);
        assert_int_equal(git_index_add_bypath(idx, file), 0);
        assert_int_equal(git_index_write(idx), 0);
        assert_int_equal(git_index_write_tree(&tree_id, idx), 0);
        assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
        assert_int_equal(git_signature_new(&sig, "t", "t@example.com", 1700000000, 0), 0);
        assert_int_equal(git_commit_create_v(out, repo, "HEAD", sig, sig, NULL, "c", tree, 0), 0);
        git_signature_free(sig);
        git_tree_free(tree);
        git_index_free(idx);
}

/* A sandbox that is a repository with one commit of tracked.txt ("one\n"):
 * its id in @hex (40 hex digits); libgit2 initialized */
static void pg_git_sandbox(git_repository **repo, char hex[GIT_OID_HEXSZ + 1])
{
        git_oid head;

        pg_test_sandbox();
        git_libgit2_init();
        assert_int_equal(git_repository_init(repo, ".", 0), 0);
        pg_test_write("tracked.txt", "one\n");
        pg_git_commit_file(*repo, "tracked.txt", &head);
        git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &head);
}

static void test_run_cli_records_git_commit_and_dirty(void **state)
{
        git_repository *repo;
        char hex[GIT_OID_HEXSZ + 1];
        char *hello = pg_fx("runner-hello");
        struct pg_run_out o;
        struct pg_result r;
        (void) state;

        pg_git_sandbox(&repo, hex);
        assert_int_equal(symlink(hello, "hello"), 0);
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "./hello",
                         NULL);
        assert_int_equal(o.status, 0);
        pg_load(&r, "hello");
        assert_true(r.has_git);
        assert_string_equal(r.git_commit, hex);
        assert_false(r.git_dirty); /* untracked files (results, the link) do not count */
        pg_result_release(&r);
        pg_run_out_release(&o);
        pg_test_write("tracked.txt", "two\n");
        pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile", "./hello",
                         NULL);
        assert_int_equal(o.status, 0);
        pg_load(&r, "hello");
        assert_true(r.git_dirty);
        pg_result_release(&r);
        pg_run_out_release(&o);
        git_repository_free(repo);
        git_libgit2_shutdown();
        free(hello);
        pg_test_sandbox_remove();
}

/* git's answer in the cwd, the oracle: HEAD's commit (40 hex digits into
 * @head) and whether a tracked file differs from it */
static void pg_git_oracle(char head[GIT_OID_HEXSZ + 1], bool *dirty)
{
        FILE *p = popen("git rev-parse HEAD", "r");
        char line[256];

        assert_non_null(p);
        assert_non_null(fgets(line, sizeof(line), p));
        assert_int_equal(pclose(p), 0);
        assert_int_equal(strlen(line), GIT_OID_HEXSZ + 1);
        memcpy(head, line, GIT_OID_HEXSZ);
        head[GIT_OID_HEXSZ] = '\0';
        p = popen("git --no-optional-locks status --porcelain --untracked-files=no", "r");
        assert_non_null(p);
        *dirty = fgets(line, sizeof(line), p) != NULL;
        assert_int_equal(pclose(p), 0);
}

/* The commit and dirtiness are asked after the benchmark ran (docs/run.md,
 * "Overhead"), so a benchmark that edits a tracked file is recorded dirty,
 * as git sees the tree once perfgate exits; one that puts the content back
 * (new stat data, same bytes) is recorded clean. The edits keep the size and
 * land in the index's second: only the stat data tell them. */
static void test_run_cli_git_state_after_an_edit_during_the_benchmark(void **state)
{
        static const struct {
                const char *script, *what;
        } cases[] = {
                { "#!/bin/sh\nprintf 'two\\n' > tracked.txt\n", "an edit during the run" },
                { "#!/bin/sh\nprintf 'one\\n' > tracked.txt\n", "the content written back" },
                { "#!/bin/sh\nrm tracked.txt\n", "a tracked file removed during the run" },
        };
        git_repository *repo;
        char hex[GIT_OID_HEXSZ + 1], want[GIT_OID_HEXSZ + 1];
        struct pg_run_out o;
        struct pg_result r;
        (void) state;

        pg_git_sandbox(&repo, hex);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                bool dirty_before, dirty_after;
                pg_test_write("edit", cases[i].script);
                assert_int_equal(chmod("edit", 0755), 0);
                pg_git_oracle(want, &dirty_before);
                assert_false(dirty_before); /* clean before each run */
                pg_test_perfgate(&o, "run", "--repeat", "1", "--warmup", "0", "--no-profile",
                                 "./edit", NULL);
                if (o.status != 0)
                        fail_msg("%s: perfgate run exited %d: %s", cases[i].what, o.status,
                                 o.err.ptr);
                pg_git_oracle(want, &dirty_after);
                assert_string_equal(want, hex);
                pg_load(&r, "edit");
                assert_true(r.has_git);
                assert_string_equal(r.git_commit, want);
                if (r.git_dirty != dirty_after)
                        fail_msg("%s: recorded dirty %d, git status says %d", cases[i].what,
                                 r.git_dirty, dirty_after);
                pg_result_release(&r);
                pg_run_out_release(&o);
                /* back to HEAD's content for the next case */
                pg_test_write("tracked.txt", "one\n");
        }
        git_repository_free(repo);
        git_libgit2_shutdown();
        pg_test_sandbox_remove();
}

/* ---- SIGINT ------------------------------------------------------------ */

static void test_run_cli_sigint_keeps_finished_results_130(void **state)
{
        static const char *const spec[] = { "a-hello", "runner-hello", "1",
                                            "b-hang",  "runner-hang",  NULL };
        int status, fd;
        pid_t pid;
        char *err;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_mkdir_p("bench"), 0);
        pg_write_config("bench/perfgate.json", spec, 2);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                fd = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(fd, 2);
                dup2(fd, 1);
                execl(pg_test_env("PERFGATE_BIN"), "perfgate", "run", "--repeat", "1", "--warmup",
                      "0", "--no-profile", (char *) NULL);
                _exit(127);
        }
        for (int i = 0; i < 500 && !pg_test_exists(PG_RES "/a-hello.json"); i++)
                usleep(20000);
        assert_true(pg_test_exists(PG_RES "/a-hello.json"));
        usleep(300000); /* let the hanging one start */
        assert_int_equal(kill(pid, SIGINT), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 130);
        err = pg_test_read("err.txt");
        pg_assert_has(err, "interrupted; kept the 1 finished results in '.perfgate/results'");
        assert_true(pg_test_exists(PG_RES "/a-hello.json"));
        assert_false(pg_test_exists(PG_RES "/b-hang.json"));
        free(err);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_run_cli_config_writes_valid_results),
                cmocka_unit_test(test_run_cli_directory_sorted_and_single_executable),
                cmocka_unit_test(test_run_cli_manifest_cwd_env),
                cmocka_unit_test(test_run_cli_filter_and_shard),
                cmocka_unit_test(test_run_cli_cpus_pins_the_benchmark),
                cmocka_unit_test(test_run_cli_missing_or_not_executable_is_2),
                cmocka_unit_test(test_run_cli_crash_is_3_others_still_run),
                cmocka_unit_test(test_run_cli_nonzero_exit_is_3_with_log_tail),
                cmocka_unit_test(test_run_cli_hang_times_out_is_3),
                cmocka_unit_test(test_run_cli_invalid_config_is_2_with_position),
                cmocka_unit_test(test_run_cli_unknown_event_is_2_listing_valid),
                cmocka_unit_test(test_run_cli_hardware_events_not_supported_exit_0),
                cmocka_unit_test(test_run_cli_usage_errors_are_2),
                cmocka_unit_test(test_run_cli_profile_placeholder_warns_once),
                cmocka_unit_test(test_run_cli_fd_limit_profile_missing_cannot_judge),
                cmocka_unit_test(test_run_cli_software_mode_without_events_is_2),
                cmocka_unit_test(test_run_lib_no_counter_at_all_still_times),
                cmocka_unit_test(test_run_lib_old_kernel_says_so_and_counts),
                cmocka_unit_test(test_run_cli_unprivileged_excludes_kernel_and_says_so),
                cmocka_unit_test(test_run_cli_records_git_commit_and_dirty),
                cmocka_unit_test(test_run_cli_git_state_after_an_edit_during_the_benchmark),
                cmocka_unit_test(test_run_cli_sigint_keeps_finished_results_130),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
