/*
 * test_flamegraph.c - flame graphs and differential flame graphs, through the
 * real perfgate binary and the library: the reference differential input's
 * titles and colours, the numbers every frame carries (root = sum of the
 * input, parents >= children) on all reference collapsed files, byte-identical
 * reruns, xmllint, the field cases 15-18 (vanished/new paths, empty and tiny
 * profiles, hostile names, deep stacks), pruning, palettes, labels, options
 * and every documented error. SVGs are read back by a small scanner of the
 * attributes perfgate writes (data-n/-x/-w/-b/-h, <title>, rect y/fill).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "common/error.h"
#include "compare/flamegraph.h"
#include "common/json.h"
#include "compare/folded.h"
#include "tests/util/testutil.h"

/* ---- reading SVGs back ---------------------------------------------------- */

struct fr {
        char *name, *title, *cls, *label;
        uint64_t x, w, other;
        bool has_other;
        double y, width;
        int r, g, b;
        long depth;
        long more; /* data-more, or -1 */
        bool path; /* outlined in red: on the highlighted path */
};

struct svgdoc {
        size_t n;
        struct fr *f;
        double y0, fh, height, width;
        bool inv;
        uint64_t total;
        char *subtitles; /* all subtitle lines, '\n'-joined, unescaped */
};

static char *unescape(const char *s, size_t len)
{
        struct pg_buf b = PG_BUF_INIT;
        static const struct {
                const char *e;
                char c;
        } ents[] = { { "&amp;", '&' },  { "&lt;", '<' },  { "&gt;", '>' },   { "&quot;", '"' },
                     { "&#39;", '\'' }, { "&#9;", '\t' }, { "&#10;", '\n' }, { "&#13;", '\r' } };
        for (size_t i = 0; i < len; i++) {
                if (s[i] == '&') {
                        size_t k;
                        for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++) {
                                size_t el = strlen(ents[k].e);
                                if (i + el <= len && memcmp(s + i, ents[k].e, el) == 0) {
                                        pg_buf_putc(&b, ents[k].c);
                                        i += el - 1;
                                        break;
                                }
                        }
                        if (k == sizeof(ents) / sizeof(ents[0]))
                                fail_msg("unknown entity at '%.12s'", s + i);
                } else {
                        pg_buf_putc(&b, s[i]);
                }
        }
        return pg_buf_detach(&b, NULL);
}

/* Value of attribute @name inside [tag, end), unescaped, or NULL. */
static char *attr(const char *tag, const char *end, const char *name)
{
        char key[64];
        snprintf(key, sizeof(key), " %s=\"", name);
        const char *p = strstr(tag, key);
        if (!p || p >= end)
                return NULL;
        p += strlen(key);
        const char *q = strchr(p, '"');
        assert_non_null(q);
        return unescape(p, (size_t) (q - p));
}

static double attr_num(const char *tag, const char *end, const char *name)
{
        char *v = attr(tag, end, name);
        assert_non_null(v);
        double d = strtod(v, NULL);
        free(v);
        return d;
}

static void svg_parse(struct svgdoc *d, const char *svg)
{
        const char *root = strstr(svg, "<svg ");
        assert_non_null(root);
        const char *rend = strchr(root, '>');
        memset(d, 0, sizeof(*d));
        d->y0 = attr_num(root, rend, "data-y0");
        d->fh = attr_num(root, rend, "data-fh");
        d->inv = attr_num(root, rend, "data-inv") == 1;
        d->height = attr_num(root, rend, "height");
        d->width = attr_num(root, rend, "width");
        d->total = (uint64_t) attr_num(root, rend, "data-total");

        struct pg_buf subs = PG_BUF_INIT;
        for (const char *p = svg; (p = strstr(p, "<text class=\"sub\"")) != NULL;) {
                const char *gt = strchr(p, '>') + 1, *lt = strstr(gt, "</text>");
                char *u = unescape(gt, (size_t) (lt - gt));
                pg_buf_puts(&subs, u);
                pg_buf_putc(&subs, '\n');
                free(u);
                p = lt;
        }
        d->subtitles = pg_buf_detach(&subs, NULL);

        const char *p = strstr(svg, "<g id=\"frames\">");
        assert_non_null(p);
        const char *stop = strstr(p, "<script");
        if (!stop) /* a static image: no script */
                stop = strstr(p, "</svg>");
        assert_non_null(stop);
        p = strchr(p, '\n') + 1;
        while (p < stop && strncmp(p, "<g ", 3) == 0) {
                const char *tend = strchr(p, '>');
                const char *gend = strstr(p, "</g>\n");
                struct fr f = { 0 };
                char *v;
                f.name = attr(p, tend, "data-n");
                f.cls = attr(p, tend, "class");
                f.x = (uint64_t) attr_num(p, tend, "data-x");
                f.w = (uint64_t) attr_num(p, tend, "data-w");
                if ((v = attr(p, tend, "data-b")) || (v = attr(p, tend, "data-h"))) {
                        f.has_other = true;
                        f.other = strtoull(v, NULL, 10);
                        free(v);
                }
                f.more = -1;
                if ((v = attr(p, tend, "data-more"))) {
                        f.more = atol(v);
                        free(v);
                }
                const char *t = strstr(p, "<title>") + 7, *te = strstr(t, "</title>");
                f.title = unescape(t, (size_t) (te - t));
                const char *rect = strstr(te, "<rect ");
                const char *rectend = strchr(rect, '>');
                f.y = attr_num(rect, rectend, "y");
                f.width = attr_num(rect, rectend, "width");
                v = attr(rect, rectend, "fill");
                assert_int_equal(sscanf(v, "rgb(%d,%d,%d)", &f.r, &f.g, &f.b), 3);
                free(v);
                if ((v = attr(rect, rectend, "stroke"))) {
                        f.path = strcmp(v, "rgb(200,0,0)") == 0;
                        free(v);
                }
                const char *txt = strstr(rectend, "<text");
                if (txt && txt < gend) {
                        const char *gt = strchr(txt, '>') + 1, *lt = strstr(gt, "</text>");
                        f.label = unescape(gt, (size_t) (lt - gt));
                }
                f.depth = lround(d->inv ? (f.y - d->y0) / d->fh : (d->y0 - f.y) / d->fh);
                d->f = realloc(d->f, (d->n + 1) * sizeof(*d->f));
                d->f[d->n++] = f;
                p = gend + 5;
        }
        assert_true(strncmp(p, "</g>\n<script", 12) == 0 ||
                    strncmp(p, "</g>\n</g>\n</svg>", 15) == 0);
}

static void svg_free(struct svgdoc *d)
{
        for (size_t i = 0; i < d->n; i++) {
                free(d->f[i].name);
                free(d->f[i].title);
                free(d->f[i].cls);
                free(d->f[i].label);
        }
        free(d->f);
        free(d->subtitles);
}

static const struct fr *find(const struct svgdoc *d, const char *name, long depth)
{
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->f[i].name, name) == 0 && (depth < 0 || d->f[i].depth == depth))
                        return &d->f[i];
        return NULL;
}

static const struct fr *find_title(const struct svgdoc *d, const char *title)
{
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->f[i].title, title) == 0)
                        return &d->f[i];
        return NULL;
}

/* Every frame lies inside a parent one level down whose weight covers its children. */
static void check_tree(const struct svgdoc *d)
{
        uint64_t *sum = calloc(d->n, sizeof(*sum));
        for (size_t i = 0; i < d->n; i++) {
                const struct fr *c = &d->f[i];
                assert_true(c->w > 0);
                if (c->depth == 0)
                        continue;
                size_t j;
                for (j = 0; j < d->n; j++) {
                        const struct fr *p = &d->f[j];
                        if (p->depth == c->depth - 1 && p->x <= c->x && c->x + c->w <= p->x + p->w)
                                break;
                }
                if (j == d->n)
                        fail_msg("frame '%s' (x %llu) has no parent", c->name,
                                 (unsigned long long) c->x);
                sum[j] += c->w;
        }
        for (size_t j = 0; j < d->n; j++)
                if (sum[j] > d->f[j].w)
                        fail_msg("children of '%s' weigh %llu > %llu", d->f[j].name,
                                 (unsigned long long) sum[j], (unsigned long long) d->f[j].w);
        free(sum);
}

static void xmllint_ok(const char *path)
{
        struct pg_run_out o;
        char *argv[] = { "xmllint", "--noout", (char *) path, NULL };
        int st = pg_test_run(&o, NULL, argv);
        if (st != 0)
                fail_msg("xmllint rejects %s: %s", path, o.err.ptr);
        pg_run_out_release(&o);
}

static char *data_path(const char *rel)
{
        static char buf[4][4096];
        static int k;
        k = (k + 1) % 4;
        snprintf(buf[k], sizeof(buf[k]), "%s/%s", pg_test_env("PG_DATA_DIR"), rel);
        return buf[k];
}

/* Run perfgate, expect @status, and parse the SVG it wrote to @out_path. */
static void draw(struct svgdoc *d, const char *out_path, int status, ...)
{
        char *argv[32];
        int n = 0;
        va_list ap;
        va_start(ap, status);
        argv[n++] = (char *) pg_test_env("PERFGATE_BIN");
        for (char *a; (a = va_arg(ap, char *)) != NULL;)
                argv[n++] = a;
        va_end(ap);
        argv[n++] = "-o";
        argv[n++] = (char *) out_path;
        argv[n] = NULL;
        struct pg_run_out o;
        int st = pg_test_run(&o, NULL, argv);
        if (st != status)
                fail_msg("exit %d (want %d): %s", st, status, o.err.ptr);
        pg_run_out_release(&o);
        if (d) {
                char *svg = pg_test_read(out_path);
                svg_parse(d, svg);
                free(svg);
                xmllint_ok(out_path);
        }
}

/* ---- the reference differential input ----------------------------------- */

/* Expected titles computed straight from the two-column lines (flamegraph.pl rules). */
static void expected_diff_titles(const char *text, char ***out, size_t *nout)
{
        struct entry {
                char *path;
                uint64_t after;
                long long delta;
        } *e = NULL;
        size_t n = 0;
        uint64_t total = 0;
        char *copy = strdup(text), *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *sp2 = strrchr(line, ' ');
                *sp2 = '\0';
                char *sp1 = strrchr(line, ' ');
                *sp1 = '\0';
                uint64_t before = strtoull(sp1 + 1, NULL, 10), after = strtoull(sp2 + 1, NULL, 10);
                total += after;
                for (char *p = line;; p++) {
                        if (*p == ';' || *p == '\0') {
                                char *pre = strndup(line, (size_t) (p - line));
                                size_t i;
                                for (i = 0; i < n && strcmp(e[i].path, pre) != 0; i++)
                                        ;
                                if (i == n) {
                                        e = realloc(e, (n + 1) * sizeof(*e));
                                        e[n++] = (struct entry){ pre, 0, 0 };
                                } else {
                                        free(pre);
                                }
                                e[i].after += after;
                                if (*p == '\0')
                                        e[i].delta += (long long) after - (long long) before;
                        }
                        if (*p == '\0')
                                break;
                }
        }
        *out = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++) {
                const char *name = strrchr(e[i].path, ';');
                name = name ? name + 1 : e[i].path;
                size_t len = strlen(name);
                if (len > 4 && strcmp(name + len - 4, "_[k]") == 0)
                        len -= 4;
                double d = 100.0 * (double) e[i].delta / (double) total;
                char dbuf[32];
                snprintf(dbuf, sizeof(dbuf), "%s%.2f", e[i].delta > 0 ? "+" : "", d);
                (*out)[i] = pg_xasprintf("%.*s (%llu samples, %.2f%%; %s%%)", (int) len, name,
                                         (unsigned long long) e[i].after,
                                         100.0 * (double) e[i].after / (double) total, dbuf);
                free(e[i].path);
        }
        (*out)[n] = pg_xasprintf("all (%llu samples, 100%%)", (unsigned long long) total);
        *nout = n + 1;
        free(e);
        free(copy);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void test_flamegraph_reference_differential(void **state)
{
        (void) state;
        const char *in = data_path("conformance/inferno/flamegraph-inputs/differential/"
                                   "perf-cycles-instructions-01-collapsed-all-diff.txt");
        pg_test_sandbox();
        struct svgdoc d;
        draw(&d, "diff.svg", 0, "flamegraph", in, NULL);
        assert_int_equal(d.n, 20);
        /* the titles the reference tools print (conformance/README.md) */
        const char *named[] = { "all (513 samples, 100%)", "main (415 samples, 80.90%; +27.49%)",
                                "cksum (5 samples, 0.97%; -0.78%)",
                                "noploop (417 samples, 81.29%; 0.00%)" };
        for (size_t i = 0; i < 4; i++)
                if (!find_title(&d, named[i]))
                        fail_msg("no frame titled '%s'", named[i]);
        /* the whole set, computed from the input lines */
        char *text = pg_test_read(in), **want;
        size_t nwant;
        expected_diff_titles(text, &want, &nwant);
        assert_int_equal(nwant, d.n);
        char **got = calloc(d.n, sizeof(char *));
        for (size_t i = 0; i < d.n; i++)
                got[i] = d.f[i].title;
        qsort(want, nwant, sizeof(char *), cmp_str);
        qsort(got, d.n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < d.n; i++)
                assert_string_equal(got[i], want[i]);
        /* main is the most intense red, zero-change frames white */
        const struct fr *m = find_title(&d, "main (415 samples, 80.90%; +27.49%)");
        assert_int_equal(m->r, 255);
        assert_int_equal(m->g, 0);
        assert_int_equal(m->b, 0);
        size_t white = 0;
        for (size_t i = 0; i < d.n; i++) {
                const struct fr *f = &d.f[i];
                if (f != m)
                        assert_true(f->g > 0 || f->r > 0);
                if (strstr(f->title, "; 0.00%)") || f->depth == 0) {
                        assert_int_equal(f->r + f->g + f->b, 3 * 255);
                        white++;
                }
                if (strstr(f->title, "; -"))
                        assert_true(f->b == 255 && f->r < 255);
        }
        assert_int_equal(white, 15); /* 14 unchanged frames and the root */
        assert_non_null(strstr(d.subtitles, "red = grew from base to head"));
        assert_non_null(strstr(d.subtitles, "333 samples"));
        assert_non_null(strstr(d.subtitles, "513 samples"));
        for (size_t i = 0; i < nwant; i++)
                free(want[i]);
        free(want);
        free(got);
        free(text);
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_duplicate_lines_merged_before_delta(void **state)
{
        (void) state;
        pg_test_sandbox();
        pg_test_write("dup.txt", "a;b 5 7\na;b 1 4\n");
        struct svgdoc d;
        draw(&d, "dup.svg", 0, "flamegraph", "dup.txt", NULL);
        /* flamegraph.pl loses the second line's delta (+3); merged it is +5 of 11 */
        assert_non_null(find_title(&d, "b (11 samples, 100.00%; +45.45%)"));
        svg_free(&d);
        pg_test_sandbox_remove();
}

/* ---- the reference collapsed files --------------------------------------- */

static uint64_t sum_counts(const char *text)
{
        uint64_t sum = 0;
        for (const char *p = text; *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t) (nl - p) : strlen(p);
                const char *sp = memrchr(p, ' ', len);
                if (sp)
                        sum += strtoull(sp + 1, NULL, 10);
                p += len + (nl ? 1 : 0);
        }
        return sum;
}

static void test_flamegraph_reference_collapsed_numbers(void **state)
{
        (void) state;
        const char *dir = data_path("conformance/flamegraph/results");
        DIR *dh = opendir(dir);
        assert_non_null(dh);
        size_t files = 0;
        pg_test_sandbox();
        for (struct dirent *de; (de = readdir(dh)) != NULL;) {
                size_t len = strlen(de->d_name);
                if (len < 18 || strcmp(de->d_name + len - 18, "-collapsed-all.txt") != 0)
                        continue;
                char in[4096];
                snprintf(in, sizeof(in), "%s/%s", dir, de->d_name);
                char *text = pg_test_read(in);
                struct svgdoc d;
                draw(&d, "a.svg", 0, "flamegraph", in, NULL);
                draw(NULL, "b.svg", 0, "flamegraph", in, NULL);
                char *a = pg_test_read("a.svg"), *b = pg_test_read("b.svg");
                assert_string_equal(a, b); /* byte-identical reruns */
                const struct fr *root = find(&d, "all", 0);
                assert_non_null(root);
                if (root->w != sum_counts(text))
                        fail_msg("%s: root %llu != sum %llu", de->d_name,
                                 (unsigned long long) root->w,
                                 (unsigned long long) sum_counts(text));
                check_tree(&d);
                free(a);
                free(b);
                free(text);
                svg_free(&d);
                files++;
        }
        closedir(dh);
        assert_int_equal(files, 13);
        pg_test_sandbox_remove();
}

/* ---- field cases ----------------------------------------------------------- */

static void test_flamegraph_case15_vanished_and_new_paths(void **state)
{
        (void) state;
        const char *before = data_path("cases/15-diff-removed-and-new-paths/before.folded");
        const char *after = data_path("cases/15-diff-removed-and-new-paths/after.folded");
        const char *two = data_path("cases/15-diff-removed-and-new-paths/combined-2col.folded");
        struct svgdoc d;
        pg_test_sandbox();

        draw(&d, "d.svg", 0, "diff", before, after, NULL);
        const struct fr *baz = find(&d, "baz", 2), *foo = find(&d, "foo", 2);
        assert_non_null(baz);
        assert_string_equal(baz->cls, "new"); /* marked as new */
        assert_true(baz->has_other && baz->other == 0);
        assert_int_equal(baz->r, 255); /* grew: +50 pp, the largest change */
        assert_int_equal(baz->g, 0);
        assert_null(find(&d, "bar", -1)); /* HEAD's shape */
        assert_true(foo->b == 255 && foo->r < 255 && foo->cls == NULL);
        assert_non_null(strstr(d.subtitles, "1 path of base (40.00% of its samples) vanished"));
        assert_non_null(strstr(d.subtitles, "dashed outline = new in head"));
        svg_free(&d);

        /* the companion graph shows the vanished path, marked */
        draw(&d, "n.svg", 0, "diff", "--negate", before, after, NULL);
        const struct fr *bar = find(&d, "bar", 3);
        assert_non_null(bar);
        assert_string_equal(bar->cls, "gone");
        assert_true(bar->has_other && bar->other == 0 && bar->w == 4);
        assert_true(bar->b == 255 && bar->r == 0); /* shrank by 40 pp: the largest change */
        assert_null(find(&d, "baz", -1));
        assert_non_null(strstr(d.subtitles, "widths: "));
        assert_non_null(strstr(d.subtitles, "red = grew from base to head"));
        svg_free(&d);

        /* swapping BASE and HEAD flips new and vanished */
        draw(&d, "s.svg", 0, "diff", after, before, NULL);
        assert_string_equal(find(&d, "bar", 3)->cls, "new");
        assert_null(find(&d, "baz", -1));
        svg_free(&d);

        /* the two-column form with zeros on either side */
        draw(&d, "t.svg", 0, "flamegraph", two, NULL);
        assert_string_equal(find(&d, "baz", 2)->cls, "new");
        assert_non_null(find_title(&d, "baz (5 samples, 50.00%; +50.00%)"));
        svg_free(&d);
        draw(&d, "tn.svg", 0, "flamegraph", "--negate", two, NULL);
        assert_string_equal(find(&d, "bar", 3)->cls, "gone");
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_case16_empty_and_tiny(void **state)
{
        (void) state;
        const char *empty = data_path("cases/16-diff-empty-or-tiny-counts/baseline-empty.folded");
        const char *large = data_path("cases/16-diff-empty-or-tiny-counts/baseline-large.folded");
        const char *cur = data_path("cases/16-diff-empty-or-tiny-counts/current.folded");
        struct pg_run_out o;
        struct svgdoc d;
        pg_test_sandbox();

        assert_int_equal(pg_test_perfgate(&o, "diff", empty, cur, "-o", "e.svg", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "base profile"));
        assert_non_null(strstr(o.err.ptr, "has 0 samples"));
        assert_int_equal(o.out.len, 0);
        assert_false(pg_test_exists("e.svg"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "diff", cur, empty, NULL), 2);
        assert_non_null(strstr(o.err.ptr, "head profile"));
        assert_int_equal(o.out.len, 0);
        pg_run_out_release(&o);

        draw(&d, "l.svg", 0, "diff", large, cur, NULL);
        char *svg = pg_test_read("l.svg");
        assert_null(strcasestr(svg, "nan"));
        assert_null(strcasestr(svg, "inf"));
        free(svg);
        const struct fr *rare = find(&d, "rare_path", 3);
        assert_string_equal(rare->cls, "new");
        assert_non_null(find_title(&d, "rare_path (1 samples, 0.01%; +0.01%)"));
        assert_true(rare->r == 255 && rare->g > 150); /* pale: 0.01 pp of at most 0.10 */
        assert_non_null(find_title(&d, "parse_row (9,000 samples, 90.00%; -0.10%)"));
        svg_free(&d);

        /* a noise floor keeps changes below it white */
        draw(&d, "f.svg", 0, "diff", "--noise-floor", "0.05", large, cur, NULL);
        rare = find(&d, "rare_path", 3);
        assert_true(rare->r == 255 && rare->g == 255 && rare->b == 255);
        const struct fr *pr = find(&d, "parse_row", 3);
        assert_true(pr->b == 255 && pr->r == 0);
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_case17_hostile_names(void **state)
{
        (void) state;
        const char *in = data_path("cases/17-svg-escaping/input.folded");
        struct svgdoc d;
        pg_test_sandbox();
        draw(&d, "h.svg", 0, "flamegraph", "--title", "t&<\x1b>\"'", "--subtitle", "\xff&nbsp;", in,
             NULL);
        char *svg = pg_test_read("h.svg");
        assert_null(strchr(svg, 0x1b));
        assert_null(strchr(svg, (char) 0xff));
        assert_null(strstr(svg, "&nbsp"));
        assert_non_null(strstr(svg, "&amp;nbsp;"));
        assert_non_null(find(&d, "RegExp:[&<>\"']", 3));
        assert_non_null(find(&d, "operator<<(std::ostream&, Point const&)", 3));
        assert_non_null(find(&d, "bad_utf8_\xef\xbf\xbd_name", 3));
        assert_non_null(
            find(&d, "core::ptr::drop_in_place$LT$Box$LT$dyn$u20$Error$GT$$GT$\xef\xbf\xbd[0m", 3));
        free(svg);
        svg_free(&d);
        /* the differential graph of hostile names is well-formed too */
        draw(&d, "hd.svg", 0, "diff", "--negate", in, in, NULL);
        assert_int_equal(d.n, 9);
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_case18_deep_stacks(void **state)
{
        (void) state;
        struct pg_buf in = PG_BUF_INIT;
        struct svgdoc d;
        pg_test_sandbox();
        pg_buf_puts(&in, "app;main"); /* gen-deep-folded.sh 3000 */
        for (int i = 0; i < 3000; i++)
                pg_buf_puts(&in, ";rec");
        pg_buf_puts(&in, ";spin 90\napp;main;other 10\n");
        pg_test_write("deep.folded", in.ptr);
        draw(&d, "deep.svg", 0, "flamegraph", "deep.folded", NULL);
        assert_true(d.height < 32767);
        const struct fr *more = NULL;
        long maxdepth = 0;
        for (size_t i = 0; i < d.n; i++) {
                if (d.f[i].more >= 0)
                        more = &d.f[i];
                if (d.f[i].depth > maxdepth)
                        maxdepth = d.f[i].depth;
        }
        assert_non_null(more);
        /* spin sits at depth 3003; frames up to 512 are drawn */
        assert_int_equal(more->more, 3003 - 512);
        assert_int_equal(more->depth, 513);
        assert_int_equal(maxdepth, 513);
        assert_int_equal(more->w, 90);
        assert_string_equal(more->title, "[2491 more frames] (90 samples, 90.00%)");
        assert_non_null(find(&d, "other", 3));
        check_tree(&d);
        svg_free(&d);
        /* --max-depth moves the cap; one beyond the height limit is refused */
        draw(&d, "deep2.svg", 0, "flamegraph", "--max-depth", "100", "deep.folded", NULL);
        for (size_t i = 0; i < d.n; i++)
                if (d.f[i].more >= 0)
                        assert_int_equal(d.f[i].more, 3003 - 100);
        svg_free(&d);
        draw(NULL, "deep3.svg", 2, "flamegraph", "--max-depth", "5000", "deep.folded", NULL);
        assert_false(pg_test_exists("deep3.svg"));
        pg_buf_release(&in);
        pg_test_sandbox_remove();
}

/* ---- layout ------------------------------------------------------------------ */

static void test_flamegraph_minwidth_prunes_but_counts(void **state)
{
        (void) state;
        const char *in = data_path("conformance/inferno/flamegraph-inputs/narrow-blocks/"
                                   "narrow-blocks.txt");
        struct svgdoc d;
        pg_test_sandbox();
        draw(&d, "n.svg", 0, "flamegraph", in, NULL);
        assert_null(find(&d, "__GI___fread_unlocked", -1)); /* 1 of 386,001 samples */
        const struct fr *cc = find(&d, "cksum", 2);
        assert_int_equal(cc->w, 60001); /* still counted in the parent */
        assert_int_equal(find(&d, "all", 0)->w, 386001);
        svg_free(&d);
        draw(&d, "z.svg", 0, "flamegraph", "--minwidth", "0", in, NULL);
        assert_non_null(find(&d, "__GI___fread_unlocked", 3));
        assert_non_null(find(&d, "ext4_file_read_iter", 10));
        svg_free(&d);
        /* N% of the total: noploop;[unknown] is 0.52% */
        draw(&d, "p.svg", 0, "flamegraph", "--minwidth", "1%", in, NULL);
        assert_null(find(&d, "[unknown]", -1));
        assert_non_null(find(&d, "noploop", 1));
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_order_inverted_reverse(void **state)
{
        (void) state;
        struct svgdoc d;
        pg_test_sandbox();
        /* byte order of names, not input order: "B" < "a" < "a b" < "ab" */
        pg_test_write("o.folded", "r;ab 1\nr;a b 1\nr;a 1\nr;B 1\nr;a;z 2\n");
        draw(&d, "o.svg", 0, "flamegraph", "o.folded", NULL);
        assert_true(find(&d, "B", 2)->x < find(&d, "a", 2)->x);
        assert_true(find(&d, "a", 2)->x < find(&d, "a b", 2)->x);
        assert_true(find(&d, "a b", 2)->x < find(&d, "ab", 2)->x);
        assert_int_equal(find(&d, "a", 2)->w, 3);
        double root_y = find(&d, "all", 0)->y, leaf_y = find(&d, "z", 3)->y;
        assert_true(leaf_y < root_y);
        assert_non_null(strstr(find(&d, "r", 1)->title, "(6 samples, 100.00%)"));
        svg_free(&d);
        draw(&d, "i.svg", 0, "flamegraph", "--inverted", "o.folded", NULL);
        assert_true(find(&d, "z", 3)->y > find(&d, "all", 0)->y);
        char *isvg = pg_test_read("i.svg");
        assert_non_null(strstr(isvg, ">Icicle Graph</text>"));
        free(isvg);
        svg_free(&d);
        draw(&d, "r.svg", 0, "flamegraph", "--reverse", "o.folded", NULL);
        assert_int_equal(find(&d, "z", 1)->w, 2); /* leaves at the root */
        assert_non_null(find(&d, "r", 3));
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_colours_and_labels(void **state)
{
        (void) state;
        struct svgdoc a, b;
        pg_test_sandbox();
        pg_test_write("a.folded", "x;shared_fn 5\nx;k_fn_[k] 5\nx;j_fn_[j] 5\nx;i_fn_[i] 5\n");
        pg_test_write("b.folded", "other;y;z;shared_fn 7\nother;q 1\n");
        draw(&a, "a.svg", 0, "flamegraph", "a.folded", NULL);
        draw(&b, "b.svg", 0, "flamegraph", "b.folded", NULL);
        const struct fr *s1 = find(&a, "shared_fn", -1), *s2 = find(&b, "shared_fn", -1);
        assert_true(s1->r == s2->r && s1->g == s2->g && s1->b == s2->b); /* same colour */
        const struct fr *k = find(&a, "k_fn", 2), *j = find(&a, "j_fn", 2),
                        *i = find(&a, "i_fn", 2);
        assert_non_null(k); /* annotation gone from name, label and title */
        assert_string_equal(k->label, "k_fn");
        assert_string_equal(k->title, "k_fn (5 samples, 25.00%)");
        assert_true(k->b == 0 && k->r >= 190);    /* kernel: orange */
        assert_true(j->g >= 200 && j->r < 120);   /* JIT: green */
        assert_true(i->g >= 165 && i->g == i->b); /* inlined: aqua */
        svg_free(&b);
        draw(&b, "c.svg", 0, "flamegraph", "--colors", "blue", "a.folded", NULL);
        const struct fr *sb = find(&b, "shared_fn", -1);
        assert_true(sb->b >= 205 && sb->r == sb->g);
        assert_true(find(&b, "k_fn", 2)->b == 0); /* kinds keep their palette */
        svg_free(&a);
        svg_free(&b);

        /* labels: whole when they fit, cut with "..", none under 3 characters;
         * cut before escaping, by characters (never inside a UTF-8 sequence) */
        pg_test_write("l.folded",
                      "r;&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&& 10\n"
                      "r;\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 "
                      "10\nr;tiny 1\n");
        draw(&a, "l.svg", 0, "flamegraph", "--width", "200", "l.folded", NULL);
        const struct fr *amp = find(&a, "&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&&", 2);
        /* (200 - 20) * 10/21 px = 85.7 px = 12 characters at 7.08 px */
        assert_string_equal(amp->label, "&&&&&&&&&&..");
        const struct fr *e = find(&a,
                                  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                  "\xc3\xa9\xc3\xa9\xc3\xa9",
                                  2);
        assert_string_equal(e->label, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                      "\xc3\xa9\xc3\xa9\xc3\xa9..");
        assert_null(find(&a, "tiny", 2)->label); /* 8.6 px: 1 character */
        svg_free(&a);
        pg_test_sandbox_remove();
}

/* No frame of @d is drawn new or grown or shrunk, and no path of base vanished. */
static void all_matched(const struct svgdoc *d)
{
        for (size_t i = 0; i < d->n; i++) {
                if (d->f[i].cls || strstr(d->f[i].title, "%; 0.00%)") == NULL)
                        print_error("%s: class %s, title %s\n", d->f[i].name,
                                    d->f[i].cls ? d->f[i].cls : "-", d->f[i].title);
                assert_null(d->f[i].cls);
                if (d->f[i].depth > 0)
                        assert_non_null(strstr(d->f[i].title, "%; 0.00%)"));
        }
        assert_null(strstr(d->subtitles, "vanished"));
}

/* A frame of base is the frame of head at the same place with the same
 * comparison key, paired where that is unambiguous (docs/diff.md) */
static void test_flamegraph_diff_same_place(void **state)
{
        (void) state;
        struct svgdoc d;
        pg_test_sandbox();
        /* foo inlined into main only; head still has foo (not inlined) under bar */
        pg_test_write("b4.folded", "x;main;foo 500\nx;bar;foo 500\n");
        pg_test_write("h4.folded", "x;main;foo_[i] 500\nx;bar;foo 500\n");
        draw(&d, "d4.svg", 0, "diff", "b4.folded", "h4.folded", NULL);
        all_matched(&d);
        assert_int_equal(find(&d, "foo", 3)->w, 500);
        svg_free(&d);
        /* only pkgb edited: its wrapper's hash changed, pkga's did not */
        pg_test_write("b6.folded", "x;main;pkga.Sum;_cgo_aaaaaaaaaaaa_Cfunc_free;free 500\n"
                                   "x;main;pkgb.Sum;_cgo_bbbbbbbbbbbb_Cfunc_free;free 500\n");
        pg_test_write("h6.folded", "x;main;pkga.Sum;_cgo_aaaaaaaaaaaa_Cfunc_free;free 500\n"
                                   "x;main;pkgb.Sum;_cgo_dddddddddddd_Cfunc_free;free 500\n");
        draw(&d, "d6.svg", 0, "diff", "b6.folded", "h6.folded", NULL);
        all_matched(&d);
        assert_non_null(find(&d, "_cgo_dddddddddddd_Cfunc_free", 4));
        assert_null(find(&d, "_cgo_bbbbbbbbbbbb_Cfunc_free", -1));
        svg_free(&d);
        /* two wrappers of one key only in base there, one only in head: which
         * one was renamed is not known, so none is matched */
        pg_test_write("b7.folded", "x;main;_cgo_aaaaaaaaaaaa_Cfunc_free 500\n"
                                   "x;main;_cgo_bbbbbbbbbbbb_Cfunc_free 500\n");
        pg_test_write("h7.folded", "x;main;_cgo_dddddddddddd_Cfunc_free 1000\n");
        draw(&d, "d7.svg", 0, "diff", "b7.folded", "h7.folded", NULL);
        assert_string_equal(find(&d, "_cgo_dddddddddddd_Cfunc_free", 3)->cls, "new");
        assert_non_null(strstr(d.subtitles, "2 paths of base (100.00% of its samples) vanished"));
        svg_free(&d);
        pg_test_sandbox_remove();
}

static void test_flamegraph_options_text(void **state)
{
        (void) state;
        struct svgdoc d;
        pg_test_sandbox();
        pg_test_write("o.folded", "a;b 1234567\n");
        draw(&d, "o.svg", 0, "flamegraph", "--title", "My Title", "--subtitle", "sub line",
             "--countname", "bytes", "--width", "800", "--height", "20", "o.folded", NULL);
        char *svg = pg_test_read("o.svg");
        assert_non_null(strstr(svg, ">My Title</text>"));
        assert_string_equal(d.subtitles, "sub line\n");
        assert_non_null(find_title(&d, "b (1,234,567 bytes, 100.00%)"));
        assert_true(d.width == 800 && d.fh == 20);
        assert_non_null(strstr(svg, "viewBox=\"0 0 800.0 "));
        assert_non_null(strstr(svg, "version=\"1.1\""));
        free(svg);
        svg_free(&d);
        pg_test_sandbox_remove();
}

/* ---- inputs: result files, stdin, folded parsing ------------------------- */

static void test_flamegraph_result_input_and_stdin(void **state)
{
        (void) state;
        struct pg_result r;
        struct pg_stack st[] = { { "parse;main;copy", 800 }, { "parse;main;b", 3 } };
        struct svgdoc d;
        struct pg_run_out o;
        pg_test_sandbox();
        pg_result_init(&r);
        r.name = strdup("parse");
        r.ncommand = 1;
        r.command = calloc(1, sizeof(char *));
        r.command[0] = strdup("bench/parse");
        r.created = strdup("2026-11-29T10:00:00Z");
        r.has_git = true;
        r.git_commit = strdup("9f1c2ab000000000000000000000000000000000");
        r.machine = strdup("default");
        r.host.cpu = strdup("cpu");
        r.host.kernel = strdup("6");
        r.host.arch = strdup("x86_64");
        r.counters = strdup("software");
        r.repeat = 1;
        r.profile.present = true;
        r.profile.event = strdup("cpu-clock");
        r.profile.frequency_hz = 999;
        r.profile.call_graph = strdup("fp");
        r.profile.samples = 803;
        pg_profile_set_stacks(&r.profile, st, 2);
        assert_int_equal(pg_result_save(&r, "parse.json"), 0);
        draw(&d, "p.svg", 0, "flamegraph", "parse.json", NULL);
        assert_int_equal(find(&d, "all", 0)->w, 803);
        assert_int_equal(find(&d, "copy", 3)->w, 800);
        assert_non_null(
            strstr(d.subtitles, "parse: 803 samples of cpu-clock at 999 Hz, commit 9f1c2ab"));
        svg_free(&d);
        /* a result diffed against folded text */
        pg_test_write("base.folded", "parse;main;copy 400\nparse;main;b 400\n");
        draw(&d, "pd.svg", 0, "diff", "base.folded", "parse.json", NULL);
        assert_non_null(find_title(&d, "copy (800 samples, 99.63%; +49.63%)"));
        svg_free(&d);
        /* without a profile: refused */
        pg_profile_set_stacks(&r.profile, NULL, 0);
        r.profile.present = false;
        assert_int_equal(pg_result_save(&r, "noprof.json"), 0);
        assert_int_equal(pg_test_perfgate(&o, "flamegraph", "noprof.json", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "has no profile"));
        pg_run_out_release(&o);
        pg_result_release(&r);

        /* stdin, to stdout */
        char *argv[] = { (char *) pg_test_env("PERFGATE_BIN"), "flamegraph", "-", NULL };
        assert_int_equal(pg_test_run(&o, "a;b 3\na;c 1\n", argv), 0);
        svg_parse(&d, o.out.ptr);
        assert_int_equal(find(&d, "a", 1)->w, 4);
        svg_free(&d);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_folded_parse_rules(void **state)
{
        (void) state;
        struct pg_folded f;
        static const char text[] = "a;b 3\r\n"
                                   "\n"
                                   "no-count-here\n"
                                   "a;b 2\n"
                                   "  7\n"
                                   "a;c 1.5\n"
                                   "a;d 2.0\n"
                                   "a;e 99999999999999999999999\n"
                                   "also-no-count\n"
                                   "a;f x\n"
                                   "a;worker 123 5\n";
        assert_int_equal(pg_folded_parse(&f, text, strlen(text), "t"), 0);
        assert_false(f.two_column);
        assert_int_equal(f.nstacks, 4);
        assert_string_equal(f.stacks[0].frames, "a;b"); /* merged, CR dropped */
        assert_int_equal(f.stacks[0].count, 5);
        assert_string_equal(f.stacks[1].frames, "a;c");
        assert_int_equal(f.stacks[1].count, 1); /* truncated */
        assert_int_equal(f.stacks[2].count, 2);
        assert_string_equal(f.stacks[3].frames, "a;worker 123"); /* not two-column */
        assert_int_equal(f.total, 5 + 1 + 2 + 5);
        assert_int_equal(f.nwarnings, 4); /* once per kind */
        assert_string_equal(f.warnings[0],
                            "ignored 3 lines without a sample count at the end (first: line 3)");
        assert_string_equal(f.warnings[1], "ignored 1 line with an empty stack (first: line 5)");
        assert_string_equal(f.warnings[2],
                            "ignored 1 line whose count is too large (first: line 8)");
        assert_string_equal(
            f.warnings[3],
            "truncated the fractional counts of 1 line to whole samples (first: line 6)");
        pg_folded_release(&f);

        static const char two[] = "a;b 1 0\na;c 0 4\na;b 2 3\n";
        assert_int_equal(pg_folded_parse(&f, two, strlen(two), "t"), 0);
        assert_true(f.two_column);
        assert_int_equal(f.nstacks, 2);
        assert_int_equal(f.nbefore, 1);
        assert_string_equal(f.before[0].frames, "a;b");
        assert_int_equal(f.before[0].count, 3);
        assert_int_equal(f.stacks[0].count, 3);
        assert_int_equal(f.total, 7);
        assert_int_equal(f.total_before, 3);
        pg_folded_release(&f);

        /* frame order: "a;z" < "a b" < "ab" (byte order of whole keys would differ) */
        static const char ord[] = "ab 1\na b 1\na;z 1\n";
        assert_int_equal(pg_folded_parse(&f, ord, strlen(ord), "t"), 0);
        assert_string_equal(f.stacks[0].frames, "a;z");
        assert_string_equal(f.stacks[1].frames, "a b");
        assert_string_equal(f.stacks[2].frames, "ab");
        assert_true(pg_folded_key_cmp("a", 1, "a;b", 3) < 0);
        assert_true(pg_folded_key_cmp("a;b", 3, "a;b", 3) == 0);
        assert_true(pg_folded_key_cmp("a\xff", 2, "a;", 2) > 0);
        pg_folded_release(&f);

        static const char big[] = "a 18446744073709551615\nb 1\n";
        assert_int_equal(pg_folded_parse(&f, big, strlen(big), "big"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "'big'"));

        /* the reference tools' bad-line and fractional inputs: one warning each */
        const char *files[] = { "conformance/inferno/diff-folded/bad_before.txt",
                                "conformance/inferno/diff-folded/before_fractionals.txt" };
        for (int i = 0; i < 2; i++) {
                char *t = pg_test_read(data_path(files[i]));
                assert_int_equal(pg_folded_parse(&f, t, strlen(t), files[i]), 0);
                assert_int_equal(f.nwarnings, 1);
                assert_non_null(
                    strstr(f.warnings[0], i == 0 ? "without a sample count" : "fractional"));
                assert_true(f.total > 0);
                pg_folded_release(&f);
                free(t);
        }
}

/* ---- library and errors -------------------------------------------------------- */

static void test_flamegraph_library_errors(void **state)
{
        (void) state;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_flame_opts o;
        struct pg_stack s[] = { { "a;b", 2 } }, z[] = { { "a;b", 0 } };

        assert_int_equal(pg_flamegraph_svg(&out, z, 1, NULL), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "no samples"));
        assert_int_equal(pg_flamegraph_svg(&out, NULL, 0, NULL), PG_EINPUT);
        assert_int_equal(pg_flamegraph_diff_svg(&out, z, 1, s, 1, NULL), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "base profile"));
        assert_int_equal(pg_flamegraph_diff_svg(&out, s, 1, NULL, 0, NULL), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "head profile"));
        assert_int_equal(out.len, 0);

        pg_flame_opts_init(&o);
        o.colors = "plaid";
        assert_int_equal(pg_flamegraph_svg(&out, s, 1, &o), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "unknown palette 'plaid'"));
        pg_flame_opts_init(&o);
        o.width_px = 10;
        assert_int_equal(pg_flamegraph_svg(&out, s, 1, &o), PG_EINPUT);
        pg_flame_opts_init(&o);
        o.frame_height_px = 1000;
        assert_int_equal(pg_flamegraph_svg(&out, s, 1, &o), PG_EINPUT);
        assert_int_equal(pg_flame_opts_set(&o, "width", "12x"), PG_EINPUT);
        assert_int_equal(pg_flame_opts_set(&o, "minwidth", "-1"), PG_EINPUT);
        assert_int_equal(pg_flame_opts_set(&o, "max-depth", "1.5"), PG_EINPUT);
        assert_int_equal(pg_flame_opts_set(&o, "bogus", "1"), PG_EINPUT);
        assert_int_equal(out.len, 0);

        /* the same input in another order gives the same bytes */
        struct pg_stack p1[] = { { "m;x", 3 }, { "m;y", 4 }, { "m;x", 1 } };
        struct pg_stack p2[] = { { "m;y", 4 }, { "m;x", 4 } };
        struct pg_buf a = PG_BUF_INIT, b = PG_BUF_INIT;
        assert_int_equal(pg_flamegraph_diff_svg(&a, p2, 2, p1, 3, NULL), 0);
        assert_int_equal(pg_flamegraph_diff_svg(&b, p1, 3, p2, 2, NULL), 0);
        assert_string_equal(a.ptr, b.ptr); /* equal shares: all white both ways */
        assert_null(strstr(a.ptr, "rgb(255,0,0)"));
        pg_buf_release(&a);
        pg_buf_release(&b);
        pg_buf_release(&out);
}

static void test_flamegraph_cli_errors(void **state)
{
        (void) state;
        struct pg_run_out o;
        pg_test_sandbox();
        pg_test_write("ok.folded", "a;b 1\n");
        pg_test_write("two.folded", "a;b 1 2\n");
        pg_test_write("bad.folded", "no counts at all\n");
        struct {
                int status;
                const char *needle;
                const char *args[6];
        } cases[] = {
                { 2, "No such file", { "flamegraph", "missing.folded" } },
                { 2, "missing INPUT", { "flamegraph" } },
                { 2, "unknown option", { "flamegraph", "--bogus", "ok.folded" } },
                { 2, "needs a value", { "flamegraph", "ok.folded", "--width" } },
                { 2, "invalid --width", { "flamegraph", "--width", "wide", "ok.folded" } },
                { 2, "unknown palette", { "flamegraph", "--colors", "plaid", "ok.folded" } },
                { 2, "holds no samples", { "flamegraph", "bad.folded" } },
                { 2, "need a two-column input", { "flamegraph", "--negate", "ok.folded" } },
                { 2, "two-column", { "diff", "two.folded", "ok.folded" } },
                { 2, "expected BASE and HEAD", { "diff", "ok.folded" } },
                { 2, "both be stdin", { "diff", "-", "-" } },
                { 4, "nodir/x.svg", { "flamegraph", "ok.folded", "-o", "nodir/x.svg" } },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *argv[10];
                int n = 0;
                argv[n++] = (char *) pg_test_env("PERFGATE_BIN");
                for (int k = 0; k < 6 && cases[i].args[k]; k++)
                        argv[n++] = (char *) cases[i].args[k];
                argv[n] = NULL;
                int st = pg_test_run(&o, NULL, argv);
                if (st != cases[i].status || !strstr(o.err.ptr, cases[i].needle))
                        fail_msg("case %zu (%s): exit %d, stderr: %s", i, cases[i].needle, st,
                                 o.err.ptr);
                assert_int_equal(o.out.len, 0); /* nothing half-written */
                pg_run_out_release(&o);
        }
        assert_int_equal(pg_test_perfgate(&o, "flamegraph", "--help", NULL), 0);
        assert_non_null(strstr(o.out.ptr, "--minwidth"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* Output is clean UTF-8 with no control character but LF (XML 1.0 Char). */
static void assert_clean_xml_text(const struct pg_buf *b)
{
        const unsigned char *p = (const unsigned char *) b->ptr;
        for (size_t i = 0; i < b->len;) {
                size_t n = pg_utf8_seqlen(p + i, b->len - i);
                if (n == 0 || (n == 1 && p[i] < 0x20 && p[i] != '\n'))
                        fail_msg("byte 0x%02x at offset %zu is not XML text", p[i], i);
                i += n;
        }
}

/* Random lines from hostile pieces, parsed and drawn in-process (a fixed seed). */
static void test_flamegraph_random_inputs(void **state)
{
        (void) state;
        static const char *const pieces[] = { ";",
                                              " ",
                                              "\t",
                                              "1",
                                              "0",
                                              "9",
                                              ".",
                                              "\n",
                                              "\r",
                                              "a",
                                              "_[k]",
                                              "\xff",
                                              "\x1b",
                                              "\xef\xbf\xbe",
                                              "&",
                                              "<",
                                              "-",
                                              "\xc3\xa9",
                                              "18446744073709551615" };
        uint64_t seed = 88172645463325252ULL;
        for (int round = 0; round < 400; round++) {
                struct pg_buf in = PG_BUF_INIT, out = PG_BUF_INIT;
                struct pg_folded f;
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                int n = (int) (seed % 160);
                for (int i = 0; i < n; i++) {
                        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                        pg_buf_puts(&in, pieces[seed % (sizeof(pieces) / sizeof(pieces[0]))]);
                }
                int error = pg_folded_parse(&f, in.ptr, in.len, "random");
                assert_true(error == 0 || error == PG_EINPUT);
                if (error == 0) {
                        struct pg_flame_opts o;
                        pg_flame_opts_init(&o);
                        o.minwidth_px = 0;
                        o.reverse = round % 2;
                        o.inverted = round % 3 == 0;
                        error = f.two_column ? (o.raw_delta = true,
                                                pg_flamegraph_diff_svg(&out, f.before, f.nbefore,
                                                                       f.stacks, f.nstacks, &o))
                                             : pg_flamegraph_svg(&out, f.stacks, f.nstacks, &o);
                        assert_true(error == 0 || error == PG_EINPUT);
                        assert_true(error == 0 || out.len == 0);
                        assert_clean_xml_text(&out);
                        pg_buf_reset(&out);
                        error = pg_flamegraph_diff_svg(&out, f.stacks, f.nstacks, f.stacks,
                                                       f.nstacks, NULL);
                        assert_true(error == 0 || (error == PG_EINPUT && f.total == 0));
                        assert_clean_xml_text(&out);
                        assert_null(strstr(out.ptr, "nan"));
                        pg_folded_release(&f);
                }
                pg_buf_release(&in);
                pg_buf_release(&out);
        }
}

/* Every folded input in tests/data (the reference renderer's test inputs, the cases). */
static void test_flamegraph_corpus_replay(void **state)
{
        (void) state;
        const char *dirs[] = { "conformance/inferno/flamegraph-inputs/austin",
                               "conformance/inferno/flamegraph-inputs/bad-lines",
                               "conformance/inferno/flamegraph-inputs/base",
                               "conformance/inferno/flamegraph-inputs/colors",
                               "conformance/inferno/flamegraph-inputs/differential",
                               "conformance/inferno/flamegraph-inputs/empty",
                               "conformance/inferno/flamegraph-inputs/fractional-samples",
                               "conformance/inferno/flamegraph-inputs/grey-frames",
                               "conformance/inferno/flamegraph-inputs/multiple-inputs",
                               "conformance/inferno/flamegraph-inputs/narrow-blocks",
                               "conformance/inferno/flamegraph-inputs/unsorted-input",
                               "conformance/inferno/diff-folded",
                               "cases/15-diff-removed-and-new-paths",
                               "cases/16-diff-empty-or-tiny-counts",
                               "cases/17-svg-escaping" };
        size_t files = 0;
        for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
                const char *dir = data_path(dirs[d]);
                DIR *dh = opendir(dir);
                assert_non_null(dh);
                for (struct dirent *de; (de = readdir(dh)) != NULL;) {
                        size_t len = strlen(de->d_name);
                        if (de->d_name[0] == '.' || strcmp(de->d_name, "README.md") == 0 ||
                            (len > 4 && strcmp(de->d_name + len - 4, ".txt") != 0 &&
                             (len < 7 || strcmp(de->d_name + len - 7, ".folded") != 0)))
                                continue;
                        char path[4096];
                        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                        if (strstr(de->d_name, "expected"))
                                continue;
                        struct pg_folded f;
                        struct pg_buf out = PG_BUF_INIT;
                        assert_int_equal(pg_folded_load(&f, path, NULL), 0);
                        int error = f.two_column
                                        ? pg_flamegraph_diff_svg(&out, f.before, f.nbefore,
                                                                 f.stacks, f.nstacks, NULL)
                                        : pg_flamegraph_svg(&out, f.stacks, f.nstacks, NULL);
                        if (f.total == 0)
                                assert_int_equal(error, PG_EINPUT);
                        else if (error != 0)
                                fail_msg("%s: %s", path, pg_error_last());
                        assert_clean_xml_text(&out);
                        pg_buf_release(&out);
                        pg_folded_release(&f);
                        files++;
                }
                closedir(dh);
        }
        assert_true(files >= 20);
}

/*
 * The images for PR/MR comments: no script, no style sheet (fonts as
 * attributes), the culprit's path outlined in red; the focus view rooted at
 * the culprit's highest ancestor at most 10x as wide, with widths relative to
 * it and colours still from the whole profiles; no focus view when the
 * culprit is wide already or absent.
 */
static void test_flamegraph_image_focus_and_path(void **state)
{
        (void) state;
        struct pg_stack base[] = { { "app;main;big", 900 },
                                   { "app;main;mid;leaf", 80 },
                                   { "app;main;mid;culprit", 20 } };
        struct pg_stack head[] = { { "app;main;big", 900 },
                                   { "app;main;mid;leaf", 80 },
                                   { "app;main;mid;culprit", 60 } };
        struct pg_flame_opts o;
        struct pg_buf out = PG_BUF_INIT;
        struct svgdoc d;

        pg_flame_opts_init(&o);
        o.image = true;
        o.width_px = 880;
        o.highlight = "culprit";
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 3, head, 3, &o), 0);
        assert_null(strstr(out.ptr, "<script"));
        assert_null(strstr(out.ptr, "<style"));
        assert_null(strstr(out.ptr, "class=\"hide\""));
        assert_non_null(strstr(out.ptr, "font-family=\"Verdana,"));
        assert_non_null(strstr(out.ptr, "font-size=\"17\""));
        svg_parse(&d, out.ptr);
        assert_int_equal(d.total, 1040);
        assert_true(d.width == 880);
        for (size_t i = 0; i < d.n; i++) {
                bool want = strcmp(d.f[i].name, "big") != 0 && strcmp(d.f[i].name, "leaf") != 0 &&
                            strcmp(d.f[i].name, "all") != 0;
                if (d.f[i].path != want)
                        fail_msg("frame '%s': red outline %d", d.f[i].name, d.f[i].path);
        }
        const struct fr *c = find(&d, "culprit", 4);
        assert_non_null(c);
        assert_int_equal(c->r, 255); /* the only frame that grew: the strongest red */
        assert_true(c->width < 860.0 / 10);
        svg_free(&d);

        /* focus: rooted at mid (140 samples <= 10 x 60), main (1040) is too wide */
        pg_buf_reset(&out);
        o.focus = true;
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 3, head, 3, &o), 0);
        svg_parse(&d, out.ptr);
        assert_int_equal(d.total, 140);
        assert_int_equal(d.n, 3);
        assert_non_null(find(&d, "mid", 0));
        c = find(&d, "culprit", 1);
        assert_non_null(c);
        assert_float_equal(c->width, 860.0 * 60 / 140, 0.06);
        assert_int_equal(c->r, 255);
        assert_true(c->path);
        assert_non_null(strstr(d.subtitles, "focus: the calls under mid"));
        assert_non_null(strstr(c->title, "+3.77%")); /* 60/1040 - 20/1000, of the whole */
        svg_free(&d);

        /* wide enough already, or not drawn: no focus view, no error */
        head[2].count = 300;
        pg_buf_reset(&out);
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 3, head, 3, &o), 0);
        assert_int_equal(out.len, 0);
        o.highlight = "nowhere";
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 3, head, 3, &o), 0);
        assert_int_equal(out.len, 0);
        pg_buf_release(&out);
}

/* Own-time colours: a function whose time did not move while another's grew
 * keeps its self time, so it is white, though its share fell from 57% to 40%
 * (share mode paints it blue). 1 ms per sample on both sides. */
static void test_flamegraph_own_time_colours(void **state)
{
        (void) state;
        struct pg_stack base[] = { { "app;other", 560 }, { "app;hot", 420 } };
        struct pg_stack head[] = { { "app;other", 560 }, { "app;hot", 840 } };
        struct pg_flame_opts o;
        struct pg_buf out = PG_BUF_INIT;
        struct svgdoc d;
        const struct fr *f;

        pg_flame_opts_init(&o);
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 2, head, 2, &o), 0);
        svg_parse(&d, out.ptr);
        f = find(&d, "other", 2);
        assert_non_null(f);
        assert_true(f->b == 255 && f->r < 255); /* share mode: blue */
        svg_free(&d);

        o.base_time = 980;
        o.head_time = 1400;
        pg_buf_reset(&out);
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 2, head, 2, &o), 0);
        svg_parse(&d, out.ptr);
        f = find(&d, "other", 2);
        assert_non_null(f);
        assert_true(f->r == 255 && f->g == 255 && f->b == 255);
        assert_non_null(strstr(f->title, "; 0.00%"));
        f = find(&d, "hot", 2);
        assert_non_null(f);
        assert_true(f->r == 255 && f->g == 0 && f->b == 0);
        assert_non_null(strstr(f->title, "+30.00%")); /* 420 ms more of head's 1400 */
        assert_non_null(strstr(d.subtitles, "own time"));
        svg_free(&d);

        /* times whose products overflow a double: the ratio is used, no NaN */
        o.base_time = 1e308;
        o.head_time = 1e308;
        pg_buf_reset(&out);
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 2, head, 2, &o), 0);
        assert_null(strstr(out.ptr, "nan"));
        svg_parse(&d, out.ptr);
        f = find(&d, "other", 2);
        assert_non_null(f);
        /* equal times: its own time fell as its share did (560 -> 400) */
        assert_true(f->b == 255 && f->r < 255);
        svg_free(&d);

        o.head_time = -1;
        pg_buf_reset(&out);
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 2, head, 2, &o), PG_EINPUT);
        assert_int_equal(out.len, 0);
        pg_buf_release(&out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_flamegraph_reference_differential),
                cmocka_unit_test(test_flamegraph_duplicate_lines_merged_before_delta),
                cmocka_unit_test(test_flamegraph_reference_collapsed_numbers),
                cmocka_unit_test(test_flamegraph_case15_vanished_and_new_paths),
                cmocka_unit_test(test_flamegraph_case16_empty_and_tiny),
                cmocka_unit_test(test_flamegraph_case17_hostile_names),
                cmocka_unit_test(test_flamegraph_case18_deep_stacks),
                cmocka_unit_test(test_flamegraph_minwidth_prunes_but_counts),
                cmocka_unit_test(test_flamegraph_order_inverted_reverse),
                cmocka_unit_test(test_flamegraph_colours_and_labels),
                cmocka_unit_test(test_flamegraph_options_text),
                cmocka_unit_test(test_flamegraph_result_input_and_stdin),
                cmocka_unit_test(test_folded_parse_rules),
                cmocka_unit_test(test_flamegraph_library_errors),
                cmocka_unit_test(test_flamegraph_cli_errors),
                cmocka_unit_test(test_flamegraph_random_inputs),
                cmocka_unit_test(test_flamegraph_corpus_replay),
                cmocka_unit_test(test_flamegraph_image_focus_and_path),
                cmocka_unit_test(test_flamegraph_own_time_colours),
                cmocka_unit_test(test_flamegraph_diff_same_place),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
