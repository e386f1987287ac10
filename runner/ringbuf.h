/*
 * ringbuf.h - perf_event mmap ring buffers and the per-CPU sampling events
 * that write into them.
 *
 * Ring buffer protocol (linux/perf_event.h, struct perf_event_mmap_page):
 * data_head is read with an acquire load, records are consumed from
 * data_tail, and data_tail is published with a release store after the data
 * was copied, so the kernel never overwrites unread bytes. A record that
 * wraps around the end of the data area is linearised into a scratch buffer
 * before it is handed on.
 *
 * Sampling events (perf_event_open(2)): one event per CPU (pid=benchmark,
 * cpu=i, inherit=1, enable_on_exec=1) because inherited per-task events
 * cannot be mmapped; the tracking bits (mmap2, comm, task, ...) are set on
 * every per-CPU event since each CPU has exactly one event and one buffer.
 * In frame-pointer mode a sample also carries BP, SP, IP and 128 bytes of
 * user stack: with them the symbolizer recovers the caller of a leaf
 * function that sets up no frame (gcc omits it even with
 * -fno-omit-frame-pointer, unless -mno-omit-leaf-frame-pointer is given),
 * which the kernel's frame-pointer walk skips.
 *
 * Starting disabled (a region of interest, runner/control.h): a disabled
 * event receives no side-band records (kernel/events/core.c,
 * perf_iterate_ctx() skips events below PERF_EVENT_STATE_INACTIVE), so the
 * mappings made before the region would be missing. As `perf record
 * --delay` does with its dummy tracking event, the tracking bits then go
 * to one PERF_COUNT_SW_DUMMY event per CPU, enabled at exec and writing
 * into the sampling event's buffer (PERF_EVENT_IOC_SET_OUTPUT); the
 * sampling events carry none and start disabled without enable_on_exec.
 */
#ifndef PG_RUNNER_RINGBUF_H
#define PG_RUNNER_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner/records.h"

struct pg_ringbuf {
        int fd;
        void *base;          /* the mapping: header page + data area */
        size_t map_bytes;    /* (1 + 2^n) pages */
        unsigned char *data; /* base + data_offset */
        uint64_t data_size;
        unsigned char *scratch; /* data_size bytes for wrapped records */
};

/** Called for each record, linearised; @rec is valid only during the call. */
typedef void (*pg_ringbuf_record_cb)(void *ctx, const void *rec, size_t len);

/**
 * Consume every record between data_tail and data_head, calling @cb for
 * each, then publish the new tail. Returns the number of records; a record
 * whose size field is broken (< 8 or beyond head) ends the drain and skips
 * to head.
 */
size_t pg_ringbuf_drain(struct pg_ringbuf *rb, pg_ringbuf_record_cb cb, void *ctx);

struct pg_sampling_cfg {
        uint64_t freq_hz;
        bool dwarf;          /* REGS_USER + STACK_USER, no user FP chain */
        bool use_cycles;     /* HW cycles (falls back to cpu-clock) */
        bool exclude_kernel; /* start with exclude_kernel=1 */
        size_t data_pages;   /* per-CPU buffer, power of two */
        const int *cpus;     /* NULL: all online CPUs */
        size_t ncpus;
        bool start_disabled;         /* sampling starts at the first PERF_EVENT_IOC_ENABLE */
        bool off_cpu;                /* sample context-switches (period 1) with context_switch
                                records, kernel included (runner/offcpu.h) */
        bool attach;                 /* the tasks already run: enabled at once, not at exec */
        const uint64_t *tracepoints; /* instead: these tracepoint ids, CPU-wide (pid -1),
                                        every hit with RAW, enabled at once; the first
                                        owns each CPU's buffer (runner/sched.h) */
        size_t ntracepoints;
};

/** The per-CPU events of one sampling run and their buffers. */
struct pg_sampling {
        size_t n;
        int *fds;       /* the sampling events (what the control protocol switches) */
        int *track_fds; /* start_disabled: per-CPU dummy events for the side-band, or NULL */
        struct pg_ringbuf *rbs;
        struct pg_perf_format fmt;
        bool exclude_kernel; /* what the events ended up with */
        bool cycles;         /* the events count cycles (else cpu-clock) */
        size_t data_pages;   /* what the buffers ended up with */
        int *cpu_ids;        /* the CPU of fds[i] */
        uint64_t freq_hz;    /* as asked (cfg) */
        bool dwarf;
        int *more_fds; /* events of further tasks, writing into fds[]' buffers */
        size_t nmore, capmore;
};

/** x86-64 REGS_USER mask: AX..SS and R8..R15 (DS/ES/FS/GS are invalid). */
#define PG_SAMPLE_REGS_USER_MASK 0xff0fffULL
/** FP mode: BP, SP and IP only, for the leaf-frame fixup. */
#define PG_SAMPLE_REGS_LEAF_MASK 0x1c0ULL
/** FP mode: bytes of user stack copied for the leaf-frame fixup. */
#define PG_SAMPLE_STACK_LEAF_BYTES 128u
/** Bytes of user stack copied per DWARF-mode sample. */
#define PG_SAMPLE_STACK_USER_BYTES 8192u

/**
 * Open and map the sampling events on @pid. Falls back from cycles to
 * cpu-clock when there is no PMU, to exclude_kernel=1 on EACCES, halves the
 * buffers while mmap says EPERM (down to 8 pages), and raises RLIMIT_NOFILE
 * when the fds do not fit.
 * Errors: PG_EPERM (perf_event_paranoid or locked-memory limits; message says
 * what to do; with off_cpu, any refusal of kernel sampling, since a
 * context switch happens in the kernel and exclude_kernel would drop every
 * sample), PG_ENOTSUP (no usable event), PG_EIO.
 */
int pg_sampling_open(struct pg_sampling *s, pid_t pid, const struct pg_sampling_cfg *cfg);

/**
 * Open and map the sampling events of running tasks, as `perf record -p`
 * does (tools/perf/util/evsel.c): @tids[0..@ntids) are thread ids (a
 * process's threads from /proc/PID/task; every event has inherit, so threads
 * and children they create later are sampled too), or @tids NULL and @ntids 0
 * for every task of the system (pid -1; needs perf_event_paranoid <= 0 or
 * CAP_PERFMON). One buffer per CPU: the first task's event on that CPU owns
 * it, the others are redirected into it (PERF_EVENT_IOC_SET_OUTPUT).
 * @cfg->attach should be true (events start enabled). Fallbacks as
 * pg_sampling_open(). A task of the list that exited meanwhile (ESRCH) is
 * skipped, unless it is the first.
 * Errors: PG_ENOTFOUND (the first task does not exist), and those of
 * pg_sampling_open() (PG_EPERM for a task perfgate may not observe).
 */
int pg_sampling_open_tasks(struct pg_sampling *s, const pid_t *tids, size_t ntids,
                           const struct pg_sampling_cfg *cfg);

/**
 * Add task @tid (a thread found after pg_sampling_open_tasks()) to an open
 * session, one event per CPU redirected into that CPU's buffer.
 * Errors: PG_ENOTFOUND (it exited: ESRCH), PG_EPERM, PG_EIO.
 */
int pg_sampling_add_task(struct pg_sampling *s, pid_t tid);

/** Unmap and close everything; safe on a zeroed or closed session. */
void pg_sampling_close(struct pg_sampling *s);

/** Drain every CPU's buffer into @log (records timestamped for sorting). */
size_t pg_sampling_drain(struct pg_sampling *s, struct pg_record_log *log);

#endif
