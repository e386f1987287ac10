/*
 * cmd_history.c - `perfgate history`: every baseline of a machine along the
 * first-parent history of a branch, one line per benchmark and metric
 * (latest value, trend, change points), and optionally the JSON of it and
 * the static trends site. baselines/history.h reads git, compare/trends.h
 * computes, compare/history_html.h writes the site; this file parses
 * options and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/history.h"
#include "baselines/store.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/width.h"
#include "compare/history_html.h"
#include "compare/report.h"
#include "compare/trends.h"

const char pg_usage_history[] =
    "usage: perfgate history [--branch REV] [--machine NAME] [--data-branch NAME]\n"
    "                        [--metric NAME]... [--config FILE] [--html DIR] [--json FILE]\n"
    "\n"
    "Read every baseline of one machine from the data branch (no checkout),\n"
    "order them along the first-parent history of a branch, and print one line\n"
    "per benchmark and metric: the latest value (median of the repetitions),\n"
    "the trend (median of the last w commits against the first w, w = n/4 up\n"
    "to 10) and the change points found by E-divisive means with a rank test\n"
    "(commit, effect). Metrics: the gating ones (perfgate.json's \"compare\"\n"
    "rules, by default task-clock and instructions; with simulated counters\n"
    "also cycles and the miss rates), or --metric.\n"
    "\n"
    "options:\n"
    "  --branch REV         branch whose first-parent history orders the results\n"
    "                       (default: perfgate.json's \"base\", else main; a bare\n"
    "                       name is also found as origin/NAME)\n"
    "  --machine NAME       machine the baselines are filed under (default 'default')\n"
    "  --data-branch NAME   data branch (default " PG_STORE_DEFAULT_BRANCH ")\n"
    "  --metric NAME        chart this metric (repeatable; replaces the gating set)\n"
    "  --config FILE        gating metrics and \"base\" from FILE (default ./perfgate.json,\n"
    "                       else bench/perfgate.json, if present)\n"
    "  --max-commits N      walk at most N commits back from the tip (default: all)\n"
    "  --alpha P            significance of a change point, after the Bonferroni\n"
    "                       factor for the choice of the split (default 0.001)\n"
    "  --min-effect PCT     smallest change of level kept, percent (default 1)\n"
    "  --html DIR           write the static site into DIR (replaced when it holds a\n"
    "                       previous site; a non-empty other directory is refused)\n"
    "  --flamegraphs N      flame graphs for the newest N commits of each benchmark\n"
    "                       (default 20; 0: every commit with a profile), and for\n"
    "                       the commits at and before each change point\n"
    "  --json FILE          write the series, change points and hotspot shares as\n"
    "                       JSON (schema perfgate/history/1; '-' for stdout)\n"
    "\n"
    "exit status: 0 done (also with no baselines yet); 2 bad input (not a git\n"
    "repository, unknown branch, bad option, corrupt or newer baseline, DIR not\n"
    "a site); 4 internal or I/O error\n";

enum {
        OPT_BRANCH = 256,
        OPT_MACHINE,
        OPT_DATA_BRANCH,
        OPT_METRIC,
        OPT_MAX_COMMITS,
        OPT_ALPHA,
        OPT_MIN_EFFECT,
        OPT_HTML,
        OPT_FLAMEGRAPHS,
        OPT_JSON,
        OPT_CONFIG
};

static const struct option pg_history_longopts[] = {
        { "branch", required_argument, NULL, OPT_BRANCH },
        { "machine", required_argument, NULL, OPT_MACHINE },
        { "data-branch", required_argument, NULL, OPT_DATA_BRANCH },
        { "metric", required_argument, NULL, OPT_METRIC },
        { "max-commits", required_argument, NULL, OPT_MAX_COMMITS },
        { "alpha", required_argument, NULL, OPT_ALPHA },
        { "min-effect", required_argument, NULL, OPT_MIN_EFFECT },
        { "html", required_argument, NULL, OPT_HTML },
        { "flamegraphs", required_argument, NULL, OPT_FLAMEGRAPHS },
        { "json", required_argument, NULL, OPT_JSON },
        { "config", required_argument, NULL, OPT_CONFIG },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

static bool pg_parse_size(const char *s, size_t *out)
{
        char *end;
        unsigned long long v;
        if (!*s || *s == '-')
                return false;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || *end)
                return false;
        *out = (size_t) v;
        return true;
}

static bool pg_parse_double(const char *s, double *out)
{
        char *end;
        double v;
        errno = 0;
        v = strtod(s, &end);
        if (errno || end == s || *end || !isfinite(v))
                return false;
        *out = v;
        return true;
}

static void pg_pct(struct pg_buf *b, double f)
{
        double v = 100 * f;
        if (fabs(v) < 0.05)
                v = 0;
        pg_buf_printf(b, "%+.1f%%", v);
}

/* The one-line-per-series table. */
static void pg_history_print(FILE *f, const struct pg_trends *t)
{
        const struct pg_history *h = t->history;
        size_t wb = strlen("benchmark"), wm = strlen("metric"), wl = strlen("latest");
        struct pg_buf cell = PG_BUF_INIT;

        for (size_t i = 0; i < t->nbench; i++) {
                pg_buf_reset(&cell);
                pg_report_escape_ctl(&cell, t->bench[i].name);
                if (pg_text_width(cell.ptr) > wb)
                        wb = pg_text_width(cell.ptr);
                for (size_t k = 0; k < t->bench[i].nseries; k++) {
                        const struct pg_series *s = &t->bench[i].series[k];
                        /* metric names are any key of a stored result: shown escaped */
                        pg_buf_reset(&cell);
                        pg_report_escape_ctl(&cell, s->metric);
                        if (pg_text_width(cell.ptr) > wm)
                                wm = pg_text_width(cell.ptr);
                        pg_buf_reset(&cell);
                        if (s->n)
                                pg_report_fmt_value(&cell, s->points[s->n - 1].median, s->unit,
                                                    strstr(s->metric, "-rate") != NULL);
                        if (cell.len > wl)
                                wl = cell.len;
                }
        }
        fprintf(f, "%-*s  %-*s  %*s  %-22s  %s\n", (int) wb, "benchmark", (int) wm, "metric",
                (int) wl, "latest", "trend", "change points");
        for (size_t i = 0; i < t->nbench; i++) {
                const struct pg_bench_trends *b = &t->bench[i];
                struct pg_buf name = PG_BUF_INIT;
                pg_report_escape_ctl(&name, b->name);
                if (!b->nseries) {
                        pg_fput_pad(f, name.ptr, wb);
                        fputs("  (no gating metric counted)\n", f);
                }
                for (size_t k = 0; k < b->nseries; k++) {
                        const struct pg_series *s = &b->series[k];
                        struct pg_buf trend = PG_BUF_INIT, metric = PG_BUF_INIT;
                        pg_report_escape_ctl(&metric, s->metric);
                        pg_buf_reset(&cell);
                        if (s->n)
                                pg_report_fmt_value(&cell, s->points[s->n - 1].median, s->unit,
                                                    strstr(s->metric, "-rate") != NULL);
                        if (s->has_trend) {
                                pg_pct(&trend, s->trend);
                                pg_buf_printf(&trend, " over %zu commits", s->n);
                        } else {
                                pg_buf_puts(&trend, "n/a");
                        }
                        pg_fput_pad(f, name.ptr, wb);
                        fputs("  ", f);
                        pg_fput_pad(f, metric.ptr, wm);
                        fprintf(f, "  %*s  %-22s  ", (int) wl, cell.ptr, trend.ptr);
                        if (!s->ncp)
                                fputs("none", f);
                        for (size_t c = 0; c < s->ncp; c++) {
                                const struct pg_changepoint *cp = &s->cps[c];
                                size_t ci = s->points[cp->index].commit;
                                struct pg_buf e = PG_BUF_INIT;
                                if (cp->has_effect)
                                        pg_pct(&e, cp->effect);
                                else
                                        pg_buf_puts(&e, "n/a");
                                fprintf(f, "%s%.12s %s (commit %zu of %zu)", c ? ", " : "",
                                        h->points[ci].commit, e.ptr, ci + 1, h->n);
                                pg_buf_release(&e);
                        }
                        fputc('\n', f);
                        pg_buf_release(&trend);
                        pg_buf_release(&metric);
                }
                pg_buf_release(&name);
        }
        pg_buf_release(&cell);
}

int cmd_history(int argc, char **argv)
{
        struct pg_store_opts so = { NULL, NULL, NULL };
        struct pg_trends_opts to;
        struct pg_site_opts site = { PG_SITE_DEFAULT_FLAMEGRAPHS, NULL };
        struct pg_history h;
        struct pg_trends t;
        const char *branch = NULL, *html = NULL, *json = NULL, *config = NULL;
        struct pg_rules rules;
        char *cfg_base = NULL;
        const char **metrics = NULL;
        size_t nmetrics = 0, max_commits = 0;
        int c, error, status = 0;
        bool built = false;

        pg_trends_opts_init(&to);
        pg_history_init(&h);
        pg_rules_init(&rules);
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", pg_history_longopts, NULL)) != -1) {
                switch (c) {
                case OPT_BRANCH:
                        branch = optarg;
                        break;
                case OPT_MACHINE:
                        so.machine = optarg;
                        break;
                case OPT_DATA_BRANCH:
                        so.branch = optarg;
                        break;
                case OPT_METRIC:
                        metrics = pg_xreallocarray(metrics, nmetrics + 1, sizeof(*metrics));
                        metrics[nmetrics++] = optarg;
                        break;
                case OPT_MAX_COMMITS:
                        if (!pg_parse_size(optarg, &max_commits) || max_commits == 0) {
                                status = pg_cli_usage_error(
                                    "history", "--max-commits needs a positive integer, not '%s'",
                                    optarg);
                                goto done;
                        }
                        break;
                case OPT_ALPHA:
                        if (!pg_parse_double(optarg, &to.cp.alpha) || to.cp.alpha <= 0 ||
                            to.cp.alpha >= 1) {
                                status = pg_cli_usage_error(
                                    "history", "--alpha needs a number between 0 and 1, not '%s'",
                                    optarg);
                                goto done;
                        }
                        break;
                case OPT_MIN_EFFECT: {
                        double v;
                        size_t len = strlen(optarg);
                        char *copy = pg_xstrdup(optarg);
                        if (len && copy[len - 1] == '%')
                                copy[len - 1] = '\0';
                        if (!pg_parse_double(copy, &v) || v < 0) {
                                free(copy);
                                status = pg_cli_usage_error(
                                    "history", "--min-effect needs a percentage >= 0, not '%s'",
                                    optarg);
                                goto done;
                        }
                        free(copy);
                        to.cp.min_effect = v / 100;
                        break;
                }
                case OPT_HTML:
                        html = optarg;
                        break;
                case OPT_FLAMEGRAPHS:
                        if (!pg_parse_size(optarg, &site.flamegraphs)) {
                                status = pg_cli_usage_error(
                                    "history", "--flamegraphs needs an integer >= 0, not '%s'",
                                    optarg);
                                goto done;
                        }
                        break;
                case OPT_JSON:
                        json = optarg;
                        break;
                case OPT_CONFIG:
                        config = optarg;
                        break;
                case 'h':
                        fputs(pg_usage_history, stdout);
                        goto done;
                case ':':
                        status = pg_cli_usage_error("history", "option '%s' needs a value",
                                                    argv[optind - 1]);
                        goto done;
                default:
                        status =
                            pg_cli_usage_error("history", "unknown option '%s'", argv[optind - 1]);
                        goto done;
                }
        }
        if (optind < argc) {
                status = pg_cli_usage_error("history", "unexpected argument '%s'", argv[optind]);
                goto done;
        }
        if (json && (error = pg_output_file_check(json)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        to.metrics = metrics;
        to.nmetrics = nmetrics;
        to.rules = &rules;
        if ((error = pg_cli_load_rules(config, &rules, &cfg_base, NULL, NULL)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if (!branch)
                branch = cfg_base;
        if ((error = pg_history_load(&so, branch, max_commits, &h)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if ((error = pg_trends_build(&t, &h, &to)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        built = true;
        if (!h.source_ref)
                pg_cli_warn("no data branch '%s' (nor origin/%s): no baselines yet; `perfgate "
                            "baseline save` on %s records them",
                            so.branch ? so.branch : PG_STORE_DEFAULT_BRANCH,
                            so.branch ? so.branch : PG_STORE_DEFAULT_BRANCH, h.branch);
        else if (h.n == 0)
                pg_cli_warn("no baseline for machine '%s' on the first-parent history of '%s' "
                            "(%s)",
                            h.machine, h.branch, h.source_ref);
        if (h.shallow_cut)
                pg_cli_warn("this is a shallow clone: the history stops after %zu commits; "
                            "`git fetch --unshallow origin` shows all of it",
                            h.walked);
        if (h.off_line)
                pg_cli_warn("%zu stored baseline%s of machine '%s' %s not on this history "
                            "(other branches, or beyond --max-commits) and %s not shown",
                            h.off_line, h.off_line == 1 ? "" : "s", h.machine,
                            h.off_line == 1 ? "is" : "are", h.off_line == 1 ? "is" : "are");
        if (json && strcmp(json, "-") == 0)
                goto write_json; /* stdout holds the JSON alone */
        printf("history of %s (%.12s) on machine '%s': %zu commit%s with baselines, from %s\n",
               h.branch, h.tip ? h.tip : "?", h.machine, h.n, h.n == 1 ? "" : "s",
               h.source_ref ? h.source_ref : "no data branch");
        if (t.nbench)
                pg_history_print(stdout, &t);
write_json:
        if (json) {
                struct pg_buf out = PG_BUF_INIT;
                if ((error = pg_trends_to_json(&t, &out)) == 0) {
                        if (strcmp(json, "-") == 0)
                                fwrite(out.ptr, 1, out.len, stdout);
                        else
                                error = pg_write_file_atomic(json, out.ptr, out.len);
                }
                pg_buf_release(&out);
                if (error < 0) {
                        status = pg_cli_fail(error);
                        goto done;
                }
        }
        if (html) {
                if ((error = pg_history_site_write(&t, html, &site)) < 0) {
                        status = pg_cli_fail(error);
                        goto done;
                }
                fprintf(stderr, "site written to %s/index.html\n", html);
        }
done:
        if (built)
                pg_trends_release(&t);
        pg_history_release(&h);
        pg_rules_release(&rules);
        free(cfg_base);
        free(metrics);
        return status;
}
