/*
 * The run-wide drift rule (docs/compare.md, "The whole run moved"), on
 * task-clock figures (ns) measured on the shared 2-CPU VM: 50 identical
 * benchmarks of about 10 ms (m00..m49, 5 runs each), one batch as the
 * baseline and another taken minutes later as head, same binary. Every one
 * of the 50 medians moved up; the median of the 50 changes is +8.56% (by
 * hand: Python's statistics.median of median(H)/median(B) - 1 over the 50),
 * and before the rule 18 benchmarks were beyond the 10% threshold, many of
 * them regressions (p = 0.0079 with 5 separated runs a side) - a false alarm
 * the build failed on.
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
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"

/* baseline batch, then head batch minutes later: task-clock ns, m00..m49 */
static const double pg_base_ns[50][5] = { { 9713874, 9456838, 9302739, 9390768, 9644502 },
                                          { 9781112, 9520528, 10043267, 9339610, 9936538 },
                                          { 9499215, 9575327, 9740803, 9884566, 9513431 },
                                          { 9530127, 9888504, 9324920, 9458470, 9273451 },
                                          { 9504203, 9193807, 9276185, 9397283, 9383590 },
                                          { 9797130, 9354997, 9532020, 9318122, 9650960 },
                                          { 9338455, 9913620, 9667571, 9550585, 9419475 },
                                          { 9303728, 9211442, 9177768, 9043971, 9239450 },
                                          { 9696666, 9135750, 9434132, 9454308, 9188718 },
                                          { 9162344, 9089235, 9252171, 9239384, 9162647 },
                                          { 9377037, 9216059, 9194864, 9115904, 9195587 },
                                          { 9340773, 9232769, 9103895, 9449608, 9515640 },
                                          { 9216657, 9154042, 9316081, 9539311, 9282665 },
                                          { 9138783, 9182580, 9134404, 9170270, 9232622 },
                                          { 9366847, 9888118, 9706139, 9330586, 9285346 },
                                          { 9154499, 9134857, 9622384, 9761379, 9594624 },
                                          { 9358948, 9605203, 9395494, 9074072, 9292255 },
                                          { 9182949, 9358110, 9118421, 9589083, 9429738 },
                                          { 9106112, 9113706, 9160187, 9185701, 9123143 },
                                          { 9390004, 9341542, 9118963, 9225259, 9153679 },
                                          { 9114286, 9185524, 9351966, 9414698, 9172584 },
                                          { 9157110, 9341414, 9229096, 9403027, 9547196 },
                                          { 9196011, 9205325, 9185972, 9461122, 9351723 },
                                          { 9418639, 9190883, 9221628, 9344520, 9224074 },
                                          { 9400470, 9341935, 9250178, 9318280, 9570145 },
                                          { 9240516, 9245015, 9396188, 9566266, 9315151 },
                                          { 9301683, 9215148, 9242829, 9186686, 9785921 },
                                          { 9316151, 9137636, 9498300, 9185451, 9236814 },
                                          { 9351611, 9756199, 9553456, 9389875, 9590094 },
                                          { 9485848, 9248188, 9374254, 9208991, 9174940 },
                                          { 9039487, 9176736, 9286369, 9294461, 9436921 },
                                          { 9474694, 9603916, 9681644, 9176274, 9601379 },
                                          { 9480485, 9417991, 9736021, 9054264, 9296737 },
                                          { 9865249, 10050880, 9309420, 9417915, 9224338 },
                                          { 9330980, 9236721, 9681001, 9412874, 9614263 },
                                          { 10418277, 9657999, 9931137, 9839553, 9563528 },
                                          { 9347720, 10954736, 9710175, 9543068, 10134958 },
                                          { 9818358, 9345193, 9355138, 9438047, 9512739 },
                                          { 9361440, 9585134, 9836112, 9166797, 10191197 },
                                          { 9524249, 9698363, 9380349, 9332688, 9755377 },
                                          { 9241511, 9811510, 11006211, 10643886, 9487262 },
                                          { 9323755, 9711688, 22693724, 9714193, 9734365 },
                                          { 9114964, 9271902, 9576957, 9251329, 9431001 },
                                          { 9360824, 9815958, 9315506, 9339859, 9474222 },
                                          { 9422380, 10392416, 9116403, 9380064, 9231673 },
                                          { 9090150, 9263668, 9179387, 9274106, 9411910 },
                                          { 9918364, 9779580, 10043906, 10251541, 9864050 },
                                          { 9984636, 9266062, 9432591, 9475131, 9415847 },
                                          { 9906078, 9700887, 9951340, 9803566, 9890219 },
                                          { 9862670, 9771895, 9311156, 9386566, 9312094 } };
static const double pg_head_ns[50][5] = { { 10708260, 10355877, 9971865, 9513875, 10115709 },
                                          { 10060619, 9788826, 10269372, 9711047, 9585322 },
                                          { 9983219, 9941124, 9892001, 9963443, 9867598 },
                                          { 10008211, 9723354, 9805931, 9828506, 10030411 },
                                          { 10060351, 9885629, 9587577, 10735366, 10273200 },
                                          { 10660853, 9937564, 10455982, 9924427, 9950720 },
                                          { 10376481, 9968892, 9558047, 9584807, 10739326 },
                                          { 10952684, 9920123, 10012039, 10771456, 10339186 },
                                          { 9761512, 12545677, 10222238, 20858948, 10150442 },
                                          { 24228388, 9790075, 12019033, 9779865, 9946980 },
                                          { 9941315, 10120858, 10168110, 22517651, 9398042 },
                                          { 9780883, 9255824, 9764673, 10321326, 10755172 },
                                          { 9986692, 10534608, 10526638, 10465461, 10237035 },
                                          { 10287314, 10467706, 10388452, 10498240, 10497180 },
                                          { 10232358, 10160027, 10122392, 10636469, 10328216 },
                                          { 10393024, 10326901, 10302159, 10348431, 10212629 },
                                          { 12020707, 10325518, 10548730, 9883073, 9180627 },
                                          { 10050093, 10341054, 10346002, 9722774, 10049832 },
                                          { 9841733, 10346694, 10187139, 9835138, 9641969 },
                                          { 9783613, 9605687, 10055749, 10319365, 10436667 },
                                          { 10351846, 10352000, 10060944, 10051282, 10133893 },
                                          { 10312630, 10089360, 10008349, 11147632, 9804421 },
                                          { 10414082, 10112216, 10203536, 11180532, 10144750 },
                                          { 10386413, 9853315, 10084891, 10223745, 10333454 },
                                          { 10459786, 10172992, 10375383, 10457527, 10236853 },
                                          { 10228047, 10410650, 10801614, 10256854, 10051187 },
                                          { 10879565, 13133434, 10565965, 10925268, 11151225 },
                                          { 10620517, 10411149, 10999106, 9888385, 10307450 },
                                          { 9907294, 10226258, 9919032, 9602825, 9550013 },
                                          { 9729416, 9991313, 10367633, 9944781, 10412385 },
                                          { 10536619, 10341163, 10323077, 10021088, 9749946 },
                                          { 10370583, 10545123, 10238257, 10559632, 10385973 },
                                          { 10322320, 10385563, 10184585, 9592275, 10114414 },
                                          { 10651472, 9881488, 10701188, 10435703, 11133907 },
                                          { 10248290, 10177156, 10881571, 9779826, 10585978 },
                                          { 10361263, 10391236, 10536108, 10642815, 10314242 },
                                          { 10690685, 10537576, 10541597, 10698774, 10508455 },
                                          { 10513363, 10685581, 10394484, 10801510, 10657302 },
                                          { 10230228, 10024100, 10383333, 10687946, 10227429 },
                                          { 10420024, 10310736, 10401084, 10529345, 10249185 },
                                          { 10292622, 10372118, 10356156, 10583317, 10155784 },
                                          { 10197755, 10405169, 10297765, 10341924, 10377292 },
                                          { 10310661, 10280826, 10072607, 10263661, 10337953 },
                                          { 10106581, 10081868, 10119163, 10432883, 10442622 },
                                          { 10265029, 10498310, 10742342, 10256856, 10282084 },
                                          { 10090437, 10517891, 10559506, 10338005, 10822186 },
                                          { 9807964, 10357604, 10726443, 10210663, 9889272 },
                                          { 11019639, 10235136, 10416936, 10263115, 10226840 },
                                          { 10289198, 10407275, 10555399, 10781366, 10172115 },
                                          { 10534599, 10372483, 10497566, 10279228, 10199080 } };

/* Fill @base and @head with the first @n benchmarks; head's values of
 * benchmark @slow (or none: -1) times @slow_by, and all of head times @all_by. */
static void pg_sets(struct pg_result_set *base, struct pg_result_set *head, size_t n, int slow,
                    double slow_by, double all_by)
{
        pg_result_set_init(base);
        pg_result_set_init(head);
        for (size_t i = 0; i < n; i++) {
                struct pg_result rb, rh;
                double h[5];
                char name[24];
                snprintf(name, sizeof(name), "m%02zu", i);
                for (size_t k = 0; k < 5; k++)
                        h[k] = pg_head_ns[i][k] * all_by * ((int) i == slow ? slow_by : 1);
                pg_result_init(&rb);
                pg_result_init(&rh);
                rb.name = pg_xstrdup(name);
                rh.name = pg_xstrdup(name);
                rb.counters = pg_xstrdup("software");
                rh.counters = pg_xstrdup("software");
                rb.repeat = rh.repeat = 5;
                pg_result_add_metric(&rb, "task-clock", "ns", PG_METRIC_OK, pg_base_ns[i], NULL, 5,
                                     NULL);
                pg_result_add_metric(&rh, "task-clock", "ns", PG_METRIC_OK, h, NULL, 5, NULL);
                assert_int_equal(pg_result_set_add(base, &rb), 0);
                assert_int_equal(pg_result_set_add(head, &rh), 0);
        }
}

static void pg_compare(struct pg_result_set *base, struct pg_result_set *head,
                       struct pg_comparison *c)
{
        struct pg_rules rules;
        pg_rules_init(&rules);
        pg_comparison_init(c);
        pg_compare_sets(base, head, &rules, c);
        pg_rules_release(&rules);
}

static const struct pg_judgement *pg_task_clock(const struct pg_comparison *c, const char *name)
{
        for (size_t i = 0; i < c->n; i++)
                if (strcmp(c->benches[i].name, name) == 0)
                        for (size_t k = 0; k < c->benches[i].njudgements; k++)
                                if (strcmp(c->benches[i].judgements[k].metric, "task-clock") == 0)
                                        return &c->benches[i].judgements[k];
        fail_msg("no task-clock judgement of %s", name);
        return NULL;
}

/* the whole run moved +8.6%: no benchmark fails the build for it, the
 * drift is reported once in the text and the Markdown */
static void test_common_shift_inconclusive(void **state)
{
        struct pg_result_set base, head;
        struct pg_comparison c;
        struct pg_buf text = PG_BUF_INIT, md = PG_BUF_INIT;
        struct pg_report_opts o = { 0 };
        const struct pg_judgement *j;
        const char *at;
        (void) state;
        pg_sets(&base, &head, 50, -1, 1, 1);
        pg_compare(&base, &head, &c);
        assert_int_equal(c.counts[PG_VERDICT_REGRESSION], 0);
        assert_int_equal(pg_comparison_exit_status(&c), 0);
        assert_int_equal(c.ndrifts, 1);
        assert_string_equal(c.drifts[0].metric, "task-clock");
        assert_int_equal(c.drifts[0].n, 50);
        assert_int_equal(c.drifts[0].same_way, 50);
        assert_float_equal(c.drifts[0].shift, 0.0856, 0.0001);
        assert_true(c.drifts[0].demoted > 0);
        /* the others beyond 10% were inconclusive before the rule (within noise) */
        assert_true(c.counts[PG_VERDICT_INCONCLUSIVE] >= c.drifts[0].demoted);
        /* m12 moved +12.7% (by hand), within 10% of the common +8.6% */
        j = pg_task_clock(&c, "m12");
        assert_int_equal(j->outcome, PG_OUTCOME_INCONCLUSIVE);
        assert_string_equal(j->reason, "the whole run moved +8.6%: the runner's speed changed "
                                       "between the batches, or a change slowed every benchmark "
                                       "alike; --confirm tells them apart");
        pg_report_text(&text, &c, &o);
        at = strstr(text.ptr, "The whole run moved +8.6% in task-clock (50 of 50 benchmarks the "
                              "same way)");
        assert_non_null(at);
        assert_null(strstr(at + 1, "The whole run moved"));
        pg_report_markdown(&md, &c, &o);
        at = strstr(md.ptr, "The whole run moved +8.6% in task-clock");
        assert_non_null(at);
        assert_null(strstr(at + 1, "The whole run moved"));
        pg_buf_release(&text);
        pg_buf_release(&md);
        pg_comparison_release(&c);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
}

/* a benchmark 30% slower on top of the common shift stays a regression */
static void test_beyond_common_shift_regression(void **state)
{
        struct pg_result_set base, head;
        struct pg_comparison c;
        (void) state;
        pg_sets(&base, &head, 50, 1, 1.3, 1);
        pg_compare(&base, &head, &c);
        assert_int_equal(c.ndrifts, 1);
        assert_int_equal(pg_task_clock(&c, "m01")->outcome, PG_OUTCOME_REGRESSION);
        assert_int_equal(c.counts[PG_VERDICT_REGRESSION], 1);
        assert_int_equal(pg_comparison_exit_status(&c), 1);
        pg_comparison_release(&c);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
}

/* fewer than 8 benchmarks: no run-wide rule (m00..m06 with m01 +30%) */
static void test_few_benchmarks_no_rule(void **state)
{
        struct pg_result_set base, head;
        struct pg_comparison c;
        (void) state;
        pg_sets(&base, &head, 7, 1, 1.3, 1.1);
        pg_compare(&base, &head, &c);
        assert_int_equal(c.ndrifts, 0);
        assert_int_equal(pg_task_clock(&c, "m01")->outcome, PG_OUTCOME_REGRESSION);
        pg_comparison_release(&c);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
}

/* a common shift above 15% (all of head x1.1: +19.4%) is never demoted */
static void test_large_shift_not_demoted(void **state)
{
        struct pg_result_set base, head;
        struct pg_comparison c;
        (void) state;
        pg_sets(&base, &head, 50, -1, 1, 1.1);
        pg_compare(&base, &head, &c);
        assert_int_equal(c.ndrifts, 0);
        assert_true(c.counts[PG_VERDICT_REGRESSION] >= 45);
        pg_comparison_release(&c);
        pg_result_set_release(&base);
        pg_result_set_release(&head);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_common_shift_inconclusive),
                cmocka_unit_test(test_beyond_common_shift_regression),
                cmocka_unit_test(test_few_benchmarks_no_rule),
                cmocka_unit_test(test_large_shift_not_demoted),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
