/*
 * test_profile_counts.c - the hottest and heaviest stack of each function
 * (compare/profile.h) with large stack counts: the scan keeps 15-bit copies
 * of the counts it compares against, and must read the stack itself when a
 * count does not fit (32767 against 32768, 5e9 against 6e9, 2^32 - 1
 * against 2^32).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "compare/profile.h"

#define PG_N(a) (sizeof(a) / sizeof((a)[0]))

static void scan(struct pg_profile_funcs *pf, struct pg_profile *p, const struct pg_stack *st,
                 size_t n)
{
        memset(p, 0, sizeof(*p));
        p->present = true;
        pg_profile_set_stacks(p, st, n);
        pg_profile_funcs_scan(pf, p);
}

static const struct pg_profile_func *func(const struct pg_profile_funcs *pf, const char *name)
{
        size_t i;
        assert_true(pg_strmap_find(&pf->names, name, strlen(name), &i));
        return &pf->funcs[i];
}

static const char *stack_of(const struct pg_profile *p, uint32_t i)
{
        return p->stacks[i].frames;
}

static void test_profile_counts_large(void **state)
{
        (void) state;
        /* stacks in sorted order: the scan meets them in this order */
        struct pg_stack st[] = {
                { "c;main;a;f", 6000000000u },   /* f's hottest: 6e9 */
                { "c;main;b;f", 5000000000u },   /* loses to 6e9 only if read exactly */
                { "c;main;d;f;g", 9000000000u }, /* heaviest holding f, f not the leaf */
                { "c;main;e;k", 4294967295u },   /* k: saturated copy, 2^32 - 1 */
                { "c;main;e;k;x", 3u },
                { "c;main;e;m", 4294967296u }, /* e's heaviest: 2^32 beats 2^32 - 1 */
        };
        struct pg_profile p;
        struct pg_profile_funcs pf;
        const struct pg_profile_func *f, *e, *mainf;

        scan(&pf, &p, st, PG_N(st));
        f = func(&pf, "f");
        /* hottest: among the stacks f is the leaf of, the one with most samples */
        assert_true(f->hot_is_self);
        assert_string_equal(stack_of(&p, f->hot_stack), "c;main;a;f");
        /* heaviest: most samples among all stacks holding f */
        assert_string_equal(stack_of(&p, f->heavy_stack), "c;main;d;f;g");
        assert_int_equal(f->heavy_end, strlen("c;main;d;f"));
        e = func(&pf, "e");
        assert_string_equal(stack_of(&p, e->heavy_stack), "c;main;e;m");
        assert_string_equal(stack_of(&p, e->hot_stack), "c;main;e;m");
        mainf = func(&pf, "main");
        assert_string_equal(stack_of(&p, mainf->heavy_stack), "c;main;d;f;g");
        assert_int_equal(mainf->incl,
                         6000000000u + 5000000000u + 9000000000u + 4294967295u + 3u + 4294967296u);
        pg_profile_funcs_release(&pf);
        pg_profile_release(&p);
}

/* Equal counts keep the first stack, also when both are saturated copies. */
static void test_profile_counts_ties(void **state)
{
        (void) state;
        struct pg_stack st[] = {
                { "c;a;f", 7000000000u }, { "c;b;f", 7000000000u }, { "c;d;f", 4294967295u },
                { "c;e;f", 4294967295u }, { "c;g;h", 32767u },      { "c;i;h", 32767u },
                { "c;j;h", 32768u },      { "c;k;h", 32766u },
        };
        struct pg_profile p;
        struct pg_profile_funcs pf;
        const struct pg_profile_func *f;

        scan(&pf, &p, st, PG_N(st));
        f = func(&pf, "f");
        assert_string_equal(stack_of(&p, f->hot_stack), "c;a;f");
        assert_string_equal(stack_of(&p, f->heavy_stack), "c;a;f");
        f = func(&pf, "h");
        assert_string_equal(stack_of(&p, f->hot_stack), "c;j;h");
        assert_string_equal(stack_of(&p, f->heavy_stack), "c;j;h");
        pg_profile_funcs_release(&pf);
        pg_profile_release(&p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_profile_counts_large),
                cmocka_unit_test(test_profile_counts_ties),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
