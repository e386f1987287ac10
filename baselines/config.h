/*
 * config.h - perfgate.json, the per-project configuration (comments allowed),
 * loaded in one place for every command:
 *
 *   {
 *     "base":       "main",
 *     "build":      "make -C bench",
 *     "defaults":   {"repeat": 5, "warmup": 1, "timeout": 60, "cwd": ".", "env": {}},
 *     "benchmarks": [{"name": "parse", "argv": ["./parse", "300000"],
 *                     "cwd": ".", "env": {"K": "V"}, "repeat": 7, "warmup": 1,
 *                     "timeout": 30, "roi": false}],
 *     "compare":    {...}
 *   }
 *
 * One rule for keys, whichever command reads the file (docs/run.md): an
 * unknown key is refused at every level, top level included, naming the key,
 * where it is and the keys that exist (a misspelt key would otherwise
 * silently keep a default). A "compare" inside a benchmark is refused with
 * where its rules go (compare.benchmarks.NAME). Each command takes its
 * section: `run` the benchmarks and defaults, `compare` "base" and the
 * "compare" object (a borrowed cJSON tree; its own keys are checked by
 * compare/rules.h).
 *
 * A benchmark's unset fields come from "defaults", then from the command
 * line's defaults. Paths: argv[0] with a '/' that is relative, and every
 * relative cwd, are taken relative to the directory of the config file (so
 * `perfgate run bench/` works from the repository root).
 *
 * Ownership: a struct pg_config owns its strings and the parsed cJSON tree;
 * pg_config_release() frees everything.
 */
#ifndef PG_BASELINES_CONFIG_H
#define PG_BASELINES_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* The shortest timeout (seconds) a benchmark or --timeout may set; a
 * shorter non-zero one would round to none. */
#define PG_TIMEOUT_MIN_SEC 0.001

/* The most CPUs compare --confirm pins a benchmark to (its "confirm_cpus",
 * --confirm-cpus): CPU_SETSIZE of glibc's fixed-size cpu_set_t. */
#define PG_CONFIRM_CPUS_MAX 4096

struct pg_config_bench {
        char *name;         /* unique, pg_result_name_valid() */
        size_t argc;        /* >= 1 */
        char **argv;        /* argc strings + NULL; argv[0] resolved as above */
        char *cwd;          /* NULL: perfgate's own cwd; else resolved as above */
        size_t nenv;        /* number of env entries */
        char **env;         /* nenv "KEY=VALUE" strings + NULL */
        int64_t repeat;     /* -1: unset */
        int64_t warmup;     /* -1: unset */
        double timeout_sec; /* < 0: unset; 0: no timeout; else >= PG_TIMEOUT_MIN_SEC */
        int roi;            /* "roi": -1 unset, 0 false, 1 true (runner/control.h) */
        int off_cpu;        /* "off_cpu": -1 unset, 0 false, 1 true (runner/offcpu.h) */
        int sched;          /* "sched": -1 unset, 0 false, 1 true (runner/sched.h) */
        /* "confirm_cpus": 0 unset, else 1 to PG_CONFIRM_CPUS_MAX */
        int64_t confirm_cpus;
};

struct pg_config {
        char *path; /* the file as given */
        char *dir;  /* its directory ("." for a bare file name) */
        size_t nbench;
        struct pg_config_bench *bench;
        struct pg_config_bench defaults; /* name/argv unused */
        const char *base;                /* "base": the default baseline, or NULL (borrowed) */
        const char *build;               /* "build": the shell command that builds the
                                            benchmarks at the top of a checkout, or NULL
                                            (borrowed; compare --confirm) */
        const cJSON *compare;            /* the "compare" object, or NULL (borrowed) */
        cJSON *root;                     /* the whole parsed file (owned) */
};

/** What a command needs from the file (pg_config_load_for()). */
enum pg_config_need {
        PG_CONFIG_NEED_SETTINGS = 0,  /* nothing is required (compare) */
        PG_CONFIG_NEED_BENCHMARKS = 1 /* "benchmarks" must be present (run) */
};

/** Make @c empty. */
void pg_config_init(struct pg_config *c);

/** Free everything @c owns and make it empty. */
void pg_config_release(struct pg_config *c);

/**
 * Load the config at @path into @c (initialised; left empty on error),
 * requiring what @need says.
 * Errors: PG_ENOTFOUND / PG_EIO reading it; PG_EINPUT for invalid JSON
 * ("'<path>': invalid JSON at line L, column C (byte B)") and for fields of
 * the wrong shape, named by their JSON path ("'perfgate.json': benchmarks[1]
 * .argv must be a non-empty array of strings"), duplicate or invalid names,
 * unknown keys, and a missing "benchmarks" when @need asks for it.
 */
int pg_config_load_for(struct pg_config *c, const char *path, enum pg_config_need need);

/** pg_config_load_for() on @len bytes of @text, as if read from @path. */
int pg_config_parse_for(struct pg_config *c, const char *text, size_t len, const char *path,
                        enum pg_config_need need);

/** pg_config_load_for(@c, @path, PG_CONFIG_NEED_BENCHMARKS). */
int pg_config_load(struct pg_config *c, const char *path);

/** pg_config_parse_for(..., PG_CONFIG_NEED_BENCHMARKS). */
int pg_config_parse(struct pg_config *c, const char *text, size_t len, const char *path);

/** The top-level "compare" object, or NULL (borrowed from @c). */
const cJSON *pg_config_compare(const struct pg_config *c);

/** The benchmark called @name, or NULL (borrowed). */
const struct pg_config_bench *pg_config_find(const struct pg_config *c, const char *name);

#endif
