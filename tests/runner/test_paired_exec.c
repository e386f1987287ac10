/*
 * test_paired_exec.c - a paired run (compare --confirm, bisect) of a build
 * whose program cannot be executed: the program comes from a commit's
 * build, so that build cannot be measured (PG_EMEASURE: bisect skips the
 * commit), with the exec reason; an ELF file the kernel refuses with
 * ENOEXEC is never run through /bin/sh (whose exit 127 used to be the
 * "failure" reported).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error.h"
#include "runner/paired.h"
#include "tests/util/testutil.h"

static void pg_bench_of(struct pg_bench *b, char **argv)
{
        memset(b, 0, sizeof(*b));
        b->name = "bench";
        b->argc = 1;
        b->argv = argv;
        b->exec_path = argv[0];
        b->repeat = b->warmup = -1;
        b->timeout_sec = -1;
}

static void test_paired_exec_failure_is_the_build(void **state)
{
        char *ok[] = { "/bin/true", NULL }, *bad[] = { NULL, NULL };
        struct pg_bench base, head;
        struct pg_paired_opts po;
        struct pg_paired p;
        FILE *f;
        (void) state;

        pg_test_sandbox();
        f = fopen("badelf", "wb");
        assert_non_null(f);
        fputs("\177ELFgarbage", f);
        fclose(f);
        assert_int_equal(chmod("badelf", 0755), 0);
        bad[0] = "./badelf";
        pg_bench_of(&base, ok);
        pg_bench_of(&head, bad);
        memset(&po, 0, sizeof(po));
        po.base = &base;
        po.head = &head;
        po.timeout_ns = 120000000000ull;
        pg_paired_init(&p, &po);
        assert_int_equal(pg_paired_block(&p), PG_EMEASURE);
        if (!strstr(pg_error_last(), "a run of head's build of benchmark 'bench': cannot "
                                     "execute './badelf': Exec format error"))
                fail_msg("got: %s", pg_error_last());
        assert_null(strstr(pg_error_last(), "127"));
        pg_paired_release(&p);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paired_exec_failure_is_the_build),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
