/*
 * test_host_fingerprint.c - compare/verdict.c's host fingerprint
 * (docs/compare.md, "Host fingerprint"): a different online CPU count or
 * architecture makes every verdict inconclusive, as a different CPU model
 * does, and says so; a different kernel release is named in every report
 * format but changes no verdict; a CPU count of 0 (not recorded) matches.
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
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"

static const double pg_base_tc[] = { 100, 101, 99, 100.5, 100.2 };
static const double pg_slow_tc[] = { 125, 126, 124, 125.5, 125.2 };

/* One benchmark "b", 5 task-clock values, on a host of @cpus CPUs running
 * kernel @kernel on @arch. */
static void pg_add_host(struct pg_result_set *s, const double *tc, uint64_t cpus,
                        const char *kernel, const char *arch)
{
        struct pg_result r;
        pg_result_init(&r);
        r.name = strdup("b");
        r.machine = strdup("default");
        r.host.cpu = strdup("Same CPU @ 2.0GHz");
        r.host.cpus = cpus;
        r.host.kernel = strdup(kernel);
        r.host.arch = strdup(arch);
        r.counters = strdup("software");
        pg_result_add_metric(&r, "task-clock", "ns", PG_METRIC_OK, tc, NULL, 5, NULL);
        assert_int_equal(pg_result_set_add(s, &r), 0);
}

/* The two sides and their comparison (which borrows names from the sides). */
struct pg_hosts_case {
        struct pg_result_set base, head;
        struct pg_comparison c;
};

/* Compare a slowed-down head on (@hcpus, @hkernel, @harch) against a base on
 * @bcpus CPUs, kernel 6.1.0-28, x86_64, into @k; pg_hosts_release() it. */
static void pg_compare_hosts(struct pg_hosts_case *k, uint64_t bcpus, uint64_t hcpus,
                             const char *hkernel, const char *harch)
{
        struct pg_rules rules;
        pg_result_set_init(&k->base);
        pg_result_set_init(&k->head);
        pg_add_host(&k->base, pg_base_tc, bcpus, "6.1.0-28-amd64", "x86_64");
        pg_add_host(&k->head, pg_slow_tc, hcpus, hkernel, harch);
        pg_rules_init(&rules);
        pg_comparison_init(&k->c);
        pg_compare_sets(&k->base, &k->head, &rules, &k->c);
        assert_int_equal(k->c.n, 1);
        pg_rules_release(&rules);
}

static void pg_hosts_release(struct pg_hosts_case *k)
{
        pg_comparison_release(&k->c);
        pg_result_set_release(&k->base);
        pg_result_set_release(&k->head);
}

static void test_cpu_count_makes_time_inconclusive(void **state)
{
        struct pg_hosts_case k;
        (void) state;
        pg_compare_hosts(&k, 8, 2, "6.1.0-28-amd64", "x86_64");
        /* +25% task-clock would be a regression on the same host */
        assert_int_equal(k.c.benches[0].verdict, PG_VERDICT_INCONCLUSIVE);
        assert_non_null(k.c.benches[0].host_diff);
        assert_non_null(strstr(k.c.benches[0].host_diff, "8 vs 2 online CPUs"));
        assert_non_null(strstr(k.c.benches[0].judgements[0].reason, "hosts differ"));
        assert_null(k.c.benches[0].host_note);
        assert_int_equal(pg_comparison_exit_status(&k.c), 0);
        pg_hosts_release(&k);
}

static void test_arch_makes_time_inconclusive(void **state)
{
        struct pg_hosts_case k;
        (void) state;
        pg_compare_hosts(&k, 8, 8, "6.1.0-28-amd64", "aarch64");
        assert_int_equal(k.c.benches[0].verdict, PG_VERDICT_INCONCLUSIVE);
        assert_non_null(strstr(k.c.benches[0].host_diff, "arch 'x86_64' vs 'aarch64'"));
        pg_hosts_release(&k);
}

static void test_unrecorded_cpu_count_matches(void **state)
{
        struct pg_hosts_case k;
        (void) state;
        pg_compare_hosts(&k, 0, 2, "6.1.0-28-amd64", "x86_64");
        assert_int_equal(k.c.benches[0].verdict, PG_VERDICT_REGRESSION);
        assert_null(k.c.benches[0].host_diff);
        pg_hosts_release(&k);
}

static void test_kernel_is_named_and_verdict_kept(void **state)
{
        struct pg_hosts_case k;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_report_opts o;
        (void) state;
        memset(&o, 0, sizeof(o));
        pg_compare_hosts(&k, 8, 8, "6.1.0-30-amd64", "x86_64");
        assert_int_equal(k.c.benches[0].verdict, PG_VERDICT_REGRESSION);
        assert_null(k.c.benches[0].host_diff);
        assert_non_null(k.c.benches[0].host_note);
        assert_int_equal(pg_comparison_exit_status(&k.c), 1);
        pg_report_text(&out, &k.c, &o);
        assert_non_null(strstr(out.ptr, "hosts differ: kernel '6.1.0-28-amd64' vs "
                                        "'6.1.0-30-amd64' (verdicts kept)\n"));
        out.len = 0;
        pg_report_markdown(&out, &k.c, &o);
        assert_non_null(strstr(out.ptr, "Hosts differ: kernel"));
        out.len = 0;
        assert_int_equal(pg_report_json(&out, &k.c, &o), 0);
        assert_non_null(strstr(out.ptr, "\"host_note\":"));
        assert_non_null(strstr(out.ptr, "6.1.0-30-amd64"));
        pg_buf_release(&out);
        pg_hosts_release(&k);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cpu_count_makes_time_inconclusive),
                cmocka_unit_test(test_arch_makes_time_inconclusive),
                cmocka_unit_test(test_unrecorded_cpu_count_matches),
                cmocka_unit_test(test_kernel_is_named_and_verdict_kept),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
