/*
 * test_path_names.c - the one rule for names that become tree entries of
 * the data branch (pg_path_component_why(), and through it
 * pg_result_name_why() for "<benchmark>.json" and pg_machine_name_why() for
 * machine directories): each row is a name and the rule it must break, or
 * NULL when git accepts it (git's fsck.c fsck_tree, read-cache.c
 * verify_path_internal, path.c is_ntfs_dotgit, utf8.c is_hfs_dotgit; see
 * docs/limits.md). store_data_branch pushes accepted names to a remote that
 * runs fsck.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "baselines/result.h"
#include "tests/util/cases.h"

struct name_case {
        const char *test;
        const char *name;
        const char *machine_why;   /* substring of pg_machine_name_why(), NULL: valid */
        const char *benchmark_why; /* substring of pg_result_name_why(), NULL: valid */
};

static const struct name_case cases[] = {
        { "plain", "ci-x86_64", NULL, NULL },
        { "space inside", "ci x86", NULL, NULL },
        { "backslash alone", "a\\b", NULL, NULL },
        { "tilde without digit", "x~y", NULL, NULL },
        { "tilde digit after 8 bytes", "abcdefgh~1", NULL, NULL },
        { "trailing dot is fine before .json", "v1.", "ends with '.'", NULL },
        { "trailing space is fine before .json", "v1 ", "ends with '.'", NULL },
        { "dot", ".", "starts with '.'", "starts with '.'" },
        { "dotdot", "..", "starts with '.'", "starts with '.'" },
        { "dotgit", ".git", "starts with '.'", "starts with '.'" },
        { "dotgit upper", ".GIT", "starts with '.'", "starts with '.'" },
        { "gitmodules", ".gitmodules", "starts with '.'", "starts with '.'" },
        { "gitattributes", ".gitattributes", "starts with '.'", "starts with '.'" },
        { "hidden", ".hidden", "starts with '.'", "starts with '.'" },
        { "dotgit space", ".git ", "starts with '.'", "starts with '.'" },
        { "ntfs git~1", "git~1", "NTFS short name", "NTFS short name" },
        { "ntfs GIT~1", "GIT~1", "NTFS short name", "NTFS short name" },
        { "ntfs gitmod~1", "gitmod~1", "NTFS short name", "NTFS short name" },
        { "ntfs hashed gi7eba~1", "gi7eba~1", "NTFS short name", "NTFS short name" },
        { "backslash then dotgit", "a\\.git", "right after a '\\'", "right after a '\\'" },
        { "backslash then git~1", "a\\git~1", "NTFS short name", "NTFS short name" },
        { "backslash piece ends in dot", "a.\\b", "ends with '.'", "ends with '.'" },
        { "hfs zwnj", ".g\xe2\x80\x8cit", "HFS+", "HFS+" },
        { "hfs bom at end", "x\xef\xbb\xbf", "HFS+", "HFS+" },
        { "hfs rlo", "a\xe2\x80\xae", "HFS+", "HFS+" },
        { "hfs 206f", "a\xe2\x81\xaf", "HFS+", "HFS+" },
        { "not hfs U+2010", "a\xe2\x80\x90", NULL, NULL },
        { "empty", "", "empty", "empty" },
        { "slash", "a/b", "'/'", "'/'" },
        { "control", "a\x1b", "control", "control" },
        { "bad utf8", "a\xff", "UTF-8", "UTF-8" },
};

static void check_why(const char *why, const char *want, const char *what, const char *name)
{
        if (!want) {
                if (why)
                        fail_msg("%s '%s' refused: %s", what, name, why);
                return;
        }
        if (!why)
                fail_msg("%s '%s' accepted, expected '%s'", what, name, want);
        if (!strstr(why, want))
                fail_msg("%s '%s': '%s' does not say '%s'", what, name, why, want);
}

static void test_name_case(void **state)
{
        const struct name_case *c = *state;
        check_why(pg_machine_name_why(c->name), c->machine_why, "machine", c->name);
        check_why(pg_result_name_why(c->name), c->benchmark_why, "benchmark", c->name);
        assert_int_equal(pg_result_name_valid(c->name), c->benchmark_why == NULL);
}

/* the benchmark rule is the component rule applied to "<name>.json" */
static void test_benchmark_is_component_of_file(void **state)
{
        (void) state;
        assert_null(pg_path_component_why("spin.json"));
        assert_non_null(pg_path_component_why(".hidden.json"));
        assert_non_null(pg_path_component_why("git~1.json"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_benchmark_is_component_of_file),
        };
        return pg_run_tests_and_cases(tests, PG_NELEMS(tests), test_name_case, NULL, NULL, cases,
                                      sizeof(cases[0]), PG_NELEMS(cases));
}
