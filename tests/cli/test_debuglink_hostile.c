/*
 * test_debuglink_hostile.c - a benchmark's .gnu_debuglink names a file
 * perfgate then looks for beside it (runner/debugfind.c); a pull request
 * controls that name and that file. A FIFO, a link to /dev/zero or a large
 * file of zeros in its place once hung `perfgate run` after the benchmark
 * (blocked in open(2), or reading without end), deaf to SIGINT and SIGTERM.
 * Now the run ends as with no debug file at all: exit 0, a result with a
 * profile whose stacks name main from the symbol table; so too with a FIFO
 * where the build-id names the debug file under --debug-dir. Each run is bounded by
 * timeout(1) so that a regression fails the test instead of hanging it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "tests/util/testutil.h"

static const char pg_src[] =
    "#include <time.h>\n"
    "__attribute__((noinline)) static unsigned long spin_here(unsigned long n)\n"
    "{ unsigned long x = 1; for (unsigned long i = 0; i < n; i++) x = x * 31 + i;\n"
    "  return x; }\n"
    "int main(void) { struct timespec t; unsigned long s = 0;\n"
    "  do { s += spin_here(100000); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); }\n"
    "  while (t.tv_sec == 0 && t.tv_nsec < 60000000);\n"
    "  return (int) (s & 1) * 0; }\n";

/* Skip unless gcc and objcopy are installed (they build the program). */
static void pg_need_tools(void)
{
        if (system("command -v gcc >/dev/null && command -v objcopy >/dev/null") != 0) {
                print_message(
                    "SKIP: gcc or objcopy not installed (apt-get install gcc binutils)\n");
                skip();
        }
}

/* Run @argv (perfgate run under a 240 s KILL timeout, writing out/prog.json):
 * it must end, with a profile whose stacks name main. */
static void pg_expect_profile(char **argv)
{
        struct pg_run_out o;
        struct pg_buf json = { 0 };

        pg_test_run(&o, NULL, argv);
        if (o.status != 0)
                fail_msg("exit %d (137: killed by the timeout, perfgate hung)\nstderr: %s",
                         o.status, o.err.ptr);
        assert_int_equal(pg_read_file("out/prog.json", &json), 0);
        if (!strstr(json.ptr, "\"profile\"") || !strstr(json.ptr, ";main"))
                fail_msg("no profile with main in it:\n%.2000s", json.ptr);
        pg_buf_release(&json);
        pg_run_out_release(&o);
}

/* prog (no build-id, so that the debug file is checked by the CRC of all
 * of it), stripped of its DWARF, with a debuglink to prog.debug, which @make
 * then replaces; a profiled run must end, its stacks naming main. */
static void pg_run_with(const char *make)
{
        char *argv[] = {
                "timeout", "-s",    "KILL",     "240",    (char *) pg_test_env("PERFGATE_BIN"),
                "run",     "-q",    "--repeat", "1",      "--warmup",
                "0",       "--out", "out",      "./prog", NULL
        };

        pg_need_tools();
        pg_test_write("prog.c", pg_src);
        pg_test_sh("gcc -O1 -g -Wl,--build-id=none -o prog prog.c && objcopy --only-keep-debug "
                   "prog prog.debug && "
                   "objcopy --strip-debug --add-gnu-debuglink=prog.debug prog");
        pg_test_sh(make);
        pg_expect_profile(argv);
}

static void test_debuglink_fifo(void **state)
{
        (void) state;
        pg_run_with("rm prog.debug && mkfifo prog.debug");
}

static void test_debuglink_dev_zero(void **state)
{
        (void) state;
        pg_run_with("rm prog.debug && ln -s /dev/zero prog.debug");
}

static void test_debuglink_sparse_zeros(void **state)
{
        (void) state;
        /* 64 GiB of zeros on disk as a hole: reading it all takes minutes */
        pg_run_with("rm prog.debug && truncate -s 64G prog.debug");
}

/* The same by build-id: a FIFO at DIR/.build-id/xx/rest.debug under
 * --debug-dir DIR, where the search looks first (libdwfl's own open of that
 * name blocked on it). */
static void test_build_id_fifo(void **state)
{
        char *argv[] = {
                "timeout", "-s",          "KILL",     "240",   (char *) pg_test_env("PERFGATE_BIN"),
                "run",     "-q",          "--repeat", "1",     "--warmup",
                "0",       "--debug-dir", "dd",       "--out", "out",
                "./prog",  NULL
        };

        (void) state;
        pg_need_tools();
        pg_test_write("prog.c", pg_src);
        pg_test_sh("gcc -O1 -g -Wl,--build-id -o prog prog.c && objcopy --strip-debug prog && "
                   "id=$(readelf -n prog | awk '/Build ID/ { print $3 }') && "
                   "mkdir -p dd/.build-id/$(echo $id | cut -c1-2) && "
                   "mkfifo dd/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug");
        pg_expect_profile(argv);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_debuglink_fifo, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_debuglink_dev_zero, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_debuglink_sparse_zeros, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_build_id_fifo, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
