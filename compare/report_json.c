/*
 * report_json.c - the verdict as data (report.h; schema in docs/compare.md,
 * "JSON verdict"). Built as a cJSON tree and written with the deterministic
 * writer (sorted keys, stable numbers). Undefined numbers are JSON null,
 * never NaN or Inf; the writer refuses non-finite values as a backstop.
 */
#include "compare/report.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/json.h"

static void pg_add_num_or_null(cJSON *o, const char *key, bool has, double v)
{
        if (has && isfinite(v))
                cJSON_AddNumberToObject(o, key, v);
        else
                cJSON_AddNullToObject(o, key);
}

static void pg_add_str_or_null(cJSON *o, const char *key, const char *s)
{
        if (s)
                cJSON_AddStringToObject(o, key, s);
        else
                cJSON_AddNullToObject(o, key);
}

static const char *pg_direction_name(enum pg_direction d)
{
        return d == PG_DIR_LOWER_IS_BETTER    ? "lower"
               : d == PG_DIR_HIGHER_IS_BETTER ? "higher"
                                              : "none";
}

static cJSON *pg_side(size_t n, bool has, double median, bool has_noise, double rel_mad)
{
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "n", (double) n);
        pg_add_num_or_null(s, "median", has, median);
        pg_add_num_or_null(s, "rel_mad", has_noise, rel_mad);
        return s;
}

static cJSON *pg_judgement_json(const struct pg_judgement *j)
{
        cJSON *m = cJSON_CreateObject(), *t, *ch;

        cJSON_AddStringToObject(m, "metric", j->metric);
        cJSON_AddStringToObject(m, "unit", j->unit);
        /* a stored regression that paired runs cleared is not called one:
         * "not confirmed", with the stored comparison's word beside it */
        cJSON_AddStringToObject(m, "outcome",
                                j->unconfirmed ? "not confirmed" : pg_outcome_name(j->outcome));
        if (j->unconfirmed)
                cJSON_AddStringToObject(m, "stored_outcome", pg_outcome_name(j->outcome));
        pg_add_str_or_null(m, "reason", j->reason);
        cJSON_AddBoolToObject(m, "gate", j->rule.gate);
        cJSON_AddStringToObject(m, "direction", pg_direction_name(j->rule.direction));
        t = cJSON_AddObjectToObject(m, "threshold");
        cJSON_AddStringToObject(t, "kind",
                                j->rule.kind == PG_THRESHOLD_POINTS ? "points" : "relative");
        cJSON_AddNumberToObject(t, "value", j->rule.threshold);
        cJSON_AddNumberToObject(m, "alpha", j->rule.alpha);
        cJSON_AddNumberToObject(m, "noise_factor", j->rule.noise_factor);
        cJSON_AddItemToObject(
            m, "base",
            pg_side(j->nbase, j->has_base, j->base_median, j->has_base_noise, j->base_rel_mad));
        cJSON_AddItemToObject(
            m, "head",
            pg_side(j->nhead, j->has_head, j->head_median, j->has_head_noise, j->head_rel_mad));
        ch = cJSON_AddObjectToObject(m, "change");
        pg_add_num_or_null(ch, "relative", j->has_rel && j->has_head, j->rel_change);
        pg_add_num_or_null(ch, "points", j->has_pp && j->has_base && j->has_head, j->pp_change);
        pg_add_num_or_null(m, "p_value", j->has_p, j->p_value);
        if (j->has_p)
                cJSON_AddBoolToObject(m, "exact", j->exact);
        else
                cJSON_AddNullToObject(m, "exact");
        if (j->has_hl) {
                cJSON *hl = cJSON_AddObjectToObject(m, "hodges_lehmann");
                cJSON_AddNumberToObject(hl, "shift", j->hl_shift);
                /* no interval below PG_HL_MIN_LEVEL (judge.h): null, not "0% CI" */
                pg_add_num_or_null(hl, "lo", pg_judgement_has_interval(j), j->hl_lo);
                pg_add_num_or_null(hl, "hi", pg_judgement_has_interval(j), j->hl_hi);
                pg_add_num_or_null(hl, "conf", pg_judgement_has_interval(j), j->hl_conf);
        } else {
                cJSON_AddNullToObject(m, "hodges_lehmann");
        }
        if (j->ncauses) {
                /* where a regression comes from (simulated per-function costs) */
                cJSON *ca = cJSON_AddArrayToObject(m, "causes");
                for (size_t i = 0; i < j->ncauses; i++) {
                        const struct pg_cause *c = &j->causes[i];
                        cJSON *co = cJSON_CreateObject();
                        cJSON_AddStringToObject(co, "function", c->function);
                        pg_add_str_or_null(co, "file", c->file);
                        if (c->line)
                                cJSON_AddNumberToObject(co, "line", (double) c->line);
                        else
                                cJSON_AddNullToObject(co, "line");
                        cJSON_AddStringToObject(co, "counter", j->cause_counter);
                        cJSON_AddNumberToObject(co, "base", c->base_count);
                        cJSON_AddNumberToObject(co, "head", c->head_count);
                        cJSON_AddNumberToObject(co, "base_share", c->base_share);
                        cJSON_AddNumberToObject(co, "head_share", c->head_share);
                        cJSON_AddItemToArray(ca, co);
                }
        }
        return m;
}

/* The off-CPU comparison (compare/offcpu.h): every path, ms per run. */
static cJSON *pg_offcpu_json(const struct pg_offcpu_cmp *c)
{
        cJSON *o = cJSON_CreateObject(), *ps;

        cJSON_AddBoolToObject(o, "judged", c->judged);
        pg_add_str_or_null(o, "reason", c->reason);
        cJSON_AddNumberToObject(o, "base_ms", c->base_total_ms);
        cJSON_AddNumberToObject(o, "head_ms", c->head_total_ms);
        ps = cJSON_AddArrayToObject(o, "paths");
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_offcpu_path *p = &c->items[i];
                cJSON *x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "path", p->path);
                cJSON_AddNumberToObject(x, "base_ms", p->base_ms);
                cJSON_AddNumberToObject(x, "head_ms", p->head_ms);
                cJSON_AddNumberToObject(x, "delta_ms", p->delta_ms);
                cJSON_AddBoolToObject(x, "regressed", p->regressed);
                cJSON_AddItemToArray(ps, x);
        }
        return o;
}

static cJSON *pg_hotspots_json(const struct pg_hotspots *h)
{
        cJSON *o = cJSON_CreateObject(), *arr;

        cJSON_AddBoolToObject(o, "judged", h->judged);
        pg_add_str_or_null(o, "reason", h->reason);
        cJSON_AddNumberToObject(o, "base_samples", (double) h->base_total);
        cJSON_AddNumberToObject(o, "head_samples", (double) h->head_total);
        arr = cJSON_AddArrayToObject(o, "functions");
        for (size_t i = 0; i < h->n; i++) {
                const struct pg_hotspot *f = &h->items[i];
                cJSON *x;
                if (!pg_report_hotspot_listed(f))
                        continue;
                x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "function", f->function);
                cJSON_AddStringToObject(x, "kind", pg_hotspot_kind_name(f->kind));
                cJSON_AddNumberToObject(x, "base_self", (double) f->base_self);
                cJSON_AddNumberToObject(x, "head_self", (double) f->head_self);
                cJSON_AddNumberToObject(x, "base_inclusive", (double) f->base_incl);
                cJSON_AddNumberToObject(x, "head_inclusive", (double) f->head_incl);
                cJSON_AddNumberToObject(x, "base_self_share", f->base_self_share);
                cJSON_AddNumberToObject(x, "head_self_share", f->head_self_share);
                cJSON_AddNumberToObject(x, "base_inclusive_share", f->base_incl_share);
                cJSON_AddNumberToObject(x, "head_inclusive_share", f->head_incl_share);
                cJSON_AddNumberToObject(x, "delta_self_pp", f->delta_self_pp);
                cJSON_AddNumberToObject(x, "delta_inclusive_pp", f->delta_incl_pp);
                cJSON_AddNumberToObject(x, "p_value", f->p_value);
                pg_add_num_or_null(x, "dispersion", f->phi > 0, f->phi);
                pg_add_num_or_null(x, "dispersion_df", f->phi > 0, (double) f->df);
                pg_add_num_or_null(x, "est_ms", f->has_est, f->est_ms);
                pg_add_num_or_null(x, "self_time_ms", f->has_self_time, f->self_time_ms);
                cJSON_AddStringToObject(x, "path", f->path);
                if (f->line) {
                        cJSON_AddStringToObject(x, "line", f->line);
                        cJSON_AddNumberToObject(x, "line_delta_pp", f->line_delta_pp);
                }
                if (f->line_callee) {
                        cJSON *in = cJSON_AddObjectToObject(x, "line_inlined");

                        cJSON_AddStringToObject(in, "function", f->line_callee);
                        cJSON_AddStringToObject(in, "line", f->line_callee_at);
                }
                cJSON_AddItemToArray(arr, x);
        }
        return o;
}

/* The paired confirmation of a benchmark (docs/compare.md, "--confirm"). */
static cJSON *pg_confirm_json(const struct pg_bench_confirm *c)
{
        cJSON *o = cJSON_CreateObject(), *hs;
        bool confirmed =
            c->outcome != PG_CONFIRM_NOT_CONFIRMED && c->outcome != PG_CONFIRM_UNDECIDED;

        cJSON_AddBoolToObject(o, "confirmed", confirmed);
        cJSON_AddStringToObject(o, "outcome", pg_confirm_outcome_name(c->outcome));
        pg_add_str_or_null(o, "stored_verdict", c->stored);
        pg_add_str_or_null(o, "note", c->note);
        cJSON_AddNumberToObject(o, "pairs", (double) c->pairs);
        cJSON_AddNumberToObject(o, "pairs_discarded", (double) c->discarded);
        cJSON_AddNumberToObject(o, "seconds", c->seconds);
        cJSON_AddNumberToObject(o, "hotspot_seconds", c->hot_seconds);
        cJSON_AddNumberToObject(o, "floor", c->floor);
        pg_add_num_or_null(o, "look", c->has_interval && c->look, (double) c->look);
        pg_add_num_or_null(o, "estimate", c->has_interval, c->estimate);
        pg_add_num_or_null(o, "lo", c->has_interval, c->lo);
        pg_add_num_or_null(o, "hi", c->has_interval, c->hi);
        pg_add_num_or_null(o, "level", c->has_interval, c->level);
        pg_add_num_or_null(o, "cpu", c->ncpus > 0, c->ncpus ? (double) c->cpus[0] : 0.0);
        if (c->ncpus) {
                cJSON *cpus = cJSON_AddArrayToObject(o, "cpus");
                for (size_t k = 0; k < c->ncpus; k++)
                        cJSON_AddItemToArray(cpus, cJSON_CreateNumber((double) c->cpus[k]));
        } else {
                cJSON_AddNullToObject(o, "cpus");
        }
        /* the verdict is a regression because a confirmed hotspot's own time
         * grew beyond the floor while the run's time was not confirmed */
        cJSON_AddBoolToObject(o, "hotspot_gated", c->hotspot_gated);
        hs = cJSON_AddArrayToObject(o, "hotspots");
        for (size_t k = 0; k < c->hotspots.n; k++) {
                const struct pg_confirm_hotspot *h = &c->hotspots.items[k];
                cJSON *x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "function", h->function);
                cJSON_AddNumberToObject(x, "base_share", h->base_share);
                cJSON_AddNumberToObject(x, "head_share", h->head_share);
                cJSON_AddNumberToObject(x, "p_value", h->p_value);
                cJSON_AddNumberToObject(x, "p_holm", h->p_holm);
                cJSON_AddNumberToObject(x, "self_growth_ns", h->self_growth_ns);
                cJSON_AddNumberToObject(x, "incl_growth_ns", h->incl_growth_ns);
                cJSON_AddNumberToObject(x, "total_growth_ns", h->total_growth_ns);
                cJSON_AddBoolToObject(x, "confirmed", h->confirmed);
                cJSON_AddBoolToObject(x, "cause", h->cause);
                cJSON_AddBoolToObject(x, "moved", h->moved);
                cJSON_AddBoolToObject(x, "grew", h->grew);
                pg_add_str_or_null(x, "caller", h->caller);
                pg_add_str_or_null(x, "caller_module", h->caller_module);
                cJSON_AddItemToArray(hs, x);
        }
        return o;
}

int pg_report_json(struct pg_buf *out, const struct pg_comparison *c,
                   const struct pg_report_opts *o)
{
        cJSON *root = cJSON_CreateObject(), *counts, *benches, *drifts;
        char *summary = pg_comparison_summary(c);
        int error;

        (void) o;
        cJSON_AddStringToObject(root, "schema", PG_COMPARE_SCHEMA);
        pg_add_str_or_null(root, "baseline", c->base_label);
        cJSON_AddStringToObject(root, "summary", summary);
        cJSON_AddNumberToObject(root, "exit_status", pg_comparison_exit_status(c));
        cJSON_AddBoolToObject(root, "strict", c->strict);
        counts = cJSON_AddObjectToObject(root, "counts");
        for (int v = 0; v < PG_VERDICT_COUNT; v++)
                cJSON_AddNumberToObject(counts, pg_verdict_name((enum pg_verdict) v),
                                        (double) c->counts[v]);
        drifts = cJSON_AddArrayToObject(root, "run_drift");
        for (size_t i = 0; i < c->ndrifts; i++) {
                const struct pg_run_drift *d = &c->drifts[i];
                cJSON *x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "metric", d->metric);
                cJSON_AddNumberToObject(x, "benchmarks", (double) d->n);
                cJSON_AddNumberToObject(x, "same_way", (double) d->same_way);
                cJSON_AddNumberToObject(x, "shift", d->shift);
                cJSON_AddNumberToObject(x, "demoted", (double) d->demoted);
                cJSON_AddItemToArray(drifts, x);
        }
        benches = cJSON_AddArrayToObject(root, "benchmarks");
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                cJSON *bo = cJSON_CreateObject(), *ms, *fg, *notes;
                cJSON_AddStringToObject(bo, "name", b->name);
                cJSON_AddStringToObject(bo, "verdict", pg_verdict_name(b->verdict));
                pg_add_str_or_null(bo, "reason", b->reason);
                pg_add_str_or_null(bo, "host_diff", b->host_diff);
                pg_add_str_or_null(bo, "host_note", b->host_note);
                notes = cJSON_AddArrayToObject(bo, "host_notes");
                for (size_t k = 0; k < b->nhost_notes; k++) {
                        cJSON *no = cJSON_CreateObject();
                        cJSON_AddStringToObject(no, "kind",
                                                pg_host_note_kind_name(b->host_notes[k].kind));
                        cJSON_AddStringToObject(no, "text", b->host_notes[k].text);
                        cJSON_AddItemToArray(notes, no);
                }
                ms = cJSON_AddArrayToObject(bo, "metrics");
                for (size_t k = 0; k < b->njudgements; k++)
                        cJSON_AddItemToArray(ms, pg_judgement_json(&b->judgements[k]));
                if (b->base && b->head)
                        cJSON_AddItemToObject(bo, "hotspots", pg_hotspots_json(&b->hotspots));
                else
                        cJSON_AddNullToObject(bo, "hotspots");
                if (b->offcpu.judged || b->offcpu.reason)
                        cJSON_AddItemToObject(bo, "offcpu", pg_offcpu_json(&b->offcpu));
                fg = cJSON_AddObjectToObject(bo, "flamegraphs");
                pg_add_str_or_null(fg, "diff", b->flamegraph_diff);
                pg_add_str_or_null(fg, "base", b->flamegraph_base);
                if (b->confirm)
                        cJSON_AddItemToObject(bo, "confirm", pg_confirm_json(b->confirm));
                cJSON_AddItemToArray(benches, bo);
        }
        error = pg_json_write(out, root);
        cJSON_Delete(root);
        free(summary);
        return error;
}
