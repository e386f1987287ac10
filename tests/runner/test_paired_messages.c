/*
 * A paired run that fails says it was a run of that side's build that
 * failed (timed out, with the limit, or its exit status): "build" alone
 * reads as the compile, which happened before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/error.h"
#include "runner/paired.h"

static void pg_bench_of(struct pg_bench *b, char **argv, size_t argc)
{
        memset(b, 0, sizeof(*b));
        b->name = "slowbench";
        b->argc = argc;
        b->argv = argv;
        b->exec_path = argv[0];
        b->repeat = b->warmup = -1;
        b->timeout_sec = -1;
}

static int pg_block(const struct pg_bench *base, const struct pg_bench *head, uint64_t timeout_ns)
{
        struct pg_paired_opts po;
        struct pg_paired p;
        int error;
        memset(&po, 0, sizeof(po));
        po.base = base;
        po.head = head;
        po.timeout_ns = timeout_ns;
        pg_paired_init(&p, &po);
        error = pg_paired_block(&p);
        pg_paired_release(&p);
        return error;
}

static void test_paired_run_timeout_is_a_run(void **state)
{
        char *ok[] = { "/bin/true", NULL }, *slow[] = { "/bin/sleep", "30", NULL };
        struct pg_bench base, head;
        (void) state;
        pg_bench_of(&base, ok, 1);
        pg_bench_of(&head, slow, 2);
        assert_int_equal(pg_block(&base, &head, 1500000000ull), PG_EMEASURE);
        if (!strstr(pg_error_last(),
                    "a run of head's build of benchmark 'slowbench' timed out after 1.5 s"))
                fail_msg("got: %s", pg_error_last());
        assert_null(strstr(pg_error_last(), "head build"));
}

static void test_paired_run_status_is_a_run(void **state)
{
        char *ok[] = { "/bin/true", NULL }, *bad[] = { "/bin/sh", "-c", "exit 3", NULL };
        struct pg_bench base, head;
        (void) state;
        pg_bench_of(&base, bad, 3);
        pg_bench_of(&head, ok, 1);
        assert_int_equal(pg_block(&base, &head, 120000000000ull), PG_EMEASURE);
        if (!strstr(pg_error_last(), "a run of base's build of benchmark 'slowbench' exited "
                                     "with status 3"))
                fail_msg("got: %s", pg_error_last());
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paired_run_timeout_is_a_run),
                cmocka_unit_test(test_paired_run_status_is_a_run),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
