/*
 * test_lazy_libs.c - libgit2 and capstone are loaded when first used, not
 * at start-up (baselines/libgit2.h, runner/annotate.c). With a broken copy
 * of each first on LD_LIBRARY_PATH (an empty file: dlopen(3) fails "file too
 * short"):
 *   - `perfgate --version` and `perfgate run` work: nothing loads them;
 *   - a command that needs the baseline store fails with exit 4, naming
 *     the library and the Debian package to install;
 *   - `perfgate annotate` still lists the hot source lines and says why
 *     there is no disassembly.
 * The file names are the sonames the build compiled against.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <capstone/capstone.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "tests/util/testutil.h"

#define PG_STR2(x) #x
#define PG_STR(x)  PG_STR2(x)

static int setup(void **state)
{
        char *dir;
        (void) state;
        pg_test_sandbox();
        assert_int_equal(mkdir("broken", 0755), 0);
        pg_test_write("broken/libgit2.so." LIBGIT2_SOVERSION, "");
        pg_test_write("broken/libcapstone.so." PG_STR(CS_API_MAJOR), "");
        dir = realpath("broken", NULL);
        assert_non_null(dir);
        assert_int_equal(setenv("LD_LIBRARY_PATH", dir, 1), 0);
        free(dir);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        unsetenv("LD_LIBRARY_PATH");
        pg_test_sandbox_remove();
        return 0;
}

static void test_lazy_libs_not_loaded_to_run(void **state)
{
        struct pg_run_out o;
        struct pg_buf cfg = PG_BUF_INIT;
        (void) state;

        pg_test_perfgate(&o, "--version", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "perfgate "));
        pg_run_out_release(&o);

        pg_buf_printf(&cfg,
                      "{\"benchmarks\": [{\"name\": \"busy\", \"argv\": [\"%s\", \"300\"]}]}\n",
                      pg_test_fixture("runner-busy"));
        pg_test_write("perfgate.json", cfg.ptr);
        pg_buf_release(&cfg);
        pg_test_perfgate(&o, "run", "-q", "--repeat", "1", "--warmup", "0", "--counters",
                         "software", "--freq", "999", "--min-samples", "1", "perfgate.json", NULL);
        if (o.status != 0)
                fail_msg("run: exit %d: %s", o.status, o.err.ptr);
        assert_true(pg_test_exists(".perfgate/results/busy.json"));
        pg_run_out_release(&o);

        /* annotate: the lines, and why there are no instructions */
        pg_test_perfgate(&o, "annotate", ".perfgate/results/busy.json", "main", NULL);
        if (o.status != 0)
                fail_msg("annotate: exit %d: %s", o.status, o.err.ptr);
        assert_non_null(strstr(o.out.ptr, "busy.c:"));
        if (!strstr(o.out.ptr, "cannot load the disassembler libcapstone.so.") &&
            !strstr(o.err.ptr, "cannot load the disassembler libcapstone.so."))
                fail_msg("annotate does not say capstone failed to load:\n%s\n%s", o.out.ptr,
                         o.err.ptr);
        pg_run_out_release(&o);
}

static void test_lazy_libs_store_says_what_to_install(void **state)
{
        struct pg_run_out o;
        (void) state;

        assert_int_equal(system("git init -q repo"), 0);
        assert_int_equal(chdir("repo"), 0);
        pg_test_perfgate(&o, "baseline", "list", NULL);
        assert_int_equal(chdir(".."), 0);
        assert_int_equal(o.status, 4);
        assert_non_null(strstr(o.err.ptr, "cannot load libgit2.so." LIBGIT2_SOVERSION));
        assert_non_null(strstr(o.err.ptr, "apt-get install libgit2-" LIBGIT2_SOVERSION));
        pg_run_out_release(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_lazy_libs_not_loaded_to_run, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lazy_libs_store_says_what_to_install, setup,
                                                teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
