/*
 * report_markdown.c - the PR/MR comment body (report.h): the hidden marker
 * "<!-- perfgate -->" first (CI finds and updates its own comment by it), a
 * one-line summary, a table of benchmarks worst first, a hotspot table
 * (function, base share, head share, change, estimated ms), the off-CPU
 * table, the changes of metrics that do not gate (the text report's rule,
 * pg_report_metric_section()), then one
 * <details> block per compared benchmark with every metric and call path.
 * With a link base, the differential flame graphs of the regressions (at
 * most PG_MARKDOWN_IMAGES, worst first) are images right under the benchmark
 * table, before any <details>, each linking to the interactive SVG.
 *
 * Escaping: every name goes through pg_md_escape(), which turns the
 * characters that mean something to GitHub-flavoured Markdown or HTML into
 * numeric character references (a table cell cannot be split by "|", no tag
 * can open, no code span or emphasis can start) and control bytes into a
 * visible \n or \xNN, so a name can never end a table row.
 */
#include "compare/report.h"
#include "compare/trends.h"

#include <stdlib.h>
#include <string.h>

/* GitHub refuses comments over 65536 characters; GitLab notes allow more.
 * Details stop once the comment passes this many bytes, leaving room for
 * the last block. */
#define PG_MARKDOWN_BUDGET 50000

/* Flame graph images in one comment: enough for the worst regressions
 * without pushing the tables off the page. */
#define PG_MARKDOWN_IMAGES 5

static void pg_md_escape(struct pg_buf *out, const char *s)
{
        struct pg_buf t = PG_BUF_INIT;

        pg_report_escape_ctl(&t, s);
        for (const char *p = t.ptr; *p; p++) {
                switch (*p) {
                case '&':
                        pg_buf_puts(out, "&amp;");
                        break;
                case '<':
                        pg_buf_puts(out, "&lt;");
                        break;
                case '>':
                        pg_buf_puts(out, "&gt;");
                        break;
                case '"':
                        pg_buf_puts(out, "&quot;");
                        break;
                case '\'':
                case '|':
                case '`':
                case '\\':
                case '*':
                case '_':
                case '[':
                case ']':
                case '~':
                case '#':
                case '!':
                case '(':
                case ')':
                case '$':
                case '@':
                        pg_buf_printf(out, "&#%d;", (unsigned char) *p);
                        break;
                default:
                        pg_buf_putc(out, *p);
                }
        }
        pg_buf_release(&t);
}

/* A URL path component: unreserved bytes kept, everything else %XX. */
static void pg_url_escape(struct pg_buf *out, const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_' || *p == '~')
                        pg_buf_putc(out, (char) *p);
                else
                        pg_buf_printf(out, "%%%02X", *p);
        }
}

/* An HTML attribute value (the link base is the user's; quote-safe). */
static void pg_attr_escape(struct pg_buf *out, const char *s)
{
        pg_md_escape(out, s);
}

static const char *pg_verdict_icon(enum pg_verdict v)
{
        switch (v) {
        case PG_VERDICT_REGRESSION:
        case PG_VERDICT_FAILED:
                return ":red_circle:";
        case PG_VERDICT_INCONCLUSIVE:
        case PG_VERDICT_MISSING:
                return ":warning:";
        case PG_VERDICT_IMPROVEMENT:
                return ":green_circle:";
        case PG_VERDICT_NEW:
                return ":new:";
        default:
                return ":white_circle:";
        }
}

static void pg_md_changes(struct pg_buf *out, const struct pg_bench_cmp *b)
{
        size_t shown = 0;
        bool gated_reg = false;
        struct pg_buf t = PG_BUF_INIT;

        /* the paired runs decide over the stored batches: their answer first */
        pg_bench_confirm_brief(&t, b->confirm);
        pg_md_escape(out, t.ptr ? t.ptr : "");
        for (size_t i = 0; i < b->njudgements && shown < 3 && b->base && b->head; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                if (!pg_report_summary_metric(j, shown))
                        continue;
                pg_buf_puts(out, shown ? ", " : "");
                pg_md_escape(out, j->metric);
                pg_buf_puts(out, " ");
                pg_buf_reset(&t);
                pg_report_fmt_change(&t, j);
                pg_md_escape(out, t.ptr);
                if (pg_report_summary_word(j))
                        pg_buf_printf(out, " (%s)", pg_report_summary_word(j));
                else if (pg_report_unchanged_why(j)) {
                        pg_buf_puts(out, " (");
                        pg_md_escape(out, pg_report_unchanged_why(j));
                        pg_buf_putc(out, ')');
                }
                if (j->ncauses) {
                        /* the first cause, so a collapsed comment still says where */
                        pg_buf_puts(out, " in `");
                        pg_buf_reset(&t);
                        pg_report_escape_ctl(&t, j->causes[0].function);
                        for (char *p = t.ptr; *p; p++)
                                pg_buf_putc(out, *p == '`' || *p == '|' ? '\'' : *p);
                        pg_buf_puts(out, "`");
                }
                gated_reg |= j->rule.gate && j->outcome == PG_OUTCOME_REGRESSION && !j->unconfirmed;
                shown++;
        }
        if (!shown && b->reason)
                pg_md_escape(out, b->reason);
        else if (b->verdict == PG_VERDICT_REGRESSION && !gated_reg && b->reason) {
                /* as the text report: the regression came from elsewhere (a
                 * gating hotspot, confirmed or stored) */
                pg_buf_puts(out, "; ");
                pg_md_escape(out, b->reason);
        }
        /* as the text report: what vanished is named, with why */
        if (b->base && b->head) {
                pg_buf_reset(&t);
                if (pg_report_not_judged(&t, b, pg_md_escape))
                        pg_buf_printf(out, "; not judged: %s", t.ptr);
        }
        pg_buf_release(&t);
}

static void pg_md_url(struct pg_buf *out, const struct pg_report_opts *o, const char *file);

static void pg_md_link(struct pg_buf *out, const struct pg_report_opts *o, const char *file,
                       const char *label)
{
        pg_buf_puts(out, "<a href=\"");
        pg_md_url(out, o, file);
        pg_buf_printf(out, "\">%s</a>", label);
}

/* The URL of @file under o->link_base, escaped for an HTML attribute. */
static void pg_md_url(struct pg_buf *out, const struct pg_report_opts *o, const char *file)
{
        pg_attr_escape(out, o->link_base);
        if (o->link_base[0] && o->link_base[strlen(o->link_base) - 1] != '/')
                pg_buf_putc(out, '/');
        pg_url_escape(out, file);
}

/* How far beyond its threshold @b's worst regressed gating metric is (0:
 * none): a metric that does not gate failed nothing, so it ranks nothing. */
static double pg_md_badness(const struct pg_bench_cmp *b)
{
        double worst = 0;
        for (size_t i = 0; i < b->njudgements; i++)
                if (b->judgements[i].outcome == PG_OUTCOME_REGRESSION &&
                    pg_report_metric_section(&b->judgements[i]) == PG_REPORT_SECTION_GATING &&
                    b->judgements[i].badness > worst)
                        worst = b->judgements[i].badness;
        return worst;
}

static int pg_md_worse(const void *pa, const void *pb)
{
        const struct pg_bench_cmp *a = *(const struct pg_bench_cmp *const *) pa;
        const struct pg_bench_cmp *b = *(const struct pg_bench_cmp *const *) pb;
        double da = pg_md_badness(a), db = pg_md_badness(b);
        if (da != db)
                return da > db ? -1 : 1;
        return strcmp(a->name, b->name);
}

static void pg_md_image(struct pg_buf *out, const struct pg_report_opts *o,
                        const struct pg_bench_cmp *b, const char *file, const char *what)
{
        const char *culprit = pg_hotspots_culprit(&b->hotspots);

        pg_buf_puts(out, "<a href=\"");
        pg_md_url(out, o, b->flamegraph_diff);
        pg_buf_puts(out, "\"><img src=\"");
        pg_md_url(out, o, file);
        pg_buf_puts(out, "\" alt=\"");
        pg_md_escape(out, b->name);
        pg_buf_printf(out, ": %s", what);
        if (culprit) {
                pg_buf_puts(out, "; ");
                pg_md_escape(out, culprit);
                pg_buf_puts(out, " grew (outlined in red)");
        }
        pg_buf_puts(out, "\"></a>\n\n");
}

/* The blocking paths whose off-CPU time moved by the rule's min_ms or more
 * per run (compare/offcpu.h), regressed first, at most @maxh per benchmark. */
static void pg_md_offcpu(struct pg_buf *out, const struct pg_comparison *c, size_t maxh)
{
        bool any = false;

        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                size_t shown = 0;

                for (size_t k = 0; b->offcpu.judged && k < b->offcpu.n && shown < maxh; k++) {
                        const struct pg_offcpu_path *p = &b->offcpu.items[k];
                        if (!pg_offcpu_path_listed(&b->offcpu, p))
                                continue;
                        if (!any)
                                pg_buf_puts(out, "\n#### Off-CPU time (ms blocked per run)\n\n"
                                                 "| benchmark | blocking path | base ms | head ms "
                                                 "| change | |\n"
                                                 "|---|---|--:|--:|--:|---|\n");
                        any = true;
                        pg_buf_puts(out, "| ");
                        pg_md_escape(out, b->name);
                        pg_buf_puts(out, " | ");
                        pg_md_escape(out, p->path);
                        pg_buf_printf(out, " | %.1f | %.1f | %+.1f | %s |\n", p->base_ms,
                                      p->head_ms, p->delta_ms,
                                      p->regressed ? "regressed" : "not gating");
                        shown++;
                }
        }
}

/*
 * The regressions' flame graphs as images, worst first: a static image
 * (labels drawn as text, no script: image proxies strip scripts), then its
 * focus view when the culprit would be a sliver; each links to the
 * interactive SVG.
 */
static void pg_md_images(struct pg_buf *out, const struct pg_comparison *c,
                         const struct pg_report_opts *o)
{
        const struct pg_bench_cmp **list;
        size_t n = 0;

        if (!o || !o->link_base)
                return;
        list = pg_xcalloc(c->n ? c->n : 1, sizeof(*list));
        for (size_t i = 0; i < c->n; i++)
                if (c->benches[i].verdict == PG_VERDICT_REGRESSION &&
                    c->benches[i].flamegraph_image && c->benches[i].flamegraph_diff)
                        list[n++] = &c->benches[i];
        qsort(list, n, sizeof(*list), pg_md_worse);
        if (n)
                pg_buf_printf(out,
                              "\n**Where the time went**: the differential flame graph of "
                              "%s (red: grew, blue: shrank, widths: head's samples). "
                              "Click one for the full graph with tooltips.\n\n",
                              n == 1 ? "the regression" : "each regression, worst first");
        for (size_t i = 0; i < n && i < PG_MARKDOWN_IMAGES; i++) {
                pg_md_image(out, o, list[i], list[i]->flamegraph_image, "differential flame graph");
                if (list[i]->flamegraph_focus)
                        pg_md_image(out, o, list[i], list[i]->flamegraph_focus,
                                    "focus view of the differential flame graph");
        }
        if (n > PG_MARKDOWN_IMAGES)
                pg_buf_printf(out,
                              "%zu more regressions have flame graphs: see their details "
                              "below.\n\n",
                              n - PG_MARKDOWN_IMAGES);
        free(list);
}

/* "Head: 1a2b...(40 hex). ": the commit the head results measured. */
static void pg_md_head(struct pg_buf *out, const struct pg_comparison *c)
{
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_result *h = c->benches[i].head;
                if (!h || !h->has_git || !h->git_commit ||
                    strspn(h->git_commit, "0123456789abcdef") != strlen(h->git_commit))
                        continue;
                /* plain text: GitHub and GitLab link a commit id to the commit */
                pg_buf_puts(out, "Head: ");
                pg_buf_puts(out, h->git_commit);
                pg_buf_printf(out, "%s. ", h->git_dirty ? " (with uncommitted changes)" : "");
                return;
        }
}

/* A link to @bench's page of the history site (docs/history.md). */
static void pg_md_history_link(struct pg_buf *out, const struct pg_report_opts *o,
                               const char *bench)
{
        struct pg_buf page = PG_BUF_INIT;
        pg_trends_page_name(&page, bench);
        pg_buf_puts(out, " <a href=\"");
        pg_attr_escape(out, o->history_url);
        if (o->history_url[0] && o->history_url[strlen(o->history_url) - 1] != '/')
                pg_buf_putc(out, '/');
        pg_buf_printf(out, "%s\">history</a>", page.ptr);
        pg_buf_release(&page);
}

/* The cells "base | head | change | p-value | threshold" of @j's row. */
static void pg_md_metric_cells(struct pg_buf *out, const struct pg_judgement *j)
{
        struct pg_buf t = PG_BUF_INIT;

        if (j->has_base)
                pg_report_fmt_value(&t, j->base_median, j->unit, pg_report_is_rate(j));
        else
                pg_buf_puts(&t, "-");
        pg_md_escape(out, t.ptr);
        pg_buf_puts(out, " | ");
        pg_buf_reset(&t);
        if (j->has_head)
                pg_report_fmt_value(&t, j->head_median, j->unit, pg_report_is_rate(j));
        else
                pg_buf_puts(&t, "-");
        pg_md_escape(out, t.ptr);
        pg_buf_puts(out, " | ");
        pg_buf_reset(&t);
        pg_report_fmt_change(&t, j);
        pg_md_escape(out, t.ptr);
        pg_buf_puts(out, " | ");
        if (j->has_p)
                pg_buf_printf(out, "%.3g", j->p_value);
        else
                pg_buf_puts(out, "-");
        pg_buf_puts(out, " | ");
        pg_buf_reset(&t);
        pg_report_fmt_threshold(&t, &j->rule);
        pg_md_escape(out, t.ptr);
        pg_buf_release(&t);
}

/* Whether @metric is measured on neither side in every benchmark that has
 * both (each of those has <details>): such metrics are listed once, above
 * the details, instead of in each. */
static bool pg_md_unmeasured_everywhere(const struct pg_comparison *c, const char *metric)
{
        size_t seen = 0;

        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                bool unmeasured = false;
                if (!b->base || !b->head)
                        continue;
                for (size_t k = 0; k < b->njudgements; k++) {
                        const struct pg_judgement *j = &b->judgements[k];
                        if (strcmp(j->metric, metric) == 0) {
                                unmeasured = !j->has_base && !j->has_head;
                                break;
                        }
                }
                if (!unmeasured)
                        return false;
                seen++;
        }
        return seen > 0;
}

/* The metrics unmeasured everywhere (pg_md_unmeasured_everywhere()), found
 * once per report: candidates are those of the first benchmark with
 * details, in its order. */
struct pg_md_unmeasured {
        const char **names;
        size_t n;
};

static void pg_md_unmeasured_find(struct pg_md_unmeasured *u, const struct pg_comparison *c)
{
        memset(u, 0, sizeof(*u));
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                if (!b->base || !b->head)
                        continue;
                for (size_t m = 0; m < b->njudgements; m++) {
                        const char *metric = b->judgements[m].metric;
                        if (!pg_md_unmeasured_everywhere(c, metric))
                                continue;
                        u->names = pg_xreallocarray(u->names, u->n + 1, sizeof(*u->names));
                        u->names[u->n++] = metric;
                }
                break;
        }
}

static bool pg_md_unmeasured_has(const struct pg_md_unmeasured *u, const char *metric)
{
        for (size_t i = 0; i < u->n; i++)
                if (strcmp(u->names[i], metric) == 0)
                        return true;
        return false;
}

static const char pg_md_unmeasured_why[] =
    "(not supported, not counted, or kernel-only at kernel.perf_event_paranoid 2, on this "
    "machine)";

/* "Not measured on either side in any benchmark ...: a, b." above the
 * details, when some metric is. */
static void pg_md_unmeasured_common(struct pg_buf *out, const struct pg_md_unmeasured *u)
{
        for (size_t k = 0; k < u->n; k++) {
                if (k)
                        pg_buf_puts(out, ", ");
                else
                        pg_buf_printf(out, "Not measured on either side in any benchmark %s: ",
                                      pg_md_unmeasured_why);
                pg_md_escape(out, u->names[k]);
        }
        if (u->n)
                pg_buf_puts(out, ".\n\n");
}

static void pg_md_metric_table(struct pg_buf *out, const struct pg_md_unmeasured *u,
                               const struct pg_bench_cmp *b)
{
        pg_buf_puts(out, "| metric | base | head | change | p-value | threshold | gates | "
                         "verdict |\n|---|--:|--:|--:|--:|--:|---|---|\n");
        size_t unmeasured = 0;

        for (size_t i = 0; i < b->njudgements; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                if (!j->has_base && !j->has_head) { /* listed once, below the table */
                        unmeasured += !pg_md_unmeasured_has(u, j->metric);
                        continue;
                }
                pg_buf_puts(out, "| ");
                pg_md_escape(out, j->metric);
                pg_buf_puts(out, " | ");
                pg_md_metric_cells(out, j);
                pg_buf_printf(out, " | %s | %s", j->rule.gate ? "yes" : "no",
                              pg_report_detail_word(j));
                if (j->reason) {
                        pg_buf_puts(out, ": ");
                        pg_md_escape(out, j->reason);
                }
                pg_buf_puts(out, " |\n");
        }
        if (unmeasured) {
                size_t k = 0;
                pg_buf_printf(out, "\nNot measured on either side %s: ", pg_md_unmeasured_why);
                for (size_t i = 0; i < b->njudgements; i++) {
                        const struct pg_judgement *j = &b->judgements[i];
                        if (j->has_base || j->has_head || pg_md_unmeasured_has(u, j->metric))
                                continue;
                        pg_buf_puts(out, k++ ? ", " : "");
                        pg_md_escape(out, j->metric);
                }
                pg_buf_puts(out, ".\n");
        }
}

/* The metrics that do not gate and changed (pg_report_metric_section(), as
 * the text report's "Changes that do not gate"), in one table. */
static void pg_md_not_gating(struct pg_buf *out, const struct pg_comparison *c)
{
        bool any = false;

        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                for (size_t k = 0; k < b->njudgements; k++) {
                        const struct pg_judgement *j = &b->judgements[k];
                        if (pg_report_metric_section(j) != PG_REPORT_SECTION_NOT_GATING)
                                continue;
                        if (!any)
                                pg_buf_puts(out, "\n#### Changes that do not gate\n\n"
                                                 "These metrics fail no benchmark "
                                                 "(perfgate.json compare.gate names the "
                                                 "metrics that do).\n\n"
                                                 "| benchmark | metric | base | head | change "
                                                 "| p-value | threshold | |\n"
                                                 "|---|---|--:|--:|--:|--:|--:|---|\n");
                        any = true;
                        pg_buf_puts(out, "| ");
                        pg_md_escape(out, b->name);
                        pg_buf_puts(out, " | ");
                        pg_md_escape(out, j->metric);
                        pg_buf_puts(out, " | ");
                        pg_md_metric_cells(out, j);
                        pg_buf_printf(out, " | %s |\n", pg_report_detail_word(j));
                }
        }
}

static void pg_md_path(struct pg_buf *out, const char *path)
{
        char *copy = pg_report_path_shown(path), *save = NULL;
        bool first = true;

        for (char *f = strtok_r(copy, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
                pg_buf_puts(out, first ? "" : " &gt; ");
                pg_md_escape(out, f);
                first = false;
        }
        free(copy);
}

void pg_report_markdown(struct pg_buf *out, const struct pg_comparison *c,
                        const struct pg_report_opts *o)
{
        char *summary = pg_comparison_summary_counts(c);
        size_t maxh = pg_report_max_hotspots(o), start = out->len;
        bool any_hot = false;
        struct pg_md_unmeasured unmeasured;

        pg_md_unmeasured_find(&unmeasured, c);
        pg_buf_puts(out, "<!-- perfgate -->\n");
        pg_buf_puts(out, "### perfgate: ");
        if (c->failed_status) { /* a failed --confirm's message names paths */
                pg_buf_printf(out, "not confirmed (exit %d): ", c->failed_status);
                pg_md_escape(out, c->failed ? c->failed : "failed");
                pg_buf_puts(out, "; ");
        }
        pg_buf_puts(out, summary);
        pg_buf_puts(out, "\n\n");
        pg_md_head(out, c);
        pg_buf_puts(out, "Baseline: ");
        pg_md_escape(out, c->base_label ? c->base_label : "(unnamed)");
        pg_buf_puts(out, ". A change counts when it is beyond its threshold, beyond 3x the "
                         "noise (relative MAD) and significant (Mann-Whitney U); change = "
                         "median(head) / median(base) - 1, rates in percentage points.");
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_result *h = c->benches[i].head;
                if (h && h->counters && strcmp(h->counters, "simulated") == 0) {
                        pg_buf_puts(out, " Simulated counts (valgrind) are deterministic: "
                                         "beyond the threshold is enough.");
                        break;
                }
        }
        pg_buf_puts(out, "\n\n");
        for (size_t i = 0; i < c->ndrifts; i++) {
                char *note = pg_run_drift_note(&c->drifts[i]);
                pg_md_escape(out, note);
                pg_buf_puts(out, "\n\n");
                free(note);
        }
        if (c->n) {
                pg_buf_puts(out,
                            "| | benchmark | verdict | biggest changes |\n|---|---|---|---|\n");
                for (size_t i = 0; i < c->n; i++) {
                        const struct pg_bench_cmp *b = &c->benches[i];
                        pg_buf_printf(out, "| %s | ", pg_verdict_icon(b->verdict));
                        pg_md_escape(out, b->name);
                        pg_buf_printf(out, " | %s%s%s | ",
                                      b->verdict == PG_VERDICT_REGRESSION ? "**" : "",
                                      pg_verdict_name(b->verdict),
                                      b->verdict == PG_VERDICT_REGRESSION ? "**" : "");
                        pg_md_changes(out, b);
                        if (b->flamegraph_diff && o && o->link_base) {
                                pg_buf_puts(out, " ");
                                pg_md_link(out, o, b->flamegraph_diff, "flame graph");
                        }
                        if (o && o->history_url && b->verdict != PG_VERDICT_NEW)
                                pg_md_history_link(out, o, b->name);
                        pg_buf_puts(out, " |\n");
                }
        }
        pg_md_images(out, c, o);
        size_t not_gating = 0;
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                size_t shown = 0;
                for (size_t k = 0; b->hotspots.judged && k < b->hotspots.n && shown < maxh; k++) {
                        const struct pg_hotspot *h = &b->hotspots.items[k];
                        double bs, hs, pp;
                        bool incl, self;
                        if (!pg_report_hotspot_listed(h))
                                continue;
                        if (!any_hot) {
                                pg_buf_puts(out, "\n#### Hotspots (self share of samples)\n\n"
                                                 "| benchmark | function | base share | head "
                                                 "share | change | est. ms | own time ms | "
                                                 "|\n"
                                                 "|---|---|--:|--:|--:|--:|--:|---|\n");
                                any_hot = true;
                        }
                        pg_buf_puts(out, "| ");
                        pg_md_escape(out, b->name);
                        pg_buf_puts(out, " | ");
                        pg_md_escape(out, h->function);
                        incl = pg_report_hotspot_shares(h, &bs, &hs, &pp);
                        /* est. and own time are self-based (report_text.c) */
                        self = !incl || h->base_self || h->head_self;
                        pg_buf_printf(out, " | %.2f%%%s | %.2f%%%s | %+.2f pp | ", bs,
                                      incl ? " incl." : "", hs, incl ? " incl." : "", pp);
                        if (h->has_est && self)
                                pg_buf_printf(out, "%+.1f",
                                              pg_report_unsigned_zero(h->est_ms, 0.1));
                        else
                                pg_buf_puts(out, "-");
                        pg_buf_puts(out, " | ");
                        if (h->has_self_time && self)
                                pg_buf_printf(out, "%+.1f",
                                              pg_report_unsigned_zero(h->self_time_ms, 0.1));
                        else
                                pg_buf_puts(out, "-");
                        pg_buf_printf(out, " | %s |\n", pg_hotspot_kind_name(h->kind));
                        shown++;
                }
                if (shown && pg_report_hotspots_not_gating(b))
                        not_gating++;
        }
        if (not_gating)
                pg_buf_puts(out, "\nHotspots do not gate these verdicts (hotspots.gate is "
                                 "false in perfgate.json): a regressed function is reported, "
                                 "not failed.\n");
        pg_md_offcpu(out, c, maxh);
        pg_md_not_gating(out, c);
        pg_buf_puts(out, "\n");
        pg_md_unmeasured_common(out, &unmeasured);
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                size_t shown = 0;
                if (!b->base || !b->head)
                        continue;
                if (out->len - start > PG_MARKDOWN_BUDGET) {
                        pg_buf_printf(out, "Details of the remaining benchmarks are left out "
                                           "to keep the comment within the size limit of "
                                           "PR/MR comments; the JSON verdict has them all.\n");
                        break;
                }
                pg_buf_puts(out, "<details><summary>");
                pg_md_escape(out, b->name);
                pg_buf_printf(out, ": %s</summary>\n\n", pg_verdict_name(b->verdict));
                if (b->reason) {
                        pg_md_escape(out, b->reason);
                        pg_buf_puts(out, "\n\n");
                }
                if (b->confirm) {
                        pg_buf_puts(out, "**Paired check**: ");
                        /* <br> without a newline: a log line such as "---" or "- x" at the
                         * start of a source line would become Markdown structure */
                        pg_bench_confirm_describe(out, b->confirm, pg_md_escape, "<br>");
                        pg_buf_puts(out, "\n\n");
                }
                if (b->host_diff) {
                        pg_buf_puts(out, "Hosts differ: ");
                        pg_md_escape(out, b->host_diff);
                        pg_buf_puts(out, "\n\n");
                }
                pg_report_host_notes(out, b, pg_md_escape,
                                     "Hosts differ: ", "Runner load: ", "\n\n");
                struct pg_buf dist = PG_BUF_INIT;
                if (pg_report_leftovers(&dist, b)) {
                        pg_buf_puts(out, "Processes left running: ");
                        pg_md_escape(out, dist.ptr);
                        pg_buf_puts(out, ".\n\n");
                }
                pg_buf_release(&dist);
                pg_md_metric_table(out, &unmeasured, b);
                for (size_t k = 0; k < b->njudgements; k++) {
                        if (!b->judgements[k].ncauses)
                                continue;
                        pg_buf_puts(out, "\n- where: ");
                        pg_report_fmt_causes(out, &b->judgements[k], pg_md_escape);
                        if (k + 1 == b->njudgements || !b->judgements[k + 1].ncauses)
                                pg_buf_putc(out, '\n');
                }
                if (!b->hotspots.judged && b->hotspots.reason &&
                    (b->base->profile.present || b->head->profile.present)) {
                        pg_buf_puts(out, "\nHotspots not compared: ");
                        pg_md_escape(out, b->hotspots.reason);
                        pg_buf_puts(out, "\n");
                }
                for (size_t k = 0; b->hotspots.judged && k < b->hotspots.n && shown < maxh; k++) {
                        const struct pg_hotspot *h = &b->hotspots.items[k];
                        if (!pg_report_hotspot_listed(h))
                                continue;
                        pg_buf_puts(out, shown ? "" : "\nHottest call paths:\n\n");
                        pg_buf_puts(out, "- ");
                        pg_md_escape(out, h->function);
                        pg_buf_printf(out, " (%s): ", pg_hotspot_kind_name(h->kind));
                        pg_md_path(out, h->path);
                        if (h->line) {
                                pg_buf_puts(out, "; grew most at ");
                                pg_report_grew_line(out, h, pg_md_escape);
                        }
                        pg_buf_puts(out, "\n");
                        shown++;
                }
                if (b->flamegraph_diff && o && o->link_base) {
                        pg_buf_puts(out, "\nFlame graphs: ");
                        pg_md_link(out, o, b->flamegraph_diff, "differential (head shape)");
                        if (b->flamegraph_base) {
                                pg_buf_puts(out, ", ");
                                pg_md_link(out, o, b->flamegraph_base, "baseline shape");
                        }
                        pg_buf_puts(out, "\n");
                } else if (b->flamegraph_diff) {
                        /* no URL to link: name the files of the flame graph directory */
                        pg_buf_puts(out, "\nFlame graphs (in the flame graph directory): ");
                        pg_md_escape(out, b->flamegraph_diff);
                        pg_buf_puts(out, " (differential, head shape)");
                        if (b->flamegraph_base) {
                                pg_buf_puts(out, ", ");
                                pg_md_escape(out, b->flamegraph_base);
                                pg_buf_puts(out, " (baseline shape: what vanished)");
                        }
                        pg_buf_puts(out, "\n");
                }
                pg_buf_puts(out, "\n</details>\n");
        }
        /* the paired checks' intervals differ in level: say why once */
        {
                struct pg_buf t = PG_BUF_INIT;
                if (pg_report_confirm_levels(&t, c, pg_md_escape))
                        pg_buf_printf(out, "\n%s", t.ptr);
                pg_buf_release(&t);
        }
        free(unmeasured.names);
        free(summary);
}

void pg_report_markdown_no_baseline(struct pg_buf *out, const char *rev, const char *machine,
                                    const char *others)
{
        pg_buf_puts(out, "<!-- perfgate -->\n### perfgate: no baseline yet\n\nNo baseline is "
                         "recorded for ");
        pg_md_escape(out, rev);
        pg_buf_puts(out, " on machine ");
        pg_md_escape(out, machine);
        if (others) {
                pg_buf_puts(out, ", so nothing was compared. Baselines there exist for "
                                 "machine(s) ");
                pg_md_escape(out, others);
                pg_buf_puts(out, ": give the baseline job and this job the same machine name "
                                 "(the CI's `machine` input, `PERFGATE_MACHINE` on GitLab).\n");
                return;
        }
        pg_buf_puts(out, ", so nothing was compared. The main branch's job records one with "
                         "`perfgate baseline save` (and pushes the `perfgate-baselines` "
                         "branch); pull requests are compared from then on.\n");
}
