/*
 * test_launch.c - the launch handshake's spawner: a benchmark forked from a
 * perfgate that has grown would report perfgate's RSS as its max-rss (the
 * kernel folds the pre-exec RSS into ru_maxrss); forked through the spawner
 * started early, it reports its own. Also: exec failure and exit status come
 * back through the spawner exactly as through a direct fork.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>

#include "common/error.h"
#include "runner/launch.h"
#include "tests/util/testutil.h"

#define PG_BIG_BYTES (96u << 20)

static long pg_run_true_maxrss_kib(void)
{
        char *argv[] = { "true", NULL };
        struct pg_launch_opts o = { .argv = argv };
        struct pg_child c;
        struct pg_exit ex;

        assert_int_equal(pg_launch_prepare(&c, &o), 0);
        assert_int_equal(pg_launch_start(&c, "true"), 0);
        assert_int_equal(pg_launch_wait(&c, 0, NULL, 0, NULL, NULL, &ex), 0);
        assert_true(WIFEXITED(ex.status) && WEXITSTATUS(ex.status) == 0);
        return ex.ru.ru_maxrss;
}

static void test_launch_spawner_keeps_maxrss_honest(void **state)
{
        char *big;
        long with_spawner, direct;
        (void) state;

        assert_int_equal(pg_launch_spawner_start(), 0);
        big = malloc(PG_BIG_BYTES);
        assert_non_null(big);
        memset(big, 1, PG_BIG_BYTES); /* this process now holds 96 MiB */
        with_spawner = pg_run_true_maxrss_kib();
        pg_launch_spawner_stop();
        direct = pg_run_true_maxrss_kib();
        free(big);
        /* /bin/true needs ~1 MiB; the spawner adds what this test had at start */
        assert_true(with_spawner < 32 * 1024);
        /* what the spawner avoids: a direct fork reports the parent's 96 MiB */
        assert_true(direct >= (long) (PG_BIG_BYTES / 1024));
}

static void test_launch_spawner_exec_failure_and_status(void **state)
{
        char *missing[] = { "/nonexistent/bench", NULL };
        char *fails[] = { "sh", "-c", "exit 7", NULL };
        struct pg_launch_opts o = { .argv = missing };
        struct pg_child c;
        struct pg_exit ex;
        (void) state;

        assert_int_equal(pg_launch_spawner_start(), 0);
        assert_int_equal(pg_launch_prepare(&c, &o), 0);
        assert_int_equal(pg_launch_start(&c, "/nonexistent/bench"), PG_ENOTFOUND);
        assert_non_null(strstr(pg_error_last(), "/nonexistent/bench"));
        o.argv = fails;
        assert_int_equal(pg_launch_prepare(&c, &o), 0);
        assert_int_equal(pg_launch_start(&c, "sh"), 0);
        assert_int_equal(pg_launch_wait(&c, 0, NULL, 0, NULL, NULL, &ex), 0);
        assert_true(WIFEXITED(ex.status));
        assert_int_equal(WEXITSTATUS(ex.status), 7);
        pg_launch_spawner_stop();
}

static void test_launch_spawner_timeout_kills(void **state)
{
        char *argv[] = { "sleep", "10", NULL };
        struct pg_launch_opts o = { .argv = argv };
        struct pg_child c;
        struct pg_exit ex;
        uint64_t t0;
        (void) state;

        assert_int_equal(pg_launch_spawner_start(), 0);
        assert_int_equal(pg_launch_prepare(&c, &o), 0);
        assert_int_equal(pg_launch_start(&c, "sleep"), 0);
        t0 = pg_now_ns();
        assert_int_equal(pg_launch_wait(&c, 200000000ull, NULL, 0, NULL, NULL, &ex), 0);
        assert_true(ex.timed_out);
        assert_true(WIFSIGNALED(ex.status));
        assert_true(pg_now_ns() - t0 < 3000000000ull);
        pg_launch_spawner_stop();
}

/* A descendant that left the benchmark's process group (setsid) is killed
 * too: the spawner is a child subreaper and kills what was re-parented to it. */
static void test_launch_spawner_kills_setsid_descendants(void **state)
{
        char *argv[] = { "sh", "-c", "setsid sleep 30 & echo $! > daemon.pid; exit 0", NULL };
        struct pg_launch_opts o = { .argv = argv };
        struct pg_child c;
        struct pg_exit ex;
        char *text;
        long pid;
        (void) state;

        pg_test_sandbox();
        assert_int_equal(pg_launch_spawner_start(), 0);
        assert_int_equal(pg_launch_prepare(&c, &o), 0);
        assert_int_equal(pg_launch_start(&c, "sh"), 0);
        assert_int_equal(pg_launch_wait(&c, 0, NULL, 0, NULL, NULL, &ex), 0);
        text = pg_test_read("daemon.pid");
        pid = strtol(text, NULL, 10);
        free(text);
        assert_true(pid > 1);
        assert_int_equal(kill((pid_t) pid, 0), -1); /* gone, and reaped */
        pg_launch_spawner_stop();
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_launch_spawner_keeps_maxrss_honest),
                cmocka_unit_test(test_launch_spawner_exec_failure_and_status),
                cmocka_unit_test(test_launch_spawner_timeout_kills),
                cmocka_unit_test(test_launch_spawner_kills_setsid_descendants),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
