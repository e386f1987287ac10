/*
 * test_hotspot_shown.c - the text and Markdown reports show a new or
 * vanished function's inclusive share (what it is judged on,
 * docs/compare.md "Hotspots"), marked as such, not its self share: a
 * function that only calls others has self 0% on both sides, and
 * "0.00% -> 0.00% (+0.00 pp, p = 1) vanished" said nothing. Other kinds keep
 * the self share and the z test's p.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/hotspot.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"

/* @p from folded text ("comm;a;b COUNT" a line). */
static void pg_folded(struct pg_profile *p, const char *text)
{
        struct pg_stack st[16];
        size_t n = 0;
        char *copy = pg_xstrdup(text), *save = NULL;

        memset(p, 0, sizeof(*p));
        p->present = true;
        p->event = pg_xstrdup("cpu-clock");
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *sp = strrchr(l, ' ');
                assert_non_null(sp);
                *sp = '\0';
                st[n].frames = l;
                st[n].count = strtoull(sp + 1, NULL, 10);
                p->samples += st[n++].count;
        }
        pg_profile_set_stacks(p, st, n);
        free(copy);
}

static struct pg_result pg_base, pg_head;

/* One benchmark whose vector growth (grow_vec, which only calls memmove)
 * vanished and whose work doubled its share. */
static void pg_comparison_build(struct pg_comparison *c)
{
        struct pg_rules r;

        pg_rules_init(&r);
        pg_result_init(&pg_base);
        pg_result_init(&pg_head);
        pg_folded(&pg_base.profile, "app;main;grow_vec;memmove 400\napp;main;work 600\n");
        pg_folded(&pg_head.profile, "app;main;work 1000\n");
        pg_comparison_init(c);
        c->n = 1;
        c->benches = calloc(1, sizeof(*c->benches));
        assert_non_null(c->benches);
        c->benches[0].name = pg_xstrdup("text_fp");
        c->benches[0].verdict = PG_VERDICT_UNCHANGED;
        c->benches[0].base = &pg_base;
        c->benches[0].head = &pg_head;
        c->counts[PG_VERDICT_UNCHANGED] = 1;
        pg_hotspots_init(&c->benches[0].hotspots);
        pg_hotspots_compare(&pg_base.profile, &pg_head.profile, 100e6, 100e6, &r.hotspots,
                            &c->benches[0].hotspots);
}

static void pg_comparison_free(struct pg_comparison *c)
{
        pg_comparison_release(c);
        pg_result_release(&pg_base);
        pg_result_release(&pg_head);
}

static const char *pg_line_of(const char *text, const char *needle, char *out, size_t cap)
{
        const char *p = strstr(text, needle), *s, *e;
        if (!p)
                fail_msg("no '%s' in:\n%s", needle, text);
        for (s = p; s > text && s[-1] != '\n'; s--)
                ;
        e = strchr(p, '\n');
        snprintf(out, cap, "%.*s", (int) (e ? e - s : (long) strlen(s)), s);
        return out;
}

static void test_hotspot_shown_text(void **state)
{
        struct pg_comparison c;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_report_opts o = { 0 };
        char line[512];
        (void) state;

        pg_comparison_build(&c);
        pg_report_text(&out, &c, &o);
        /* grow_vec: self 0% on both sides, inclusive 40% -> 0% */
        assert_string_equal(pg_line_of(out.ptr, "grow_vec ", line, sizeof(line)),
                            "    grow_vec  40.00% -> 0.00% inclusive (-40.00 pp) vanished");
        /* memmove is a leaf: its self share is its inclusive share, and its
         * own time moved (est. and own time shown), still without p */
        assert_string_equal(pg_line_of(out.ptr, "memmove ", line, sizeof(line)),
                            "    memmove  40.00% -> 0.00% inclusive (-40.00 pp, est. -40.0 ms, "
                            "own time -40.0 ms) vanished");
        assert_null(strstr(out.ptr, "  0.00% -> 0.00%"));
        pg_buf_release(&out);
        pg_comparison_free(&c);
}

static void test_hotspot_shown_markdown(void **state)
{
        struct pg_comparison c;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_report_opts o = { 0 };
        char line[512];
        (void) state;

        pg_comparison_build(&c);
        pg_report_markdown(&out, &c, &o);
        assert_string_equal(
            pg_line_of(out.ptr, "| grow&#95;vec |", line, sizeof(line)),
            "| text&#95;fp | grow&#95;vec | 40.00% incl. | 0.00% incl. | -40.00 pp | - | - "
            "| vanished |");
        assert_null(strstr(out.ptr, "| 0.00% | 0.00% |"));
        pg_buf_release(&out);
        pg_comparison_free(&c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hotspot_shown_text),
                cmocka_unit_test(test_hotspot_shown_markdown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
