/*
 * offcpu.h - where threads wait: the records of an off-CPU sampling run
 * (runner/ringbuf.h with off_cpu set) turned into blocked time per stack.
 *
 * The run samples the software event context-switches with period 1 and
 * call chains, which the kernel counts in the outgoing task as it is
 * switched out (kernel/sched/core.c, prepare_task_switch ->
 * perf_event_task_sched_out -> perf_sw_event_sched), so each sample holds
 * the stack at which a thread left the CPU; attr.context_switch adds a
 * PERF_RECORD_SWITCH when each thread is switched in again and out again,
 * the latter flagged PERF_RECORD_MISC_SWITCH_OUT_PREEMPT when the thread was
 * still runnable (preempted, not blocked). The time a thread was blocked is
 * that from its switch-out sample to its next switch-in (the off-CPU
 * analysis of Brendan Gregg, "Off-CPU Analysis", brendangregg.com; perf's
 * own `perf sched timehist` pairs the same events).
 *
 * pg_offcpu_weigh() rewrites each sample's PERIOD field in the log with the
 * nanoseconds blocked, 0 for a preemption or a thread that never came back
 * (it exited), so that the symbolizer, folding with weight_by_period, sums
 * nanoseconds per stack and skips the zeros.
 */
#ifndef PG_RUNNER_OFFCPU_H
#define PG_RUNNER_OFFCPU_H

#include <stdint.h>

#include "runner/records.h"

struct pg_offcpu_stats {
        uint64_t switches;   /* switch-out samples seen */
        uint64_t blocked;    /* of those, voluntary and followed by a switch-in */
        uint64_t preempted;  /* of those, involuntary (weighted 0) */
        uint64_t blocked_ns; /* their total */
};

/**
 * Weigh the switch-out samples of @log (sorted by time, every record with
 * TIME, samples with TID and PERIOD in @fmt) by the nanoseconds until the
 * same thread's next switch-in, in place. @st (may be NULL) gets the counts.
 * Malformed records are left alone.
 */
void pg_offcpu_weigh(struct pg_record_log *log, const struct pg_perf_format *fmt,
                     struct pg_offcpu_stats *st);

#endif
