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
        bool roi;              /* sampling starts disabled; the benchmark switches it with
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

#endif
