/*
 * print_result.c - how `perfgate show` and `perfgate baseline show` print one
 * result: a `perf stat -d -d`-like counter table, the wall/user/system time
 * and max-rss lines, then (when the result has a profile) a
 * `perf report --children`-like hotspot list with the hottest call path
 * under each function.
 *
 * What is printed, and from what (docs/show.md has the reference):
 *  - every figure is the median over the measured repetitions; the spread
 *    `( +- x% )` is the relative median absolute deviation, MAD / median,
 *    the robust spread compare/ also judges noise by (DESIGN.md section 6);
 *  - the `#` column shows the derived ratio stored in the result (ipc,
 *    branch-miss-rate, ... as pg_result_derive() defines them, the formulas
 *    of tools/perf/util/stat-shadow.c), or a per-second rate / GHz computed
 *    here from medians, as perf stat does for events without a ratio;
 *  - a ratio whose denominator was 0 is printed as "n/a" with the reason;
 *    no figure here is ever NaN or Inf: every division checks its
 *    denominator first;
 *  - hotspots: the "children" (inclusive) and "self" shares and the hottest
 *    callee path of compare/profile.h, as shares of all samples in the
 *    folded stacks; this file only lays them out.
 * Output is deterministic: same result, same bytes (ties broken by name).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/hashmap.h"
#include "common/width.h"
#include "compare/offcpu.h"
#include "compare/profile.h"
#include "compare/report.h"
#include "compare/stats.h"

#define PG_SHOW_TOP         20 /* functions in the hotspot list */
#define PG_SHOW_BLOCK_PATHS 10 /* paths in the off-CPU list */
#define PG_SHOW_PATH_MAX    16 /* frames in one hottest path */
#define PG_SHOW_NAME_MAX    60 /* width cap of the function column */
#define PG_SHOW_METRIC_W    36 /* width of the "# ..." column, as perf stat's */

#define PG_ANSI_RED   "\033[31m"
#define PG_ANSI_GREEN "\033[32m"
#define PG_ANSI_BOLD  "\033[1m"
#define PG_ANSI_RESET "\033[m"

/* ---- statistics -------------------------------------------------------- */

/* MAD / median in percent; -1 when undefined (one value, or median <= 0). */
static double pg_spread_pct(const double *v, size_t n)
{
        double med;

        if (n < 2)
                return -1;
        med = pg_stats_median(v, n);
        if (!(med > 0))
                return -1;
        return pg_stats_mad(v, n) / med * 100;
}

/* The median of @name when it is counted, else false. */
static bool pg_metric_median(const struct pg_result *r, const char *name, double *out)
{
        const struct pg_metric *m = pg_result_find_metric(r, name);

        if (!m || m->status != PG_METRIC_OK || !m->nvalues)
                return false;
        *out = pg_stats_median(m->values, m->nvalues);
        return true;
}

/* ---- number formatting -------------------------------------------------- */

/* @v rounded to @decimals, with ',' between groups of three digits. */
static void pg_fmt_grouped(struct pg_buf *b, double v, int decimals)
{
        char digits[64];
        const char *dot, *p;
        size_t intlen;

        snprintf(digits, sizeof(digits), "%.*f", decimals, v);
        p = digits;
        if (*p == '-')
                pg_buf_putc(b, *p++);
        dot = strchr(p, '.');
        intlen = dot ? (size_t) (dot - p) : strlen(p);
        for (size_t i = 0; i < intlen; i++) {
                if (i && (intlen - i) % 3 == 0)
                        pg_buf_putc(b, ',');
                pg_buf_putc(b, p[i]);
        }
        if (dot)
                pg_buf_puts(b, dot);
}

/* perf stat's per-second rate: value and a K/M/G prefix. */
static void pg_fmt_rate(struct pg_buf *b, double per_sec)
{
        static const char *const prefix[] = { "", "K", "M", "G" };
        int k = 0;

        while (k < 3 && per_sec >= 1000) {
                per_sec /= 1000;
                k++;
        }
        pg_buf_printf(b, "#%9.3f %s/sec", per_sec, prefix[k]);
}

/* ---- the counter table ------------------------------------------------- */

/* A ratio printed on its numerator's row (perf stat's shadow metrics). */
struct pg_ratio_row {
        const char *row;    /* the counter the ratio is printed beside */
        const char *ratio;  /* derived metric name in the result */
        const char *den;    /* its denominator */
        bool percent;       /* print ratio x 100 with '%' */
        const char *legend; /* "insn per cycle", "of all branches" */
};

static const struct pg_ratio_row pg_ratio_rows[] = {
        { "task-clock", "cpus-utilized", "duration_time", false, "CPUs utilized" },
        { "instructions", "ipc", "cycles", false, " insn per cycle" },
        { "branch-misses", "branch-miss-rate", "branches", true, "of all branches" },
        { "cache-misses", "cache-miss-rate", "cache-references", true, "of all cache refs" },
        { "L1-dcache-load-misses", "L1-dcache-miss-rate", "L1-dcache-loads", true,
          "of all L1-dcache accesses" },
        { "LLC-load-misses", "LLC-miss-rate", "LLC-loads", true, "of all LL-cache accesses" },
};

/* The counters in perf stat -d -d's order; others follow by name. */
static const char *const pg_table_order[] = {
        "task-clock",       "context-switches", "cpu-migrations",  "page-faults",
        "cycles",           "instructions",     "branches",        "branch-misses",
        "cache-references", "cache-misses",     "L1-dcache-loads", "L1-dcache-load-misses",
        "LLC-loads",        "LLC-load-misses",  "L1-icache-loads", "L1-icache-load-misses",
        "dTLB-loads",       "dTLB-load-misses", "iTLB-loads",      "iTLB-load-misses",
};

/* Printed below the table, not in it. */
static const char *const pg_time_metrics[] = { "duration_time", "user-time", "system-time",
                                               "max-rss" };

static const struct pg_ratio_row *pg_ratio_for_row(const char *name)
{
        for (size_t i = 0; i < sizeof(pg_ratio_rows) / sizeof(pg_ratio_rows[0]); i++)
                if (strcmp(pg_ratio_rows[i].row, name) == 0)
                        return &pg_ratio_rows[i];
        return NULL;
}

static bool pg_is_ratio_metric(const char *name)
{
        for (size_t i = 0; i < sizeof(pg_ratio_rows) / sizeof(pg_ratio_rows[0]); i++)
                if (strcmp(pg_ratio_rows[i].ratio, name) == 0)
                        return true;
        return false;
}

static bool pg_is_time_metric(const char *name)
{
        for (size_t i = 0; i < sizeof(pg_time_metrics) / sizeof(pg_time_metrics[0]); i++)
                if (strcmp(pg_time_metrics[i], name) == 0)
                        return true;
        return false;
}

static int pg_order_rank(const char *name)
{
        for (size_t i = 0; i < sizeof(pg_table_order) / sizeof(pg_table_order[0]); i++)
                if (strcmp(pg_table_order[i], name) == 0)
                        return (int) i;
        return (int) (sizeof(pg_table_order) / sizeof(pg_table_order[0]));
}

static int pg_row_cmp(const void *a, const void *b)
{
        const struct pg_metric *x = *(const struct pg_metric *const *) a;
        const struct pg_metric *y = *(const struct pg_metric *const *) b;
        int rx = pg_order_rank(x->name), ry = pg_order_rank(y->name);

        if (rx != ry)
                return rx < ry ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* Unit label of the value column: times in msec as perf prints them. */
static const char *pg_unit_label(const struct pg_metric *m)
{
        if (strcmp(m->unit, "ns") == 0)
                return "msec";
        if (strcmp(m->unit, "count") == 0)
                return "";
        return m->unit;
}

static void pg_fmt_value(struct pg_buf *b, const struct pg_metric *m, double med)
{
        if (strcmp(m->unit, "ns") == 0)
                pg_fmt_grouped(b, med / 1e6, 2);
        else if (strcmp(m->unit, "ratio") == 0)
                pg_buf_printf(b, "%.3f", med);
        else
                pg_fmt_grouped(b, med, 0);
}

/* What stands in the value column of a metric without values. */
static const char *pg_status_label(const struct pg_metric *m)
{
        switch (m->status) {
        case PG_METRIC_NOT_SUPPORTED:
                return "<not supported>";
        case PG_METRIC_KERNEL_ONLY:
                return "<kernel only>";
        default: /* not-counted, or "ok" without values (never loaded, but built) */
                return "<not counted>";
        }
}

/* Whether some repetition of a counted @den is 0: the reason a ratio is absent. */
static bool pg_has_zero(const struct pg_result *r, const char *den)
{
        const struct pg_metric *m = pg_result_find_metric(r, den);

        if (!m || m->status != PG_METRIC_OK)
                return false;
        for (size_t i = 0; i < m->nvalues; i++)
                if (!(m->values[i] > 0))
                        return true;
        return false;
}

/* The "# ..." column of @m's row (may stay empty). */
static void pg_fmt_shadow(struct pg_buf *b, const struct pg_result *r, const struct pg_metric *m,
                          double med)
{
        const struct pg_ratio_row *rr = pg_ratio_for_row(m->name);
        double v, task_ns;

        if (rr) {
                const struct pg_metric *num = pg_result_find_metric(r, rr->row);
                if (pg_metric_median(r, rr->ratio, &v)) {
                        if (rr->percent)
                                pg_buf_printf(b, "#%8.2f%% %s", v * 100, rr->legend);
                        else
                                pg_buf_printf(b, "#%8.2f %s", v, rr->legend);
                } else if (num && num->status == PG_METRIC_OK && pg_has_zero(r, rr->den)) {
                        pg_buf_printf(b, "#%8s%s %s (%s was 0)", "n/a", rr->percent ? " " : "",
                                      rr->legend, rr->den);
                }
                return;
        }
        if (strcmp(m->unit, "count") != 0)
                return;
        /* simulated counts (one cachegrind run) per native second would mean nothing */
        if (r->counters && strcmp(r->counters, "simulated") == 0 && m->nvalues == 1 && m->name &&
            strcmp(m->name, "task-clock") != 0) {
                pg_buf_puts(b, strcmp(m->name, "cycles") == 0 ? "#  simulated (estimate)"
                                                              : "#  simulated");
                return;
        }
        if (!pg_metric_median(r, "task-clock", &task_ns) || !(task_ns > 0))
                return;
        if (strcmp(m->name, "cycles") == 0)
                pg_buf_printf(b, "#%9.3f GHz", med / task_ns);
        else
                pg_fmt_rate(b, med / (task_ns / 1e9));
}

static void pg_print_row(FILE *f, const struct pg_result *r, const struct pg_metric *m, int unit_w)
{
        struct pg_buf line = PG_BUF_INIT, val = PG_BUF_INIT, shadow = PG_BUF_INIT;
        double med = 0, spread;
        bool any_partial = false;

        if (m->status == PG_METRIC_OK && m->nvalues) {
                med = pg_stats_median(m->values, m->nvalues);
                pg_fmt_value(&val, m, med);
        } else {
                pg_buf_puts(&val, pg_status_label(m));
        }
        pg_buf_printf(&line, "%18s %-*s ", val.ptr, unit_w,
                      m->status == PG_METRIC_OK && m->nvalues ? pg_unit_label(m) : "");
        pg_buf_pad(&line, m->name, 32);
        if (m->status == PG_METRIC_OK && m->nvalues) {
                pg_fmt_shadow(&shadow, r, m, med);
                pg_buf_printf(&line, " %-*s", PG_SHOW_METRIC_W, shadow.ptr);
                if (shadow.len >= PG_SHOW_METRIC_W) /* a long legend still gets a gap */
                        pg_buf_putc(&line, ' ');
                spread = pg_spread_pct(m->values, m->nvalues);
                if (spread >= 0)
                        pg_buf_printf(&line, "( +-%6.2f%% )", spread);
                if (m->coverage)
                        for (size_t i = 0; i < m->nvalues; i++)
                                any_partial |= m->coverage[i] < 1;
                if (any_partial) {
                        /* floor, so a multiplexed counter never shows 100.0% */
                        double cov = floor(pg_stats_median(m->coverage, m->nvalues) * 1000) / 10;
                        pg_buf_printf(&line, "  (%.1f%%)", cov);
                }
        }
        while (line.len && line.ptr[line.len - 1] == ' ')
                pg_buf_truncate(&line, line.len - 1);
        fprintf(f, "%s\n", line.ptr);
        pg_buf_release(&line);
        pg_buf_release(&val);
        pg_buf_release(&shadow);
}

/* "  ( +-  1.23% )" for a counted metric with a defined spread, else "". */
static void pg_fmt_spread_suffix(struct pg_buf *b, const struct pg_metric *m)
{
        double s = pg_spread_pct(m->values, m->nvalues);
        if (s >= 0)
                pg_buf_printf(b, "  ( +-%6.2f%% )", s);
}

static void pg_print_time_line(FILE *f, const struct pg_result *r, const char *name,
                               const char *legend)
{
        const struct pg_metric *m = pg_result_find_metric(r, name);
        struct pg_buf line = PG_BUF_INIT;

        if (!m)
                return;
        if (m->status != PG_METRIC_OK || !m->nvalues) {
                fprintf(f, "%18s %s\n", pg_status_label(m), legend);
                return;
        }
        if (strcmp(m->unit, "ns") == 0)
                pg_buf_printf(&line, "%18.9f seconds %s",
                              pg_stats_median(m->values, m->nvalues) / 1e9, legend);
        else {
                struct pg_buf v = PG_BUF_INIT;
                pg_fmt_grouped(&v, pg_stats_median(m->values, m->nvalues), 0);
                pg_buf_printf(&line, "%18s %s %s", v.ptr, m->unit, legend);
                pg_buf_release(&v);
        }
        pg_fmt_spread_suffix(&line, m);
        fprintf(f, "%s\n", line.ptr);
        pg_buf_release(&line);
}

/* @s as shown in the header: the strings of a result come from its file (a
 * data branch anyone may push to), so they are escaped as names are. */
static const char *pg_hdr(struct pg_buf *b, const char *s, const char *none)
{
        pg_buf_reset(b);
        pg_report_escape_ctl(b, s && *s ? s : none);
        return b->ptr ? b->ptr : "";
}

static void pg_print_header(FILE *f, const struct pg_result *r, bool color)
{
        const struct pg_host *h = &r->host;
        struct pg_buf a = PG_BUF_INIT, b = PG_BUF_INIT, c = PG_BUF_INIT;

        fprintf(f, " %sperfgate result '%s'%s\n", color ? PG_ANSI_BOLD : "",
                pg_hdr(&a, r->name, ""), color ? PG_ANSI_RESET : "");
        if (r->has_git)
                fprintf(f, " commit   %.12s%s\n", pg_hdr(&a, r->git_commit, ""),
                        r->git_dirty ? " (with uncommitted changes)" : "");
        fprintf(f, " machine  %s", pg_hdr(&a, r->machine, "default"));
        if (r->created && *r->created)
                fprintf(f, ", recorded %s", pg_hdr(&a, r->created, ""));
        fputc('\n', f);
        fprintf(f, " host     %s, %llu CPUs, %s, kernel %s%s\n", pg_hdr(&a, h->cpu, "?"),
                (unsigned long long) h->cpus, pg_hdr(&b, h->arch, "?"), pg_hdr(&c, h->kernel, "?"),
                h->virtualized ? ", virtualized" : "");
        pg_buf_release(&a);
        pg_buf_release(&b);
        pg_buf_release(&c);
        fprintf(f, " counters %s", r->counters ? r->counters : "?");
        if (h->npmu) {
                fputs(" (PMU:", f);
                for (size_t i = 0; i < h->npmu; i++)
                        fprintf(f, " %s", h->pmu[i]);
                fputc(')', f);
        } else {
                fputs(" (no hardware PMU)", f);
        }
        fputc('\n', f);
        if (r->recording.present) {
                const struct pg_recording *rec = &r->recording;
                static const char *const how[] = { "ended at its --duration",
                                                   "ended by SIGINT or SIGTERM",
                                                   "ended when the target exited" };

                fprintf(f, " recording %.1f s, %s", (double) rec->elapsed_ns / 1e9,
                        how[rec->ended]);
                if (rec->requested_ns && rec->ended != PG_RECORD_END_DURATION)
                        fprintf(f, " (%.1f s requested)", (double) rec->requested_ns / 1e9);
                fputc('\n', f);
        }
}

static void pg_print_counters(FILE *f, const struct pg_result *r)
{
        const struct pg_metric **rows = pg_xcalloc(r->nmetrics + 1, sizeof(*rows));
        size_t n = 0;
        int unit_w = 4;

        fputs("\n Performance counter stats for '", f);
        for (size_t i = 0; i < r->ncommand; i++) {
                struct pg_buf arg = PG_BUF_INIT;
                pg_report_escape_ctl(&arg, r->command[i]);
                fprintf(f, "%s%s", i ? " " : "", arg.ptr ? arg.ptr : "");
                pg_buf_release(&arg);
        }
        if (!r->ncommand)
                fputs(r->name, f);
        fprintf(f, "' (%llu run%s", (unsigned long long) r->repeat, r->repeat == 1 ? "" : "s");
        if (r->warmup)
                fprintf(f, ", %llu warmup", (unsigned long long) r->warmup);
        fputs("):\n\n", f);

        for (size_t i = 0; i < r->nmetrics; i++) {
                const struct pg_metric *m = &r->metrics[i];
                int w;
                if (pg_is_ratio_metric(m->name) || pg_is_time_metric(m->name))
                        continue;
                rows[n++] = m;
                w = (int) strlen(pg_unit_label(m));
                if (w > unit_w)
                        unit_w = w;
        }
        qsort(rows, n, sizeof(*rows), pg_row_cmp);
        for (size_t i = 0; i < n; i++)
                pg_print_row(f, r, rows[i], unit_w);
        if (!n)
                fputs("   (no counters in this result)\n", f);
        free(rows);

        fputc('\n', f);
        if (r->host.exclude_kernel)
                fprintf(f,
                        " Kernel space excluded (exclude_kernel=1, perf_event_paranoid %d): "
                        "user-space counts only.\n",
                        r->host.perf_event_paranoid);
        else
                fprintf(f, " User and kernel space counted (perf_event_paranoid %d).\n",
                        r->host.perf_event_paranoid);
        if (r->leftovers.present) {
                struct pg_buf t = PG_BUF_INIT;
                pg_leftovers_describe(&t, &r->leftovers);
                fprintf(f, " Processes left running: %s above.\n", t.ptr);
                pg_buf_release(&t);
        }

        for (size_t i = 0; i < r->nmetrics; i++)
                if (r->metrics[i].status == PG_METRIC_NOT_SUPPORTED) {
                        fprintf(f,
                                " <not supported>: this host cannot count that event%s; "
                                "'perfgate doctor' shows what it can measure.\n",
                                r->host.npmu ? "" : " (it has no hardware PMU)");
                        break;
                }

        if (pg_result_find_metric(r, "duration_time")) {
                fputc('\n', f);
                pg_print_time_line(f, r, "duration_time", "time elapsed");
        }
        if (pg_result_find_metric(r, "user-time") || pg_result_find_metric(r, "system-time") ||
            pg_result_find_metric(r, "max-rss")) {
                fputc('\n', f);
                pg_print_time_line(f, r, "user-time", "user");
                pg_print_time_line(f, r, "system-time", "sys");
                pg_print_time_line(f, r, "max-rss", "max-rss");
        }
}

/* ---- hotspots ---------------------------------------------------------- */

/* A function as shown: its name with control bytes escaped, and its figures. */
struct pg_shown_func {
        char *name;
        size_t id; /* index in the struct pg_profile_funcs */
        uint64_t children, self;
};

/* @name with control bytes shown as \n, \x1b: nothing a name holds can move
 * the cursor or colour the terminal (the same rule as the compare text
 * report). */
static char *pg_shown_name(const char *name)
{
        struct pg_buf esc = PG_BUF_INIT;
        pg_report_escape_ctl(&esc, name);
        return pg_buf_detach(&esc, NULL);
}

/* List order of functions @a and @b of @pf: children, then self (both
 * descending), then shown name, then index (the order a stable sort of all
 * functions gives). */
static int pg_shown_order(const struct pg_profile_funcs *pf, size_t a, size_t b)
{
        const struct pg_profile_func *x = &pf->funcs[a], *y = &pf->funcs[b];
        char *na, *nb;
        int c;

        if (x->incl != y->incl)
                return x->incl > y->incl ? -1 : 1;
        if (x->self != y->self)
                return x->self > y->self ? -1 : 1;
        na = pg_shown_name(pf->names.keys[a].ptr);
        nb = pg_shown_name(pf->names.keys[b].ptr);
        c = strcmp(na, nb);
        free(na);
        free(nb);
        return c ? c : (a > b) - (a < b);
}

/* The first (at most) @n functions of @pf in list order, into @top; returns
 * how many. One pass with an insertion into a sorted @n-array: a profile of
 * a million functions is not sorted to print twenty of them. */
static size_t pg_shown_top(const struct pg_profile_funcs *pf, size_t n, size_t *top)
{
        size_t k = 0;

        for (size_t i = 0; i < pf->names.n; i++) {
                size_t j;
                if (k == n && pg_shown_order(pf, i, top[k - 1]) > 0)
                        continue;
                if (k < n)
                        k++;
                for (j = k - 1; j > 0 && pg_shown_order(pf, i, top[j - 1]) < 0; j--)
                        top[j] = top[j - 1];
                top[j] = i;
        }
        return k;
}

/* Module of a folded frame, from its annotation or an unresolved "[module]". */
static const char *pg_frame_module(const char *name, char *buf, size_t bufsz)
{
        size_t len = strlen(name);
        enum pg_frame_kind kind;

        pg_frame_strip(name, len, &kind);
        if (len > 4 && kind == PG_FRAME_KERNEL)
                return "[kernel]";
        if (len > 4 && kind == PG_FRAME_JIT)
                return "[jit]";
        if (len > 2 && name[0] == '[' && name[len - 1] == ']' && strcmp(name, "[unknown]") != 0) {
                snprintf(buf, bufsz, "%.*s", (int) (len - 2), name + 1);
                return buf;
        }
        return "";
}

static void pg_print_pct(FILE *f, double pct, bool color)
{
        const char *c = !color ? "" : pct >= 5 ? PG_ANSI_RED : pct >= 0.5 ? PG_ANSI_GREEN : "";

        fprintf(f, "  %s%7.2f%%%s", c, pct, *c ? PG_ANSI_RESET : "");
}

/* "hottest path: f > g > h (12.34%)" under function @id, when it has one. */
static void pg_print_hot_path(FILE *f, const struct pg_profile_funcs *pf,
                              const struct pg_profile *p, size_t id, const char *name, int indent)
{
        size_t path[PG_SHOW_PATH_MAX], depth;
        uint64_t weight;
        bool cut;

        depth = pg_profile_callee_path(pf, p, id, PG_SHOW_PATH_MAX, path, &cut, &weight);
        if (!depth)
                return;
        fprintf(f, "%*shottest path: %s", indent, "", name);
        for (size_t i = 0; i < depth; i++) {
                char *n = pg_shown_name(pf->names.keys[path[i]].ptr);
                fprintf(f, " > %s", n);
                free(n);
        }
        fprintf(f, "%s (%.2f%%)\n", cut ? " > ..." : "",
                (double) weight * 100 / (double) pf->total);
}

/* A blocking path as shown: the user frames of off-CPU stacks (the comm
 * and every kernel frame dropped), their blocked time summed. */
struct pg_block_path {
        char *path;
        uint64_t ns;
};

static int pg_block_path_cmp(const void *a, const void *b)
{
        const struct pg_block_path *x = a, *y = b;
        if (x->ns != y->ns)
                return x->ns > y->ns ? -1 : 1;
        return strcmp(x->path, y->path);
}

/* The off-CPU profile's heaviest blocking paths, " > "-joined user frames,
 * with ms blocked per run and the share of all blocked time. */
static void pg_print_blocking_paths(FILE *f, const struct pg_profile *p, uint64_t total)
{
        struct pg_strmap names = { 0 };
        struct pg_block_path *paths = pg_xcalloc(p->nstacks + 1, sizeof(*paths));
        struct pg_buf key = PG_BUF_INIT;
        uint64_t runs = p->runs ? p->runs : 1;
        size_t n = 0;

        for (size_t i = 0; i < p->nstacks; i++) {
                size_t idx;
                bool added;

                pg_offcpu_path(&key, p->stacks[i].frames);
                idx = pg_strmap_intern(&names, key.ptr, key.len, &added);
                if (added)
                        paths[n++] = (struct pg_block_path){ NULL, 0 };
                paths[idx].ns += p->stacks[i].count;
        }
        for (size_t i = 0; i < n; i++)
                paths[i].path = pg_shown_name(names.keys[i].ptr);
        qsort(paths, n, sizeof(*paths), pg_block_path_cmp);
        fprintf(f, "\n  Blocked/run   Share  Top blocking paths (user frames, root first)\n");
        for (size_t i = 0; i < n && i < PG_SHOW_BLOCK_PATHS; i++)
                fprintf(f, "  %9.2f ms  %5.1f%%  %s\n", (double) paths[i].ns / 1e6 / (double) runs,
                        100.0 * (double) paths[i].ns / (double) total, paths[i].path);
        for (size_t i = 0; i < n; i++)
                free(paths[i].path);
        free(paths);
        pg_buf_release(&key);
        pg_strmap_release(&names);
}

/* The function list of @p (on-CPU samples, or off-CPU ns when @offcpu). */
static void pg_print_profile(FILE *f, const struct pg_profile *p, bool offcpu, bool color)
{
        struct pg_profile_funcs pf;
        struct pg_shown_func *funcs = NULL;
        size_t nshow = 0, name_w = 8, top[PG_SHOW_TOP];
        bool any_module = false;

        if (offcpu) {
                uint64_t runs = p->runs ? p->runs : 1;
                fprintf(f,
                        "\n %sOff-CPU%s: %.2f ms blocked per run (all threads), %llu run%s, "
                        "switch-out stacks of %s, call graph %s\n",
                        color ? PG_ANSI_BOLD : "", color ? PG_ANSI_RESET : "",
                        (double) p->samples / 1e6 / (double) runs, (unsigned long long) p->runs,
                        p->runs == 1 ? "" : "s", p->event ? p->event : "?",
                        p->call_graph ? p->call_graph : "?");
        } else {
                fprintf(
                    f, "\n %sProfile%s: %llu samples of %s at %llu Hz, call graph %s, %llu run%s, ",
                    color ? PG_ANSI_BOLD : "", color ? PG_ANSI_RESET : "",
                    (unsigned long long) p->samples, p->event ? p->event : "?",
                    (unsigned long long) p->frequency_hz, p->call_graph ? p->call_graph : "?",
                    (unsigned long long) p->runs, p->runs == 1 ? "" : "s");
                fprintf(f, "%s\n", p->kernel ? "user and kernel frames" : "user-space frames only");
        }
        fprintf(f, " lost %llu, throttled %llu, truncated %llu", (unsigned long long) p->lost,
                (unsigned long long) p->throttled, (unsigned long long) p->truncated);
        if (p->frames > 0)
                fprintf(f, ", unresolved frames %llu of %llu", (unsigned long long) p->unresolved,
                        (unsigned long long) p->frames);
        fprintf(f, "\n");

        pg_profile_funcs_scan_paths(&pf, p);
        if (!pf.total) {
                fputs(offcpu ? "\n No thread blocked.\n"
                             : "\n No samples: the benchmark ran too briefly to be sampled.\n",
                      f);
                goto done;
        }
        if (offcpu) {
                /* every off-CPU stack ends in the scheduler: a function list
                 * would be led by kernel frames at 100%; the paths say where */
                pg_print_blocking_paths(f, p, pf.total);
                goto done;
        }
        nshow = pg_shown_top(&pf, PG_SHOW_TOP, top);
        funcs = pg_xcalloc(nshow ? nshow : 1, sizeof(*funcs));
        for (size_t i = 0; i < nshow; i++) {
                funcs[i].name = pg_shown_name(pf.names.keys[top[i]].ptr);
                funcs[i].id = top[i];
                funcs[i].children = pf.funcs[top[i]].incl;
                funcs[i].self = pf.funcs[top[i]].self;
        }
        for (size_t i = 0; i < nshow; i++) {
                char mb[256];
                size_t w = pg_text_width(funcs[i].name);
                if (w > name_w)
                        name_w = w;
                any_module |= *pg_frame_module(funcs[i].name, mb, sizeof(mb)) != '\0';
        }
        if (name_w > PG_SHOW_NAME_MAX)
                name_w = PG_SHOW_NAME_MAX;

        if (any_module)
                fprintf(f, "\n  Children      Self  %-*s  Module\n", (int) name_w, "Function");
        else
                fprintf(f, "\n  Children      Self  Function\n");
        for (size_t i = 0; i < nshow; i++) {
                char mb[256];
                const char *mod = pg_frame_module(funcs[i].name, mb, sizeof(mb));

                pg_print_pct(f, (double) funcs[i].children * 100 / (double) pf.total, color);
                pg_print_pct(f, (double) funcs[i].self * 100 / (double) pf.total, color);
                if (*mod) {
                        fputs("  ", f);
                        pg_fput_pad(f, funcs[i].name, name_w);
                        fprintf(f, "  %s\n", mod);
                } else {
                        fprintf(f, "  %s\n", funcs[i].name);
                }
                pg_print_hot_path(f, &pf, p, funcs[i].id, funcs[i].name, 22);
        }
        if (pf.names.n > nshow)
                fprintf(f, "  (%zu more functions; 'perfgate show --stacks' lists every stack)\n",
                        pf.names.n - nshow);
done:
        for (size_t i = 0; funcs && i < nshow; i++)
                free(funcs[i].name);
        free(funcs);
        pg_profile_funcs_release(&pf);
}

/* Order of the scheduler-latency rows: longest delay first (ties: by comm). */
static int pg_sched_row_cmp(const void *a, const void *b)
{
        const struct pg_sched_task *x = *(const struct pg_sched_task *const *) a;
        const struct pg_sched_task *y = *(const struct pg_sched_task *const *) b;

        if (x->delay_max_ns != y->delay_max_ns)
                return x->delay_max_ns > y->delay_max_ns ? -1 : 1;
        return strcmp(x->comm, y->comm);
}

/* The scheduler latency per task, as `perf sched latency` prints it, per run. */
static void pg_print_sched(FILE *f, const struct pg_sched *s, bool color)
{
        const struct pg_sched_task **rows = pg_xcalloc(s->n + 1, sizeof(*rows));
        double runs = (double) (s->runs ? s->runs : 1);

        for (size_t i = 0; i < s->n; i++)
                rows[i] = &s->tasks[i];
        qsort(rows, s->n, sizeof(*rows), pg_sched_row_cmp);
        fprintf(f, "\n %sScheduler latency%s: %llu run%s, wakeup or preemption to running\n",
                color ? PG_ANSI_BOLD : "", color ? PG_ANSI_RESET : "", (unsigned long long) s->runs,
                s->runs == 1 ? "" : "s");
        if (!s->n) {
                fputs("\n No task of the benchmark was seen running.\n", f);
                free(rows);
                return;
        }
        fprintf(f, "\n  %-16s %7s %12s %10s %12s %12s\n", "Task", "Threads", "Runtime/run",
                "Switches", "Avg delay", "Max delay");
        for (size_t i = 0; i < s->n; i++) {
                const struct pg_sched_task *t = rows[i];
                char *name = pg_shown_name(t->comm);

                fputs("  ", f);
                pg_fput_pad(f, name, 16);
                fprintf(f, " %7llu %9.3f ms %10.1f %9.3f ms %9.3f ms\n",
                        (unsigned long long) t->threads, (double) t->runtime_ns / 1e6 / runs,
                        (double) t->switches / runs,
                        t->switches ? (double) t->delay_total_ns / 1e6 / (double) t->switches : 0.0,
                        (double) t->delay_max_ns / 1e6);
                free(name);
        }
        free(rows);
}

void pg_cli_print_result(FILE *f, const struct pg_result *r, bool color)
{
        pg_print_header(f, r, color);
        pg_print_counters(f, r);
        if (r->profile.present)
                pg_print_profile(f, &r->profile, false, color);
        if (r->offcpu.present)
                pg_print_profile(f, &r->offcpu, true, color);
        if (r->sched.present)
                pg_print_sched(f, &r->sched, color);
}
