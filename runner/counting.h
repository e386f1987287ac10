/*
 * counting.h - counting events of one benchmark run with perf_event_open(2):
 * open the groups of an event selection on a prepared (not yet exec'd)
 * child, read them after it is reaped, and turn each reading into a state
 * (counted, scaled with coverage, not supported, not counted, kernel-only).
 *
 * Attributes (perf_event_open(2), as `perf stat`
 * asks for a workload): pid = child, cpu = -1, inherit = 1 on every event so
 * threads and child processes count; leaders disabled = 1 and
 * enable_on_exec = 1 so counting starts exactly at exec; members follow
 * their leader; read_format = GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING | ID; flags = PERF_FLAG_FD_CLOEXEC. Values are matched
 * to events by ID, never by position.
 *
 * Fallbacks, each recorded in the set: EACCES/EPERM with kernel counting ->
 * reopen everything with exclude_kernel = 1, exclude_hv = 1 (perf's
 * evsel__fallback); EINVAL on an inherited GROUP leader that opens without
 * GROUP -> a pre-4.13 kernel, reopen everything without GROUP and read each
 * fd alone (perf's missing_features.group_read); a member that cannot join
 * its group is retried as its own group; any event that cannot be opened
 * (ENOENT, EOPNOTSUPP, ENODEV, ENXIO, EINVAL, ENOSYS, EBUSY) is marked
 * not-supported and never sinks its group.
 *
 * Invariant: nothing that was not counted carries a value; callers store
 * only readings in state PG_COUNT_OK.
 */
#ifndef PG_RUNNER_COUNTING_H
#define PG_RUNNER_COUNTING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/events.h"

/** Coverage (time_running / time_enabled) below which a warning is emitted. */
#define PG_COVERAGE_LOW 0.5

enum pg_count_state {
        PG_COUNT_OK = 0,        /* counted (value scaled when coverage < 1) */
        PG_COUNT_NOT_SUPPORTED, /* perf_event_open refused the event */
        PG_COUNT_NOT_COUNTED,   /* opened, but time_running == 0 (or a PMU that reads 0) */
        PG_COUNT_KERNEL_ONLY    /* counts only in the kernel and the kernel was excluded */
};

/** One event's outcome in one run. */
struct pg_count_reading {
        enum pg_count_state state;
        int open_errno;      /* errno of the failed open (NOT_SUPPORTED), else 0 */
        uint64_t raw;        /* value as read */
        uint64_t enabled_ns; /* time_enabled */
        uint64_t running_ns; /* time_running */
        double value;        /* raw * enabled / running (perf's scaling), when OK */
        double coverage;     /* running / enabled in (0, 1], when OK */
};

/** One event of an open counter set. */
struct pg_count {
        const struct pg_event_def *def;
        int fd;      /* -1 when not open */
        int leader;  /* index of its group leader (itself for a leader); -1 if not opened */
        uint64_t id; /* PERF_EVENT_IOC_ID */
        struct pg_count_reading r;
};

/**
 * How an event is opened; the default calls the perf_event_open syscall.
 * Returns an fd, or -errno. Tests install a recorder here to write the
 * attributes the runner asks for (as the kernel's tools/perf/tests/attr
 * does) or to make the kernel's answers those of other hosts.
 */
typedef int (*pg_perf_open_fn)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                               int group_fd, unsigned long flags);

struct pg_counter_opts {
        bool exclude_kernel;     /* start with exclude_kernel = exclude_hv = 1 */
        bool no_group_read;      /* start without PERF_FORMAT_GROUP */
        bool start_disabled;     /* leaders without enable_on_exec: counting starts at
                                    the first PERF_EVENT_IOC_ENABLE (runner/control.h) */
        bool no_pmu;             /* the host lists no core PMU (pg_host.npmu == 0): once a
                                    hardware event fails with ENOENT, the later hardware
                                    and cache events get the same ENOENT unasked */
        pg_perf_open_fn open_fn; /* NULL: the real syscall */
        void *open_ctx;
};

struct pg_counter_set {
        size_t n;
        struct pg_count c[PG_EVENTS_MAX];
        bool exclude_kernel;  /* events are open with exclude_kernel = exclude_hv = 1 */
        bool fell_back_user;  /* exclude_kernel was forced by EACCES/EPERM */
        bool group_read;      /* PERF_FORMAT_GROUP is in use */
        bool fell_back_group; /* GROUP was dropped after EINVAL */
        bool start_disabled;  /* leaders open without enable_on_exec */
        bool no_pmu;          /* see pg_counter_opts */
        pg_perf_open_fn open_fn;
        void *open_ctx;
};

/** Prepare @s (nothing opened) for the events of @l; @o may be NULL. */
void pg_counter_set_init(struct pg_counter_set *s, const struct pg_event_list *l,
                         const struct pg_counter_opts *o);

/**
 * Open every event of @s on process @pid (a child blocked before exec),
 * with the fallbacks described at the top of this file.
 * Errors: PG_EPERM when no event could be opened for lack of permission
 * (message gives perf_event_paranoid and the fix); PG_EMEASURE when @pid is
 * gone (ESRCH); PG_EIO for other failures (EMFILE, E2BIG, ...), naming the
 * event and strerror. On error nothing is left open.
 */
int pg_counter_set_open(struct pg_counter_set *s, pid_t pid);

/**
 * Read every open event (after the child is reaped and its process group is
 * gone) and classify each with pg_count_classify().
 * Errors: PG_EIO when a read fails or returns a malformed buffer.
 */
int pg_counter_set_read(struct pg_counter_set *s);

/** Close every fd of @s (safe to call twice). */
void pg_counter_set_close(struct pg_counter_set *s);

/**
 * The descriptors of the open group leaders of @s (what PERF_EVENT_IOC_ENABLE
 * and _DISABLE switch, members following), into @out (room for s->n).
 * Returns how many.
 */
size_t pg_counter_set_leader_fds(const struct pg_counter_set *s, int *out);

/** Whether any event of @s is open. */
bool pg_counter_set_any_open(const struct pg_counter_set *s);

/**
 * Decode a PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID
 * read buffer: `u64 nr, time_enabled, time_running, nr x {u64 value, id}`
 * (include/uapi/linux/perf_event.h, "read_format"). For each of the @n ids
 * in @ids, @out[i] gets raw/enabled/running; an id missing from the buffer
 * gets running 0 (so it classifies as not counted). Pure: no I/O.
 * @nwords: number of u64 in @buf.
 * Errors: PG_EINPUT when @nwords is too short for nr (message says so).
 */
int pg_counter_decode_group(const uint64_t *buf, size_t nwords, const uint64_t *ids, size_t n,
                            struct pg_count_reading *out);

/**
 * Set @r->state, value and coverage from raw/enabled/running (perf's rules,
 * tools/perf/util/stat.c and stat-display.c): open failed -> NOT_SUPPORTED;
 * a kernel-only event (@d->kernel_only) under @exclude_kernel -> KERNEL_ONLY;
 * running == 0 -> NOT_COUNTED; cycles or instructions reading 0 -> NOT_COUNTED
 * (a hypervisor PMU that counts nothing); else value = raw * enabled /
 * running and coverage = running / enabled.
 */
void pg_count_classify(struct pg_count_reading *r, const struct pg_event_def *d,
                       bool exclude_kernel);

/**
 * Add one metric per event of @l to @res from @nreps runs of readings
 * (@readings is nreps x l->n, row-major, one row per repetition). A metric is
 * OK only when every repetition counted it; coverage is stored when any
 * repetition ran below 1; otherwise the first non-OK state is stored with a
 * reason and no values. Appends one line per low-coverage metric
 * (< PG_COVERAGE_LOW) to @warnings (may be NULL).
 */
void pg_counter_metrics_add(struct pg_result *res, const struct pg_event_list *l,
                            const struct pg_count_reading *readings, size_t nreps,
                            struct pg_buf *warnings);

#endif
