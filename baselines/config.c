/*
 * config.c - loading perfgate.json (see config.h).
 * Invariant: on success every benchmark has a valid unique name and a
 * non-empty NULL-terminated argv; on failure @c is left empty.
 */
#include "baselines/config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "common/strv.h"

void pg_config_init(struct pg_config *c)
{
        memset(c, 0, sizeof(*c));
        c->defaults.repeat = c->defaults.warmup = -1;
        c->defaults.timeout_sec = -1;
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

static int pg_get_count(const struct pg_config *c, const cJSON *o, const char *key,
                        const char *where, int64_t *out)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
        char *w;
        int error;

        if (!it)
                return 0;
        if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= 1e6 &&
            floor(it->valuedouble) == it->valuedouble) {
                *out = (int64_t) it->valuedouble;
                return 0;
        }
        w = pg_xasprintf("%s.%s", where, key);
        error = pg_bad(c, w, "must be a whole number from 0 to 1000000");
        free(w);
        return error;
}

static int pg_fill_common(struct pg_config *c, const cJSON *o, const char *where,
                          struct pg_config_bench *b)
{
        const cJSON *it;
        char *w = NULL;
        int error = 0;

        if ((error = pg_get_count(c, o, "repeat", where, &b->repeat)) < 0 ||
            (error = pg_get_count(c, o, "warmup", where, &b->warmup)) < 0)
                goto done;
        if (b->repeat == 0) {
                w = pg_xasprintf("%s.repeat", where);
                error = pg_bad(c, w, "must be at least 1");
                goto done;
        }
        it = cJSON_GetObjectItemCaseSensitive(o, "timeout");
        if (it) {
                if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble > 1e7) {
                        w = pg_xasprintf("%s.timeout", where);
                        error = pg_bad(c, w, "must be a number of seconds (0 for none)");
                        goto done;
                }
                b->timeout_sec = it->valuedouble;
        }
        it = cJSON_GetObjectItemCaseSensitive(o, "cwd");
        if (it) {
                if (!cJSON_IsString(it) || !*it->valuestring) {
                        w = pg_xasprintf("%s.cwd", where);
                        error = pg_bad(c, w, "must be a non-empty string");
                        goto done;
                }
                b->cwd = pg_resolve(c, it->valuestring);
        }
        it = cJSON_GetObjectItemCaseSensitive(o, "env");
        if (it) {
                const cJSON *kv;
                size_t n = 0;
                if (!cJSON_IsObject(it)) {
                        w = pg_xasprintf("%s.env", where);
                        error = pg_bad(c, w, "must be an object of strings");
                        goto done;
                }
                b->env = pg_xcalloc((size_t) cJSON_GetArraySize(it) + 1, sizeof(char *));
                cJSON_ArrayForEach(kv, it)
                {
                        if (!cJSON_IsString(kv) || !*kv->string || strchr(kv->string, '=')) {
                                w = pg_xasprintf("%s.env.%s", where, kv->string);
                                error = pg_bad(c, w,
                                               "must be a string, and its name non-empty "
                                               "without '='");
                                goto done;
                        }
                        b->env[n++] = pg_xasprintf("%s=%s", kv->string, kv->valuestring);
                }
                b->nenv = n;
        }
        it = cJSON_GetObjectItemCaseSensitive(o, "compare");
        if (it) {
                if (!cJSON_IsObject(it)) {
                        w = pg_xasprintf("%s.compare", where);
                        error = pg_bad(c, w, "must be an object");
                        goto done;
                }
                b->compare = it;
        }
done:
        free(w);
        return error;
}

static int pg_check_keys(const struct pg_config *c, const cJSON *o, const char *where,
                         const char *const *allowed)
{
        const cJSON *it;
        cJSON_ArrayForEach(it, o)
        {
                const char *const *a;
                for (a = allowed; *a; a++)
                        if (strcmp(*a, it->string) == 0)
                                break;
                if (!*a)
                        return pg_error_set(PG_EINPUT, "'%s': unknown key '%s' in %s", c->path,
                                            it->string, where);
        }
        return 0;
}

static int pg_parse_bench(struct pg_config *c, const cJSON *o, size_t idx,
                          struct pg_config_bench *b)
{
        static const char *const keys[] = { "name",   "argv",    "cwd",     "env", "repeat",
                                            "warmup", "timeout", "compare", NULL };
        char *where = pg_xasprintf("benchmarks[%zu]", idx);
        const cJSON *argv, *it;
        const char *name;
        int error = 0;
        size_t n = 0;

        b->repeat = b->warmup = -1;
        b->timeout_sec = -1;
        if (!cJSON_IsObject(o)) {
                error = pg_bad(c, where, "must be an object");
                goto done;
        }
        if ((error = pg_check_keys(c, o, where, keys)) < 0)
                goto done;
        argv = cJSON_GetObjectItemCaseSensitive(o, "argv");
        if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) < 1) {
                error = pg_bad_field(c, where, "argv", "must be a non-empty array of strings");
                goto done;
        }
        b->argv = pg_xcalloc((size_t) cJSON_GetArraySize(argv) + 1, sizeof(char *));
        cJSON_ArrayForEach(it, argv)
        {
                if (!cJSON_IsString(it) || (n == 0 && !*it->valuestring)) {
                        error =
                            pg_bad_field(c, where, "argv", "must be a non-empty array of strings");
                        goto done;
                }
                if (n == 0 && strchr(it->valuestring, '/'))
                        b->argv[n++] = pg_resolve(c, it->valuestring);
                else
                        b->argv[n++] = pg_xstrdup(it->valuestring);
        }
        b->argc = n;
        it = cJSON_GetObjectItemCaseSensitive(o, "name");
        if (it && !cJSON_IsString(it)) {
                error = pg_bad_field(c, where, "name", "must be a string");
                goto done;
        }
        name = it ? it->valuestring : pg_basename(b->argv[0]);
        if (!pg_result_name_valid(name)) {
                /* shown with control and non-ASCII bytes as \xNN: the name may hold ESC */
                struct pg_buf shown = PG_BUF_INIT;
                char *w;
                for (const char *p = name; *p && shown.len < 64; p++) {
                        unsigned char u = (unsigned char) *p;
                        if (u < 0x20 || u >= 0x7f)
                                pg_buf_printf(&shown, "\\x%02x", u);
                        else
                                pg_buf_putc(&shown, *p);
                }
                w = pg_xasprintf("%s.name '%s%s'", where, shown.ptr,
                                 strlen(name) > shown.len ? "..." : "");
                error = pg_bad(c, w, "is not a valid benchmark name: " PG_RESULT_NAME_RULE);
                free(w);
                pg_buf_release(&shown);
                goto done;
        }
        b->name = pg_xstrdup(name);
        error = pg_fill_common(c, o, where, b);
done:
        free(where);
        return error;
}

int pg_config_parse(struct pg_config *c, const char *text, size_t len, const char *path)
{
        static const char *const default_keys[] = { "repeat", "warmup",  "timeout", "cwd",
                                                    "env",    "compare", NULL };
        const cJSON *benches, *defaults, *cmp;
        const char *slash;
        int error;
        size_t i = 0;

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
        cmp = cJSON_GetObjectItemCaseSensitive(c->root, "compare");
        if (cmp && !cJSON_IsObject(cmp)) {
                error = pg_bad(c, "compare", "must be an object");
                goto done;
        }
        defaults = cJSON_GetObjectItemCaseSensitive(c->root, "defaults");
        if (defaults) {
                if (!cJSON_IsObject(defaults)) {
                        error = pg_bad(c, "defaults", "must be an object");
                        goto done;
                }
                if ((error = pg_check_keys(c, defaults, "defaults", default_keys)) < 0 ||
                    (error = pg_fill_common(c, defaults, "defaults", &c->defaults)) < 0)
                        goto done;
        }
        benches = cJSON_GetObjectItemCaseSensitive(c->root, "benchmarks");
        if (!cJSON_IsArray(benches)) {
                error = pg_bad(c, "benchmarks", "must be an array of benchmarks");
                goto done;
        }
        c->bench = pg_xcalloc((size_t) cJSON_GetArraySize(benches) + 1, sizeof(*c->bench));
        for (const cJSON *b = benches->child; b; b = b->next, i++) {
                c->nbench = i + 1;
                if ((error = pg_parse_bench(c, b, i, &c->bench[i])) < 0)
                        goto done;
                for (size_t k = 0; k < i; k++) {
                        if (strcmp(c->bench[k].name, c->bench[i].name) == 0) {
                                error = pg_error_set(PG_EINPUT,
                                                     "'%s': benchmarks[%zu] and benchmarks[%zu] "
                                                     "are both named '%s'; names must be unique",
                                                     path, k, i, c->bench[i].name);
                                goto done;
                        }
                }
        }
done:
        if (error < 0)
                pg_config_release(c);
        return error;
}

int pg_config_load(struct pg_config *c, const char *path)
{
        struct pg_buf text = PG_BUF_INIT;
        int error;

        pg_config_init(c);
        if ((error = pg_read_file(path, &text)) < 0)
                goto done;
        error = pg_config_parse(c, text.ptr, text.len, path);
done:
        pg_buf_release(&text);
        return error;
}

const cJSON *pg_config_compare(const struct pg_config *c)
{
        const cJSON *it = c->root ? cJSON_GetObjectItemCaseSensitive(c->root, "compare") : NULL;
        return cJSON_IsObject(it) ? it : NULL;
}

const struct pg_config_bench *pg_config_find(const struct pg_config *c, const char *name)
{
        for (size_t i = 0; i < c->nbench; i++)
                if (strcmp(c->bench[i].name, name) == 0)
                        return &c->bench[i];
        return NULL;
}
