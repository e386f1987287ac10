/*
 * test_self_inlined.c - a sample's self counts for the innermost frame that
 * is not inlined ("_[i]"), the function whose code the address lies in, as
 * perf report --no-children charges Self (docs/show.md, docs/compare.md):
 * pg_frame_self() on kernel, JIT, inlined-only and comm-only stacks; the
 * self and inclusive counts of pg_profile_funcs_scan(); and a regression
 * spread over several inlined frames, each under the hotspot threshold,
 * judged on the function they were inlined into.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "compare/hotspot.h"
#include "compare/profile.h"
#include "compare/rules.h"
#include "tests/util/testutil.h"

/* The self frame of @stack, as a string (static buffer). */
static const char *self_of(const char *stack)
{
        static char out[256];
        size_t len, off = pg_frame_self(stack, strlen(stack), &len);

        snprintf(out, sizeof(out), "%.*s", (int) len, stack + off);
        return out;
}

static void test_frame_self(void **state)
{
        (void) state;
        assert_string_equal(self_of("t;main;mix"), "mix");
        assert_string_equal(self_of("t;main;dedup;std::_Hashtable<int>::find_[i];eq_[i]"), "dedup");
        assert_string_equal(self_of("t;main;tokenize_[i]"), "main"); /* LTO: inlined into main */
        /* kernel and JIT frames are functions of their own */
        assert_string_equal(self_of("t;main;read;ksys_read_[k]"), "ksys_read_[k]");
        assert_string_equal(self_of("t;main;run;jitted_[j]"), "jitted_[j]");
        assert_string_equal(self_of("t;main;read_[k];inl_[i]"), "read_[k]");
        /* every frame after the comm inlined: the leaf; the comm alone: itself */
        assert_string_equal(self_of("t;a_[i];b_[i]"), "b_[i]");
        assert_string_equal(self_of("t;a_[i]"), "a_[i]");
        assert_string_equal(self_of("t"), "t");
        /* "_[i]" only as a suffix; "[i]" without the underscore is no annotation */
        assert_string_equal(self_of("t;main;f_[i]x"), "f_[i]x");
        assert_string_equal(self_of("t;main;g;[i]"), "[i]");
}

static const struct pg_profile_func *func(const struct pg_profile_funcs *pf, const char *name)
{
        for (size_t i = 0; i < pf->names.n; i++)
                if (strcmp(pf->names.keys[i].ptr, name) == 0)
                        return &pf->funcs[i];
        return NULL;
}

static void test_scan_self_inlined(void **state)
{
        struct pg_profile p;
        struct pg_profile_funcs pf;
        const struct pg_profile_func *f;
        (void) state;

        pg_test_profile_from_folded(&p,
                                    "t;main;dedup;eq_[i] 70\nt;main;dedup;mod_[i];hash_[i] 50\n"
                                    "t;main;dedup 10\nt;main;dedup;mix 240\nt;main 30\n"
                                    "t;main;tok_[i] 20\nt;main;f;f_[i] 5\nt;main;f;g;f 5\n",
                                    "cpu-clock");
        pg_profile_funcs_scan(&pf, &p);
        assert_int_equal(pf.total, 430);
        f = func(&pf, "dedup");
        assert_int_equal(f->self, 130); /* 70 + 50 + 10: its own and its inlined code */
        assert_int_equal(f->incl, 370);
        assert_true(f->hot_is_self); /* its hottest stack is one it holds the self of */
        assert_int_equal(p.stacks[f->hot_stack].count, 70);
        f = func(&pf, "eq_[i]");
        assert_int_equal(f->self, 0); /* inlined frames: inclusive only */
        assert_int_equal(f->incl, 70);
        assert_int_equal(func(&pf, "hash_[i]")->self, 0);
        assert_int_equal(func(&pf, "hash_[i]")->incl, 50);
        assert_int_equal(func(&pf, "mod_[i]")->incl, 50);
        assert_int_equal(func(&pf, "mix")->self, 240);
        assert_int_equal(func(&pf, "main")->self, 50); /* 30 + tok_[i]'s 20 */
        assert_int_equal(func(&pf, "tok_[i]")->self, 0);
        /* recursion: the innermost real f holds the self, counted once per stack */
        assert_int_equal(func(&pf, "f")->self, 10);
        assert_int_equal(func(&pf, "f")->incl, 10);
        assert_int_equal(func(&pf, "g")->self, 0);
        pg_profile_funcs_release(&pf);
        pg_test_profile_free(&p);
}

static const struct pg_hotspot *find(const struct pg_hotspots *h, const char *fn)
{
        for (size_t i = 0; i < h->n; i++)
                if (strcmp(h->items[i].function, fn) == 0)
                        return &h->items[i];
        return NULL;
}

/* Four inlined frames each grow by ~1.2 pp, under the 2 pp threshold; their
 * function grows by ~4.8 pp and is the regression, with its path. */
static void test_hotspot_spread_over_inlined(void **state)
{
        struct pg_profile b, h;
        struct pg_hotspots hs;
        struct pg_rules r;
        const struct pg_hotspot *f;
        (void) state;

        pg_rules_init(&r);
        pg_test_profile_from_folded(
            &b,
            "t;main;dedup;a_[i] 500\nt;main;dedup;b_[i] 500\nt;main;dedup;c_[i] 500\n"
            "t;main;dedup;d_[i] 500\nt;main;mix 8000\n",
            "cpu-clock");
        pg_test_profile_from_folded(
            &h,
            "t;main;dedup;a_[i] 650\nt;main;dedup;b_[i] 650\nt;main;dedup;c_[i] 650\n"
            "t;main;dedup;d_[i] 650\nt;main;mix 8000\n",
            "cpu-clock");
        pg_hotspots_init(&hs);
        pg_hotspots_compare(&b, &h, 0, 0, &r.hotspots, &hs);
        assert_true(hs.judged);
        f = find(&hs, "dedup");
        assert_non_null(f);
        assert_int_equal(f->base_self, 2000);
        assert_int_equal(f->head_self, 2600);
        assert_int_equal(f->kind, PG_HOTSPOT_REGRESSED);
        assert_string_equal(f->path, "main;dedup");
        assert_string_equal(pg_hotspots_culprit(&hs), "dedup");
        f = find(&hs, "a_[i]");
        assert_true(f == NULL ||
                    (f->base_self == 0 && f->head_self == 0 && f->kind != PG_HOTSPOT_REGRESSED));
        pg_hotspots_release(&hs);
        pg_test_profile_free(&b);
        pg_test_profile_free(&h);
        pg_rules_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_frame_self),
                cmocka_unit_test(test_scan_self_inlined),
                cmocka_unit_test(test_hotspot_spread_over_inlined),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
