/*
 * test_large_profile.c - the pieces that keep large profiles cheap
 * (docs/limits.md): a differential flame graph's tree built once and drawn
 * for every view gives the bytes of a fresh drawing; the tree does not
 * depend on the order of the stacks (siblings whose names sort differently
 * byte by byte than whole keys do: "a" < "a b" < "a0" < "ab"); the hottest
 * callee path walked over function ids; both profiles of a hotspot
 * comparison scanned into one name table; result stacks in perfgate's order
 * not sorted again, duplicates still refused.
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
#include "common/error.h"
#include "compare/flamegraph.h"
#include "compare/profile.h"

/* Sibling names chosen so byte order of names and of whole keys disagree. */
static const struct pg_stack pg_head[] = {
        { "prog;main;a b;x", 30 }, { "prog;main;ab;y", 5 },      { "prog;main;a;z", 20 },
        { "prog;main;a0;q", 7 },   { "prog;main;a", 40 },        { "prog;main;a;", 2 },
        { "prog;main;a;z;w", 9 },  { "prog;main;hot;loop", 60 }, { "prog;other", 3 },
        { "prog;main;a b", 4 },
};
static const struct pg_stack pg_base[] = {
        { "prog;main;ab;y", 9 },    { "prog;main;a;z", 25 }, { "prog;main;a b;x", 28 },
        { "prog;main;gone;v", 11 }, { "prog;main;a", 38 },   { "prog;main;hot;loop", 20 },
        { "prog;other", 6 },
};
#define NHEAD (sizeof(pg_head) / sizeof(pg_head[0]))
#define NBASE (sizeof(pg_base) / sizeof(pg_base[0]))

/* The views `perfgate compare` draws from one tree (cli/cmd_compare.c). */
static void pg_view(struct pg_flame_opts *o, int v)
{
        pg_flame_opts_init(o);
        o->title = "t";
        o->highlight = "loop";
        o->negate = v == 1;
        o->image = v >= 2;
        o->focus = v == 3;
        if (o->image) {
                o->width_px = 880;
                o->minwidth_px = 2.0;
        }
}

static char *pg_draw_fresh(const struct pg_stack *base, size_t nbase, const struct pg_stack *head,
                           size_t nhead, const struct pg_flame_opts *o)
{
        struct pg_buf b = PG_BUF_INIT;
        assert_int_equal(pg_flamegraph_diff_svg(&b, base, nbase, head, nhead, o), 0);
        return pg_buf_detach(&b, NULL);
}

static void test_tree_views_equal_fresh(void **state)
{
        struct pg_flame_tree *t = NULL;
        (void) state;

        assert_int_equal(pg_flame_tree_new(&t, pg_base, NBASE, pg_head, NHEAD, false), 0);
        assert_non_null(t);
        for (int v = 0; v < 4; v++) {
                struct pg_flame_opts o;
                struct pg_buf b = PG_BUF_INIT;
                char *fresh;
                pg_view(&o, v);
                fresh = pg_draw_fresh(pg_base, NBASE, pg_head, NHEAD, &o);
                /* drawn twice from the same tree: the tree is not changed */
                for (int again = 0; again < 2; again++) {
                        pg_buf_reset(&b);
                        assert_int_equal(pg_flamegraph_diff_svg_tree(&b, t, &o), 0);
                        assert_int_equal(b.len, strlen(fresh));
                        assert_memory_equal(b.ptr, fresh, b.len);
                }
                if (v < 3)
                        assert_true(b.len > 0); /* focus may draw nothing */
                free(fresh);
                pg_buf_release(&b);
        }
        pg_flame_tree_free(t);
}

static void test_tree_reverse_mismatch(void **state)
{
        struct pg_flame_tree *t = NULL;
        struct pg_flame_opts o;
        struct pg_buf b = PG_BUF_INIT;
        (void) state;

        assert_int_equal(pg_flame_tree_new(&t, pg_base, NBASE, pg_head, NHEAD, true), 0);
        pg_flame_opts_init(&o);
        assert_int_equal(pg_flamegraph_diff_svg_tree(&b, t, &o), PG_ERROR);
        assert_int_equal(b.len, 0);
        o.reverse = true;
        assert_int_equal(pg_flamegraph_diff_svg_tree(&b, t, &o), 0);
        assert_true(b.len > 0);
        pg_buf_release(&b);
        pg_flame_tree_free(t);
        pg_flame_tree_free(NULL);
}

/* Every rotation and the reversal of the inputs draw the same bytes. */
static void test_tree_order_independent(void **state)
{
        struct pg_stack h[NHEAD], bs[NBASE];
        struct pg_flame_opts o;
        char *want, *got;
        (void) state;

        pg_view(&o, 0);
        want = pg_draw_fresh(pg_base, NBASE, pg_head, NHEAD, &o);
        for (size_t r = 0; r < 2 * NHEAD; r++) {
                for (size_t i = 0; i < NHEAD; i++)
                        h[i] = pg_head[r < NHEAD ? (i + r) % NHEAD : NHEAD - 1 - (i + r) % NHEAD];
                for (size_t i = 0; i < NBASE; i++)
                        bs[i] = pg_base[(i + r) % NBASE];
                got = pg_draw_fresh(bs, NBASE, h, NHEAD, &o);
                assert_string_equal(got, want);
                free(got);
        }
        free(want);
}

/* Siblings in the drawing come in byte order of their names, whatever the
 * order of the keys: "a" (with its child "z"), "a b", "a0", "ab". */
static void test_tree_sibling_order(void **state)
{
        struct pg_flame_opts o;
        const char *names[] = { "data-n=\"a\"", "data-n=\"a b\"", "data-n=\"a0\"",
                                "data-n=\"ab\"" };
        const char *prev = NULL;
        char *svg;
        (void) state;

        pg_view(&o, 0);
        svg = pg_draw_fresh(pg_base, NBASE, pg_head, NHEAD, &o);
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                const char *at = strstr(svg, names[i]);
                assert_non_null(at);
                if (prev)
                        assert_true(at > prev);
                prev = at;
        }
        free(svg);
}

static void pg_profile_of(struct pg_profile *p, const struct pg_stack *s, size_t n)
{
        memset(p, 0, sizeof(*p));
        p->present = true;
        pg_profile_set_stacks(p, s, n);
}

static size_t pg_id(const struct pg_profile_funcs *pf, const char *name)
{
        size_t id = SIZE_MAX;
        assert_true(pg_strmap_find(&pf->names, name, strlen(name), &id));
        return id;
}

/* a: 100 samples inclusive; below it b carries 85 (50 + 30 + 5, the
 * recursive stack counted from a's outermost frame), then c 50: d (30) and
 * the recursive stack's inner a (5) lose; e (15) lost at the first step. */
static void test_callee_path_ids(void **state)
{
        static const struct pg_stack s[] = {
                { "p;main;a;b;c", 50 },    { "p;main;a;b;d", 30 }, { "p;main;a;e", 15 },
                { "p;main;x;a;b;a;c", 5 }, { "p;main;y", 7 },      { "p", 3 },
        };
        struct pg_profile p;
        struct pg_profile_funcs pf, plain;
        size_t path[4], depth;
        uint64_t weight = 0;
        bool cut = true;
        (void) state;

        pg_profile_of(&p, s, sizeof(s) / sizeof(s[0]));
        pg_profile_funcs_scan_paths(&pf, &p);
        assert_int_equal(pf.funcs[pg_id(&pf, "a")].incl, 100);
        depth = pg_profile_callee_path(&pf, &p, pg_id(&pf, "a"), 4, path, &cut, &weight);
        assert_int_equal(depth, 2);
        assert_int_equal(path[0], pg_id(&pf, "b"));
        assert_int_equal(path[1], pg_id(&pf, "c"));
        assert_int_equal(weight, 50);
        assert_false(cut);
        /* one step allowed: b, and a further step was there */
        depth = pg_profile_callee_path(&pf, &p, pg_id(&pf, "a"), 1, path, &cut, &weight);
        assert_int_equal(depth, 1);
        assert_true(cut);
        assert_int_equal(weight, 85);
        /* main (107): a 95 (x 5 and y 7 lose), b 80, c 50 */
        depth = pg_profile_callee_path(&pf, &p, pg_id(&pf, "main"), 4, path, &cut, &weight);
        assert_int_equal(depth, 3);
        assert_int_equal(path[0], pg_id(&pf, "a"));
        assert_int_equal(path[1], pg_id(&pf, "b"));
        assert_int_equal(path[2], pg_id(&pf, "c"));
        assert_int_equal(weight, 50);
        assert_false(cut);
        /* without ids there is no path */
        pg_profile_funcs_scan(&plain, &p);
        assert_null(plain.ids);
        assert_int_equal(
            pg_profile_callee_path(&plain, &p, pg_id(&plain, "a"), 4, path, &cut, &weight), 0);
        pg_profile_funcs_release(&plain);
        pg_profile_funcs_release(&pf);
        pg_profile_release(&p);
}

static void test_scan_pair_one_table(void **state)
{
        static const struct pg_stack a[] = { { "p;main;f", 3 }, { "p;main;f;k", 2 } };
        static const struct pg_stack b[] = { { "p;main;g", 4 }, { "p;main;f", 1 } };
        struct pg_profile pa, pb;
        struct pg_profile_funcs sides[2];
        size_t f, g, k;
        (void) state;

        pg_profile_of(&pa, a, 2);
        pg_profile_of(&pb, b, 2);
        pg_profile_funcs_scan_pair(sides, &pa, &pb);
        assert_int_equal(sides[0].names.n, 4); /* main, f, k from a; then g */
        assert_int_equal(sides[1].names.n, 0);
        assert_int_equal(sides[0].n, 4);
        assert_int_equal(sides[1].n, 4);
        f = pg_id(&sides[0], "f");
        g = pg_id(&sides[0], "g");
        k = pg_id(&sides[0], "k");
        assert_int_equal(g, 3);
        assert_int_equal(sides[0].funcs[f].self, 3);
        assert_int_equal(sides[0].funcs[f].incl, 5);
        assert_int_equal(sides[1].funcs[f].self, 1);
        assert_int_equal(sides[1].funcs[f].incl, 1);
        assert_int_equal(sides[0].funcs[g].incl, 0); /* absent on a side: zero */
        assert_int_equal(sides[1].funcs[g].self, 4);
        assert_int_equal(sides[1].funcs[k].incl, 0);
        assert_int_equal(sides[0].total, 5);
        assert_int_equal(sides[1].total, 5);
        pg_profile_funcs_release(&sides[0]);
        pg_profile_funcs_release(&sides[1]);
        pg_profile_release(&pa);
        pg_profile_release(&pb);
}

static char *pg_result_text(const char *stacks, unsigned samples)
{
        char *t = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&t, &n);
        fprintf(f,
                "{\"schema\": \"perfgate/result/1\", \"name\": \"b\", \"profile\": "
                "{\"event\": \"cpu-clock\", \"samples\": %u, \"stacks\": {%s}}}",
                samples, stacks);
        fclose(f);
        return t;
}

/* Sorted (as perfgate writes them) or not, the loaded stacks are sorted;
 * a duplicate is refused either way. */
static void test_load_sorted_or_not(void **state)
{
        const char *orders[] = { "\"x;a\": 1, \"x;a;b\": 2, \"x;b\": 3",
                                 "\"x;b\": 3, \"x;a;b\": 2, \"x;a\": 1" };
        const char *dups[] = { "\"x;a\": 1, \"x;a\": 2, \"x;b\": 3",
                               "\"x;b\": 3, \"x;a\": 1, \"x;a\": 2" };
        (void) state;

        for (int i = 0; i < 2; i++) {
                struct pg_result r;
                char *t = pg_result_text(orders[i], 6);
                pg_result_init(&r);
                assert_int_equal(pg_result_from_json(&r, t, strlen(t), "r.json"), 0);
                assert_int_equal(r.profile.nstacks, 3);
                assert_string_equal(r.profile.stacks[0].frames, "x;a");
                assert_string_equal(r.profile.stacks[1].frames, "x;a;b");
                assert_string_equal(r.profile.stacks[2].frames, "x;b");
                assert_int_equal(r.profile.stacks[2].count, 3);
                pg_result_release(&r);
                free(t);
        }
        for (int i = 0; i < 2; i++) {
                struct pg_result r;
                char *t = pg_result_text(dups[i], 6);
                pg_result_init(&r);
                assert_int_equal(pg_result_from_json(&r, t, strlen(t), "r.json"), PG_EINPUT);
                assert_non_null(strstr(pg_error_last(), "has a stack twice"));
                free(t);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_tree_views_equal_fresh),
                cmocka_unit_test(test_tree_reverse_mismatch),
                cmocka_unit_test(test_tree_order_independent),
                cmocka_unit_test(test_tree_sibling_order),
                cmocka_unit_test(test_callee_path_ids),
                cmocka_unit_test(test_scan_pair_one_table),
                cmocka_unit_test(test_load_sorted_or_not),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
