/*
 * test_hotspot_verdict.c - pg_hotspots_compare_verdict() keeps exactly the
 * items of pg_hotspots_compare() that reports list or that
 * pg_hotspots_mark_grew() may pick, with the same figures and order; and a
 * function that grew on its own time gets the heaviest stack of head that
 * holds it as its path (not the hottest stack it is the leaf of).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "compare/hotspot.h"
#include "compare/rules.h"

/* A sampled profile of the @n stacks @st (comm first, root first). */
static void pg_stacks_profile(struct pg_profile *p, const struct pg_stack *st, size_t n)
{
        memset(p, 0, sizeof(*p));
        p->present = true;
        p->event = strdup("cpu-clock");
        for (size_t i = 0; i < n; i++)
                p->samples += st[i].count;
        pg_profile_set_stacks(p, st, n);
}

#define PG_N(a) (sizeof(a) / sizeof((a)[0]))

static bool pg_kept(const struct pg_hotspot *h, uint64_t min_samples)
{
        if (pg_hotspot_kind_listed(h->kind))
                return true;
        return (h->kind == PG_HOTSPOT_UNCHANGED || h->kind == PG_HOTSPOT_SHIFTED) &&
               h->head_self >= min_samples;
}

static void pg_same_item(const struct pg_hotspot *a, const struct pg_hotspot *b)
{
        assert_string_equal(a->function, b->function);
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->base_self, b->base_self);
        assert_int_equal(a->head_self, b->head_self);
        assert_int_equal(a->base_incl, b->base_incl);
        assert_int_equal(a->head_incl, b->head_incl);
        assert_true(a->p_value == b->p_value);
        assert_true(a->delta_self_pp == b->delta_self_pp);
        assert_true(a->self_time_ms == b->self_time_ms);
        if (a->path || b->path) {
                assert_non_null(a->path);
                assert_non_null(b->path);
                assert_string_equal(a->path, b->path);
        }
}

static void test_verdict_items_are_the_used_subset(void **state)
{
        struct pg_profile b, h;
        struct pg_hotspots all, kept;
        struct pg_rules r;
        size_t k = 0, dropped = 0, unchanged_kept = 0;
        bool tiny = false;
        (void) state;

        pg_rules_init(&r);
        {
                const struct pg_stack bs[] = {
                        { "app;main;steady", 4000 },  { "app;main;grows", 1000 },
                        { "app;main;shrinks", 3000 }, { "app;main;gone", 500 },
                        { "app;main;noisy", 30 },     { "app;main;wee", 3 },
                        { "app;main;small", 10 },     { "app;main;lib;deep", 40 },
                };
                const struct pg_stack hs[] = {
                        { "app;main;steady", 4000 },  { "app;main;grows", 3000 },
                        { "app;main;shrinks", 1000 }, { "app;main;fresh", 600 },
                        { "app;main;noisy", 45 },     { "app;main;wee", 5 },
                        { "app;main;small", 10 },     { "app;main;lib;deep", 40 },
                        { "app;main;blip", 2 },
                };
                pg_stacks_profile(&b, bs, PG_N(bs));
                pg_stacks_profile(&h, hs, PG_N(hs));
        }
        pg_hotspots_init(&all);
        pg_hotspots_init(&kept);
        pg_hotspots_compare(&b, &h, 1e9, 1.1e9, &r.hotspots, &all);
        pg_hotspots_compare_verdict(&b, &h, 1e9, 1.1e9, &r.hotspots, &kept);
        assert_true(all.judged && kept.judged);
        assert_int_equal(all.base_total, kept.base_total);
        assert_int_equal(all.head_total, kept.head_total);
        for (size_t i = 0; i < all.n; i++) {
                if (!pg_kept(&all.items[i], r.hotspots.min_samples)) {
                        dropped++;
                        tiny |= all.items[i].kind == PG_HOTSPOT_TINY;
                        continue;
                }
                unchanged_kept += all.items[i].kind == PG_HOTSPOT_UNCHANGED;
                assert_true(k < kept.n);
                pg_same_item(&all.items[i], &kept.items[k++]);
        }
        assert_int_equal(k, kept.n);
        /* the profile has functions of each sort: dropped (tiny, unchanged
         * and small), listed, and unchanged ones mark_grew may pick */
        assert_true(tiny);
        assert_true(dropped >= 3);
        assert_true(unchanged_kept >= 2); /* main, steady, lib, deep */
        assert_string_equal(pg_hotspots_culprit(&kept), pg_hotspots_culprit(&all));
        assert_true(pg_hotspots_changed(&kept) == pg_hotspots_changed(&all));
        pg_hotspots_release(&all);
        pg_hotspots_release(&kept);
        pg_profile_release(&b);
        pg_profile_release(&h);
        pg_rules_release(&r);
}

/* big is the leaf of three 500-sample stacks and sits under x in one of
 * 800: its own time holds most of the growth; its path is the 800 stack
 * cut after it (the heaviest holding it), as for a function found by
 * walking head's stacks. */
static void test_verdict_grew_path_is_heaviest_stack(void **state)
{
        const struct pg_stack st[] = { { "app;main;big", 500 },
                                       { "app;main;y;big", 500 },
                                       { "app;main;z;big", 500 },
                                       { "app;main;x;big;child", 800 } };
        struct pg_profile b, h;
        struct pg_hotspots hs[2];
        struct pg_rules r;
        (void) state;

        pg_rules_init(&r);
        pg_stacks_profile(&b, st, PG_N(st));
        pg_stacks_profile(&h, st, PG_N(st));
        for (int v = 0; v < 2; v++) {
                const struct pg_hotspot *g = NULL;

                pg_hotspots_init(&hs[v]);
                if (v)
                        pg_hotspots_compare_verdict(&b, &h, 1e9, 1.6e9, &r.hotspots, &hs[v]);
                else
                        pg_hotspots_compare(&b, &h, 1e9, 1.6e9, &r.hotspots, &hs[v]);
                assert_null(pg_hotspots_culprit(&hs[v]));
                pg_hotspots_mark_grew(&hs[v], &h, 1e9, 1.6e9, &r.hotspots);
                for (size_t i = 0; i < hs[v].n; i++)
                        if (hs[v].items[i].kind == PG_HOTSPOT_GREW)
                                g = &hs[v].items[i];
                assert_non_null(g);
                assert_string_equal(g->function, "big");
                assert_non_null(g->path);
                assert_string_equal(g->path, "main;x;big");
                assert_string_equal(pg_hotspots_culprit(&hs[v]), "big");
                /* paired runs that clear the regression take the name back
                 * (compare --confirm): big is what its share made it */
                pg_hotspots_unmark_grew(&hs[v]);
                for (size_t i = 0; i < hs[v].n; i++)
                        assert_int_not_equal(hs[v].items[i].kind, PG_HOTSPOT_GREW);
                assert_null(pg_hotspots_culprit(&hs[v]));
                pg_hotspots_release(&hs[v]);
        }
        pg_profile_release(&b);
        pg_profile_release(&h);
        pg_rules_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_verdict_items_are_the_used_subset),
                cmocka_unit_test(test_verdict_grew_path_is_heaviest_stack),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
