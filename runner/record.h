/*
 * record.h - `perfgate record` as a library: sample a running process (all
 * its threads, present and future), the whole system, or a command, for a
 * duration or until SIGINT, and fold the samples into a profile
 * (runner/sample.h's sampling, symbolization and folding, shared with
 * `perfgate run`).
 *
 * Attaching to a running process follows `perf record -p`
 * (tools/perf/builtin-record.c, util/synthetic-events.c): the events are
 * opened on every thread listed in /proc/PID/task (inherit covers threads
 * created later), and since the process mapped its code before the events
 * existed, its mappings and thread names are synthesized from
 * /proc/PID/maps and /proc/PID/task/TID/comm as MMAP2 and COMM records that
 * sort before every real record.
 *
 * The library never prints: warnings become lines in the caller's buffer.
 */
#ifndef PG_RUNNER_RECORD_H
#define PG_RUNNER_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/records.h"
#include "runner/ringbuf.h"
#include "runner/sample.h"

/* Per-CPU buffer pages: a live target cannot be re-run when a buffer
 * overflows, so they start larger than `run`'s (halved by the kernel's
 * locked-memory limit when needed; lost samples are counted). */
#define PG_RECORD_PAGES_FP    256
#define PG_RECORD_PAGES_DWARF 1024

/* A live recording folds what it drained once it holds this many bytes of
 * records (memory stays bounded however long it lasts). */
#define PG_RECORD_FOLD_BYTES (64u << 20)

struct pg_record_opts {
        pid_t pid;            /* > 0: record this process */
        pid_t tid;            /* > 0: record this thread alone (perf record -t) */
        bool system_wide;     /* record every task (pid -1 on each CPU) */
        char *const *argv;    /* else: run and record this command */
        int log_fd;           /* the command's stdout/stderr (<= 2: /dev/null) */
        uint64_t duration_ns; /* 0: until the target exits or SIGINT */
        uint64_t freq_hz;     /* default 999 */
        enum pg_call_graph call_graph;
        const char *debug_dir; /* extra debuginfo root, or NULL */
        bool exclude_kernel;   /* user space only */
};

struct pg_record_info {
        uint64_t wall_ns;     /* how long the events sampled (CLOCK_MONOTONIC): from
                               * opening them (a command: its start) to the end of
                               * the wait (its exit); setup and folding excluded */
        uint64_t event_count; /* the sampling event's count summed over tasks and CPUs:
                               * ns of CPU time for cpu-clock, cycles for cycles */
        bool target_exited;   /* the process (-p) or command ended before the recording */
        bool interrupted;     /* SIGINT/SIGTERM ended it */
        int exit_status;      /* the command's wait status, when target_exited */
        char comm[32];        /* the process's name (-p), "" otherwise */
        bool cycles;          /* the event was cycles (else cpu-clock) */
        bool exclude_kernel;  /* the events ended up user-space only */
};

/**
 * Record as @o says and fill @out with the folded profile (runs = 1) and
 * @info with how the recording went. A target that exits before the end is
 * not an error (info->target_exited; the samples taken are kept).
 * @warnings: lines for the user (lost samples, no samples, ...).
 * Errors: PG_EINPUT (no target, or more than one; -p of a thread, not a process); PG_ENOTFOUND (no process
 * @o->pid: message names it); PG_EPERM (the kernel refuses: another user's
 * process, system-wide without privilege; the message says what to do);
 * PG_ENOTSUP; PG_ENOTFOUND / PG_EMEASURE (the command cannot be started);
 * PG_EIO.
 */
int pg_record(const struct pg_record_opts *o, struct pg_profile *out, struct pg_record_info *info,
              struct pg_buf *warnings);

struct pg_symbolizer;

/**
 * A live sampling session on a running target, for `record` and `top`:
 * the events on the process's threads (or every task), their buffers, the
 * records drained so far and the symbolizer that folds them.
 */
struct pg_live {
        struct pg_record_opts o; /* a copy (o.argv is NULL) */
        struct pg_sampling_cfg cfg;
        struct pg_sampling smp;
        struct pg_record_log log;
        struct pg_record_log spare; /* the log being folded while the next fills */
        struct pg_symbolizer *sym;  /* folded stacks accumulate here */
        int pidfd;                  /* the process (-p), -1 otherwise */
        pid_t tgid;                 /* the process whose mappings are read (-p, -t), or 0 */
        char thread_dir[48];        /* -t: /proc/TGID/task/TID, gone when the thread ends */
        uint64_t start_ns;          /* CLOCK_MONOTONIC when the events were opened (enabled) */
        struct pg_sample_drain_ctx dc;
};

/**
 * Attach to @o->pid (every thread), @o->tid (that thread alone) or, with
 * @o->system_wide, every task, and put the target's current mappings and
 * thread names in the log (-t: those of the thread's process).
 * @info: comm (-p: the process's, -t: the thread's), what the events ended
 * up with. On error the caller
 * still calls pg_live_close(). Errors: as pg_record() for those targets.
 */
int pg_live_open(struct pg_live *l, const struct pg_record_opts *o, struct pg_record_info *info);

/**
 * Drain the buffers for @duration_ns (0: until the end), stopping early
 * when the process exits (info->target_exited) or on SIGINT/SIGTERM
 * (info->interrupted).
 */
void pg_live_wait(struct pg_live *l, uint64_t duration_ns, struct pg_record_info *info);

/**
 * Disable the events (and their inherited children): the recording ends
 * here; pg_live_fold() then drains what they sampled until now.
 */
void pg_live_stop(struct pg_live *l);

/**
 * Fold what was drained since the last call into l->sym's stacks and
 * counters, then start the next interval's log with the target's mappings
 * as they are now (the symbolizer forgets address spaces after each batch).
 */
void pg_live_fold(struct pg_live *l);

/** Close the events and free everything (safe after a failed open). */
void pg_live_close(struct pg_live *l);

#endif
