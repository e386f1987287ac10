/*
 * test_host_notes.c - the JSON verdict tells the host differences that keep
 * verdicts apart by kind (docs/compare.md, "Host fingerprint"): "host_notes"
 * holds one object per kind, {"kind": "kernel_release" | "kernel_frames",
 * "text"}, and "host_note" stays their texts joined by "; " for readers of
 * the older field. Read back with cJSON from pg_report_json()'s output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"
#include "tests/util/testutil.h"

static const double pg_tc[] = { 100e6, 101e6, 99e6, 100.5e6, 100.2e6 };

static const char *const pg_user_only = "main;work 600\nmain;other 400\n";
static const char *const pg_with_kernel = "main;work 560\nmain;other 370\n"
                                          "main;work;asm_sysvec_apic_timer_interrupt_[k] 70\n";

static void pg_add(struct pg_result_set *s, const char *kernel_release, bool kernel_frames)
{
        struct pg_result r;

        pg_result_init(&r);
        r.name = strdup("b");
        r.machine = strdup("default");
        r.counters = strdup("software");
        r.host.kernel = strdup(kernel_release);
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, pg_tc, NULL, 5, NULL);
        pg_test_profile_from_folded(&r.profile, kernel_frames ? pg_with_kernel : pg_user_only,
                                    "cpu-clock");
        r.profile.kernel = kernel_frames;
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

/* Compare base (@bk_rel, @bk) with head (@hk_rel, @hk); the JSON verdict's
 * one benchmark, parsed (the caller deletes the returned root). */
static cJSON *pg_json(const char *bk_rel, bool bk, const char *hk_rel, bool hk, cJSON **bench)
{
        struct pg_result_set base, head;
        struct pg_rules rules;
        struct pg_comparison c;
        struct pg_buf out = PG_BUF_INIT;
        cJSON *root;

        pg_result_set_init(&base);
        pg_result_set_init(&head);
        pg_add(&base, bk_rel, bk);
        pg_add(&head, hk_rel, hk);
        pg_rules_init(&rules);
        pg_comparison_init(&c);
        pg_compare_sets(&base, &head, &rules, &c);
        assert_int_equal(c.n, 1);
        assert_int_equal(pg_report_json(&out, &c, NULL), 0);
        root = cJSON_Parse(out.ptr);
        assert_non_null(root);
        *bench = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0);
        assert_non_null(*bench);
        pg_buf_release(&out);
        pg_comparison_release(&c);
        pg_rules_release(&rules);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
        return root;
}

static const char *pg_str(const cJSON *o, const char *key)
{
        const cJSON *v = cJSON_GetObjectItem(o, key);

        assert_true(cJSON_IsString(v));
        return v->valuestring;
}

static void test_both_kinds(void **state)
{
        cJSON *bench, *root = pg_json("6.1.0-28-amd64", false, "6.1.0-30-amd64", true, &bench);
        const cJSON *notes = cJSON_GetObjectItem(bench, "host_notes");
        struct pg_buf joined = PG_BUF_INIT;

        (void) state;
        assert_true(cJSON_IsArray(notes));
        assert_int_equal(cJSON_GetArraySize(notes), 2);
        assert_string_equal(pg_str(cJSON_GetArrayItem(notes, 0), "kind"), "kernel_release");
        assert_string_equal(pg_str(cJSON_GetArrayItem(notes, 0), "text"),
                            "kernel '6.1.0-28-amd64' vs '6.1.0-30-amd64' (verdicts kept)");
        assert_string_equal(pg_str(cJSON_GetArrayItem(notes, 1), "kind"), "kernel_frames");
        assert_non_null(strstr(pg_str(cJSON_GetArrayItem(notes, 1), "text"),
                               "kernel frames (_[k]) are in head's profile only"));
        /* the older field: the same texts, joined */
        pg_buf_printf(&joined, "%s; %s", pg_str(cJSON_GetArrayItem(notes, 0), "text"),
                      pg_str(cJSON_GetArrayItem(notes, 1), "text"));
        assert_string_equal(pg_str(bench, "host_note"), joined.ptr);
        pg_buf_release(&joined);
        cJSON_Delete(root);
}

static void test_kernel_frames_only(void **state)
{
        cJSON *bench, *root = pg_json("6.1.0-28-amd64", true, "6.1.0-28-amd64", false, &bench);
        const cJSON *notes = cJSON_GetObjectItem(bench, "host_notes");

        (void) state;
        assert_int_equal(cJSON_GetArraySize(notes), 1);
        assert_string_equal(pg_str(cJSON_GetArrayItem(notes, 0), "kind"), "kernel_frames");
        assert_non_null(strstr(pg_str(cJSON_GetArrayItem(notes, 0), "text"), "the baseline's"));
        assert_string_equal(pg_str(bench, "host_note"),
                            pg_str(cJSON_GetArrayItem(notes, 0), "text"));
        cJSON_Delete(root);
}

static void test_same_hosts(void **state)
{
        cJSON *bench, *root = pg_json("6.1.0-28-amd64", false, "6.1.0-28-amd64", false, &bench);
        const cJSON *notes = cJSON_GetObjectItem(bench, "host_notes");

        (void) state;
        assert_true(cJSON_IsArray(notes));
        assert_int_equal(cJSON_GetArraySize(notes), 0);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(bench, "host_note")));
        cJSON_Delete(root);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_both_kinds),
                cmocka_unit_test(test_kernel_frames_only),
                cmocka_unit_test(test_same_hosts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
