/*
 * test_hotspot_interrupt.c - a kernel frame that grew only in interrupt
 * context never gates (docs/compare.md, Hotspots, "interrupt"): the figures
 * are those of a real `make demo` run as root, where a softirq landing in the
 * 50 ms gridscan benchmark grew from 0.54% to 2.72% of the samples and failed
 * the build; the same growth under a system call (the benchmark's own kernel
 * work) still regresses.
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
#include "common/error.h"
#include "compare/hotspot.h"
#include "compare/rules.h"
#include "tests/util/result_json.h"

#define IRQ "asm_common_interrupt_[k];common_interrupt_[k];__irq_exit_rcu_[k];handle_softirqs_[k]"
#define SYS "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];handle_softirqs_[k]"

/* gridscan's profile: @rest samples in grid_scan, @k in handle_softirqs under @via. */
static void load(struct pg_result *r, unsigned rest, unsigned k, const char *via)
{
        char buf[2048];

        snprintf(buf, sizeof(buf),
                 "%s,\"profile\":{\"event\":\"cpu-clock\",\"frequency_hz\":999,"
                 "\"call_graph\":\"fp\",\"samples\":%u,\"lost\":0,\"throttled\":0,"
                 "\"truncated\":0,\"runs\":5,\"kernel\":true,\"stacks\":{"
                 "\"gridscan;[libc.so.6];main;grid_scan\":%u,"
                 "\"gridscan;[libc.so.6];main;grid_scan;%s\":%u}}}",
                 PG_TEST_RESULT_JSON_HEAD, rest + k, rest, via, k);
        pg_result_init(r);
        assert_int_equal(pg_result_from_json(r, buf, strlen(buf), "test"), 0);
}

static const struct pg_hotspot *find(const struct pg_hotspots *hs, const char *fn)
{
        for (size_t i = 0; i < hs->n; i++)
                if (strcmp(hs->items[i].function, fn) == 0)
                        return &hs->items[i];
        return NULL;
}

/* The demo's figures: 11 of 2043 samples, then 55 of 2019, task-clock ~50 ms. */
static void demo(const char *via, enum pg_hotspot_kind want, bool culprit)
{
        struct pg_result b, h;
        struct pg_hotspots hs;
        struct pg_rules rules;
        const struct pg_hotspot *x;

        load(&b, 2032, 11, via);
        load(&h, 1964, 55, via);
        pg_rules_init(&rules);
        pg_hotspots_init(&hs);
        pg_hotspots_compare_verdict(&b.profile, &h.profile, 51e6, 49.6e6, &rules.hotspots, &hs);
        x = find(&hs, "handle_softirqs_[k]");
        assert_non_null(x);
        assert_true(x->p_value < 1e-6);
        assert_true(x->delta_self_pp > 2);
        assert_int_equal(x->kind, want);
        assert_true(pg_hotspot_kind_listed(x->kind));
        if (culprit)
                assert_string_equal(pg_hotspots_culprit(&hs), "handle_softirqs_[k]");
        else
                assert_null(pg_hotspots_culprit(&hs));
        assert_int_equal(pg_hotspots_changed(&hs), culprit);
        pg_hotspots_release(&hs);
        pg_rules_release(&rules);
        pg_result_release(&b);
        pg_result_release(&h);
}

static void test_softirq_in_interrupt_does_not_gate(void **state)
{
        (void) state;
        demo(IRQ, PG_HOTSPOT_INTERRUPT, false);
        assert_string_equal(pg_hotspot_kind_name(PG_HOTSPOT_INTERRUPT), "interrupt (not gating)");
}

static void test_same_growth_in_a_syscall_regresses(void **state)
{
        (void) state;
        demo(SYS, PG_HOTSPOT_REGRESSED, true);
}

static bool in_irq(const char *s)
{
        return pg_stack_in_interrupt(s, strlen(s));
}

static void test_interrupt_entries(void **state)
{
        (void) state;
        assert_true(in_irq("main;work;" IRQ));
        assert_true(in_irq("main;asm_sysvec_apic_timer_interrupt_[k];hrtimer_run_[k]"));
        assert_true(in_irq("main;apic_timer_interrupt_[k];x_[k]")); /* before Linux 5.8 */
        assert_true(in_irq("main;el1h_64_irq_handler_[k];gic_handle_irq_[k]")); /* arm64 */
        assert_true(in_irq("main;irq_exit_rcu_[k]"));
        /* a page fault, a system call, a sleep: the benchmark's own kernel work */
        assert_false(in_irq("main;asm_exc_page_fault_[k];exc_page_fault_[k];handle_mm_fault_[k]"));
        assert_false(in_irq("main;" SYS));
        assert_false(in_irq("main;mutex_lock_interruptible_[k];schedule_[k]"));
        /* only kernel frames are entries: a user function of that name is not */
        assert_false(in_irq("main;common_interrupt;handle_softirqs_[k]"));
        assert_false(in_irq("main;timer_interrupt;x"));
        /* the length bounds the walk: the entry after it is not on the path */
        {
                const char *s = "main;work;asm_common_interrupt_[k]";
                assert_false(pg_stack_in_interrupt(s, strlen("main;work")));
        }
        assert_false(in_irq(""));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_softirq_in_interrupt_does_not_gate),
                cmocka_unit_test(test_same_growth_in_a_syscall_regresses),
                cmocka_unit_test(test_interrupt_entries),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
