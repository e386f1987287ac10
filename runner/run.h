/*
 * run.h - `perfgate run` as a library: for each benchmark found and selected
 * by runner/discover.h, run warmup + measured repetitions
 * under counting groups (runner/counting.h), each launched with
 * runner/launch.h, optionally sample a profile (runner/sample.h), and write
 * <out>/<name>.json (the result model, atomically) with the benchmark's
 * stdout and stderr in <out>/<name>.log.
 *
 * Metrics per measured repetition: the counting events (the perf stat -d -d
 * set by default), duration_time (wall ns, release to exit), user-time and
 * system-time (ns, wait4 rusage), max-rss (bytes, ru_maxrss * 1024); then
 * pg_result_derive() adds the ratios.
 *
 * --counters simulated: the counting runs use software events only, and
 * after them (outside every timed run) one run under valgrind's cachegrind
 * (runner/simulate.h) adds the simulated counters (one value each: they are
 * deterministic), the per-function costs, and counters = "simulated".
 *
 * --off-cpu (or a benchmark's "off_cpu"): after the profile, sampling runs of
 * context switches (runner/offcpu.h) store where its threads blocked in
 * the result's "offcpu" profile. A host that refuses kernel sampling gets
 * one warning and no off-CPU profile.
 *
 * The library never prints: progress, warnings, failures and finished
 * benchmarks are reported through the caller's callback. A benchmark that
 * fails (exits non-zero, is killed by a signal, times out) gets no result
 * file (a stale one from an earlier run is removed) and the others still run.
 */
#ifndef PG_RUNNER_RUN_H
#define PG_RUNNER_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "runner/counting.h"
#include "runner/discover.h"
#include "runner/events.h"
#include "runner/launch.h"
#include "runner/sample.h"

#define PG_RUN_DEFAULT_REPEAT 5
#define PG_RUN_DEFAULT_WARMUP 1

enum pg_counters_mode {
        PG_COUNTERS_AUTO = 0, /* every selected event; hardware ones not-supported if no PMU */
        PG_COUNTERS_HARDWARE, /* like auto, but a run without any hardware counter fails */
        PG_COUNTERS_SOFTWARE, /* software events only */
        PG_COUNTERS_SIMULATED /* software events natively + one cachegrind run (simulate.h) */
};

enum pg_run_event_kind {
        PG_RUN_EV_START,    /* a repetition starts: index/total/name/warmup/rep/nreps/elapsed */
        PG_RUN_EV_WARNING,  /* message: one line, for the user */
        PG_RUN_EV_FAILED,   /* a benchmark failed; message says how (status, signal, log tail) */
        PG_RUN_EV_DONE,     /* a benchmark's result was written to path */
        PG_RUN_EV_SIMULATE, /* the simulated (valgrind) run of a benchmark starts: name/elapsed */
        PG_RUN_EV_SAMPLED,  /* a sampling run ended: name/rep (runs so far)/elapsed/top */
        PG_RUN_EV_RAN       /* an off-CPU or scheduler-latency run ended:
                               name/what/rep (runs so far)/nreps/elapsed */
};

struct pg_symbolize_top;

struct pg_run_event {
        enum pg_run_event_kind kind;
        size_t index;                       /* 1-based benchmark number */
        size_t total;                       /* benchmarks in this run */
        const char *name;                   /* benchmark name (NULL for run-wide warnings) */
        bool warmup;                        /* START: a warmup repetition */
        uint64_t rep;                       /* START: 1-based repetition within its phase */
        uint64_t nreps;                     /* START: repetitions in that phase */
        uint64_t elapsed_ns;                /* since the benchmark's first repetition started */
        const char *message;                /* WARNING, FAILED */
        const char *path;                   /* DONE: the result file */
        const struct pg_result *result;     /* DONE: the result written (borrowed) */
        const struct pg_symbolize_top *top; /* SAMPLED: the hottest functions so far */
        const char *what;                   /* RAN: "off-CPU" or "scheduler-latency" */
};

/** Progress callback; called on the running thread, must not longjmp. */
typedef void (*pg_run_report_fn)(void *ctx, const struct pg_run_event *ev);

/* --off-cpu: sampling runs of context switches per benchmark. */
#define PG_RUN_OFFCPU_RUNS 3

/* Sampling: runs repeat until this many samples (--min-samples) ... */
#define PG_RUN_MIN_SAMPLES 2000
/* ... or until this much wall time went into sampling one benchmark, */
#define PG_RUN_PROFILE_BUDGET_NS 20000000000ull
/* ... and never more than this many sampling runs. */
#define PG_RUN_PROFILE_MAX_RUNS 50

struct pg_run_opts {
        const char *out_dir;                /* created when missing */
        int64_t repeat;                     /* -1: benchmark's, config default's, else 5 */
        int64_t warmup;                     /* -1: benchmark's, config default's, else 1 */
        double timeout_sec;                 /* < 0: benchmark's, else none; 0: none */
        const struct pg_event_list *events; /* NULL: the default set */
        enum pg_counters_mode counters;
        bool no_profile;
        bool off_cpu;     /* also record an off-CPU profile (runner/offcpu.h) of every benchmark
                         (a benchmark's "off_cpu": true asks for its own) */
        bool sched;       /* also record scheduler latency (runner/sched.h) of every benchmark
                         (a benchmark's "sched": true asks for its own) */
        uint64_t freq_hz; /* sampling frequency (999) */
        enum pg_call_graph call_graph;
        uint64_t min_samples;  /* 0: PG_RUN_MIN_SAMPLES */
        const char *debug_dir; /* NULL, or a debuginfo root searched by build-id */
        const int *cpus;       /* NULL or ncpus CPUs to pin benchmarks to */
        size_t ncpus;
        const char *machine;     /* NULL: "default" */
        pg_run_report_fn report; /* may be NULL */
        void *report_ctx;
        pg_perf_open_fn open_fn; /* NULL: the real syscall (tests inject hosts) */
        void *open_ctx;
};

struct pg_run_summary {
        size_t total;  /* benchmarks attempted */
        size_t ok;     /* result files written */
        size_t failed; /* benchmarks that failed */
};

/**
 * Run every benchmark of @l as @o says and write their results.
 * Returns 0 when every benchmark produced a result; PG_EMEASURE when some
 * failed (message lists them; the others' results are written); PG_EINTR
 * when SIGINT/SIGTERM arrived (the running benchmark's process group is
 * stopped, finished results are kept); PG_EPERM when perf_event_open is
 * refused altogether; PG_ENOTSUP when --counters hardware finds no
 * hardware counter; PG_EINPUT when a profile is asked for at a frequency
 * above kernel.perf_event_max_sample_rate (before anything runs), or when
 * another run holds o->out_dir (pg_dir_lock(), before anything runs);
 * PG_ENOTSUP for --counters simulated without valgrind
 * in PATH (message has the install command); PG_EIO for output that cannot
 * be written or a cachegrind file that cannot be read (that benchmark gets
 * no result). A benchmark valgrind cannot run is a failed benchmark
 * (PG_EMEASURE, valgrind's message in the report).
 * @sum (may be NULL) gets the counts.
 */
int pg_run_benchmarks(const struct pg_bench_list *l, const struct pg_run_opts *o,
                      struct pg_run_summary *sum);

/**
 * Run @b once with the counters of @s (initialised, not open): prepare the
 * child, open @s on it, release it, wait (@timeout_ns, 0 = none), read @s
 * and close it. @log_fd: the benchmark's log (launch.h), <= 2 for /dev/null.
 * Errors: those of pg_launch_prepare/start/wait and pg_counter_set_open/read.
 * A benchmark that exits non-zero is not an error here: see @ex.
 */
int pg_run_count_once(const struct pg_bench *b, int log_fd, const int *cpus, size_t ncpus,
                      uint64_t timeout_ns, struct pg_counter_set *s, struct pg_exit *ex);

/* A benchmark's log: created once (never through a link), inherited by
 * every run of the benchmark; @path only names it in messages. */
struct pg_bench_log {
        const char *path;
        int fd; /* -1 until opened */
};

/**
 * Create @log->path afresh (an old file is removed first; O_EXCL and
 * O_NOFOLLOW, so never through a link) and keep it open in @log->fd (above
 * stderr, close-on-exec; the launcher dups it into the child).
 * Errors: PG_EIO with the path and strerror(errno).
 */
int pg_bench_log_open(struct pg_bench_log *log);

/**
 * The end of @log for a failure message: "last lines of '<path>':\n" and at
 * most its last 10 lines (2 KiB), sanitised UTF-8, read from log->fd; or
 * "(its log is empty)". Returns a new string (free() it).
 */
char *pg_log_tail(const struct pg_bench_log *log);

#endif
