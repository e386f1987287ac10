/*
 * test_counting_nopmu.c - the no-PMU shortcut of pg_counter_set_open()
 * (pg_counter_opts.no_pmu): on a host whose sysfs lists no core PMU, once a
 * hardware event fails with ENOENT the later hardware and cache events get
 * the same answer without a system call. Checked against the real kernel of
 * a host without a PMU (every event's state, errno and group, and the
 * result's metrics, equal to asking the kernel for each), and, through the
 * open hook, on the answers a PMU host gives: one unmapped hardware event
 * answering ENOENT must not stop the others from being asked. (The real PMU
 * host path cannot run on a VM without a PMU.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/counting.h"
#include "runner/events.h"
#include "runner/host.h"
#include "runner/run.h"
#include "tests/util/testutil.h"

/* What the open hook saw, and the host it plays. */
struct pg_open_log {
        size_t hw_calls; /* hardware and cache events asked */
        size_t sw_calls;
        bool pmu_host;   /* answer hardware events as a PMU host would */
        uint64_t enoent; /* PMU host: the one hardware config it has no mapping for */
};

static bool pg_is_hw(uint32_t type)
{
        return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE;
}

/* Forwards to the real syscall. As a PMU host, a hardware event other than
 * log->enoent opens as cpu-clock (a software event that counts here), so the
 * group and the read work as they would with a PMU. */
static int pg_open_logged(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                          unsigned long flags)
{
        struct pg_open_log *log = ctx;
        struct perf_event_attr copy = *a;
        long fd;

        if (pg_is_hw(a->type)) {
                log->hw_calls++;
                if (log->pmu_host) {
                        if (a->type == PERF_TYPE_HARDWARE && a->config == log->enoent)
                                return -ENOENT;
                        copy.type = PERF_TYPE_SOFTWARE;
                        copy.config = PERF_COUNT_SW_CPU_CLOCK;
                }
        } else {
                log->sw_calls++;
        }
        fd = syscall(SYS_perf_event_open, &copy, pid, cpu, group_fd, flags);
        return fd < 0 ? -errno : (int) fd;
}

static int pg_count(struct pg_counter_set *s, const struct pg_event_list *l,
                    const struct pg_counter_opts *o)
{
        char *args[3] = { pg_xstrdup(pg_test_fixture("runner-busy")), (char *) "10", NULL };
        struct pg_bench b;
        struct pg_exit ex;
        int error;

        memset(&b, 0, sizeof(b));
        b.name = (char *) "fx";
        b.argc = 2;
        b.argv = args;
        b.exec_path = args[0];
        pg_counter_set_init(s, l, o);
        error = pg_run_count_once(&b, -1, NULL, 0, 20000000000ull, s, &ex);
        free(args[0]);
        return error;
}

static size_t pg_hw_events(const struct pg_event_list *l)
{
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++)
                n += pg_is_hw(l->ev[i]->type);
        return n;
}

/* The metrics of one repetition, as JSON text (what the result stores). */
static char *pg_metrics_json(const struct pg_counter_set *s, const struct pg_event_list *l)
{
        struct pg_count_reading rd[PG_EVENTS_MAX];
        struct pg_result r;
        struct pg_buf out = PG_BUF_INIT;

        for (size_t i = 0; i < s->n; i++)
                rd[i] = s->c[i].r;
        pg_result_init(&r);
        pg_counter_metrics_add(&r, l, rd, 1, NULL);
        for (size_t i = 0; i < r.nmetrics; i++) {
                const struct pg_metric *m = &r.metrics[i];
                if (m->status != PG_METRIC_OK)
                        pg_buf_printf(&out, "%s %d %s\n", m->name, (int) m->status,
                                      m->reason ? m->reason : "");
                else
                        pg_buf_printf(&out, "%s ok %zu\n", m->name, m->nvalues);
        }
        pg_result_release(&r);
        return out.ptr ? out.ptr : pg_xstrdup("");
}

/* This VM: no core PMU. With the shortcut, one hardware event is asked; the
 * states, errnos, groups and stored metrics are those of asking the kernel
 * for every event. */
static void test_nopmu_same_answers_one_call(void **state)
{
        struct pg_open_log asked = { 0 }, short_cut = { 0 };
        struct pg_counter_opts all = { .open_fn = pg_open_logged, .open_ctx = &asked };
        struct pg_counter_opts once = { .no_pmu = true,
                                        .open_fn = pg_open_logged,
                                        .open_ctx = &short_cut };
        struct pg_counter_set a, b;
        struct pg_event_list l;
        struct pg_host host;
        size_t npmu;
        char *ja, *jb;
        (void) state;

        pg_host_probe(&host);
        npmu = host.npmu;
        pg_host_release(&host);
        if (npmu)
                skip(); /* a PMU host: the runner never asks for the shortcut */
        pg_events_default(&l);
        assert_true(pg_hw_events(&l) >= 2);
        assert_int_equal(pg_count(&a, &l, &all), 0);
        assert_int_equal(pg_count(&b, &l, &once), 0);
        assert_int_equal(asked.hw_calls, pg_hw_events(&l));
        assert_int_equal(short_cut.hw_calls, 1);
        assert_int_equal(short_cut.sw_calls, asked.sw_calls);
        for (size_t i = 0; i < l.n; i++) {
                assert_string_equal(a.c[i].def->name, b.c[i].def->name);
                assert_int_equal(a.c[i].r.state, b.c[i].r.state);
                assert_int_equal(a.c[i].r.open_errno, b.c[i].r.open_errno);
                assert_int_equal(a.c[i].leader, b.c[i].leader);
                if (pg_is_hw(l.ev[i]->type)) {
                        assert_int_equal(b.c[i].r.state, PG_COUNT_NOT_SUPPORTED);
                        assert_int_equal(b.c[i].r.open_errno, ENOENT);
                }
        }
        ja = pg_metrics_json(&a, &l);
        jb = pg_metrics_json(&b, &l);
        /* the stored not-supported entries, reason text included, are the same */
        assert_non_null(strstr(jb, "no PMU for this event"));
        for (char *p = ja, *q = jb; *p || *q;) {
                char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
                assert_non_null(pe);
                assert_non_null(qe);
                /* a counted event's values differ from run to run; its line
                 * holds only its name, "ok" and the number of values */
                assert_memory_equal(p, q, (size_t) (pe - p) + 1);
                p = pe + 1;
                q = qe + 1;
        }
        free(ja);
        free(jb);
        pg_counter_set_close(&a);
        pg_counter_set_close(&b);
}

/* A PMU host answers ENOENT for one unmapped event (stalled-cycles-frontend
 * on many Intel models). Without the flag every event is
 * asked; an ENOENT after a hardware event opened never stops the others. */
static void test_nopmu_one_enoent_on_a_pmu_host(void **state)
{
        struct pg_event_list l;
        (void) state;

        assert_int_equal(pg_events_parse(&l, "task-clock,cycles,instructions,branches"), 0);
        assert_int_equal(l.ev[1]->config, PERF_COUNT_HW_CPU_CYCLES);
        assert_int_equal(l.ev[2]->config, PERF_COUNT_HW_INSTRUCTIONS);
        for (int flag = 0; flag < 2; flag++) {
                /* cycles, the first hardware event, unmapped; then instructions */
                for (int which = 0; which < 2; which++) {
                        struct pg_open_log log = {
                                .pmu_host = true,
                                .enoent =
                                    which ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_HW_CPU_CYCLES,
                        };
                        struct pg_counter_opts o = { .no_pmu = flag,
                                                     .open_fn = pg_open_logged,
                                                     .open_ctx = &log };
                        struct pg_counter_set s;
                        size_t want_calls = flag && !which ? 1 : 3;

                        assert_int_equal(pg_count(&s, &l, &o), 0);
                        assert_int_equal(log.hw_calls, want_calls);
                        assert_int_equal(s.c[1 + which].r.state, PG_COUNT_NOT_SUPPORTED);
                        assert_int_equal(s.c[1 + which].r.open_errno, ENOENT);
                        for (size_t i = 1; i < 4; i++) {
                                if (i == (size_t) (1 + which))
                                        continue;
                                /* asked: counted as the stand-in; skipped: ENOENT */
                                if (want_calls == 3)
                                        assert_int_equal(s.c[i].r.state, PG_COUNT_OK);
                                else
                                        assert_int_equal(s.c[i].r.open_errno, ENOENT);
                        }
                        pg_counter_set_close(&s);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nopmu_same_answers_one_call),
                cmocka_unit_test(test_nopmu_one_enoent_on_a_pmu_host),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
