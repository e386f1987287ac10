/*
 * config.h - perfgate.json, the per-project configuration (comments allowed):
 *
 *   {
 *     "defaults":   {"repeat": 5, "warmup": 1, "timeout": 60, "cwd": ".", "env": {}},
 *     "benchmarks": [{"name": "parse", "argv": ["./parse", "300000"],
 *                     "cwd": ".", "env": {"K": "V"}, "repeat": 7, "warmup": 1,
 *                     "timeout": 30, "compare": {...}}],
 *     "compare":    {...}
 *   }
 *
 * Only "benchmarks" is required. A benchmark's unset fields come from
 * "defaults", then from the command line's defaults. Paths: argv[0] with a
 * '/' that is relative, and every relative cwd, are taken relative to the
 * directory of the config file (so `perfgate run bench/` works from the
 * repository root). Unknown keys in a benchmark or in "defaults" are refused
 * (they are usually typos); other top-level keys are kept for other
 * commands, and "compare" objects are handed out as borrowed cJSON trees.
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

struct pg_config_bench {
        char *name;           /* unique, pg_result_name_valid() */
        size_t argc;          /* >= 1 */
        char **argv;          /* argc strings + NULL; argv[0] resolved as above */
        char *cwd;            /* NULL: perfgate's own cwd; else resolved as above */
        size_t nenv;          /* number of env entries */
        char **env;           /* nenv "KEY=VALUE" strings + NULL */
        int64_t repeat;       /* -1: unset */
        int64_t warmup;       /* -1: unset */
        double timeout_sec;   /* < 0: unset; 0: no timeout */
        const cJSON *compare; /* borrowed from the config's tree, or NULL */
};

struct pg_config {
        char *path; /* the file as given */
        char *dir;  /* its directory ("." for a bare file name) */
        size_t nbench;
        struct pg_config_bench *bench;
        struct pg_config_bench defaults; /* name/argv unused */
        cJSON *root;                     /* the whole parsed file (owned) */
};

/** Make @c empty. */
void pg_config_init(struct pg_config *c);

/** Free everything @c owns and make it empty. */
void pg_config_release(struct pg_config *c);

/**
 * Load the config at @path into @c (initialised; left empty on error).
 * Errors: PG_ENOTFOUND / PG_EIO reading it; PG_EINPUT for invalid JSON
 * ("'<path>': invalid JSON at line L, column C (byte B)") and for fields of
 * the wrong shape, named by their JSON path ("'perfgate.json': benchmarks[1]
 * .argv must be a non-empty array of strings"), duplicate or invalid names,
 * and unknown keys.
 */
int pg_config_load(struct pg_config *c, const char *path);

/** pg_config_load() on @len bytes of @text, as if read from @path. */
int pg_config_parse(struct pg_config *c, const char *text, size_t len, const char *path);

/** The top-level "compare" object, or NULL (borrowed from @c). */
const cJSON *pg_config_compare(const struct pg_config *c);

/** The benchmark called @name, or NULL (borrowed). */
const struct pg_config_bench *pg_config_find(const struct pg_config *c, const char *name);

#endif
