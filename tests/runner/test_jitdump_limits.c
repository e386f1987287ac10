/*
 * test_jitdump_limits.c - what pg_jitdump_load() says about a jitdump it
 * reads nothing of: one over its 1 GiB limit is "too large (3 GiB, limit
 * 1 GiB)" (a sparse file: no disk is used), not a file "being written or
 * damaged"; one that is not a regular file says that.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "runner/jitdump.h"
#include "runner/jitmap.h"
#include "tests/util/testutil.h"

static void test_jitdump_too_large(void **state)
{
        struct pg_jitmap m;
        int fd;
        (void) state;

        pg_test_sandbox();
        fd = open("jit-1.dump", O_CREAT | O_WRONLY | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, 3ll << 30), 0);
        close(fd);
        memset(&m, 0, sizeof(m));
        assert_int_equal(pg_jitdump_load(&m, "jit-1.dump"), PG_EIO);
        assert_string_equal(pg_error_last(),
                            "jitdump 'jit-1.dump' is too large (3 GiB, limit 1 GiB)");
        assert_int_equal(m.n, 0);
        pg_jitmap_release(&m);

        assert_int_equal(mkdir("adir", 0755), 0);
        memset(&m, 0, sizeof(m));
        assert_int_equal(pg_jitdump_load(&m, "adir"), PG_EIO);
        assert_string_equal(pg_error_last(), "jitdump 'adir' is not a regular file");
        pg_jitmap_release(&m);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_jitdump_too_large),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
