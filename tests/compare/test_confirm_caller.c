/*
 * test_confirm_caller.c - pg_confirm_hotspots_callers() (compare/confirm.h)
 * on profiles built for each case, with address histograms saying which
 * module each sampled symbol is in (/bin/wf the benchmark, libc.so.6 the C
 * library): the caller on the heaviest stack of a libc function is named
 * past inlined and libc frames; a frame with no samples of its own (no
 * module known) is passed over; a chain cut short by frame-pointer
 * unwinding (msort_with_tmp.part.0 > __memcmp) names none; a function of
 * the executable itself and an unconfirmed one get none; the JSON and the
 * text line say it. The real program is tests/confirm/cause-caller.sh.
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
#include "compare/confirm.h"
#include "tests/util/testutil.h"

#define EXE  "/bin/wf"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

/* @folded with address histograms for @nsyms (symbol, module) pairs */
static void profile(struct pg_profile *p, const char *folded, const char *const *syms, size_t nsyms)
{
        pg_test_profile_from_folded(p, folded, "cpu-clock");
        p->naddrs = nsyms;
        p->addrs = pg_xcalloc(nsyms, sizeof(*p->addrs));
        for (size_t i = 0; i < nsyms; i++) {
                p->addrs[i].function = pg_xstrdup(syms[2 * i]);
                p->addrs[i].module = pg_xstrdup(syms[2 * i + 1]);
                p->addrs[i].samples = 1;
        }
}

static const char *caller_of(const char *folded, const char *const *syms, size_t nsyms,
                             const char *fn, bool confirmed)
{
        static char out[64];
        struct pg_profile p;
        struct pg_confirm_hotspots h = { 0 };

        profile(&p, folded, syms, nsyms);
        h.n = 1;
        h.items = pg_xcalloc(1, sizeof(*h.items));
        h.items[0].function = pg_xstrdup(fn);
        h.items[0].confirmed = confirmed;
        pg_confirm_hotspots_callers(&h, &p, 1, EXE);
        snprintf(out, sizeof(out), "%s", h.items[0].caller ? h.items[0].caller : "(none)");
        if (h.items[0].caller)
                assert_string_equal(h.items[0].caller_module, EXE);
        pg_confirm_hotspots_release(&h);
        pg_test_profile_free(&p);
        return out;
}

static const char *const syms[] = {
        "__memcmp_evex_movbe", LIBC, "word_less", EXE, "msort_with_tmp.part.0", LIBC, "main", EXE,
        "sort_words",          EXE
};

static void test_caller_past_inlined_and_libc(void **state)
{
        (void) state;
        /* the heaviest stack (30) goes through word_less; the lighter one
         * through sort_words alone */
        assert_string_equal(
            caller_of("wf;main;qsort;msort_with_tmp.part.0;msort_with_tmp_[i];word_less;"
                      "cmp_inl_[i];__memcmp_evex_movbe 30\n"
                      "wf;main;sort_words;__memcmp_evex_movbe 10\n"
                      "wf;main;word_less 5\n",
                      syms, 5, "__memcmp_evex_movbe", true),
            "word_less");
        /* a tie goes to the first stack bytewise ("...;qsort;..."), whatever
         * the order of the runs */
        assert_string_equal(caller_of("wf;main;sort_words;__memcmp_evex_movbe 10\n"
                                      "wf;main;qsort;word_less;__memcmp_evex_movbe 10\n",
                                      syms, 5, "__memcmp_evex_movbe", true),
                            "word_less");
}

static void test_unknown_frame_passed_over(void **state)
{
        (void) state;
        /* helper has no samples of its own: no module known, passed over */
        assert_string_equal(caller_of("wf;main;sort_words;helper;__memcmp_evex_movbe 10\n", syms, 5,
                                      "__memcmp_evex_movbe", true),
                            "sort_words");
}

static void test_none(void **state)
{
        (void) state;
        /* frame pointers lost the comparator and everything above msort */
        assert_string_equal(caller_of("wf;msort_with_tmp.part.0;__memcmp_evex_movbe 40\n", syms, 5,
                                      "__memcmp_evex_movbe", true),
                            "(none)");
        /* the executable's own function needs no caller */
        assert_string_equal(
            caller_of("wf;main;sort_words;word_less 40\n", syms, 5, "word_less", true), "(none)");
        /* an unconfirmed one is not named */
        assert_string_equal(caller_of("wf;main;word_less;__memcmp_evex_movbe 40\n", syms, 5,
                                      "__memcmp_evex_movbe", false),
                            "(none)");
        /* no address histograms (an older result): nothing known */
        assert_string_equal(caller_of("wf;main;word_less;__memcmp_evex_movbe 40\n", syms, 0,
                                      "__memcmp_evex_movbe", true),
                            "(none)");
}

/* The confirmation's line says it after the function's figures. */
static void test_describe(void **state)
{
        struct pg_bench_confirm *c = pg_bench_confirm_new();
        struct pg_buf out = PG_BUF_INIT;

        (void) state;
        c->outcome = PG_CONFIRM_REGRESSION;
        c->hotspots.pairs = 10;
        c->hotspots.n = 1;
        c->hotspots.items = pg_xcalloc(1, sizeof(*c->hotspots.items));
        c->hotspots.items[0].function = pg_xstrdup("__memcmp_evex_movbe");
        c->hotspots.items[0].confirmed = c->hotspots.items[0].cause = true;
        c->hotspots.items[0].caller = pg_xstrdup("word_less");
        c->hotspots.items[0].caller_module = pg_xstrdup("/src/bench/wordfreq");
        pg_bench_confirm_describe(&out, c, NULL, NULL);
        assert_non_null(strstr(out.ptr, "`__memcmp_evex_movbe` 0.00% -> 0.00%"));
        assert_non_null(strstr(out.ptr, ": the cause (called from `word_less` in wordfreq)"));
        pg_buf_release(&out);
        pg_bench_confirm_free(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_caller_past_inlined_and_libc),
                cmocka_unit_test(test_unknown_frame_passed_over),
                cmocka_unit_test(test_none),
                cmocka_unit_test(test_describe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
