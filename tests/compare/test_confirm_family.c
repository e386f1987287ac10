/*
 * test_confirm_family.c - the hotspot test's family (compare/confirm.h,
 * pg_confirm_hotspots): with a floor, functions whose own time in head is
 * below floor/2 of the base run cannot be a cause or gate and are not
 * tested, so Holm multiplies by the functions that can. Profiles built for
 * the case: 10 pairs; f (250 of 974 samples) grows by 2..10 samples in 8
 * pairs and shrinks in 2 (ranks 1 and 3 of the 10 changes), so its exact
 * one-sided signed-rank p is 7/1024; g (700) and six functions of 4
 * samples each (0.4%, under half of a 1% floor) stay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/confirm.h"

static void profile(struct pg_profile *p, int f)
{
        struct pg_stack s[8] = { { "w;main;f", (uint64_t) f }, { "w;main;g", 700 } };
        char names[6][16];
        uint64_t n = (uint64_t) f + 700;

        for (int k = 0; k < 6; k++) {
                snprintf(names[k], sizeof(names[k]), "w;main;k%d", k);
                s[2 + k] = (struct pg_stack){ names[k], 4 };
                n += 4;
        }
        memset(p, 0, sizeof(*p));
        p->present = true;
        p->frequency_hz = 1000;
        pg_profile_set_stacks(p, s, 8);
        p->samples = n;
}

static void run(double floor, struct pg_confirm_hotspots *h)
{
        static const int delta[10] = { -1, 2, -3, 4, 5, 6, 7, 8, 9, 10 };
        struct pg_profile base[10], head[10];

        for (int i = 0; i < 10; i++) {
                profile(&base[i], 250);
                profile(&head[i], 250 + delta[i]);
        }
        assert_int_equal(pg_confirm_hotspots(base, head, 10, 8, floor, 0.05, h), 0);
        for (int i = 0; i < 10; i++) {
                pg_profile_release(&base[i]);
                pg_profile_release(&head[i]);
        }
}

static const struct pg_confirm_hotspot *find(const struct pg_confirm_hotspots *h, const char *fn)
{
        for (size_t k = 0; k < h->n; k++)
                if (strcmp(h->items[k].function, fn) == 0)
                        return &h->items[k];
        return NULL;
}

/* Without a floor all 8 functions are tested: p x 8 = 0.055 > 0.05. */
static void test_family_without_floor(void **state)
{
        struct pg_confirm_hotspots h;
        const struct pg_confirm_hotspot *f;

        (void) state;
        run(0.0, &h);
        assert_int_equal(h.n, 8);
        assert_non_null(f = find(&h, "f"));
        assert_true(fabs(f->p_value - 7.0 / 1024) < 1e-12);
        assert_true(fabs(f->p_holm - 8 * 7.0 / 1024) < 1e-12);
        assert_false(f->confirmed);
        pg_confirm_hotspots_release(&h);
}

/* With a 1% floor only f and g can matter (4 samples < 0.5% of 974):
 * p x 2 = 0.014, f is confirmed and the cause. */
static void test_family_with_floor(void **state)
{
        struct pg_confirm_hotspots h;
        const struct pg_confirm_hotspot *f;

        (void) state;
        run(0.01, &h);
        assert_int_equal(h.n, 2);
        assert_non_null(f = find(&h, "f"));
        assert_non_null(find(&h, "g"));
        assert_true(fabs(f->p_holm - 2 * 7.0 / 1024) < 1e-12);
        assert_true(f->confirmed && f->cause);
        assert_string_equal(h.items[0].function, "f");
        pg_confirm_hotspots_release(&h);
        /* a floor of 0.8%: 4 samples reach 0.4% of 974 samples, they stay */
        run(0.008, &h);
        assert_int_equal(h.n, 8);
        pg_confirm_hotspots_release(&h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_family_without_floor),
                cmocka_unit_test(test_family_with_floor),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
