/*
 * test_sample_warnings.c - runner/sample.c's pg_sample_warnings(): a chain
 * cut at kernel.perf_event_max_stack now and then (1 of 2193 samples) is
 * not worth a warning, 1% is; frame-pointer stacks that mostly stop in a
 * system library name it and --call-graph dwarf, not a rebuild of the
 * user's code, while stops in the user's own files keep the rebuild advice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/sample.h"
#include "runner/symbolize.h"

static char *pg_warn(const struct pg_profile *p, const struct pg_symbolize_stats *st)
{
        struct pg_buf w = PG_BUF_INIT;
        pg_sample_warnings("bench", false, PG_CALL_GRAPH_FP, false, p, st, false, &w);
        return pg_buf_detach(&w, NULL);
}

static void test_sample_warnings_truncated_threshold(void **state)
{
        struct pg_profile p = { 0 };
        struct pg_symbolize_stats st = { 0 };
        char *w;
        (void) state;

        p.samples = 2193;
        st.rooted = 2192;
        p.truncated = 1;
        w = pg_warn(&p, &st);
        assert_null(strstr(w, "perf_event_max_stack"));
        free(w);
        p.truncated = 22; /* 1.0% */
        st.rooted = 2171;
        w = pg_warn(&p, &st);
        assert_non_null(strstr(w, "22 of 2193 samples (1.0%) had call chains cut"));
        free(w);
}

static void test_sample_warnings_fp_stop_names_system_library(void **state)
{
        struct pg_profile p = { 0 };
        struct pg_symbolize_stats st = { 0 };
        char *w;
        (void) state;

        p.samples = 1000;
        st.rooted = 10;
        st.stop_module = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30";
        st.stop_count = 900;
        w = pg_warn(&p, &st);
        assert_non_null(strstr(w, "only 1% of the stacks reach main or a thread entry: most "
                                  "chains stop in libstdc++.so.6.0.30, a system library"));
        assert_non_null(strstr(w, "--call-graph dwarf"));
        assert_null(strstr(w, "-fno-omit-frame-pointer"));
        free(w);
        /* the chains end in many places: no one library to blame */
        st.stop_count = 400;
        w = pg_warn(&p, &st);
        assert_non_null(strstr(w, "build with -fno-omit-frame-pointer"));
        free(w);
        /* the user's own library: rebuild it */
        st.stop_module = "/home/dev/app/build/libparse.so";
        st.stop_count = 900;
        w = pg_warn(&p, &st);
        assert_non_null(strstr(w, "build with -fno-omit-frame-pointer"));
        assert_null(strstr(w, "libparse"));
        free(w);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sample_warnings_truncated_threshold),
                cmocka_unit_test(test_sample_warnings_fp_stop_names_system_library),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
