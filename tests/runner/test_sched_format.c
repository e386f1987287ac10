/*
 * test_sched_format.c - the parts of scheduler latency that need no
 * privilege: reading tracefs format files (the text of this kernel's
 * sched_switch and sched_wakeup formats, and the live files when readable),
 * and the analysis of hand-built sched_switch / sched_wakeup /
 * sched_wakeup_new records, following perf's latency rules:
 *  - a wakeup of a sleeping task starts its delay, the switch-in ends it;
 *  - a preempted task (prev_state 0 or only the preemption mark) waits from
 *    its switch-out;
 *  - a wakeup of a task that is runnable or running changes nothing;
 *  - tasks created by the benchmark (sched_wakeup_new in one of its tasks)
 *    are its own, any other task is ignored; rows merge by comm.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/records.h"
#include "runner/sched.h"
#include "tests/util/perfrec.h"

/* As /sys/kernel/tracing/events/sched/sched_switch/format reads on 6.18. */
static const char pg_switch_fmt[] =
    "name: sched_switch\n"
    "ID: 372\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"prev_comm=%s prev_pid=%d ...\", REC->prev_comm, REC->prev_pid\n";

static void test_format_fields(void **state)
{
        struct pg_tp_field f;
        uint64_t id = 0;
        (void) state;

        assert_int_equal(pg_tp_format_id(pg_switch_fmt, &id), 0);
        assert_int_equal(id, 372);
        assert_int_equal(pg_tp_format_field(pg_switch_fmt, "prev_comm", &f), 0);
        assert_int_equal(f.offset, 8);
        assert_int_equal(f.size, 16);
        assert_int_equal(pg_tp_format_field(pg_switch_fmt, "prev_state", &f), 0);
        assert_int_equal(f.offset, 32);
        assert_int_equal(f.size, 8);
        assert_true(f.is_signed);
        assert_int_equal(pg_tp_format_field(pg_switch_fmt, "next_pid", &f), 0);
        assert_int_equal(f.offset, 56);
        /* "pid" is no field here: prev_pid and next_pid only end in it */
        assert_int_equal(pg_tp_format_field(pg_switch_fmt, "pid", &f), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "'pid'"));
        assert_int_equal(pg_tp_format_field(pg_switch_fmt, "common_type", &f), 0);
        assert_int_equal(f.offset, 0);
        assert_int_equal(f.size, 2);
        assert_int_equal(pg_tp_format_id("name: x\nformat:\n", &id), PG_EINPUT);
}

static void test_live_tracefs(void **state)
{
        struct pg_sched_tp tp;
        int rc;
        (void) state;

        rc = pg_sched_tp_load(&tp);
        if (rc == PG_EPERM || rc == PG_ENOTSUP) {
                /* the message says what to do */
                assert_true(strstr(pg_error_last(), "tracefs") != NULL);
                skip();
                return;
        }
        assert_int_equal(rc, 0);
        assert_true(tp.switch_id > 0 && tp.wakeup_id > 0 && tp.wakeup_new_id > 0);
        assert_true(tp.switch_id != tp.wakeup_id);
        assert_int_equal(tp.common_type.offset, 0);
        assert_true(tp.prev_state.size == 4 || tp.prev_state.size == 8);
        assert_true(tp.next_pid.offset > tp.prev_pid.offset);
}

/* The layout used below: this kernel's (see pg_switch_fmt). */
static void pg_tp(struct pg_sched_tp *tp)
{
        memset(tp, 0, sizeof(*tp));
        tp->switch_id = 372;
        tp->wakeup_id = 374;
        tp->wakeup_new_id = 375;
        tp->common_type = (struct pg_tp_field){ 0, 2, false };
        tp->prev_comm = (struct pg_tp_field){ 8, 16, false };
        tp->prev_pid = (struct pg_tp_field){ 24, 4, true };
        tp->prev_state = (struct pg_tp_field){ 32, 8, true };
        tp->next_comm = (struct pg_tp_field){ 40, 16, false };
        tp->next_pid = (struct pg_tp_field){ 56, 4, true };
        tp->wakeup_pid = (struct pg_tp_field){ 24, 4, true };
        tp->wakeup_new_pid = (struct pg_tp_field){ 24, 4, true };
}

#define PG_TP_TYPE                                                                                 \
        (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |           \
         PERF_SAMPLE_RAW)

/* A tracepoint sample at @t (ns) in task @tid on @cpu with @raw (68 bytes,
 * padded so that size + 4 is a multiple of 8, as the kernel does). */
static void pg_add(struct pg_record_log *log, uint64_t t, uint32_t tid, uint32_t cpu,
                   const unsigned char raw[68])
{
        struct pg_rec r;
        uint32_t size = 68;

        pg_rec_begin(&r, PERF_RECORD_SAMPLE, 0);
        pg_rec_put64(&r, 1);
        pg_rec_put32x2(&r, tid, tid);
        pg_rec_put64(&r, t);
        pg_rec_put32x2(&r, cpu, 0);
        memcpy(r.b + r.n, &size, 4);
        memcpy(r.b + r.n + 4, raw, 68);
        r.n += 72;
        pg_rec_finish(&r);
        pg_record_log_add(log, r.b, r.n, t);
}

static void pg_switch(struct pg_record_log *log, uint64_t t, uint32_t cpu, const char *pc,
                      uint32_t prev, int64_t state, const char *nc, uint32_t next)
{
        unsigned char raw[68] = { 0 };
        uint16_t type = 372;

        memcpy(raw, &type, 2);
        memcpy(raw + 8, pc, strlen(pc));
        memcpy(raw + 24, &prev, 4);
        memcpy(raw + 32, &state, 8);
        memcpy(raw + 40, nc, strlen(nc));
        memcpy(raw + 56, &next, 4);
        pg_add(log, t, prev, cpu, raw);
}

static void pg_wakeup(struct pg_record_log *log, uint64_t t, uint32_t waker, uint16_t type,
                      uint32_t pid)
{
        unsigned char raw[68] = { 0 };

        memcpy(raw, &type, 2);
        memcpy(raw + 24, &pid, 4);
        pg_add(log, t, waker, 0, raw);
}

static const struct pg_sched_task *pg_find(const struct pg_sched_run *r, const char *comm)
{
        for (size_t i = 0; i < r->n; i++)
                if (strcmp(r->tasks[i].comm, comm) == 0)
                        return &r->tasks[i];
        return NULL;
}

static void test_analysis_follows_perf(void **state)
{
        struct pg_perf_format fmt = { PG_TP_TYPE, 0, true };
        struct pg_record_log log;
        struct pg_sched_tp tp;
        struct pg_sched_run run;
        const struct pg_sched_task *t;
        (void) state;

        pg_tp(&tp);
        pg_record_log_init(&log);
        /* the benchmark (100) is woken at its start and runs at 1000 us */
        pg_wakeup(&log, 100000, 7, 374, 100);
        pg_switch(&log, 1000000, 0, "swapper/0", 0, 0, "bench", 100);
        /* it creates a worker (101), which first runs 500 us later */
        pg_wakeup(&log, 1100000, 100, 375, 101);
        /* a stranger (999) is created by someone else: never counted */
        pg_wakeup(&log, 1150000, 50, 375, 999);
        pg_switch(&log, 1600000, 1, "swapper/1", 0, 0, "worker", 101);
        /* bench sleeps (S = 1) at 2 ms, is woken at 3 ms, runs at 5 ms */
        pg_switch(&log, 2000000, 0, "bench", 100, 1, "swapper/0", 0);
        pg_wakeup(&log, 3000000, 101, 374, 100);
        /* a second wakeup while it waits changes nothing */
        pg_wakeup(&log, 4000000, 101, 374, 100);
        pg_switch(&log, 5000000, 0, "swapper/0", 0, 0, "bench", 100);
        /* the worker is preempted (R+: only the mark 0x100) at 6 ms by the
         * stranger and runs again at 8 ms */
        pg_switch(&log, 6000000, 1, "worker", 101, 0x100, "stranger", 999);
        pg_switch(&log, 8000000, 1, "stranger", 999, 1, "worker", 101);
        /* a wakeup of the running worker changes nothing */
        pg_wakeup(&log, 8500000, 100, 374, 101);
        /* both exit (X/dead: state 0x10) */
        pg_switch(&log, 9000000, 1, "worker", 101, 0x10, "swapper/1", 0);
        pg_switch(&log, 9500000, 0, "bench", 100, 0x10, "swapper/0", 0);
        pg_record_log_sort(&log);

        pg_sched_analyze(&log, &fmt, &tp, 100, &run);
        assert_int_equal(run.n, 2); /* bench and worker; not the stranger */
        t = pg_find(&run, "bench");
        assert_non_null(t);
        assert_int_equal(t->switches, 2);           /* at 1 ms and 5 ms */
        assert_int_equal(t->delay_max_ns, 2000000); /* 3 -> 5 ms */
        assert_int_equal(t->delay_total_ns, 900000 + 2000000);
        assert_int_equal(t->runtime_ns, 1000000 + 4500000); /* 1-2 ms, 5-9.5 ms */
        t = pg_find(&run, "worker");
        assert_non_null(t);
        assert_int_equal(t->switches, 2);           /* created, and preempted */
        assert_int_equal(t->delay_max_ns, 2000000); /* 6 -> 8 ms */
        assert_int_equal(t->delay_total_ns, 500000 + 2000000);
        assert_int_equal(t->runtime_ns, 4400000 + 1000000);
        assert_int_equal(run.switches, 4);
        assert_int_equal(run.delay_max_ns, 2000000);
        assert_int_equal(run.delay_total_ns, 2900000 + 2500000);

        /* merged into a result over two runs: sums, the larger maximum */
        {
                struct pg_sched s = { 0 };

                pg_sched_merge(&s, &run);
                pg_sched_merge(&s, &run);
                assert_true(s.present);
                assert_int_equal(s.runs, 2);
                assert_int_equal(s.n, 2);
                assert_string_equal(s.tasks[0].comm, "bench");
                assert_int_equal(s.tasks[0].switches, 4);
                assert_int_equal(s.tasks[0].delay_max_ns, 2000000);
                assert_int_equal(s.tasks[0].threads, 1);
                pg_sched_release(&s);
        }
        pg_sched_run_release(&run);
        pg_record_log_release(&log);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format_fields),
                cmocka_unit_test(test_live_tracefs),
                cmocka_unit_test(test_analysis_follows_perf),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
