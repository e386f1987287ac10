/*
 * test_result_addrs.c - the optional per-function address histograms of a
 * profile ("addresses", docs/result-format.md): loaded sorted by (function,
 * module) and address with duplicates merged and per-function totals, written
 * and read back unchanged, absent in older results, and refused when
 * malformed (a key that is not hex, a count below 1, an entry without a
 * module).
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
        "\"samples\":7,\"lost\":0,\"throttled\":0,\"truncated\":0,\"runs\":1,\"kernel\":"          \
        "false,"                                                                                   \
        "\"stacks\":{\"x;main;f\":7}"

static int load(struct pg_result *r, const char *addresses)
{
        char buf[2048];

        snprintf(buf, sizeof(buf), "%s%s%s}}", HEAD, addresses ? ",\"addresses\":" : "",
                 addresses ? addresses : "");
        pg_result_init(r);
        return pg_result_from_json(r, buf, strlen(buf), "test");
}

static void test_sorted_and_merged(void **state)
{
        struct pg_result r, back;
        struct pg_buf json = PG_BUF_INIT;
        const struct pg_fn_addrs *f;

        (void) state;
        assert_int_equal(load(&r, "[{\"function\":\"g\",\"module\":\"/b\",\"counts\":{\"10\":1}},"
                                  "{\"function\":\"f\",\"module\":\"/b\",\"counts\":{\"11a8\":4,"
                                  "\"11a4\":1}},"
                                  "{\"function\":\"f\",\"module\":\"/a\",\"counts\":{\"20\":1}}]"),
                         0);
        assert_int_equal(r.profile.naddrs, 3);
        assert_string_equal(r.profile.addrs[0].function, "f");
        assert_string_equal(r.profile.addrs[0].module, "/a");
        assert_string_equal(r.profile.addrs[1].module, "/b");
        assert_int_equal(r.profile.addrs[1].n, 2);
        assert_int_equal(r.profile.addrs[1].addrs[0].addr, 0x11a4);
        assert_int_equal(r.profile.addrs[1].addrs[1].addr, 0x11a8);
        assert_int_equal(r.profile.addrs[1].samples, 5);
        /* the module with the most samples of that name */
        f = pg_profile_find_addrs(&r.profile, "f");
        assert_non_null(f);
        assert_string_equal(f->module, "/b");
        assert_null(pg_profile_find_addrs(&r.profile, "main"));
        /* written and read back unchanged */
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_non_null(strstr(json.ptr, "\"11a8\""));
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "back"), 0);
        assert_int_equal(back.profile.naddrs, 3);
        for (size_t i = 0; i < 3; i++) {
                assert_string_equal(back.profile.addrs[i].function, r.profile.addrs[i].function);
                assert_string_equal(back.profile.addrs[i].module, r.profile.addrs[i].module);
                assert_int_equal(back.profile.addrs[i].n, r.profile.addrs[i].n);
                assert_memory_equal(back.profile.addrs[i].addrs, r.profile.addrs[i].addrs,
                                    r.profile.addrs[i].n * sizeof(struct pg_addr_count));
        }
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
        assert_int_equal(r.profile.naddrs, 0);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_null(strstr(json.ptr, "addresses"));
        pg_result_release(&r);
        pg_buf_release(&json);
}

/* An off-CPU profile of 0 runs: its per-run times would divide by 0 (a
 * crafted copy once made compare report a regression against itself). */
static void test_offcpu_zero_runs(void **state)
{
        static const char *const doc =
            HEAD "},\"offcpu\":{\"event\":\"context-switches\",\"frequency_hz\":0,"
                 "\"call_graph\":\"dwarf\",\"samples\":5,\"runs\":0,"
                 "\"stacks\":{\"x;main;g\":5}}}";
        struct pg_result r;
        (void) state;
        pg_result_init(&r);
        assert_int_equal(pg_result_from_json(&r, doc, strlen(doc), "test"), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "field 'offcpu.runs' must be at least 1"));
        pg_result_release(&r);
}

static void test_malformed(void **state)
{
        static const char *const bad[] = {
                "{}",
                "[{\"function\":\"f\",\"module\":\"/a\",\"counts\":{\"xyz\":1}}]",
                "[{\"function\":\"f\",\"module\":\"/a\",\"counts\":{\"10\":0}}]",
                "[{\"function\":\"f\",\"module\":\"/a\",\"counts\":{\"10\":1.5}}]",
                "[{\"function\":\"f\",\"counts\":{\"10\":1}}]",
                "[{\"function\":\"\",\"module\":\"/a\",\"counts\":{}}]",
                /* each count allowed, their sum past 2^53 (once wrapped to a
                 * total of 0 and a share of inf%) */
                "[{\"function\":\"f\",\"module\":\"/a\",\"counts\":"
                "{\"10\":9007199254740992,\"11\":9007199254740992}}]",
        };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_result r;

                assert_int_equal(load(&r, bad[i]), PG_EINPUT);
                assert_non_null(strstr(pg_error_last(), "profile.addresses"));
                pg_result_release(&r);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sorted_and_merged),
                cmocka_unit_test(test_absent_is_fine),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_offcpu_zero_runs),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
