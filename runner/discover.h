/*
 * discover.h - which benchmarks `perfgate run` runs: found from the paths it
 * is given (a directory's perfgate.json or its executables, a manifest, a
 * program), then selected with --filter and --shard.
 */
#ifndef PG_RUNNER_DISCOVER_H
#define PG_RUNNER_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** One benchmark to run. */
struct pg_bench {
        char *name;         /* unique; the result and log file names */
        size_t argc;        /* >= 1 */
        char **argv;        /* as given (stored in the result's "command"); NULL-terminated */
        char *exec_path;    /* argv[0] made absolute when it has a '/', else as given */
        char *cwd;          /* NULL: perfgate's cwd */
        char *manifest_dir; /* absolute directory of the perfgate.json naming it, or NULL */
        char **env;         /* NULL or NULL-terminated "KEY=VALUE" (later entries win) */
        int64_t repeat;     /* -1: unset */
        int64_t warmup;     /* -1: unset */
        double timeout_sec; /* < 0: unset; 0: none */
        bool roi;           /* counting starts disabled (perfgate.json "roi") */
        bool off_cpu;       /* record an off-CPU profile (perfgate.json "off_cpu") */
        bool sched;         /* record scheduler latency (perfgate.json "sched") */
        /* CPUs compare --confirm pins it to (perfgate.json "confirm_cpus");
         * 0: as many as its stored runs kept busy */
        size_t confirm_cpus;
};

struct pg_bench_list {
        size_t n;
        struct pg_bench *items;
};

/** Free everything @l owns and make it empty. */
void pg_bench_list_release(struct pg_bench_list *l);

/**
 * Discover the benchmarks named by @paths (@npaths >= 1) into @out (empty on
 * entry): a directory's perfgate.json if it has one, else every executable
 * regular file directly in it (not dot-files), sorted by name; a file whose
 * name ends in ".json" is a manifest in the perfgate.json format; any other
 * file must be executable and is one benchmark named after it. Every
 * program is checked now: a path with '/' must be an executable file, a bare
 * name must be found in PATH.
 * Errors (nothing is run): PG_ENOTFOUND "benchmark path 'p' does not exist"
 * or program not found; PG_EINPUT for a file that is not executable, a
 * directory without benchmarks, an invalid perfgate.json (line and column),
 * or two benchmarks with the same name.
 */
int pg_run_discover(struct pg_bench_list *out, const char *const *paths, size_t npaths);

/**
 * Keep the benchmarks whose name matches POSIX extended regex @filter (NULL:
 * all), then those of shard @shard_index of @shard_count (1-based; position
 * in the filtered list modulo the count; 0/0 for no sharding), in place.
 * Errors: PG_EINPUT for an invalid regex (regerror text) or shard numbers.
 */
int pg_bench_list_select(struct pg_bench_list *l, const char *filter, unsigned shard_index,
                         unsigned shard_count);

#endif
