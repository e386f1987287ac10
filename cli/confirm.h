/*
 * confirm.h - `perfgate compare --confirm` (cli/confirm.c): confirm the
 * suspects of a stored-baseline comparison by interleaved paired runs of
 * the baseline's commit, built in a temporary checkout, and the work tree.
 */
#ifndef PG_CLI_CONFIRM_H
#define PG_CLI_CONFIRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare/verdict.h"

struct pg_bench;

/** What pg_confirm_build_cb() runs: perfgate.json's "build" (runner/build.h). */
struct pg_build_ctx {
        const char *command;
        double timeout_sec;
        const char *log_path; /* NULL: /dev/null */
        const char *what;     /* names the build in messages */
        const char *announce; /* NULL, or a line for stderr when a build starts (not when
                                 the cache has it) */
};

/**
 * The pg_build_fn (baselines/worktree.h) of a checkout: runs @ctx (a
 * struct pg_build_ctx) in @dir with pg_build_run(). Errors: as pg_build_run().
 */
int pg_confirm_build_cb(void *ctx, const char *dir);

/**
 * The twin of benchmark @h in another checkout: the same command at the
 * same paths relative to @dir that @h has relative to @top (paths outside
 * @top stay as they are; a NULL cwd counts as @cwd). Shallow copy of @h
 * except out->exec_path and out->cwd, which are owned (free both).
 */
void pg_confirm_twin_bench(struct pg_bench *out, const struct pg_bench *h, const char *top,
                           const char *dir, const char *cwd);

/** Default --confirm-budget: seconds of paired runs per benchmark. */
#define PG_CONFIRM_DEFAULT_BUDGET_SEC 120.0

/** How much to spend per benchmark: pairs, or seconds (one of them set). */
struct pg_confirm_budget {
        size_t pairs;
        double seconds;
};

struct pg_confirm_cli {
        bool all;                  /* --confirm=all: every benchmark, not only suspects */
        const char *base_commit;   /* the commit whose baseline was used (40 hex) */
        const char *build_command; /* perfgate.json "build" */
        const char *config_path;   /* the perfgate.json holding the benchmarks */
        double build_timeout_sec;  /* --build-timeout */
        double floor;              /* user floor (fraction); 0: PG_CONFIRM_DEFAULT_FLOOR */
        struct pg_confirm_budget budget;
        uint64_t seed; /* 0: from the clock */
        size_t cpus;   /* --confirm-cpus: CPUs to pin each benchmark to; 0: as many as its
                          stored runs utilized (cpus-utilized, rounded up) */
        bool quiet;    /* -q: no progress on stderr (the base build's, calibrate's) */
};

/**
 * Parse --confirm-budget: "N" pairs (N >= 8), "Ns" seconds, "Nm" minutes.
 * Errors: PG_EINPUT with what is accepted.
 */
int pg_confirm_parse_budget(const char *s, struct pg_confirm_budget *b);

/**
 * Confirm the suspects of @cmp (or every benchmark with o->all), rewrite
 * their verdicts and attach a struct pg_bench_confirm to each. Prints
 * progress to stderr.
 * Errors (every benchmark in scope is then marked unconfirmed, its stored
 * verdict kept): PG_EMEASURE when the base build fails or times out
 * (message has the log tail), PG_ENOTFOUND for a commit not in the clone
 * (with the fetch command), PG_EIO (cache, full disk), PG_EINTR.
 * A benchmark that cannot be run is unconfirmed, not an error.
 */
int pg_confirm_run(struct pg_comparison *cmp, const struct pg_confirm_cli *o);

/** Pairs measured per benchmark by --calibrate unless --confirm-budget says. */
#define PG_CALIBRATE_DEFAULT_PAIRS 24

/**
 * `compare --calibrate`: for each result of @head, run o->budget.pairs
 * (default PG_CALIBRATE_DEFAULT_PAIRS) interleaved pairs of the build of
 * o->base_commit (HEAD) from the cache against the work tree's build of the
 * same code, store the paired A/A noise (1.4826 x MAD of the per-pair log
 * ratios) in the result and rewrite <@results_dir>/<name>.json atomically,
 * so that `perfgate baseline save` keeps it with the baseline. Prints one
 * line per benchmark on stdout, and unless o->quiet its progress on stderr
 * after each block of pairs ("benchmark I/N NAME, calibration pairs K/P,
 * elapsed S s"; redrawn in place with \r when stderr is a terminal, one
 * line each otherwise). Errors: those of pg_confirm_run(), PG_EMEASURE when a
 * benchmark fails, PG_EIO when a result cannot be written.
 */
int pg_confirm_calibrate(struct pg_result_set *head, const char *results_dir,
                         const struct pg_confirm_cli *o);

#endif
