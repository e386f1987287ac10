/*
 * test_doctor.c - `perfgate doctor`: frame pointers judged from the code of
 * real binaries built both ways, debuginfo found by debuglink after a real
 * objcopy split, machine checks read from this host (software events count,
 * hardware events are classified, never reported as counted when the core
 * PMU is absent), JSON output, exit status and usage errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/json.h"
#include "runner/doctor.h"
#include "tests/util/testutil.h"

static void test_doctor_frame_pointers_from_code(void **state)
{
        size_t with = 0, without = 0, n;
        char *fw = pg_xstrdup(pg_test_fixture("fp_with"));
        (void) state;

        /* the callers work_b, work_c and main set up %rbp with
         * -fno-omit-frame-pointer; the leaf work_a (no frame either way) and
         * the crt stubs without calls are not judged */
        n = pg_elf_frame_pointer_share(fw, &with);
        assert_int_equal(n, 3);
        assert_int_equal(with, 3);
        n = pg_elf_frame_pointer_share(pg_test_fixture("fp_without"), &without);
        assert_int_equal(n, 3);
        assert_int_equal(without, 0);
        assert_int_equal(pg_elf_frame_pointer_share("/nonexistent/x", &with), 0);
        free(fw);
}

static const struct pg_check *pg_find(const struct pg_doctor *d, const char *name)
{
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->checks[i].name, name) == 0)
                        return &d->checks[i];
        return NULL;
}

static int pg_host_has_core_pmu(void)
{
        return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
               access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

static void test_doctor_machine_checks(void **state)
{
        struct pg_doctor d;
        const struct pg_check *c;
        (void) state;

        pg_doctor_run(&d, NULL, 0);
        assert_true(d.can_measure);
        c = pg_find(&d, "event:task-clock");
        assert_non_null(c);
        assert_int_equal(c->status, PG_CHECK_OK);
        c = pg_find(&d, "event:cycles");
        assert_non_null(c);
        if (!pg_host_has_core_pmu()) {
                assert_int_equal(c->status, PG_CHECK_MISSING);
                assert_non_null(strstr(c->value, "not supported"));
                assert_non_null(c->fix);
                assert_int_equal(pg_find(&d, "pmu")->status, PG_CHECK_MISSING);
        }
        for (const char *k = "kernel.perf_event_paranoid"; k; k = NULL)
                assert_non_null(pg_find(&d, k));
        assert_non_null(pg_find(&d, "kernel.nmi_watchdog"));
        assert_non_null(pg_find(&d, "kernel.perf_event_max_stack"));
        assert_non_null(pg_find(&d, "cpu.isolated"));
        assert_non_null(pg_find(&d, "valgrind"));
        for (size_t i = 0; i < d.n; i++)
                if (d.checks[i].status != PG_CHECK_OK)
                        assert_non_null(d.checks[i].fix); /* every gap says how to fix it */
        pg_doctor_release(&d);
}

static void test_doctor_debuglink_found(void **state)
{
        struct pg_run_out o;
        struct pg_doctor d;
        const struct pg_check *c;
        char *bin;
        (void) state;

        pg_test_sandbox();
        {
                char *cp[] = { "cp", (char *) pg_test_fixture("fp_with"), "app", NULL };
                assert_int_equal(pg_test_run(&o, NULL, cp), 0);
                pg_run_out_release(&o);
        }
        {
                char *a[] = { "objcopy", "--only-keep-debug", "app", "app.debug", NULL };
                char *b[] = { "objcopy", "--strip-all", "--add-gnu-debuglink=app.debug", "app",
                              NULL };
                assert_int_equal(pg_test_run(&o, NULL, a), 0);
                pg_run_out_release(&o);
                assert_int_equal(pg_test_run(&o, NULL, b), 0);
                pg_run_out_release(&o);
        }
        bin = "./app";
        pg_doctor_run(&d, &bin, 1);
        c = pg_find(&d, "binary:./app:symbols");
        assert_non_null(c);
        assert_int_equal(c->status, PG_CHECK_WARN);
        c = pg_find(&d, "binary:./app:debuginfo");
        assert_non_null(c);
        assert_int_equal(c->status, PG_CHECK_OK);
        assert_non_null(strstr(c->value, "debuglink"));
        pg_doctor_release(&d);
        assert_int_equal(unlink("app.debug"), 0);
        pg_doctor_run(&d, &bin, 1);
        c = pg_find(&d, "binary:./app:debuginfo");
        assert_int_equal(c->status, PG_CHECK_WARN);
        assert_string_equal(c->value, "none found");
        pg_doctor_release(&d);
        pg_test_sandbox_remove();
}

static void test_doctor_cli_json_and_errors(void **state)
{
        struct pg_run_out o;
        cJSON *root = NULL;
        const cJSON *checks, *it;
        int seen_binary = 0;
        (void) state;

        assert_int_equal(pg_test_perfgate(&o, "doctor", "--json", "/nonexistent/bench", NULL), 0);
        assert_int_equal(pg_json_parse(o.out.ptr, o.out.len, "stdout", 0, &root), 0);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "can_measure")));
        checks = cJSON_GetObjectItem(root, "checks");
        assert_true(cJSON_GetArraySize(checks) > 20);
        cJSON_ArrayForEach(it, checks)
        {
                const char *name = pg_json_get_string(it, "name");
                const char *st = pg_json_get_string(it, "status");
                assert_non_null(name);
                assert_true(strcmp(st, "ok") == 0 || strcmp(st, "warn") == 0 ||
                            strcmp(st, "missing") == 0);
                if (strcmp(name, "binary:/nonexistent/bench") == 0) {
                        seen_binary = 1;
                        assert_string_equal(st, "missing");
                }
        }
        assert_true(seen_binary);
        cJSON_Delete(root);
        pg_run_out_release(&o);

        assert_int_equal(pg_test_perfgate(&o, "doctor", NULL), 0);
        assert_non_null(strstr(o.out.ptr, "event:task-clock: supported"));
        assert_non_null(strstr(o.out.ptr, "perfgate can measure on this machine"));
        pg_run_out_release(&o);

        assert_int_equal(pg_test_perfgate(&o, "doctor", "--bogus", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "perfgate help doctor"));
        pg_run_out_release(&o);
}

static void test_doctor_unprivileged_user(void **state)
{
        struct pg_run_out o;
        (void) state;

        if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) {
                skip(); /* needs root to drop to an unprivileged uid */
                return;
        }
        {
                char *argv[] = { "setpriv",
                                 "--reuid=65534",
                                 "--regid=65534",
                                 "--clear-groups",
                                 (char *) pg_test_env("PERFGATE_BIN"),
                                 "doctor",
                                 NULL };
                pg_test_run(&o, NULL, argv);
        }
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "privileges: not root"));
        assert_non_null(strstr(o.out.ptr, "perf_event_paranoid applies to this user"));
        assert_non_null(strstr(o.out.ptr, "event:task-clock: supported"));
        pg_run_out_release(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_doctor_frame_pointers_from_code),
                cmocka_unit_test(test_doctor_machine_checks),
                cmocka_unit_test(test_doctor_debuglink_found),
                cmocka_unit_test(test_doctor_cli_json_and_errors),
                cmocka_unit_test(test_doctor_unprivileged_user),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
