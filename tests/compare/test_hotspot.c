/*
 * test_hotspot.c - compare/hotspot.c: self and inclusive shares (recursion
 * counted once per stack), the hottest call path, estimated time moved,
 * new/vanished/tiny functions, the significance gate, and the field cases
 * 15 (paths that vanish or appear; swapping sides flips them) and 16 (empty
 * baseline profile: a clear reason, no NaN; single-sample frames never
 * regress), read from tests/data/cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "compare/hotspot.h"
#include "compare/rules.h"
#include "tests/util/testutil.h"

/* Parse folded text ("a;b;c 12" per line) into @p. */
static void pg_profile_from_folded(struct pg_profile *p, const char *text, const char *event)
{
        pg_test_profile_from_folded(p, text, event);
}

static void pg_profile_free(struct pg_profile *p)
{
        pg_test_profile_free(p);
}

static char *pg_case_file(const char *rel)
{
        char *path = pg_xasprintf("%s/cases/%s", pg_test_env("PG_DATA_DIR"), rel);
        char *text = pg_test_read(path);
        free(path);
        return text;
}

static const struct pg_hotspot *pg_find(const struct pg_hotspots *h, const char *fn)
{
        for (size_t i = 0; i < h->n; i++)
                if (strcmp(h->items[i].function, fn) == 0)
                        return &h->items[i];
        return NULL;
}

static void test_hotspot_self_inclusive_recursion_path(void **state)
{
        struct pg_profile b, h;
        struct pg_hotspots hs;
        struct pg_rules r;
        const struct pg_hotspot *f;
        (void) state;
        pg_rules_init(&r);
        /* fib recurses in one stack: counted once there, so inclusive = 100 + 100 */
        pg_profile_from_folded(&b, "app;main;fib;fib 100\napp;main;work 300\napp;main;fib 100\n",
                               "cpu-clock");
        pg_profile_from_folded(&h,
                               "app;main;fib;fib 100\napp;main;work;copy 300\napp;main;fib 100\n"
                               "app;main;work 300\n",
                               "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 50e6, 100e6, &r.hotspots, &hs);
        assert_true(hs.judged);
        assert_int_equal(hs.base_total, 500);
        assert_int_equal(hs.head_total, 800);
        f = pg_find(&hs, "fib");
        assert_int_equal(f->base_incl, 200);
        assert_int_equal(f->base_self, 200);
        assert_null(pg_find(&hs, "app")); /* the comm frame is not a function */
        f = pg_find(&hs, "main");
        assert_true(f->base_incl_share == 1 && f->head_incl_share == 1);
        /* copy is new: 300 of 800 samples */
        f = pg_find(&hs, "copy");
        assert_int_equal(f->kind, PG_HOTSPOT_NEW);
        assert_string_equal(f->path, "main;work;copy");
        assert_true(fabs(f->delta_self_pp - 37.5) < 1e-9);
        assert_true(f->has_est && fabs(f->est_ms - 37.5) < 1e-9); /* 37.5% of 100 ms */
        assert_true(f->has_self_time && fabs(f->self_time_ms - 37.5) < 1e-9);
        /* work's own time: 300/500 of 50 ms -> 300/800 of 100 ms = +7.5 ms, although
         * its share fell by 22.5 pp (est. -22.5 ms) */
        f = pg_find(&hs, "work");
        assert_true(fabs(f->delta_self_pp + 22.5) < 1e-9 && fabs(f->est_ms + 22.5) < 1e-9);
        assert_true(fabs(f->self_time_ms - 7.5) < 1e-9);
        /* sorted: new before improved (fib and work shrank) */
        assert_string_equal(hs.items[0].function, "copy");
        assert_true(pg_hotspots_changed(&hs));
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_rules_release(&r);
}

static void test_hotspot_regressed_needs_significance(void **state)
{
        struct pg_profile b, h;
        struct pg_hotspots hs;
        struct pg_rules r;
        (void) state;
        pg_rules_init(&r);
        /* +13.85 pp on 2000/2600 samples: regressed, first, with its path */
        pg_profile_from_folded(
            &b, "p;main;req;copy_field 800\np;main;req;tok 900\np;main;out 300\n", "cpu-clock");
        pg_profile_from_folded(
            &h, "p;main;req;copy_field 1400\np;main;req;tok 900\np;main;out 300\n", "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 0, 0, &r.hotspots, &hs);
        assert_string_equal(hs.items[0].function, "copy_field");
        assert_int_equal(hs.items[0].kind, PG_HOTSPOT_REGRESSED);
        assert_string_equal(hs.items[0].path, "main;req;copy_field");
        assert_false(hs.items[0].has_est); /* no task-clock: no estimate */
        assert_false(hs.items[0].has_self_time);
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        /* the same shares on 20 and 26 samples: beyond threshold, not significant */
        pg_profile_from_folded(&b, "p;main;copy_field 8\np;main;tok 12\n", "cpu-clock");
        pg_profile_from_folded(&h, "p;main;copy_field 14\np;main;tok 12\n", "cpu-clock");
        r.hotspots.min_samples = 0;
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 0, 0, &r.hotspots, &hs);
        assert_int_equal(pg_find(&hs, "copy_field")->kind, PG_HOTSPOT_NOT_SIGNIFICANT);
        assert_false(pg_hotspots_changed(&hs));
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_rules_release(&r);
}

static void test_hotspot_case15_removed_and_new(void **state)
{
        char *before = pg_case_file("15-diff-removed-and-new-paths/before.folded");
        char *after = pg_case_file("15-diff-removed-and-new-paths/after.folded");
        struct pg_profile b, h;
        struct pg_hotspots hs;
        struct pg_rules r;
        const struct pg_hotspot *f;
        (void) state;
        pg_rules_init(&r);
        r.hotspots.min_samples = 0; /* 10 samples each: judge them anyway */
        pg_profile_from_folded(&b, before, "cpu-clock");
        pg_profile_from_folded(&h, after, "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 0, 0, &r.hotspots, &hs);
        /* "main" is the first frame (the comm); functions foo, bar, qux, baz */
        f = pg_find(&hs, "foo"); /* inclusive 60% -> 10%: -50 pp, -83% relative */
        assert_true(fabs(f->base_incl_share - 0.6) < 1e-12 &&
                    fabs(f->head_incl_share - 0.1) < 1e-12);
        assert_true(fabs(f->delta_incl_pp + 50) < 1e-9);
        f = pg_find(&hs, "bar");
        assert_int_equal(f->kind, PG_HOTSPOT_VANISHED);
        assert_true(f->head_incl == 0 && fabs(f->base_incl_share - 0.4) < 1e-12);
        assert_string_equal(f->path, "foo;bar"); /* the baseline's path: it is gone in head */
        f = pg_find(&hs, "baz");
        assert_int_equal(f->kind, PG_HOTSPOT_NEW);
        assert_true(fabs(f->head_self_share - 0.5) < 1e-12);
        assert_int_equal(pg_find(&hs, "qux")->kind, PG_HOTSPOT_UNCHANGED);
        pg_hotspots_release(&hs);
        /* swapped: new and vanished flip */
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&h, &b, 0, 0, &r.hotspots, &hs);
        assert_int_equal(pg_find(&hs, "bar")->kind, PG_HOTSPOT_NEW);
        assert_int_equal(pg_find(&hs, "baz")->kind, PG_HOTSPOT_VANISHED);
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_rules_release(&r);
        free(before);
        free(after);
}

static void test_hotspot_case16_empty_and_tiny(void **state)
{
        char *empty = pg_case_file("16-diff-empty-or-tiny-counts/baseline-empty.folded");
        char *large = pg_case_file("16-diff-empty-or-tiny-counts/baseline-large.folded");
        char *cur = pg_case_file("16-diff-empty-or-tiny-counts/current.folded");
        struct pg_profile b, h;
        struct pg_hotspots hs;
        struct pg_rules r;
        const struct pg_hotspot *f;
        (void) state;
        pg_rules_init(&r);
        pg_profile_from_folded(&b, empty, "cpu-clock");
        pg_profile_from_folded(&h, cur, "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 5e6, 5e6, &r.hotspots, &hs);
        assert_false(hs.judged);
        assert_string_equal(hs.reason, "baseline profile has 0 samples for event 'cpu-clock'");
        assert_int_equal(hs.n, 0);
        pg_hotspots_release(&hs);
        pg_profile_free(&b);

        pg_profile_from_folded(&b, large, "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 5e6, 5e6, &r.hotspots, &hs);
        assert_true(hs.judged);
        f = pg_find(&hs, "rare_path"); /* 0 -> 1 of 10000: new but tiny, never a regression */
        assert_int_equal(f->kind, PG_HOTSPOT_TINY);
        f = pg_find(&hs, "parse_row"); /* 90.10% -> 90.00% */
        assert_int_equal(f->kind, PG_HOTSPOT_UNCHANGED);
        f = pg_find(&hs, "write_out"); /* 9.90% -> 9.99%, p = 0.83 */
        assert_int_equal(f->kind, PG_HOTSPOT_UNCHANGED);
        assert_true(fabs(f->p_value - 0.8315977477) < 1e-9);
        assert_false(pg_hotspots_changed(&hs));
        for (size_t i = 0; i < hs.n; i++)
                assert_true(isfinite(hs.items[i].p_value) && isfinite(hs.items[i].est_ms) &&
                            isfinite(hs.items[i].delta_self_pp));
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_rules_release(&r);
        free(empty);
        free(large);
        free(cur);
}

static void test_hotspot_not_comparable_profiles(void **state)
{
        struct pg_profile b, h, none;
        struct pg_hotspots hs;
        struct pg_rules r;
        (void) state;
        pg_rules_init(&r);
        memset(&none, 0, sizeof(none));
        pg_profile_from_folded(&b, "a;main 10\n", "cycles");
        pg_profile_from_folded(&h, "a;main 10\n", "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 0, 0, &r.hotspots, &hs);
        assert_false(hs.judged);
        assert_non_null(strstr(hs.reason, "different events"));
        pg_hotspots_release(&hs);
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &none, 0, 0, &r.hotspots, &hs);
        assert_false(hs.judged);
        assert_string_equal(hs.reason, "head has no profile (it was run with --no-profile)");
        pg_hotspots_release(&hs);
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&none, &none, 0, 0, &r.hotspots, &hs);
        assert_string_equal(hs.reason, "no profile on either side");
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_rules_release(&r);
}

/* A share can only grow when others shrink: a function whose sample count
 * (own time) did not move is "shifted", neither improved nor regressed. */
static void test_hotspot_share_shift_is_not_a_change(void **state)
{
        struct pg_profile b, h;
        struct pg_hotspots hs;
        struct pg_rules r;
        const struct pg_hotspot *x;
        (void) state;

        pg_rules_init(&r);
        /* 1 s of CPU at 1 kHz, then the slow function adds 0.6 s */
        pg_profile_from_folded(&b, "app;main;steady 400\napp;main;slow 600\n", "cpu-clock");
        pg_profile_from_folded(&h, "app;main;steady 400\napp;main;slow 1200\n", "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 1e9, 1.6e9, &r.hotspots, &hs);
        x = pg_find(&hs, "slow");
        assert_non_null(x);
        assert_int_equal(x->kind, PG_HOTSPOT_REGRESSED);
        x = pg_find(&hs, "steady");
        assert_non_null(x);
        assert_true(x->delta_self_pp < -10); /* 40% -> 25% of the samples */
        assert_true(fabs(x->self_time_ms) < 1);
        assert_int_equal(x->kind, PG_HOTSPOT_SHIFTED);
        assert_string_equal(pg_hotspot_kind_name(x->kind), "shifted (others changed)");
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_rules_release(&r);
}

/*
 * A field report (clang++ -O2, lld): count_words got slower, checksum was not
 * touched (perf: 136 ms of own time before, 142 ms after), yet its share fell
 * 39.65% -> 20.72% and, the two batches run minutes apart on a loaded VM,
 * its own time read 136.4 -> 120.4 ms: -12%, within the drift of task-clock
 * between batches. It is shifted, not improved. An own time that halves is
 * still an improvement.
 */
static void test_hotspot_drift_is_not_an_improvement(void **state)
{
        struct pg_profile b, h, h2;
        struct pg_hotspots hs;
        struct pg_rules r;
        const struct pg_hotspot *x;
        (void) state;

        pg_rules_init(&r);
        pg_profile_from_folded(&b,
                               "bench;main;count_words 5322\nbench;main;checksum 3965\n"
                               "bench;main;other 713\n",
                               "cpu-clock");
        pg_profile_from_folded(&h,
                               "bench;main;count_words 7627\nbench;main;checksum 2072\n"
                               "bench;main;other 301\n",
                               "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 344e6, 581e6, &r.hotspots, &hs);
        x = pg_find(&hs, "count_words");
        assert_non_null(x);
        assert_int_equal(x->kind, PG_HOTSPOT_REGRESSED);
        x = pg_find(&hs, "checksum");
        assert_non_null(x);
        assert_true(x->self_time_ms < -15 && x->self_time_ms > -17);
        assert_int_equal(x->kind, PG_HOTSPOT_SHIFTED);
        pg_hotspots_release(&hs);

        /* checksum's own time really halves: 136 -> 68 ms */
        pg_profile_from_folded(&h2,
                               "bench;main;count_words 7627\nbench;main;checksum 1170\n"
                               "bench;main;other 301\n",
                               "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h2, 344e6, 581e6 * 9098 / 9999, &r.hotspots, &hs);
        x = pg_find(&hs, "checksum");
        assert_non_null(x);
        assert_true(x->self_time_ms < -60);
        assert_int_equal(x->kind, PG_HOTSPOT_IMPROVED);
        pg_hotspots_release(&hs);
        pg_profile_free(&b);
        pg_profile_free(&h);
        pg_profile_free(&h2);
        pg_rules_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hotspot_share_shift_is_not_a_change),
                cmocka_unit_test(test_hotspot_drift_is_not_an_improvement),
                cmocka_unit_test(test_hotspot_self_inclusive_recursion_path),
                cmocka_unit_test(test_hotspot_regressed_needs_significance),
                cmocka_unit_test(test_hotspot_case15_removed_and_new),
                cmocka_unit_test(test_hotspot_case16_empty_and_tiny),
                cmocka_unit_test(test_hotspot_not_comparable_profiles),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
