/*
 * discover.c - finding and selecting benchmarks (discover.h).
 */
#include "runner/discover.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/config.h"
#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/hashmap.h"
#include "common/json.h"
#include "common/strv.h"

/* ---- discovery -------------------------------------------------------- */

static void pg_bench_release(struct pg_bench *b)
{
        free(b->name);
        pg_strv_free(b->argv);
        free(b->exec_path);
        free(b->cwd);
        free(b->manifest_dir);
        pg_strv_free(b->env);
        memset(b, 0, sizeof(*b));
}

void pg_bench_list_release(struct pg_bench_list *l)
{
        for (size_t i = 0; i < l->n; i++)
                pg_bench_release(&l->items[i]);
        free(l->items);
        l->items = NULL;
        l->n = 0;
}

static struct pg_bench *pg_bench_add(struct pg_bench_list *l)
{
        struct pg_bench *b;
        l->items = pg_xreallocarray(l->items, l->n + 1, sizeof(*l->items));
        b = &l->items[l->n++];
        memset(b, 0, sizeof(*b));
        b->repeat = b->warmup = -1;
        b->timeout_sec = -1;
        return b;
}

static bool pg_is_executable_file(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Why: a benchmark's cwd may differ from perfgate's, so a relative program
 * path is made absolute before the child changes directory. */
static char *pg_absolute(const char *path)
{
        char *cwd, *out;
        if (path[0] == '/')
                return pg_xstrdup(path);
        cwd = getcwd(NULL, 0);
        if (!cwd)
                return pg_xstrdup(path);
        out = pg_path_join(cwd, path);
        free(cwd);
        return out;
}

static bool pg_in_path(const char *prog)
{
        const char *path = getenv("PATH");
        bool found = false;
        char *copy, *save = NULL;

        if (!path)
                path = "/usr/local/bin:/usr/bin:/bin";
        copy = pg_xstrdup(path);
        for (char *dir = strtok_r(copy, ":", &save); dir && !found;
             dir = strtok_r(NULL, ":", &save)) {
                char *p = pg_path_join(*dir ? dir : ".", prog);
                found = pg_is_executable_file(p);
                free(p);
        }
        free(copy);
        return found;
}

/* The error for a benchmark path stat(2) just failed on (errno set);
 * @manifest_dir: the directory of the perfgate.json that named it, or NULL. */
static int pg_missing_path(const char *p, const char *manifest_dir)
{
        if (errno == ELOOP)
                return pg_error_set(PG_EINPUT,
                                    "benchmark path '%s' is a loop of symbolic links (%s); fix "
                                    "the link",
                                    p, strerror(ELOOP));
        if (errno != ENOENT && errno != ENOTDIR)
                return pg_error_set(PG_EINPUT, "benchmark path '%s' cannot be used: %s", p,
                                    strerror(errno));
        if (manifest_dir && p[0] != '/')
                /* the usual slip: a path written relative to the working
                 * directory (docs/run.md) */
                return pg_error_set(PG_ENOTFOUND,
                                    "benchmark path '%s' does not exist; argv[0] is relative to "
                                    "the directory of perfgate.json ('%s'), not to the working "
                                    "directory",
                                    p, manifest_dir);
        return pg_error_set(PG_ENOTFOUND, "benchmark path '%s' does not exist", p);
}

static int pg_check_program(const struct pg_bench *b)
{
        struct stat st;
        const char *p = b->argv[0];

        if (!strchr(p, '/')) {
                if (pg_in_path(p))
                        return 0;
                return pg_error_set(PG_ENOTFOUND,
                                    "benchmark '%s': program '%s' not found in PATH; give its "
                                    "path",
                                    b->name, p);
        }
        if (stat(b->exec_path, &st) < 0)
                return pg_missing_path(p, b->manifest_dir);
        if (!S_ISREG(st.st_mode) || access(b->exec_path, X_OK) < 0)
                return pg_error_set(PG_EINPUT,
                                    "benchmark path '%s' is not an executable file; "
                                    "build it or 'chmod +x' it",
                                    p);
        return 0;
}

static int pg_add_config(struct pg_bench_list *out, const char *path)
{
        struct pg_config c;
        int error;

        if ((error = pg_config_load(&c, path)) < 0)
                return error;
        if (!c.nbench) {
                error = pg_error_set(PG_EINPUT, "'%s' lists no benchmarks", path);
                goto done;
        }
        for (size_t i = 0; i < c.nbench; i++) {
                const struct pg_config_bench *cb = &c.bench[i];
                struct pg_bench *b = pg_bench_add(out);
                size_t ne = 0;

                b->name = pg_xstrdup(cb->name);
                b->argc = cb->argc;
                b->argv = pg_strv_dup(cb->argv, cb->argc);
                b->exec_path =
                    strchr(cb->argv[0], '/') ? pg_absolute(cb->argv[0]) : pg_xstrdup(cb->argv[0]);
                b->cwd = cb->cwd ? pg_xstrdup(cb->cwd)
                                 : (c.defaults.cwd ? pg_xstrdup(c.defaults.cwd) : NULL);
                /* realpath(3): no "." or ".." for pg_path_below() */
                if ((b->manifest_dir = realpath(path, NULL)) != NULL)
                        *(char *) pg_basename(b->manifest_dir) = '\0';
                b->env = pg_xcalloc(c.defaults.nenv + cb->nenv + 1, sizeof(char *));
                for (size_t k = 0; k < c.defaults.nenv; k++)
                        b->env[ne++] = pg_xstrdup(c.defaults.env[k]);
                for (size_t k = 0; k < cb->nenv; k++)
                        b->env[ne++] = pg_xstrdup(cb->env[k]);
                b->repeat = cb->repeat >= 0 ? cb->repeat : c.defaults.repeat;
                b->warmup = cb->warmup >= 0 ? cb->warmup : c.defaults.warmup;
                b->timeout_sec = cb->timeout_sec >= 0 ? cb->timeout_sec : c.defaults.timeout_sec;
                b->roi = (cb->roi >= 0 ? cb->roi : c.defaults.roi) == 1;
                b->off_cpu = (cb->off_cpu >= 0 ? cb->off_cpu : c.defaults.off_cpu) == 1;
                b->sched = (cb->sched >= 0 ? cb->sched : c.defaults.sched) == 1;
                b->confirm_cpus =
                    (size_t) (cb->confirm_cpus ? cb->confirm_cpus : c.defaults.confirm_cpus);
                if (b->cwd && !pg_is_dir(b->cwd)) {
                        error = pg_error_set(PG_EINPUT,
                                             "'%s': benchmark '%s' has cwd '%s', which is not a "
                                             "directory; fix \"cwd\" in the config",
                                             path, b->name, b->cwd);
                        goto done;
                }
        }
done:
        pg_config_release(&c);
        return error;
}

static void pg_add_program(struct pg_bench_list *out, const char *path)
{
        struct pg_bench *b = pg_bench_add(out);
        b->name = pg_xstrdup(pg_basename(path));
        b->argc = 1;
        b->argv = pg_xcalloc(2, sizeof(char *));
        b->argv[0] = pg_xstrdup(path);
        b->exec_path = strchr(path, '/') ? pg_absolute(path) : pg_xasprintf("./%s", path);
        if (!strchr(path, '/')) {
                /* a bare file name given on the command line means this directory */
                free(b->argv[0]);
                b->argv[0] = pg_xasprintf("./%s", path);
        }
}

static int pg_name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int pg_add_dir(struct pg_bench_list *out, const char *dir)
{
        char *cfg = pg_path_join(dir, "perfgate.json");
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        DIR *d;
        int error = 0;

        if (access(cfg, F_OK) == 0) {
                error = pg_add_config(out, cfg);
                free(cfg);
                return error;
        }
        free(cfg);
        d = opendir(dir);
        if (!d)
                return pg_error_set(PG_EIO, "cannot read directory '%s': %s", dir, strerror(errno));
        while ((de = readdir(d)) != NULL) {
                char *p;
                if (de->d_name[0] == '.')
                        continue;
                p = pg_path_join(dir, de->d_name);
                if (pg_is_executable_file(p)) {
                        names = pg_xreallocarray(names, n + 1, sizeof(char *));
                        names[n++] = pg_xstrdup(de->d_name);
                }
                free(p);
        }
        closedir(d);
        if (!n) {
                error = pg_error_set(PG_EINPUT,
                                     "'%s' has no perfgate.json and no executable files; "
                                     "add one or name the benchmarks",
                                     dir);
                goto done;
        }
        qsort(names, n, sizeof(char *), pg_name_cmp);
        for (size_t i = 0; i < n; i++) {
                char *p = pg_path_join(dir, names[i]);
                pg_add_program(out, p);
                free(p);
        }
done:
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return error;
}

static bool pg_ends_with(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && strcmp(s + a - b, suffix) == 0;
}

int pg_run_discover(struct pg_bench_list *out, const char *const *paths, size_t npaths)
{
        struct pg_strmap names = PG_STRMAP_INIT;
        bool added;
        int error = 0;

        out->n = 0;
        out->items = NULL;
        for (size_t i = 0; i < npaths && !error; i++) {
                const char *p = paths[i];
                struct stat st;

                if (stat(p, &st) < 0) {
                        error = pg_missing_path(p, NULL);
                } else if (S_ISDIR(st.st_mode)) {
                        error = pg_add_dir(out, p);
                } else if (pg_ends_with(p, ".json")) {
                        error = pg_add_config(out, p);
                } else if (!S_ISREG(st.st_mode) || access(p, X_OK) < 0) {
                        error = pg_error_set(PG_EINPUT,
                                             "benchmark path '%s' is not an executable file; "
                                             "build it or 'chmod +x' it",
                                             p);
                } else {
                        pg_add_program(out, p);
                }
        }
        for (size_t i = 0; i < out->n && !error; i++) {
                if (!pg_result_name_valid(out->items[i].name)) {
                        /* a program found in a directory: its file name is its name */
                        char *shown = pg_shown(out->items[i].argv[0]);
                        error = pg_error_set(PG_EINPUT,
                                             "benchmark '%s' has an unusable name (%s; it "
                                             "%s); rename the file or list it in perfgate.json",
                                             shown, PG_RESULT_NAME_RULE,
                                             pg_result_name_why(out->items[i].name));
                        free(shown);
                        break;
                }
                pg_strmap_intern(&names, out->items[i].name, strlen(out->items[i].name), &added);
                if (!added)
                        error = pg_error_set(PG_EINPUT,
                                             "two benchmarks are named '%s'; rename one "
                                             "in perfgate.json",
                                             out->items[i].name);
                if (!error)
                        error = pg_check_program(&out->items[i]);
        }
        pg_strmap_release(&names);
        if (error)
                pg_bench_list_release(out);
        return error;
}

/* The most positions a --filter regex may expand to. glibc's regcomp()
 * builds its automaton from the pattern with every bounded repetition
 * written out ("(a{255}){255}{255}" is 16 million positions, over 2 GB);
 * names are at most PG_RESULT_NAME_MAX bytes, so no pattern that matches
 * them needs more than a few thousand. */
#define PG_FILTER_MAX_POSITIONS 10000.0

/* Skip a bracket expression starting at @p ('['); return the byte after its
 * ']' or the end of @p when it is not closed (regcomp then refuses it). */
static const char *pg_skip_bracket(const char *p)
{
        p++;
        if (*p == '^')
                p++;
        if (*p == ']')
                p++;
        while (*p && *p != ']') {
                if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
                        char end = p[1];
                        const char *q = p + 2;
                        while (*q && !(q[0] == end && q[1] == ']'))
                                q++;
                        p = *q ? q + 2 : q;
                } else {
                        p++;
                }
        }
        return *p ? p + 1 : p;
}

/* Parse "{m}", "{m,}" or "{m,n}" at @p; return the byte after it and set
 * *@times to the most repetitions it allows (m + 1 for "{m,}"), or return
 * NULL when @p holds no interval (then '{' is an ordinary character). */
static const char *pg_parse_interval(const char *p, double *times)
{
        double m = 0, n = -1;
        const char *q = p + 1;

        if (*q < '0' || *q > '9')
                return NULL;
        for (; *q >= '0' && *q <= '9'; q++)
                m = m * 10 + (*q - '0');
        if (*q == ',') {
                q++;
                if (*q >= '0' && *q <= '9')
                        for (n = 0; *q >= '0' && *q <= '9'; q++)
                                n = n * 10 + (*q - '0');
                else
                        n = m + 1;
        }
        if (*q != '}')
                return NULL;
        *times = n >= 0 ? n : m;
        return q + 1;
}

/* An upper estimate of the positions of POSIX extended regex @re with its
 * repetitions written out (HUGE_VAL past 63 nested groups): groups nest, alternatives add, an interval
 * multiplies the atom before it by its upper bound, '+' doubles it. */
static double pg_regex_positions(const char *re)
{
        struct {
                double sum, last;
        } st[64];
        size_t depth = 0;
        const char *p = re;
        double times;

        st[0].sum = st[0].last = 0;
        while (*p) {
                double atom = 1;
                const char *q;
                switch (*p) {
                case '\\':
                        p += p[1] ? 2 : 1;
                        break;
                case '[':
                        p = pg_skip_bracket(p);
                        break;
                case '(':
                        p++;
                        if (depth + 1 == sizeof(st) / sizeof(st[0]))
                                return HUGE_VAL; /* 64 nested groups: refused as too large */
                        st[++depth].sum = 0;
                        st[depth].last = 0;
                        continue;
                case ')':
                        p++;
                        if (depth == 0)
                                break; /* a lone ')' is an ordinary character */
                        atom = st[depth].sum + st[depth].last;
                        depth--;
                        if (atom < 1)
                                atom = 1;
                        break;
                case '|':
                        p++;
                        st[depth].sum += st[depth].last;
                        st[depth].last = 0;
                        continue;
                case '*':
                case '?':
                        p++;
                        continue;
                case '+':
                        p++;
                        st[depth].last *= 2;
                        continue;
                case '{':
                        if ((q = pg_parse_interval(p, &times)) != NULL) {
                                p = q;
                                st[depth].last *= times > 1 ? times : 1;
                                continue;
                        }
                        p++;
                        break;
                default:
                        p++;
                        break;
                }
                st[depth].sum += st[depth].last;
                st[depth].last = atom;
        }
        while (depth > 0) {
                double inner = st[depth].sum + st[depth].last;
                depth--;
                st[depth].sum += st[depth].last;
                st[depth].last = inner;
        }
        return st[0].sum + st[0].last;
}

int pg_bench_list_select(struct pg_bench_list *l, const char *filter, unsigned shard_index,
                         unsigned shard_count)
{
        regex_t re;
        size_t k = 0, pos = 0;
        int rc;

        if (shard_count || shard_index) {
                if (shard_count == 0 || shard_index < 1 || shard_index > shard_count)
                        return pg_error_set(PG_EINPUT,
                                            "shard '%u/%u' is out of range; use I/N with "
                                            "1 <= I <= N",
                                            shard_index, shard_count);
        }
        if (filter && pg_regex_positions(filter) > PG_FILTER_MAX_POSITIONS)
                return pg_error_set(PG_EINPUT,
                                    "--filter regex '%s' is too large: its repetitions write out "
                                    "to more than %.0f positions, which regcomp() would build in "
                                    "memory; names are at most %d bytes, so no count above %d "
                                    "is needed: use smaller counts",
                                    filter, PG_FILTER_MAX_POSITIONS, PG_RESULT_NAME_MAX,
                                    PG_RESULT_NAME_MAX);
        if (filter && (rc = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB)) != 0) {
                char msg[256];
                regerror(rc, &re, msg, sizeof(msg));
                return pg_error_set(PG_EINPUT, "invalid --filter regex '%s': %s", filter, msg);
        }
        for (size_t i = 0; i < l->n; i++) {
                bool keep = !filter || regexec(&re, l->items[i].name, 0, NULL, 0) == 0;
                if (keep && shard_count)
                        keep = (pos++ % shard_count) == shard_index - 1;
                if (keep)
                        l->items[k++] = l->items[i];
                else
                        pg_bench_release(&l->items[i]);
        }
        l->n = k;
        if (filter)
                regfree(&re);
        return 0;
}
