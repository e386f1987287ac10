/*
 * test_result_runs.c - the optional per-run self counts of a profile
 * ("run_samples", "run_self", docs/result-format.md): written and read back
 * unchanged, absent in older results, and refused when they do not add up
 * (a run's counts against its total, the totals against "samples"), when
 * an array has another length than "runs", or when one comes without the
 * other: compare's hotspot test divides by them.
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
#include "common/error.h"
#include "tests/util/result_json.h"

#define HEAD                                                                                       \
        PG_TEST_RESULT_JSON_HEAD                                                                   \
        ","                                                                                        \
        "\"profile\":{\"event\":\"cpu-clock\",\"frequency_hz\":999,\"call_graph\":\"fp\","         \
        "\"samples\":10,\"lost\":0,\"throttled\":0,\"truncated\":0,\"runs\":2,\"kernel\":"         \
        "false,"                                                                                   \
        "\"stacks\":{\"x;main;f\":7,\"x;main;f;g_[i]\":1,\"x;main\":2}"

static int load(struct pg_result *r, const char *runs)
{
        char buf[2048];

        snprintf(buf, sizeof(buf), "%s%s%s}}", HEAD, runs ? "," : "", runs ? runs : "");
        pg_result_init(r);
        return pg_result_from_json(r, buf, strlen(buf), "test");
}

static void test_round_trip(void **state)
{
        struct pg_result r, back;
        struct pg_buf json = PG_BUF_INIT;

        (void) state;
        assert_int_equal(load(&r, "\"run_samples\":[4,6],"
                                  "\"run_self\":{\"main\":[1,1],\"f\":[3,5]}"),
                         0);
        assert_int_equal(r.profile.nrun_self, 2);
        assert_string_equal(r.profile.run_self[0].function, "f"); /* sorted */
        assert_int_equal(r.profile.run_self[0].counts[1], 5);
        assert_int_equal(r.profile.run_samples[0], 4);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "back"), 0);
        assert_int_equal(back.profile.nrun_self, 2);
        assert_string_equal(back.profile.run_self[1].function, "main");
        assert_int_equal(back.profile.run_self[1].counts[0], 1);
        assert_int_equal(back.profile.run_samples[1], 6);
        pg_result_release(&back);
        pg_result_release(&r);
        pg_buf_release(&json);
}

static void test_absent_is_fine(void **state)
{
        struct pg_result r;
        struct pg_buf json = PG_BUF_INIT;

        (void) state;
        assert_int_equal(load(&r, NULL), 0);
        assert_null(r.profile.run_samples);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_null(strstr(json.ptr, "run_s"));
        pg_result_release(&r);
        pg_buf_release(&json);
}

static void test_malformed(void **state)
{
        static const struct {
                const char *runs, *why;
        } bad[] = {
                { "\"run_samples\":[4,6]", "without the other" },
                { "\"run_self\":{\"f\":[3,5]}", "without the other" },
                { "\"run_samples\":[4,6,0],\"run_self\":{\"f\":[4,6,0]}", "'runs'" },
                { "\"run_samples\":[4,5],\"run_self\":{\"f\":[4,5]}", "add up to 'samples'" },
                { "\"run_samples\":[4,6],\"run_self\":{\"f\":[3,5]}", "in every run" },
                { "\"run_samples\":[4,6],\"run_self\":{\"f\":[4]}", "'runs'" },
                { "\"run_samples\":[4,6],\"run_self\":{\"f\":[4,-6]}", "'runs'" },
                { "\"run_samples\":[4,6],\"run_self\":{\"\":[4,6]}", "'runs'" },
                { "\"run_samples\":[4,6],\"run_self\":[4,6]", "must be an object" },
        };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_result r;

                assert_int_equal(load(&r, bad[i].runs), PG_EINPUT);
                if (!strstr(pg_error_last(), "profile.run_") ||
                    !strstr(pg_error_last(), bad[i].why))
                        fail_msg("%s: %s", bad[i].runs, pg_error_last());
                pg_result_release(&r);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_absent_is_fine),
                cmocka_unit_test(test_malformed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
