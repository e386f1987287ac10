/*
 * trends.c - series, change points, trends and top-function shares of a
 * history (trends.h), and their JSON form.
 *
 * Self shares come from pg_profile_funcs_scan() (compare/profile.h), the
 * counts `perfgate show` and `compare` report (comm frame skipped, a
 * function counted as self where it is the innermost frame not inlined).
 */
#include "compare/trends.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/error.h"
#include "common/hashmap.h"
#include "common/json.h"
#include "compare/profile.h"
#include "compare/stats.h"

void pg_trends_opts_init(struct pg_trends_opts *o)
{
        memset(o, 0, sizeof(*o));
        pg_cp_opts_init(&o->cp);
}

void pg_trends_page_name(struct pg_buf *out, const char *benchmark)
{
        static const char hex[] = "0123456789abcdef";
        for (const unsigned char *s = (const unsigned char *) benchmark; *s; s++) {
                if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                    (*s >= '0' && *s <= '9') || *s == '.' || *s == '-') {
                        pg_buf_putc(out, (char) *s);
                } else {
                        pg_buf_putc(out, '_');
                        pg_buf_putc(out, hex[*s >> 4]);
                        pg_buf_putc(out, hex[*s & 15]);
                }
        }
        pg_buf_puts(out, ".html");
}

static void pg_series_release(struct pg_series *s)
{
        free(s->metric);
        free(s->unit);
        free(s->points);
        free(s->cps);
}

void pg_trends_release(struct pg_trends *t)
{
        for (size_t i = 0; i < t->nbench; i++) {
                struct pg_bench_trends *b = &t->bench[i];
                for (size_t j = 0; j < b->nseries; j++)
                        pg_series_release(&b->series[j]);
                for (size_t j = 0; j < b->nfunctions; j++) {
                        free(b->functions[j].name);
                        free(b->functions[j].share);
                }
                free(b->series);
                free(b->functions);
                free(b->name);
        }
        free(t->bench);
        memset(t, 0, sizeof(*t));
}

/* Sorted unique strings: add @s (borrowed) to @v if absent. */
static void pg_strset_add(const char ***v, size_t *n, const char *s)
{
        size_t lo = 0, hi = *n;
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp((*v)[mid], s);
                if (c == 0)
                        return;
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *v = pg_xreallocarray(*v, *n + 1, sizeof(**v));
        memmove(&(*v)[lo + 1], &(*v)[lo], (*n - lo) * sizeof(**v));
        (*v)[lo] = s;
        (*n)++;
}

/* Whether @metric is charted for @r: asked for, or gating by default. */
static bool pg_trends_wants(const struct pg_trends_opts *o, const struct pg_rules *rules,
                            const struct pg_result *r, const char *metric,
                            struct pg_metric_rule *rule)
{
        if (r->counters && strcmp(r->counters, "simulated") == 0 && pg_metric_is_simulated(metric))
                pg_rules_get_simulated(rules, r->name, metric, rule);
        else
                pg_rules_get(rules, r->name, metric, rule);
        if (o->nmetrics) {
                for (size_t i = 0; i < o->nmetrics; i++)
                        if (strcmp(o->metrics[i], metric) == 0)
                                return true;
                return false;
        }
        return rule->gate;
}

static double pg_trends_window_median(const struct pg_series *s, size_t from, size_t w)
{
        double *v = pg_xcalloc(w, sizeof(*v)), m;
        for (size_t i = 0; i < w; i++)
                v[i] = s->points[from + i].median;
        m = pg_stats_median(v, w);
        free(v);
        return m;
}

static int pg_series_build(struct pg_series *s, const struct pg_history *h, const char *bench,
                           const struct pg_cp_opts *cp)
{
        double *medians;
        size_t w;
        int error;

        s->points = pg_xcalloc(h->n ? h->n : 1, sizeof(*s->points));
        for (size_t i = 0; i < h->n; i++) {
                const struct pg_result *r = pg_result_set_find(&h->points[i].results, bench);
                const struct pg_metric *m = r ? pg_result_find_metric(r, s->metric) : NULL;
                struct pg_series_point *p;
                if (!m || m->status != PG_METRIC_OK || m->nvalues == 0)
                        continue;
                if (!s->unit)
                        s->unit = pg_xstrdup(m->unit);
                p = &s->points[s->n++];
                p->commit = i;
                p->nvalues = m->nvalues;
                p->median = pg_stats_median(m->values, m->nvalues);
                p->min = p->max = m->values[0];
                for (size_t k = 1; k < m->nvalues; k++) {
                        if (m->values[k] < p->min)
                                p->min = m->values[k];
                        if (m->values[k] > p->max)
                                p->max = m->values[k];
                }
        }
        medians = pg_xcalloc(s->n ? s->n : 1, sizeof(*medians));
        for (size_t i = 0; i < s->n; i++)
                medians[i] = s->points[i].median;
        error = pg_changepoints_find(medians, s->n, cp, &s->cps, &s->ncp);
        free(medians);
        if (error < 0)
                return pg_error_prefix(error, "benchmark '%s', metric '%s'", bench, s->metric);
        if (s->n >= 2) {
                double first, last;
                w = s->n / 4;
                if (w < 1)
                        w = 1;
                if (w > PG_TRENDS_TREND_WINDOW)
                        w = PG_TRENDS_TREND_WINDOW;
                first = pg_trends_window_median(s, 0, w);
                last = pg_trends_window_median(s, s->n - w, w);
                s->trend_window = w;
                if (first != 0) {
                        s->has_trend = true;
                        s->trend = last / first - 1;
                }
        }
        return 0;
}

/* One function's self share at one history point. */
struct pg_share_entry {
        uint32_t fn; /* index in the benchmark's name map */
        size_t point;
        double share;
};

/* One function's mean share, for the ranking. */
struct pg_fn_total {
        const char *name; /* borrowed from the name map */
        size_t fn;
        double mean_share;
};

static int pg_fn_mean_cmp(const void *a, const void *b)
{
        const struct pg_fn_total *x = a, *y = b;
        if (x->mean_share != y->mean_share)
                return x->mean_share > y->mean_share ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* The top functions of @b by mean self share, with their share at each
 * commit. Names are interned once per benchmark (a 1,000-commit history
 * repeats each name at every commit). */
static void pg_bench_functions(struct pg_bench_trends *b, const struct pg_history *h)
{
        struct pg_strmap names = PG_STRMAP_INIT;
        struct pg_share_entry *e = NULL;
        struct pg_fn_total *all;
        double *sum = NULL;
        size_t ne = 0, cape = 0, capsum = 0, nprofiled = 0;
        bool *profiled = pg_xcalloc(h->n ? h->n : 1, sizeof(*profiled));

        for (size_t i = 0; i < h->n; i++) {
                const struct pg_result *r = pg_result_set_find(&h->points[i].results, b->name);
                struct pg_profile_funcs pf;
                if (!r || !r->profile.present || r->profile.nstacks == 0)
                        continue;
                pg_profile_funcs_scan(&pf, &r->profile);
                if (pf.total > 0) {
                        profiled[i] = true;
                        nprofiled++;
                        for (size_t k = 0; k < pf.names.n; k++) {
                                size_t fn;
                                if (pf.funcs[k].self == 0)
                                        continue;
                                fn = pg_strmap_intern(&names, pf.names.keys[k].ptr,
                                                      pf.names.keys[k].len, NULL);
                                if (fn >= capsum) {
                                        size_t old = capsum;
                                        capsum = capsum ? 2 * capsum : 64;
                                        sum = pg_xreallocarray(sum, capsum, sizeof(*sum));
                                        memset(sum + old, 0, (capsum - old) * sizeof(*sum));
                                }
                                if (ne == cape) {
                                        cape = cape ? 2 * cape : 256;
                                        e = pg_xreallocarray(e, cape, sizeof(*e));
                                }
                                e[ne].fn = (uint32_t) fn;
                                e[ne].point = i;
                                e[ne].share = (double) pf.funcs[k].self / (double) pf.total;
                                sum[fn] += e[ne].share;
                                ne++;
                        }
                }
                pg_profile_funcs_release(&pf);
        }
        all = pg_xcalloc(names.n ? names.n : 1, sizeof(*all));
        for (size_t f = 0; f < names.n; f++) {
                all[f].name = names.keys[f].ptr;
                all[f].fn = f;
                all[f].mean_share = sum[f] / (double) nprofiled;
        }
        if (names.n)
                qsort(all, names.n, sizeof(*all), pg_fn_mean_cmp);
        b->nfunctions = names.n < PG_TRENDS_TOP_FUNCTIONS ? names.n : PG_TRENDS_TOP_FUNCTIONS;
        b->functions = pg_xcalloc(b->nfunctions ? b->nfunctions : 1, sizeof(*b->functions));
        for (size_t f = 0; f < b->nfunctions; f++) {
                double *share = pg_xcalloc(h->n ? h->n : 1, sizeof(*share));
                for (size_t i = 0; i < h->n; i++)
                        share[i] = profiled[i] ? 0 : -1;
                b->functions[f].name = pg_xstrdup(all[f].name);
                b->functions[f].mean_share = all[f].mean_share;
                b->functions[f].share = share;
        }
        /* the top functions' shares at the commits that have them */
        for (size_t k = 0; k < ne; k++)
                for (size_t f = 0; f < b->nfunctions; f++)
                        if (all[f].fn == e[k].fn)
                                b->functions[f].share[e[k].point] = e[k].share;
        pg_strmap_release(&names);
        free(e);
        free(sum);
        free(all);
        free(profiled);
}

int pg_trends_build(struct pg_trends *t, const struct pg_history *h,
                    const struct pg_trends_opts *opts)
{
        struct pg_trends_opts dflt;
        struct pg_rules defaults;
        const struct pg_rules *rules;
        const char **names = NULL;
        size_t nnames = 0;
        int error = 0;

        if (!opts) {
                pg_trends_opts_init(&dflt);
                opts = &dflt;
        }
        memset(t, 0, sizeof(*t));
        t->history = h;
        pg_rules_init(&defaults);
        rules = opts->rules ? opts->rules : &defaults;
        for (size_t i = 0; i < h->n; i++)
                for (size_t k = 0; k < h->points[i].results.n; k++)
                        pg_strset_add(&names, &nnames, h->points[i].results.items[k].name);
        t->bench = pg_xcalloc(nnames ? nnames : 1, sizeof(*t->bench));
        for (size_t bi = 0; bi < nnames && !error; bi++) {
                struct pg_bench_trends *b = &t->bench[t->nbench++];
                const char **metrics = NULL;
                size_t nmetrics = 0;

                b->name = pg_xstrdup(names[bi]);
                for (size_t i = 0; i < h->n; i++) {
                        const struct pg_result *r =
                            pg_result_set_find(&h->points[i].results, b->name);
                        if (!r)
                                continue;
                        b->npoints++;
                        for (size_t m = 0; m < r->nmetrics; m++) {
                                struct pg_metric_rule rule;
                                if (r->metrics[m].status == PG_METRIC_OK &&
                                    pg_trends_wants(opts, rules, r, r->metrics[m].name, &rule))
                                        pg_strset_add(&metrics, &nmetrics, r->metrics[m].name);
                        }
                }
                b->series = pg_xcalloc(nmetrics ? nmetrics : 1, sizeof(*b->series));
                for (size_t m = 0; m < nmetrics && !error; m++) {
                        struct pg_series *s = &b->series[b->nseries++];
                        struct pg_metric_rule rule;
                        pg_rules_get(rules, b->name, metrics[m], &rule);
                        s->metric = pg_xstrdup(metrics[m]);
                        s->direction = rule.direction;
                        error = pg_series_build(s, h, b->name, &opts->cp);
                }
                free(metrics);
                if (!error)
                        pg_bench_functions(b, h);
        }
        free(names);
        pg_rules_release(&defaults);
        if (error)
                pg_trends_release(t);
        return error;
}

/* ---- JSON --------------------------------------------------------------- */

void pg_trends_flame_path(struct pg_buf *out, const char *benchmark, const char *commit, bool diff)
{
        struct pg_buf page = PG_BUF_INIT;
        pg_trends_page_name(&page, benchmark);
        pg_buf_truncate(&page, page.len - 5); /* less ".html" */
        pg_buf_printf(out, "flame/%s.%s%.12s.svg", page.ptr, diff ? "diff-" : "", commit);
        pg_buf_release(&page);
}

static cJSON *pg_num_array(const struct pg_series *s, int which)
{
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; i < s->n; i++) {
                const struct pg_series_point *p = &s->points[i];
                double v = which == 0   ? (double) p->commit
                           : which == 1 ? p->median
                           : which == 2 ? p->min
                                        : p->max;
                cJSON_AddItemToArray(a, cJSON_CreateNumber(v));
        }
        return a;
}

static const char *pg_direction_name(enum pg_direction d)
{
        return d == PG_DIR_HIGHER_IS_BETTER  ? "higher"
               : d == PG_DIR_LOWER_IS_BETTER ? "lower"
                                             : "none";
}

int pg_trends_to_json(const struct pg_trends *t, struct pg_buf *out)
{
        const struct pg_history *h = t->history;
        cJSON *root = cJSON_CreateObject(), *commits, *benches;
        int error;

        cJSON_AddStringToObject(root, "schema", "perfgate/history/1");
        cJSON_AddStringToObject(root, "branch", h->branch ? h->branch : "");
        if (h->tip)
                cJSON_AddStringToObject(root, "tip", h->tip);
        else
                cJSON_AddNullToObject(root, "tip");
        cJSON_AddStringToObject(root, "machine", h->machine ? h->machine : "default");
        if (h->source_ref)
                cJSON_AddStringToObject(root, "data_branch", h->source_ref);
        else
                cJSON_AddNullToObject(root, "data_branch");
        commits = cJSON_AddArrayToObject(root, "commits");
        for (size_t i = 0; i < h->n; i++) {
                cJSON *c = cJSON_CreateObject();
                cJSON_AddStringToObject(c, "commit", h->points[i].commit);
                cJSON_AddStringToObject(c, "subject", h->points[i].subject);
                cJSON_AddNumberToObject(c, "time", (double) h->points[i].time_s);
                cJSON_AddItemToArray(commits, c);
        }
        benches = cJSON_AddArrayToObject(root, "benchmarks");
        for (size_t bi = 0; bi < t->nbench; bi++) {
                const struct pg_bench_trends *b = &t->bench[bi];
                cJSON *bo = cJSON_CreateObject(), *series, *fns;
                struct pg_buf page = PG_BUF_INIT;

                pg_trends_page_name(&page, b->name);
                cJSON_AddStringToObject(bo, "name", b->name);
                cJSON_AddStringToObject(bo, "page", page.ptr);
                pg_buf_release(&page);
                series = cJSON_AddArrayToObject(bo, "series");
                for (size_t si = 0; si < b->nseries; si++) {
                        const struct pg_series *s = &b->series[si];
                        cJSON *so = cJSON_CreateObject(), *cps;
                        cJSON_AddStringToObject(so, "metric", s->metric);
                        cJSON_AddStringToObject(so, "unit", s->unit ? s->unit : "");
                        cJSON_AddStringToObject(so, "direction", pg_direction_name(s->direction));
                        cJSON_AddItemToObject(so, "commits", pg_num_array(s, 0));
                        cJSON_AddItemToObject(so, "median", pg_num_array(s, 1));
                        cJSON_AddItemToObject(so, "min", pg_num_array(s, 2));
                        cJSON_AddItemToObject(so, "max", pg_num_array(s, 3));
                        if (s->n)
                                cJSON_AddNumberToObject(so, "latest", s->points[s->n - 1].median);
                        else
                                cJSON_AddNullToObject(so, "latest");
                        if (s->has_trend)
                                cJSON_AddNumberToObject(so, "trend", s->trend);
                        else
                                cJSON_AddNullToObject(so, "trend");
                        cJSON_AddNumberToObject(so, "trend_window", (double) s->trend_window);
                        cps = cJSON_AddArrayToObject(so, "change_points");
                        for (size_t k = 0; k < s->ncp; k++) {
                                const struct pg_changepoint *cp = &s->cps[k];
                                size_t ci = s->points[cp->index].commit;
                                cJSON *co = cJSON_CreateObject();
                                struct pg_buf path = PG_BUF_INIT;
                                cJSON_AddStringToObject(co, "commit", h->points[ci].commit);
                                cJSON_AddStringToObject(co, "subject", h->points[ci].subject);
                                cJSON_AddNumberToObject(co, "index", (double) ci);
                                cJSON_AddNumberToObject(co, "before", cp->before);
                                cJSON_AddNumberToObject(co, "after", cp->after);
                                if (cp->has_effect)
                                        cJSON_AddNumberToObject(co, "effect", cp->effect);
                                else
                                        cJSON_AddNullToObject(co, "effect");
                                cJSON_AddNumberToObject(co, "p_value", cp->p_value);
                                pg_trends_flame_path(&path, b->name, h->points[ci].commit, true);
                                cJSON_AddStringToObject(co, "diff_flamegraph", path.ptr);
                                pg_buf_release(&path);
                                cJSON_AddItemToArray(cps, co);
                        }
                        cJSON_AddItemToArray(series, so);
                }
                fns = cJSON_AddArrayToObject(bo, "hotspots");
                for (size_t f = 0; f < b->nfunctions; f++) {
                        cJSON *fo = cJSON_CreateObject(), *sh;
                        cJSON_AddStringToObject(fo, "function", b->functions[f].name);
                        cJSON_AddNumberToObject(fo, "mean_share", b->functions[f].mean_share);
                        sh = cJSON_AddArrayToObject(fo, "share");
                        for (size_t i = 0; i < h->n; i++)
                                cJSON_AddItemToArray(
                                    sh, b->functions[f].share[i] < 0
                                            ? cJSON_CreateNull()
                                            : cJSON_CreateNumber(b->functions[f].share[i]));
                        cJSON_AddItemToArray(fns, fo);
                }
                cJSON_AddItemToArray(benches, bo);
        }
        error = pg_json_write(out, root);
        cJSON_Delete(root);
        return error;
}
