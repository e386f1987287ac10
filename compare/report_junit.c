/*
 * report_junit.c - JUnit XML for CI test reporters (report.h): one
 * <testsuite name="perfgate"> with tests/failures/errors/skipped counts, one
 * <testcase name=benchmark classname="perfgate.<machine>" time=seconds> per
 * benchmark. A regression or a failed benchmark is a <failure> whose
 * message names the metric, base, head, change, p-value and threshold;
 * inconclusive and missing are <skipped> with the reason (a <failure> under
 * --strict, matching the exit status); new is a pass with <system-out>.
 * An off-CPU blocking path that regressed (compare/offcpu.h) is named in
 * the failure message like a metric, and every listed path in its text.
 * A refused or failed --confirm (exit 2 or 3) leads the message ("not
 * confirmed (exit 2): ...; ") of each benchmark it would have measured.
 * After compare --confirm, every message leads with the paired runs'
 * answer ("paired runs +0.96% [-1.12%, +3.38%]: no regression; ") and the
 * failure text or system-out holds the whole confirmation ("paired check:
 * confirmed no regression: ...").
 * What GitHub's and GitLab's reporters read: testsuite name/tests/failures,
 * testcase name/classname/time, failure message (the JUnit XSD of
 * junit-team/junit5 and GitLab's "unit test reports" documentation).
 *
 * XML 1.0 forbids most control characters even as references, so they are
 * shown as \n, \xNN text; & < > " ' are escaped everywhere.
 */
#include "compare/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/xml.h"
#include "compare/offcpu.h"
#include "compare/stats.h"

/* Control bytes are shown as visible escapes (\n, \x1b) in attributes, kept
 * as they are in element text when @text allows (newlines, tabs); then the
 * one XML rule of common/xml.h. */
static void pg_xml_escape_mode(struct pg_buf *out, const char *s, bool text)
{
        struct pg_buf t = PG_BUF_INIT;

        if (text) {
                for (const char *p = s; *p; p++) {
                        char one[2] = { *p, 0 };
                        if (*p == '\n' || *p == '\t')
                                pg_buf_putc(&t, *p);
                        else
                                pg_report_escape_ctl(&t, one);
                }
        } else {
                pg_report_escape_ctl(&t, s);
        }
        pg_xml_put(out, t.ptr);
        pg_buf_release(&t);
}

static void pg_junit_escape(struct pg_buf *out, const char *s)
{
        pg_xml_escape_mode(out, s, false);
}

static void pg_judgement_line(struct pg_buf *out, const struct pg_judgement *j)
{
        bool rate = pg_report_is_rate(j);

        pg_buf_printf(out, "%s %s: ", j->metric, pg_report_detail_word(j));
        if (j->has_base)
                pg_report_fmt_value(out, j->base_median, j->unit, rate);
        else
                pg_buf_puts(out, "-");
        pg_buf_puts(out, " -> ");
        if (j->has_head)
                pg_report_fmt_value(out, j->head_median, j->unit, rate);
        else
                pg_buf_puts(out, "-");
        pg_buf_puts(out, " (");
        pg_report_fmt_change(out, j);
        if (j->has_p)
                pg_buf_printf(out, ", p = %.3g", j->p_value);
        pg_buf_puts(out, ", threshold ");
        pg_report_fmt_threshold(out, &j->rule);
        pg_buf_puts(out, ")");
        if (j->reason)
                pg_buf_printf(out, ": %s", j->reason);
}

/* "off-CPU path A > B regressed: 1.0 -> 9.0 ms blocked per run (+8.0 ms;
 * threshold +50%, 2 ms, 5% of head)" */
static void pg_offcpu_line(struct pg_buf *out, const struct pg_offcpu_cmp *c,
                           const struct pg_offcpu_path *p)
{
        pg_buf_printf(out, "off-CPU path %s %s: %.1f -> %.1f ms blocked per run (%+.1f ms; ",
                      p->path, p->regressed ? "regressed" : "changed", p->base_ms, p->head_ms,
                      p->delta_ms);
        pg_buf_printf(out, "threshold +%g%%, %g ms, %g%% of head)", c->rule.threshold * 100,
                      c->rule.min_ms, c->rule.min_share * 100);
}

static double pg_head_seconds(const struct pg_bench_cmp *b)
{
        const struct pg_metric *m = b->head ? pg_result_find_metric(b->head, "task-clock") : NULL;
        if (!m || m->status != PG_METRIC_OK)
                return 0;
        return pg_stats_median(m->values, m->nvalues) / 1e9;
}

void pg_report_junit(struct pg_buf *out, const struct pg_comparison *c,
                     const struct pg_report_opts *o)
{
        size_t failures = 0, skipped = 0;
        double total_s = 0;
        struct pg_buf msg = PG_BUF_INIT, detail = PG_BUF_INIT, refusal = PG_BUF_INIT;

        (void) o;
        for (size_t i = 0; i < c->n; i++) {
                enum pg_verdict v = c->benches[i].verdict;
                bool fail = v == PG_VERDICT_REGRESSION || v == PG_VERDICT_FAILED ||
                            (c->strict && v == PG_VERDICT_INCONCLUSIVE) ||
                            (c->fail_on_missing && v == PG_VERDICT_MISSING);
                if (fail)
                        failures++;
                else if (v == PG_VERDICT_INCONCLUSIVE || v == PG_VERDICT_MISSING)
                        skipped++;
                total_s += pg_head_seconds(&c->benches[i]);
        }
        pg_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        pg_buf_printf(out,
                      "<testsuites name=\"perfgate\" tests=\"%zu\" failures=\"%zu\" "
                      "errors=\"0\" skipped=\"%zu\" time=\"%.6f\">\n",
                      c->n, failures, skipped, total_s);
        pg_buf_printf(out,
                      "  <testsuite name=\"perfgate\" tests=\"%zu\" failures=\"%zu\" "
                      "errors=\"0\" skipped=\"%zu\" time=\"%.6f\">\n",
                      c->n, failures, skipped, total_s);
        for (size_t i = 0; i < c->n; i++) {
                const struct pg_bench_cmp *b = &c->benches[i];
                const struct pg_result *r = b->head ? b->head : b->base;
                enum pg_verdict v = b->verdict;
                bool fail = v == PG_VERDICT_REGRESSION || v == PG_VERDICT_FAILED ||
                            (c->strict && v == PG_VERDICT_INCONCLUSIVE) ||
                            (c->fail_on_missing && v == PG_VERDICT_MISSING);
                bool refused = c->failed_status && b->confirm && !b->confirm->has_interval &&
                               b->confirm->outcome == PG_CONFIRM_NOT_CONFIRMED;
                size_t lead, refused_len = 0;

                pg_buf_reset(&msg);
                pg_buf_reset(&detail);
                pg_buf_reset(&refusal);
                /* a refused or failed --confirm (exit 2 or 3) leads the
                 * message of every benchmark it would have measured, as it
                 * leads the other reports: a CI widget that reads only JUnit
                 * must not show them as plainly skipped */
                if (refused)
                        pg_buf_printf(&refusal, "not confirmed (exit %d): %s", c->failed_status,
                                      c->failed ? c->failed : "failed");
                /* the paired runs' answer leads the message, as in the text
                 * report's summary line; the whole confirmation is in the
                 * detail, as in its line under the benchmark */
                pg_bench_confirm_brief(&msg, b->confirm);
                lead = msg.len;
                if (b->confirm) {
                        pg_buf_puts(&detail, "paired check: ");
                        pg_bench_confirm_describe(&detail, b->confirm, NULL, NULL);
                        pg_buf_putc(&detail, '\n');
                }
                pg_buf_puts(out, "    <testcase name=\"");
                pg_junit_escape(out, b->name);
                pg_buf_puts(out, "\" classname=\"perfgate.");
                pg_junit_escape(out, r && r->machine ? r->machine : "default");
                pg_buf_printf(out, "\" time=\"%.6f\"", pg_head_seconds(b));
                for (size_t k = 0; k < b->njudgements; k++) {
                        const struct pg_judgement *j = &b->judgements[k];
                        /* what failed or left it undecided, as the text report's
                         * "Regressions and inconclusive results" */
                        if (pg_report_metric_section(j) != PG_REPORT_SECTION_GATING)
                                continue;
                        if (msg.len > lead)
                                pg_buf_puts(&msg, "; ");
                        pg_judgement_line(&msg, j);
                }
                for (size_t k = 0; b->offcpu.judged && k < b->offcpu.n; k++) {
                        if (!b->offcpu.items[k].regressed)
                                continue;
                        if (msg.len > lead)
                                pg_buf_puts(&msg, "; ");
                        pg_offcpu_line(&msg, &b->offcpu, &b->offcpu.items[k]);
                }
                if (msg.len == lead) {
                        /* "regression: paired runs ...; hotspot 'f' grew ..." */
                        char *paired = pg_xstrdup(msg.ptr ? msg.ptr : "");
                        pg_buf_reset(&msg);
                        pg_buf_printf(&msg, "%s: %s%s", pg_verdict_name(v), paired,
                                      b->reason ? b->reason : "");
                        free(paired);
                }
                for (size_t k = 0; k < b->njudgements; k++) {
                        pg_judgement_line(&detail, &b->judgements[k]);
                        pg_buf_putc(&detail, '\n');
                }
                for (size_t k = 0; b->offcpu.judged && k < b->offcpu.n; k++) {
                        if (!pg_offcpu_path_listed(&b->offcpu, &b->offcpu.items[k]))
                                continue;
                        pg_offcpu_line(&detail, &b->offcpu, &b->offcpu.items[k]);
                        pg_buf_putc(&detail, '\n');
                }
                if (refused) {
                        refused_len = refusal.len;
                        pg_buf_puts(&refusal, "; ");
                        pg_buf_puts(&refusal, msg.ptr ? msg.ptr : "");
                        pg_buf_reset(&msg);
                        pg_buf_puts(&msg, refusal.ptr);
                }
                if (fail) {
                        pg_buf_puts(out, ">\n      <failure message=\"");
                        pg_junit_escape(out, msg.ptr);
                        pg_buf_printf(out, "\" type=\"%s\">", pg_verdict_name(v));
                        pg_xml_escape_mode(out, detail.ptr, true);
                        pg_buf_puts(out, "</failure>\n    </testcase>\n");
                } else if (v == PG_VERDICT_INCONCLUSIVE || v == PG_VERDICT_MISSING) {
                        pg_buf_puts(out, ">\n      <skipped message=\"");
                        pg_junit_escape(out, msg.ptr);
                        pg_buf_puts(out, "\"/>\n    </testcase>\n");
                } else {
                        pg_buf_puts(out, ">\n      <system-out>");
                        if (refused) { /* what leads the message of the others */
                                char *line = pg_xstrndup(msg.ptr, refused_len);
                                pg_xml_escape_mode(out, line, true);
                                pg_buf_putc(out, '\n');
                                free(line);
                        }
                        pg_junit_escape(out, pg_verdict_name(v));
                        if (b->reason) {
                                pg_buf_puts(out, ": ");
                                pg_junit_escape(out, b->reason);
                        }
                        pg_buf_puts(out, "\n");
                        pg_xml_escape_mode(out, detail.ptr, true);
                        pg_buf_puts(out, "</system-out>\n    </testcase>\n");
                }
        }
        pg_buf_puts(out, "  </testsuite>\n</testsuites>\n");
        pg_buf_release(&msg);
        pg_buf_release(&detail);
        pg_buf_release(&refusal);
}
