/*
 * test_result_stacks_text.c - a result file's profile.stacks read straight
 * from the text (pg_result_load) gives what the whole-tree path gives
 * (pg_result_from_json of the same bytes): the same result, or the same
 * error message, with the same line, column and byte for invalid JSON.
 * The cases are the plain shape perfgate writes and every way a file may
 * leave it (escapes, other number forms, duplicates, syntax errors before,
 * inside and after the stacks, keys that only cJSON's C-string compare
 * matches).
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
#include "tests/util/testutil.h"

#define HEAD                                                                                       \
        "{\"schema\": \"perfgate/result/1\", \"name\": \"big\", \"command\": [\"x\", \"-n\"],\n"   \
        " \"machine\": \"default\", \"counters\": \"software\", \"repeat\": 3,\n"                  \
        " \"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": [1e8, 1.001e8, "            \
        "100200000]}},\n"

struct pg_case {
        const char *name;
        const char *text;
};

/* Load @text both ways and require the same outcome. Returns the outcome's
 * error code (0: loaded). */
static int pg_both_ways(const char *name, const char *text, size_t len, char **json_out)
{
        char path[4096];
        struct pg_result a, b;
        struct pg_buf ja = PG_BUF_INIT, jb = PG_BUF_INIT;
        char *msg_a = NULL;
        FILE *f;
        int ea, eb;

        snprintf(path, sizeof(path), "%s/r.json", pg_test_sandbox());
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(text, 1, len, f), len);
        assert_int_equal(fclose(f), 0);

        pg_result_init(&a);
        pg_result_init(&b);
        ea = pg_result_load(&a, path);
        if (ea < 0)
                msg_a = strdup(pg_error_last());
        eb = pg_result_from_json(&b, text, len, path);
        if (ea != eb)
                fail_msg("%s: file load gave %d (%s), text load %d (%s)", name, ea,
                         msg_a ? msg_a : "ok", eb, eb < 0 ? pg_error_last() : "ok");
        if (ea < 0) {
                if (strcmp(msg_a, pg_error_last()) != 0)
                        fail_msg("%s: messages differ:\n  file: %s\n  text: %s", name, msg_a,
                                 pg_error_last());
        } else {
                assert_int_equal(pg_result_to_json(&a, &ja), 0);
                assert_int_equal(pg_result_to_json(&b, &jb), 0);
                if (ja.len != jb.len || memcmp(ja.ptr, jb.ptr, ja.len) != 0)
                        fail_msg("%s: results differ:\n%.*s\n----\n%.*s", name, (int) ja.len,
                                 ja.ptr, (int) jb.len, jb.ptr);
                assert_int_equal(a.profile.nstacks, b.profile.nstacks);
                if (json_out)
                        *json_out = strndup(ja.ptr, ja.len);
        }
        free(msg_a);
        pg_buf_release(&ja);
        pg_buf_release(&jb);
        pg_result_release(&a);
        pg_result_release(&b);
        return ea;
}

static void test_stacks_text_cases(void **state)
{
        static const struct pg_case cases[] = {
                { "plain",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 6, \"stacks\": {\n"
                       "   \"x;main;a\": 1,\n   \"x;main;b\": 2,\n   \"x;main;b;c\": 3\n  }}}\n" },
                { "unsorted, tabs, CRLF",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 6, \"stacks\": {\r\n"
                       "\t\"x;main;b;c\" :3 ,\r\n\t\"x;main;a\":1,\"x;main;b\":\t2}}}\r\n" },
                { "stacks before the other fields, addresses after",
                  HEAD " \"profile\": {\"stacks\": {\"x;m;f\": 4, \"x;m\": 1}, \"event\": "
                       "\"cpu-clock\", \"samples\": 5, \"addresses\": [{\"function\": \"f\", "
                       "\"module\": \"m\", \"counts\": {\"401000\": 4}}]}}" },
                { "a stack twice",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 3, \"stacks\": {"
                       "\"x;a\": 1, \"x;b\": 1, \"x;a\": 1}}}" },
                { "count 0",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;a\": 1, \"x;b\": 0}}}" },
                { "count 1.0 and 2e0",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 3, \"stacks\": {"
                       "\"x;a\": 1.0, \"x;b\": 2e0}}}" },
                { "count with a leading zero",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 8, \"stacks\": {"
                       "\"x;a\": 08}}}" },
                { "15 digits",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 999999999999999, "
                       "\"stacks\": {\"x;a\": 999999999999999}}}" },
                { "16 digits beyond 2^53",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 9007199254740993, "
                       "\"stacks\": {\"x;a\": 9007199254740993}}}" },
                { "negative and string counts",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;a\": -1, \"x;b\": \"2\"}}}" },
                { "escaped key",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 3, \"stacks\": {"
                       "\"x;a\\u003bb\": 1, \"x;\\\"q\\\"\": 2}}}" },
                { "UTF-8 and invalid UTF-8 keys",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 3, \"stacks\": {"
                       "\"x;caf\xc3\xa9\": 1, \"x;bad\xff\xfe\": 2}}}" },
                { "UTF-8 key, then a count of 0",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;caf\xc3\xa9\": 1, \"x;b\": 0}}}" },
                { "empty key",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"\": 1}}}" },
                { "control character in a key",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;\x01\": 1}}}" },
                { "no stacks", HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 0, "
                                    "\"stacks\": {}}}" },
                { "stacks an array",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 0, "
                       "\"stacks\": [1]}}" },
                { "trailing comma in the stacks",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {\n"
                       "\"x;a\": 1,\n}}}" },
                { "syntax error before the stacks",
                  HEAD " \"host\": {\"cpus\": 2,, \"arch\": \"x\"},\n \"profile\": {\"event\": "
                       "\"cpu-clock\", \"samples\": 1, \"stacks\": {\"x;a\": 1}}}" },
                { "syntax error after the stacks (line and column)", HEAD
                  " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 3, \"stacks\": {\n"
                  "   \"x;a\": 1,\n   \"x;b\": 2\n  }},\n \"offcpu\": {\"runs\": 1 \"x\": 2}}\n" },
                { "garbage after the object",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;a\": 1}}}\n  x" },
                { "unterminated",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;a\": 1" },
                { "samples not the sum",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 9, \"stacks\": {"
                       "\"x;a\": 1, \"x;b\": 2}}}" },
                { "two profiles: the first counts",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;first\": 1}},\n \"profile\": {\"event\": \"cpu-clock\", \"samples\": "
                       "2, \"stacks\": {\"x;second\": 2}}}" },
                { "two stacks objects: the first counts",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": {"
                       "\"x;first\": 1}, \"stacks\": {\"x;second\": 2}}}" },
                { "an escaped key that reads \"profile\" comes first", HEAD
                  " \"pro\\u0066ile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": "
                  "{\"x;escaped\": 1}},\n \"profile\": {\"event\": \"cpu-clock\", \"samples\": "
                  "2, \"stacks\": {\"x;plain\": 2}}}" },
                { "an escaped key that reads \"stacks\" comes first",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 1, \"st\\u0061cks\": "
                       "{\"x;escaped\": 1}, \"stacks\": {\"x;plain\": 2}}}" },
                { "a null profile", HEAD " \"profile\": null}" },
                { "offcpu stacks", HEAD " \"offcpu\": {\"event\": \"offcpu\", \"runs\": 1, "
                                        "\"samples\": 5, \"stacks\": {\"x;sleep\": 5}}}" },
                { "no profile", HEAD " \"repeat\": 3}" },
                /* the scan sorts the keys it reads: a bad one sends the file
                 * to cJSON, which names the first in the file's order */
                { "empty frames, the first in the file sorts last",
                  HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": 4, \"stacks\": {"
                       "\"x;a\": 1, \"x;b;;c\": 1, \"x;;a\": 1, \"x;c\": 1}}}" },
        };
        char *json = NULL;
        (void) state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                pg_both_ways(cases[i].name, cases[i].text, strlen(cases[i].text), NULL);

        /* the outcomes themselves: the plain case loaded, sorted */
        assert_int_equal(pg_both_ways("plain again", cases[1].text, strlen(cases[1].text), &json),
                         0);
        assert_non_null(strstr(json, "\"x;main;a\": 1,\n      \"x;main;b\": 2,\n      "
                                     "\"x;main;b;c\": 3"));
        free(json);
        /* errors where they are expected, with positions */
        assert_true(pg_both_ways("dup", cases[3].text, strlen(cases[3].text), NULL) < 0);
        assert_non_null(strstr(pg_error_last(), "has a stack twice"));
        assert_true(pg_both_ways("after", cases[19].text, strlen(cases[19].text), NULL) < 0);
        assert_non_null(strstr(pg_error_last(), "invalid JSON at line 8, column 23 (byte 326)"));
        assert_true(pg_both_ways("empty frames", cases[30].text, strlen(cases[30].text), NULL) < 0);
        assert_non_null(strstr(pg_error_last(), "has an empty frame: 'x;b;;c'"));
}

/* A key holding a NUL byte: cJSON compares it as the C string "profile",
 * so it is the profile; the scan must not take the later one. */
static void test_stacks_text_nul_in_key(void **state)
{
        static const char text[] =
            HEAD " \"profile\0x\": {\"event\": \"cpu-clock\", \"samples\": 1, \"stacks\": "
                 "{\"x;nul\": 1}},\n \"profile\": {\"event\": \"cpu-clock\", \"samples\": 2, "
                 "\"stacks\": {\"x;plain\": 2}}}";
        char *json = NULL;
        (void) state;

        if (pg_both_ways("NUL in a key", text, sizeof(text) - 1, &json) == 0) {
                assert_null(strstr(json, "x;plain"));
                free(json);
        }
}

/* Many stacks in the generator's (unsorted) order: the same result. */
static void test_stacks_text_many(void **state)
{
        struct pg_buf t = PG_BUF_INIT;
        uint64_t total = 0;
        (void) state;

        for (int i = 0; i < 5000; i++)
                total += 1 + (uint64_t) (i % 7);
        pg_buf_printf(&t,
                      HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": %llu, "
                           "\"stacks\": {\n",
                      (unsigned long long) total);
        for (int i = 0; i < 5000; i++)
                pg_buf_printf(&t, "   \"x;main;mod_%d;fn_%d;leaf_%d\": %d%s\n", i % 100, i % 17, i,
                              1 + i % 7, i + 1 < 5000 ? "," : "");
        pg_buf_puts(&t, "  }}}\n");
        assert_int_equal(pg_both_ways("5000 stacks", t.ptr, t.len, NULL), 0);
        pg_buf_release(&t);
}

/* The loader's sort: bytewise (strcmp) order, unsigned bytes, keys that
 * are prefixes of others, lengths around the 8-byte chunks, runs long
 * enough for the radix passes (>= 1024) and short ones; a duplicate in a
 * long run is still found. */
static void test_stacks_text_sort_order(void **state)
{
        static const char *const tricky[] = {
                "x;a",
                "x;a;b",
                "x;ab",
                "x;a;b;c",
                "x;\xc3\xa9",
                "x;z",
                "x;Z",
                "x;abcdefgh",
                "x;abcdefg",
                "x;abcdefghi",
                "x;abcdefghijklm",
                "x;abcdefghijklmn",
                "x;abcdefghijklmno",
                "x;b",
                "x;\x7f",
                "y",
                "x",
                "x;~",
                "x;a;a",
                "x;a!b",
        };
        struct pg_buf t = PG_BUF_INIT;
        char path[4096];
        struct pg_result r;
        size_t n = sizeof(tricky) / sizeof(tricky[0]), total = 0;
        (void) state;

        for (int dup = 0; dup < 2; dup++) {
                pg_buf_reset(&t);
                total = 0;
                for (size_t i = 0; i < n; i++)
                        total += i + 1;
                for (int i = 0; i < 3000; i++)
                        total += 1 + (size_t) (i % 5);
                total += dup ? 1 : 0;
                pg_buf_printf(&t,
                              HEAD " \"profile\": {\"event\": \"cpu-clock\", \"samples\": "
                                   "%zu, \"stacks\": {\n",
                              total);
                /* descending with a stride, so no run arrives in order */
                for (int i = 2999; i >= 0; i--)
                        pg_buf_printf(&t, "\"app;main;loop_%d;fn_%d;leaf\": %d,\n", (i * 7) % 3000,
                                      i % 13, 1 + i % 5);
                if (dup)
                        pg_buf_puts(&t, "\"app;main;loop_0;fn_0;leaf\": 1,\n");
                for (size_t i = n; i-- > 0;)
                        pg_buf_printf(&t, "\"%s\": %zu%s\n", tricky[i], i + 1, i ? "," : "");
                pg_buf_puts(&t, "}}}\n");
                snprintf(path, sizeof(path), "%s/sort.json", pg_test_sandbox());
                pg_test_write(path, t.ptr);
                pg_result_init(&r);
                if (dup) {
                        assert_true(pg_result_load(&r, path) < 0);
                        assert_non_null(strstr(pg_error_last(), "has a stack twice"));
                        continue;
                }
                if (pg_result_load(&r, path) < 0)
                        fail_msg("%s", pg_error_last());
                assert_int_equal(r.profile.nstacks, 3000 + n);
                for (size_t i = 1; i < r.profile.nstacks; i++)
                        if (strcmp(r.profile.stacks[i - 1].frames, r.profile.stacks[i].frames) >= 0)
                                fail_msg("out of order at %zu: '%s' before '%s'", i,
                                         r.profile.stacks[i - 1].frames,
                                         r.profile.stacks[i].frames);
                pg_result_release(&r);
        }
        pg_buf_release(&t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stacks_text_cases),
                cmocka_unit_test(test_stacks_text_nul_in_key),
                cmocka_unit_test(test_stacks_text_many),
                cmocka_unit_test(test_stacks_text_sort_order),
        };
        int rc = cmocka_run_group_tests(tests, NULL, NULL);
        pg_test_sandbox_remove();
        return rc;
}
