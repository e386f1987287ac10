/*
 * write-results.c - writes one result file per shape a result can take,
 * through the library's own writer (pg_result_save), into DIR, for the
 * schema test (check-schema.sh): hardware counters with multiplexing and a
 * profile with kernel/JIT/inlined frames; software-only with not-supported,
 * not-counted and kernel-only metrics; no git and no profile; an empty
 * profile; case 26's zero denominators after pg_result_derive(); a name and
 * frames needing JSON escapes and UTF-8 sanitising.
 *
 * usage: pg-write-results DIR   (exit 0, or 1 with a message)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "runner/sched.h"
#include "common/buf.h"
#include "common/error.h"

static void base(struct pg_result *r, const char *name, const char *counters)
{
        pg_result_init(r);
        r->name = pg_xstrdup(name);
        r->ncommand = 3;
        r->command = pg_xcalloc(3, sizeof(char *));
        r->command[0] = pg_xasprintf("bin/%s", name);
        r->command[1] = pg_xstrdup("-n");
        r->command[2] = pg_xstrdup("5");
        r->created = pg_xstrdup("2026-11-29T10:00:00Z");
        r->has_git = true;
        r->git_commit = pg_xstrdup("9f1c2b3a4d5e6f708192a3b4c5d6e7f809a1b2c3");
        r->machine = pg_xstrdup("default");
        r->host.cpu = pg_xstrdup("Intel(R) Xeon(R) CPU @ 2.20GHz");
        r->host.cpus = 2;
        r->host.kernel = pg_xstrdup("6.1.0-18-amd64");
        r->host.arch = pg_xstrdup("x86_64");
        r->host.perf_event_paranoid = 2;
        r->counters = pg_xstrdup(counters);
        r->repeat = 3;
        r->warmup = 1;
}

static void add3(struct pg_result *r, const char *name, const char *unit, double a, double b,
                 double c, const double *cov)
{
        double v[3] = { a, b, c };
        pg_result_add_metric(r, name, unit, PG_METRIC_OK, v, cov, 3, NULL);
}

static void profile(struct pg_result *r, const struct pg_stack *st, size_t n, bool kernel)
{
        uint64_t total = 0;

        for (size_t i = 0; i < n; i++)
                total += st[i].count;
        r->profile.present = true;
        r->profile.event = pg_xstrdup("cpu-clock");
        r->profile.frequency_hz = 999;
        r->profile.call_graph = pg_xstrdup("fp");
        r->profile.samples = total;
        r->profile.runs = 1;
        r->profile.kernel = kernel;
        pg_profile_set_stacks(&r->profile, st, n);
}

static int save(const struct pg_result *r, const char *dir)
{
        char *path = pg_xasprintf("%s/%s.json", dir, r->name);
        int error = pg_result_save(r, path);

        if (error < 0)
                fprintf(stderr, "pg-write-results: %s\n", pg_error_last());
        free(path);
        return error;
}

int main(int argc, char **argv)
{
        static const double cov[3] = { 1, 0.632, 0.5 };
        struct pg_result r;
        int error = 0;

        if (argc != 2) {
                fprintf(stderr, "usage: pg-write-results DIR\n");
                return 2;
        }

        /* hardware counters, multiplexed LLC group, a profile with every annotation */
        base(&r, "hardware", "hardware");
        r.host.npmu = 1;
        r.host.pmu = pg_xcalloc(1, sizeof(char *));
        r.host.pmu[0] = pg_xstrdup("cpu");
        r.host.perf_event_paranoid = -1;
        r.host.virtualized = false;
        add3(&r, "task-clock", "ns", 412100000, 409800000, 415000000, NULL);
        add3(&r, "duration_time", "ns", 420000000, 418000000, 421000000, NULL);
        add3(&r, "user-time", "ns", 400000000, 398000000, 404000000, NULL);
        add3(&r, "system-time", "ns", 8000000, 9000000, 8000000, NULL);
        add3(&r, "max-rss", "bytes", 5865472, 5865472, 5869568, NULL);
        add3(&r, "context-switches", "count", 3, 2, 4, NULL);
        add3(&r, "cpu-migrations", "count", 0, 0, 1, NULL);
        add3(&r, "page-faults", "count", 215, 215, 216, NULL);
        add3(&r, "cycles", "count", 1.2e9, 1.21e9, 1.19e9, NULL);
        add3(&r, "instructions", "count", 3.1e9, 3.1e9, 3.1e9, NULL);
        add3(&r, "branches", "count", 6e8, 6e8, 6e8, NULL);
        add3(&r, "branch-misses", "count", 1.2e7, 1.1e7, 1.3e7, NULL);
        add3(&r, "cache-references", "count", 4e6, 4.1e6, 3.9e6, NULL);
        add3(&r, "cache-misses", "count", 1e5, 1.2e5, 0.9e5, NULL);
        add3(&r, "L1-dcache-loads", "count", 9e8, 9e8, 9e8, NULL);
        add3(&r, "L1-dcache-load-misses", "count", 2e7, 2e7, 2e7, NULL);
        add3(&r, "LLC-loads", "count", 1e6, 1.1e6, 0.9e6, cov);
        add3(&r, "LLC-load-misses", "count", 2e5, 2.2e5, 1.8e5, cov);
        pg_result_derive(&r);
        {
                struct pg_stack st[] = {
                        { "hardware;_start;__libc_start_main;main;deflate_[i];longest_match", 700 },
                        { "hardware;_start;__libc_start_main;main;write;entry_SYSCALL_64_[k]", 40 },
                        { "hardware;[unknown];jit_fn_[j]", 5 },
                        { "hardware;main;[libz.so.1.2.13]", 90 },
                };
                profile(&r, st, 4, true);
        }
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* a VM: software counters only, kernel excluded, hardware not supported */
        base(&r, "software", "software");
        r.host.virtualized = true;
        r.host.exclude_kernel = true;
        add3(&r, "task-clock", "ns", 5e8, 5.1e8, 4.9e8, NULL);
        add3(&r, "duration_time", "ns", 5.1e8, 5.2e8, 5e8, NULL);
        add3(&r, "page-faults", "count", 100, 100, 100, NULL);
        pg_result_add_metric(&r, "context-switches", "count", PG_METRIC_KERNEL_ONLY, NULL, NULL, 0,
                             "exclude_kernel=1");
        pg_result_add_metric(&r, "cpu-migrations", "count", PG_METRIC_KERNEL_ONLY, NULL, NULL, 0,
                             NULL);
        pg_result_add_metric(&r, "cycles", "count", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "ENOENT");
        pg_result_add_metric(&r, "instructions", "count", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "ENOENT");
        pg_result_add_metric(&r, "LLC-loads", "count", PG_METRIC_NOT_COUNTED, NULL, NULL, 0,
                             "never scheduled");
        pg_result_derive(&r);
        {
                struct pg_stack st[] = { { "software;main;work", 1999 }, { "software;main", 1 } };
                profile(&r, st, 2, false);
        }
        /* processes outlived 2 of its 4 runs (docs/run.md) */
        r.leftovers = (struct pg_leftovers){ true, 2, 4, 1 };
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* run --sched: per-task scheduler latency and its two metrics */
        base(&r, "sched", "software");
        add3(&r, "task-clock", "ns", 1e8, 1.01e8, 0.99e8, NULL);
        add3(&r, "sched-delay-max", "ns", 1.5e7, 2.1e7, 1.8e7, NULL);
        add3(&r, "sched-delay-avg", "ns", 1.2e6, 1.4e6, 1.3e6, NULL);
        {
                struct pg_sched_run run = { 0 };
                struct pg_sched_task t[2] = { { "hog", 1, 600000000, 420, 800000000, 16000000 },
                                              { "sleeper-a", 1, 72000000, 630, 900000000,
                                                21000000 } };
                run.n = 2;
                run.tasks = t;
                pg_sched_merge(&r.sched, &run);
                r.sched.runs = 3;
        }
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* run --sched where it is not permitted: not-supported, no "sched" */
        base(&r, "sched-refused", "software");
        add3(&r, "task-clock", "ns", 1e8, 1.01e8, 0.99e8, NULL);
        pg_result_add_metric(&r, "sched-delay-max", "ns", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "CPU-wide sched tracepoints are not permitted: Permission denied");
        pg_result_add_metric(&r, "sched-delay-avg", "ns", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "CPU-wide sched tracepoints are not permitted: Permission denied");
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* outside git, --no-profile, one repetition: a `perfgate record` whose process
         * exited before --duration 60 */
        base(&r, "no-git-no-profile", "software");
        r.has_git = false;
        r.repeat = 1;
        r.warmup = 0;
        r.recording =
            (struct pg_recording){ true, PG_RECORD_END_TARGET_EXITED, 1500000000, 60000000000 };
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, (double[]){ 1234567 }, NULL, 1,
                             NULL);
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* too short to be sampled: a profile with no stacks */
        base(&r, "empty-profile", "software");
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, (double[]){ 1000 }, NULL, 1,
                             NULL);
        r.repeat = 1;
        profile(&r, NULL, 0, false);
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* case 26: zero denominators leave the ratios out */
        base(&r, "zeros", "hardware");
        add3(&r, "task-clock", "ns", 0, 0, 0, NULL);
        add3(&r, "cycles", "count", 0, 0, 0, NULL);
        add3(&r, "instructions", "count", 1200, 1200, 1200, NULL);
        add3(&r, "branches", "count", 0, 0, 0, NULL);
        add3(&r, "branch-misses", "count", 0, 0, 0, NULL);
        add3(&r, "LLC-loads", "count", 0, 0, 0, NULL);
        add3(&r, "LLC-load-misses", "count", 0, 0, 0, NULL);
        add3(&r, "duration_time", "ns", 1000, 1000, 1000, NULL);
        pg_result_derive(&r);
        if ((error = save(&r, argv[1])) < 0)
                goto done;
        pg_result_release(&r);

        /* names that need escaping, and bytes that are not UTF-8 (sanitised by the writer) */
        base(&r, "odd \"name\" \xc3\xa9", "software");
        add3(&r, "task-clock", "ns", 1, 2, 3, NULL);
        {
                struct pg_stack st[] = { { "odd;main;operator<<(std::ostream&, \"x\")", 3 },
                                         { "odd;main;bad\xff\xfe"
                                           "bytes",
                                           2 },
                                         { "odd;main;tab\there", 1 } };
                profile(&r, st, 3, false);
        }
        error = save(&r, argv[1]);
done:
        pg_result_release(&r);
        return error < 0 ? 1 : 0;
}
