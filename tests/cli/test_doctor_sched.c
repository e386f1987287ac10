/*
 * test_doctor_sched.c - `perfgate doctor` on scheduler latency and on
 * repeated gaps:
 *  - the sched-latency check says "allowed" where CPU-wide sched tracepoints
 *    open (root here), and as an unprivileged user "not permitted" with the
 *    fix (kernel.perf_event_paranoid, CAP_PERFMON, tracefs);
 *  - as that user at kernel.perf_event_paranoid 2, context-switches (which
 *    perf stat counts as 0 there) are "not measured", and kptr_restrict 0 is
 *    not a warning (paranoid is what hides the kernel's addresses);
 *  - checks of one kind with the same gap (every hardware event on a VM
 *    without a PMU) print as one block listing them, while --json keeps one
 *    entry per check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "tests/util/testutil.h"

static void pg_assert_has(const char *hay, const char *needle)
{
        if (!strstr(hay, needle))
                fail_msg("'%s' not found in:\n%s", needle, hay);
}

static size_t pg_count(const char *hay, const char *needle)
{
        size_t n = 0;

        for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

/* /proc/sys/kernel/kptr_restrict, -1 when unreadable */
static int pg_kptr_restrict(void)
{
        FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "r");
        int v = -1;

        if (f && fscanf(f, "%d", &v) != 1)
                v = -1;
        if (f)
                fclose(f);
        return v;
}

static void test_doctor_groups_identical_gaps(void **state)
{
        struct pg_run_out o, j;
        cJSON *root, *c;
        size_t missing_hw = 0;
        char first[64] = "";
        (void) state;

        pg_test_sandbox();
        pg_test_perfgate(&j, "doctor", "--json", NULL);
        root = cJSON_Parse(j.out.ptr);
        assert_non_null(root);
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "checks"))
        {
                const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
                const char *value = cJSON_GetObjectItem(c, "value")->valuestring;

                if (strncmp(name, "event:", 6) == 0 &&
                    strcmp(value, "not supported (ENOENT)") == 0) {
                        if (!missing_hw++)
                                snprintf(first, sizeof(first), "%s", name);
                }
        }
        cJSON_Delete(root);
        pg_test_perfgate(&o, "doctor", NULL);
        assert_true(o.status == 0 || o.status == 3);
        if (missing_hw > 1) {
                char *head = pg_xasprintf("%s, ", first);
                char *tail = pg_xasprintf("(%zu): not supported (ENOENT)", missing_hw);

                /* one block: the first event, the others after it, the count */
                assert_int_equal(pg_count(o.out.ptr, "not supported (ENOENT)"), 1);
                pg_assert_has(o.out.ptr, head);
                pg_assert_has(o.out.ptr, tail);
                assert_int_equal(pg_count(o.out.ptr, "fix: run on bare metal"), 1);
                free(head);
                free(tail);
        } else {
                print_message("(this host has a PMU: no repeated gap to group)\n");
        }
        /* oks are not grouped: every supported event keeps its line */
        pg_assert_has(o.out.ptr, "event:task-clock: supported");
        pg_run_out_release(&o);
        pg_run_out_release(&j);
        pg_test_sandbox_remove();
}

static void test_doctor_sched_latency(void **state)
{
        struct pg_run_out o;
        const char *sb;
        (void) state;

        sb = pg_test_sandbox();
        chmod(sb, 0777);
        pg_test_perfgate(&o, "doctor", NULL);
        if (geteuid() == 0 &&
            access("/sys/kernel/tracing/events/sched/sched_switch/format", R_OK) == 0)
                pg_assert_has(o.out.ptr, "sched-latency: allowed");
        else
                pg_assert_has(o.out.ptr, "sched-latency: not ");
        pg_run_out_release(&o);
        if (pg_test_can_be_nobody()) {
                /* a copy nobody may run (a clone under /root is mode 0700) */
                char *bin = pg_test_copy_program(pg_test_env("PERFGATE_BIN"), sb);
                char *argv[] = { bin, "doctor", NULL };

                pg_test_run_as_nobody(&o, argv);
                if (pg_test_paranoid() >= 2) {
                        /* kernel-only events open but count 0 in user space
                         * (perf stat as nobody is the oracle): not measured, as
                         * run and compare say */
                        char *perf[] = { "perf",
                                         "stat",
                                         "-x,",
                                         "-e",
                                         "context-switches",
                                         "--",
                                         "sh",
                                         "-c",
                                         "sleep 0.01; sleep 0.01",
                                         NULL };
                        struct pg_run_out p;

                        pg_assert_has(o.out.ptr, "not measured (user space only)");
                        assert_int_equal(pg_count(o.out.ptr, "event:context-switches: supported"),
                                         0);
                        pg_test_run_as_nobody(&p, perf);
                        if (p.status == 0)
                                pg_assert_has(p.err.ptr, "0,,context-switches:u");
                        pg_run_out_release(&p);
                        /* 0 is kptr_restrict's least restrictive setting: what
                         * hides kernel addresses from nobody is paranoid 2 */
                        if (pg_kptr_restrict() == 0)
                                pg_assert_has(o.out.ptr, "ok      kernel.kptr_restrict: 0\n");
                }
                if (pg_test_paranoid() >= 0) {
                        pg_assert_has(o.out.ptr, "sched-latency: not permitted");
                        pg_assert_has(o.out.ptr, "kernel.perf_event_paranoid=-1");
                        pg_assert_has(o.out.ptr, "cap_perfmon");
                        pg_assert_has(o.out.ptr, "/sys/kernel/tracing");
                }
                pg_run_out_release(&o);
                free(bin);
        }
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_doctor_groups_identical_gaps),
                cmocka_unit_test(test_doctor_sched_latency),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
