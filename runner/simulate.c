/*
 * simulate.c - one cachegrind run of a benchmark and its reading
 * (simulate.h).
 * Invariants: the work directory holds only this run's files and is removed
 * before returning; valgrind's own messages (its --log-file, one per
 * process) are appended to the benchmark's log so a failure can be read
 * there; a cachegrind file that does not parse is an error, never a partial
 * count.
 */
#include "runner/simulate.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/json.h"
#include "runner/launch.h"

int pg_sim_find_valgrind(char **path)
{
        const char *env = getenv("PATH");
        char *copy, *save = NULL;

        *path = NULL;
        copy = pg_xstrdup(env ? env : "/usr/local/bin:/usr/bin:/bin");
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
                char *p = pg_path_join(*dir ? dir : ".", "valgrind");
                struct stat st;
                if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0) {
                        *path = p;
                        break;
                }
                free(p);
        }
        free(copy);
        if (*path)
                return 0;
        return pg_error_set(PG_ENOTSUP,
                            "--counters simulated needs valgrind, and 'valgrind' is not in PATH; "
                            "install it ('sudo apt-get install valgrind' on Debian/Ubuntu, "
                            "'sudo dnf install valgrind' on Fedora) or use --counters auto");
}

int pg_sim_check_tmpdir(void)
{
        const char *env = getenv("TMPDIR");
        const char *dir = env && *env ? env : "/tmp";
        char *probe = pg_path_join(dir, ".perfgate-tmpdir-XXXXXX");
        int fd = mkstemp(probe), e = errno;

        if (fd >= 0) {
                close(fd);
                unlink(probe);
                free(probe);
                return 0;
        }
        free(probe);
        if (env && *env)
                return pg_error_set(PG_ENOTSUP,
                                    "--counters simulated: valgrind writes its temporary files "
                                    "in TMPDIR, and no file can be created in TMPDIR '%s': %s; "
                                    "set TMPDIR to a writable directory (or unset it for /tmp)",
                                    dir, strerror(e));
        return pg_error_set(PG_ENOTSUP,
                            "--counters simulated: valgrind writes its temporary files in /tmp "
                            "(TMPDIR is not set), and no file can be created there: %s; set "
                            "TMPDIR to a writable directory",
                            strerror(e));
}

void pg_sim_release(struct pg_sim *s)
{
        pg_functions_release(&s->functions);
        memset(s, 0, sizeof(*s));
}

/* ---- merging ------------------------------------------------------------ */

struct pg_sim_fn {
        const char *name; /* borrowed from a struct pg_cg */
        const char *file;
        uint64_t line, line_ir;
        double c[PG_CG_NCOUNTERS];
};

static int pg_sim_fn_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_sim_fn *) a)->name, ((const struct pg_sim_fn *) b)->name);
}

static int pg_cstr_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static char *pg_sanitized(const char *s)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_utf8_sanitize(&b, s, strlen(s));
        return pg_buf_detach(&b, NULL);
}

void pg_sim_merge(const struct pg_cg *cgs, size_t n, double min_share, struct pg_sim *out)
{
        struct pg_sim_fn *fns, other;
        size_t nf = 0, k = 0, order[PG_CG_NCOUNTERS];
        struct pg_functions *f = &out->functions;
        bool any_other = false;

        memset(out, 0, sizeof(*out));
        memset(&other, 0, sizeof(other));
        if (min_share <= 0)
                min_share = PG_SIM_DEFAULT_MIN_SHARE;
        for (size_t i = 0; i < n; i++)
                nf += cgs[i].nfuncs;
        fns = pg_xcalloc(nf ? nf : 1, sizeof(*fns));
        for (size_t i = 0; i < n; i++) {
                double t[PG_CG_NCOUNTERS];
                pg_cg_counters(&cgs[i], cgs[i].totals, t);
                for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                        out->counts[c] += t[c];
                for (size_t j = 0; j < cgs[i].nfuncs; j++) {
                        const struct pg_cg_func *cf = &cgs[i].funcs[j];
                        struct pg_sim_fn *sf = &fns[k++];
                        sf->name = cf->name;
                        sf->file = cf->file;
                        sf->line = cf->hot_line;
                        sf->line_ir = cf->hot_line_ir;
                        pg_cg_counters(&cgs[i], cf->costs, sf->c);
                }
        }
        out->nprocs = n;
        qsort(fns, nf, sizeof(*fns), pg_sim_fn_cmp);
        /* merge the same function of several processes */
        k = 0;
        for (size_t i = 0; i < nf; i++) {
                if (k && strcmp(fns[k - 1].name, fns[i].name) == 0) {
                        struct pg_sim_fn *d = &fns[k - 1];
                        for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                                d->c[c] += fns[i].c[c];
                        if (fns[i].line_ir > d->line_ir) {
                                d->file = fns[i].file;
                                d->line = fns[i].line;
                                d->line_ir = fns[i].line_ir;
                        }
                        continue;
                }
                fns[k++] = fns[i];
        }
        nf = k;

        f->present = true;
        f->source = pg_xstrdup("cachegrind");
        f->min_share = min_share;
        f->ncounters = PG_CG_NCOUNTERS;
        f->counters = pg_xcalloc(PG_CG_NCOUNTERS, sizeof(char *));
        for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                f->counters[c] = pg_xstrdup(pg_cg_counter_name((enum pg_cg_counter) c));
        qsort(f->counters, PG_CG_NCOUNTERS, sizeof(char *), pg_cstr_cmp);
        for (size_t c = 0; c < PG_CG_NCOUNTERS; c++) /* cachegrind index -> sorted slot */
                order[c] = (size_t) pg_functions_counter_index(
                    f, pg_cg_counter_name((enum pg_cg_counter) c));
        f->items = pg_xcalloc(nf + 1, sizeof(*f->items));
        for (size_t i = 0; i < nf; i++) {
                const struct pg_sim_fn *sf = &fns[i];
                struct pg_function *fn;
                bool keep = false;
                for (size_t c = 0; c < PG_CG_NCOUNTERS && !keep; c++)
                        keep = out->counts[c] > 0 && sf->c[c] / out->counts[c] >= min_share;
                if (!keep || strcmp(sf->name, PG_FUNCTIONS_OTHER) == 0) {
                        for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                                other.c[c] += sf->c[c];
                        any_other = true;
                        continue;
                }
                fn = &f->items[f->n++];
                /* cachegrind's "???" is perfgate's "[unknown]" (DESIGN.md section 3) */
                fn->name =
                    strcmp(sf->name, "???") == 0 ? pg_xstrdup("[unknown]") : pg_sanitized(sf->name);
                fn->file = sf->file && strcmp(sf->file, "???") != 0 ? pg_sanitized(sf->file) : NULL;
                fn->line = fn->file ? sf->line : 0;
                fn->counts = pg_xcalloc(PG_CG_NCOUNTERS, sizeof(uint64_t));
                for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                        fn->counts[order[c]] = (uint64_t) sf->c[c];
        }
        if (any_other) {
                struct pg_function *fn = &f->items[f->n++];
                fn->name = pg_xstrdup(PG_FUNCTIONS_OTHER);
                fn->counts = pg_xcalloc(PG_CG_NCOUNTERS, sizeof(uint64_t));
                for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                        fn->counts[order[c]] = (uint64_t) other.c[c];
        }
        pg_functions_sort(f);
        free(fns);
}

void pg_sim_store(struct pg_sim *s, struct pg_result *r)
{
        for (size_t c = 0; c < PG_CG_NCOUNTERS; c++)
                pg_result_add_metric(r, pg_cg_counter_name((enum pg_cg_counter) c), "count",
                                     PG_METRIC_OK, &s->counts[c], NULL, 1, NULL);
        pg_functions_release(&r->functions);
        r->functions = s->functions;
        memset(&s->functions, 0, sizeof(s->functions));
        free(r->counters);
        r->counters = pg_xstrdup("simulated");
        pg_result_derive(r);
}

/* ---- running ------------------------------------------------------------ */

/* Names of the files in @dir starting with @prefix, sorted. */
static char **pg_list_files(const char *dir, const char *prefix, size_t *n)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char **names = NULL;

        *n = 0;
        if (!d)
                return NULL;
        while ((de = readdir(d)) != NULL) {
                if (!pg_str_has_prefix(de->d_name, prefix))
                        continue;
                names = pg_xreallocarray(names, *n + 1, sizeof(char *));
                names[(*n)++] = pg_xstrdup(de->d_name);
        }
        closedir(d);
        if (*n > 1)
                qsort(names, *n, sizeof(char *), pg_cstr_cmp);
        return names;
}

static void pg_free_names(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

static void pg_remove_dir(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d)) != NULL) {
                char *p;
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                p = pg_path_join(dir, de->d_name);
                unlink(p);
                free(p);
        }
        closedir(d);
        rmdir(dir);
}

/* Why: valgrind's messages are what explains a failure under it (an
 * unhandled instruction, a fatal error), so they go to the benchmark's log
 * and the interesting lines into @why (at most a few). */
static void pg_collect_valgrind_logs(const char *dir, int log_fd, struct pg_buf *why)
{
        size_t n;
        char **names = pg_list_files(dir, "valgrind.", &n);
        size_t kept = 0;

        for (size_t i = 0; i < n; i++) {
                struct pg_buf text = PG_BUF_INIT;
                char *p = pg_path_join(dir, names[i]);
                char *line, *save = NULL;
                if (pg_read_file(p, &text) == 0 && text.len) {
                        if (log_fd > STDERR_FILENO) {
                                dprintf(log_fd, "--- valgrind (%s) ---\n", names[i]);
                                (void) !write(log_fd, text.ptr, text.len);
                        }
                        for (line = strtok_r(text.ptr, "\n", &save); line;
                             line = strtok_r(NULL, "\n", &save)) {
                                /* "==123== message": drop the pid prefix */
                                char *m = line;
                                if (m[0] == '=' && m[1] == '=') {
                                        char *e = strstr(m + 2, "== ");
                                        if (e)
                                                m = e + 3;
                                }
                                if (kept < 4 && (strstr(m, "unhandled instruction") ||
                                                 strstr(m, "nrecognised instruction") ||
                                                 strstr(m, "Process terminating") ||
                                                 strstr(m, "Illegal opcode") ||
                                                 pg_str_has_prefix(m, "valgrind:"))) {
                                        pg_buf_printf(why, "%s", kept ? "; " : "");
                                        pg_utf8_sanitize(why, m, strlen(m));
                                        kept++;
                                }
                        }
                }
                pg_buf_release(&text);
                free(p);
        }
        pg_free_names(names, n);
}

/* Why: valgrind writes what stops it before the tool starts ("valgrind:
 * ./x: bad interpreter", "valgrind: Cannot create log file ...") to its
 * stderr, the benchmark's log, not to --log-file: when the log files gave
 * no reason, take valgrind's lines from the end of the benchmark's log. */
static void pg_valgrind_stderr_reason(int log_fd, struct pg_buf *why)
{
        struct pg_buf text = PG_BUF_INIT;
        char *line, *save = NULL;
        size_t kept = 0;

        if (log_fd <= STDERR_FILENO || pg_read_tail(log_fd, 4096, &text) < 0 || !text.len) {
                pg_buf_release(&text);
                return;
        }
        for (line = strtok_r(text.ptr, "\n", &save); line && kept < 4;
             line = strtok_r(NULL, "\n", &save)) {
                if (!pg_str_has_prefix(line, "valgrind:"))
                        continue;
                pg_buf_printf(why, "%s", kept ? "; " : "");
                pg_utf8_sanitize(why, line, strlen(line));
                kept++;
        }
        pg_buf_release(&text);
}

/* @s with every '%' doubled: valgrind expands %p, %q{VAR} and %n in the
 * file names of --log-file and --cachegrind-out-file and takes %% for a
 * '%' (valgrind(1), "--log-file"). */
static char *pg_valgrind_escape(const char *s)
{
        struct pg_buf b = PG_BUF_INIT;
        for (; *s; s++) {
                if (*s == '%')
                        pg_buf_putc(&b, '%');
                pg_buf_putc(&b, *s);
        }
        if (!b.ptr)
                return pg_xstrdup("");
        return pg_buf_detach(&b, NULL);
}

static int pg_read_cachegrind_files(const char *dir, struct pg_cg **cgs, size_t *ncg)
{
        size_t n;
        char **names = pg_list_files(dir, "cachegrind.out.", &n);
        int error = 0;

        *cgs = pg_xcalloc(n ? n : 1, sizeof(**cgs));
        *ncg = 0;
        if (!n) {
                error = pg_error_set(PG_EIO, "valgrind wrote no cachegrind file in '%s'", dir);
                goto done;
        }
        for (size_t i = 0; i < n; i++) {
                struct pg_buf text = PG_BUF_INIT;
                char *p = pg_path_join(dir, names[i]);
                if ((error = pg_read_file(p, &text)) == 0) {
                        error = pg_cg_parse(&(*cgs)[*ncg], text.ptr ? text.ptr : "", text.len, p);
                        if (error == 0)
                                (*ncg)++;
                        else
                                error = pg_error_set(PG_EIO,
                                                     "cannot read cachegrind's output: %s; "
                                                     "valgrind may have been killed while "
                                                     "writing it, run again",
                                                     pg_error_last());
                } else {
                        error = pg_error_set(PG_EIO, "%s", pg_error_last());
                }
                pg_buf_release(&text);
                free(p);
                if (error < 0)
                        break;
        }
done:
        pg_free_names(names, n);
        return error;
}

int pg_simulate(const struct pg_sim_opts *o, struct pg_sim *out)
{
        size_t argc = 0, k = 0;
        char **argv = NULL, *out_arg = NULL, *log_arg = NULL, *abs = NULL, *esc = NULL;
        struct pg_launch_opts lo;
        struct pg_child child;
        struct pg_exit ex;
        struct pg_cg *cgs = NULL;
        struct pg_buf why = PG_BUF_INIT;
        size_t ncg = 0;
        int error = 0;

        memset(out, 0, sizeof(*out));
        pg_remove_dir(o->work_dir); /* leftovers of an interrupted run */
        if (mkdir(o->work_dir, 0700) < 0)
                return pg_error_set(PG_EIO, "cannot create the directory '%s': %s", o->work_dir,
                                    strerror(errno));
        while (o->argv[argc])
                argc++;
        /* absolute: valgrind opens them from the benchmark's cwd */
        abs = realpath(o->work_dir, NULL);
        if (!abs) {
                error = pg_error_set(PG_EIO, "cannot resolve the directory '%s': %s", o->work_dir,
                                     strerror(errno));
                goto done;
        }
        esc = pg_valgrind_escape(abs);
        out_arg = pg_xasprintf("--cachegrind-out-file=%s/cachegrind.out.%%p", esc);
        log_arg = pg_xasprintf("--log-file=%s/valgrind.%%p", esc);
        {
                const char *fixed[] = { "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
                                        "--trace-children=yes", PG_SIM_CACHE_ARGS };
                size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
                argv = pg_xcalloc(nfixed + argc + 5, sizeof(char *));
                argv[k++] = (char *) o->valgrind;
                for (size_t i = 0; i < nfixed; i++)
                        argv[k++] = (char *) fixed[i];
                argv[k++] = out_arg;
                argv[k++] = log_arg;
                argv[k++] = (char *) "--";
                for (size_t i = 0; i < argc; i++)
                        argv[k++] = o->argv[i];
        }
        lo = (struct pg_launch_opts){ .argv = argv,
                                      .cwd = o->cwd,
                                      .env = o->env,
                                      .log_fd = o->log_fd,
                                      .cpus = o->cpus,
                                      .ncpus = o->ncpus };
        if ((error = pg_launch_prepare(&child, &lo)) < 0)
                goto done;
        if ((error = pg_launch_start(&child, o->valgrind)) < 0) {
                if (error == PG_ENOTFOUND)
                        error = pg_error_set(PG_ENOTSUP, "%s", pg_error_last());
                goto done;
        }
        if ((error = pg_launch_wait(&child, o->timeout_ns, NULL, 0, NULL, NULL, &ex)) < 0)
                goto done;
        pg_collect_valgrind_logs(o->work_dir, o->log_fd, &why);
        if (!why.len)
                pg_valgrind_stderr_reason(o->log_fd, &why);
        if (ex.timed_out) {
                error = pg_error_set(PG_EMEASURE,
                                     "benchmark '%s' timed out under valgrind after %.0f s "
                                     "(the timeout is %dx the native one; raise --timeout)",
                                     o->name, (double) o->timeout_ns / 1e9, PG_SIM_TIMEOUT_FACTOR);
                goto done;
        }
        if (!WIFEXITED(ex.status) || WEXITSTATUS(ex.status) != 0) {
                error = pg_error_set(PG_EMEASURE,
                                     "benchmark '%s' cannot run under valgrind (%s): %s; its "
                                     "output and valgrind's are in '%s'",
                                     o->name, pg_describe_status(ex.status),
                                     why.len ? why.ptr : "valgrind gave no reason",
                                     o->log_path ? o->log_path : "(no log)");
                goto done;
        }
        if ((error = pg_read_cachegrind_files(o->work_dir, &cgs, &ncg)) < 0)
                goto done;
        pg_sim_merge(cgs, ncg, o->min_share, out);
done:
        for (size_t i = 0; i < ncg; i++)
                pg_cg_release(&cgs[i]);
        free(cgs);
        pg_remove_dir(o->work_dir);
        pg_buf_release(&why);
        free(out_arg);
        free(log_arg);
        free(abs);
        free(esc);
        free(argv);
        return error;
}
