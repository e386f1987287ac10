/*
 * test_sample_session.c - one sampling session (runner/sample.h) shared by
 * the profiles of different programs, as `compare --confirm` takes the
 * sampled runs of a base and a head build: each profile holds its own runs
 * alone, and frames resolved from the session's cached files are named as a
 * fresh pg_sample_profile() names them. Real processes (the CMake-built
 * sampling fixtures), cpu-clock at 999 Hz; assertions are on folded frame
 * names and counts, never on addresses or times.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/error.h"
#include "runner/sample.h"
#include "tests/util/testutil.h"

static struct pg_sample_opts opts(char *const *argv)
{
        return (struct pg_sample_opts){ .argv = argv,
                                        .freq_hz = 999,
                                        .call_graph = PG_CALL_GRAPH_FP,
                                        .min_samples = 1,
                                        .max_runs = 1,
                                        .timeout_ns = 60000000000ULL };
}

/* Samples of @p whose folded stack has the frame @fn (";fn;" or ";fn" at the end). */
static uint64_t with_frame(const struct pg_profile *p, const char *fn)
{
        size_t n = strlen(fn);
        uint64_t c = 0;

        for (size_t i = 0; i < p->nstacks; i++)
                for (const char *q = strchr(p->stacks[i].frames, ';'); q; q = strchr(q + 1, ';'))
                        if (strncmp(q + 1, fn, n) == 0 && (q[1 + n] == ';' || q[1 + n] == '\0')) {
                                c += p->stacks[i].count;
                                break;
                        }
        return c;
}

static uint64_t stack_sum(const struct pg_profile *p)
{
        uint64_t c = 0;
        for (size_t i = 0; i < p->nstacks; i++)
                c += p->stacks[i].count;
        return c;
}

/* The folded key with the most samples. */
static const char *top_stack(const struct pg_profile *p)
{
        size_t best = 0;
        for (size_t i = 1; i < p->nstacks; i++)
                if (p->stacks[i].count > p->stacks[best].count)
                        best = i;
        return p->nstacks ? p->stacks[best].frames : "";
}

static void test_profiles_are_per_call(void **state)
{
        /* pg_test_fixture() returns one static buffer: copy each path */
        char *a[] = { strdup(pg_test_fixture("sample_callpath")), "150000000", NULL };
        char *b[] = { strdup(pg_test_fixture("sample_deep")), "10", NULL };
        struct pg_sample_opts oa = opts(a), ob = opts(b);
        struct pg_sample_session *ss;
        struct pg_profile p[3], fresh;
        struct pg_buf w = PG_BUF_INIT;

        (void) state;
        memset(p, 0, sizeof(p));
        memset(&fresh, 0, sizeof(fresh));
        assert_int_equal(pg_sample_session_new(&ss, &oa), 0);
        assert_int_equal(pg_sample_session_profile(ss, &oa, &p[0], &w), 0);
        assert_int_equal(pg_sample_session_profile(ss, &ob, &p[1], &w), 0);
        assert_int_equal(pg_sample_session_profile(ss, &oa, &p[2], &w), 0);
        pg_sample_session_free(ss);

        for (int i = 0; i < 3; i++) {
                assert_true(p[i].present);
                assert_int_equal(p[i].runs, 1);
                assert_true(p[i].samples > 20);
                /* the counters and the stacks are of this call's run only */
                assert_int_equal(stack_sum(&p[i]), p[i].samples);
        }
        /* each profile has its own program's hot function and not the other's */
        assert_true(with_frame(&p[0], "inner") * 2 > p[0].samples);
        assert_int_equal(with_frame(&p[0], "rec"), 0);
        assert_true(with_frame(&p[1], "rec") * 2 > p[1].samples);
        assert_int_equal(with_frame(&p[1], "inner"), 0);
        assert_int_equal(with_frame(&p[1], "outer"), 0);
        assert_true(with_frame(&p[2], "inner") * 2 > p[2].samples);
        assert_int_equal(with_frame(&p[2], "rec"), 0);
        /* hot addresses (annotate's data) are per call too */
        for (size_t i = 0; i < p[1].naddrs; i++)
                assert_string_not_equal(p[1].addrs[i].function, "inner");

        /* frames resolved from the session's cache are named as a fresh
         * symbolizer names them */
        assert_int_equal(pg_sample_profile(&oa, &fresh, &w), 0);
        assert_string_equal(top_stack(&p[2]), top_stack(&fresh));
        assert_string_equal(top_stack(&p[0]), top_stack(&fresh));

        for (int i = 0; i < 3; i++)
                pg_profile_release(&p[i]);
        pg_profile_release(&fresh);
        pg_buf_release(&w);
        free(a[0]);
        free(b[0]);
}

static void test_one_mode_per_session(void **state)
{
        char *a[] = { (char *) pg_test_fixture("sample_callpath"), "1000", NULL };
        struct pg_sample_opts oa = opts(a), od = opts(a);
        struct pg_sample_session *ss;
        struct pg_profile p;
        struct pg_buf w = PG_BUF_INIT;

        (void) state;
        memset(&p, 0, sizeof(p));
        od.call_graph = PG_CALL_GRAPH_DWARF;
        assert_int_equal(pg_sample_session_new(&ss, &oa), 0);
        assert_int_equal(pg_sample_session_profile(ss, &od, &p, &w), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "call graph mode"));
        pg_sample_session_free(ss);
        pg_profile_release(&p);
        pg_buf_release(&w);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_profiles_are_per_call),
                cmocka_unit_test(test_one_mode_per_session),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
