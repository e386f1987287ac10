/*
 * test_confirm_inlining.c - the paired hotspot check (pg_confirm_hotspots(),
 * compare/confirm.h) and the stored hotspot table
 * (pg_profile_funcs_scan_pair(), compare/profile.h) on ten crafted pairs
 * where only an inlining decision changed between base and head:
 *  - step inlined into main in base (main;step_[i]) and a function of its
 *    own in head (main;step), the same samples: neither step nor main is
 *    confirmed (its samples did not move between functions);
 *  - the reverse (standalone in base, inlined in head): main is not
 *    confirmed either;
 *  - code inlined on both sides and never a function of its own still
 *    counts for its caller (a grown inlined helper is its caller's growth);
 *  - a cgo wrapper renamed between the builds is one candidate counted on
 *    both sides; another wrapper of its key with one name on both sides is
 *    another candidate with its own numbers (not two with the same sums);
 *  - a helper inlined into hot and ANOTHER helper, a function of its own
 *    under cold (two static helpers of two files), are not one function:
 *    hot's inlined helper stays hot's, so hot doing twice the work is
 *    confirmed (the flip is matched at its call site, not by name).
 * The real programs (gcc, always_inline vs noinline, under perf) are
 * tests/record/test-inline-flip.sh and test-inline-namesake.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "baselines/result.h"
#include "compare/confirm.h"
#include "compare/profile.h"
#include "tests/util/testutil.h"

#define PAIRS 10

/* @n pairs of profiles from folded texts whose last stack has no count:
 * pair r's last stack gets 300 (head: @head_at) and r more
 * samples on the base side and (7 r mod 10) more on the head side, a little
 * noise that is not a change */
static void pairs_at(struct pg_profile *b, struct pg_profile *h, const char *base, const char *head,
                     int head_at)
{
        for (int r = 0; r < PAIRS; r++) {
                char buf[512];

                snprintf(buf, sizeof(buf), "%s %d\n", base, 300 + r);
                pg_test_profile_from_folded(&b[r], buf, "cpu-clock");
                snprintf(buf, sizeof(buf), "%s %d\n", head, head_at + (7 * r) % 10);
                pg_test_profile_from_folded(&h[r], buf, "cpu-clock");
        }
}

static void pairs(struct pg_profile *b, struct pg_profile *h, const char *base, const char *head)
{
        pairs_at(b, h, base, head, 300);
}

static void release(struct pg_profile *b, struct pg_profile *h, struct pg_confirm_hotspots *c)
{
        pg_confirm_hotspots_release(c);
        for (int r = 0; r < PAIRS; r++) {
                pg_test_profile_free(&b[r]);
                pg_test_profile_free(&h[r]);
        }
}

static const struct pg_confirm_hotspot *find(const struct pg_confirm_hotspots *c, const char *fn)
{
        for (size_t k = 0; k < c->n; k++)
                if (strcmp(c->items[k].function, fn) == 0)
                        return &c->items[k];
        return NULL;
}

static void no_confirmed(const struct pg_confirm_hotspots *c)
{
        for (size_t k = 0; k < c->n; k++) {
                if (c->items[k].confirmed)
                        print_error("%s confirmed: %.3f -> %.3f, +%.1f ms\n", c->items[k].function,
                                    c->items[k].base_share, c->items[k].head_share,
                                    c->items[k].self_growth_ns / 1e6);
                assert_false(c->items[k].confirmed);
        }
}

static void test_inlined_in_base_only(void **state)
{
        struct pg_profile b[PAIRS], h[PAIRS];
        struct pg_confirm_hotspots c;
        const struct pg_confirm_hotspot *s;
        (void) state;
        pairs(b, h, "x;main 300\nx;main;step_[i]", "x;main 300\nx;main;step");
        assert_int_equal(pg_confirm_hotspots(b, h, PAIRS, 8, 0.01, 0.05, &c), 0);
        no_confirmed(&c);
        s = find(&c, "step");
        assert_non_null(s);
        /* step's samples count for step on both sides: half of each run */
        assert_true(s->base_share > 0.45 && s->base_share < 0.55);
        assert_true(s->head_share > 0.45 && s->head_share < 0.55);
        release(b, h, &c);
}

static void test_inlined_in_head_only(void **state)
{
        struct pg_profile b[PAIRS], h[PAIRS];
        struct pg_confirm_hotspots c;
        (void) state;
        pairs(b, h, "x;main 300\nx;main;step", "x;main 300\nx;main;step_[i]");
        assert_int_equal(pg_confirm_hotspots(b, h, PAIRS, 8, 0.01, 0.05, &c), 0);
        no_confirmed(&c);
        assert_non_null(find(&c, "main"));
        assert_true(find(&c, "main")->head_share < 0.55);
        release(b, h, &c);
}

/* hash_[i] is inlined on both sides and never a function: its growth is
 * main's, confirmed as before */
static void test_inlined_everywhere_is_the_caller(void **state)
{
        struct pg_profile b[PAIRS], h[PAIRS];
        struct pg_confirm_hotspots c;
        const struct pg_confirm_hotspot *m;
        (void) state;
        pairs_at(b, h, "x;aux 300\nx;main;hash_[i]", "x;aux 300\nx;main;hash_[i]", 400);
        assert_int_equal(pg_confirm_hotspots(b, h, PAIRS, 8, 0.01, 0.05, &c), 0);
        m = find(&c, "main");
        assert_non_null(m);
        assert_true(m->confirmed);
        assert_null(find(&c, "hash"));
        assert_null(find(&c, "hash_[i]"));
        release(b, h, &c);
}

/* H4: a wrapper renamed between the builds (pkgb edited) is one candidate
 * counted on both sides, and pkga's, which has its own name on both sides,
 * another (tests/compare/test_pairing.c: the pairing rule) */
static void test_one_candidate_per_key(void **state)
{
        struct pg_profile b[PAIRS], h[PAIRS];
        struct pg_confirm_hotspots c;
        const struct pg_confirm_hotspot *a, *d;
        size_t wrappers = 0;
        (void) state;
        pairs(b, h,
              "x;main 400\nx;main;pkga.Sum;_cgo_aaaaaaaaaaaa_Cfunc_w 300\n"
              "x;main;pkgb.Sum;_cgo_bbbbbbbbbbbb_Cfunc_w",
              "x;main 400\nx;main;pkga.Sum;_cgo_aaaaaaaaaaaa_Cfunc_w 400\n"
              "x;main;pkgb.Sum;_cgo_dddddddddddd_Cfunc_w");
        assert_int_equal(pg_confirm_hotspots(b, h, PAIRS, 8, 0.01, 0.05, &c), 0);
        for (size_t k = 0; k < c.n; k++)
                wrappers += strstr(c.items[k].function, "_Cfunc_w") != NULL;
        assert_int_equal(wrappers, 2);
        a = find(&c, "_cgo_aaaaaaaaaaaa_Cfunc_w");
        d = find(&c, "_cgo_dddddddddddd_Cfunc_w");
        assert_non_null(a);
        assert_non_null(d);
        assert_true(a->confirmed);
        assert_false(d->confirmed);
        /* pkgb's base share is its own (bbbb's), not new and not the sum */
        assert_true(d->base_share > 0.25 && d->base_share < 0.35);
        assert_true(a->base_share > 0.25 && a->base_share < 0.35);
        release(b, h, &c);
}

/* hot;helper_[i] and cold;helper: a namesake under another caller is no
 * flip; hot's growth is hot's */
static void test_namesake_is_not_a_flip(void **state)
{
        struct pg_profile b[PAIRS], h[PAIRS];
        struct pg_confirm_hotspots c;
        const struct pg_confirm_hotspot *hot;
        (void) state;
        pairs_at(b, h, "x;main;cold;helper 300\nx;main;hot;helper_[i]",
                 "x;main;cold;helper 300\nx;main;hot;helper_[i]", 600);
        assert_int_equal(pg_confirm_hotspots(b, h, PAIRS, 8, 0.01, 0.05, &c), 0);
        hot = find(&c, "hot");
        assert_non_null(hot);
        assert_true(hot->confirmed);
        assert_true(hot->base_share > 0.45 && hot->base_share < 0.55);
        assert_true(hot->head_share > 0.62 && hot->head_share < 0.7);
        assert_non_null(find(&c, "helper"));
        assert_false(find(&c, "helper")->confirmed);
        release(b, h, &c);
}

/* The stored comparison's table: the same rule (profile.h) */
static void test_scan_pair_moves_no_samples(void **state)
{
        struct pg_profile b, h;
        struct pg_profile_funcs f[2];
        size_t step, main_, hash;
        (void) state;
        pg_test_profile_from_folded(&b, "x;main 300\nx;main;step_[i] 300\nx;main;hash_[i] 50\n",
                                    "cpu-clock");
        pg_test_profile_from_folded(&h, "x;main 300\nx;main;step 300\nx;main;hash_[i] 50\n",
                                    "cpu-clock");
        pg_profile_funcs_scan_pair(f, &b, &h);
        assert_true(pg_strmap_find(&f[0].names, "step", 4, &step));
        assert_true(pg_strmap_find(&f[0].names, "main", 4, &main_));
        assert_true(pg_strmap_find(&f[0].names, "hash", 4, &hash));
        assert_int_equal(f[0].funcs[step].self, 300);
        assert_int_equal(f[1].funcs[step].self, 300);
        assert_int_equal(f[0].funcs[main_].self, 350); /* hash_[i] is main's */
        assert_int_equal(f[1].funcs[main_].self, 350);
        assert_int_equal(f[0].funcs[hash].self, 0);
        pg_profile_funcs_release(&f[0]);
        pg_profile_funcs_release(&f[1]);
        /* and the reverse */
        pg_profile_funcs_scan_pair(f, &h, &b);
        assert_true(pg_strmap_find(&f[0].names, "main", 4, &main_));
        assert_int_equal(f[0].funcs[main_].self, f[1].funcs[main_].self);
        pg_profile_funcs_release(&f[0]);
        pg_profile_funcs_release(&f[1]);
        pg_test_profile_free(&b);
        pg_test_profile_free(&h);
}

/* The stored comparison's table with a namesake (test_namesake_is_not_a_flip);
 * the flip is still found when its caller is inlined on one side
 * (run_[i];step_[i] vs run;step: the call site is run's by key) */
static void test_scan_pair_namesake(void **state)
{
        struct pg_profile b, h;
        struct pg_profile_funcs f[2];
        size_t hot, helper, step, run;
        (void) state;
        pg_test_profile_from_folded(&b,
                                    "x;main;cold;helper 300\nx;main;hot;helper_[i] 300\n"
                                    "x;main;run_[i];step_[i] 40\n",
                                    "cpu-clock");
        pg_test_profile_from_folded(&h,
                                    "x;main;cold;helper 300\nx;main;hot;helper_[i] 600\n"
                                    "x;main;run;step 40\n",
                                    "cpu-clock");
        for (int way = 0; way < 2; way++) {
                pg_profile_funcs_scan_pair(f, way ? &h : &b, way ? &b : &h);
                assert_true(pg_strmap_find(&f[0].names, "hot", 3, &hot));
                assert_true(pg_strmap_find(&f[0].names, "helper", 6, &helper));
                assert_true(pg_strmap_find(&f[0].names, "step", 4, &step));
                assert_true(pg_strmap_find(&f[0].names, "run", 3, &run));
                assert_int_equal(f[way].funcs[hot].self, 300);
                assert_int_equal(f[!way].funcs[hot].self, 600);
                assert_int_equal(f[0].funcs[helper].self, 300);
                assert_int_equal(f[1].funcs[helper].self, 300);
                assert_int_equal(f[0].funcs[step].self, 40);
                assert_int_equal(f[1].funcs[step].self, 40);
                pg_profile_funcs_release(&f[0]);
                pg_profile_funcs_release(&f[1]);
        }
        pg_test_profile_free(&b);
        pg_test_profile_free(&h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_inlined_in_base_only),
                cmocka_unit_test(test_inlined_in_head_only),
                cmocka_unit_test(test_inlined_everywhere_is_the_caller),
                cmocka_unit_test(test_one_candidate_per_key),
                cmocka_unit_test(test_namesake_is_not_a_flip),
                cmocka_unit_test(test_scan_pair_moves_no_samples),
                cmocka_unit_test(test_scan_pair_namesake),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
