/*
 * test_frame_key.c - base and head functions are matched by one comparison
 * key (pg_frame_key() in baselines/frame.h; docs/compare.md, Hotspots): a
 * function inlined in base ("Tokenize_[i]") and not in head ("Tokenize"),
 * and a cgo wrapper whose hash changed with an edit of its Go file
 * ("_cgo_22ad1fbf0288_Cfunc_c_checksum" -> "_cgo_49b1f4fcc499_..."), are
 * the same function: neither "new" nor "vanished", shown with head's name;
 * self still goes to the innermost non-inlined frame; the differential
 * flame graph draws them as one frame. The stacks are those
 * a Go program with cgo gave (a real base/head pair, trimmed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "baselines/result.h"
#include "common/buf.h"
#include "compare/flamegraph.h"
#include "compare/hotspot.h"
#include "compare/rules.h"
#include "tests/util/result_json.h"

/* A result whose profile is @stacks (JSON object text) with @samples. */
static void load(struct pg_result *r, unsigned samples, const char *stacks)
{
        char *buf = pg_xasprintf("%s,\"profile\":{\"event\":\"cpu-clock\",\"frequency_hz\":999,"
                                 "\"call_graph\":\"fp\",\"samples\":%u,\"lost\":0,\"throttled\":0,"
                                 "\"truncated\":0,\"runs\":1,\"kernel\":false,\"stacks\":%s}}",
                                 PG_TEST_RESULT_JSON_HEAD, samples, stacks);

        pg_result_init(r);
        assert_int_equal(pg_result_from_json(r, buf, strlen(buf), "test"), 0);
        free(buf);
}

static const struct pg_hotspot *find(const struct pg_hotspots *hs, const char *fn)
{
        for (size_t i = 0; i < hs->n; i++)
                if (strcmp(hs->items[i].function, fn) == 0)
                        return &hs->items[i];
        return NULL;
}

static void compare(const char *base, const char *head, struct pg_result *b, struct pg_result *h,
                    struct pg_hotspots *hs)
{
        struct pg_rules r;

        load(b, 1000, base);
        load(h, 1000, head);
        pg_rules_init(&r);
        pg_hotspots_init(hs);
        pg_hotspots_compare(&b->profile, &h->profile, 1e9, 1e9, &r.hotspots, hs);
        pg_rules_release(&r);
}

static void test_key(void **state)
{
        char buf[64];
        size_t n;
        const char *k;

        (void) state;
        k = pg_frame_key("Tokenize_[i]", 12, buf, &n);
        assert_int_equal(n, 8);
        assert_memory_equal(k, "Tokenize", 8);
        k = pg_frame_key("_cgo_49b1f4fcc499_Cfunc_c_checksum", 34, buf, &n);
        assert_int_equal(n, 21);
        assert_memory_equal(k, "_cgo_Cfunc_c_checksum", 21);
        /* not a cgo hash: kept (upper case, 11 digits, no '_') */
        k = pg_frame_key("_cgo_49B1F4FCC499_x", 19, buf, &n);
        assert_int_equal(n, 19);
        k = pg_frame_key("_cgo_49b1f4fcc49_x", 18, buf, &n);
        assert_int_equal(n, 18);
        /* kernel and JIT annotations stay */
        k = pg_frame_key("f_[k]", 5, buf, &n);
        assert_int_equal(n, 5);
        assert_true(pg_frame_same("_cgo_22ad1fbf0288_Cfunc_c_checksum_[i]", 38,
                                  "_cgo_49b1f4fcc499_Cfunc_c_checksum", 34));
        assert_true(pg_frame_same("_cgo_Cfunc_x", 12, "_cgo_49b1f4fcc499_Cfunc_x", 25));
        assert_false(
            pg_frame_same("_cgo_22ad1fbf0288_Cfunc_a", 25, "_cgo_49b1f4fcc499_Cfunc_b", 25));
        assert_false(pg_frame_same("f_[k]", 5, "f", 1));
        (void) k;
}

/* Tokenize inlined into main.main in base, a function of its own in head. */
static void test_inlining_changed(void **state)
{
        struct pg_result b, h;
        struct pg_hotspots hs;
        const struct pg_hotspot *t, *m;

        (void) state;
        compare("{\"x;main.main;textproc.Tokenize_[i];runtime.growslice\":400,"
                "\"x;main.main;textproc.Tokenize_[i]\":300,\"x;main.main\":300}",
                "{\"x;main.main;textproc.Tokenize;runtime.growslice\":400,"
                "\"x;main.main;textproc.Tokenize\":300,\"x;main.main\":300}",
                &b, &h, &hs);
        t = find(&hs, "textproc.Tokenize");
        assert_non_null(t);
        assert_int_equal(t->base_incl, 700);
        assert_int_equal(t->head_incl, 700);
        assert_int_not_equal(t->kind, PG_HOTSPOT_NEW);
        assert_null(find(&hs, "textproc.Tokenize_[i]"));
        /* Tokenize has code of its own in head, so base's inlined copy's
         * samples are Tokenize's too, not main.main's: the flip moves none
         * (docs/compare.md, Hotspots) */
        assert_int_equal(t->base_self, 300);
        assert_int_equal(t->head_self, 300);
        m = find(&hs, "main.main");
        if (m) {
                assert_int_equal(m->base_self, 300);
                assert_int_equal(m->head_self, 300);
        }
        pg_hotspots_release(&hs);
        pg_result_release(&b);
        pg_result_release(&h);
}

/* The cgo wrapper of an unchanged C function, renamed by an edit of the Go file. */
static void test_cgo_renamed(void **state)
{
        struct pg_result b, h;
        struct pg_hotspots hs;
        const struct pg_hotspot *w;

        (void) state;
        compare("{\"x;main.main;textproc.Checksum;_cgo_22ad1fbf0288_Cfunc_c_checksum\":970,"
                "\"x;main.main\":30}",
                "{\"x;main.main;textproc.Checksum;_cgo_49b1f4fcc499_Cfunc_c_checksum\":968,"
                "\"x;main.main\":32}",
                &b, &h, &hs);
        w = find(&hs, "_cgo_49b1f4fcc499_Cfunc_c_checksum"); /* head's name */
        assert_non_null(w);
        assert_int_equal(w->base_self, 970);
        assert_int_equal(w->head_self, 968);
        assert_int_not_equal(w->kind, PG_HOTSPOT_NEW);
        assert_int_not_equal(w->kind, PG_HOTSPOT_REGRESSED);
        assert_null(find(&hs, "_cgo_22ad1fbf0288_Cfunc_c_checksum"));
        pg_hotspots_release(&hs);
        pg_result_release(&b);
        pg_result_release(&h);
}

/* The differential flame graph draws both as one frame, under head's names. */
static void test_diff_graph(void **state)
{
        struct pg_stack base[] = {
                { "x;main.main", 300 },
                { "x;main.main;_cgo_22ad1fbf0288_Cfunc_c", 100 },
                { "x;main.main;textproc.Tokenize_[i]", 300 },
                { "x;main.main;textproc.Tokenize_[i];runtime.growslice", 400 },
        };
        struct pg_stack head[] = {
                { "x;main.main", 300 },
                { "x;main.main;_cgo_49b1f4fcc499_Cfunc_c", 100 },
                { "x;main.main;textproc.Tokenize", 300 },
                { "x;main.main;textproc.Tokenize;runtime.growslice", 400 },
        };
        struct pg_buf out = PG_BUF_INIT;

        (void) state;
        assert_int_equal(pg_flamegraph_diff_svg(&out, base, 4, head, 4, NULL), 0);
        assert_null(strstr(out.ptr, "vanished in head"));
        assert_null(strstr(out.ptr, "22ad1fbf0288"));
        assert_non_null(strstr(out.ptr, "<title>textproc.Tokenize (700 samples, 63.64%; 0.00%)"));
        assert_non_null(
            strstr(out.ptr, "<title>_cgo_49b1f4fcc499_Cfunc_c (100 samples, 9.09%; 0.00%)"));
        pg_buf_release(&out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key),
                cmocka_unit_test(test_inlining_changed),
                cmocka_unit_test(test_cgo_renamed),
                cmocka_unit_test(test_diff_graph),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
