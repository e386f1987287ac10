/*
 * test_result.c - the result model: deterministic JSON (golden file), the
 * loader's refusals (invalid JSON with position, newer schema, NaN, values on
 * an uncounted metric), derived ratios never NaN/Inf, and UTF-8 sanitising.
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
#include "common/error.h"
#include "common/json.h"
#include "tests/util/testutil.h"

static void pg_make_sample(struct pg_result *r)
{
        static const double tc[] = { 412100000, 409800000, 415000000 };
        static const double cyc[] = { 1000, 1200, 1100 };
        static const double ins[] = { 400, 600, 440 };
        static const double cov[] = { 1, 0.632, 0.5 };
        struct pg_stack st[] = { { "parse;main;parse_request;copy_field", 812 },
                                 { "parse;main;b", 3 },
                                 { "parse;main;parse_request;copy_field", 8 } };

        pg_result_init(r);
        r->name = strdup("parse");
        r->ncommand = 2;
        r->command = calloc(2, sizeof(char *));
        r->command[0] = strdup("bench/parse");
        r->command[1] = strdup("300000");
        r->created = strdup("2026-11-29T10:00:00Z");
        r->has_git = true;
        r->git_commit = strdup("9f1c000000000000000000000000000000000000");
        r->machine = strdup("default");
        r->host.cpu = strdup("Test CPU");
        r->host.cpus = 2;
        r->host.kernel = strdup("6.18.44");
        r->host.arch = strdup("x86_64");
        r->host.virtualized = true;
        r->host.perf_event_paranoid = 2;
        r->counters = strdup("software");
        r->repeat = 3;
        r->warmup = 1;
        pg_result_add_metric(r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, 3, NULL);
        pg_result_add_metric(r, "instructions", "count", PG_METRIC_OK, ins, cov, 3, NULL);
        pg_result_add_metric(r, "cycles", "count", PG_METRIC_OK, cyc, cov, 3, NULL);
        pg_result_add_metric(r, "branches", "count", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "ENOENT");
        pg_result_derive(r);
        r->profile.present = true;
        r->profile.event = strdup("cpu-clock");
        r->profile.frequency_hz = 999;
        r->profile.call_graph = strdup("fp");
        r->profile.samples = 823;
        r->profile.runs = 1;
        pg_profile_set_stacks(&r->profile, st, 3);
}

static void test_result_json_golden(void **state)
{
        struct pg_result r;
        struct pg_buf b = PG_BUF_INIT;
        char *path, *golden;
        (void) state;

        pg_make_sample(&r);
        assert_int_equal(pg_result_to_json(&r, &b), 0);
        path = pg_xasprintf("%s/tests/golden/result-sample.json", pg_test_env("PG_SOURCE_DIR"));
        if (getenv("PG_BLESS"))
                pg_test_write(path, b.ptr); /* explicit regeneration: PG_BLESS=1 ctest */
        golden = pg_test_read(path);
        assert_string_equal(b.ptr, golden);
        free(path);
        free(golden);
        pg_buf_release(&b);
        pg_result_release(&r);
}

static void test_result_roundtrip_identical(void **state)
{
        struct pg_result r, back;
        struct pg_buf a = PG_BUF_INIT, b = PG_BUF_INIT;
        (void) state;

        pg_make_sample(&r);
        assert_int_equal(pg_result_to_json(&r, &a), 0);
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, a.ptr, a.len, "mem"), 0);
        assert_int_equal(pg_result_to_json(&back, &b), 0);
        assert_string_equal(a.ptr, b.ptr);
        assert_int_equal(back.profile.nstacks, 2);
        assert_int_equal(back.profile.stacks[1].count, 820);
        assert_int_equal(pg_result_find_metric(&back, "branches")->status, PG_METRIC_NOT_SUPPORTED);
        pg_buf_release(&a);
        pg_buf_release(&b);
        pg_result_release(&r);
        pg_result_release(&back);
}

static void test_result_derive_skips_zero_denominator(void **state)
{
        struct pg_result r;
        static const double cyc[] = { 0, 10 };
        static const double ins[] = { 5, 15 };
        static const double br[] = { 100, 200 };
        static const double bm[] = { 1, 2 };
        (void) state;

        pg_result_init(&r);
        r.name = strdup("z");
        pg_result_add_metric(&r, "cycles", "count", PG_METRIC_OK, cyc, NULL, 2, NULL);
        pg_result_add_metric(&r, "instructions", "count", PG_METRIC_OK, ins, NULL, 2, NULL);
        pg_result_add_metric(&r, "branches", "count", PG_METRIC_OK, br, NULL, 2, NULL);
        pg_result_add_metric(&r, "branch-misses", "count", PG_METRIC_OK, bm, NULL, 2, NULL);
        pg_result_add_metric(&r, "LLC-loads", "count", PG_METRIC_NOT_COUNTED, NULL, NULL, 0, NULL);
        pg_result_derive(&r);
        assert_null(pg_result_find_metric(&r, "ipc"));
        assert_null(pg_result_find_metric(&r, "LLC-miss-rate"));
        assert_non_null(pg_result_find_metric(&r, "branch-miss-rate"));
        assert_true(pg_result_find_metric(&r, "branch-miss-rate")->values[0] == 0.01);
        pg_result_release(&r);
}

static void pg_expect_refused(const char *json, const char *needle)
{
        struct pg_result r;
        pg_result_init(&r);
        assert_int_equal(pg_result_from_json(&r, json, strlen(json), "x.json"), PG_EINPUT);
        if (!strstr(pg_error_last(), needle))
                fail_msg("message '%s' lacks '%s'", pg_error_last(), needle);
        assert_null(r.name);
}

static void test_result_loader_refusals(void **state)
{
        (void) state;
        pg_expect_refused("{\"schema\": \"perfgate/result/1\",\n \"name\": }", "line 2, column 10");
        pg_expect_refused("{\"schema\": \"perfgate/result/2\", \"name\": \"a\"}",
                          "perfgate/result/2");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"x\": {\"unit\": \"ns\", \"values\": [NaN]}}}",
                          "invalid JSON");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"x\": {\"unit\": \"ns\", \"status\": \"not-supported\", \"values\": "
                          "[0]}}}",
                          "not counted");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a/b\"}",
                          "not a valid benchmark name");
        pg_expect_refused("", "empty");
        /* a key twice: cJSON would keep the first, jq and Python the last */
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"task-clock\": {\"unit\": \"ns\", \"values\": [5e9], "
                          "\"values\": [1, 2]}}}",
                          "field 'metrics.task-clock.values' appears twice");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{}, \"name\": \"b\"}",
                          "field 'name' appears twice");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\"} x", "invalid JSON");
}

/* Data no measurement can produce: negative values, units outside the four
 * base units, a "samples" total that is not the sum of the stack counts
 * (the sampler adds 1 to both per sample: runner/symbolize.c). */
static void test_result_loader_refuses_impossible(void **state)
{
        (void) state;
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"task-clock\": {\"unit\": \"ns\", \"values\": [-5, -6, -7]}}}",
                          "field 'metrics.task-clock' has a negative value (-5)");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"ipc\": {\"unit\": \"ratio\", \"values\": [1, -0.5]}}}",
                          "field 'metrics.ipc' has a negative value (-0.5)");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"task-clock\": {\"unit\": \"furlong\", \"values\": [5]}}}",
                          "field 'metrics.task-clock' has unit 'furlong'; known units: ns, count, "
                          "bytes, ratio");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": "
                          "{\"x\": {\"unit\": \"msec\", \"status\": \"not-supported\"}}}",
                          "unit 'msec'");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"profile\": "
                          "{\"event\": \"cpu-clock\", \"samples\": 5, \"stacks\": {\"a;b\": 2, "
                          "\"a;c\": 4}}}",
                          "field 'profile.samples' is 5 but the stack counts add up to 6");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"profile\": "
                          "{\"event\": \"cpu-clock\", \"samples\": 9, \"stacks\": {\"a;b\": 2}}}",
                          "field 'profile.samples' is 9 but the stack counts add up to 2");
        pg_expect_refused("{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"profile\": "
                          "{\"event\": \"cpu-clock\", \"samples\": 3}}",
                          "field 'profile.samples' is 3 but the stack counts add up to 0");
}

/* What the refusals above must not catch: a counted 0, one value (simulated
 * counts), every known unit, a consistent profile, an empty profile. */
static void test_result_loader_accepts_edges(void **state)
{
        static const char *const ok[] = {
                "{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"metrics\": {"
                "\"context-switches\": {\"unit\": \"count\", \"values\": [0, 0]}, "
                "\"instructions\": {\"unit\": \"count\", \"values\": [7]}, "
                "\"max-rss\": {\"unit\": \"bytes\", \"values\": [4096]}, "
                "\"ipc\": {\"unit\": \"ratio\", \"values\": [0.5]}, "
                "\"task-clock\": {\"unit\": \"ns\", \"values\": [-0.0, 1e300]}}}",
                "{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"profile\": "
                "{\"event\": \"cpu-clock\", \"samples\": 6, \"stacks\": {\"a;b\": 2, "
                "\"a;c\": 4}}}",
                "{\"schema\": \"perfgate/result/1\", \"name\": \"a\", \"profile\": "
                "{\"event\": \"cpu-clock\", \"samples\": 0, \"stacks\": {}}}",
        };
        (void) state;
        for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
                struct pg_result r;
                pg_result_init(&r);
                if (pg_result_from_json(&r, ok[i], strlen(ok[i]), "x.json") != 0)
                        fail_msg("case %zu refused: %s", i, pg_error_last());
                pg_result_release(&r);
        }
}

static void test_json_string_sanitising(void **state)
{
        struct pg_buf b = PG_BUF_INIT;
        (void) state;

        pg_json_write_string(&b, "a\x1b[0m\xff\"\\\t\xc3\xa9");
        assert_string_equal(b.ptr, "\"a\\u001b[0m\xef\xbf\xbd\\\"\\\\\\t\xc3\xa9\"");
        pg_buf_reset(&b);
        pg_utf8_sanitize(&b, "x\xc0\xafy", 4);
        assert_string_equal(b.ptr, "x\xef\xbf\xbd\xef\xbf\xbdy");
        pg_buf_reset(&b);
        pg_json_write_number(&b, 0.1);
        pg_buf_putc(&b, ' ');
        pg_json_write_number(&b, 1e20);
        pg_buf_putc(&b, ' ');
        pg_json_write_number(&b, 2.0 / 3.0);
        assert_string_equal(b.ptr, "0.1 1e+20 0.6666666666666666");
        pg_buf_release(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_result_json_golden),
                cmocka_unit_test(test_result_roundtrip_identical),
                cmocka_unit_test(test_result_derive_skips_zero_denominator),
                cmocka_unit_test(test_result_loader_refusals),
                cmocka_unit_test(test_result_loader_refuses_impossible),
                cmocka_unit_test(test_result_loader_accepts_edges),
                cmocka_unit_test(test_json_string_sanitising),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
