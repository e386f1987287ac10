/*
 * test_kernel_one_side.c - compare/hotspot.c and compare/verdict.c when
 * only one side's profile holds kernel frames (its run could sample the
 * kernel, exclude_kernel false; the other's could not, a normal user at
 * perf_event_paranoid 2): the kernel frames (`_[k]`) are artifacts of that,
 * not changes, so they are never listed as new or vanished hotspots, and
 * the benchmark says so once (docs/compare.md, "Host fingerprint"). A user
 * function that appears is still new, and with kernel frames on both sides
 * a kernel function that appears is new as before.
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
#include "compare/hotspot.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"
#include "tests/util/testutil.h"

static const double pg_tc[] = { 100e6, 101e6, 99e6, 100.5e6, 100.2e6 };

static const char *const pg_user_only = "main;work 600\n"
                                        "main;other 400\n";
static const char *const pg_with_kernel =
    "main;work 560\n"
    "main;other 330\n"
    "main;fresh 40\n"
    "main;work;entry_SYSCALL_64_after_hwframe_[k];ksys_write_[k] 70\n";

static void pg_add(struct pg_result_set *s, const char *folded, bool exclude_kernel, bool kernel)
{
        struct pg_result r;

        pg_result_init(&r);
        r.name = strdup("b");
        r.machine = strdup("default");
        r.counters = strdup("software");
        r.host.exclude_kernel = exclude_kernel;
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, pg_tc, NULL, 5, NULL);
        pg_test_profile_from_folded(&r.profile, folded, "cpu-clock");
        r.profile.kernel = kernel;
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

/* The two sides of the last comparison: it borrows their names, so they
 * live until the next one (static, so never a leak). */
static struct pg_result_set pg_sides[2];

static void pg_compare(struct pg_comparison *c, const char *bf, bool bk, const char *hf, bool hk)
{
        struct pg_result_set *base = &pg_sides[0], *head = &pg_sides[1];
        struct pg_rules rules;

        pg_result_set_release(base); /* the previous comparison's */
        pg_result_set_release(head);
        pg_add(base, bf, !bk, bk);
        pg_add(head, hf, !hk, hk);
        pg_rules_init(&rules);
        pg_comparison_init(c);
        pg_compare_sets(base, head, &rules, c);
        assert_int_equal(c->n, 1);
        pg_rules_release(&rules);
}

static const struct pg_hotspot *pg_find(const struct pg_hotspots *h, const char *fn)
{
        for (size_t i = 0; i < h->n; i++)
                if (strcmp(h->items[i].function, fn) == 0)
                        return &h->items[i];
        return NULL;
}

static void pg_check_one_side(const char *bf, bool bk, const char *hf, bool hk)
{
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;
        const struct pg_hotspots *h;
        const char *note = "kernel frames (_[k]) are in ";

        pg_compare(&c, bf, bk, hf, hk);
        h = &c.benches[0].hotspots;
        assert_true(h->judged);
        assert_null(pg_find(h, "ksys_write_[k]"));
        assert_null(pg_find(h, "entry_SYSCALL_64_after_hwframe_[k]"));
        /* a user function that appears or vanishes still does */
        assert_non_null(pg_find(h, "fresh"));
        assert_int_equal(pg_find(h, "fresh")->kind, bk ? PG_HOTSPOT_VANISHED : PG_HOTSPOT_NEW);
        assert_non_null(c.benches[0].host_note);
        assert_non_null(strstr(c.benches[0].host_note, note));
        assert_non_null(strstr(c.benches[0].host_note, bk ? "the baseline's" : "head's"));
        pg_report_text(&text, &c, NULL);
        pg_report_markdown(&md, &c, NULL);
        assert_null(strstr(text.ptr, "ksys_write"));
        assert_null(strstr(md.ptr, "ksys_write"));
        /* once under the benchmark */
        assert_non_null(strstr(text.ptr, note));
        assert_null(strstr(strstr(text.ptr, note) + 1, note));
        assert_non_null(strstr(md.ptr, "profile only &#40;one side could not sample the "
                                       "kernel&#41;: not listed as new or vanished hotspots"));
        pg_buf_release(&text);
        pg_buf_release(&md);
        pg_comparison_release(&c);
}

static void test_kernel_frames_only_in_head_are_not_new(void **state)
{
        (void) state;
        pg_check_one_side(pg_user_only, false, pg_with_kernel, true);
}

static void test_kernel_frames_only_in_base_have_not_vanished(void **state)
{
        (void) state;
        pg_check_one_side(pg_with_kernel, true, pg_user_only, false);
}

static void test_kernel_frames_on_both_sides_are_judged(void **state)
{
        struct pg_comparison c;
        const struct pg_hotspot *k;

        (void) state;
        pg_compare(&c,
                   "main;work 600\nmain;other 400\nmain;work;entry_SYSCALL_64_after_hwframe_[k] "
                   "5\n",
                   true, pg_with_kernel, true);
        k = pg_find(&c.benches[0].hotspots, "ksys_write_[k]");
        assert_non_null(k);
        assert_int_equal(k->kind, PG_HOTSPOT_NEW);
        assert_true(c.benches[0].host_note == NULL ||
                    strstr(c.benches[0].host_note, "kernel frames") == NULL);
        pg_comparison_release(&c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kernel_frames_only_in_head_are_not_new),
                cmocka_unit_test(test_kernel_frames_only_in_base_have_not_vanished),
                cmocka_unit_test(test_kernel_frames_on_both_sides_are_judged),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
