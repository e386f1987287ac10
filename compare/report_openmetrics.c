/*
 * report_openmetrics.c - OpenMetrics text exposition for GitLab's metrics
 * report (report.h; format: OpenMetrics 1.0 specification, "Text format";
 * GitLab docs "Metrics reports"). Families, all gauges:
 *   perfgate_head_median{benchmark,metric,unit}   head median, base units
 *   perfgate_base_median{benchmark,metric,unit}   baseline median
 *   perfgate_change_ratio{benchmark,metric}       median(H)/median(B) - 1
 *   perfgate_change_points{benchmark,metric}      rates: (H - B) x 100
 *   perfgate_regression{benchmark}                1 when the verdict is regression
 *   perfgate_offcpu_base_ms{benchmark,path}       off-CPU ms blocked per run in a
 *   perfgate_offcpu_head_ms{benchmark,path}       blocking path (compare/offcpu.h),
 *   perfgate_offcpu_regression{benchmark,path}    and 1 when it regressed; the
 *                                                 paths the reports list
 *   perfgate_benchmarks{verdict}                  benchmarks per verdict
 * Label values escape \ " and newline as the format requires; undefined
 * values are left out (the format has no null and we never print NaN).
 * Ends with "# EOF".
 */
#include "compare/report.h"

#include <math.h>
#include <string.h>

#include "common/json.h"
#include "compare/offcpu.h"

static void pg_label(struct pg_buf *out, const char *s)
{
        for (const char *p = s; *p; p++) {
                if (*p == '\\')
                        pg_buf_puts(out, "\\\\");
                else if (*p == '"')
                        pg_buf_puts(out, "\\\"");
                else if (*p == '\n')
                        pg_buf_puts(out, "\\n");
                else
                        pg_buf_putc(out, *p);
        }
}

static void pg_sample(struct pg_buf *out, const char *family, const char *bench,
                      const struct pg_judgement *j, bool with_unit, double v)
{
        pg_buf_printf(out, "%s{benchmark=\"", family);
        pg_label(out, bench);
        pg_buf_puts(out, "\",metric=\"");
        pg_label(out, j->metric);
        if (with_unit) {
                pg_buf_puts(out, "\",unit=\"");
                pg_label(out, j->unit);
        }
        pg_buf_puts(out, "\"} ");
        pg_json_write_number(out, v);
        pg_buf_putc(out, '\n');
}

void pg_report_openmetrics(struct pg_buf *out, const struct pg_comparison *c,
                           const struct pg_report_opts *o)
{
        static const struct {
                const char *family, *help;
        } fam[] = {
                { "perfgate_head_median", "median of the head repetitions, base units" },
                { "perfgate_base_median", "median of the baseline repetitions, base units" },
                { "perfgate_change_ratio", "median(head)/median(base) - 1" },
                { "perfgate_change_points", "rates: (median(head) - median(base)) x 100" },
        };

        (void) o;
        for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
                pg_buf_printf(out, "# TYPE %s gauge\n# HELP %s %s\n", fam[f].family, fam[f].family,
                              fam[f].help);
                for (size_t i = 0; i < c->n; i++) {
                        const struct pg_bench_cmp *b = &c->benches[i];
                        for (size_t k = 0; k < b->njudgements; k++) {
                                const struct pg_judgement *j = &b->judgements[k];
                                bool rate = j->rule.kind == PG_THRESHOLD_POINTS;
                                if (f == 0 && j->has_head && isfinite(j->head_median))
                                        pg_sample(out, fam[f].family, b->name, j, true,
                                                  j->head_median);
                                else if (f == 1 && j->has_base && isfinite(j->base_median))
                                        pg_sample(out, fam[f].family, b->name, j, true,
                                                  j->base_median);
                                else if (f == 2 && j->has_rel && j->has_head)
                                        pg_sample(out, fam[f].family, b->name, j, false,
                                                  j->rel_change);
                                else if (f == 3 && rate && j->has_base && j->has_head)
                                        pg_sample(out, fam[f].family, b->name, j, false,
                                                  j->pp_change);
                        }
                }
        }
        {
                static const char *const ofam[][2] = {
                        { "perfgate_offcpu_base_ms", "baseline ms blocked per run in the path" },
                        { "perfgate_offcpu_head_ms", "head ms blocked per run in the path" },
                        { "perfgate_offcpu_regression", "1 when the blocking path regressed" },
                };
                bool any = false;

                /* families only when a path is listed: results without
                 * off-CPU profiles give the same text as before */
                for (size_t i = 0; i < c->n && !any; i++)
                        for (size_t k = 0; k < c->benches[i].offcpu.n && !any; k++)
                                any = c->benches[i].offcpu.judged &&
                                      pg_offcpu_path_listed(&c->benches[i].offcpu,
                                                            &c->benches[i].offcpu.items[k]);
                for (size_t f = 0; any && f < 3; f++) {
                        pg_buf_printf(out, "# TYPE %s gauge\n# HELP %s %s\n", ofam[f][0],
                                      ofam[f][0], ofam[f][1]);
                        for (size_t i = 0; i < c->n; i++) {
                                const struct pg_offcpu_cmp *oc = &c->benches[i].offcpu;
                                for (size_t k = 0; oc->judged && k < oc->n; k++) {
                                        const struct pg_offcpu_path *p = &oc->items[k];
                                        if (!pg_offcpu_path_listed(oc, p))
                                                continue;
                                        pg_buf_printf(out, "%s{benchmark=\"", ofam[f][0]);
                                        pg_label(out, c->benches[i].name);
                                        pg_buf_puts(out, "\",path=\"");
                                        pg_label(out, p->path);
                                        pg_buf_puts(out, "\"} ");
                                        pg_json_write_number(out, f == 0 ? p->base_ms
                                                                  : f == 1
                                                                      ? p->head_ms
                                                                      : (p->regressed ? 1 : 0));
                                        pg_buf_putc(out, '\n');
                                }
                        }
                }
        }
        pg_buf_puts(out, "# TYPE perfgate_regression gauge\n"
                         "# HELP perfgate_regression 1 when the benchmark regressed\n");
        for (size_t i = 0; i < c->n; i++) {
                pg_buf_puts(out, "perfgate_regression{benchmark=\"");
                pg_label(out, c->benches[i].name);
                pg_buf_printf(out, "\"} %d\n",
                              c->benches[i].verdict == PG_VERDICT_REGRESSION ? 1 : 0);
        }
        pg_buf_puts(out, "# TYPE perfgate_benchmarks gauge\n"
                         "# HELP perfgate_benchmarks benchmarks per verdict\n");
        for (int v = 0; v < PG_VERDICT_COUNT; v++)
                pg_buf_printf(out, "perfgate_benchmarks{verdict=\"%s\"} %zu\n",
                              pg_verdict_name((enum pg_verdict) v), c->counts[v]);
        pg_buf_puts(out, "# EOF\n");
}
