/*
 * test_flame_order.c - a flame graph does not depend on the order of its
 * stacks. Stacks in strcmp() order are merged into the prefix tree without
 * an index, and any key out of that order hands the tree built so far to
 * the (parent, name) index; both must give the same tree. The keys here
 * use names that are prefixes of each other followed by bytes below and
 * above ';' ("a", "a!", "a0", "ab"), so that strcmp() order visits a frame,
 * its extensions, and then the frame again with callees ("x;a", "x;a!;q",
 * "x;a;z"). Each SVG (differential, baseline shape, single profile) drawn
 * from sorted, shuffled, descending and half-sorted inputs must be the same
 * bytes, and the sorted one must hold every distinct frame path once.
 * A tree drawn many times (it keeps what one drawing finds for the next)
 * draws what a fresh tree draws.
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
#include "compare/flamegraph.h"

#define PG_N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const names[] = { "a",  "a!", "a!b", "a0",  "a00",      "a-",
                                     "ab", "b",  "",    "a b", "\xc3\xa9", "a\x7f" };

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next_rand(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return (uint32_t) (rng >> 16);
}

/* @n random keys "x;N1;...;Nd" (d 1..4), counts 0..5, some keys twice. */
static struct pg_stack *random_stacks(size_t n)
{
        struct pg_stack *st = calloc(n, sizeof(*st));
        assert_non_null(st);
        for (size_t i = 0; i < n; i++) {
                char key[128] = "x";
                size_t depth = 1 + next_rand() % 4;
                if (i > 0 && next_rand() % 10 == 0) { /* a duplicate key: merged */
                        st[i].frames = strdup(st[next_rand() % i].frames);
                } else {
                        for (size_t d = 0; d < depth; d++) {
                                strcat(key, ";");
                                strcat(key, names[next_rand() % PG_N(names)]);
                        }
                        st[i].frames = strdup(key);
                }
                assert_non_null(st[i].frames);
                st[i].count = next_rand() % 6;
        }
        return st;
}

static int key_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_stack *) a)->frames, ((const struct pg_stack *) b)->frames);
}

static int key_cmp_desc(const void *a, const void *b)
{
        return -key_cmp(a, b);
}

static void shuffle(struct pg_stack *st, size_t n)
{
        for (size_t i = n; i > 1; i--) {
                size_t j = next_rand() % i;
                struct pg_stack t = st[i - 1];
                st[i - 1] = st[j];
                st[j] = t;
        }
}

/* The three drawings of one pair, concatenated. */
static char *draw(const struct pg_stack *base, size_t nbase, const struct pg_stack *head,
                  size_t nhead)
{
        struct pg_buf out = PG_BUF_INIT;
        struct pg_flame_opts o;

        pg_flame_opts_init(&o);
        o.minwidth_px = 0; /* draw every frame */
        o.max_depth = 64;
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, nbase, head, nhead, &o), 0);
        o.negate = true;
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, nbase, head, nhead, &o), 0);
        pg_flame_opts_init(&o);
        o.minwidth_px = 0;
        assert_int_equal(pg_flamegraph_svg(&out, head, nhead, &o), 0);
        /* the shared tree draws the same bytes */
        struct pg_flame_tree *t = NULL;
        struct pg_buf again = PG_BUF_INIT;
        pg_flame_opts_init(&o);
        o.minwidth_px = 0;
        o.max_depth = 64;
        assert_int_equal(pg_flame_tree_new(&t, base, nbase, head, nhead, false), 0);
        assert_int_equal(pg_flamegraph_diff_svg_tree(&again, t, &o), 0);
        assert_true(again.len > 0 && again.len <= out.len);
        assert_memory_equal(again.ptr, out.ptr, again.len);
        pg_flame_tree_free(t);
        pg_buf_release(&again);
        return out.ptr;
}

/* Frames (rect elements with a data-n name) in @svg. */
static size_t count_frames(const char *svg, const char *needle)
{
        size_t n = 0;
        for (const char *p = strstr(svg, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

static void free_stacks(struct pg_stack *st, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(st[i].frames);
        free(st);
}

/* The revisit case by hand: "x;a" is left for "a!" and "a0" and comes back. */
static void test_flame_order_revisit(void **state)
{
        (void) state;
        struct pg_stack sorted[] = { { "x;a", 3 },    { "x;a!;q", 2 }, { "x;a0", 1 },
                                     { "x;a0;k", 4 }, { "x;a;y", 5 },  { "x;a;z", 6 } };
        struct pg_stack mixed[PG_N(sorted)];
        char *s1, *s2;

        for (size_t i = 1; i < PG_N(sorted); i++)
                assert_true(strcmp(sorted[i - 1].frames, sorted[i].frames) < 0);
        for (size_t i = 0; i < PG_N(sorted); i++)
                mixed[i] = sorted[PG_N(sorted) - 1 - i];
        s1 = draw(sorted, PG_N(sorted), sorted, PG_N(sorted));
        s2 = draw(mixed, PG_N(mixed), mixed, PG_N(mixed));
        assert_string_equal(s1, s2);
        /* one frame "a" (x;a), whose callees y and z sit in it: the first
         * graph of s1 names a, a!, a0, q, k, y, z once each */
        const char *end = strstr(s1, "</svg>");
        assert_non_null(end);
        char *first = strndup(s1, (size_t) (end - s1));
        assert_int_equal(count_frames(first, "data-n=\"a\""), 1);
        assert_int_equal(count_frames(first, "data-n=\"a0\""), 1);
        assert_int_equal(count_frames(first, "data-n=\"y\""), 1);
        assert_int_equal(count_frames(first, "data-n=\"z\""), 1);
        free(first);
        free(s1);
        free(s2);
}

static void test_flame_order_random(void **state)
{
        (void) state;
        for (int round = 0; round < 40; round++) {
                size_t nh = 1 + next_rand() % 300, nb = 1 + next_rand() % 300;
                struct pg_stack *h = random_stacks(nh), *b = random_stacks(nb);
                char *ref, *got;

                h[0].count = b[0].count = 1; /* both hold samples */
                qsort(h, nh, sizeof(*h), key_cmp);
                qsort(b, nb, sizeof(*b), key_cmp);
                ref = draw(b, nb, h, nh); /* in order throughout: no index */
                shuffle(h, nh);
                got = draw(b, nb, h, nh); /* head out of order, base sorted */
                assert_string_equal(got, ref);
                free(got);
                shuffle(b, nb);
                got = draw(b, nb, h, nh);
                assert_string_equal(got, ref);
                free(got);
                qsort(h, nh, sizeof(*h), key_cmp_desc);
                qsort(b, nb, sizeof(*b), key_cmp_desc);
                got = draw(b, nb, h, nh);
                assert_string_equal(got, ref);
                free(got);
                /* sorted, then out of order halfway */
                qsort(h, nh, sizeof(*h), key_cmp);
                qsort(b, nb, sizeof(*b), key_cmp);
                shuffle(h + nh / 2, nh - nh / 2);
                got = draw(b, nb, h, nh);
                assert_string_equal(got, ref);
                free(got);
                free(ref);
                free_stacks(h, nh);
                free_stacks(b, nb);
        }
}

/* One tree drawn many times (highlights changing, both shapes, focus)
 * gives the bytes of a tree built for each drawing. */
static void test_flame_order_tree_reuse(void **state)
{
        (void) state;
        static const char *const hl[] = { "a", "a0", "a", "q", "a!", NULL, "a0", "nowhere" };
        size_t nh = 400, nb = 350;
        struct pg_stack *h = random_stacks(nh), *b = random_stacks(nb);
        struct pg_flame_tree *t = NULL;

        h[0].count = b[0].count = 1;
        qsort(h, nh, sizeof(*h), key_cmp);
        assert_int_equal(pg_flame_tree_new(&t, b, nb, h, nh, false), 0);
        for (size_t i = 0; i < 3 * PG_N(hl); i++) {
                struct pg_buf once = PG_BUF_INIT, reused = PG_BUF_INIT;
                struct pg_flame_opts o;
                pg_flame_opts_init(&o);
                o.highlight = hl[i % PG_N(hl)];
                o.negate = (i / PG_N(hl)) % 2 == 1;
                o.focus = i / PG_N(hl) == 2 && o.highlight;
                o.image = i % 3 == 0;
                assert_int_equal(pg_flamegraph_diff_svg(&once, b, nb, h, nh, &o), 0);
                assert_int_equal(pg_flamegraph_diff_svg_tree(&reused, t, &o), 0);
                assert_int_equal(reused.len, once.len);
                if (once.len)
                        assert_memory_equal(reused.ptr, once.ptr, once.len);
                pg_buf_release(&once);
                pg_buf_release(&reused);
        }
        pg_flame_tree_free(t);
        free_stacks(h, nh);
        free_stacks(b, nb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_flame_order_revisit),
                cmocka_unit_test(test_flame_order_random),
                cmocka_unit_test(test_flame_order_tree_reuse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
