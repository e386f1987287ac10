/*
 * test_hashmap.c - pg_strmap: distinct keys get indexes 0, 1, 2, ... in the
 * order they were first added, equal bytes get the same index whatever the
 * caller's buffer, keys that differ only after a shared prefix, in length or
 * by an embedded NUL are distinct, and the interned copies survive growth.
 * pg_u64map: get after put, replacement, absent keys, growth. pg_strv: a copy
 * is NULL-terminated and independent of its source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/strv.h"

static void test_strmap_indexes(void **state)
{
        struct pg_strmap m = PG_STRMAP_INIT;
        char buf[64];
        bool added;
        size_t idx;

        (void) state;
        assert_false(pg_strmap_find(&m, "a", 1, &idx));
        assert_int_equal(pg_strmap_intern(&m, "main;f", 6, &added), 0);
        assert_true(added);
        assert_int_equal(pg_strmap_intern(&m, "main;g", 6, &added), 1);
        assert_true(added);
        strcpy(buf, "main;f");
        assert_int_equal(pg_strmap_intern(&m, buf, 6, &added), 0);
        assert_false(added);
        assert_int_equal(pg_strmap_intern(&m, "main;f;h", 8, NULL), 2);
        assert_int_equal(pg_strmap_intern(&m, "main", 4, NULL), 3);
        assert_int_equal(pg_strmap_intern(&m, "a\0b", 3, NULL), 4);
        assert_int_equal(pg_strmap_intern(&m, "a\0c", 3, NULL), 5);
        assert_int_equal(pg_strmap_intern(&m, "", 0, NULL), 6);
        assert_int_equal(m.n, 7);
        assert_true(pg_strmap_find(&m, "main;f;h", 8, &idx));
        assert_int_equal(idx, 2);
        assert_false(pg_strmap_find(&m, "main;", 5, &idx));
        assert_string_equal(m.keys[1].ptr, "main;g");
        assert_int_equal(m.keys[4].len, 3);
        assert_memory_equal(m.keys[5].ptr, "a\0c", 4);
        pg_strmap_release(&m);
        assert_int_equal(m.n, 0);
        assert_false(pg_strmap_find(&m, "main", 4, &idx));
}

static void test_strmap_growth(void **state)
{
        struct pg_strmap m = PG_STRMAP_INIT;
        const char *first;
        char key[600];
        size_t idx;

        (void) state;
        /* long keys sharing a 500-byte prefix, enough to grow slots and arena many times */
        memset(key, 'x', 500);
        for (int i = 0; i < 20000; i++) {
                int n = snprintf(key + 500, 100, ";%d", i);
                assert_int_equal(pg_strmap_intern(&m, key, 500 + (size_t) n, NULL), (size_t) i);
        }
        first = m.keys[0].ptr;
        for (int i = 19999; i >= 0; i--) {
                int n = snprintf(key + 500, 100, ";%d", i);
                assert_true(pg_strmap_find(&m, key, 500 + (size_t) n, &idx));
                assert_int_equal(idx, (size_t) i);
                assert_int_equal(m.keys[i].len, 500 + (size_t) n);
                assert_memory_equal(m.keys[i].ptr, key, 500 + (size_t) n + 1);
        }
        assert_ptr_equal(m.keys[0].ptr, first);
        assert_int_equal(m.n, 20000);
        pg_strmap_release(&m);
}

static void test_u64map(void **state)
{
        struct pg_u64map m = { 0 };
        uint32_t v = 0;

        (void) state;
        assert_false(pg_u64map_get(&m, 7, &v));
        for (uint64_t k = 0; k < 5000; k++)
                pg_u64map_put(&m, k * 4096, (uint32_t) k);
        pg_u64map_put(&m, 4096, 99);
        assert_int_equal(m.n, 5000);
        assert_true(pg_u64map_get(&m, 4096, &v));
        assert_int_equal(v, 99);
        assert_true(pg_u64map_get(&m, 4999 * 4096, &v));
        assert_int_equal(v, 4999);
        assert_false(pg_u64map_get(&m, 4097, &v));
        pg_u64map_release(&m);
        assert_false(pg_u64map_get(&m, 0, &v));
}

static void test_strv(void **state)
{
        char a[] = "perf", b[] = "record";
        char *src[] = { a, b, NULL };
        char **v = pg_strv_dup(src, 2), **none = pg_strv_dup(NULL, 0);

        (void) state;
        a[0] = 'X';
        assert_string_equal(v[0], "perf");
        assert_string_equal(v[1], "record");
        assert_null(v[2]);
        assert_null(none[0]);
        pg_strv_free(v);
        pg_strv_free(none);
        pg_strv_free(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strmap_indexes),
                cmocka_unit_test(test_strmap_growth),
                cmocka_unit_test(test_u64map),
                cmocka_unit_test(test_strv),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
