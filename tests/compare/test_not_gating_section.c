/*
 * test_not_gating_section.c - the text report's "Regressions and
 * inconclusive results" holds only what can fail a benchmark or leave it
 * undecided; a metric that does not gate and changed ("worse, not gating")
 * is listed under "Changes that do not gate", and the Markdown comment has
 * the same metrics in its table of that name (docs/compare.md, "Outcome of
 * a metric"). Judged by one rule (pg_report_metric_section()), checked here
 * against every metric of the comparison; the JUnit failure message names
 * by it what failed, and the PR comment ranks its flame graph images by the
 * gating metrics only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"

static const double pg_flat[] = { 100e6, 101e6, 99e6, 100.5e6, 100.2e6 };
static const double pg_flat2[] = { 100.1e6, 100.9e6, 99.2e6, 100.4e6, 100.3e6 };
static const double pg_double[] = { 200e6, 201e6, 199e6, 200.5e6, 200.2e6 };
static const double pg_half[] = { 50e6, 50.5e6, 49.5e6, 50.2e6, 50.1e6 };

/* A benchmark @name with task-clock @tc and user-time @ut (5 runs each). */
static void pg_add(struct pg_result_set *s, const char *name, const double *tc, const double *ut)
{
        struct pg_result r;

        pg_result_init(&r);
        r.name = strdup(name);
        r.machine = strdup("default");
        r.counters = strdup("software");
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, 5, NULL);
        pg_result_add_metric(&r, "user-time", "ns", PG_METRIC_OK, ut, NULL, 5, NULL);
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

/* The sides outlive the comparison, which borrows their names. */
static struct pg_result_set pg_base, pg_head;

/*
 * "slower": task-clock doubled (gating regression), user-time doubled too
 * (does not gate). "quiet": only user-time doubled. "lighter": only
 * user-time halved.
 */
static void pg_compare(struct pg_comparison *c)
{
        struct pg_rules rules;

        pg_add(&pg_base, "slower", pg_flat, pg_flat);
        pg_add(&pg_head, "slower", pg_double, pg_double);
        pg_add(&pg_base, "quiet", pg_flat, pg_flat);
        pg_add(&pg_head, "quiet", pg_flat2, pg_double);
        pg_add(&pg_base, "lighter", pg_flat, pg_flat);
        pg_add(&pg_head, "lighter", pg_flat2, pg_half);
        pg_rules_init(&rules);
        pg_comparison_init(c);
        pg_compare_sets(&pg_base, &pg_head, &rules, c);
        pg_rules_release(&rules);
        assert_int_equal(c->n, 3);
}

/* The text of section @heading of @text: up to the next blank line after
 * @from (found after the heading: the start of the section's rows). */
static char *pg_section(const char *text, const char *heading, const char *from)
{
        const char *p = strstr(text, heading), *end;

        if (p == NULL)
                return NULL;
        end = strstr(p + strlen(heading), from);
        end = end ? strstr(end, "\n\n") : NULL;
        return strndup(p, end ? (size_t) (end - p) : strlen(p));
}

/* Whether @sec lists metric @metric of benchmark @bench (its rows follow
 * the benchmark's name line, up to the next benchmark). */
static bool pg_lists(const char *sec, const char *bench, const char *metric)
{
        struct pg_buf name = PG_BUF_INIT, row = PG_BUF_INIT;
        const char *p, *next;
        bool found = false;

        if (sec == NULL)
                return false;
        pg_buf_printf(&name, "\n  %s\n", bench);
        pg_buf_printf(&row, "\n    %s ", metric);
        p = strstr(sec, name.ptr);
        if (p) {
                p += name.len - 1;
                next = strstr(p, "\n  ");
                while (next && next[3] == ' ') /* a row or its note, not a benchmark */
                        next = strstr(next + 1, "\n  ");
                const char *r = strstr(p, row.ptr);
                found = r && (next == NULL || r < next);
        }
        pg_buf_release(&name);
        pg_buf_release(&row);
        return found;
}

static void test_sections(void **state)
{
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;
        char *gating, *other, *mdsec;

        (void) state;
        pg_compare(&c);
        pg_report_text(&text, &c, NULL);
        pg_report_markdown(&md, &c, NULL);
        gating = pg_section(text.ptr, "\nRegressions and inconclusive results", "\n");
        other = pg_section(text.ptr, "\nChanges that do not gate", "\n");
        mdsec = pg_section(md.ptr, "\n#### Changes that do not gate\n\n", "|---|");
        assert_non_null(gating);
        assert_non_null(other);
        assert_non_null(mdsec);

        /* what can fail: slower's task-clock, and nothing that does not gate */
        assert_true(pg_lists(gating, "slower", "task-clock"));
        assert_false(pg_lists(gating, "slower", "user-time"));
        assert_false(pg_lists(gating, "quiet", "user-time"));
        assert_null(strstr(gating, "not gating"));
        /* the changes that do not gate, worse and better, with their words */
        assert_true(pg_lists(other, "slower", "user-time"));
        assert_true(pg_lists(other, "quiet", "user-time"));
        assert_true(pg_lists(other, "lighter", "user-time"));
        assert_false(pg_lists(other, "slower", "task-clock"));
        assert_non_null(strstr(other, "worse, not gating"));
        assert_non_null(strstr(other, "better, not gating"));

        /* one rule: every metric is in the text section its placement names,
         * and in the Markdown table exactly when that is "do not gate" */
        for (size_t i = 0; i < c.n; i++) {
                const struct pg_bench_cmp *b = &c.benches[i];
                for (size_t k = 0; k < b->njudgements; k++) {
                        const struct pg_judgement *j = &b->judgements[k];
                        enum pg_report_section s = pg_report_metric_section(j);
                        struct pg_buf row = PG_BUF_INIT;
                        pg_buf_printf(&row, "| %s | %s | ", b->name, j->metric);
                        assert_int_equal(pg_lists(gating, b->name, j->metric),
                                         s == PG_REPORT_SECTION_GATING);
                        assert_int_equal(pg_lists(other, b->name, j->metric),
                                         s == PG_REPORT_SECTION_NOT_GATING);
                        assert_int_equal(strstr(mdsec, row.ptr) != NULL,
                                         s == PG_REPORT_SECTION_NOT_GATING);
                        pg_buf_release(&row);
                }
        }
        assert_non_null(strstr(mdsec, "| quiet | user-time | "));
        assert_non_null(strstr(mdsec, "| worse, not gating |"));
        assert_non_null(strstr(mdsec, "| lighter | user-time | "));
        assert_non_null(strstr(mdsec, "| better, not gating |"));
        free(gating);
        free(other);
        free(mdsec);
        pg_buf_release(&text);
        pg_buf_release(&md);
        pg_comparison_release(&c);
        pg_result_set_release(&pg_base);
        pg_result_set_release(&pg_head);
}

/* JUnit (GitLab's test report): the failure message names what failed,
 * never a metric that does not gate; the details call that one by its word. */
static void test_junit_message(void **state)
{
        struct pg_comparison c;
        struct pg_buf ju = PG_BUF_INIT;
        const char *slower, *msg, *end;

        (void) state;
        pg_compare(&c);
        pg_report_junit(&ju, &c, NULL);
        slower = strstr(ju.ptr, "<testcase name=\"slower\"");
        assert_non_null(slower);
        msg = strstr(slower, "<failure message=\"");
        assert_non_null(msg);
        end = strstr(msg, "\" type=");
        assert_non_null(end);
        assert_true(strstr(msg, "task-clock regression: ") < end);
        assert_true(strstr(msg, "user-time") > end);
        assert_non_null(strstr(msg, "user-time worse, not gating: "));
        assert_null(strstr(ju.ptr, "user-time regression"));
        pg_buf_release(&ju);
        pg_comparison_release(&c);
        pg_result_set_release(&pg_base);
        pg_result_set_release(&pg_head);
}

static const double pg_more[] = { 120e6, 121e6, 119e6, 120.5e6, 120.2e6 };
static const double pg_fourfold[] = { 400e6, 401e6, 399e6, 400.5e6, 400.2e6 };
static const double pg_much[] = { 180e6, 181e6, 179e6, 180.5e6, 180.2e6 };

/* The PR comment shows the regressions' flame graphs worst first by their
 * gating metrics: "mild" (task-clock +20%, user-time x4, which does not
 * gate) comes after "steep" (task-clock +80%). */
static void test_images_worst_first(void **state)
{
        struct pg_comparison c;
        struct pg_rules rules;
        struct pg_report_opts o = { .link_base = "https://example.invalid/fg" };
        struct pg_buf md = PG_BUF_INIT;
        const char *steep, *mild;

        (void) state;
        pg_add(&pg_base, "mild", pg_flat, pg_flat);
        pg_add(&pg_head, "mild", pg_more, pg_fourfold);
        pg_add(&pg_base, "steep", pg_flat, pg_flat);
        pg_add(&pg_head, "steep", pg_much, pg_flat2);
        pg_rules_init(&rules);
        pg_comparison_init(&c);
        pg_compare_sets(&pg_base, &pg_head, &rules, &c);
        pg_rules_release(&rules);
        assert_int_equal(c.n, 2);
        for (size_t i = 0; i < c.n; i++) {
                struct pg_bench_cmp *b = &c.benches[i];
                assert_int_equal(b->verdict, PG_VERDICT_REGRESSION);
                b->flamegraph_diff = pg_xasprintf("%s.diff.svg", b->name);
                b->flamegraph_image = pg_xasprintf("%s.image.svg", b->name);
        }
        pg_report_markdown(&md, &c, &o);
        steep = strstr(md.ptr, "<img src=\"https://example.invalid/fg/steep.image.svg\"");
        mild = strstr(md.ptr, "<img src=\"https://example.invalid/fg/mild.image.svg\"");
        assert_non_null(steep);
        assert_non_null(mild);
        assert_true(steep < mild);
        pg_buf_release(&md);
        pg_comparison_release(&c);
        pg_result_set_release(&pg_base);
        pg_result_set_release(&pg_head);
}

/* Only a change that does not gate: no "Regressions" heading at all. */
static void test_no_gating_heading(void **state)
{
        struct pg_comparison c;
        struct pg_rules rules;
        struct pg_buf text = PG_BUF_INIT;

        (void) state;
        pg_add(&pg_base, "quiet", pg_flat, pg_flat);
        pg_add(&pg_head, "quiet", pg_flat2, pg_double);
        pg_rules_init(&rules);
        pg_comparison_init(&c);
        pg_compare_sets(&pg_base, &pg_head, &rules, &c);
        pg_rules_release(&rules);
        assert_int_equal(c.benches[0].verdict, PG_VERDICT_UNCHANGED);
        pg_report_text(&text, &c, NULL);
        assert_null(strstr(text.ptr, "Regressions and inconclusive results"));
        assert_non_null(strstr(text.ptr, "\nChanges that do not gate"));
        pg_buf_release(&text);
        pg_comparison_release(&c);
        pg_result_set_release(&pg_base);
        pg_result_set_release(&pg_head);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sections),
                cmocka_unit_test(test_no_gating_heading),
                cmocka_unit_test(test_junit_message),
                cmocka_unit_test(test_images_worst_first),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
