/*
 * test_flame_share_veto.c - the own-time colours of a differential flame
 * graph (docs/diff.md) do not paint a frame against its self share: a frame
 * whose share fell by more than the noise floor while its own time rose
 * (head's batch ran 2x slower on a loaded machine) is white, not red, and
 * the mirror (share grew, own time fell) is white, not blue; an untouched
 * frame beside a regression stays white; shares moving the same way as own
 * time, or the other way by less than the floor, keep their colour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/flamegraph.h"

/* The fill of the first frame named @name in @svg, as "r,g,b" (static). */
static const char *fill_of(const char *svg, const char *name)
{
        static char rgb[32];
        char key[128];
        const char *g, *f;

        snprintf(key, sizeof(key), "data-n=\"%s\"", name);
        g = strstr(svg, key);
        assert_non_null(g);
        f = strstr(g, "fill=\"rgb(");
        assert_non_null(f);
        f += strlen("fill=\"rgb(");
        snprintf(rgb, sizeof(rgb), "%.*s", (int) strcspn(f, ")"), f);
        return rgb;
}

/* Draw base -> head (2 stacks each) with own-time colours and a 1 pp floor
 * (as compare --flamegraph-dir draws them with the default hotspot rule). */
static void draw(struct pg_buf *out, const struct pg_stack *base, const struct pg_stack *head,
                 double base_time, double head_time)
{
        struct pg_flame_opts o;

        pg_flame_opts_init(&o);
        o.base_time = base_time;
        o.head_time = head_time;
        o.noise_floor = 0.01;
        pg_buf_reset(out);
        assert_int_equal(pg_flamegraph_diff_svg(out, base, 2, head, 2, &o), 0);
}

static void test_share_fell_not_red(void **state)
{
        /* main's self share 37.24% -> 24.71% (-12.53 pp), task-clock 2x: its
         * own time reads +6.09% of head's time */
        struct pg_stack base[] = { { "app;main", 3724 }, { "app;main;mix", 6276 } };
        struct pg_stack head[] = { { "app;main", 2471 }, { "app;main;mix", 7529 } };
        struct pg_buf out = PG_BUF_INIT;
        (void) state;

        draw(&out, base, head, 1000, 2000);
        assert_string_equal(fill_of(out.ptr, "main"), "255,255,255");
        assert_non_null(strstr(out.ptr, "main (10,000 samples, 100.00%; +6.09%)")); /* data kept */
        assert_string_equal(fill_of(out.ptr, "mix"), "255,0,0"); /* both grew: red */
        /* the mirror: share grew, the head batch ran faster, own time fell */
        draw(&out, head, base, 2000, 1000);
        assert_string_equal(fill_of(out.ptr, "main"), "255,255,255");
        pg_buf_release(&out);
}

static void test_agreeing_moves_keep_colour(void **state)
{
        /* a real improvement while another frame regressed: share and own
         * time both fell: blue */
        struct pg_stack base[] = { { "app;memmove", 695 }, { "app;mix", 9305 } };
        struct pg_stack head[] = { { "app;memmove", 176 }, { "app;mix", 9824 } };
        /* most of the run gets slower: its share moves by less than the
         * floor (95.0% -> 94.5%), its own time grows: red */
        struct pg_stack b2[] = { { "app;hot", 9500 }, { "app;io", 500 } };
        struct pg_stack h2[] = { { "app;hot", 9450 }, { "app;io", 550 } };
        /* untouched beside a regression: own time 560 -> 560 ms: white */
        struct pg_stack b3[] = { { "app;other", 560 }, { "app;grew", 420 } };
        struct pg_stack h3[] = { { "app;other", 560 }, { "app;grew", 840 } };
        struct pg_buf out = PG_BUF_INIT;
        (void) state;

        draw(&out, base, head, 1000, 2400);
        {
                int r, g, b;

                assert_int_equal(sscanf(fill_of(out.ptr, "memmove"), "%d,%d,%d", &r, &g, &b), 3);
                assert_true(b == 255 && r == g && r < 255); /* blue, lighter than the strongest */
        }
        draw(&out, b2, h2, 1000, 1500);
        assert_string_equal(fill_of(out.ptr, "hot"), "255,0,0");
        draw(&out, b3, h3, 980, 1400);
        assert_string_equal(fill_of(out.ptr, "other"), "255,255,255");
        assert_string_equal(fill_of(out.ptr, "grew"), "255,0,0");
        pg_buf_release(&out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_share_fell_not_red),
                cmocka_unit_test(test_agreeing_moves_keep_colour),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
