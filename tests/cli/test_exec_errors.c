/*
 * test_exec_errors.c - bad input that perfgate must name exactly, with the
 * documented exit status (docs/run.md, docs/record.md, README "Exit status"):
 *   - a program that cannot be executed (missing, not executable, a
 *     directory, an ELF file the kernel refuses with ENOEXEC, a script
 *     without "#!" or whose interpreter is missing) is exit 2 from `record`
 *     and `run`, never retried through /bin/sh (whose 127 used to become a
 *     result written with exit 0), and no result is written;
 *   - a newline or a byte that is not UTF-8 in user input is shown escaped
 *     (\n, \xff) in the message, like ESC;
 *   - a "roi" benchmark that wrote 'enable' without its '\n' is told so;
 *   - a result whose stack key holds \u0000 or an empty frame is refused
 *     (exit 2) naming the key, by show, flamegraph, diff and compare alike;
 *     folded text is read as flamegraph.pl reads it (trailing empty frames
 *     dropped), and a line with a NUL byte is skipped with a warning;
 *   - JSON nested deeper than the parser's limit says so, with the place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/json.h"
#include "tests/util/testutil.h"

#define pg_assert_has(hay, needle)                                                                 \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("missing \"%s\" in:\n%s", (needle), (hay));                       \
        } while (0)

static void pg_write_mode(const char *path, const char *text, size_t len, mode_t mode)
{
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(text, 1, len, f), len);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(path, mode), 0);
}

/* The programs that cannot be executed, and what the message must say. */
static const struct pg_bad_prog {
        const char *path;
        const char *want;
} pg_bad_progs[] = {
        { "./missing", "cannot execute './missing': No such file or directory" },
        { "nosuchprogram-pg", "cannot execute 'nosuchprogram-pg': not found in PATH" },
        { "./noexec.sh", "cannot execute './noexec.sh': Permission denied: it is not executable" },
        { "./adir", "cannot execute './adir': it is a directory" },
        { "./badelf", "cannot execute './badelf': Exec format error: an ELF file" },
        { "./noshebang.sh", "a script needs a '#!' line naming its interpreter" },
        { "./badinterp.sh", "the interpreter on its '#!' line does not exist" },
};

static void pg_make_bad_progs(void)
{
        pg_write_mode("noexec.sh", "#!/bin/sh\nexit 0\n", 17, 0644);
        assert_int_equal(mkdir("adir", 0755), 0);
        /* the ELF magic, then garbage: execve(2) says ENOEXEC, and glibc's
         * execvp(3) would run it through /bin/sh */
        pg_write_mode("badelf", "\177ELFgarbage", 11, 0755);
        pg_write_mode("noshebang.sh", "echo ran >ran.txt\n", 18, 0755);
        pg_write_mode("badinterp.sh", "#!/nonexistent/interp\n", 22, 0755);
}

static void test_record_cannot_execute(void **state)
{
        (void) state;
        pg_make_bad_progs();
        for (size_t i = 0; i < sizeof(pg_bad_progs) / sizeof(pg_bad_progs[0]); i++) {
                struct pg_run_out o;
                pg_test_perfgate(&o, "record", "-o", "r.json", "--", pg_bad_progs[i].path, NULL);
                if (o.status != 2)
                        fail_msg("record %s: exit %d: %s", pg_bad_progs[i].path, o.status,
                                 o.err.ptr);
                pg_assert_has(o.err.ptr, pg_bad_progs[i].want);
                assert_false(pg_test_exists("r.json"));
                assert_false(pg_test_exists("ran.txt")); /* no shell ran it */
                pg_run_out_release(&o);
        }
}

static void test_run_cannot_execute(void **state)
{
        (void) state;
        pg_make_bad_progs();
        for (size_t i = 0; i < sizeof(pg_bad_progs) / sizeof(pg_bad_progs[0]); i++) {
                struct pg_run_out o;
                char *cfg =
                    pg_xasprintf("{\"benchmarks\": [{\"name\": \"b\", \"argv\": [\"%s\"]}]}\n",
                                 pg_bad_progs[i].path);
                pg_test_write("m.json", cfg);
                free(cfg);
                pg_test_perfgate(&o, "run", "m.json", "--out", "out", "--repeat", "1", "--warmup",
                                 "0", "--no-profile", NULL);
                if (o.status != 2)
                        fail_msg("run %s: exit %d: %s", pg_bad_progs[i].path, o.status, o.err.ptr);
                /* run checks a path up front ("benchmark path ..."); what only
                 * exec can find out is reported by exec, naming the benchmark */
                if (!strstr(o.err.ptr, pg_bad_progs[i].want) &&
                    !strstr(o.err.ptr, "benchmark path '") &&
                    !strstr(o.err.ptr, "not found in PATH"))
                        fail_msg("run %s: %s", pg_bad_progs[i].path, o.err.ptr);
                assert_false(pg_test_exists("out/b.json"));
                assert_false(pg_test_exists("ran.txt"));
                pg_run_out_release(&o);
        }
}

/* The ENOEXEC case through run names the benchmark and the fix. */
static void test_run_exec_format_error(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_make_bad_progs();
        pg_test_write("m.json",
                      "{\"benchmarks\": [{\"name\": \"elf\", \"argv\": [\"./badelf\"]}]}\n");
        pg_test_perfgate(&o, "run", "m.json", "--out", "out", "--repeat", "1", "--warmup", "0",
                         "--no-profile", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "benchmark 'elf': cannot execute './badelf': Exec format error");
        assert_null(strstr(o.err.ptr, "status 127"));
        pg_run_out_release(&o);
}

/* A newline and a byte that is not UTF-8 in user input: escaped. */
static void test_user_input_escaped(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_perfgate(&o, "record", "--name", "a\nb", "-o", "x.json", "--", "true", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "--name 'a\\nb' is not a valid result name");
        pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
        /* the message and "see 'perfgate help record'": two lines */
        {
                size_t lines = 0;
                for (const char *p = o.err.ptr; *p; p++)
                        lines += *p == '\n';
                assert_int_equal(lines, 2);
        }
        pg_run_out_release(&o);

        pg_test_perfgate(&o, "show", "no\xff\nsuch.json", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "no\\xff");
        pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
        pg_run_out_release(&o);

        pg_test_perfgate(&o, "record", "-o", "r.json", "--", pg_test_fixture("runner-busy"), "200",
                         NULL);
        if (o.status != 0)
                fail_msg("record: exit %d: %s", o.status, o.err.ptr);
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "annotate", "r.json", "ho\xff\nx", NULL);
        assert_int_equal(o.status, 2);
        pg_assert_has(o.err.ptr, "function 'ho\\xff\\nx' has no samples");
        pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
        pg_run_out_release(&o);
}

/* "roi": true and 'enable' written without its '\n' before exit. */
static void test_roi_enable_without_newline(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_write_mode("nonl.sh", "#!/bin/sh\nprintf enable > /proc/self/fd/$PERF_CTL_FD\n", 54,
                      0755);
        pg_test_write("m.json", "{\"benchmarks\": [{\"name\": \"nonl\", \"argv\": [\"./nonl.sh\"], "
                                "\"roi\": true}]}\n");
        pg_test_perfgate(&o, "run", "m.json", "--out", "out", "--repeat", "1", "--warmup", "0",
                         "--no-profile", NULL);
        assert_int_equal(o.status, 3);
        pg_assert_has(o.err.ptr, "never completed an 'enable' command");
        pg_assert_has(o.err.ptr, "it wrote 'enable' but exited before the '\\n'");
        pg_run_out_release(&o);
}

/* A minimal result whose profile has the stacks @stacks (JSON members). */
static void pg_write_result(const char *path, const char *stacks, unsigned samples)
{
        char *text = pg_xasprintf(
            "{\"schema\": \"perfgate/result/1\", \"name\": \"b\", \"machine\": \"m\", "
            "\"created\": \"2026-01-01T00:00:00Z\", \"command\": [\"b\"], \"repeat\": 1, "
            "\"warmup\": 0, \"host\": {\"arch\": \"x86_64\", \"cpu\": \"c\", \"cpus\": 1, "
            "\"kernel\": \"k\", \"pmu\": [], \"virtualized\": false, \"perf_event_paranoid\": 2, "
            "\"exclude_kernel\": false}, \"metrics\": {\"task-clock\": {\"unit\": \"ns\", "
            "\"values\": [1000]}}, \"profile\": {\"event\": \"cpu-clock\", \"samples\": %u, "
            "\"stacks\": {%s}}}\n",
            samples, stacks);
        pg_test_write(path, text);
        free(text);
}

static void pg_expect_status(struct pg_run_out *o, const char *what, const char *want)
{
        if (o->status != 2)
                fail_msg("%s: exit %d: %s", what, o->status, o->err.ptr);
        pg_assert_has(o->err.ptr, want);
        pg_test_assert_terminal_safe(o->err.ptr, o->err.len);
        pg_run_out_release(o);
}

/* show, flamegraph, diff (either side) and compare refuse @path alike. */
static void pg_expect_refused(const char *path, const char *want)
{
        struct pg_run_out o;
        char *cmd;

        pg_test_perfgate(&o, "show", path, NULL);
        pg_expect_status(&o, "show", want);
        pg_test_perfgate(&o, "flamegraph", path, "-o", "f.svg", NULL);
        pg_expect_status(&o, "flamegraph", want);
        pg_test_perfgate(&o, "diff", "ok.json", path, "-o", "d.svg", NULL);
        pg_expect_status(&o, "diff (head)", want);
        pg_test_perfgate(&o, "diff", path, "ok.json", "-o", "d.svg", NULL);
        pg_expect_status(&o, "diff (base)", want);
        assert_false(pg_test_exists("f.svg"));
        assert_false(pg_test_exists("d.svg"));
        /* compare: the head results directory holds it */
        assert_int_equal(system("rm -rf head && mkdir head"), 0);
        cmd = pg_xasprintf("cp %s head/b.json", path);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        pg_test_perfgate(&o, "compare", "./base", "--results", "head", NULL);
        pg_expect_status(&o, "compare", want);
}

static void test_stack_keys_refused(void **state)
{
        (void) state;
        pg_write_result("ok.json", "\"r;a\": 2", 2);
        assert_int_equal(system("mkdir -p base && cp ok.json base/b.json"), 0);

        /* a NUL would cut the key: "r;a\u0000b" used to be drawn as "r;a" */
        pg_write_result("nul.json", "\"r;a\\u0000b\": 3, \"r;c\": 2", 5);
        pg_expect_refused("nul.json", "\\u0000 (a NUL character) in the string \"r;a\\u0000b\"");

        pg_write_result("inner.json", "\"r;a;;b\": 3", 3);
        pg_expect_refused("inner.json", "has a stack that has an empty frame: 'r;a;;b'");
        pg_write_result("trail.json", "\"r;a;\": 3", 3);
        pg_expect_refused("trail.json", "has an empty frame: 'r;a;'");
        pg_write_result("semi.json", "\";\": 3", 3);
        pg_expect_refused("semi.json", "has an empty frame: ';'");
        pg_write_result("empty.json", "\"\": 3", 3);
        pg_expect_refused("empty.json", "has a stack that is empty: ''");
}

/* Folded text is read as flamegraph.pl reads it: empty frames at the end
 * are dropped ("r;a;" is "r;a"), an inner one is a frame without a name;
 * ";" is an empty stack and a NUL byte would cut the stack: both lines
 * are skipped with one warning each. */
static void test_folded_text_empty_frames(void **state)
{
        static const char text[] = "r;a;;b 3\nr;a; 4\n; 1\nr;x\0y 5\nr;c 2\n";
        struct pg_run_out o;
        char *svg;
        (void) state;

        pg_write_mode("in.folded", text, sizeof(text) - 1, 0644);
        pg_test_perfgate(&o, "flamegraph", "in.folded", "-o", "f.svg", NULL);
        if (o.status != 0)
                fail_msg("flamegraph: exit %d: %s", o.status, o.err.ptr);
        pg_assert_has(o.err.ptr, "ignored 1 line with an empty stack (first: line 3)");
        pg_assert_has(o.err.ptr, "ignored 1 line with a NUL byte in the stack (first: line 4)");
        pg_run_out_release(&o);
        svg = pg_test_read("f.svg");
        pg_assert_has(svg, "all (9 samples, 100%)");
        pg_assert_has(svg, "a (7 samples, 77.78%)"); /* r;a;;b 3 + r;a; 4 */
        pg_assert_has(svg, "b (3 samples, 33.33%)"); /* below the nameless frame */
        assert_null(strstr(svg, "data-n=\"x\""));
        free(svg);
}

static void test_json_nested_too_deep(void **state)
{
        struct pg_buf b = PG_BUF_INIT;
        struct pg_run_out o;
        (void) state;

        pg_buf_puts(&b, "{\"a\":");
        for (int i = 0; i < 1100; i++)
                pg_buf_putc(&b, '[');
        for (int i = 0; i < 1100; i++)
                pg_buf_putc(&b, ']');
        pg_buf_puts(&b, "}\n");
        pg_test_write("deep.json", b.ptr);
        pg_buf_release(&b);
        pg_test_perfgate(&o, "show", "deep.json", NULL);
        assert_int_equal(o.status, 2);
        /* '{' and 999 '[' are the 1000 levels cJSON allows: the next '[' is
         * byte 1004 (column 1005) */
        pg_assert_has(o.err.ptr, "'deep.json': invalid JSON at line 1, column 1005 (byte 1004): "
                                 "nested deeper than 1000 levels");
        pg_run_out_release(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_record_cannot_execute, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_run_cannot_execute, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_run_exec_format_error, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_user_input_escaped, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_roi_enable_without_newline,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_stack_keys_refused, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_folded_text_empty_frames,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_json_nested_too_deep, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
