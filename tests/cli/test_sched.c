/*
 * test_sched.c - scheduler latency (`perfgate run --sched`) end to end on a
 * benchmark whose two threads sleep 1 ms and wake 200 times each while a CPU
 * hog competes for the same CPU (tests/fixtures/sched/wakers.c).
 *  - perf is the oracle: `perf record -a` of the sched tracepoints around
 *    the whole perfgate run sees the very run perfgate recorded, and
 *    `perf sched latency -p` of it must agree with perfgate's per-task rows:
 *    the same tasks, the same switch counts (within 3%), maxima of the same
 *    order (within 2x);
 *  - `show` lists the tasks; the metrics are in ns, one value per run;
 *  - `compare` gates on sched-delay-avg when perfgate.json asks it to: the
 *    same benchmark without its hog (base) against with it (head) fails
 *    (here the hog multiplied the average by 3 to 5; the test's threshold is
 *    20% so that a busy machine, which raises the base too, still shows it);
 *  - an unprivileged user at perf_event_paranoid >= 0 gets a warning that
 *    says why and how to allow it, and metrics marked "not-supported" with
 *    that reason, never a zero.
 * Judged on counts, names and shapes, never on speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

/* Whether CPU-wide tracepoints with raw records are permitted here. */
static bool pg_sched_permitted(void)
{
        return (geteuid() == 0 || pg_test_paranoid() <= -1) &&
               access("/sys/kernel/tracing/events/sched/sched_switch/format", R_OK) == 0;
}

/* perfgate.json in @dir: the wakers benchmark with @mode ("hog"/"nohog"). */
static void pg_write_config(const char *dir, const char *mode, const char *extra)
{
        char *cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"wakers\", \"argv\": [\"%s\", "
                                 "\"%s\"], \"sched\": true}]%s}\n",
                                 pg_test_fixture("sched_wakers"), mode, extra ? extra : "");
        char *path = pg_path_join(dir, "perfgate.json");

        assert_int_equal(pg_mkdir_p(dir), 0);
        pg_test_write(path, cfg);
        free(path);
        free(cfg);
}

/* One row of `perf sched latency -p`. */
struct pg_perf_row {
        char comm[32];
        long pid;
        double runtime_ms;
        long switches;
        double avg_ms, max_ms;
};

/* Parse "  sleeper-a:13825 | 24.865 ms | 216 | avg: 1.710 ms | max: 14.816 ms | ..." */
static bool pg_parse_row(const char *line, struct pg_perf_row *r)
{
        const char *colon, *bar = strchr(line, '|');
        const char *p = line;

        while (*p == ' ')
                p++;
        if (!bar)
                return false;
        colon = bar;
        while (colon > p && *colon != ':')
                colon--;
        if (colon == p || (size_t) (colon - p) >= sizeof(r->comm))
                return false;
        memcpy(r->comm, p, (size_t) (colon - p));
        r->comm[colon - p] = '\0';
        r->pid = strtol(colon + 1, NULL, 10);
        return sscanf(bar, "| %lf ms | %ld | avg: %lf ms | max: %lf ms", &r->runtime_ms,
                      &r->switches, &r->avg_ms, &r->max_ms) == 4;
}

/* perf's row of @comm with the highest pid (the last run of the fixture:
 * perfgate's scheduler-latency run follows its counting run). */
static bool pg_perf_row(const char *text, const char *comm, struct pg_perf_row *out)
{
        bool found = false;

        for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n');
                char buf[512];
                size_t n = nl ? (size_t) (nl - line) : strlen(line);
                struct pg_perf_row r = { { 0 }, 0, 0, 0, 0, 0 };

                if (n >= sizeof(buf))
                        n = sizeof(buf) - 1;
                memcpy(buf, line, n);
                buf[n] = '\0';
                if (pg_parse_row(buf, &r) && strcmp(r.comm, comm) == 0 &&
                    (!found || r.pid > out->pid)) {
                        *out = r;
                        found = true;
                }
                line = nl ? nl + 1 : NULL;
        }
        return found;
}

static const struct pg_sched_task *pg_task(const struct pg_result *r, const char *comm)
{
        for (size_t i = 0; i < r->sched.n; i++)
                if (strcmp(r->sched.tasks[i].comm, comm) == 0)
                        return &r->sched.tasks[i];
        return NULL;
}

static void test_sched_agrees_with_perf(void **state)
{
        static const char *const comms[] = { "sleeper-a", "sleeper-b", "hog" };
        struct pg_run_out o;
        struct pg_result r;
        const struct pg_metric *m;
        (void) state;

        if (!pg_sched_permitted() || access("/usr/bin/perf", X_OK) != 0) {
                skip(); /* needs CPU-wide tracepoints and perf as the oracle */
                return;
        }
        pg_test_sandbox();
        pg_write_config("w", "hog", NULL);
        {
                char *argv[] = { "perf",  "record",
                                 "-q",    "-a",
                                 "-o",    "perf.data",
                                 "-e",    "sched:sched_switch",
                                 "-e",    "sched:sched_wakeup",
                                 "-e",    "sched:sched_wakeup_new",
                                 "-e",    "sched:sched_stat_runtime",
                                 "--",    (char *) pg_test_env("PERFGATE_BIN"),
                                 "run",   "--repeat",
                                 "1",     "--warmup",
                                 "0",     "--no-profile",
                                 "--out", "res",
                                 "w",     NULL };
                pg_test_run(&o, NULL, argv);
        }
        if (o.status != 0)
                fail_msg("perf record -- perfgate run: exit %d: %s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        {
                /* sched_wakeup, not sched_waking: what perfgate reads, and
                 * what every perf's latency command handles */
                char *argv[] = { "perf", "sched", "latency", "-p", "-i", "perf.data", NULL };
                pg_test_run(&o, NULL, argv);
        }
        assert_int_equal(o.status, 0);

        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, "res/wakers.json"), 0);
        assert_true(r.sched.present);
        assert_int_equal(r.sched.runs, 1);
        /* the benchmark's tasks, and no other */
        assert_int_equal(r.sched.n, 4);
        assert_non_null(pg_task(&r, "sched_wakers"));
        for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
                const struct pg_sched_task *t = pg_task(&r, comms[i]);
                struct pg_perf_row p = { { 0 }, 0, 0, 0, 0, 0 };
                double mine = (double) (t ? t->delay_max_ns : 0) / 1e6;
                long tol;

                assert_non_null(t);
                if (!pg_perf_row(o.out.ptr, comms[i], &p))
                        fail_msg("perf sched latency has no row for %s:\n%s", comms[i], o.out.ptr);
                tol = p.switches / 33 > 2 ? p.switches / 33 : 2;
                if (labs((long) t->switches - p.switches) > tol || mine > 2 * p.max_ms ||
                    2 * mine < p.max_ms)
                        fail_msg("%s: perfgate %llu switches, max %.3f ms; perf %ld switches, max "
                                 "%.3f ms\n%s",
                                 comms[i], (unsigned long long) t->switches, mine, p.switches,
                                 p.max_ms, o.out.ptr);
                /* every sleeper wakes 200 times */
                if (strcmp(comms[i], "hog") != 0)
                        assert_true(t->switches >= 200);
        }
        m = pg_result_find_metric(&r, "sched-delay-max");
        assert_non_null(m);
        assert_int_equal(m->status, PG_METRIC_OK);
        assert_string_equal(m->unit, "ns");
        assert_int_equal(m->nvalues, 1);
        assert_true(m->values[0] > 0);
        m = pg_result_find_metric(&r, "sched-delay-avg");
        assert_non_null(m);
        assert_int_equal(m->status, PG_METRIC_OK);
        assert_true(m->values[0] > 0);
        pg_result_release(&r);
        pg_run_out_release(&o);

        /* show lists the tasks */
        pg_test_perfgate(&o, "show", "res/wakers.json", NULL);
        assert_int_equal(o.status, 0);
        pg_assert_has(o.out.ptr, "Scheduler latency: 1 run");
        pg_assert_has(o.out.ptr, "Max delay");
        pg_assert_has(o.out.ptr, "  sleeper-a ");
        pg_assert_has(o.out.ptr, "  hog ");
        pg_assert_has(o.out.ptr, "sched-delay-max");
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_sched_compare_gates(void **state)
{
        const char *gate = ", \"compare\": {\"metrics\": {\"sched-delay-avg\": {\"gate\": true, "
                           "\"threshold\": \"20%\"}}}";
        struct pg_run_out o;
        (void) state;

        if (!pg_sched_permitted()) {
                skip();
                return;
        }
        pg_test_sandbox();
        pg_write_config("base", "nohog", gate);
        pg_write_config("head", "hog", gate);
        pg_test_perfgate(&o, "run", "--repeat", "5", "--warmup", "0", "--no-profile", "--out",
                         "base/res", "base", NULL);
        if (o.status != 0)
                fail_msg("run base: exit %d: %s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "run", "--repeat", "5", "--warmup", "0", "--no-profile", "--out",
                         "head/res", "head", NULL);
        if (o.status != 0)
                fail_msg("run head: exit %d: %s", o.status, o.err.ptr);
        /* a recording of repeat x the benchmark's time says where it is */
        for (int k = 1; k <= 5; k++) {
                char *line =
                    pg_xasprintf("benchmark 1/1 wakers, scheduler-latency run %d/5 done", k);
                pg_assert_has(o.err.ptr, line);
                free(line);
        }
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "./base/res", "--results", "head/res", "--config",
                         "head/perfgate.json", "--junit", "j.xml", NULL);
        if (o.status != 1)
                fail_msg("compare: exit %d, want 1:\n%s\n%s", o.status, o.out.ptr, o.err.ptr);
        pg_assert_has(o.out.ptr, "sched-delay-avg");
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_sched_unprivileged_says_why(void **state)
{
        const char *sb;
        struct pg_run_out o;
        struct pg_result r;
        const struct pg_metric *m;
        char *prog, *cfg;
        (void) state;

        if (!pg_test_can_be_nobody() || pg_test_paranoid() < 0) {
                skip(); /* needs root to drop privileges, and paranoid >= 0 to refuse */
                return;
        }
        sb = pg_test_sandbox();
        chmod(sb, 0777);
        prog = pg_test_copy_program(pg_test_fixture("sched_wakers"), sb);
        cfg = pg_xasprintf("{\"benchmarks\": [{\"name\": \"wakers\", \"argv\": [\"%s\", "
                           "\"nohog\", \"20\"], \"sched\": true}]}\n",
                           prog);
        pg_test_write("perfgate.json", cfg);
        chmod("perfgate.json", 0644);
        {
                char *argv[] = { (char *) pg_test_env("PERFGATE_BIN"),
                                 "run",
                                 "--repeat",
                                 "2",
                                 "--warmup",
                                 "0",
                                 "--no-profile",
                                 ".",
                                 NULL };
                pg_test_run_as_nobody(&o, argv);
        }
        if (o.status != 0)
                fail_msg("exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "no scheduler latency recorded");
        /* either tracefs (root only on Debian) or the paranoid level refuses */
        if (!strstr(o.err.ptr, "kernel.perf_event_paranoid") && !strstr(o.err.ptr, "tracefs"))
                fail_msg("the warning says neither how to allow it nor why:\n%s", o.err.ptr);
        pg_result_init(&r);
        assert_int_equal(pg_result_load(&r, ".perfgate/results/wakers.json"), 0);
        assert_false(r.sched.present);
        m = pg_result_find_metric(&r, "sched-delay-max");
        assert_non_null(m);
        assert_int_equal(m->status, PG_METRIC_NOT_SUPPORTED);
        assert_int_equal(m->nvalues, 0);
        assert_non_null(m->reason);
        m = pg_result_find_metric(&r, "sched-delay-avg");
        assert_non_null(m);
        assert_int_equal(m->status, PG_METRIC_NOT_SUPPORTED);
        assert_non_null(pg_result_find_metric(&r, "task-clock"));
        pg_result_release(&r);
        pg_run_out_release(&o);
        free(cfg);
        free(prog);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sched_agrees_with_perf),
                cmocka_unit_test(test_sched_compare_gates),
                cmocka_unit_test(test_sched_unprivileged_says_why),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
