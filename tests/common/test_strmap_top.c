/*
 * test_strmap_top.c - pg_strmap_top (common/hashmap.h): the keys with the
 * largest counts, largest first, ties by key, zero counts never chosen,
 * fewer than asked when fewer have counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/hashmap.h"

static void test_top(void **state)
{
        static const char *const keys[] = { "m", "b", "z", "a", "zero" };
        static const uint64_t counts[] = { 5, 9, 5, 5, 0 };
        struct pg_strmap m = PG_STRMAP_INIT;
        size_t out[5];

        (void) state;
        for (size_t i = 0; i < 5; i++)
                assert_int_equal(pg_strmap_intern(&m, keys[i], strlen(keys[i]), NULL), i);
        assert_int_equal(pg_strmap_top(&m, counts, 3, out), 3);
        assert_string_equal(m.keys[out[0]].ptr, "b");
        assert_string_equal(m.keys[out[1]].ptr, "a"); /* 5s by name: a, m, z */
        assert_string_equal(m.keys[out[2]].ptr, "m");
        assert_int_equal(pg_strmap_top(&m, counts, 5, out), 4); /* "zero" never */
        assert_string_equal(m.keys[out[3]].ptr, "z");
        assert_int_equal(pg_strmap_top(&m, counts, 0, out), 0);
        pg_strmap_release(&m);
        assert_int_equal(pg_strmap_top(&m, counts, 3, out), 0); /* empty map */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_top),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
