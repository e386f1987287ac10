/*
 * simulate.h - simulated counters (`perfgate run --counters simulated`): run
 * a benchmark once under valgrind's cachegrind with cache and branch
 * simulation, read the files it writes (runner/cachegrind.h) and turn them
 * into perf-named counts for the whole run and per function.
 *
 * Why once: the simulation is deterministic (the same binary on the same
 * input gives the same counts, measured: two runs of bench/wordfreq agree to
 * the last event), so repetitions add only time. The result stores one value
 * per simulated metric (nvalues = 1) and compare judges them without a
 * significance test (compare/rules.h, "deterministic").
 *
 * Why a fixed cache geometry (PG_SIM_CACHE_ARGS): cachegrind otherwise copies
 * the host's caches (on a VM often nonsense, e.g. a 320 MiB direct-mapped L3),
 * and a baseline recorded on one runner could not be compared with a run on
 * another. The geometry is a typical x86-64 core's: 32 KiB 8-way L1i/L1d,
 * 8 MiB 16-way last level, 64-byte lines.
 *
 * Child processes are followed (--trace-children=yes) and each writes its own
 * file (%p); their counts are summed, functions merged by name.
 */
#ifndef PG_RUNNER_SIMULATE_H
#define PG_RUNNER_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "baselines/result.h"
#include "runner/cachegrind.h"

/* Functions below this share of every simulated counter go to "[other]". */
#define PG_SIM_DEFAULT_MIN_SHARE 0.005

/* valgrind is this much slower at most: the native timeout is scaled by it. */
#define PG_SIM_TIMEOUT_FACTOR 100

#define PG_SIM_CACHE_ARGS "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"

struct pg_sim_opts {
        const char *valgrind; /* path of the valgrind program (pg_sim_find_valgrind) */
        const char *name;     /* benchmark name, for messages */
        char *const *argv;    /* the benchmark's argv; argv[0] its program (absolute or in PATH) */
        const char *cwd;      /* NULL: inherit */
        char *const *env;     /* NULL or NULL-terminated "KEY=VALUE" */
        int log_fd;           /* the benchmark's log (its output and valgrind's are appended;
                                 launch.h); <= 2: /dev/null */
        const char *log_path; /* the log's name, for messages; NULL: none */
        const int *cpus;      /* NULL or ncpus CPUs to pin to */
        size_t ncpus;
        uint64_t timeout_ns;  /* 0: none */
        const char *work_dir; /* directory for cachegrind's files: created, emptied, removed */
        double min_share;     /* 0: PG_SIM_DEFAULT_MIN_SHARE */
};

struct pg_sim {
        double counts[PG_CG_NCOUNTERS]; /* summed over every process (runner/cachegrind.h) */
        size_t nprocs;                  /* cachegrind files read */
        struct pg_functions functions;  /* per function, folded below min_share */
};

/**
 * Find valgrind in $PATH into *@path (new string, the caller frees).
 * Errors: PG_ENOTSUP "valgrind ... not found" with the install command.
 */
int pg_sim_find_valgrind(char **path);

/**
 * Check that valgrind can write its temporary files: it creates them in
 * $TMPDIR, or /tmp when TMPDIR is unset or empty (valgrind's
 * coregrind/m_libcfile.c, VG_(tmpdir)), and stops before the benchmark
 * starts when it cannot ("Can't create client cmdline file"). A file is
 * created there with mkstemp(3) and removed at once.
 * Errors: PG_ENOTSUP naming TMPDIR, its value and why no file can be made
 * there, and what to do.
 */
int pg_sim_check_tmpdir(void);

/**
 * Run the benchmark of @o once under cachegrind and fill @out (zeroed here;
 * release with pg_sim_release()).
 * Errors: PG_EMEASURE naming the benchmark when it cannot run under valgrind
 * (killed by a signal, e.g. SIGILL for an instruction valgrind does not
 * know, with valgrind's own message; a non-zero exit; a timeout);
 * PG_EIO for a cachegrind file that is missing, malformed or truncated
 * (its parse error), or a work directory that cannot be made; PG_EINTR on
 * SIGINT/SIGTERM. On error @out is empty.
 */
int pg_simulate(const struct pg_sim_opts *o, struct pg_sim *out);

/** Free what @s owns. */
void pg_sim_release(struct pg_sim *s);

/**
 * Merge the parsed cachegrind files @cgs[@n] into @out (zeroed here): total
 * counts, and functions merged by name with those below @min_share of every
 * counter folded into PG_FUNCTIONS_OTHER. Each function keeps the source
 * file and hottest line of the process where that line had most Ir.
 */
void pg_sim_merge(const struct pg_cg *cgs, size_t n, double min_share, struct pg_sim *out);

/**
 * Add @s to @r: the PG_CG_NCOUNTERS metrics (unit "count", one value each),
 * the functions (moved: @s's are left empty), counters = "simulated", then
 * pg_result_derive() for the ratios.
 */
void pg_sim_store(struct pg_sim *s, struct pg_result *r);

#endif
