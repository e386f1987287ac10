/*
 * test_counting.c - counting groups on real processes with real software
 * events: task-clock against rusage, threads and fork+exec children counted
 * through inherit (case 29), page faults, kernel-only marking, the real
 * EACCES fallback of an unprivileged user (case 28), the group read decoder
 * on the buffers of case 30, the fallbacks for kernels and hosts this VM is
 * not (injected through the open hook, forwarding to the real syscall), and
 * a golden file of the perf_event_attr the runner asks for (as the kernel's
 * tools/perf/tests/attr does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "runner/counting.h"
#include "runner/events.h"
#include "runner/host.h"
#include "runner/run.h"
#include "tests/util/cases.h"
#include "tests/util/testutil.h"

/* ---- helpers ------------------------------------------------------------ */

static int pg_real_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                        unsigned long flags)
{
        long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);
        return fd < 0 ? -errno : (int) fd;
}

/*
 * Time in ns that all CPUs spent stolen by the hypervisor or in interrupts
 * (/proc/stat "cpu" line, fields irq, softirq and steal, in USER_HZ ticks;
 * proc(5)). task-clock counts the time a task is scheduled in, which
 * includes these; rusage's CPU time is the scheduler's sum_exec_runtime,
 * which leaves them out (kernel/sched/cputime.c, steal_account_process_time).
 * On a VM whose host is busy the two can differ by hundreds of milliseconds.
 */
static double pg_stolen_ns(void)
{
        unsigned long long v[8] = { 0 };
        FILE *f = fopen("/proc/stat", "r");
        int n = 0;

        if (f) {
                n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                           &v[3], &v[4], &v[5], &v[6], &v[7]);
                fclose(f);
        }
        if (n != 8)
                return 0;
        return (double) (v[5] + v[6] + v[7]) * 1e9 / (double) sysconf(_SC_CLK_TCK);
}

/* Stolen and interrupt time (ns) during the last pg_count(). */
static double pg_last_stolen_ns;

/* Run fixture @argv (argv[0] a fixture name) under the counters of @l. */
static int pg_count(struct pg_counter_set *s, struct pg_exit *ex, const struct pg_event_list *l,
                    const struct pg_counter_opts *o, const char *const *argv)
{
        char *args[8] = { NULL };
        struct pg_bench b;
        size_t n = 0;
        int error;

        for (; argv[n]; n++)
                args[n] = (char *) argv[n];
        args[0] = pg_xstrdup(pg_test_fixture(argv[0]));
        memset(&b, 0, sizeof(b));
        b.name = (char *) "fx";
        b.argc = n;
        b.argv = args;
        b.exec_path = args[0];
        pg_counter_set_init(s, l, o);
        pg_last_stolen_ns = -pg_stolen_ns();
        error = pg_run_count_once(&b, -1, NULL, 0, 20000000000ull, s, ex);
        pg_last_stolen_ns += pg_stolen_ns();
        free(args[0]);
        return error;
}

static const struct pg_count_reading *pg_get(const struct pg_counter_set *s, const char *name)
{
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->c[i].def->name, name) == 0)
                        return &s->c[i].r;
        fail_msg("event %s not in the set", name);
        return NULL;
}

static double pg_ru_cpu_ns(const struct pg_exit *ex)
{
        return (double) ex->ru.ru_utime.tv_sec * 1e9 + (double) ex->ru.ru_utime.tv_usec * 1e3 +
               (double) ex->ru.ru_stime.tv_sec * 1e9 + (double) ex->ru.ru_stime.tv_usec * 1e3;
}

/*
 * task-clock @value (ns) of the last pg_count() agrees with rusage's CPU time
 * of @ex within 10%, the stolen and interrupt time of the run allowed on top
 * (plus one tick per CPU for the tick granularity of /proc/stat).
 */
static void pg_assert_matches_rusage(double value, const struct pg_exit *ex)
{
        double want = pg_ru_cpu_ns(ex);
        double slack = pg_last_stolen_ns > 0 ? pg_last_stolen_ns : 0;

        if (slack > 0)
                slack +=
                    (double) sysconf(_SC_NPROCESSORS_ONLN) * 1e9 / (double) sysconf(_SC_CLK_TCK);
        if (!(value >= want * 0.9 && value <= want * 1.1 + slack))
                fail_msg("task-clock %.0f ns is not within 10%% of rusage %.0f ns (+%.0f ns stolen "
                         "or in interrupts)",
                         value, want, slack);
}

static bool pg_host_has_pmu(void)
{
        return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
               access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
               access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;
}

/* ---- real processes, real software events ------------------------------- */

static void test_counting_busy_task_clock_matches_rusage(void **state)
{
        const char *argv[] = { "runner-busy", "250", NULL };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        const struct pg_count_reading *tc;
        (void) state;

        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, NULL, argv), 0);
        assert_true(WIFEXITED(ex.status) && WEXITSTATUS(ex.status) == 0);
        tc = pg_get(&s, "task-clock");
        assert_int_equal(tc->state, PG_COUNT_OK);
        pg_assert_matches_rusage(tc->value, &ex);
        assert_true(tc->value >= 240e6);
        /* software events never multiplex */
        assert_true(tc->enabled_ns == tc->running_ns);
        assert_true(tc->coverage == 1.0);
        assert_true(s.group_read);
}

static void test_counting_two_threads_all_counted(void **state)
{
        const char *argv[] = { "runner-threads", "150", NULL };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        const struct pg_count_reading *tc;
        (void) state;

        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, NULL, argv), 0);
        assert_int_equal(ex.status, 0);
        tc = pg_get(&s, "task-clock");
        assert_int_equal(tc->state, PG_COUNT_OK);
        /* both threads: 2 x 150 ms (case 29: without inherit only one is seen) */
        assert_true(tc->value >= 2 * 150e6 * 0.95);
        pg_assert_matches_rusage(tc->value, &ex);
}

static void test_counting_fork_exec_child_counted(void **state)
{
        const char *argv[] = { "runner-forkexec", NULL, "150", "100", NULL };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        const struct pg_count_reading *tc;
        char *busy = pg_xstrdup(pg_test_fixture("runner-busy"));
        (void) state;

        argv[1] = busy;
        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, NULL, argv), 0);
        assert_int_equal(ex.status, 0);
        tc = pg_get(&s, "task-clock");
        assert_int_equal(tc->state, PG_COUNT_OK);
        /* the exec'd child's 150 ms plus the parent's 100 ms */
        assert_true(tc->value >= 250e6 * 0.95);
        pg_assert_matches_rusage(tc->value, &ex);
        free(busy);
}

static void test_counting_page_faults_at_least_pages(void **state)
{
        const char *argv[] = { "runner-pages", "3000", NULL };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        const struct pg_count_reading *pf;
        (void) state;

        assert_int_equal(pg_events_parse(&l, "task-clock,page-faults"), 0);
        assert_int_equal(pg_count(&s, &ex, &l, NULL, argv), 0);
        assert_int_equal(ex.status, 0);
        pf = pg_get(&s, "page-faults");
        assert_int_equal(pf->state, PG_COUNT_OK);
        assert_true(pf->value >= 3000);
}

static void test_counting_hardware_not_supported_here(void **state)
{
        const char *argv[] = { "runner-busy", "20", NULL };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        struct pg_result r;
        struct pg_count_reading rd[PG_EVENTS_MAX];
        (void) state;

        if (pg_host_has_pmu())
                skip(); /* this host has a PMU: hardware events may count */
        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, NULL, argv), 0);
        for (size_t i = 0; i < s.n; i++) {
                rd[i] = s.c[i].r;
                if (!s.c[i].def->hardware)
                        continue;
                assert_int_equal(s.c[i].r.state, PG_COUNT_NOT_SUPPORTED);
                assert_true(s.c[i].r.open_errno == ENOENT || s.c[i].r.open_errno == EOPNOTSUPP);
        }
        /* the software group survives its missing hardware neighbours */
        assert_int_equal(pg_get(&s, "task-clock")->state, PG_COUNT_OK);
        pg_result_init(&r);
        pg_counter_metrics_add(&r, &l, rd, 1, NULL);
        assert_int_equal(pg_result_find_metric(&r, "cycles")->status, PG_METRIC_NOT_SUPPORTED);
        assert_int_equal(pg_result_find_metric(&r, "cycles")->nvalues, 0);
        assert_non_null(strstr(pg_result_find_metric(&r, "cycles")->reason, "perf_event_open"));
        pg_result_derive(&r);
        assert_null(pg_result_find_metric(&r, "ipc"));
        pg_result_release(&r);
}

static void test_counting_exclude_kernel_marks_kernel_only(void **state)
{
        const char *argv[] = { "runner-busy", "30", NULL };
        struct pg_counter_opts o = { .exclude_kernel = true };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        struct pg_result r;
        struct pg_count_reading rd[PG_EVENTS_MAX];
        const struct pg_metric *m;
        (void) state;

        assert_int_equal(pg_events_parse(&l, "task-clock,context-switches,cpu-migrations,"
                                             "page-faults"),
                         0);
        assert_int_equal(pg_count(&s, &ex, &l, &o, argv), 0);
        assert_true(s.exclude_kernel);
        assert_int_equal(pg_get(&s, "context-switches")->state, PG_COUNT_KERNEL_ONLY);
        assert_int_equal(pg_get(&s, "cpu-migrations")->state, PG_COUNT_KERNEL_ONLY);
        assert_int_equal(pg_get(&s, "page-faults")->state, PG_COUNT_OK);
        assert_int_equal(pg_get(&s, "task-clock")->state, PG_COUNT_OK);
        for (size_t i = 0; i < s.n; i++)
                rd[i] = s.c[i].r;
        pg_result_init(&r);
        pg_counter_metrics_add(&r, &l, rd, 1, NULL);
        m = pg_result_find_metric(&r, "context-switches");
        assert_int_equal(m->status, PG_METRIC_KERNEL_ONLY);
        assert_int_equal(m->nvalues, 0); /* never stored as 0 */
        pg_result_release(&r);
}

struct pg_priv_report {
        int rc;
        int fell_back_user;
        int exclude_kernel;
        int cs_state;
        int tc_state;
        double tc_value;
};

static void test_counting_unprivileged_real_eacces_fallback(void **state)
{
        const char *argv[] = { "runner-busy", "30", NULL };
        struct pg_priv_report rep;
        int p[2], status;
        pid_t pid;
        (void) state;

        if (geteuid() != 0 || pg_test_paranoid() != 2)
                skip(); /* needs root to drop to uid 65534, and paranoid=2 (case 28) */
        assert_int_equal(pipe(p), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct pg_counter_set s;
                struct pg_event_list l;
                struct pg_exit ex;
                memset(&rep, 0, sizeof(rep));
                close(p[0]);
                /* setuid() from root clears the dumpable flag, and the kernel then
                 * refuses perf_event_open on our (not yet exec'd) child; a real
                 * unprivileged user is dumpable */
                if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0 ||
                    prctl(PR_SET_DUMPABLE, 1) < 0 ||
                    access(pg_test_fixture("runner-busy"), X_OK) < 0) {
                        rep.rc = 1000;
                } else {
                        pg_events_default(&l);
                        rep.rc = pg_count(&s, &ex, &l, NULL, argv);
                        rep.fell_back_user = s.fell_back_user;
                        rep.exclude_kernel = s.exclude_kernel;
                        rep.cs_state = pg_get(&s, "context-switches")->state;
                        rep.tc_state = pg_get(&s, "task-clock")->state;
                        rep.tc_value = pg_get(&s, "task-clock")->value;
                }
                (void) !write(p[1], &rep, sizeof(rep));
                _exit(0);
        }
        close(p[1]);
        assert_int_equal(read(p[0], &rep, sizeof(rep)), sizeof(rep));
        close(p[0]);
        waitpid(pid, &status, 0);
        if (rep.rc == 1000)
                skip(); /* the fixture is not reachable as uid 65534 */
        assert_int_equal(rep.rc, 0);
        assert_true(rep.fell_back_user);
        assert_true(rep.exclude_kernel);
        assert_int_equal(rep.cs_state, PG_COUNT_KERNEL_ONLY);
        assert_int_equal(rep.tc_state, PG_COUNT_OK);
        assert_true(rep.tc_value >= 25e6);
}

/* ---- case 30: group read buffers ---------------------------------------- */

static const char *pg_ratio_name(const char *key)
{
        if (strcmp(key, "llc_miss_rate") == 0)
                return "LLC-miss-rate";
        if (strcmp(key, "branch_miss_rate") == 0)
                return "branch-miss-rate";
        if (strcmp(key, "ipc") == 0)
                return "ipc";
        return NULL;
}

static void test_counting_case30_group_read_cases(void **state)
{
        char *path = pg_xasprintf("%s/cases/30-group-never-scheduled/read-group-cases.json",
                                  pg_test_env("PG_DATA_DIR"));
        char *text = pg_test_read(path);
        cJSON *root = NULL;
        const cJSON *c;
        int ncases = 0;
        (void) state;

        assert_int_equal(pg_json_parse(text, strlen(text), path, 0, &root), 0);
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "cases"))
        {
                const cJSON *buf = cJSON_GetObjectItem(c, "buffer");
                const cJSON *ids = cJSON_GetObjectItem(c, "ids");
                const cJSON *exp = cJSON_GetObjectItem(c, "expected");
                uint64_t words[16], idv[8], rev_ids[8];
                struct pg_count_reading rd[8], rev[8];
                struct pg_event_list l = { 0 };
                struct pg_buf warnings = PG_BUF_INIT;
                struct pg_result r;
                const cJSON *it;
                size_t nw = 0, n = 0;

                cJSON_ArrayForEach(it, buf) words[nw++] = (uint64_t) it->valuedouble;
                /* list the events in table order, as the runner would */
                cJSON_ArrayForEach(it, ids)
                {
                        l.ev[n] = pg_event_find(it->valuestring);
                        assert_non_null(l.ev[n]);
                        idv[n] = strtoull(it->string, NULL, 10);
                        n++;
                }
                l.n = n;
                memset(rd, 0, sizeof(rd));
                assert_int_equal(pg_counter_decode_group(words, nw, idv, n, rd), 0);
                /* matched by id, not position: the reversed id order gives the same values */
                for (size_t i = 0; i < n; i++)
                        rev_ids[i] = idv[n - 1 - i];
                memset(rev, 0, sizeof(rev));
                assert_int_equal(pg_counter_decode_group(words, nw, rev_ids, n, rev), 0);
                for (size_t i = 0; i < n; i++) {
                        assert_int_equal(rev[n - 1 - i].raw, rd[i].raw);
                        pg_count_classify(&rd[i], l.ev[i], false);
                }
                pg_result_init(&r);
                pg_counter_metrics_add(&r, &l, rd, 1, &warnings);
                pg_result_derive(&r);
                cJSON_ArrayForEach(it, exp)
                {
                        const char *ratio = pg_ratio_name(it->string);
                        const struct pg_metric *m;
                        if (strcmp(it->string, "coverage") == 0) {
                                for (size_t i = 0; i < n; i++)
                                        assert_true(rd[i].coverage == it->valuedouble);
                                if (it->valuedouble < 1)
                                        for (size_t i = 0; i < n; i++)
                                                assert_true(pg_result_find_metric(&r, l.ev[i]->name)
                                                                ->coverage[0] == it->valuedouble);
                                continue;
                        }
                        if (strcmp(it->string, "warning") == 0) {
                                assert_non_null(strstr(warnings.ptr, it->valuestring));
                                continue;
                        }
                        m = pg_result_find_metric(&r, ratio ? ratio : it->string);
                        if (cJSON_IsNull(it)) {
                                assert_null(m); /* an undefined ratio is absent */
                        } else if (cJSON_IsString(it)) {
                                assert_string_equal(it->valuestring, "not_counted");
                                assert_non_null(m);
                                assert_int_equal(m->status, PG_METRIC_NOT_COUNTED);
                                assert_int_equal(m->nvalues, 0);
                        } else {
                                assert_non_null(m);
                                assert_int_equal(m->status, PG_METRIC_OK);
                                assert_true(m->values[0] > it->valuedouble * (1 - 1e-9) &&
                                            m->values[0] < it->valuedouble * (1 + 1e-9));
                        }
                }
                if (!cJSON_GetObjectItem(exp, "warning"))
                        assert_null(strstr(warnings.ptr, "low coverage"));
                pg_buf_release(&warnings);
                pg_result_release(&r);
                ncases++;
        }
        assert_int_equal(ncases, 3);
        cJSON_Delete(root);
        free(text);
        free(path);
}

static void test_counting_decode_refuses_short_buffer(void **state)
{
        uint64_t buf[] = { 3, 100, 100, 1, 11, 2, 12 }; /* claims 3 entries, holds 2 */
        uint64_t id = 11;
        struct pg_count_reading r;
        (void) state;
        assert_int_equal(pg_counter_decode_group(buf, 7, &id, 1, &r), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "claims 3"));
        assert_int_equal(pg_counter_decode_group(buf, 2, &id, 1, &r), PG_EINPUT);
}

/* ---- other hosts, through the open hook ---------------------------------- */

/* A pre-4.13 kernel: inherit + PERF_FORMAT_GROUP is EINVAL. */
static int pg_open_old_kernel(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu,
                              int group_fd, unsigned long flags)
{
        (void) ctx;
        if (a->inherit && (a->read_format & PERF_FORMAT_GROUP))
                return -EINVAL;
        return pg_real_open(a, pid, cpu, group_fd, flags);
}

static void test_counting_old_kernel_reads_without_group(void **state)
{
        const char *argv[] = { "runner-pages", "500", NULL };
        struct pg_counter_opts o = { .open_fn = pg_open_old_kernel };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        (void) state;

        assert_int_equal(pg_events_parse(&l, "task-clock,context-switches,page-faults"), 0);
        assert_int_equal(pg_count(&s, &ex, &l, &o, argv), 0);
        assert_true(s.fell_back_group);
        assert_false(s.group_read);
        assert_int_equal(pg_get(&s, "task-clock")->state, PG_COUNT_OK);
        assert_int_equal(pg_get(&s, "page-faults")->state, PG_COUNT_OK);
        assert_true(pg_get(&s, "page-faults")->value >= 500);
        /* a run of a few ms: rusage is too coarse to compare with (the busy
         * loop test does that); the per-fd read must still give a real time */
        assert_true(pg_get(&s, "task-clock")->value > 0);
        assert_true(pg_get(&s, "task-clock")->value <= (double) ex.wall_ns * 2.2);
}

/* Selected events fail with a chosen errno; others go to the kernel. */
struct pg_fail_spec {
        uint64_t config; /* PERF_TYPE_SOFTWARE config to fail */
        int err;
        bool members_only;
        int calls;
};

static int pg_open_failing(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                           unsigned long flags)
{
        struct pg_fail_spec *f = ctx;
        f->calls++;
        if (a->type == PERF_TYPE_SOFTWARE && a->config == f->config &&
            (!f->members_only || group_fd >= 0))
                return -f->err;
        return pg_real_open(a, pid, cpu, group_fd, flags);
}

/*
 * One event's perf_event_open fails with a chosen errno: the group around
 * it is rebuilt and the other events still count (runner-pages 300 touches
 * 300 pages, so page-faults >= 300 whatever else happened).
 */
struct pg_fail_case {
        const char *name;         /* the test's name in cmocka's output */
        const char *events;       /* --events */
        struct pg_fail_spec fail; /* which open fails, how */
        const char *refused;      /* event reported not supported, or NULL */
        int refused_errno;        /* its open_errno, or 0: not checked */
        const char *ok;           /* another event that must count, or NULL */
        const int *leaders;       /* leader index of counters 0.., -1: not checked; or NULL */
};

static const struct pg_fail_case pg_fail_cases[] = {
        { .name = "test_counting_failing_member_does_not_sink_group",
          .events = "task-clock,context-switches,page-faults",
          .fail = { PERF_COUNT_SW_CONTEXT_SWITCHES, ENOENT, false, 0 },
          .refused = "context-switches",
          .refused_errno = ENOENT,
          .ok = "task-clock" },
        { .name = "test_counting_failing_leader_next_one_leads",
          .events = "task-clock,context-switches,page-faults",
          .fail = { PERF_COUNT_SW_TASK_CLOCK, EOPNOTSUPP, false, 0 },
          .refused = "task-clock",
          .leaders = (const int[]){ -1, 1, 1 } },
        /* a member refused with EINVAL is opened alone: its own group now */
        { .name = "test_counting_member_einval_counts_alone",
          .events = "task-clock,page-faults",
          .fail = { PERF_COUNT_SW_PAGE_FAULTS, EINVAL, true, 0 },
          .leaders = (const int[]){ -1, 1 } },
};

static void test_counting_failing_open(void **state)
{
        const struct pg_fail_case *c = *state;
        const char *argv[] = { "runner-pages", "300", NULL };
        struct pg_fail_spec f = c->fail;
        struct pg_counter_opts o = { .open_fn = pg_open_failing, .open_ctx = &f };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;

        assert_int_equal(pg_events_parse(&l, c->events), 0);
        assert_int_equal(pg_count(&s, &ex, &l, &o, argv), 0);
        if (c->refused)
                assert_int_equal(pg_get(&s, c->refused)->state, PG_COUNT_NOT_SUPPORTED);
        if (c->refused_errno)
                assert_int_equal(pg_get(&s, c->refused)->open_errno, c->refused_errno);
        if (c->ok)
                assert_int_equal(pg_get(&s, c->ok)->state, PG_COUNT_OK);
        for (size_t i = 0; c->leaders && i < l.n; i++)
                if (c->leaders[i] >= 0)
                        assert_int_equal(s.c[i].leader, c->leaders[i]);
        assert_int_equal(pg_get(&s, "page-faults")->state, PG_COUNT_OK);
        assert_true(pg_get(&s, "page-faults")->value >= 300);
}

/* paranoid=2 for an unprivileged user, as seen by root: EACCES with kernel. */
static int pg_open_paranoid2(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                             unsigned long flags)
{
        (void) ctx;
        if (!a->exclude_kernel)
                return -EACCES;
        return pg_real_open(a, pid, cpu, group_fd, flags);
}

static void test_counting_eacces_falls_back_to_user(void **state)
{
        const char *argv[] = { "runner-busy", "30", NULL };
        struct pg_counter_opts o = { .open_fn = pg_open_paranoid2 };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        (void) state;

        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, &o, argv), 0);
        assert_true(s.fell_back_user);
        assert_true(s.exclude_kernel);
        assert_int_equal(pg_get(&s, "task-clock")->state, PG_COUNT_OK);
        assert_int_equal(pg_get(&s, "context-switches")->state, PG_COUNT_KERNEL_ONLY);
        assert_int_equal(pg_get(&s, "cpu-migrations")->state, PG_COUNT_KERNEL_ONLY);
}

static int pg_open_eperm(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                         unsigned long flags)
{
        (void) ctx;
        (void) a;
        (void) pid;
        (void) cpu;
        (void) group_fd;
        (void) flags;
        return -EPERM;
}

static void test_counting_no_access_at_all_is_eperm(void **state)
{
        const char *argv[] = { "runner-busy", "10", NULL };
        struct pg_counter_opts o = { .open_fn = pg_open_eperm };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        (void) state;

        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, &o, argv), PG_EPERM);
        assert_non_null(strstr(pg_error_last(), "perf_event_paranoid"));
        assert_non_null(strstr(pg_error_last(), "CAP_PERFMON"));
        assert_false(pg_counter_set_any_open(&s));
}

/* ---- host fingerprint ------------------------------------------------------ */

static void test_counting_host_fingerprint(void **state)
{
        struct pg_host h;
        struct utsname u;
        struct pg_buf par = PG_BUF_INIT;
        (void) state;

        pg_host_probe(&h);
        assert_int_equal(uname(&u), 0);
        assert_string_equal(h.kernel, u.release);
        assert_string_equal(h.arch, u.machine);
        assert_int_equal(h.cpus, (uint64_t) sysconf(_SC_NPROCESSORS_ONLN));
        assert_non_null(h.cpu);
        assert_true(strlen(h.cpu) > 0);
        assert_int_equal(pg_read_file("/proc/sys/kernel/perf_event_paranoid", &par), 0);
        assert_int_equal(h.perf_event_paranoid, atoi(par.ptr));
        assert_false(h.exclude_kernel);
        /* core PMUs: "cpu" when sysfs has it; none on this VM class */
        if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0) {
                bool found = false;
                for (size_t i = 0; i < h.npmu; i++)
                        found |= strcmp(h.pmu[i], "cpu") == 0;
                assert_true(found);
        }
        for (size_t i = 0; i < h.npmu; i++) {
                assert_string_not_equal(h.pmu[i], "software");
                assert_string_not_equal(h.pmu[i], "tracepoint");
        }
        if (geteuid() == 0)
                assert_true(pg_host_privileged()); /* root has CAP_SYS_ADMIN */
        pg_host_release(&h);
        assert_null(h.cpu);
        pg_buf_release(&par);
}

/* ---- golden perf_event_attr --------------------------------------------- */

struct pg_attr_rec {
        struct pg_buf text;
        int n;
        int fds[PG_EVENTS_MAX * 2];
        const char *names[PG_EVENTS_MAX * 2];
};

static const char *pg_attr_event_name(const struct perf_event_attr *a)
{
        size_t n;
        const struct pg_event_def *t = pg_events_table(&n);
        for (size_t i = 0; i < n; i++)
                if (t[i].type == a->type && t[i].config == a->config)
                        return t[i].name;
        return "?";
}

/* Record what is asked, then open a software dummy with the same grouping
 * and flags so every open succeeds on any host (the sequence is the one of
 * a host where everything is supported). */
static int pg_open_record(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                          unsigned long flags)
{
        struct pg_attr_rec *rec = ctx;
        struct pg_buf *b = &rec->text;
        struct perf_event_attr d;
        const char *leader = "-1";
        int fd;

        for (int i = 0; i < rec->n; i++)
                if (rec->fds[i] == group_fd)
                        leader = rec->names[i];
        pg_buf_printf(b, "[event:%s]\n", pg_attr_event_name(a));
        pg_buf_printf(b, "pid=%s\ncpu=%d\ngroup_fd=%s\nflags=%lu\n", pid > 0 ? "child" : "?", cpu,
                      leader, flags);
#define F(x) pg_buf_printf(b, #x "=%llu\n", (unsigned long long) a->x)
        F(type);
        F(size);
        F(config);
        F(sample_period);
        F(sample_type);
        F(read_format);
        F(disabled);
        F(inherit);
        F(pinned);
        F(exclusive);
        F(exclude_user);
        F(exclude_kernel);
        F(exclude_hv);
        F(exclude_idle);
        F(mmap);
        F(comm);
        F(freq);
        F(inherit_stat);
        F(enable_on_exec);
        F(task);
        F(watermark);
        F(precise_ip);
        F(mmap_data);
        F(sample_id_all);
        F(exclude_host);
        F(exclude_guest);
        F(exclude_callchain_kernel);
        F(exclude_callchain_user);
        F(mmap2);
        F(comm_exec);
        F(use_clockid);
        F(context_switch);
        F(write_backward);
        F(namespaces);
        F(ksymbol);
        F(bpf_event);
        F(aux_output);
        F(cgroup);
        F(text_poke);
        F(build_id);
        F(inherit_thread);
        F(remove_on_exec);
        F(sigtrap);
        F(wakeup_events);
        F(bp_type);
        F(config1);
        F(config2);
        F(branch_sample_type);
        F(sample_regs_user);
        F(sample_stack_user);
        F(clockid);
        F(sample_regs_intr);
        F(aux_watermark);
        F(sample_max_stack);
        F(aux_sample_size);
        F(sig_data);
#undef F
        pg_buf_putc(b, '\n');
        d = *a;
        d.type = PERF_TYPE_SOFTWARE;
        d.config = PERF_COUNT_SW_DUMMY;
        d.exclude_kernel = d.exclude_hv = 1;
        fd = pg_real_open(&d, pid, cpu, group_fd, flags);
        if (fd >= 0 && rec->n < PG_EVENTS_MAX * 2) {
                rec->fds[rec->n] = fd;
                rec->names[rec->n] = pg_attr_event_name(a);
                rec->n++;
        }
        return fd;
}

static void test_counting_attr_golden(void **state)
{
        const char *argv[] = { "runner-busy", "1", NULL };
        struct pg_attr_rec rec;
        struct pg_counter_opts o = { .open_fn = pg_open_record, .open_ctx = &rec };
        struct pg_counter_set s;
        struct pg_event_list l;
        struct pg_exit ex;
        struct pg_buf out = PG_BUF_INIT;
        char *path, *golden;
        (void) state;

        memset(&rec, 0, sizeof(rec));
        pg_buf_init(&rec.text);
        pg_events_default(&l);
        assert_int_equal(pg_count(&s, &ex, &l, &o, argv), 0);
        pg_buf_puts(&out, "# perf_event_attr perfgate asks for when counting the default events\n"
                          "# (one per perf_event_open call, in order; see "
                          "tests/runner/test_counting.c)\n\n");
        pg_buf_add(&out, rec.text.ptr, rec.text.len);
        path = pg_xasprintf("%s/tests/golden/attr-default.txt", pg_test_env("PG_SOURCE_DIR"));
        if (getenv("PG_BLESS"))
                pg_test_write(path, out.ptr); /* explicit regeneration: PG_BLESS=1 ctest */
        golden = pg_test_read(path);
        assert_string_equal(out.ptr, golden);
        /* and what the golden file promises */
        assert_non_null(strstr(golden, "[event:task-clock]\npid=child\ncpu=-1\ngroup_fd=-1\n"
                                       "flags=8\n"));
        assert_non_null(strstr(golden, "[event:instructions]\npid=child\ncpu=-1\n"
                                       "group_fd=cycles\n"));
        free(path);
        free(golden);
        pg_buf_release(&out);
        pg_buf_release(&rec.text);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_counting_busy_task_clock_matches_rusage),
                cmocka_unit_test(test_counting_two_threads_all_counted),
                cmocka_unit_test(test_counting_fork_exec_child_counted),
                cmocka_unit_test(test_counting_page_faults_at_least_pages),
                cmocka_unit_test(test_counting_hardware_not_supported_here),
                cmocka_unit_test(test_counting_exclude_kernel_marks_kernel_only),
                cmocka_unit_test(test_counting_unprivileged_real_eacces_fallback),
                cmocka_unit_test(test_counting_case30_group_read_cases),
                cmocka_unit_test(test_counting_decode_refuses_short_buffer),
                cmocka_unit_test(test_counting_old_kernel_reads_without_group),
                cmocka_unit_test(test_counting_eacces_falls_back_to_user),
                cmocka_unit_test(test_counting_no_access_at_all_is_eperm),
                cmocka_unit_test(test_counting_host_fingerprint),
                cmocka_unit_test(test_counting_attr_golden),
        };
        return pg_run_tests_and_cases(tests, PG_NELEMS(tests), test_counting_failing_open, NULL,
                                      NULL, pg_fail_cases, sizeof(pg_fail_cases[0]),
                                      PG_NELEMS(pg_fail_cases));
}
