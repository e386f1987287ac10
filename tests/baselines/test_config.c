/*
 * test_config.c - perfgate.json: comments, defaults, path resolution
 * relative to the file's directory, the "base" and "compare" sections handed
 * out, and every refusal (invalid JSON with line and column, wrong shapes
 * named by their JSON path, duplicate names, unknown keys at any level, a
 * benchmark's "compare", missing file).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baselines/config.h"
#include "common/error.h"
#include "tests/util/testutil.h"

static const char pg_good[] =
    "// perfgate.json of the bench directory\n"
    "{\n"
    "  /* defaults for every benchmark */\n"
    "  \"defaults\": {\"repeat\": 7, \"timeout\": 30, \"env\": {\"A\": \"1\"}},\n"
    "  \"benchmarks\": [\n"
    "    {\"name\": \"parse\", \"argv\": [\"./parse\", \"300000\"], \"warmup\": 2,\n"
    "     \"env\": {\"LANG\": \"C\"}},\n"
    "    {\"argv\": [\"sort\", \"-n\"], \"cwd\": \"data\", \"repeat\": 3, \"timeout\": 0},\n"
    "    {\"name\": \"abs\", \"argv\": [\"/bin/true\"], \"cwd\": \"/tmp\"}\n"
    "  ],\n"
    "  \"compare\": {\"base\": \"main\", \"metrics\": {\"ipc\": {\"threshold\": 0.02}}},\n"
    "  \"base\": \"origin/main\"\n"
    "}\n";

static void test_config_parse_good(void **state)
{
        struct pg_config c;
        const struct pg_config_bench *b;
        const cJSON *cmp;
        (void) state;

        assert_int_equal(pg_config_parse(&c, pg_good, strlen(pg_good), "bench/perfgate.json"), 0);
        assert_string_equal(c.dir, "bench");
        assert_int_equal(c.nbench, 3);
        b = pg_config_find(&c, "parse");
        assert_non_null(b);
        assert_int_equal(b->argc, 2);
        assert_string_equal(b->argv[0], "bench/parse"); /* relative to the file */
        assert_string_equal(b->argv[1], "300000");
        assert_null(b->argv[2]);
        assert_int_equal(b->repeat, -1); /* unset: the defaults apply */
        assert_int_equal(b->warmup, 2);
        assert_int_equal(b->nenv, 1);
        assert_string_equal(b->env[0], "LANG=C");
        /* name defaults to argv[0]'s base name; a bare program name is not a path */
        b = pg_config_find(&c, "sort");
        assert_non_null(b);
        assert_string_equal(b->argv[0], "sort");
        assert_string_equal(b->cwd, "bench/data");
        assert_int_equal(b->repeat, 3);
        assert_true(b->timeout_sec == 0);
        b = pg_config_find(&c, "abs");
        assert_string_equal(b->argv[0], "/bin/true");
        assert_string_equal(b->cwd, "/tmp");
        assert_true(b->timeout_sec < 0);
        assert_int_equal(c.defaults.repeat, 7);
        assert_true(c.defaults.timeout_sec == 30);
        assert_string_equal(c.defaults.env[0], "A=1");
        cmp = pg_config_compare(&c);
        assert_non_null(cmp);
        assert_string_equal(cJSON_GetObjectItem(cmp, "base")->valuestring, "main");
        assert_string_equal(c.base, "origin/main");
        assert_null(pg_config_find(&c, "nope"));
        pg_config_release(&c);
        assert_int_equal(c.nbench, 0);
}

static void test_config_bare_file_name_dir(void **state)
{
        struct pg_config c;
        const char *t = "{\"benchmarks\": [{\"argv\": [\"./x\"]}]}";
        (void) state;
        assert_int_equal(pg_config_parse(&c, t, strlen(t), "perfgate.json"), 0);
        assert_string_equal(c.dir, ".");
        assert_string_equal(c.bench[0].argv[0], "./x");
        assert_string_equal(c.bench[0].name, "x");
        assert_null(pg_config_compare(&c));
        pg_config_release(&c);
}

static void test_config_dot_paths(void **state)
{
        struct pg_config c;
        const char *t = "{\"benchmarks\": [{\"name\": \"a\", \"argv\": [\"././x/y\"], "
                        "\"cwd\": \".\"}, {\"name\": \"b\", \"argv\": [\"../up\"], "
                        "\"cwd\": \"./sub\"}]}";
        (void) state;
        assert_int_equal(pg_config_parse(&c, t, strlen(t), "/srv/b/perfgate.json"), 0);
        assert_string_equal(c.dir, "/srv/b");
        assert_string_equal(c.bench[0].argv[0], "/srv/b/x/y");
        assert_string_equal(c.bench[0].cwd, "/srv/b");
        assert_string_equal(c.bench[1].argv[0], "/srv/b/../up");
        assert_string_equal(c.bench[1].cwd, "/srv/b/sub");
        pg_config_release(&c);
        assert_int_equal(pg_config_parse(&c, t, strlen(t), "/perfgate.json"), 0);
        assert_string_equal(c.dir, "/");
        assert_string_equal(c.bench[0].argv[0], "/x/y");
        pg_config_release(&c);
}

static void pg_expect_error(const char *text, int code, const char *want1, const char *want2)
{
        struct pg_config c;
        int error = pg_config_parse(&c, text, strlen(text), "dir/perfgate.json");
        if (error != code)
                fail_msg("expected %d, got %d (%s) for %s", code, error, pg_error_last(), text);
        if (want1 && !strstr(pg_error_last(), want1))
                fail_msg("'%s' not in '%s'", want1, pg_error_last());
        if (want2 && !strstr(pg_error_last(), want2))
                fail_msg("'%s' not in '%s'", want2, pg_error_last());
        assert_int_equal(c.nbench, 0);
        assert_null(c.root);
}

static void test_config_refusals(void **state)
{
        (void) state;
        /* invalid JSON: line and column */
        pg_expect_error("{\n  \"benchmarks\": [\n    {\"argv\": [\"a\"],}\n  ]\n}\n", PG_EINPUT,
                        "'dir/perfgate.json'", "line 3, column");
        pg_expect_error("[]", PG_EINPUT, "top level", "must be an object");
        pg_expect_error("{}", PG_EINPUT, "benchmarks", "must be an array");
        pg_expect_error("{\"benchmarks\": [1]}", PG_EINPUT, "benchmarks[0]", "must be an object");
        pg_expect_error("{\"benchmarks\": [{\"name\": \"a\"}]}", PG_EINPUT, "benchmarks[0].argv",
                        "non-empty array of strings");
        pg_expect_error("{\"benchmarks\": [{\"argv\": []}]}", PG_EINPUT, "benchmarks[0].argv",
                        NULL);
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\", 3]}]}", PG_EINPUT,
                        "benchmarks[0].argv", NULL);
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"repeat\": 1.5}]}", PG_EINPUT,
                        "benchmarks[0].repeat", "whole number");
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"repeat\": 0}]}", PG_EINPUT,
                        "benchmarks[0].repeat", "from 1 to 1000000");
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"warmup\": -1}]}", PG_EINPUT,
                        "benchmarks[0].warmup", NULL);
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"timeout\": \"5\"}]}", PG_EINPUT,
                        "benchmarks[0].timeout", "seconds");
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"env\": {\"X\": 1}}]}", PG_EINPUT,
                        "benchmarks[0].env.X", NULL);
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"env\": []}]}", PG_EINPUT,
                        "benchmarks[0].env", NULL);
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"cwd\": 1}]}", PG_EINPUT,
                        "benchmarks[0].cwd", NULL);
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"name\": \"x/y\"}]}", PG_EINPUT,
                        "'x/y'", "not a valid benchmark name");
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"a\"], \"repaet\": 3}]}", PG_EINPUT,
                        "unknown key 'repaet'", "benchmarks[0]");
        pg_expect_error("{\"benchmarks\": [], \"defaults\": {\"name\": \"x\"}}", PG_EINPUT,
                        "unknown key 'name' in defaults", NULL);
        pg_expect_error("{\"benchmarks\": [], \"defaults\": 3}", PG_EINPUT, "defaults",
                        "must be an object");
        pg_expect_error("{\"benchmarks\": [], \"compare\": 3}", PG_EINPUT, "compare",
                        "must be an object");
        pg_expect_error("{\"benchmarks\": [{\"argv\": [\"./a\"]}, {\"argv\": [\"b/a\"]}]}",
                        PG_EINPUT, "both named 'a'", NULL);
        /* one rule for every command: unknown keys are refused at the top level too,
         * and per-benchmark rules are pointed to where compare reads them */
        pg_expect_error("{\"benchmarks\": [], \"store\": {}}", PG_EINPUT,
                        "'dir/perfgate.json': unknown top-level key 'store'",
                        "known keys: base, benchmarks, build, compare, defaults");
        pg_expect_error("{\"benchmarks\": [{\"name\": \"p\", \"argv\": [\"a\"], \"compare\": {}}]}",
                        PG_EINPUT, "benchmarks[0].compare is not read by 'perfgate compare'",
                        "compare.benchmarks.p");
        pg_expect_error("{\"benchmarks\": [], \"defaults\": {\"compare\": {}}}", PG_EINPUT,
                        "unknown key 'compare' in defaults", NULL);
        pg_expect_error("{\"benchmarks\": [], \"base\": 3}", PG_EINPUT, "\"base\" must be a string",
                        NULL);
        pg_expect_error("{\"benchmarks\": [], \"build\": [\"make\"]}", PG_EINPUT,
                        "\"build\" must be a string", NULL);
        pg_expect_error("{\"benchmarks\": [], \"build\": \"\"}", PG_EINPUT,
                        "\"build\" must be a string", NULL);
}

/* compare needs no "benchmarks"; the same keys are refused either way. */
static void test_config_settings_only(void **state)
{
        static const char text[] = "{\"base\": \"v1\", \"compare\": {\"alpha\": 0.01}}";
        static const char typo[] = "{\"comapre\": {}}";
        struct pg_config c;
        (void) state;
        assert_int_equal(
            pg_config_parse_for(&c, text, strlen(text), "p.json", PG_CONFIG_NEED_SETTINGS), 0);
        assert_string_equal(c.base, "v1");
        assert_non_null(cJSON_GetObjectItem(c.compare, "alpha"));
        assert_int_equal(c.nbench, 0);
        pg_config_release(&c);
        assert_int_equal(pg_config_parse(&c, text, strlen(text), "p.json"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "benchmarks must be an array"));
        assert_int_equal(
            pg_config_parse_for(&c, typo, strlen(typo), "p.json", PG_CONFIG_NEED_SETTINGS),
            PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "unknown top-level key 'comapre'"));
}

static void test_config_load_missing_and_file(void **state)
{
        struct pg_config c;
        (void) state;
        pg_test_sandbox();
        assert_int_equal(pg_config_load(&c, "nope/perfgate.json"), PG_ENOTFOUND);
        pg_test_write("p.json", "{\"benchmarks\": [{\"argv\": [\"/bin/true\"]}]}\n");
        assert_int_equal(pg_config_load(&c, "p.json"), 0);
        assert_string_equal(c.bench[0].name, "true");
        pg_config_release(&c);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_config_parse_good),
                cmocka_unit_test(test_config_bare_file_name_dir),
                cmocka_unit_test(test_config_dot_paths),
                cmocka_unit_test(test_config_refusals),
                cmocka_unit_test(test_config_settings_only),
                cmocka_unit_test(test_config_load_missing_and_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
