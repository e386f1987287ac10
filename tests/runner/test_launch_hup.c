/*
 * test_launch_hup.c - pg_launch_wait() must sleep while the benchmark runs,
 * even when one of the extra descriptors it polls has hung up for good.
 *
 * A sampling event reports POLLHUP from the moment its task's perf context
 * has exited (kernel/events/core.c, perf_poll() and is_event_hup()) until
 * the task is reaped; a pipe whose writers are gone reports POLLHUP for
 * ever. Polling such a descriptor again returns at once, so a wait that
 * kept it would turn into a busy loop of poll() and, through the spawner,
 * one WAIT round trip per pass: two processes waking each other thousands
 * of times a second, which on a loaded machine starves the very task being
 * waited for (and other runs' benchmarks) until the timeout.
 *
 * The benchmark here is `sleep 2`, the hung-up descriptor a pipe with no
 * writer. The callback counts the passes: a wait that sleeps in poll()
 * makes one pass per 100 ms (about 20); the bound is generous (200) and a
 * spinning wait exceeds it by orders of magnitude on any machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>

#include "runner/launch.h"

#define PG_MAX_PASSES 200

static int pg_count_pass(void *ctx)
{
        (*(unsigned long *) ctx)++;
        return 0;
}

static void pg_wait_with_hung_up_fd(bool spawner)
{
        char *argv[] = { "sleep", "2", NULL };
        struct pg_launch_opts o = { .argv = argv };
        struct pg_child c;
        struct pg_exit ex;
        unsigned long passes = 0;
        int p[2];

        if (spawner)
                assert_int_equal(pg_launch_spawner_start(), 0);
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        close(p[1]); /* p[0] now polls POLLHUP for ever */
        assert_int_equal(pg_launch_prepare(&c, &o), 0);
        assert_int_equal(pg_launch_start(&c, "sleep"), 0);
        assert_int_equal(pg_launch_wait(&c, 0, &p[0], 1, pg_count_pass, &passes, &ex), 0);
        close(p[0]);
        if (spawner)
                pg_launch_spawner_stop();
        assert_true(WIFEXITED(ex.status) && WEXITSTATUS(ex.status) == 0);
        print_message("%lu passes through the wait loop for a 2 s benchmark (%s)\n", passes,
                      spawner ? "through the spawner" : "direct child");
        assert_true(passes >= 1);
        assert_true(passes <= PG_MAX_PASSES);
}

static void test_launch_wait_sleeps_past_a_hung_up_fd(void **state)
{
        (void) state;
        pg_wait_with_hung_up_fd(false);
}

static void test_launch_wait_sleeps_past_a_hung_up_fd_via_spawner(void **state)
{
        (void) state;
        pg_wait_with_hung_up_fd(true);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_launch_wait_sleeps_past_a_hung_up_fd),
                cmocka_unit_test(test_launch_wait_sleeps_past_a_hung_up_fd_via_spawner),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
