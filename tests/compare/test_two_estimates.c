/*
 * A metric is "unchanged" only when both estimates of its change - the
 * ratio of medians and the Hodges-Lehmann shift relative to median(B) - are
 * within the threshold in the bad direction (docs/compare.md, "Outcome of a
 * metric"). The figures are task-clock values (ns) measured on the shared
 * 2-CPU VM: a benchmark whose runs are x1.3 with probability 1/2, five runs
 * per batch, and the same benchmark with 30% more work. The medians of that
 * pair differ by +1.7% (the baseline's median on the slow mode, head's on
 * the fast one), while the median of all 25 pairwise differences is
 * +25.75 ms = +23.5% of median(B) (computed by hand: numpy's median of the
 * sorted differences, 25746355 ns / 109483137 ns).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "baselines/result.h"
#include "compare/judge.h"
#include "compare/rules.h"

/* baseline batch: two runs on the fast mode, three on the slow one */
static double pg_base_ns[] = { 111639574, 83811299, 110228276, 84591843, 109483137 };
/* head batch, +30% work: three runs on its fast mode, two on its slow one */
static double pg_head30_ns[] = { 109031133, 109557654, 141752448, 141861705, 111346488 };
/* the same code as the baseline, another batch: both estimates within 10%
 * (medians +3.8%, shift +3.1%) */
static double pg_aa_base_ns[] = { 113878803, 87530430, 88246910, 86443887, 86930238 };
static double pg_aa_head_ns[] = { 90835731, 117907218, 89140976, 88251346, 103485965 };

static struct pg_metric pg_tc(double *v, size_t n)
{
        struct pg_metric m = { .name = "task-clock", .unit = "ns", .status = PG_METRIC_OK };
        m.nvalues = n;
        m.values = v;
        return m;
}

static void pg_judge_tc(double *b, double *h, struct pg_judgement *j)
{
        struct pg_rules rules;
        struct pg_metric_rule rule;
        struct pg_metric mb = pg_tc(b, 5), mh = pg_tc(h, 5);

        pg_rules_init(&rules);
        pg_rules_get(&rules, "bimodal", "task-clock", &rule);
        pg_rules_release(&rules);
        pg_judge_metric("task-clock", &mb, &mh, &rule, NULL, false, j);
}

/* +30% work hidden between the modes: never "unchanged", and the reason
 * names both estimates */
static void test_hidden_shift_inconclusive(void **state)
{
        struct pg_judgement j;
        (void) state;
        pg_judge_tc(pg_base_ns, pg_head30_ns, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_non_null(j.reason);
        assert_non_null(strstr(j.reason, "the timings look multimodal: medians +1.7%, shift of "
                                         "all pairs +23.5%; --confirm or more repetitions "
                                         "settle it"));
        pg_judgement_release(&j);
}

/* the same pair the other way round is a possible improvement: the shift
 * is beyond the threshold only in the good direction, so it stays unchanged */
static void test_hidden_shift_good_direction(void **state)
{
        struct pg_judgement j;
        (void) state;
        pg_judge_tc(pg_head30_ns, pg_base_ns, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        assert_true(j.reason == NULL || strstr(j.reason, "multimodal") == NULL);
        pg_judgement_release(&j);
}

/* A/A: both estimates within the threshold is unchanged, as before */
static void test_both_within_unchanged(void **state)
{
        struct pg_judgement j;
        (void) state;
        pg_judge_tc(pg_aa_base_ns, pg_aa_head_ns, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_UNCHANGED);
        pg_judgement_release(&j);
}

/* a rate (pp threshold): a miss rate whose runs fall on two levels; head
 * is every level +3 pp, but 3 of its 5 runs sit on the lower level where the
 * baseline had 3 on the upper one, so the medians say 5.0% -> 4.2% (-0.80 pp,
 * the good direction) while the median of the 25 differences h - b is
 * +2.90 pp (by hand), beyond the 0.5 pp threshold in the bad direction */
static void test_rate_in_points(void **state)
{
        double b[] = { 0.010, 0.011, 0.050, 0.051, 0.052 };
        double h[] = { 0.040, 0.041, 0.042, 0.080, 0.081 };
        struct pg_metric mb = { .name = "branch-miss-rate",
                                .unit = "ratio",
                                .status = PG_METRIC_OK,
                                .nvalues = 5,
                                .values = b };
        struct pg_metric mh = mb;
        struct pg_rules rules;
        struct pg_metric_rule rule;
        struct pg_judgement j;
        (void) state;
        mh.values = h;
        pg_rules_init(&rules);
        pg_rules_get(&rules, "x", "branch-miss-rate", &rule);
        pg_rules_release(&rules);
        pg_judge_metric("branch-miss-rate", &mb, &mh, &rule, NULL, false, &j);
        assert_int_equal(j.outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_non_null(j.reason);
        assert_non_null(strstr(j.reason, "medians -0.80 pp, shift of all pairs +2.90 pp"));
        pg_judgement_release(&j);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hidden_shift_inconclusive),
                cmocka_unit_test(test_hidden_shift_good_direction),
                cmocka_unit_test(test_both_within_unchanged),
                cmocka_unit_test(test_rate_in_points),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
