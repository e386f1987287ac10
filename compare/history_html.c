/*
 * history_html.c - the static trends site (history_html.h).
 *
 * Layout of the site:
 *   index.html                 every benchmark x metric: latest, trend, change points
 *   <page>.html                one benchmark (pg_trends_page_name()): charts, change points
 *   flame/<stem>.<c12>.svg     flame graph of a commit (compare/flamegraph.h)
 *   flame/<stem>.diff-<c12>.svg differential flame graph across a change point
 *   .perfgate-history          marker: this directory is a site perfgate may replace
 *
 * Files are written into a fresh directory made with mkdtemp next to the
 * target (so no path in it can be a symlink someone else made), then the
 * directory is swapped in with renameat2(RENAME_EXCHANGE) (or a rename when
 * there was none) and the old one removed.
 */
#include "compare/history_html.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/interrupt.h"
#include "common/xml.h"
#include "compare/flamegraph.h"
#include "compare/report.h"

#define PG_SITE_MARKER ".perfgate-history"

/* chart geometry, px */
#define CW 960.0
#define CH 260.0
#define CL 90.0
#define CR 20.0
#define CT 20.0
#define CB 40.0

static const char pg_site_css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1000px;color:#222}\n"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
    "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;"
    "border-bottom:1px solid #ddd}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".up{color:#b00}.down{color:#070}.muted{color:#777}\n"
    "svg.chart{background:#fff;border:1px solid #ddd}\n"
    "svg .axis{stroke:#999;stroke-width:1}svg .grid{stroke:#eee;stroke-width:1}\n"
    "svg text{font:11px system-ui,sans-serif;fill:#444}\n"
    "svg .spread{stroke:#9ab;stroke-width:1.5}svg .line{fill:none;stroke:#36c;stroke-width:1.2}\n"
    "svg circle.pt{fill:#36c;stroke:#fff;stroke-width:.5}svg a:hover circle.pt{fill:#e60;r:5}\n"
    "svg line.cp{stroke:#d00;stroke-width:1.2;stroke-dasharray:4 3}svg text.cp{fill:#d00}\n"
    "svg .level{stroke:#d00;stroke-width:1;opacity:.5}\n"
    "svg .fn{fill:none;stroke-width:1.5}\n"
    "svg rect.hov{fill:#000;fill-opacity:0}svg rect.hov:hover{fill-opacity:.07}\n";

static const char *const pg_site_palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                               "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };

struct pg_site {
        const struct pg_trends *t;
        const struct pg_history *h;
        const struct pg_site_opts *o;
        char *tmp;   /* the directory being written */
        bool *flame; /* [h->n] of the benchmark being written: pg_site_flame_pick() */
};

/* Write @b to tmp/@rel: a new file in a directory this process created. */
static int pg_site_put(struct pg_site *s, const char *rel, const struct pg_buf *b)
{
        char *path = pg_path_join(s->tmp, rel);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        size_t off = 0;
        int error = 0;

        if (fd < 0) {
                error = pg_error_set(PG_EIO, "cannot create '%s': %s", path, strerror(errno));
                goto done;
        }
        while (off < b->len) {
                ssize_t w = write(fd, b->ptr + off, b->len - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        error = pg_error_set(PG_EIO, "cannot write '%s': %s", path,
                                             strerror(w < 0 ? errno : ENOSPC));
                        break;
                }
                off += (size_t) w;
        }
        if (close(fd) < 0 && !error)
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", path, strerror(errno));
done:
        free(path);
        return error;
}

static void pg_site_head(struct pg_buf *b, const char *title)
{
        pg_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
        pg_xml_put(b, title);
        pg_buf_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", pg_site_css);
}

static bool pg_site_is_rate(const struct pg_series *s)
{
        size_t n = strlen(s->metric);
        return n > 5 && strcmp(s->metric + n - 5, "-rate") == 0;
}

static void pg_site_value(struct pg_buf *b, const struct pg_series *s, double v)
{
        pg_report_fmt_value(b, v, s->unit, pg_site_is_rate(s));
}

static void pg_site_pct(struct pg_buf *b, double f)
{
        double v = 100 * f;
        if (fabs(v) < 0.05)
                v = 0;
        pg_buf_printf(b, "%+.1f%%", v);
}

/* Append @v with @digits (1 or 2) decimals, as "%.1f" / "%.2f" do but
 * without printf's cost (a 1,000-commit page has tens of thousands of
 * coordinates); halves are rounded away from zero. */
static void pg_site_fixd(struct pg_buf *b, double v, int digits)
{
        char tmp[32];
        size_t n = 0;
        long long t;
        bool neg;

        if (!isfinite(v) || fabs(v) > 1e12) {
                pg_buf_printf(b, "%.*f", digits, v);
                return;
        }
        t = llround(v * (digits == 2 ? 100 : 10));
        neg = t < 0;
        if (neg)
                t = -t;
        for (int d = 0; d < digits; d++) {
                tmp[n++] = (char) ('0' + t % 10);
                t /= 10;
        }
        tmp[n++] = '.';
        do {
                tmp[n++] = (char) ('0' + t % 10);
                t /= 10;
        } while (t);
        if (neg)
                tmp[n++] = '-';
        while (n)
                pg_buf_putc(b, tmp[--n]);
}

static void pg_site_fix(struct pg_buf *b, double v)
{
        pg_site_fixd(b, v, 1);
}

/* Pick the history points of @b that get a flame graph into s->flame: the
 * newest o->flamegraphs points that have the benchmark (0: all), and at each
 * change point of any of its metrics the commit of the change and the one
 * before it, the two a reader compares. */
static void pg_site_flame_pick(struct pg_site *s, const struct pg_bench_trends *b)
{
        size_t seen = 0;

        memset(s->flame, 0, s->h->n * sizeof(*s->flame));
        for (size_t i = s->h->n; i-- > 0;) {
                if (s->o->flamegraphs && seen == s->o->flamegraphs)
                        break;
                if (pg_result_set_find(&s->h->points[i].results, b->name)) {
                        s->flame[i] = true;
                        seen++;
                }
        }
        for (size_t k = 0; k < b->nseries; k++) {
                const struct pg_series *se = &b->series[k];
                for (size_t c = 0; c < se->ncp; c++) {
                        size_t at = se->cps[c].index;
                        s->flame[se->points[at].commit] = true;
                        if (at > 0)
                                s->flame[se->points[at - 1].commit] = true;
                }
        }
}

/* Does history point @i of the benchmark get a flame graph? */
static bool pg_site_has_flame(const struct pg_site *s, const struct pg_bench_trends *b, size_t i)
{
        const struct pg_result *r;
        if (!s->flame[i])
                return false;
        r = pg_result_set_find(&s->h->points[i].results, b->name);
        return r && r->profile.present && r->profile.samples > 0 && r->profile.nstacks > 0;
}

static double pg_site_x(const struct pg_site *s, size_t i)
{
        double w = CW - CL - CR;
        return s->h->n > 1 ? CL + w * (double) i / (double) (s->h->n - 1) : CL + w / 2;
}

struct pg_scale {
        double lo, hi;
};

/* The y of @v: computed on values divided by the larger magnitude, so that
 * hi - lo cannot overflow (a stored 1.7e308 made every point NaN). */
static double pg_site_y(const struct pg_scale *sc, double v)
{
        double m = fmax(fabs(sc->lo), fabs(sc->hi));
        double y;

        if (!(m > 0) || !isfinite(m))
                m = 1;
        y = CT + (CH - CT - CB) * (sc->hi / m - v / m) / (sc->hi / m - sc->lo / m);
        return isfinite(y) ? y : CH - CB;
}

/* The value a fraction @f of the way from lo to hi, without overflow. */
static double pg_scale_at(const struct pg_scale *sc, double f)
{
        return sc->lo * (1 - f) + sc->hi * f;
}

/* Axes, y grid with @nt labels from @label, and x labels at a few commits. */
static void pg_site_axes(struct pg_buf *b, const struct pg_site *s, const struct pg_scale *sc,
                         const struct pg_series *series, bool pct)
{
        size_t nx = s->h->n < 6 ? s->h->n : 6;
        for (int k = 0; k <= 4; k++) {
                double v = pg_scale_at(sc, k / 4.0), y = pg_site_y(sc, v);
                pg_buf_printf(b,
                              "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                              "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                              "text-anchor=\"end\">",
                              CL, CW - CR, y, y, CL - 6, y + 4);
                if (pct)
                        pg_buf_printf(b, "%.3g%%", 100 * v);
                else
                        pg_site_value(b, series, v);
                pg_buf_puts(b, "</text>\n");
        }
        pg_buf_printf(b,
                      "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                      "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                      CL, CL, CT, CH - CB, CL, CW - CR, CH - CB, CH - CB);
        for (size_t k = 0; k < nx; k++) {
                size_t i = nx > 1 ? k * (s->h->n - 1) / (nx - 1) : 0;
                const char *anchor = nx < 2        ? "middle"
                                     : k == 0      ? "start"
                                     : k + 1 == nx ? "end"
                                                   : "middle";
                pg_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%.8s</text>\n",
                              pg_site_x(s, i), CH - CB + 16, anchor, s->h->points[i].commit);
        }
        pg_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commits on ",
                      (CL + CW - CR) / 2, CH - 6);
        pg_xml_put(b, s->h->branch);
        pg_buf_puts(b, " (first parent), oldest to newest</text>\n");
}

static void pg_site_commit_title(struct pg_buf *b, const struct pg_history_point *p, size_t i,
                                 size_t n)
{
        pg_buf_printf(b, "%.12s ", p->commit);
        pg_xml_put(b, p->subject);
        pg_buf_printf(b, "&#10;commit %zu of %zu", i + 1, n);
}

/* One metric's chart. */
static void pg_site_series(struct pg_buf *b, const struct pg_site *s,
                           const struct pg_bench_trends *bt, const struct pg_series *se)
{
        struct pg_scale sc = { INFINITY, -INFINITY };
        struct pg_buf tmp = PG_BUF_INIT;

        for (size_t i = 0; i < se->n; i++) {
                if (se->points[i].min < sc.lo)
                        sc.lo = se->points[i].min;
                if (se->points[i].max > sc.hi)
                        sc.hi = se->points[i].max;
        }
        if (!(sc.hi > sc.lo)) {
                double d = fabs(sc.lo) > 0 ? fabs(sc.lo) * 0.01 : 1;
                sc.lo -= d;
                sc.hi += d;
        } else {
                double pad = sc.hi * 0.05 - sc.lo * 0.05;
                if (isfinite(sc.lo - pad) && isfinite(sc.hi + pad)) {
                        sc.lo -= pad;
                        sc.hi += pad;
                }
        }
        pg_buf_puts(b, "<h2 id=\"");
        pg_xml_put(b, se->metric);
        pg_buf_puts(b, "\">");
        pg_xml_put(b, se->metric);
        pg_buf_puts(b, "</h2>\n<p>latest <b>");
        if (se->n)
                pg_site_value(b, se, se->points[se->n - 1].median);
        pg_buf_puts(b, "</b>");
        if (se->has_trend) {
                pg_buf_puts(b, ", trend ");
                pg_site_pct(b, se->trend);
                pg_buf_printf(b, " (median of the last %zu commits against the first %zu)",
                              se->trend_window, se->trend_window);
        }
        pg_buf_printf(b,
                      "; %zu commits, %zu change point%s. Points: median of the "
                      "repetitions, bar: min to max. Hover a point for its commit; "
                      "click for its flame graph.</p>\n",
                      se->n, se->ncp, se->ncp == 1 ? "" : "s");
        pg_buf_printf(b,
                      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-metric=\"",
                      CW, CH, CW, CH);
        pg_xml_put(b, se->metric);
        pg_buf_printf(b,
                      "\" data-lo=\"%.17g\" data-hi=\"%.17g\" data-top=\"%.1f\" "
                      "data-bottom=\"%.1f\">\n",
                      sc.lo, sc.hi, CT, CH - CB);
        pg_site_axes(b, s, &sc, se, false);
        /* segment levels between change points */
        for (size_t k = 0; k <= se->ncp && se->ncp; k++) {
                size_t from = k ? se->cps[k - 1].index : 0;
                size_t to = k < se->ncp ? se->cps[k].index : se->n;
                double lvl = k < se->ncp ? se->cps[k].before : se->cps[k - 1].after;
                double y = pg_site_y(&sc, lvl);
                pg_buf_printf(b,
                              "<line class=\"level\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                              "y2=\"%.1f\"/>\n",
                              pg_site_x(s, se->points[from].commit),
                              pg_site_x(s, se->points[to - 1].commit), y, y);
        }
        /* spread of the repetitions, one path */
        pg_buf_puts(b, "<path class=\"spread\" d=\"");
        for (size_t i = 0; i < se->n; i++) {
                const struct pg_series_point *p = &se->points[i];
                if (!(p->max > p->min))
                        continue;
                pg_buf_putc(b, 'M');
                pg_site_fix(b, pg_site_x(s, p->commit));
                pg_buf_putc(b, ' ');
                pg_site_fix(b, pg_site_y(&sc, p->max));
                pg_buf_putc(b, 'V');
                pg_site_fix(b, pg_site_y(&sc, p->min));
        }
        pg_buf_puts(b, "\"/>\n<polyline class=\"line\" points=\"");
        for (size_t i = 0; i < se->n; i++) {
                if (i)
                        pg_buf_putc(b, ' ');
                pg_site_fix(b, pg_site_x(s, se->points[i].commit));
                pg_buf_putc(b, ',');
                pg_site_fix(b, pg_site_y(&sc, se->points[i].median));
        }
        pg_buf_puts(b, "\"/>\n");
        /* change points */
        for (size_t k = 0; k < se->ncp; k++) {
                const struct pg_changepoint *cp = &se->cps[k];
                size_t ci = se->points[cp->index].commit;
                double x = pg_site_x(s, ci);
                pg_buf_reset(&tmp);
                pg_trends_flame_path(&tmp, bt->name, s->h->points[ci].commit, true);
                pg_buf_printf(
                    b,
                    "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                    "y2=\"%.1f\" data-i=\"%zu\"/>\n<a href=\"%s\"><title>change point at ",
                    x, x, CT, CH - CB, ci, tmp.ptr);
                pg_site_commit_title(b, &s->h->points[ci], ci, s->h->n);
                pg_buf_printf(b,
                              "&#10;click for the differential flame graph</title><text "
                              "class=\"cp\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                              x, CT - 6);
                if (cp->has_effect)
                        pg_site_pct(b, cp->effect);
                pg_buf_puts(b, "</text></a>\n");
        }
        /* points */
        for (size_t i = 0; i < se->n; i++) {
                const struct pg_series_point *p = &se->points[i];
                bool flame = pg_site_has_flame(s, bt, p->commit);
                if (flame) {
                        pg_buf_reset(&tmp);
                        pg_trends_flame_path(&tmp, bt->name, s->h->points[p->commit].commit, false);
                        pg_buf_printf(b, "<a href=\"%s\">", tmp.ptr);
                }
                pg_buf_puts(b, "<circle class=\"pt\" cx=\"");
                pg_site_fix(b, pg_site_x(s, p->commit));
                pg_buf_puts(b, "\" cy=\"");
                pg_site_fixd(b, pg_site_y(&sc, p->median), 2);
                pg_buf_printf(b, "\" r=\"3\" data-i=\"%zu\" data-v=\"%.17g\"><title>", p->commit,
                              p->median);
                pg_site_commit_title(b, &s->h->points[p->commit], p->commit, s->h->n);
                pg_buf_puts(b, "&#10;");
                pg_xml_put(b, se->metric);
                pg_buf_puts(b, " ");
                pg_site_value(b, se, p->median);
                pg_buf_puts(b, " (min ");
                pg_site_value(b, se, p->min);
                pg_buf_puts(b, ", max ");
                pg_site_value(b, se, p->max);
                pg_buf_printf(b, ", %zu runs)</title></circle>%s\n", p->nvalues,
                              flame ? "</a>" : "");
        }
        pg_buf_puts(b, "</svg>\n");
        if (se->ncp) {
                pg_buf_puts(b, "<table class=\"cps\"><tr><th>change point</th><th>subject</th>"
                               "<th>before</th><th>after</th><th>effect</th><th>p</th>"
                               "<th></th></tr>\n");
                for (size_t k = 0; k < se->ncp; k++) {
                        const struct pg_changepoint *cp = &se->cps[k];
                        size_t ci = se->points[cp->index].commit;
                        pg_buf_reset(&tmp);
                        pg_trends_flame_path(&tmp, bt->name, s->h->points[ci].commit, true);
                        pg_buf_printf(b, "<tr><td><code>%.12s</code></td><td>",
                                      s->h->points[ci].commit);
                        pg_xml_put(b, s->h->points[ci].subject);
                        pg_buf_puts(b, "</td><td class=\"num\">");
                        pg_site_value(b, se, cp->before);
                        pg_buf_puts(b, "</td><td class=\"num\">");
                        pg_site_value(b, se, cp->after);
                        pg_buf_printf(b, "</td><td class=\"num %s\">",
                                      !cp->has_effect ? ""
                                      : (cp->effect > 0) ==
                                              (se->direction == PG_DIR_LOWER_IS_BETTER)
                                          ? "up"
                                          : "down");
                        if (cp->has_effect)
                                pg_site_pct(b, cp->effect);
                        else
                                pg_buf_puts(b, "n/a");
                        pg_buf_printf(b,
                                      "</td><td class=\"num\">%.2g</td><td><a href=\"%s\">"
                                      "differential flame graph</a></td></tr>\n",
                                      cp->p_value, tmp.ptr);
                }
                pg_buf_puts(b, "</table>\n");
        }
        pg_buf_release(&tmp);
}

/* Self share over time of the top functions. */
static void pg_site_functions(struct pg_buf *b, const struct pg_site *s,
                              const struct pg_bench_trends *bt)
{
        struct pg_scale sc = { 0, 0 };
        size_t npal = sizeof(pg_site_palette) / sizeof(pg_site_palette[0]);

        if (!bt->nfunctions)
                return;
        for (size_t f = 0; f < bt->nfunctions; f++)
                for (size_t i = 0; i < s->h->n; i++)
                        if (bt->functions[f].share[i] > sc.hi)
                                sc.hi = bt->functions[f].share[i];
        if (!(sc.hi > 0))
                sc.hi = 1;
        sc.hi *= 1.05;
        pg_buf_puts(b, "<h2 id=\"hotspots\">hotspots</h2>\n<p>Self share of the samples "
                       "(the function is the leaf) of the benchmark's top functions, by mean "
                       "share over the commits with a profile.</p>\n");
        pg_buf_printf(b,
                      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-metric=\"hotspots\">\n",
                      CW, CH, CW, CH);
        pg_site_axes(b, s, &sc, NULL, true);
        for (size_t f = 0; f < bt->nfunctions; f++) {
                const struct pg_function_share *fs = &bt->functions[f];
                const char *col = pg_site_palette[f % npal];
                bool first = true;
                pg_buf_printf(b,
                              "<g class=\"fn\" data-fn=\"%zu\"><polyline class=\"fn\" "
                              "stroke=\"%s\" points=\"",
                              f, col);
                for (size_t i = 0; i < s->h->n; i++) {
                        if (fs->share[i] < 0)
                                continue;
                        if (!first)
                                pg_buf_putc(b, ' ');
                        pg_site_fix(b, pg_site_x(s, i));
                        pg_buf_putc(b, ',');
                        pg_site_fix(b, pg_site_y(&sc, fs->share[i]));
                        first = false;
                }
                pg_buf_puts(b, "\"/>\n</g>\n");
        }
        /* one hover column per commit with every function's share: one title
         * per commit instead of one per function and commit */
        for (size_t i = 0; i < s->h->n; i++) {
                double w = s->h->n > 1 ? (CW - CL - CR) / (double) (s->h->n - 1) : CW - CL - CR;
                bool any = false;

                for (size_t f = 0; f < bt->nfunctions && !any; f++)
                        any = bt->functions[f].share[i] >= 0;
                if (!any)
                        continue;
                double x0 = fmax(CL, pg_site_x(s, i) - w / 2);
                double x1 = fmin(CW - CR, pg_site_x(s, i) + w / 2);
                pg_buf_puts(b, "<rect class=\"hov\" x=\"");
                pg_site_fix(b, x0);
                pg_buf_printf(b, "\" y=\"%.0f\" width=\"", CT);
                pg_site_fix(b, x1 - x0);
                pg_buf_printf(b, "\" height=\"%.0f\" data-i=\"%zu\"><title>", CH - CT - CB, i);
                pg_site_commit_title(b, &s->h->points[i], i, s->h->n);
                for (size_t f = 0; f < bt->nfunctions; f++) {
                        const struct pg_function_share *fs = &bt->functions[f];
                        if (fs->share[i] < 0)
                                continue;
                        pg_buf_puts(b, "&#10;");
                        pg_xml_put(b, fs->name);
                        pg_buf_printf(b, ": %.1f%% self", 100 * fs->share[i]);
                }
                pg_buf_puts(b, "</title></rect>\n");
        }
        pg_buf_puts(b, "</svg>\n<ul class=\"legend\">\n");
        for (size_t f = 0; f < bt->nfunctions; f++) {
                pg_buf_printf(b, "<li><span style=\"color:%s\">&#9632;</span> <code>",
                              pg_site_palette[f % npal]);
                pg_xml_put(b, bt->functions[f].name);
                pg_buf_printf(b, "</code> <span class=\"muted\">mean %.1f%%</span></li>\n",
                              100 * bt->functions[f].mean_share);
        }
        pg_buf_puts(b, "</ul>\n");
}

/* Sum the stacks of @bench over history points [from, to) into @out. */
static void pg_site_gather(const struct pg_site *s, const struct pg_series *se, size_t from,
                           size_t to, const char *bench, struct pg_stack **out, size_t *n)
{
        *out = NULL;
        *n = 0;
        for (size_t i = from; i < to; i++) {
                const struct pg_result *r =
                    pg_result_set_find(&s->h->points[se->points[i].commit].results, bench);
                if (!r || !r->profile.present || !r->profile.nstacks)
                        continue;
                *out = pg_xreallocarray(*out, *n + r->profile.nstacks, sizeof(**out));
                memcpy(*out + *n, r->profile.stacks, r->profile.nstacks * sizeof(**out));
                *n += r->profile.nstacks;
        }
}

static int pg_site_flames(struct pg_site *s, const struct pg_bench_trends *bt)
{
        struct pg_buf svg = PG_BUF_INIT, path = PG_BUF_INIT, title = PG_BUF_INIT;
        struct pg_flame_opts fo;
        int error = 0;

        for (size_t i = 0; i < s->h->n && !error; i++) {
                const struct pg_result *r;
                if (!pg_site_has_flame(s, bt, i))
                        continue;
                r = pg_result_set_find(&s->h->points[i].results, bt->name);
                pg_flame_opts_init(&fo);
                pg_buf_reset(&title);
                pg_buf_reset(&svg);
                pg_buf_reset(&path);
                pg_buf_printf(&title, "%s at %.12s", bt->name, s->h->points[i].commit);
                fo.title = title.ptr;
                fo.subtitle = s->h->points[i].subject;
                if ((error = pg_flamegraph_svg(&svg, r->profile.stacks, r->profile.nstacks, &fo)) <
                    0)
                        break;
                pg_trends_flame_path(&path, bt->name, s->h->points[i].commit, false);
                error = pg_site_put(s, path.ptr, &svg);
        }
        /* differential flame graphs across each change point (of any metric;
         * the same commit is drawn once) */
        for (size_t si = 0; si < bt->nseries && !error; si++) {
                const struct pg_series *se = &bt->series[si];
                for (size_t k = 0; k < se->ncp && !error; k++) {
                        size_t cpi = se->cps[k].index;
                        size_t lo = k ? se->cps[k - 1].index : 0;
                        size_t hi = k + 1 < se->ncp ? se->cps[k + 1].index : se->n;
                        size_t from = cpi - lo > PG_SITE_DIFF_SPAN ? cpi - PG_SITE_DIFF_SPAN : lo;
                        size_t to = hi - cpi > PG_SITE_DIFF_SPAN ? cpi + PG_SITE_DIFF_SPAN : hi;
                        struct pg_stack *base, *head;
                        size_t nbase, nhead;
                        char *abs;
                        const char *commit = s->h->points[se->points[cpi].commit].commit;

                        pg_buf_reset(&path);
                        pg_trends_flame_path(&path, bt->name, commit, true);
                        abs = pg_path_join(s->tmp, path.ptr);
                        if (access(abs, F_OK) == 0) {
                                free(abs);
                                continue;
                        }
                        free(abs);
                        pg_site_gather(s, se, from, cpi, bt->name, &base, &nbase);
                        pg_site_gather(s, se, cpi, to, bt->name, &head, &nhead);
                        if (nbase && nhead) {
                                pg_flame_opts_init(&fo);
                                pg_buf_reset(&title);
                                pg_buf_reset(&svg);
                                pg_buf_printf(&title, "%s across %.12s", bt->name, commit);
                                fo.title = title.ptr;
                                fo.base_name = "before";
                                fo.head_name = "after";
                                error = pg_flamegraph_diff_svg(&svg, base, nbase, head, nhead, &fo);
                                if (!error)
                                        error = pg_site_put(s, path.ptr, &svg);
                        }
                        free(base);
                        free(head);
                }
        }
        pg_buf_release(&svg);
        pg_buf_release(&path);
        pg_buf_release(&title);
        if (error)
                pg_error_prefix(error, "flame graph of benchmark '%s'", bt->name);
        return error;
}

static void pg_site_summary_cells(struct pg_buf *b, const struct pg_series *se)
{
        pg_buf_puts(b, "<td class=\"num\">");
        if (se->n)
                pg_site_value(b, se, se->points[se->n - 1].median);
        pg_buf_puts(b, "</td><td class=\"num\">");
        if (se->has_trend)
                pg_site_pct(b, se->trend);
        pg_buf_puts(b, "</td>");
}

static int pg_site_bench_page(struct pg_site *s, const struct pg_bench_trends *bt)
{
        struct pg_buf b = PG_BUF_INIT, page = PG_BUF_INIT, title = PG_BUF_INIT;
        int error;

        pg_trends_page_name(&page, bt->name);
        pg_buf_printf(&title, "%s: ", s->o->title ? s->o->title : "perfgate history");
        pg_buf_puts(&title, bt->name);
        pg_site_head(&b, title.ptr);
        pg_buf_puts(&b, "<p><a href=\"index.html\">&larr; all benchmarks</a></p>\n<h1>");
        pg_xml_put(&b, bt->name);
        pg_buf_puts(&b, "</h1>\n<p class=\"muted\">");
        pg_buf_printf(&b, "%zu of %zu commits on ", bt->npoints, s->h->n);
        pg_xml_put(&b, s->h->branch);
        pg_buf_puts(&b, ", machine ");
        pg_xml_put(&b, s->h->machine);
        pg_buf_puts(&b, "</p>\n");
        for (size_t i = 0; i < bt->nseries; i++)
                pg_site_series(&b, s, bt, &bt->series[i]);
        pg_site_functions(&b, s, bt);
        pg_buf_puts(&b, "</body>\n</html>\n");
        error = pg_site_put(s, page.ptr, &b);
        pg_buf_release(&b);
        pg_buf_release(&page);
        pg_buf_release(&title);
        return error;
}

static int pg_site_index(struct pg_site *s)
{
        struct pg_buf b = PG_BUF_INIT, page = PG_BUF_INIT;
        const char *title = s->o->title ? s->o->title : "perfgate history";
        int error;

        pg_site_head(&b, title);
        pg_buf_puts(&b, "<h1>");
        pg_xml_put(&b, title);
        pg_buf_puts(&b, "</h1>\n<p>");
        pg_buf_printf(&b, "%zu commits with baselines on ", s->h->n);
        pg_xml_put(&b, s->h->branch);
        if (s->h->n)
                pg_buf_printf(&b, " (%.12s to %.12s)", s->h->points[0].commit,
                              s->h->points[s->h->n - 1].commit);
        pg_buf_puts(&b, ", machine ");
        pg_xml_put(&b, s->h->machine);
        pg_buf_puts(&b, ", read from ");
        pg_xml_put(&b, s->h->source_ref ? s->h->source_ref : "(no data branch)");
        pg_buf_puts(&b, ".</p>\n<table>\n<tr><th>benchmark</th><th>metric</th><th>latest</th>"
                        "<th>trend</th><th>change points</th></tr>\n");
        for (size_t i = 0; i < s->t->nbench; i++) {
                const struct pg_bench_trends *bt = &s->t->bench[i];
                pg_buf_reset(&page);
                pg_trends_page_name(&page, bt->name);
                for (size_t k = 0; k < bt->nseries; k++) {
                        const struct pg_series *se = &bt->series[k];
                        pg_buf_printf(&b, "<tr><td><a href=\"%s\">", page.ptr);
                        pg_xml_put(&b, bt->name);
                        pg_buf_printf(&b, "</a></td><td><a href=\"%s#", page.ptr);
                        pg_xml_put(&b, se->metric);
                        pg_buf_puts(&b, "\">");
                        pg_xml_put(&b, se->metric);
                        pg_buf_puts(&b, "</a></td>");
                        pg_site_summary_cells(&b, se);
                        pg_buf_puts(&b, "<td>");
                        for (size_t c = 0; c < se->ncp; c++) {
                                const struct pg_changepoint *cp = &se->cps[c];
                                pg_buf_printf(&b, "%s<code>%.8s</code> ", c ? ", " : "",
                                              s->h->points[se->points[cp->index].commit].commit);
                                if (cp->has_effect)
                                        pg_site_pct(&b, cp->effect);
                        }
                        pg_buf_puts(&b, "</td></tr>\n");
                }
                if (!bt->nseries) {
                        pg_buf_printf(&b, "<tr><td><a href=\"%s\">", page.ptr);
                        pg_xml_put(&b, bt->name);
                        pg_buf_puts(&b, "</a></td><td colspan=\"4\" class=\"muted\">no gating "
                                        "metric counted</td></tr>\n");
                }
        }
        pg_buf_puts(&b, "</table>\n<p class=\"muted\">Made by <code>perfgate history "
                        "--html</code>.</p>\n</body>\n</html>\n");
        error = pg_site_put(s, "index.html", &b);
        pg_buf_release(&b);
        pg_buf_release(&page);
        return error;
}

static int pg_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) ftw;
        return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

/* rm -rf @path (no symlink followed); best effort. */
static void pg_site_remove(const char *path)
{
        nftw(path, pg_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether @dir may be replaced: empty, or a site we wrote. */
static int pg_site_check_target(const char *dir, bool *exists)
{
        struct stat st;
        char *marker;
        DIR *d;
        struct dirent *e;
        bool empty = true;

        *exists = false;
        if (lstat(dir, &st) < 0) {
                if (errno == ENOENT)
                        return 0;
                return pg_error_set(PG_EIO, "cannot read '%s': %s", dir, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return pg_error_set(PG_EINPUT,
                                    "'%s' is a symbolic link; give the directory "
                                    "itself (the site replaces it)",
                                    dir);
        if (!S_ISDIR(st.st_mode))
                return pg_error_set(PG_EINPUT, "'%s' exists and is not a directory", dir);
        *exists = true;
        marker = pg_path_join(dir, PG_SITE_MARKER);
        if (lstat(marker, &st) == 0 && S_ISREG(st.st_mode)) {
                free(marker);
                return 0;
        }
        free(marker);
        if (!(d = opendir(dir)))
                return pg_error_set(PG_EIO, "cannot read '%s': %s", dir, strerror(errno));
        while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                        empty = false;
        closedir(d);
        if (!empty)
                return pg_error_set(PG_EINPUT,
                                    "'%s' is not empty and holds no perfgate history site (no "
                                    "%s file); give a new or empty directory",
                                    dir, PG_SITE_MARKER);
        return 0;
}

int pg_history_site_write(const struct pg_trends *t, const char *dir,
                          const struct pg_site_opts *opts)
{
        struct pg_site_opts dflt = { 0, NULL };
        struct pg_site s = { t, t->history, opts ? opts : &dflt, NULL, NULL };
        struct pg_buf b = PG_BUF_INIT;
        char *flame = NULL, *parent = NULL;
        bool exists;
        int error;

        if ((error = pg_site_check_target(dir, &exists)) < 0)
                return error;
        {
                /* the parent must exist: the site is built next to the target */
                char *slash;
                parent = pg_xstrdup(dir);
                while (strlen(parent) > 1 && parent[strlen(parent) - 1] == '/')
                        parent[strlen(parent) - 1] = '\0';
                slash = strrchr(parent, '/');
                if (slash == parent)
                        parent[1] = '\0';
                else if (slash)
                        *slash = '\0';
                else
                        strcpy(parent, ".");
                if ((error = pg_mkdir_p(parent)) < 0)
                        goto done;
        }
        s.tmp = pg_xasprintf("%s/.perfgate-site-XXXXXX", parent);
        if (!pg_mkdtemp_tracked(s.tmp)) {
                error = pg_error_set(PG_EIO, "cannot create a directory in '%s': %s", parent,
                                     strerror(errno));
                free(s.tmp);
                s.tmp = NULL;
                goto done;
        }
        chmod(s.tmp, 0755);
        s.flame = pg_xcalloc(t->history->n ? t->history->n : 1, sizeof(*s.flame));
        flame = pg_path_join(s.tmp, "flame");
        if (mkdir(flame, 0755) < 0) {
                error = pg_error_set(PG_EIO, "cannot create '%s': %s", flame, strerror(errno));
                goto done;
        }
        pg_buf_puts(&b, "perfgate history site: this directory is replaced by `perfgate history "
                        "--html`\n");
        if ((error = pg_site_put(&s, PG_SITE_MARKER, &b)) < 0 || (error = pg_site_index(&s)) < 0)
                goto done;
        for (size_t i = 0; i < t->nbench && !error; i++) {
                pg_site_flame_pick(&s, &t->bench[i]);
                if ((error = pg_site_bench_page(&s, &t->bench[i])) == 0)
                        error = pg_site_flames(&s, &t->bench[i]);
        }
        if (error)
                goto done;
        if (!exists) {
                if (rename(s.tmp, dir) < 0)
                        error = pg_error_set(PG_EIO, "cannot rename '%s' to '%s': %s", s.tmp, dir,
                                             strerror(errno));
        } else if (renameat2(AT_FDCWD, s.tmp, AT_FDCWD, dir, RENAME_EXCHANGE) < 0) {
                error = pg_error_set(PG_EIO, "cannot replace '%s': %s", dir, strerror(errno));
        }
done:
        if (error < 0)
                pg_error_disk_full_note(error, "'%s' %s", dir,
                                        exists ? "is unchanged" : "was not created");
        if (s.tmp) {
                pg_site_remove(s.tmp); /* the new site on error, else the old one */
                pg_interrupt_untrack(s.tmp);
        }
        free(s.tmp);
        free(s.flame);
        free(flame);
        free(parent);
        pg_buf_release(&b);
        return error;
}
