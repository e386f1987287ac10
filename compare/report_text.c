/*
 * report_text.c - the terminal report of `perfgate compare`, and the value
 * formatting the other reports share (report.h).
 *
 * Layout: a header naming the baseline; one line per benchmark (verdict,
 * name, biggest changes); the regressions and inconclusive results in detail
 * (metric, base, head, change, p-value, threshold), then in the same shape
 * the changes of metrics that do not gate; the top hotspot changes
 * with their call path; the summary line. Colour only when asked (the CLI
 * asks on a TTY without NO_COLOR).
 */
#include "compare/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/json.h"
#include "common/width.h"

#define PG_RED    "\033[31m"
#define PG_GREEN  "\033[32m"
#define PG_YELLOW "\033[33m"
#define PG_BOLD   "\033[1m"
#define PG_RESET  "\033[0m"

void pg_report_escape_ctl(struct pg_buf *out, const char *s)
{
        pg_show_escape(out, s, strlen(s), 0);
}

double pg_report_unsigned_zero(double v, double resolution)
{
        return fabs(v) < resolution / 2 ? 0.0 : v;
}

size_t pg_report_max_hotspots(const struct pg_report_opts *o)
{
        return o && o->max_hotspots ? o->max_hotspots : 5;
}

bool pg_report_hotspot_listed(const struct pg_hotspot *h)
{
        return pg_hotspot_kind_listed(h->kind);
}

bool pg_report_hotspot_shares(const struct pg_hotspot *h, double *base, double *head, double *pp)
{
        bool incl = h->kind == PG_HOTSPOT_NEW || h->kind == PG_HOTSPOT_VANISHED;

        *base = 100 * (incl ? h->base_incl_share : h->base_self_share);
        *head = 100 * (incl ? h->head_incl_share : h->head_self_share);
        *pp = incl ? h->delta_incl_pp : h->delta_self_pp;
        return incl;
}

static void pg_fmt_scaled(struct pg_buf *out, double v, const char *const *names,
                          const double *scales, size_t n)
{
        double a = fabs(v);
        size_t i = 0;

        while (i + 1 < n && a >= scales[i + 1])
                i++;
        if (i == 0 && v == floor(v))
                pg_buf_printf(out, "%.0f%s%s", v, *names[0] ? " " : "", names[0]);
        else
                pg_buf_printf(out, "%.4g %s", v / scales[i], names[i]);
}

void pg_report_fmt_value(struct pg_buf *out, double v, const char *unit, bool rate)
{
        static const char *const tn[] = { "ns", "us", "ms", "s" };
        static const double ts[] = { 1, 1e3, 1e6, 1e9 };
        static const char *const bn[] = { "B", "KiB", "MiB", "GiB" };
        static const double bs[] = { 1, 1024, 1048576, 1073741824.0 };
        static const char *const cn[] = { "", "k", "M", "G" };
        static const double cs[] = { 1, 1e4, 1e6, 1e9 };
        static const double cs2[] = { 1, 1e3, 1e6, 1e9 };

        if (!isfinite(v)) {
                pg_buf_puts(out, "n/a");
                return;
        }
        if (rate) {
                if (!isfinite(100 * v)) {
                        pg_buf_puts(out, "n/a");
                        return;
                }
                pg_buf_printf(out, "%.3g%%", 100 * v);
                return;
        }
        if (unit && strcmp(unit, "ns") == 0) {
                pg_fmt_scaled(out, v, tn, ts, 4);
        } else if (unit && strcmp(unit, "bytes") == 0) {
                pg_fmt_scaled(out, v, bn, bs, 4);
        } else if (unit && strcmp(unit, "count") == 0) {
                /* counts: exact below 10k, then k/M/G with 4 digits */
                if (fabs(v) < cs[1])
                        pg_buf_printf(out, "%.4g", v);
                else {
                        size_t i = 1;
                        while (i + 1 < 4 && fabs(v) >= cs2[i + 1])
                                i++;
                        pg_buf_printf(out, "%.4g %s", v / cs2[i], cn[i]);
                }
        } else {
                pg_buf_printf(out, "%.4g", v);
        }
}

void pg_report_fmt_change(struct pg_buf *out, const struct pg_judgement *j)
{
        if (!j->has_base || !j->has_head) {
                pg_buf_puts(out, "n/a");
                return;
        }
        if (j->rule.kind == PG_THRESHOLD_POINTS)
                pg_buf_printf(out, "%+.2f pp", pg_report_unsigned_zero(j->pp_change, 0.01));
        else if (j->has_rel && fabs(100 * j->rel_change) >= 1e6) /* not 300 digits */
                pg_buf_printf(out, "%+.3g%%", 100 * j->rel_change);
        else if (j->has_rel)
                pg_buf_printf(out, "%+.1f%%", pg_report_unsigned_zero(100 * j->rel_change, 0.1));
        else
                pg_buf_puts(out, "n/a");
}

void pg_report_fmt_threshold(struct pg_buf *out, const struct pg_metric_rule *r)
{
        if (r->kind == PG_THRESHOLD_POINTS)
                pg_buf_printf(out, "%g pp", r->threshold);
        else
                pg_buf_printf(out, "%g%%", 100 * r->threshold);
}

bool pg_report_is_rate(const struct pg_judgement *j)
{
        size_t n = strlen(j->metric);
        return j->rule.kind == PG_THRESHOLD_POINTS ||
               (n > 5 && strcmp(j->metric + n - 5, "-rate") == 0);
}

bool pg_report_summary_metric(const struct pg_judgement *j, size_t shown)
{
        if (!j->has_base || !j->has_head || (!j->has_rel && j->rule.kind != PG_THRESHOLD_POINTS))
                return false;
        return !(shown && j->outcome == PG_OUTCOME_UNCHANGED && !j->rule.gate);
}

const char *pg_report_summary_word(const struct pg_judgement *j)
{
        if (j->unconfirmed)
                return "vs stored baseline, not confirmed by paired runs";
        if (j->pairs_undecided)
                return "vs stored baseline, paired runs inconclusive";
        switch (j->outcome) {
        case PG_OUTCOME_REGRESSION:
                return j->rule.gate ? "regression" : "worse, not gating";
        case PG_OUTCOME_IMPROVEMENT:
                return j->rule.gate ? "improvement" : "better, not gating";
        case PG_OUTCOME_INCONCLUSIVE:
                return j->rule.gate ? "inconclusive" : "inconclusive, not gating";
        default:
                return NULL;
        }
}

const char *pg_report_unchanged_why(const struct pg_judgement *j)
{
        double change = j->rule.kind == PG_THRESHOLD_POINTS ? j->pp_change : j->rel_change;
        bool defined = j->rule.kind == PG_THRESHOLD_POINTS ? j->has_pp : j->has_rel;

        if (j->outcome != PG_OUTCOME_UNCHANGED || !j->reason || !defined ||
            !(fabs(change) > j->rule.threshold))
                return NULL;
        return j->reason;
}

const char *pg_report_detail_word(const struct pg_judgement *j)
{
        const char *w = pg_report_summary_word(j);

        return w ? w : pg_outcome_name(j->outcome);
}

void pg_report_host_notes(struct pg_buf *out, const struct pg_bench_cmp *b, pg_report_escape_fn esc,
                          const char *hosts, const char *load, const char *end)
{
        size_t n = b->nhost_notes;
        bool has_load = n && b->host_notes[n - 1].kind == PG_HOST_NOTE_LOAD;

        for (size_t k = 0; k + has_load < n; k++) {
                pg_buf_puts(out, k ? "; " : hosts);
                esc(out, b->host_notes[k].text);
                if (k + 1 + has_load == n)
                        pg_buf_puts(out, end);
        }
        if (has_load) {
                pg_buf_puts(out, load);
                esc(out, b->host_notes[n - 1].text);
                pg_buf_puts(out, end);
        }
}

size_t pg_report_leftovers(struct pg_buf *out, const struct pg_bench_cmp *b)
{
        const struct pg_result *side[2] = { b->base, b->head };
        static const char *const name[2] = { "baseline", "head" };
        size_t n = 0;

        for (size_t i = 0; i < 2; i++) {
                if (!side[i] || !side[i]->leftovers.present)
                        continue;
                pg_buf_printf(out, "%s%s disturbed: ", n++ ? "; " : "", name[i]);
                pg_leftovers_describe(out, &side[i]->leftovers);
        }
        return n;
}

bool pg_report_confirm_levels(struct pg_buf *out, const struct pg_comparison *c,
                              void (*md_escape)(struct pg_buf *, const char *))
{
        struct pg_buf t = PG_BUF_INIT;

        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_confirm *k = c->benches[i].confirm;
                if (!k || !k->has_interval || !k->look)
                        continue;
                pg_confirm_levels_note(&t, PG_CONFIRM_DEFAULT_ALPHA);
                if (md_escape)
                        md_escape(out, t.ptr);
                else
                        pg_buf_puts(out, t.ptr);
                pg_buf_putc(out, '\n');
                pg_buf_release(&t);
                return true;
        }
        return false;
}

enum pg_report_section pg_report_metric_section(const struct pg_judgement *j)
{
        if (!j->rule.gate)
                return pg_report_summary_word(j) ? PG_REPORT_SECTION_NOT_GATING
                                                 : PG_REPORT_SECTION_NONE;
        if (j->unconfirmed) /* the paired runs decided: nothing to fail or settle */
                return PG_REPORT_SECTION_NONE;
        if (j->outcome == PG_OUTCOME_REGRESSION || j->outcome == PG_OUTCOME_INCONCLUSIVE ||
            (j->blocks &&
             (j->outcome == PG_OUTCOME_NOT_JUDGED || j->outcome == PG_OUTCOME_NOT_COMPARABLE)))
                return PG_REPORT_SECTION_GATING;
        return PG_REPORT_SECTION_NONE;
}

bool pg_report_hotspots_not_gating(const struct pg_bench_cmp *b)
{
        if (b->confirm && b->confirm->hotspot_gated)
                return false; /* a confirmed hotspot gated it */
        for (size_t i = 0; !b->hotspots_gate && b->hotspots.judged && i < b->hotspots.n; i++)
                if (b->hotspots.items[i].kind == PG_HOTSPOT_REGRESSED ||
                    b->hotspots.items[i].kind == PG_HOTSPOT_NEW)
                        return true;
        return false;
}

/* Whether judgements @x and @y give the same reason (both none counts). */
static bool pg_same_reason(const struct pg_judgement *x, const struct pg_judgement *y)
{
        return (x->reason == NULL) == (y->reason == NULL) &&
               (x->reason == NULL || strcmp(x->reason, y->reason) == 0);
}

void pg_report_grew_line(struct pg_buf *out, const struct pg_hotspot *h, pg_report_escape_fn esc)
{
        if (h->line == NULL)
                return;
        esc(out, h->line);
        pg_buf_printf(out, " (%+.2f pp", h->line_delta_pp);
        if (h->line_callee) {
                pg_buf_puts(out, ", in inlined ");
                esc(out, h->line_callee);
                pg_buf_puts(out, " at ");
                esc(out, pg_basename(h->line_callee_at));
        }
        pg_buf_putc(out, ')');
}

/* Whether @j is named after "not judged:" on its benchmark's line: the
 * baseline had it (blocks), or it gates, so that a gating metric the head
 * measured and the baseline could not (a VM baseline's `instructions`) is
 * not passed over either. */
static bool pg_not_judged_named(const struct pg_judgement *j)
{
        return j->blocks || (j->rule.gate && (j->outcome == PG_OUTCOME_NOT_JUDGED ||
                                              j->outcome == PG_OUTCOME_NOT_COMPARABLE));
}

size_t pg_report_not_judged(struct pg_buf *out, const struct pg_bench_cmp *b,
                            pg_report_escape_fn esc)
{
        size_t shown = 0;

        /* grouped by reason, in the order of each reason's first metric */
        for (size_t i = 0; i < b->njudgements; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                bool seen = false;

                if (!pg_not_judged_named(j))
                        continue;
                for (size_t k = 0; k < i && !seen; k++)
                        seen = pg_not_judged_named(&b->judgements[k]) &&
                               pg_same_reason(&b->judgements[k], j);
                if (seen)
                        continue;
                for (size_t k = i; k < b->njudgements; k++) {
                        if (!pg_not_judged_named(&b->judgements[k]) ||
                            !pg_same_reason(&b->judgements[k], j))
                                continue;
                        pg_buf_puts(out, shown++ ? ", " : "");
                        esc(out, b->judgements[k].metric);
                }
                if (j->reason) {
                        pg_buf_puts(out, " (");
                        esc(out, j->reason);
                        pg_buf_putc(out, ')');
                }
        }
        return shown;
}

static const char *pg_verdict_color(enum pg_verdict v)
{
        switch (v) {
        case PG_VERDICT_REGRESSION:
        case PG_VERDICT_FAILED:
                return PG_RED;
        case PG_VERDICT_INCONCLUSIVE:
        case PG_VERDICT_MISSING:
                return PG_YELLOW;
        case PG_VERDICT_IMPROVEMENT:
                return PG_GREEN;
        default:
                return "";
        }
}

/* The blocking paths whose off-CPU time moved by the rule's min_ms or more
 * per run (regressed first), at most @maxh per benchmark. */
static void pg_offcpu_section(struct pg_buf *out, const struct pg_comparison *c, size_t maxh)
{
        bool any = false;

        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                size_t shown = 0;

                if (!b->offcpu.judged && b->offcpu.reason) {
                        pg_buf_puts(out, any ? "" : "\nOff-CPU changes (ms blocked per run):\n");
                        any = true;
                        pg_buf_puts(out, "  ");
                        pg_report_escape_ctl(out, b->name);
                        pg_buf_puts(out, ": not compared: ");
                        pg_report_escape_ctl(out, b->offcpu.reason);
                        pg_buf_putc(out, '\n');
                        continue;
                }
                for (size_t k = 0; k < b->offcpu.n && shown < maxh; k++) {
                        const struct pg_offcpu_path *p = &b->offcpu.items[k];
                        if (!pg_offcpu_path_listed(&b->offcpu, p))
                                continue;
                        if (!any)
                                pg_buf_puts(out, "\nOff-CPU changes (ms blocked per run):\n");
                        any = true;
                        if (!shown) {
                                pg_buf_puts(out, "  ");
                                pg_report_escape_ctl(out, b->name);
                                pg_buf_printf(out, " (%.1f -> %.1f ms blocked per run)\n",
                                              b->offcpu.base_total_ms, b->offcpu.head_total_ms);
                        }
                        pg_buf_printf(out, "    %+.1f ms (%.1f -> %.1f ms) %s\n      in ",
                                      p->delta_ms, p->base_ms, p->head_ms,
                                      p->regressed ? "regressed" : "changed, not gating");
                        pg_report_escape_ctl(out, p->path);
                        pg_buf_putc(out, '\n');
                        shown++;
                }
        }
}

/* The biggest changes of @b on one line: up to three judged metrics. */
static void pg_biggest_changes(struct pg_buf *out, const struct pg_bench_cmp *b)
{
        size_t shown = 0;
        bool gated_reg = false;

        if (b->verdict == PG_VERDICT_NEW || b->verdict == PG_VERDICT_MISSING ||
            b->verdict == PG_VERDICT_FAILED) {
                pg_buf_puts(out, b->reason ? b->reason : "");
                return;
        }
        /* the paired runs decide over the stored batches: their answer first */
        pg_bench_confirm_brief(out, b->confirm);
        for (size_t i = 0; i < b->njudgements && shown < 3; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                if (!pg_report_summary_metric(j, shown))
                        continue;
                pg_buf_printf(out, "%s", shown ? ", " : "");
                pg_report_escape_ctl(out, j->metric);
                pg_buf_putc(out, ' ');
                pg_report_fmt_change(out, j);
                if (pg_report_summary_word(j))
                        pg_buf_printf(out, " (%s)", pg_report_summary_word(j));
                else if (pg_report_unchanged_why(j)) {
                        pg_buf_puts(out, " (");
                        pg_report_escape_ctl(out, pg_report_unchanged_why(j));
                        pg_buf_putc(out, ')');
                }
                gated_reg |= j->rule.gate && j->outcome == PG_OUTCOME_REGRESSION && !j->unconfirmed;
                shown++;
        }
        if (!shown)
                pg_buf_puts(out, b->reason ? b->reason : "no comparable metric");
        else if (b->verdict == PG_VERDICT_REGRESSION && !gated_reg && b->reason)
                /* the regression came from elsewhere (a gating hotspot): say so */
                pg_buf_printf(out, "; %s", b->reason);
        /* data that vanished is never passed over in silence (case 32) */
        struct pg_buf t = PG_BUF_INIT;
        if (pg_report_not_judged(&t, b, pg_report_escape_ctl))
                pg_buf_printf(out, "; not judged: %s", t.ptr);
        pg_buf_release(&t);
}

static void pg_detail_row(struct pg_buf *out, const struct pg_judgement *j)
{
        struct pg_buf t = PG_BUF_INIT;

        pg_buf_puts(out, "    ");
        pg_report_escape_ctl(&t, j->metric);
        pg_buf_pad(out, t.ptr, 22);
        pg_buf_putc(out, ' ');
        pg_buf_reset(&t);
        if (j->has_base)
                pg_report_fmt_value(&t, j->base_median, j->unit, pg_report_is_rate(j));
        else
                pg_buf_puts(&t, "-");
        pg_buf_printf(out, "%-12s ", t.ptr);
        pg_buf_reset(&t);
        if (j->has_head)
                pg_report_fmt_value(&t, j->head_median, j->unit, pg_report_is_rate(j));
        else
                pg_buf_puts(&t, "-");
        pg_buf_printf(out, "%-12s ", t.ptr);
        pg_buf_reset(&t);
        pg_report_fmt_change(&t, j);
        pg_buf_printf(out, "%-10s ", t.ptr);
        pg_buf_reset(&t);
        if (j->has_p)
                pg_buf_printf(&t, "%.3g", j->p_value);
        else
                pg_buf_puts(&t, "-");
        pg_buf_printf(out, "%-8s ", t.ptr);
        pg_buf_reset(&t);
        pg_report_fmt_threshold(&t, &j->rule);
        pg_buf_printf(out, "%-9s %s\n", t.ptr, pg_report_detail_word(j));
        if (j->reason) {
                pg_buf_puts(out, "      ");
                pg_report_escape_ctl(out, j->reason);
                pg_buf_putc(out, '\n');
        }
        if (j->ncauses) {
                pg_buf_puts(out, "      where: ");
                pg_report_fmt_causes(out, j, NULL);
                pg_buf_putc(out, '\n');
        }
        if (j->has_hl) {
                /* Hodges-Lehmann shift of head against base, with its interval */
                pg_buf_puts(out, "      shift ");
                pg_buf_puts(out, j->hl_shift >= 0 ? "+" : "");
                pg_report_fmt_value(out, j->hl_shift, j->unit, pg_report_is_rate(j));
                if (pg_judgement_has_interval(j)) {
                        pg_buf_printf(out, " (%.0f%% CI ", 100 * j->hl_conf);
                        pg_buf_puts(out, j->hl_lo >= 0 ? "+" : "");
                        pg_report_fmt_value(out, j->hl_lo, j->unit, pg_report_is_rate(j));
                        pg_buf_puts(out, j->hl_hi >= 0 ? " .. +" : " .. ");
                        pg_report_fmt_value(out, j->hl_hi, j->unit, pg_report_is_rate(j));
                } else {
                        /* judge.h, PG_HL_MIN_LEVEL: never a "0% CI" */
                        pg_buf_printf(out,
                                      " (no interval: %zu and %zu repetitions cannot reach "
                                      "%.0f%% coverage",
                                      j->nbase, j->nhead, 100 * PG_HL_MIN_LEVEL);
                }
                pg_buf_puts(out, ")\n");
        }
        pg_buf_release(&t);
}

/* The detail rows of every metric in @section (pg_report_metric_section()),
 * grouped by benchmark under one @heading (with @legend in brackets); nothing
 * when there are none. */
static void pg_detail_section(struct pg_buf *out, const struct pg_comparison *c,
                              enum pg_report_section section, const char *heading,
                              const char *legend, bool color)
{
        bool any = false;

        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                bool header = false;
                for (size_t k = 0; k < b->njudgements; k++) {
                        const struct pg_judgement *j = &b->judgements[k];
                        if (pg_report_metric_section(j) != section)
                                continue;
                        if (!any) {
                                pg_buf_printf(out, "\n%s%s%s (%s):\n", color ? PG_BOLD : "",
                                              heading, color ? PG_RESET : "", legend);
                                any = true;
                        }
                        if (!header) {
                                pg_buf_puts(out, "  ");
                                pg_report_escape_ctl(out, b->name);
                                pg_buf_printf(out, "\n    %-22s %-12s %-12s %-10s %-8s %-9s %s\n",
                                              "metric", "base", "head", "change", "p-value",
                                              "threshold", "verdict");
                                header = true;
                        }
                        pg_detail_row(out, j);
                }
        }
}

/* A function name for a code span: no backticks or control bytes. */
static void pg_code_name(struct pg_buf *out, const char *name)
{
        struct pg_buf t = PG_BUF_INIT;
        pg_report_escape_ctl(&t, name);
        for (char *p = t.ptr; *p; p++)
                pg_buf_putc(out, *p == '`' ? '\'' : *p);
        if (name[0] != '[' && !strchr(name, '('))
                pg_buf_puts(out, "()");
        pg_buf_release(&t);
}

void pg_report_fmt_causes(struct pg_buf *out, const struct pg_judgement *j,
                          void (*md_escape)(struct pg_buf *, const char *))
{
        struct pg_buf t = PG_BUF_INIT;
        bool rate = pg_report_is_rate(j);

        if (!j->ncauses)
                return;
        pg_buf_printf(&t, "%s ", j->metric);
        if (j->has_base)
                pg_report_fmt_value(&t, j->base_median, j->unit, rate);
        pg_buf_puts(&t, " -> ");
        if (j->has_head)
                pg_report_fmt_value(&t, j->head_median, j->unit, rate);
        pg_buf_puts(&t, ":");
        for (size_t i = 0; i < j->ncauses; i++) {
                const struct pg_cause *c = &j->causes[i];
                pg_buf_puts(&t, i ? ", +" : " +");
                pg_report_fmt_value(&t, c->head_count - c->base_count, "count", false);
                if (!i)
                        pg_buf_printf(&t, " %s", j->cause_counter);
                pg_buf_puts(&t, " in ");
                if (md_escape)
                        md_escape(out, t.ptr);
                else
                        pg_report_escape_ctl(out, t.ptr);
                pg_buf_reset(&t);
                pg_buf_putc(out, '`');
                pg_code_name(out, c->function);
                pg_buf_putc(out, '`');
                if (c->file) {
                        pg_buf_printf(&t, " (%s", pg_basename(c->file));
                        if (c->line)
                                pg_buf_printf(&t, ":%llu", (unsigned long long) c->line);
                        pg_buf_puts(&t, ")");
                }
                pg_buf_printf(&t, " [%.1f%% -> %.1f%% of them]", 100 * c->base_share,
                              100 * c->head_share);
        }
        if (md_escape)
                md_escape(out, t.ptr);
        else
                pg_report_escape_ctl(out, t.ptr);
        pg_buf_release(&t);
}

char *pg_report_path_shown(const char *path)
{
        const char *main_at = NULL, *after_rt = NULL;

        for (const char *f = path; f && *f;) {
                const char *end = strchr(f, ';');
                size_t len = end ? (size_t) (end - f) : strlen(f);
                const char *rt = "__rust_begin_short_backtrace";
                if (len == 4 && memcmp(f, "main", 4) == 0) {
                        main_at = f;
                        after_rt = NULL;
                } else if (main_at && end && len >= strlen(rt)) {
                        for (size_t k = 0; k + strlen(rt) <= len; k++)
                                if (memcmp(f + k, rt, strlen(rt)) == 0) {
                                        after_rt = end + 1;
                                        break;
                                }
                }
                f = end ? end + 1 : NULL;
        }
        if (!main_at)
                return pg_xstrdup(path);
        /* and the closure call that runs the program's main (inlined) */
        while (after_rt &&
               strncmp(after_rt, "core::ops::function::FnOnce::call_once",
                       strlen("core::ops::function::FnOnce::call_once")) == 0 &&
               strchr(after_rt, ';'))
                after_rt = strchr(after_rt, ';') + 1;
        if (!after_rt || !*after_rt)
                return pg_xstrdup(main_at);
        return pg_xasprintf("main;...;%s", after_rt);
}

static void pg_path_arrows(struct pg_buf *out, const char *whole)
{
        char *path = pg_report_path_shown(whole);

        for (const char *p = path; *p; p++) {
                if (*p == ';') {
                        pg_buf_puts(out, " > ");
                } else {
                        char one[2] = { *p, 0 };
                        pg_report_escape_ctl(out, one);
                }
        }
        free(path);
}

void pg_report_text(struct pg_buf *out, const struct pg_comparison *c,
                    const struct pg_report_opts *o)
{
        bool color = o && o->color;
        bool any_hot = false;
        char *summary = pg_comparison_summary(c);
        size_t maxh = pg_report_max_hotspots(o);

        pg_buf_puts(out, "perfgate compare: head against ");
        pg_report_escape_ctl(out, c->base_label ? c->base_label : "the baseline");
        pg_buf_puts(out, "\n");
        if (c->n == 0)
                pg_buf_puts(out, "no benchmarks on either side\n");
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                const char *col = color ? pg_verdict_color(b->verdict) : "";
                struct pg_buf name = PG_BUF_INIT;
                pg_report_escape_ctl(&name, b->name);
                pg_buf_printf(out, "%s%-13s%s ", col, pg_verdict_name(b->verdict),
                              *col ? PG_RESET : "");
                pg_buf_pad(out, name.ptr, 24);
                pg_buf_putc(out, ' ');
                pg_biggest_changes(out, b);
                pg_buf_putc(out, '\n');
                if (b->host_diff) {
                        pg_buf_puts(out, "              hosts differ: ");
                        pg_report_escape_ctl(out, b->host_diff);
                        pg_buf_putc(out, '\n');
                }
                pg_report_host_notes(out, b, pg_report_escape_ctl,
                                     "              hosts differ: ", "              ", "\n");
                struct pg_buf dist = PG_BUF_INIT;
                if (pg_report_leftovers(&dist, b))
                        pg_buf_printf(out, "              %s\n", dist.ptr);
                pg_buf_release(&dist);
                if (b->confirm) {
                        pg_buf_puts(out, "              ");
                        pg_bench_confirm_describe(out, b->confirm, pg_report_escape_ctl,
                                                  "\n              ");
                        pg_buf_putc(out, '\n');
                }
                pg_buf_release(&name);
        }
        /* the paired intervals' levels differ between benchmarks: say why once */
        {
                struct pg_buf t = PG_BUF_INIT;
                if (pg_report_confirm_levels(&t, c, NULL))
                        pg_buf_printf(out, "\n%s", t.ptr);
                pg_buf_release(&t);
        }
        pg_detail_section(out, c, PG_REPORT_SECTION_GATING, "Regressions and inconclusive results",
                          "change = median(head)/median(base) - 1; pp = percentage points", color);
        pg_detail_section(out, c, PG_REPORT_SECTION_NOT_GATING, "Changes that do not gate",
                          "they fail no benchmark; perfgate.json compare.gate names the "
                          "metrics that do",
                          color);
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                size_t shown = 0;
                if (!b->hotspots.judged) {
                        if (b->hotspots.reason && b->base && b->head &&
                            (b->base->profile.present || b->head->profile.present)) {
                                if (!any_hot) {
                                        pg_buf_puts(out, "\nHotspot changes (self share of "
                                                         "samples):\n");
                                        any_hot = true;
                                }
                                pg_buf_puts(out, "  ");
                                pg_report_escape_ctl(out, b->name);
                                pg_buf_puts(out, ": not compared: ");
                                pg_report_escape_ctl(out, b->hotspots.reason);
                                pg_buf_putc(out, '\n');
                        }
                        continue;
                }
                for (size_t k = 0; k < b->hotspots.n && shown < maxh; k++) {
                        const struct pg_hotspot *h = &b->hotspots.items[k];
                        double bs, hs, pp;
                        bool incl;
                        if (!pg_report_hotspot_listed(h))
                                continue;
                        if (!any_hot) {
                                pg_buf_puts(out, "\nHotspot changes (self share of samples):\n");
                                any_hot = true;
                        }
                        if (!shown) {
                                pg_buf_puts(out, "  ");
                                pg_report_escape_ctl(out, b->name);
                                pg_buf_printf(out, " (%llu -> %llu samples)\n",
                                              (unsigned long long) b->hotspots.base_total,
                                              (unsigned long long) b->hotspots.head_total);
                        }
                        pg_buf_puts(out, "    ");
                        pg_report_escape_ctl(out, h->function);
                        incl = pg_report_hotspot_shares(h, &bs, &hs, &pp);
                        pg_buf_printf(out, "  %.2f%% -> %.2f%%%s (%+.2f pp", bs, hs,
                                      incl ? " inclusive" : "", pp);
                        /* est. and own time are self-based: nothing to say
                         * for a new or vanished function with no self samples */
                        bool self = !incl || h->base_self || h->head_self;
                        if (h->has_est && self)
                                pg_buf_printf(out, ", est. %+.1f ms",
                                              pg_report_unsigned_zero(h->est_ms, 0.1));
                        if (h->has_self_time && self)
                                pg_buf_printf(out, ", own time %+.1f ms",
                                              pg_report_unsigned_zero(h->self_time_ms, 0.1));
                        if (!incl)
                                pg_buf_printf(out, ", p = %.3g", h->p_value);
                        pg_buf_printf(out, ") %s\n", pg_hotspot_kind_name(h->kind));
                        pg_buf_puts(out, "      via ");
                        pg_path_arrows(out, h->path);
                        pg_buf_putc(out, '\n');
                        if (h->line) {
                                pg_buf_puts(out, "      grew most at ");
                                pg_report_grew_line(out, h, pg_report_escape_ctl);
                                pg_buf_putc(out, '\n');
                        }
                        shown++;
                }
                if (shown && pg_report_hotspots_not_gating(b))
                        pg_buf_puts(out, "    (hotspots do not gate this benchmark's verdict: "
                                         "perfgate.json compare.hotspots.gate is false)\n");
        }
        pg_offcpu_section(out, c, maxh);
        size_t nflame = 0;
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                if (!b->flamegraph_diff)
                        continue;
                pg_buf_puts(out, nflame++ ? ", " : "\nDifferential flame graphs: ");
                if (o && o->flamegraph_dir && o->flamegraph_dir[0]) {
                        char *path = pg_path_join(o->flamegraph_dir, b->flamegraph_diff);
                        pg_report_escape_ctl(out, path);
                        free(path);
                } else {
                        pg_report_escape_ctl(out, b->flamegraph_diff);
                }
        }
        if (nflame)
                pg_buf_putc(out, '\n');
        for (size_t i = 0; i < c->ndrifts; i++) {
                char *note = pg_run_drift_note(&c->drifts[i]);
                pg_buf_putc(out, '\n');
                pg_report_escape_ctl(out, note);
                pg_buf_putc(out, '\n');
                free(note);
        }
        pg_buf_printf(out, "\n%s", color ? PG_BOLD : "");
        pg_report_escape_ctl(out, summary); /* a failed --confirm's message names paths */
        pg_buf_printf(out, "%s\n", color ? PG_RESET : "");
        free(summary);
}
