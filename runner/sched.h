/*
 * sched.h - scheduler latency, as `perf sched latency` reports it
 * (tools/perf/builtin-sched.c): per task, the time it ran, how often it was
 * switched in after waiting for a CPU, and the average and longest delay
 * from becoming runnable (a wakeup, or a preemption) to running.
 *
 * Recording: the tracepoints sched:sched_switch, sched:sched_wakeup and
 * sched:sched_wakeup_new, one event each per CPU and CPU-wide (pid -1), with
 * PERF_SAMPLE_RAW, as `perf sched record` opens them. CPU-wide is needed: a
 * wakeup fires in the waker's context (often an interrupt over another
 * task), so an event that follows the benchmark's own tasks never sees the
 * wakeups of its tasks. CPU-wide tracepoints need kernel.perf_event_paranoid
 * <= -1 for the unprivileged, or root / CAP_PERFMON (perf_event_open(2),
 * "perf_event related configuration files"; kernel/events/core.c,
 * perf_allow_tracepoint), and the event ids and field layouts come from
 * tracefs (<tracefs>/events/sched/<event>/format), never from constants.
 *
 * The benchmark's tasks: its first process, and every task a task of the
 * benchmark created, which sched_wakeup_new names (it fires in the parent,
 * kernel/sched/core.c wake_up_new_task, so the sample's tid is the parent
 * and the "pid" field the new task).
 */
#ifndef PG_RUNNER_SCHED_H
#define PG_RUNNER_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/records.h"

/** One field of a tracepoint's raw record (tracefs format file). */
struct pg_tp_field {
        uint32_t offset; /* bytes from the start of the raw data */
        uint32_t size;   /* bytes */
        bool is_signed;
};

/**
 * The event id ("ID: N") of a tracefs format text @text.
 * Returns 0, or PG_EINPUT when it has none.
 */
int pg_tp_format_id(const char *text, uint64_t *id);

/**
 * The field named @name ("field:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;",
 * arrays as "char prev_comm[16]") of a tracefs format text @text.
 * Returns 0, or PG_EINPUT naming the field when it is absent or malformed.
 */
int pg_tp_format_field(const char *text, const char *name, struct pg_tp_field *out);

/** What the analysis needs of the three tracepoints. */
struct pg_sched_tp {
        uint64_t switch_id, wakeup_id, wakeup_new_id;
        struct pg_tp_field common_type; /* the id of the tracepoint a record belongs to */
        struct pg_tp_field prev_comm, prev_pid, prev_state, next_comm, next_pid;
        struct pg_tp_field wakeup_pid, wakeup_new_pid;
};

/**
 * Read the ids and formats of sched_switch, sched_wakeup and
 * sched_wakeup_new from tracefs (/sys/kernel/tracing, else
 * /sys/kernel/debug/tracing), mounting tracefs at /sys/kernel/tracing
 * first where none is mounted and the process may (as perf does). Errors
 * (message "CAUSE; WHAT TO DO", the cause without "; ", which doctor splits
 * into its value and fix lines): PG_EPERM (tracefs is there but not readable,
 * or none is mounted and this process may not mount it), PG_ENOTSUP (the
 * mount failed otherwise, or an event or field is missing).
 */
int pg_sched_tp_load(struct pg_sched_tp *tp);

/**
 * Whether CPU-wide sched tracepoints may be opened here: pg_sched_tp_load(),
 * then a perf_event_open(2) of sched_switch on CPU 0 with pid -1.
 * Errors: those of pg_sched_tp_load(), PG_EPERM (EACCES/EPERM: the message
 * names kernel.perf_event_paranoid, CAP_PERFMON and root), PG_ENOTSUP.
 */
int pg_sched_probe(struct pg_sched_tp *tp);

/** Latency of the benchmark's tasks in one recorded run. */
struct pg_sched_run {
        size_t n;
        struct pg_sched_task *tasks; /* one per comm, sorted by comm (owned) */
        uint64_t switches;           /* sum over tasks */
        uint64_t delay_total_ns;     /* sum over tasks */
        uint64_t delay_max_ns;       /* max over tasks */
        uint64_t lost;               /* records the kernel dropped (PERF_RECORD_LOST) */
};

/**
 * Analyse @log (sorted by time; tracepoint samples with TID, TIME, CPU and
 * RAW in @fmt) for the tasks of the benchmark whose first process is @root,
 * following perf's latency_switch_event / latency_wakeup_event:
 *  - a task switched out still runnable (prev_state without any state bit,
 *    TASK_REPORT in include/trace/events/sched.h, __trace_sched_switch_state)
 *    waits for a CPU from that moment; one switched out asleep waits from its
 *    next sched_wakeup (a wakeup while it waits or runs is ignored);
 *  - at its next switch-in the delay since then is counted, once: switches
 *    is the number of such switch-ins (perf's "Count"), a task first seen
 *    being switched in counts with delay 0, as in perf;
 *  - runtime is the sum of the intervals from a switch-in to the next
 *    switch-out of the same task (perf sums sched_stat_runtime instead: the
 *    same CPU time, accounted at switches and ticks).
 * Tasks are merged by comm (their name when last switched out), as `perf
 * sched latency` does without --pids; @out is filled (release with
 * pg_sched_run_release()).
 */
void pg_sched_analyze(const struct pg_record_log *log, const struct pg_perf_format *fmt,
                      const struct pg_sched_tp *tp, uint32_t root, struct pg_sched_run *out);

/** Free what @r owns and make it empty. */
void pg_sched_run_release(struct pg_sched_run *r);

/** Merge run @r into @s (tasks matched by comm; counts summed, maxima kept; runs + 1). */
void pg_sched_merge(struct pg_sched *s, const struct pg_sched_run *r);

struct pg_sample_opts;

/** Values per recorded run, for the metrics sched-delay-max and -avg (ns). */
struct pg_sched_values {
        size_t n;
        double *max_ns; /* n values: the longest delay of any task in that run */
        double *avg_ns; /* n values: all delays of the run over its switch-ins */
};

/**
 * Record @runs runs of @o->argv (its command, cwd, env, log, CPUs and
 * timeout; call graphs, frequency and markers do not apply: the whole run is
 * recorded) under the sched tracepoints @tp (pg_sched_probe()), merging each
 * run's tasks into @out (present, runs) and appending its values to @vals
 * (a run in which no task of the benchmark waited adds none).
 * @warnings gets one line when the kernel dropped records. After each run,
 * @o->progress (if set) is called with the runs so far and a NULL top.
 * Errors: PG_EMEASURE (the benchmark failed; message says how), PG_EINTR,
 * PG_EPERM / PG_ENOTSUP (the events cannot be opened), PG_EIO.
 */
int pg_sched_record(const struct pg_sample_opts *o, const struct pg_sched_tp *tp, uint64_t runs,
                    struct pg_sched *out, struct pg_sched_values *vals, struct pg_buf *warnings);

/** Free what @v owns and make it empty. */
void pg_sched_values_release(struct pg_sched_values *v);

#endif
