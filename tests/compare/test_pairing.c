/*
 * test_pairing.c - which frames of base and head the comparison key pairs
 * (pg_frame_pairing, baselines/frame.h) and its users: the stored hotspot
 * table (pg_hotspots_compare(), compare/hotspot.h) and the paired hotspot
 * check (pg_confirm_hotspots(), compare/confirm.h), on crafted profiles of
 * a Go program whose two cgo packages pkga and pkgb each call a C function
 * of one name (so each has a wrapper _cgo_<its hash>_Cfunc_work):
 *  - both wrappers on both sides: two functions, so pkga's +15 pp with
 *    pkgb's -15 pp is a regression of pkga's wrapper, not "unchanged";
 *  - only pkgb's package edited (its hash changed): its wrapper is paired
 *    with head's new one (one name of the key on each side only), pkga's
 *    keeps its own, nothing changed;
 *  - two names of one key on one side only and one on the other: nothing
 *    to pair by (which one was renamed?), each name keys by itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "compare/confirm.h"
#include "compare/hotspot.h"
#include "compare/rules.h"
#include "tests/util/testutil.h"

#define A "_cgo_aaaaaaaaaaaa_Cfunc_work"
#define B "_cgo_bbbbbbbbbbbb_Cfunc_work"
#define D "_cgo_dddddddddddd_Cfunc_work"

/* The pg_frame_pair_key() of @name under @fp, as a string in @out. */
static const char *key_of(const struct pg_frame_pairing *fp, const char *name, char *out)
{
        char buf[128];
        size_t len;
        const char *k = pg_frame_pair_key(fp, name, strlen(name), buf, &len);

        memcpy(out, k, len);
        out[len] = '\0';
        return out;
}

static void test_rule(void **state)
{
        struct pg_frame_pairing fp = PG_FRAME_PAIRING_INIT;
        char k[128];
        (void) state;
        pg_frame_pairing_add_stack(&fp, 0, "x;main;pkga.Sum;" A ";free",
                                   strlen("x;main;pkga.Sum;" A ";free"));
        pg_frame_pairing_add_stack(&fp, 0, "x;main;pkgb.Sum;" B, strlen("x;main;pkgb.Sum;" B));
        pg_frame_pairing_add_stack(&fp, 1, "x;main;pkga.Sum;" A "_[i]",
                                   strlen("x;main;pkga.Sum;" A "_[i]"));
        pg_frame_pairing_add_stack(&fp, 1, "x;main;pkgb.Sum;" D, strlen("x;main;pkgb.Sum;" D));
        pg_frame_pairing_finish(&fp);
        /* on both sides: by itself, "_[i]" left out */
        assert_string_equal(key_of(&fp, A, k), A);
        assert_string_equal(key_of(&fp, A "_[i]", k), A);
        /* B only in base, D only in head, one each: the renamed wrapper */
        assert_string_equal(key_of(&fp, B, k), "_cgo_Cfunc_work");
        assert_string_equal(key_of(&fp, D, k), "_cgo_Cfunc_work");
        assert_true(pg_frame_pair_same(&fp, B, strlen(B), D, strlen(D)));
        assert_false(pg_frame_pair_same(&fp, A, strlen(A), D, strlen(D)));
        assert_false(pg_frame_pair_same(&fp, A, strlen(A), B, strlen(B)));
        assert_true(pg_frame_pair_same(&fp, A "_[i]", strlen(A) + 4, A, strlen(A)));
        /* frames that are no wrapper: pg_frame_key() */
        assert_string_equal(key_of(&fp, "pkga.Sum_[i]", k), "pkga.Sum");
        /* a wrapper never added keys by itself */
        assert_string_equal(key_of(&fp, "_cgo_eeeeeeeeeeee_Cfunc_work", k),
                            "_cgo_eeeeeeeeeeee_Cfunc_work");
        pg_frame_pairing_release(&fp);

        /* two names of the key only in base, one only in head: none pairs */
        pg_frame_pairing_add(&fp, 0, A, strlen(A));
        pg_frame_pairing_add(&fp, 0, B, strlen(B));
        pg_frame_pairing_add(&fp, 1, D, strlen(D));
        pg_frame_pairing_finish(&fp);
        assert_string_equal(key_of(&fp, A, k), A);
        assert_string_equal(key_of(&fp, B, k), B);
        assert_string_equal(key_of(&fp, D, k), D);
        pg_frame_pairing_release(&fp);
        /* NULL: the plain comparison key */
        assert_string_equal(key_of(NULL, D, k), "_cgo_Cfunc_work");
}

static const struct pg_hotspot *find_hot(const struct pg_hotspots *h, const char *fn)
{
        for (size_t i = 0; i < h->n; i++)
                if (strcmp(h->items[i].function, fn) == 0)
                        return &h->items[i];
        return NULL;
}

/* pg_hotspots_compare() of folded @base and @head (samples as task-clock). */
static void compare(const char *base, const char *head, struct pg_hotspots *hs)
{
        struct pg_profile b, h;
        struct pg_rules r;

        pg_rules_init(&r);
        pg_test_profile_from_folded(&b, base, "cpu-clock");
        pg_test_profile_from_folded(&h, head, "cpu-clock");
        pg_hotspots_init(hs);
        pg_hotspots_compare(&b, &h, 10000e6, 10000e6, &r.hotspots, hs);
        assert_true(hs->judged);
        pg_test_profile_free(&b);
        pg_test_profile_free(&h);
        pg_rules_release(&r);
}

/* H3: pkga +15 pp, pkgb -15 pp, hashes unchanged: not merged into one */
static void test_two_wrappers_stay_two_hotspots(void **state)
{
        struct pg_hotspots hs;
        const struct pg_hotspot *a, *b;
        (void) state;
        compare("x;main;pkga.Sum;" A " 3000\nx;main;pkgb.Sum;" B " 3000\nx;main;other 4000\n",
                "x;main;pkga.Sum;" A " 4500\nx;main;pkgb.Sum;" B " 1500\nx;main;other 4000\n", &hs);
        a = find_hot(&hs, A);
        b = find_hot(&hs, B);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(a->base_self, 3000);
        assert_int_equal(a->head_self, 4500);
        assert_true(fabs(a->delta_self_pp - 15) < 1e-9);
        assert_int_equal(a->kind, PG_HOTSPOT_REGRESSED);
        assert_int_equal(b->kind, PG_HOTSPOT_IMPROVED);
        assert_true(pg_hotspots_changed(&hs));
        pg_hotspots_release(&hs);
}

/* only pkgb edited: its wrapper is renamed B -> D and paired; pkga's is its own */
static void test_renamed_wrapper_pairs(void **state)
{
        struct pg_hotspots hs;
        const struct pg_hotspot *a, *d;
        (void) state;
        compare("x;main;pkga.Sum;" A " 3000\nx;main;pkgb.Sum;" B " 3000\nx;main;other 4000\n",
                "x;main;pkga.Sum;" A " 3000\nx;main;pkgb.Sum;" D " 3000\nx;main;other 4000\n", &hs);
        a = find_hot(&hs, A);
        d = find_hot(&hs, D); /* named as head spells it */
        assert_non_null(a);
        assert_non_null(d);
        assert_int_equal(a->base_self, 3000);
        assert_int_equal(a->head_self, 3000);
        assert_int_equal(d->base_self, 3000);
        assert_int_equal(d->head_self, 3000);
        assert_null(find_hot(&hs, B));
        assert_false(pg_hotspots_changed(&hs));
        pg_hotspots_release(&hs);
}

#define PAIRS 10

/* H4 with H3's rule: both wrappers on both sides are two candidates with
 * their own numbers; only pkga's, which grew, is confirmed */
static void test_confirm_counts_each_wrapper(void **state)
{
        struct pg_profile b[PAIRS], h[PAIRS];
        struct pg_confirm_hotspots c;
        const struct pg_confirm_hotspot *a = NULL, *w = NULL;
        (void) state;
        for (int r = 0; r < PAIRS; r++) {
                char buf[512];

                snprintf(buf, sizeof(buf),
                         "x;main 400\nx;main;pkga.Sum;" A " 300\nx;main;pkgb.Sum;" B " %d\n",
                         300 + r);
                pg_test_profile_from_folded(&b[r], buf, "cpu-clock");
                snprintf(buf, sizeof(buf),
                         "x;main 400\nx;main;pkga.Sum;" A " 400\nx;main;pkgb.Sum;" B " %d\n",
                         300 + (7 * r) % 10);
                pg_test_profile_from_folded(&h[r], buf, "cpu-clock");
        }
        assert_int_equal(pg_confirm_hotspots(b, h, PAIRS, 8, 0.01, 0.05, &c), 0);
        for (size_t k = 0; k < c.n; k++) {
                if (strcmp(c.items[k].function, A) == 0)
                        a = &c.items[k];
                if (strcmp(c.items[k].function, B) == 0)
                        w = &c.items[k];
        }
        assert_non_null(a);
        assert_non_null(w);
        assert_true(a->confirmed);
        assert_false(w->confirmed);
        /* each its own share: 300 of 1000 in base, not the sum of both */
        assert_true(a->base_share > 0.29 && a->base_share < 0.31);
        assert_true(w->base_share > 0.29 && w->base_share < 0.31);
        pg_confirm_hotspots_release(&c);
        for (int r = 0; r < PAIRS; r++) {
                pg_test_profile_free(&b[r]);
                pg_test_profile_free(&h[r]);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rule),
                cmocka_unit_test(test_two_wrappers_stay_two_hotspots),
                cmocka_unit_test(test_renamed_wrapper_pairs),
                cmocka_unit_test(test_confirm_counts_each_wrapper),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
