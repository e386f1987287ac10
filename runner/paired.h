/*
 * paired.h - interleaved paired runs of two builds of one benchmark ("base"
 * and "head") on the same CPU, in randomized ABBA blocks: each block runs
 * either base, head, head, base or head, base, base, head (a fair coin), and
 * yields two pairs of adjacent runs. Adjacent runs share the machine's
 * state at that moment (other tenants, frequency, the vCPU's host core), so
 * their ratio is free of most of the drift that separates batches taken
 * minutes apart; the random order keeps a periodic disturbance from
 * favouring one side. Method: Abedi & Brecht, "Conducting repeatable
 * experiments in highly variable cloud computing environments", ICPE 2017
 * (randomized multiple interleaved trials); Laaber et al., "Software
 * microbenchmarking in the cloud. How bad is it really?", EMSE 2019
 * (same-instance, randomized order).
 *
 * CPU: both sides are pinned to the same CPU set (sched_setaffinity) when
 * the process may do so (pg_paired_pick_cpus): the caller picks as many
 * CPUs as the benchmark keeps busy, so that a runtime sizing its threads
 * to the affinity mask (Go's GOMAXPROCS, OpenMP) runs as it did unpinned;
 * otherwise each run's CPU is read from /proc/PID/stat (field 39,
 * "processor") while it runs, the most seen one is the run's CPU, and a
 * pair whose runs were on different CPUs is discarded (counted in
 * ndiscarded).
 *
 * What a pair holds: the task-clock of each run (ns, perf_event software
 * counter, runner/counting.h), or with pg_paired_profile_block() the
 * sampled profile of each run (runner/sample.h), for per-run shares.
 *
 * The library never prints. Ownership: struct pg_paired owns its pairs;
 * the benchmarks in its options are borrowed and must outlive it.
 */
#ifndef PG_RUNNER_PAIRED_H
#define PG_RUNNER_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "runner/events.h"
#include "runner/run.h"
#include "runner/sample.h"

/** One pair of adjacent runs. */
struct pg_pair {
        double base_ns, head_ns; /* task-clock of each run, ns (> 0) */
        int cpu;                 /* the CPU both ran on (pinned: the set's first); -1 unknown */
        bool head_first;         /* head ran first in this pair */
};

struct pg_paired_opts {
        const struct pg_bench *base, *head;             /* the two builds (borrowed) */
        const struct pg_bench_log *base_log, *head_log; /* open logs (run.h); NULL:
                                                           /dev/null */
        const int *cpus;     /* ncpus CPUs to pin both sides to (borrowed) */
        size_t ncpus;        /* 0: do not pin, record each run's CPU */
        uint64_t timeout_ns; /* per run; 0: none */
        uint64_t seed;       /* of the block order; any value */
        /* sampled blocks (pg_paired_profile_block) */
        uint64_t freq_hz;              /* 0: 999 */
        enum pg_call_graph call_graph; /* fp or dwarf */
        bool exclude_kernel;
};

struct pg_paired {
        struct pg_paired_opts o;
        uint64_t rng;
        struct pg_event_list events; /* task-clock */
        bool warmed;
        size_t n, cap;
        struct pg_pair *pairs;             /* n pairs, in the order they were run */
        size_t ndiscarded;                 /* pairs dropped: their runs were on different CPUs */
        uint64_t elapsed_ns;               /* wall time spent in blocks */
        struct pg_sample_session *session; /* of the sampled runs; NULL until the first */
};

/**
 * The CPUs this process may pin benchmarks to: the last @want (at least 1)
 * CPUs of its allowed set (CPU 0 takes most device interrupts on small
 * VMs), all of them when the set is smaller. Fills @cpus (room for @want
 * entries) in ascending order and *@n with their count, and returns
 * 0; returns -1 with *@n = 0 when sched_setaffinity(2) is refused (a
 * container's cpuset, a seccomp filter).
 */
int pg_paired_pick_cpus(size_t want, int *cpus, size_t *n);

/** Prepare @p (no run yet). @o is copied; its pointers are borrowed. */
void pg_paired_init(struct pg_paired *p, const struct pg_paired_opts *o);

/** Free what @p owns. */
void pg_paired_release(struct pg_paired *p);

/**
 * Run one randomized ABBA block of counted runs (the first call runs each
 * side once more before it, unmeasured, as a warmup) and append its two
 * pairs to p->pairs (fewer when a pair is discarded for its CPUs).
 * Errors: PG_EMEASURE when a run fails (exits non-zero, crashes, times
 * out; message names the side, "base" or "head", and has the log tail),
 * PG_ENOTFOUND when a program is missing, PG_EPERM when counters cannot be
 * opened, PG_EINTR on SIGINT/SIGTERM, PG_EIO.
 */
int pg_paired_block(struct pg_paired *p);

/**
 * Run one randomized ABBA block of sampled runs (one sampling run each):
 * @base and @head get the profiles of the block's two pairs, in pair order
 * (initialised here; release each with pg_profile_release(), baselines/result.h); @warnings
 * gets the sampler's warning lines. Pinned like counted runs; CPUs are not
 * recorded for sampled runs. Every sampled run of @p shares one sampling
 * session (runner/sample.h): its symbolizer loads each file, its debuginfo
 * and kallsyms once, and each run still gets a profile of its own.
 * Errors: as pg_paired_block(), and those of pg_sample_profile().
 */
int pg_paired_profile_block(struct pg_paired *p, struct pg_profile base[2],
                            struct pg_profile head[2], struct pg_buf *warnings);

#endif
