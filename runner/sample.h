/*
 * sample.h - sampled call graphs of a benchmark, folded (issue "Sampled call
 * graphs"): one sampling event per online CPU with inherit, the mmap ring
 * buffers drained while the benchmark runs, records ordered by time, the
 * address space modelled from MMAP2/COMM/FORK/EXIT records, frames symbolized
 * with libdwfl and folded with runner/fold.h.
 */
#ifndef PG_RUNNER_SAMPLE_H
#define PG_RUNNER_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "common/buf.h"

enum pg_call_graph { PG_CALL_GRAPH_FP = 0, PG_CALL_GRAPH_DWARF };

struct pg_symbolize_top;

struct pg_sample_opts {
        char *const *argv; /* the benchmark command */
        const char *cwd;   /* NULL: inherit */
        char *const *env;  /* NULL or "KEY=VALUE" list added to the environment */
        int log_fd;        /* the benchmark's log (launch.h); <= 2: /dev/null */
        const int *cpus;   /* NULL or ncpus CPUs to pin to */
        size_t ncpus;
        uint64_t timeout_ns; /* per sampling run; 0 = none */
        uint64_t freq_hz;    /* sampling frequency, default 999 */
        enum pg_call_graph call_graph;
        uint64_t min_samples;  /* repeat sampling runs until this many samples (2000) */
        uint64_t budget_ns;    /* ...or until this much wall time was spent (0 = one run) */
        uint64_t max_runs;     /* hard cap on sampling runs (0 = no cap beyond budget) */
        bool exclude_kernel;   /* open with exclude_kernel=1, exclude_hv=1 */
        bool use_cycles;       /* a PMU exists: sample "cycles", else "cpu-clock" */
        const char *debug_dir; /* extra debuginfo root searched by build-id, or NULL */
        bool off_cpu;          /* an off-CPU profile instead (runner/offcpu.h): context-switches
                         sampled at period 1, stacks weighted by ns blocked; the
                         profile's "samples" is then their sum in ns; needs kernel
                         sampling (PG_EPERM otherwise) */
        /* called after each sampling run with the hottest functions so far
         * (NULL: none); on the calling thread. pg_sched_record() calls it
         * after each run too, with @top NULL */
        void (*progress)(void *ctx, uint64_t runs, const struct pg_symbolize_top *top);
        void *progress_ctx;
        bool roi; /* sampling starts disabled; the benchmark switches it with
                                  the control protocol (runner/control.h), which every
                                  run speaks */
};

/**
 * Run the benchmark under sampling (repeating as @o asks) and fill @out with
 * the folded profile (out->present = true, stacks merged over runs).
 * @warnings: human-readable lines (one per problem kind: lost samples,
 *            truncated stacks, no samples, unresolved frames) appended for
 *            the CLI to print; the library itself never prints.
 * A run with 0 samples is not an error: out->samples == 0 and a warning.
 * Errors: PG_EMEASURE (benchmark failed, crashed or timed out during
 * sampling; message has pg_describe_status()), PG_EPERM / PG_ENOTSUP
 * (sampling events cannot be opened; message says why and what to do),
 * PG_EINTR (interrupted), PG_EIO.
 */
int pg_sample_profile(const struct pg_sample_opts *o, struct pg_profile *out,
                      struct pg_buf *warnings);

/**
 * A sampling session: one symbolizer shared by the profiles taken with it,
 * so that the ELF/DWARF files, CFI, resolved frames and kallsyms are loaded
 * once (decompressing libc's debuginfo and reading /proc/kallsyms cost
 * about 0.15 s of CPU per symbolizer), while each call of
 * pg_sample_session_profile() still yields a profile of its own runs only.
 * Not thread-safe: one caller at a time. The programs must not be rebuilt
 * during a session: a file is opened once, and a replaced file's mappings
 * no longer match its build-id, so their frames are left unresolved.
 */
struct pg_sample_session;

/**
 * Start a session for profiles taken with @o's call_graph, off_cpu and
 * debug_dir (the string is borrowed and must outlive the session); the
 * other fields of @o are not used here. Free with pg_sample_session_free().
 * Errors: those of pg_symbolizer_new() (runner/symbolize.h).
 */
int pg_sample_session_new(struct pg_sample_session **out, const struct pg_sample_opts *o);

/** Free @ss (NULL is fine). */
void pg_sample_session_free(struct pg_sample_session *ss);

/**
 * pg_sample_profile() within session @ss: @out holds the samples of this
 * call's runs alone (the stacks of earlier calls are dropped first). @o may
 * name another command (base and head of a benchmark), but its call_graph,
 * off_cpu and debug_dir must be the session's (PG_EINPUT otherwise). A
 * kernel's earlier refusal (kernel frames, the cycles event) and the
 * buffer size of the last run carry over to the next call.
 * Errors: as pg_sample_profile().
 */
int pg_sample_session_profile(struct pg_sample_session *ss, const struct pg_sample_opts *o,
                              struct pg_profile *out, struct pg_buf *warnings);

/**
 * Check @freq_hz against kernel.perf_event_max_sample_rate, which the kernel
 * enforces with EINVAL (perf_event_open(2); kernel/events/core.c), before
 * anything runs. Errors: PG_EINPUT naming the sysctl, its value and the fix.
 */
int pg_sample_check_freq(uint64_t freq_hz);

struct pg_symbolizer;
struct pg_symbolize_stats;
struct pg_sampling_cfg;
struct pg_sampling;
struct pg_record_log;
struct pg_exit;

/** What pg_sample_drain() works on; @scanned starts at 0. */
struct pg_control;

struct pg_sample_drain_ctx {
        struct pg_sampling *smp;
        struct pg_record_log *log;
        struct pg_symbolizer *sym;
        size_t scanned;         /* log refs already looked at for MMAP2 records */
        struct pg_control *ctl; /* NULL, or the run's control channel (runner/control.h) */
        int *ctl_slot;          /* its entry in the polled fds (-1 once at EOF) */
};

/**
 * Answer the benchmark's control commands (when ctx->ctl is set), drain every
 * buffer of ctx->smp into ctx->log and hand the ELF files of new executable
 * mappings to the symbolizer's prefetcher. A pg_launch_poll_cb (@ctx is a
 * struct pg_sample_drain_ctx); returns 0, or pg_control_poll()'s error.
 */
int pg_sample_drain(void *ctx);

/**
 * One sampling run of @o->argv: launch it (runner/launch.h), open @smp on it
 * with @cfg, release it and drain into @log until it exits (or
 * @o->timeout_ns, or SIGINT), then drain what is left. @smp stays open
 * (the caller reads what the events ended up with, then closes it).
 * @ex: how it ended. Errors: those of pg_launch_prepare/start/wait
 * (PG_EINTR when interrupted: @log holds what was drained) and
 * pg_sampling_open(). A non-zero exit is not an error here.
 */
int pg_sample_run_once(const struct pg_sample_opts *o, const struct pg_sampling_cfg *cfg,
                       struct pg_sampling *smp, struct pg_record_log *log,
                       struct pg_symbolizer *sym, struct pg_exit *ex);

/**
 * Whether a sampling run's exit is a failure of the benchmark: @rc from
 * pg_sample_run_once() (returned when < 0), then @ex: PG_EINTR when
 * interrupted, PG_EMEASURE (message set) when it timed out, was killed or
 * exited non-zero; 0 otherwise.
 */
int pg_sample_judge(const struct pg_sample_opts *o, int rc, const struct pg_exit *ex);

/**
 * Fill @out (present = true) from the stacks and counters @sym accumulated
 * over @runs runs sampled with @cfg; @cycles, @exclude_kernel: what the
 * events ended up with (struct pg_sampling). Replaces event and call_graph.
 */
void pg_sample_export(const struct pg_symbolizer *sym, const struct pg_sampling_cfg *cfg,
                      bool cycles, bool exclude_kernel, uint64_t runs, struct pg_profile *out);

/**
 * Append to @w the warning lines a profile @p calls for (no samples, lost
 * samples, throttling, chains truncated in 1% of the samples or more,
 * unresolved frames, missing frame pointers (naming the system library where
 * most broken chains stop, when there is one: st->stop_module), rejected
 * debuginfo, kernel frames refused), one line each.
 * @what names the sampled program in messages; @live: it was a running
 * process or the system (not a command run for the purpose); @exclude_kernel: user-only was
 * asked for; @fell_back_user: the kernel refused kernel frames. @w may be NULL.
 */
void pg_sample_warnings(const char *what, bool live, enum pg_call_graph call_graph,
                        bool exclude_kernel, const struct pg_profile *p,
                        const struct pg_symbolize_stats *st, bool fell_back_user, struct pg_buf *w);

#endif
