/*
 * config.c - loading perfgate.json (see config.h).
 *
 * The keys are tables: pg_top_keys for the top level, pg_fields for what a
 * benchmark (and, where marked, "defaults") may set. A key is added by adding
 * its line to a table (and a field to the struct it fills); the unknown-key
 * check and the list of known keys in its message follow from the tables.
 *
 * Invariant: on success every benchmark has a valid unique name and a
 * non-empty NULL-terminated argv; on failure @c is left empty.
 */
#include "baselines/config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/hashmap.h"
#include "common/json.h"
#include "common/strv.h"

void pg_config_init(struct pg_config *c)
{
        memset(c, 0, sizeof(*c));
        c->defaults.repeat = c->defaults.warmup = -1;
        c->defaults.timeout_sec = -1;
        c->defaults.roi = -1;
        c->defaults.off_cpu = -1;
        c->defaults.sched = -1;
}

static void pg_bench_release(struct pg_config_bench *b)
{
        free(b->name);
        pg_strv_free(b->argv);
        free(b->cwd);
        pg_strv_free(b->env);
        memset(b, 0, sizeof(*b));
}

void pg_config_release(struct pg_config *c)
{
        for (size_t i = 0; i < c->nbench; i++)
                pg_bench_release(&c->bench[i]);
        free(c->bench);
        pg_bench_release(&c->defaults);
        free(c->path);
        free(c->dir);
        cJSON_Delete(c->root);
        pg_config_init(c);
}

/* A path relative to the config's directory, unless absolute. */
static char *pg_resolve(const struct pg_config *c, const char *p)
{
        if (p[0] == '/' || strcmp(c->dir, ".") == 0)
                return pg_xstrdup(p);
        while (p[0] == '.' && p[1] == '/') /* "bench/parse", not "bench/./parse" */
                p += 2;
        if (strcmp(p, ".") == 0 || !*p)
                return pg_xstrdup(c->dir);
        return pg_path_join(c->dir, p);
}

static int pg_bad(const struct pg_config *c, const char *where, const char *what)
{
        return pg_error_set(PG_EINPUT, "'%s': %s %s", c->path, where, what);
}

/* Like pg_bad(), for a field of @where: "benchmarks[2].argv must ...". */
static int pg_bad_field(const struct pg_config *c, const char *where, const char *field,
                        const char *what)
{
        return pg_error_set(PG_EINPUT, "'%s': %s.%s %s", c->path, where, field, what);
}

/* ---- the fields of a benchmark ------------------------------------------- */

/*
 * One field parser: @it is the key's value (NULL when absent, for the fields
 * marked PG_FIELD_ALWAYS), @where the object ("benchmarks[0]", "defaults"),
 * @key the key, @b the benchmark being filled. Returns 0 or PG_EINPUT.
 */
typedef int pg_field_fn(const struct pg_config *c, const cJSON *it, const char *where,
                        const char *key, struct pg_config_bench *b);

enum { PG_FIELD_BENCH = 1, PG_FIELD_DEFAULTS = 2, PG_FIELD_ALWAYS = 4 };

struct pg_field {
        const char *key;
        pg_field_fn *parse;
        unsigned flags; /* where the key may appear; ALWAYS: parsed when absent too */
};

/* The longest string execve(2) takes as one argument or environment entry,
 * its NUL included: MAX_ARG_STRLEN, 32 pages (include/uapi/linux/binfmts.h;
 * E2BIG beyond it), with the 4 KiB pages of x86-64 and most arm64 kernels. */
#define PG_MAX_ARG_STRLEN 131072u

/* PG_EINPUT when @s, the field @label ("benchmarks[0].argv[1]"), is longer
 * than execve(2) accepts. */
static int pg_arg_len_check(const struct pg_config *c, const char *label, const char *s)
{
        size_t n = strlen(s) + 1;

        if (n <= PG_MAX_ARG_STRLEN)
                return 0;
        return pg_error_set(PG_EINPUT,
                            "'%s': %s is %zu bytes; the kernel takes at most %u bytes per "
                            "argument or environment entry (MAX_ARG_STRLEN); pass it in a "
                            "file instead",
                            c->path, label, n - 1, PG_MAX_ARG_STRLEN - 1);
}

static int pg_field_argv(const struct pg_config *c, const cJSON *it, const char *where,
                         const char *key, struct pg_config_bench *b)
{
        const cJSON *a;
        size_t n = 0;

        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
                return pg_bad_field(c, where, key, "must be a non-empty array of strings");
        b->argv = pg_xcalloc((size_t) cJSON_GetArraySize(it) + 1, sizeof(char *));
        cJSON_ArrayForEach(a, it)
        {
                if (!cJSON_IsString(a) || (n == 0 && !*a->valuestring))
                        return pg_bad_field(c, where, key, "must be a non-empty array of strings");
                if (strlen(a->valuestring) + 1 > PG_MAX_ARG_STRLEN) {
                        char *label = pg_xasprintf("%s.%s[%zu]", where, key, n);
                        int error = pg_arg_len_check(c, label, a->valuestring);
                        free(label);
                        return error;
                }
                if (n == 0 && strchr(a->valuestring, '/'))
                        b->argv[n++] = pg_resolve(c, a->valuestring);
                else
                        b->argv[n++] = pg_xstrdup(a->valuestring);
        }
        b->argc = n;
        return 0;
}

/* "name", defaulting to argv[0]'s base name (so it follows "argv" in pg_fields). */
static int pg_field_name(const struct pg_config *c, const cJSON *it, const char *where,
                         const char *key, struct pg_config_bench *b)
{
        const char *name;

        if (it && !cJSON_IsString(it))
                return pg_bad_field(c, where, key, "must be a string");
        name = it ? it->valuestring : pg_basename(b->argv[0]);
        if (!pg_result_name_valid(name)) {
                /* its first 64 bytes, escaped: the name may hold ESC */
                struct pg_buf shown = PG_BUF_INIT;
                size_t len = strlen(name);
                char *w;
                int error;
                pg_show_escape(&shown, name, len < 64 ? len : 64, 0);
                w = pg_xasprintf("%s.%s '%s%s'", where, key, shown.ptr, len > 64 ? "..." : "");
                {
                        char *m = pg_xasprintf("is not a valid benchmark name: %s; it %s",
                                               PG_RESULT_NAME_RULE, pg_result_name_why(name));
                        error = pg_bad(c, w, m);
                        free(m);
                }
                free(w);
                pg_buf_release(&shown);
                return error;
        }
        b->name = pg_xstrdup(name);
        return 0;
}

static int pg_count(const struct pg_config *c, const cJSON *it, const char *where, const char *key,
                    int64_t *out)
{
        if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= 1e6 &&
            floor(it->valuedouble) == it->valuedouble) {
                *out = (int64_t) it->valuedouble;
                return 0;
        }
        return pg_bad_field(c, where, key, "must be a whole number from 0 to 1000000");
}

static int pg_field_repeat(const struct pg_config *c, const cJSON *it, const char *where,
                           const char *key, struct pg_config_bench *b)
{
        if (pg_count(c, it, where, key, &b->repeat) < 0 || b->repeat == 0)
                return pg_bad_field(c, where, key, "must be a whole number from 1 to 1000000");
        return 0;
}

static int pg_field_warmup(const struct pg_config *c, const cJSON *it, const char *where,
                           const char *key, struct pg_config_bench *b)
{
        return pg_count(c, it, where, key, &b->warmup);
}

static int pg_field_timeout(const struct pg_config *c, const cJSON *it, const char *where,
                            const char *key, struct pg_config_bench *b)
{
        /* below 1 ms a timeout would round to "none" (launch.h takes ns) */
        if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble > 1e7 ||
            (it->valuedouble > 0 && it->valuedouble < PG_TIMEOUT_MIN_SEC))
                return pg_bad_field(c, where, key,
                                    "must be 0 (none) or at least 0.001 seconds (at most 1e7)");
        b->timeout_sec = it->valuedouble;
        return 0;
}

/* A true/false field into @out (1/0); @what says what true does. */
static int pg_flag(const struct pg_config *c, const cJSON *it, const char *where, const char *key,
                   const char *what, int *out)
{
        if (!cJSON_IsBool(it)) {
                char *m = pg_xasprintf("must be true (%s) or false", what);
                int error = pg_bad_field(c, where, key, m);
                free(m);
                return error;
        }
        *out = cJSON_IsTrue(it) ? 1 : 0;
        return 0;
}

static int pg_field_roi(const struct pg_config *c, const cJSON *it, const char *where,
                        const char *key, struct pg_config_bench *b)
{
        return pg_flag(c, it, where, key, "counting starts at the benchmark's first 'enable'",
                       &b->roi);
}

static int pg_field_off_cpu(const struct pg_config *c, const cJSON *it, const char *where,
                            const char *key, struct pg_config_bench *b)
{
        return pg_flag(c, it, where, key, "record where threads block, as --off-cpu", &b->off_cpu);
}

static int pg_field_sched(const struct pg_config *c, const cJSON *it, const char *where,
                          const char *key, struct pg_config_bench *b)
{
        return pg_flag(c, it, where, key, "record scheduler latency, as --sched", &b->sched);
}

static int pg_field_confirm_cpus(const struct pg_config *c, const cJSON *it, const char *where,
                                 const char *key, struct pg_config_bench *b)
{
        if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1) ||
            it->valuedouble > PG_CONFIRM_CPUS_MAX || floor(it->valuedouble) != it->valuedouble)
                return pg_bad_field(c, where, key,
                                    "must be a whole number of CPUs from 1 to 4096 (the CPUs "
                                    "compare --confirm pins its paired runs to)");
        b->confirm_cpus = (int64_t) it->valuedouble;
        return 0;
}

static int pg_field_cwd(const struct pg_config *c, const cJSON *it, const char *where,
                        const char *key, struct pg_config_bench *b)
{
        if (!cJSON_IsString(it) || !*it->valuestring)
                return pg_bad_field(c, where, key, "must be a non-empty string");
        b->cwd = pg_resolve(c, it->valuestring);
        return 0;
}

static int pg_field_env(const struct pg_config *c, const cJSON *it, const char *where,
                        const char *key, struct pg_config_bench *b)
{
        const cJSON *kv;
        size_t n = 0;

        if (!cJSON_IsObject(it))
                return pg_bad_field(c, where, key, "must be an object of strings");
        b->env = pg_xcalloc((size_t) cJSON_GetArraySize(it) + 1, sizeof(char *));
        cJSON_ArrayForEach(kv, it)
        {
                if (!cJSON_IsString(kv) || !*kv->string || strchr(kv->string, '=')) {
                        char *w = pg_xasprintf("%s.%s.%s", where, key, kv->string);
                        int error = pg_bad(c, w,
                                           "must be a string, and its name non-empty without "
                                           "'='");
                        free(w);
                        return error;
                }
                b->env[n++] = pg_xasprintf("%s=%s", kv->string, kv->valuestring);
                b->nenv = n;
                if (strlen(b->env[n - 1]) + 1 > PG_MAX_ARG_STRLEN) {
                        char *label = pg_xasprintf("%s.%s.%s", where, key, kv->string);
                        int error = pg_arg_len_check(c, label, b->env[n - 1]);
                        free(label);
                        return error;
                }
        }
        return 0;
}

/* What a benchmark may set, in the order they are read; docs/run.md lists them. */
static const struct pg_field pg_fields[] = {
        { "argv", pg_field_argv, PG_FIELD_BENCH | PG_FIELD_ALWAYS },
        { "name", pg_field_name, PG_FIELD_BENCH | PG_FIELD_ALWAYS },
        { "cwd", pg_field_cwd, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "env", pg_field_env, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "repeat", pg_field_repeat, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "warmup", pg_field_warmup, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "timeout", pg_field_timeout, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "roi", pg_field_roi, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "off_cpu", pg_field_off_cpu, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "sched", pg_field_sched, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
        { "confirm_cpus", pg_field_confirm_cpus, PG_FIELD_BENCH | PG_FIELD_DEFAULTS },
};

#define PG_NFIELDS (sizeof(pg_fields) / sizeof(pg_fields[0]))

/* Fill @b from the object @o at @where with the fields marked @kind. */
static int pg_parse_fields(const struct pg_config *c, const cJSON *o, const char *where,
                           unsigned kind, struct pg_config_bench *b)
{
        const char *known[PG_NFIELDS + 1];
        size_t n = 0;
        int error;

        if (!cJSON_IsObject(o))
                return pg_bad(c, where, "must be an object");
        for (size_t i = 0; i < PG_NFIELDS; i++)
                if (pg_fields[i].flags & kind)
                        known[n++] = pg_fields[i].key;
        known[n] = NULL;
        if (kind == PG_FIELD_BENCH && cJSON_GetObjectItemCaseSensitive(o, "compare")) {
                const char *name = pg_json_get_string(o, "name");
                return pg_error_set(PG_EINPUT,
                                    "'%s': %s.compare is not read by 'perfgate compare'; move "
                                    "its rules to compare.benchmarks.%s (docs/compare.md)",
                                    c->path, where, name ? name : "NAME");
        }
        if ((error = pg_json_check_keys(o, known, c->path, where)) < 0)
                return error;
        for (size_t i = 0; i < PG_NFIELDS; i++) {
                const struct pg_field *f = &pg_fields[i];
                const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, f->key);

                if (!(f->flags & kind) || (!it && !(f->flags & PG_FIELD_ALWAYS)))
                        continue;
                if ((error = f->parse(c, it, where, f->key, b)) < 0)
                        return error;
        }
        return 0;
}

/* ---- the top level ---------------------------------------------------------- */

static int pg_top_base(struct pg_config *c, const cJSON *it)
{
        /* "" names nothing, and a leading '-' would read as an option in the
         * `git fetch origin BASE` perfgate suggests */
        if (!cJSON_IsString(it) || !*it->valuestring || it->valuestring[0] == '-')
                return pg_error_set(PG_EINPUT,
                                    "'%s': \"base\" must be a string (a git revision or a results "
                                    "path), not empty and not starting with '-'",
                                    c->path);
        c->base = it->valuestring;
        return 0;
}

static int pg_top_build(struct pg_config *c, const cJSON *it)
{
        if (!cJSON_IsString(it) || !*it->valuestring)
                return pg_error_set(PG_EINPUT,
                                    "'%s': \"build\" must be a string (a shell command run at "
                                    "the top of a checkout)",
                                    c->path);
        c->build = it->valuestring;
        return 0;
}

static int pg_top_defaults(struct pg_config *c, const cJSON *it)
{
        return pg_parse_fields(c, it, "defaults", PG_FIELD_DEFAULTS, &c->defaults);
}

static int pg_top_benchmarks(struct pg_config *c, const cJSON *it)
{
        struct pg_strmap names = PG_STRMAP_INIT;
        size_t i = 0, k;
        bool added;
        int error = 0;

        if (!cJSON_IsArray(it))
                return pg_bad(c, "benchmarks", "must be an array of benchmarks");
        c->bench = pg_xcalloc((size_t) cJSON_GetArraySize(it) + 1, sizeof(*c->bench));
        for (const cJSON *o = it->child; o; o = o->next, i++) {
                struct pg_config_bench *b = &c->bench[i];
                char *where = pg_xasprintf("benchmarks[%zu]", i);

                c->nbench = i + 1;
                b->repeat = b->warmup = -1;
                b->timeout_sec = -1;
                b->roi = -1;
                b->off_cpu = -1;
                b->sched = -1;
                error = pg_parse_fields(c, o, where, PG_FIELD_BENCH, b);
                free(where);
                if (error < 0)
                        break;
                /* names are interned in benchmark order, so a name's index in
                 * @names is the index of the benchmark that first had it */
                k = pg_strmap_intern(&names, b->name, strlen(b->name), &added);
                if (!added) {
                        error = pg_error_set(PG_EINPUT,
                                             "'%s': benchmarks[%zu] and benchmarks[%zu] "
                                             "are both named '%s'; names must be unique",
                                             c->path, k, i, b->name);
                        break;
                }
        }
        pg_strmap_release(&names);
        return error;
}

/* "compare" is compare's section: its shape here, its keys in compare/rules.c. */
static int pg_top_compare(struct pg_config *c, const cJSON *it)
{
        if (!cJSON_IsObject(it))
                return pg_bad(c, "compare", "must be an object");
        c->compare = it;
        return 0;
}

/* The top-level keys, in the order they are read (and listed in messages). */
static const struct {
        const char *key;
        int (*parse)(struct pg_config *c, const cJSON *it);
} pg_top_keys[] = {
        { "base", pg_top_base },         { "benchmarks", pg_top_benchmarks },
        { "build", pg_top_build },       { "compare", pg_top_compare },
        { "defaults", pg_top_defaults },
};

#define PG_NTOP (sizeof(pg_top_keys) / sizeof(pg_top_keys[0]))

int pg_config_parse_for(struct pg_config *c, const char *text, size_t len, const char *path,
                        enum pg_config_need need)
{
        const char *known[PG_NTOP + 1];
        const char *slash;
        int error;

        pg_config_init(c);
        c->path = pg_xstrdup(path);
        slash = strrchr(path, '/');
        c->dir =
            slash ? (slash == path ? pg_xstrdup("/") : pg_xstrndup(path, (size_t) (slash - path)))
                  : pg_xstrdup(".");
        if ((error = pg_json_parse(text, len, path, 1, &c->root)) < 0)
                goto done;
        if (!cJSON_IsObject(c->root)) {
                error = pg_bad(c, "the top level", "must be an object");
                goto done;
        }
        for (size_t i = 0; i < PG_NTOP; i++)
                known[i] = pg_top_keys[i].key;
        known[PG_NTOP] = NULL;
        if ((error = pg_json_check_keys(c->root, known, path, NULL)) < 0)
                goto done;
        if (need == PG_CONFIG_NEED_BENCHMARKS &&
            !cJSON_GetObjectItemCaseSensitive(c->root, "benchmarks")) {
                error = pg_bad(c, "benchmarks", "must be an array of benchmarks");
                goto done;
        }
        for (size_t i = 0; i < PG_NTOP; i++) {
                const cJSON *it = cJSON_GetObjectItemCaseSensitive(c->root, pg_top_keys[i].key);
                if (it && (error = pg_top_keys[i].parse(c, it)) < 0)
                        goto done;
        }
done:
        if (error < 0)
                pg_config_release(c);
        return error;
}

int pg_config_parse(struct pg_config *c, const char *text, size_t len, const char *path)
{
        return pg_config_parse_for(c, text, len, path, PG_CONFIG_NEED_BENCHMARKS);
}

int pg_config_load_for(struct pg_config *c, const char *path, enum pg_config_need need)
{
        struct pg_buf text = PG_BUF_INIT;
        int error;

        pg_config_init(c);
        if ((error = pg_read_input(path, "perfgate.json file", &text)) < 0)
                goto done;
        error = pg_config_parse_for(c, text.ptr, text.len, path, need);
done:
        pg_buf_release(&text);
        return error;
}

int pg_config_load(struct pg_config *c, const char *path)
{
        return pg_config_load_for(c, path, PG_CONFIG_NEED_BENCHMARKS);
}

const cJSON *pg_config_compare(const struct pg_config *c)
{
        return c->compare;
}

const struct pg_config_bench *pg_config_find(const struct pg_config *c, const char *name)
{
        for (size_t i = 0; i < c->nbench; i++)
                if (strcmp(c->bench[i].name, name) == 0)
                        return &c->bench[i];
        return NULL;
}
