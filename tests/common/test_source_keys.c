/*
 * test_source_keys.c - common/fsutil.c's source-path helpers for line keys
 * (docs/result-format.md, "lines"): pg_path_below() gives a path's part
 * strictly below a root, on whole components only; pg_source_key_same()
 * matches a key written with a checkout's absolute path to one written
 * relative to the project's root, on whole components only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"

static void test_path_below(void **state)
{
        (void) state;
        assert_string_equal(pg_path_below("/ci/_work/proj/cpp/geo.cpp:25", "/ci/_work/proj"),
                            "cpp/geo.cpp:25");
        assert_string_equal(pg_path_below("/ci/_work/proj/cpp/geo.cpp:25", "/ci/_work/proj/"),
                            "cpp/geo.cpp:25");
        assert_string_equal(pg_path_below("/usr/include/c++/12/bits/x.h:3", "/"),
                            "usr/include/c++/12/bits/x.h:3");
        /* a sibling whose name starts like the root is not below it */
        assert_null(pg_path_below("/ci/_work/proj2/a.c:1", "/ci/_work/proj"));
        assert_null(pg_path_below("/ci/_work/proj", "/ci/_work/proj"));
        assert_null(pg_path_below("/ci/_work/proj/", "/ci/_work/proj"));
        assert_null(pg_path_below("/rustc/90743e72/library/core/src/num/mod.rs:9", "/home/dev"));
        /* relative paths or roots: nothing to strip */
        assert_null(pg_path_below("src/main.rs:3", "/home/dev/proj"));
        assert_null(pg_path_below("/home/dev/proj/a.c:1", "proj"));
        assert_null(pg_path_below("/home/dev/proj/a.c:1", ""));
}

static void test_source_key_same(void **state)
{
        (void) state;
        assert_true(pg_source_key_same("cpp/geo.cpp:25", "cpp/geo.cpp:25"));
        assert_true(pg_source_key_same("/home/dev/proj/cpp/geo.cpp:25", "cpp/geo.cpp:25"));
        assert_true(pg_source_key_same("cpp/geo.cpp:25", "/ci/_work/proj/cpp/geo.cpp:25"));
        /* whole components only, and the same line */
        assert_false(pg_source_key_same("/home/dev/proj/xcpp/geo.cpp:25", "cpp/geo.cpp:25"));
        assert_false(pg_source_key_same("/home/dev/proj/cpp/geo.cpp:25", "cpp/geo.cpp:26"));
        assert_false(pg_source_key_same("/home/dev/proj/cpp/geo.cpp:125", "geo.cpp:25"));
        /* two absolute paths of different checkouts: neither knows its root */
        assert_false(pg_source_key_same("/a/cpp/geo.cpp:25", "/b/cpp/geo.cpp:25"));
        assert_false(pg_source_key_same("cpp/geo.cpp:25", "src/geo.cpp:25"));
        assert_false(pg_source_key_same("/a/b.c:1", ""));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path_below),
                cmocka_unit_test(test_source_key_same),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
