/*
 * rules.c - perfgate.json's "compare" section (rules.h): its parsing, the
 * check of the names it uses, and the rule it makes for one metric. Keys
 * are checked against the fixed lists below; metric names against the
 * built-in set (compare/defaults.h) plus the loaded results
 * (pg_rules_check()).
 */
#include "compare/rules.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/strdist.h"
#include "common/json.h"
#include "common/strv.h"
#include "compare/stats.h"

struct pg_rule_override {
        char *benchmark; /* NULL: every benchmark */
        char *metric;    /* NULL: the benchmark's "gate" list */
        bool has_threshold, has_direction, has_gate, has_noise, has_alpha;
        enum pg_threshold_kind kind;
        double threshold;
        enum pg_direction direction;
        bool gate;
        double noise_factor;
        double alpha;
        size_t ngate;
        char **gatelist;
};

void pg_rules_init(struct pg_rules *r)
{
        memset(r, 0, sizeof(*r));
        r->alpha = 0.05;
        r->noise_factor = 3;
        r->min_coverage = 0.5;
        r->hotspots.threshold_pp = 2.0;
        r->hotspots.alpha = 0.001;
        r->hotspots.min_samples = 20;
        r->hotspots.new_pp = 1.0;
        r->hotspots.gate = false;
        pg_offcpu_rule_init(&r->offcpu);
}

void pg_rules_release(struct pg_rules *r)
{
        free(r->origin);
        pg_strv_free(r->gate);
        for (size_t i = 0; i < r->noverrides; i++) {
                free(r->overrides[i].benchmark);
                free(r->overrides[i].metric);
                pg_strv_free(r->overrides[i].gatelist);
        }
        free(r->overrides);
        memset(r, 0, sizeof(*r));
}

int pg_threshold_parse(const char *s, enum pg_threshold_kind *kind, double *value)
{
        char *end;
        double v;

        if (!s || !*s)
                goto bad;
        v = strtod(s, &end);
        if (end == s || !isfinite(v) || v < 0)
                goto bad;
        if (strcmp(end, "%") == 0) {
                *kind = PG_THRESHOLD_RELATIVE;
                *value = v / 100;
                return 0;
        }
        if (strcmp(end, "pp") == 0) {
                *kind = PG_THRESHOLD_POINTS;
                *value = v;
                return 0;
        }
bad:
        return pg_error_set(PG_EINPUT,
                            "threshold '%s' is not a relative change like \"5%%\" or a change in "
                            "percentage points like \"0.5pp\"",
                            s ? s : "");
}

static int pg_bad_key(const char *origin, const char *key, const char *what)
{
        return pg_error_set(PG_EINPUT, "'%s': compare.%s %s", origin, key, what);
}

/* pg_json_check_keys() for the object at compare.@path ("" for "compare" itself). */
static int pg_check_keys(const cJSON *o, const char *path, const char *origin,
                         const char *const *known)
{
        char *where = *path ? pg_xasprintf("compare.%s", path) : pg_xstrdup("compare");
        int e = pg_json_check_keys(o, known, origin, where);
        free(where);
        return e;
}

static int pg_get_fraction(const cJSON *o, const char *key, const char *path, const char *origin,
                           double lo, double hi, double *out)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!it)
                return 0;
        if (!cJSON_IsNumber(it) || !(it->valuedouble > lo && it->valuedouble <= hi)) {
                char *msg = pg_xasprintf("must be a number in (%g, %g]", lo, hi);
                int e = pg_bad_key(origin, path, msg);
                free(msg);
                return e;
        }
        *out = it->valuedouble;
        return 1;
}

static int pg_get_strv(const cJSON *arr, const char *path, const char *origin, char ***out,
                       size_t *n)
{
        const cJSON *c;
        size_t k = 0;

        if (!cJSON_IsArray(arr))
                return pg_bad_key(origin, path, "must be an array of metric names");
        cJSON_ArrayForEach(c, arr)
        {
                if (!cJSON_IsString(c))
                        return pg_bad_key(origin, path, "must be an array of metric names");
        }
        if (cJSON_GetArraySize(arr) == 0)
                return pg_bad_key(origin, path,
                                  "is empty, so no metric would ever fail the build; list the "
                                  "metrics that gate (default: task-clock, instructions), or "
                                  "remove the key to keep the defaults");
        *out = pg_xcalloc((size_t) cJSON_GetArraySize(arr) + 1, sizeof(char *));
        cJSON_ArrayForEach(c, arr)(*out)[k++] = pg_xstrdup(c->valuestring);
        *n = k;
        return 0;
}

static struct pg_rule_override *pg_add_override(struct pg_rules *r, const char *bench,
                                                const char *metric)
{
        struct pg_rule_override *o;

        r->overrides = pg_xreallocarray(r->overrides, r->noverrides + 1, sizeof(*r->overrides));
        o = &r->overrides[r->noverrides++];
        memset(o, 0, sizeof(*o));
        o->benchmark = bench ? pg_xstrdup(bench) : NULL;
        o->metric = metric ? pg_xstrdup(metric) : NULL;
        return o;
}

static const char *const pg_compare_keys[] = {
        "alpha",   "noise_factor", "min_coverage", "fail_on_missing", "gate",
        "metrics", "benchmarks",   "hotspots",     "offcpu",          NULL
};
static const char *const pg_override_keys[] = { "threshold",    "direction", "gate",
                                                "noise_factor", "alpha",     NULL };
static const char *const pg_bench_keys[] = { "gate", "metrics", NULL };
static const char *const pg_offcpu_keys[] = { "threshold", "min_ms", "min_share", NULL };
static const char *const pg_hotspot_keys[] = { "threshold", "alpha", "min_samples",
                                               "new",       "gate",  NULL };

static int pg_load_metric_overrides(struct pg_rules *r, const cJSON *mo, const char *bench,
                                    const char *prefix, const char *origin)
{
        const cJSON *m;
        int error = 0;

        if (!cJSON_IsObject(mo))
                return pg_bad_key(origin, prefix, "must be an object of metric names");
        cJSON_ArrayForEach(m, mo)
        {
                struct pg_rule_override *o;
                const cJSON *it;
                char *path = pg_xasprintf("%s.%s", prefix, m->string);

                if (!cJSON_IsObject(m)) {
                        error = pg_bad_key(origin, path, "must be an object");
                        free(path);
                        return error;
                }
                if ((error = pg_check_keys(m, path, origin, pg_override_keys)) < 0) {
                        free(path);
                        return error;
                }
                o = pg_add_override(r, bench, m->string);
                it = cJSON_GetObjectItemCaseSensitive(m, "threshold");
                if (it) {
                        if (!cJSON_IsString(it) ||
                            pg_threshold_parse(it->valuestring, &o->kind, &o->threshold) < 0) {
                                error = pg_bad_key(origin, path,
                                                   "threshold must be a string like \"5%\" "
                                                   "(relative change) or \"0.5pp\" (percentage "
                                                   "points)");
                                goto next;
                        }
                        o->has_threshold = true;
                }
                it = cJSON_GetObjectItemCaseSensitive(m, "direction");
                if (it) {
                        const char *d = cJSON_IsString(it) ? it->valuestring : "";
                        if (strcmp(d, "lower") == 0)
                                o->direction = PG_DIR_LOWER_IS_BETTER;
                        else if (strcmp(d, "higher") == 0)
                                o->direction = PG_DIR_HIGHER_IS_BETTER;
                        else if (strcmp(d, "none") == 0)
                                o->direction = PG_DIR_NONE;
                        else {
                                error = pg_bad_key(origin, path,
                                                   "direction must be \"lower\", \"higher\" or "
                                                   "\"none\" (which way is better)");
                                goto next;
                        }
                        o->has_direction = true;
                }
                it = cJSON_GetObjectItemCaseSensitive(m, "gate");
                if (it) {
                        if (!cJSON_IsBool(it)) {
                                error = pg_bad_key(origin, path, "gate must be true or false");
                                goto next;
                        }
                        o->has_gate = true;
                        o->gate = cJSON_IsTrue(it);
                }
                if ((error = pg_get_fraction(m, "noise_factor", path, origin, 0, 1000,
                                             &o->noise_factor)) < 0)
                        goto next;
                o->has_noise = error > 0;
                if ((error = pg_get_fraction(m, "alpha", path, origin, 0, 1, &o->alpha)) < 0)
                        goto next;
                o->has_alpha = error > 0;
                error = 0;
        next:
                free(path);
                if (error < 0)
                        return error;
        }
        return 0;
}

/* A threshold string at @key of @o in @want's unit ("2pp" or "50%") into
 * @out; @form describes it for the message. */
static int pg_load_threshold(const cJSON *o, const char *key, const char *path, const char *origin,
                             enum pg_threshold_kind want, const char *form, double *out)
{
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
        enum pg_threshold_kind kind = want;
        double v = 0;

        if (!it)
                return 0;
        if (!cJSON_IsString(it) || pg_threshold_parse(it->valuestring, &kind, &v) < 0 ||
            kind != want) {
                char *m = pg_xasprintf("must be a string %s", form);
                int e = pg_bad_key(origin, path, m);
                free(m);
                return e;
        }
        *out = v;
        return 0;
}

static int pg_load_pp(const cJSON *o, const char *key, const char *path, const char *origin,
                      double *out)
{
        return pg_load_threshold(o, key, path, origin, PG_THRESHOLD_POINTS,
                                 "in percentage points of all samples, like \"2pp\"", out);
}

static int pg_load_rel(const cJSON *o, const char *key, const char *path, const char *origin,
                       double *out)
{
        return pg_load_threshold(o, key, path, origin, PG_THRESHOLD_RELATIVE,
                                 "in percent, like \"50%\"", out);
}

/* compare.offcpu: when a blocking path regressed (compare/offcpu.h). */
static int pg_rules_load_offcpu(struct pg_rules *r, const cJSON *it, const char *origin)
{
        const cJSON *ms;
        int error;

        if (!cJSON_IsObject(it))
                return pg_bad_key(origin, "offcpu", "must be an object");
        if ((error = pg_check_keys(it, "offcpu", origin, pg_offcpu_keys)) < 0 ||
            (error = pg_load_rel(it, "threshold", "offcpu.threshold", origin,
                                 &r->offcpu.threshold)) < 0 ||
            (error = pg_load_rel(it, "min_share", "offcpu.min_share", origin,
                                 &r->offcpu.min_share)) < 0)
                return error;
        if (r->offcpu.min_share > 1)
                return pg_bad_key(origin, "offcpu.min_share", "must be at most \"100%\"");
        ms = cJSON_GetObjectItemCaseSensitive(it, "min_ms");
        if (ms) {
                if (!cJSON_IsNumber(ms) || !(ms->valuedouble >= 0) || ms->valuedouble > 1e9)
                        return pg_bad_key(origin, "offcpu.min_ms",
                                          "must be a number of milliseconds per run, 0 or more");
                r->offcpu.min_ms = ms->valuedouble;
        }
        return 0;
}

/* compare.benchmarks.@name: its own "gate" list and metric overrides. */
static int pg_rules_load_benchmark(struct pg_rules *r, const char *name, const cJSON *b,
                                   const char *path, const char *origin)
{
        const cJSON *g, *m;
        int error = 0;

        if (!cJSON_IsObject(b))
                return pg_bad_key(origin, path, "must be an object");
        if ((error = pg_check_keys(b, path, origin, pg_bench_keys)) < 0)
                return error;
        g = cJSON_GetObjectItemCaseSensitive(b, "gate");
        m = cJSON_GetObjectItemCaseSensitive(b, "metrics");
        if (g) {
                struct pg_rule_override *o = pg_add_override(r, name, NULL);
                char *gp = pg_xasprintf("%s.gate", path);
                error = pg_get_strv(g, gp, origin, &o->gatelist, &o->ngate);
                free(gp);
        }
        if (error == 0 && m) {
                char *mp = pg_xasprintf("%s.metrics", path);
                error = pg_load_metric_overrides(r, m, name, mp, origin);
                free(mp);
        }
        return error;
}

int pg_rules_load(struct pg_rules *r, const cJSON *compare, const char *origin)
{
        const cJSON *it, *b;
        int error;

        if (!compare)
                return 0;
        if (!cJSON_IsObject(compare))
                return pg_error_set(PG_EINPUT, "'%s': \"compare\" must be an object", origin);
        free(r->origin);
        r->origin = pg_xstrdup(origin);
        if ((error = pg_check_keys(compare, "", origin, pg_compare_keys)) < 0)
                return error;
        if ((error = pg_get_fraction(compare, "alpha", "alpha", origin, 0, 1, &r->alpha)) < 0 ||
            (error = pg_get_fraction(compare, "noise_factor", "noise_factor", origin, 0, 1000,
                                     &r->noise_factor)) < 0 ||
            (error = pg_get_fraction(compare, "min_coverage", "min_coverage", origin, 0, 1,
                                     &r->min_coverage)) < 0)
                return error;
        it = cJSON_GetObjectItemCaseSensitive(compare, "fail_on_missing");
        if (it) {
                if (!cJSON_IsBool(it))
                        return pg_bad_key(origin, "fail_on_missing", "must be true or false");
                r->fail_on_missing = cJSON_IsTrue(it);
        }
        it = cJSON_GetObjectItemCaseSensitive(compare, "gate");
        if (it) {
                if ((error = pg_get_strv(it, "gate", origin, &r->gate, &r->ngate)) < 0)
                        return error;
                r->has_gate_list = true;
        }
        it = cJSON_GetObjectItemCaseSensitive(compare, "metrics");
        if (it && (error = pg_load_metric_overrides(r, it, NULL, "metrics", origin)) < 0)
                return error;
        it = cJSON_GetObjectItemCaseSensitive(compare, "hotspots");
        if (it) {
                const cJSON *g, *ms;
                if (!cJSON_IsObject(it))
                        return pg_bad_key(origin, "hotspots", "must be an object");
                if ((error = pg_check_keys(it, "hotspots", origin, pg_hotspot_keys)) < 0)
                        return error;
                if ((error = pg_load_pp(it, "threshold", "hotspots.threshold", origin,
                                        &r->hotspots.threshold_pp)) < 0 ||
                    (error = pg_load_pp(it, "new", "hotspots.new", origin, &r->hotspots.new_pp)) <
                        0 ||
                    (error = pg_get_fraction(it, "alpha", "hotspots.alpha", origin, 0, 1,
                                             &r->hotspots.alpha)) < 0)
                        return error;
                ms = cJSON_GetObjectItemCaseSensitive(it, "min_samples");
                if (ms) {
                        if (!cJSON_IsNumber(ms) || ms->valuedouble < 0 ||
                            ms->valuedouble != floor(ms->valuedouble) || ms->valuedouble > 1e15)
                                return pg_bad_key(origin, "hotspots.min_samples",
                                                  "must be a non-negative integer");
                        r->hotspots.min_samples = (uint64_t) ms->valuedouble;
                }
                g = cJSON_GetObjectItemCaseSensitive(it, "gate");
                if (g) {
                        if (!cJSON_IsBool(g))
                                return pg_bad_key(origin, "hotspots.gate", "must be true or false");
                        r->hotspots.gate = cJSON_IsTrue(g);
                }
        }
        it = cJSON_GetObjectItemCaseSensitive(compare, "offcpu");
        if (it && (error = pg_rules_load_offcpu(r, it, origin)) < 0)
                return error;
        it = cJSON_GetObjectItemCaseSensitive(compare, "benchmarks");
        if (it) {
                if (!cJSON_IsObject(it))
                        return pg_bad_key(origin, "benchmarks",
                                          "must be an object of benchmark names");
                cJSON_ArrayForEach(b, it)
                {
                        char *path = pg_xasprintf("benchmarks.%s", b->string);
                        error = pg_rules_load_benchmark(r, b->string, b, path, origin);
                        free(path);
                        if (error < 0)
                                return error;
                }
        }
        return 0;
}

static bool pg_set_has_metric(const struct pg_result_set *s, const char *metric)
{
        for (size_t i = 0; s && i < s->n; i++)
                if (pg_result_find_metric(&s->items[i], metric))
                        return true;
        return false;
}

/* The unit of @metric in the first result of @a, then @b, that has it. */
static const char *pg_set_metric_unit(const struct pg_result_set *a, const struct pg_result_set *b,
                                      const char *metric)
{
        const struct pg_result_set *sets[2] = { a, b };
        for (int k = 0; k < 2; k++)
                for (size_t i = 0; sets[k] && i < sets[k]->n; i++) {
                        const struct pg_metric *m =
                            pg_result_find_metric(&sets[k]->items[i], metric);
                        if (m && m->unit)
                                return m->unit;
                }
        return NULL;
}

static bool pg_set_has_bench(const struct pg_result_set *s, const char *name)
{
        for (size_t i = 0; s && i < s->n; i++)
                if (s->items[i].name && strcmp(s->items[i].name, name) == 0)
                        return true;
        return false;
}

static int pg_strp_cmp(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The error for @metric named at compare.@where: the known names sorted,
 * with the nearest one suggested. */
static int pg_unknown_metric(const struct pg_rules *r, const char *metric, const char *where,
                             const struct pg_result_set *base, const struct pg_result_set *head)
{
        size_t nk, n = 0, best = 99;
        const char *const *known = pg_metric_builtin_names(&nk);
        const char **names;
        const char *near = NULL;
        struct pg_buf list = PG_BUF_INIT;
        size_t cap = nk;
        int e;

        for (int side = 0; side < 2; side++) {
                const struct pg_result_set *s = side ? head : base;
                for (size_t i = 0; s && i < s->n; i++)
                        cap += s->items[i].nmetrics;
        }
        names = pg_xcalloc(cap, sizeof(*names));
        for (size_t i = 0; i < nk; i++)
                names[n++] = known[i];
        for (int side = 0; side < 2; side++) {
                const struct pg_result_set *s = side ? head : base;
                for (size_t i = 0; s && i < s->n; i++)
                        for (size_t k = 0; k < s->items[i].nmetrics; k++)
                                names[n++] = s->items[i].metrics[k].name;
        }
        qsort(names, n, sizeof(*names), pg_strp_cmp);
        for (size_t i = 0; i < n; i++) {
                size_t d;
                if (i && strcmp(names[i], names[i - 1]) == 0)
                        continue;
                pg_buf_printf(&list, "%s%s", list.len ? ", " : "", names[i]);
                d = pg_edit_distance(metric, names[i], 3); /* only a near miss (<= 2) matters */
                if (d < best) {
                        best = d;
                        near = names[i];
                }
        }
        if (near && best <= 2)
                e = pg_error_set(PG_EINPUT,
                                 "'%s': compare.%s names unknown metric '%s' (did you mean "
                                 "'%s'?); known metrics: %s",
                                 r->origin ? r->origin : "config", where, metric, near, list.ptr);
        else
                e = pg_error_set(PG_EINPUT,
                                 "'%s': compare.%s names unknown metric '%s'; known metrics: %s",
                                 r->origin ? r->origin : "config", where, metric, list.ptr);
        pg_buf_release(&list);
        free(names);
        return e;
}

static bool pg_metric_known(const char *metric, const struct pg_result_set *base,
                            const struct pg_result_set *head)
{
        size_t nk;
        const char *const *known = pg_metric_builtin_names(&nk);

        for (size_t i = 0; i < nk; i++)
                if (strcmp(known[i], metric) == 0)
                        return true;
        return pg_set_has_metric(base, metric) || pg_set_has_metric(head, metric);
}

int pg_rules_check(const struct pg_rules *r, const struct pg_result_set *base,
                   const struct pg_result_set *head, char **warnings)
{
        struct pg_buf w = PG_BUF_INIT;
        int error = 0;

        *warnings = NULL;
        for (size_t i = 0; i < r->ngate; i++)
                if (!pg_metric_known(r->gate[i], base, head))
                        return pg_unknown_metric(r, r->gate[i], "gate", base, head);
        for (size_t i = 0; i < r->noverrides; i++) {
                const struct pg_rule_override *o = &r->overrides[i];
                char *where;

                if (o->metric && !pg_metric_known(o->metric, base, head)) {
                        where = o->benchmark ? pg_xasprintf("benchmarks.%s.metrics", o->benchmark)
                                             : pg_xstrdup("metrics");
                        error = pg_unknown_metric(r, o->metric, where, base, head);
                        free(where);
                        goto done;
                }
                if (o->metric && o->has_threshold && o->kind == PG_THRESHOLD_POINTS) {
                        /* percentage points are a difference of two ratios:
                         * "5pp" of nanoseconds would read 0.18% as +1e7 pp */
                        const char *unit = pg_set_metric_unit(base, head, o->metric);
                        if (unit && strcmp(unit, "ratio") != 0) {
                                error = pg_error_set(
                                    PG_EINPUT,
                                    "'%s': compare.%s%s%smetrics.%s.threshold is in percentage "
                                    "points (pp), which only a ratio metric has; '%s' is in "
                                    "'%s': give a relative threshold like \"5%%\"",
                                    r->origin ? r->origin : "config",
                                    o->benchmark ? "benchmarks." : "",
                                    o->benchmark ? o->benchmark : "", o->benchmark ? "." : "",
                                    o->metric, o->metric, unit);
                                goto done;
                        }
                }
                for (size_t k = 0; k < o->ngate; k++) {
                        if (pg_metric_known(o->gatelist[k], base, head))
                                continue;
                        where = pg_xasprintf("benchmarks.%s.gate", o->benchmark);
                        error = pg_unknown_metric(r, o->gatelist[k], where, base, head);
                        free(where);
                        goto done;
                }
        }
        for (size_t i = 0; i < r->noverrides; i++) {
                const char *b = r->overrides[i].benchmark;
                bool seen = false;

                if (!b || pg_set_has_bench(base, b) || pg_set_has_bench(head, b))
                        continue;
                for (size_t k = 0; k < i && !seen; k++)
                        seen =
                            r->overrides[k].benchmark && strcmp(r->overrides[k].benchmark, b) == 0;
                if (!seen)
                        pg_buf_printf(&w,
                                      "%s'%s': compare.benchmarks names benchmark '%s', "
                                      "which is in neither the baseline nor head; its rules "
                                      "apply to nothing (a typo, or a removed benchmark?)",
                                      w.len ? "\n" : "", r->origin ? r->origin : "config", b);
        }
        if (w.len)
                *warnings = pg_buf_detach(&w, NULL);
done:
        pg_buf_release(&w);
        return error;
}

static bool pg_in_list(char **v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(v[i], s) == 0)
                        return true;
        return false;
}

static void pg_apply_override(const struct pg_rule_override *o, struct pg_metric_rule *out)
{
        if (o->has_threshold) {
                out->kind = o->kind;
                out->threshold = o->threshold;
        }
        if (o->has_direction)
                out->direction = o->direction;
        if (o->has_gate)
                out->gate = o->gate;
        if (o->has_noise)
                out->noise_factor = o->noise_factor;
        if (o->has_alpha)
                out->alpha = o->alpha;
}

/*
 * The built-in default, then the config: its alpha, noise factor and
 * coverage, "gate", "metrics", the benchmark's "gate", the benchmark's
 * "metrics" (later wins).
 */
static void pg_rules_get_from(bool simulated, const struct pg_rules *r, const char *benchmark,
                              const char *metric, struct pg_metric_rule *out)
{
        pg_metric_default_rule(metric, simulated, out);
        out->alpha = r->alpha;
        out->noise_factor = r->noise_factor;
        out->min_coverage = r->min_coverage;
        if (r->has_gate_list)
                out->gate = pg_in_list(r->gate, r->ngate, metric);
        for (int pass = 0; pass < 2; pass++) {
                for (size_t i = 0; i < r->noverrides; i++) {
                        const struct pg_rule_override *o = &r->overrides[i];
                        if ((pass == 0) != (o->benchmark == NULL))
                                continue;
                        if (o->benchmark && (!benchmark || strcmp(o->benchmark, benchmark) != 0))
                                continue;
                        if (!o->metric)
                                out->gate = pg_in_list(o->gatelist, o->ngate, metric);
                }
                for (size_t i = 0; i < r->noverrides; i++) {
                        const struct pg_rule_override *o = &r->overrides[i];
                        if ((pass == 0) != (o->benchmark == NULL) || !o->metric)
                                continue;
                        if (o->benchmark && (!benchmark || strcmp(o->benchmark, benchmark) != 0))
                                continue;
                        if (strcmp(o->metric, metric) == 0)
                                pg_apply_override(o, out);
                }
        }
}

void pg_rules_get(const struct pg_rules *r, const char *benchmark, const char *metric,
                  struct pg_metric_rule *out)
{
        pg_rules_get_from(false, r, benchmark, metric, out);
}

void pg_rules_get_simulated(const struct pg_rules *r, const char *benchmark, const char *metric,
                            struct pg_metric_rule *out)
{
        if (!pg_metric_is_simulated(metric)) {
                pg_rules_get(r, benchmark, metric, out);
                return;
        }
        pg_rules_get_from(true, r, benchmark, metric, out);
        out->deterministic = true;
}
