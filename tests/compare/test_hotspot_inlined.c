/*
 * test_hotspot_inlined.c - "grew most at" for code inlined from another
 * file (docs/compare.md, Hotspots; profile.addresses[].inlined in
 * docs/result-format.md): the line that grew is the call site in the
 * function's own file, named with the inlined function and its line, also
 * against a baseline that ran no inlined code (profile.inline_sites); a
 * baseline without "inlined" (an older perfgate) makes both sides use the
 * inlined lines themselves; the loader refuses "inlined" entries that give a
 * line more samples than it has, or a line it does not have, and writes
 * them back unchanged.
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
#include "common/buf.h"
#include "common/error.h"
#include "compare/hotspot.h"
#include "compare/rules.h"
#include "tests/util/result_json.h"

#define STD "/usr/src/rustc/library/core/src/num/uint_macros.rs"

/* A result whose profile has @self samples of lib::fnv_hash (the rest in
 * main) and @addresses (JSON array text). */
static int load(struct pg_result *r, unsigned self, unsigned rest, const char *addresses)
{
        char buf[4096];

        snprintf(buf, sizeof(buf),
                 "%s,\"profile\":{\"event\":\"cpu-clock\",\"frequency_hz\":999,"
                 "\"call_graph\":\"fp\",\"samples\":%u,\"lost\":0,\"throttled\":0,"
                 "\"truncated\":0,\"runs\":1,\"kernel\":false,"
                 "\"stacks\":{\"x;main;lib::fnv_hash\":%u,\"x;main\":%u},\"addresses\":%s}}",
                 PG_TEST_RESULT_JSON_HEAD, self + rest, self, rest, addresses);
        pg_result_init(r);
        return pg_result_from_json(r, buf, strlen(buf), "test");
}

/* fnv_hash's addresses: @own samples at lib.rs:7 (its own code) and @inl at
 * STD:212, of which @at9 inlined at lib.rs:9 (rotate_left) when @with
 * ("inlined" recorded). */
static char *addrs(unsigned own, unsigned inl, unsigned at9, bool with)
{
        char *a = pg_xasprintf(
            "[{\"function\":\"lib::fnv_hash\",\"module\":\"/b\",\"counts\":{\"10\":%u,\"20\":%u},"
            "\"lines\":{\"/src/lib.rs:7\":%u,\"" STD ":212\":%u}",
            own, inl, own, inl);
        char *s = with ? pg_xasprintf("%s,\"inlined\":[{\"site\":\"/src/lib.rs:9\",\"function\":"
                                      "\"core::num::<impl u64>::rotate_left\",\"line\":\"" STD
                                      ":212\",\"samples\":%u}]}]",
                                      a, at9)
                       : pg_xasprintf("%s}]", a);

        free(a);
        return s;
}

static void compare(struct pg_result *b, struct pg_result *h, struct pg_hotspots *hs)
{
        struct pg_rules r;

        pg_rules_init(&r);
        pg_hotspots_init(hs);
        pg_hotspots_compare(&b->profile, &h->profile, 100e6, 200e6, &r.hotspots, hs);
        pg_rules_release(&r);
}

static const struct pg_hotspot *fnv(const struct pg_hotspots *hs)
{
        for (size_t i = 0; i < hs->n; i++)
                if (strcmp(hs->items[i].function, "lib::fnv_hash") == 0)
                        return &hs->items[i];
        return NULL;
}

/* Compare a base of fnv_hash (200 own, 100 inlined samples, "inlined"
 * recorded when @base_with) with a head of @own own and @inl inlined ones,
 * 1000 samples each side; its line that grew most must be @line (+@pp),
 * with @callee (or none). */
static void check(bool base_with, unsigned own, unsigned inl, const char *line, double pp,
                  const char *callee)
{
        struct pg_result b, h;
        struct pg_hotspots hs;
        const struct pg_hotspot *f;
        char *ab = addrs(200, 100, 100, base_with), *ah = addrs(own, inl, inl, true);

        assert_int_equal(load(&b, 300, 700, ab), 0);
        assert_int_equal(load(&h, own + inl, 1000 - own - inl, ah), 0);
        compare(&b, &h, &hs);
        f = fnv(&hs);
        assert_non_null(f);
        assert_int_equal(f->kind, PG_HOTSPOT_REGRESSED);
        assert_string_equal(f->line, line);
        assert_true(f->line_delta_pp > pp - 0.01 && f->line_delta_pp < pp + 0.01);
        if (callee) {
                assert_string_equal(f->line_callee, callee);
                assert_string_equal(f->line_callee_at, STD ":212");
        } else {
                assert_null(f->line_callee);
        }
        pg_hotspots_release(&hs);
        pg_result_release(&b);
        pg_result_release(&h);
        free(ab);
        free(ah);
}

/* head's growth is in rotate_left inlined at lib.rs:9: that line is named
 * (600/1000 - 100/1000), with the inlined function and its line */
static void test_site_named(void **state)
{
        (void) state;
        check(true, 200, 600, "/src/lib.rs:9", 50, "core::num::<impl u64>::rotate_left");
}

/* the function's own line grew more than the inlined code: named alone */
static void test_own_line(void **state)
{
        (void) state;
        check(true, 700, 150, "/src/lib.rs:7", 50, NULL);
}

/* A head of fnv_hash with @own samples of lib.rs:9's own instructions and
 * @inl of rotate_left inlined there, against a base of 100 own samples
 * there, 1000 samples each side: lib.rs:9 grew (@own + @inl - 100 per
 * mille), and rotate_left is named only when it holds at least half of
 * that growth. */
static void check_own_site(unsigned own, unsigned inl, const char *callee)
{
        struct pg_result b, h;
        struct pg_hotspots hs;
        const struct pg_hotspot *f;
        char *ah = pg_xasprintf(
            "[{\"function\":\"lib::fnv_hash\",\"module\":\"/b\",\"counts\":{\"10\":%u,"
            "\"20\":%u},\"lines\":{\"/src/lib.rs:9\":%u,\"" STD ":212\":%u},\"inlined\":"
            "[{\"site\":\"/src/lib.rs:9\",\"function\":\"core::num::<impl u64>::rotate_left\","
            "\"line\":\"" STD ":212\",\"samples\":%u}]}],\"inline_sites\":true",
            own, inl, own, inl, inl);

        assert_int_equal(load(&b, 100, 900,
                              "[{\"function\":\"lib::fnv_hash\",\"module\":\"/b\","
                              "\"counts\":{\"10\":100},\"lines\":{\"/src/lib.rs:9\":100}}],"
                              "\"inline_sites\":true"),
                         0);
        assert_int_equal(load(&h, own + inl, 1000 - own - inl, ah), 0);
        compare(&b, &h, &hs);
        f = fnv(&hs);
        assert_non_null(f);
        assert_string_equal(f->line, "/src/lib.rs:9");
        if (callee)
                assert_string_equal(f->line_callee, callee);
        else
                assert_null(f->line_callee);
        pg_hotspots_release(&hs);
        pg_result_release(&b);
        pg_result_release(&h);
        free(ah);
}

/* the call site's own instructions hold the growth (a CPU's skid put the
 * rotate's samples on the next instruction, of lib.rs:9 itself, as perf
 * and addr2line -i show for Rust's fnv_hash): the inlined function's 1
 * sample of 500 more is not named, nor are 240 of them; 260 of them,
 * more than half, are */
static void test_site_own_code(void **state)
{
        (void) state;
        check_own_site(599, 1, NULL);
        check_own_site(360, 240, NULL);
        check_own_site(340, 260, "core::num::<impl u64>::rotate_left");
}

/* a baseline without "inlined" (older perfgate): both sides by the inlined
 * line itself, no callee named */
static void test_old_baseline(void **state)
{
        (void) state;
        check(false, 200, 600, STD ":212", 50, NULL);
}

/* a baseline in which no inlined code ran, written by a perfgate that looks
 * for call sites (profile.inline_sites): the head's inlined samples count
 * for their call site, as when the base had some; the flag is written back */
static void test_base_without_inlined_code(void **state)
{
        struct pg_result b, h, back;
        struct pg_hotspots hs;
        struct pg_buf json = PG_BUF_INIT;
        const struct pg_hotspot *f;
        char *ah = addrs(200, 600, 600, true);

        (void) state;
        assert_int_equal(load(&b, 200, 800,
                              "[{\"function\":\"lib::fnv_hash\",\"module\":\"/b\","
                              "\"counts\":{\"10\":200},\"lines\":{\"/src/lib.rs:7\":200}}],"
                              "\"inline_sites\":true"),
                         0);
        assert_true(b.profile.inline_sites);
        assert_int_equal(load(&h, 800, 200, ah), 0);
        compare(&b, &h, &hs);
        f = fnv(&hs);
        assert_non_null(f);
        assert_string_equal(f->line, "/src/lib.rs:9");
        assert_true(f->line_delta_pp > 59.99 && f->line_delta_pp < 60.01);
        assert_string_equal(f->line_callee, "core::num::<impl u64>::rotate_left");
        assert_int_equal(pg_result_to_json(&b, &json), 0);
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "back"), 0);
        assert_true(back.profile.inline_sites);
        pg_result_release(&back);
        pg_buf_release(&json);
        pg_hotspots_release(&hs);
        pg_result_release(&b);
        pg_result_release(&h);
        free(ah);
}

/* written and read back unchanged; merged when repeated */
static void test_round_trip(void **state)
{
        struct pg_result r, back;
        struct pg_buf json = PG_BUF_INIT;
        char *a = addrs(5, 7, 3, true);
        const struct pg_fn_addrs *f;

        (void) state;
        assert_int_equal(load(&r, 12, 1, a), 0);
        f = pg_profile_find_addrs(&r.profile, "lib::fnv_hash");
        assert_int_equal(f->ninlined, 1);
        assert_int_equal(f->inlined[0].count, 3);
        assert_int_equal(pg_result_to_json(&r, &json), 0);
        assert_non_null(strstr(json.ptr, "\"inlined\""));
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "back"), 0);
        f = pg_profile_find_addrs(&back.profile, "lib::fnv_hash");
        assert_int_equal(f->ninlined, 1);
        assert_string_equal(f->inlined[0].site, "/src/lib.rs:9");
        assert_string_equal(f->inlined[0].function, "core::num::<impl u64>::rotate_left");
        assert_string_equal(f->inlined[0].line, STD ":212");
        assert_int_equal(f->inlined[0].count, 3);
        pg_result_release(&back);
        pg_result_release(&r);
        pg_buf_release(&json);
        free(a);
}

/* more inlined samples than the line has, a line it does not have, a bad
 * entry: refused */
static void test_refused(void **state)
{
        struct pg_result r;
        char *a = addrs(5, 7, 8, true);
        static const char *const bad[] = {
                "[{\"function\":\"f\",\"module\":\"/b\",\"counts\":{\"10\":2},\"lines\":{\"/"
                "a.c:1\":2},"
                "\"inlined\":[{\"site\":\"/a.c:3\",\"function\":\"g\",\"line\":\"/"
                "h.h:1\",\"samples\":1}]}]",
                "[{\"function\":\"f\",\"module\":\"/b\",\"counts\":{\"10\":2},\"lines\":{\"/"
                "a.c:1\":2},"
                "\"inlined\":[{\"site\":\"/a.c:3\",\"function\":\"g\",\"line\":\"/"
                "a.c:1\",\"samples\":0}]}]",
                "[{\"function\":\"f\",\"module\":\"/b\",\"counts\":{\"10\":2},\"lines\":{\"/"
                "a.c:1\":2},"
                "\"inlined\":{}}]",
                "[{\"function\":\"f\",\"module\":\"/b\",\"counts\":{\"10\":2},\"lines\":{\"/"
                "a.c:1\":2},"
                "\"inlined\":[{\"function\":\"g\",\"line\":\"/a.c:1\",\"samples\":1}]}]",
        };

        (void) state;
        assert_int_equal(load(&r, 12, 1, a), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "inlined"));
        pg_result_release(&r);
        free(a);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(load(&r, 2, 1, bad[i]), PG_EINPUT);
                assert_non_null(strstr(pg_error_last(), "inlined"));
                pg_result_release(&r);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_site_named),
                cmocka_unit_test(test_own_line),
                cmocka_unit_test(test_site_own_code),
                cmocka_unit_test(test_old_baseline),
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_base_without_inlined_code),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
