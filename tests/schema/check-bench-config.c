/*
 * check-bench-config.c - checks bench/perfgate.json, the bundled benchmarks'
 * config, the way `perfgate run bench/` will read it: JSON with comments
 * (pg_json_parse), a "benchmarks" array of objects with a valid unique
 * "name" and a non-empty "argv" of strings, optional "env" object of strings,
 * optional non-negative integer "repeat"/"warmup" and positive "timeout",
 * and "defaults" with the same numeric fields. With BIN_DIR_IS_SOURCE=1 it
 * also checks that each argv[0] containing '/' names an executable relative
 * to the config's directory (what `perfgate run` resolves it against).
 *
 * usage: pg-check-bench-config CONFIG CHECK_EXECUTABLES(0|1)
 * Prints one line per benchmark; exit 0 when the config is good, 1 if not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"

static int bad(const char *what, const char *name)
{
        fprintf(stderr, "pg-check-bench-config: %s%s%s\n", what, name ? ": " : "",
                name ? name : "");
        return 1;
}

static int check_numbers(const cJSON *o, const char *where)
{
        static const char *const keys[] = { "repeat", "warmup", "timeout" };
        for (size_t i = 0; i < 3; i++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
                if (!v)
                        continue;
                if (!cJSON_IsNumber(v) || v->valuedouble < (i == 2 ? 1 : 0) ||
                    v->valuedouble != floor(v->valuedouble))
                        return bad("bad number", where);
        }
        return 0;
}

int main(int argc, char **argv)
{
        struct pg_buf text = PG_BUF_INIT;
        cJSON *root = NULL, *list, *b;
        char *dir;
        int status = 0, check_exec, n = 0;

        if (argc != 3)
                return bad("usage: pg-check-bench-config CONFIG CHECK_EXECUTABLES", NULL);
        check_exec = atoi(argv[2]);
        if (pg_read_file(argv[1], &text) < 0 ||
            pg_json_parse(text.ptr, text.len, argv[1], 1, &root) < 0)
                return bad(pg_error_last(), NULL);
        dir = pg_xstrdup(argv[1]);
        *strrchr(dir, '/') = '\0';
        if (check_numbers(cJSON_GetObjectItemCaseSensitive(root, "defaults"), "defaults"))
                status = 1;
        list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) < 3)
                status = bad("'benchmarks' must list at least three benchmarks", NULL);
        cJSON_ArrayForEach(b, list)
        {
                const char *name = pg_json_get_string(b, "name");
                const cJSON *av = cJSON_GetObjectItemCaseSensitive(b, "argv"), *a, *env, *e;
                if (!name || !pg_result_name_valid(name)) {
                        status = bad("missing or invalid name", name);
                        continue;
                }
                for (const cJSON *o = list->child; o != b; o = o->next)
                        if (strcmp(pg_json_get_string(o, "name"), name) == 0)
                                status = bad("duplicate name", name);
                if (!cJSON_IsArray(av) || cJSON_GetArraySize(av) < 1) {
                        status = bad("argv must be a non-empty array", name);
                        continue;
                }
                cJSON_ArrayForEach(a, av) if (!cJSON_IsString(a)) status =
                    bad("argv must hold strings", name);
                env = cJSON_GetObjectItemCaseSensitive(b, "env");
                if (env && !cJSON_IsObject(env))
                        status = bad("env must be an object", name);
                cJSON_ArrayForEach(e, env) if (!cJSON_IsString(e)) status =
                    bad("env values must be strings", name);
                if (check_numbers(b, name))
                        status = 1;
                if (check_exec && cJSON_IsString(av->child) &&
                    strchr(av->child->valuestring, '/')) {
                        char *path = pg_path_join(dir, av->child->valuestring);
                        if (access(path, X_OK) != 0)
                                status = bad("argv[0] is not an executable relative to the "
                                             "config's directory",
                                             path);
                        free(path);
                }
                printf("benchmark '%s': %s\n", name,
                       cJSON_IsString(av->child) ? av->child->valuestring : "?");
                n++;
        }
        cJSON_Delete(root);
        pg_buf_release(&text);
        free(dir);
        return status;
}
