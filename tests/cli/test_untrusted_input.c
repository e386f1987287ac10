/*
 * test_untrusted_input.c - the perfgate binary on input a project, its
 * repository or its data branch controls (docs/limits.md, "Names", "Input
 * sizes", "Links and shared directories"):
 *  - `baseline list` shows a commit subject and data-branch entry names with
 *    ESC, BEL, CR, newline and a bidi override escaped, a huge subject cut;
 *    `show` and `compare` show a name holding U+2067 as \u2067;
 *  - a `.perfgate` symbolic link committed in the project is refused by
 *    `run` (exit 2, its target untouched); `--out` through it keeps the
 *    documented rule for a directory the user names;
 *  - a benchmark that swaps `--out` for a link mid-run gets nothing written
 *    through the link (exit 4);
 *  - `flamegraph`/`diff`/`show` refuse a device, and a pipe is read with a
 *    bound; perfgate.json as a device too;
 *  - `--filter` regexes whose repetitions write out to huge automata are
 *    refused before regcomp() (exit 2), ordinary ones still select;
 *  - perfgate.json: an argument or environment entry longer than
 *    MAX_ARG_STRLEN, "\u0000" in a string, a lone surrogate escape, an
 *    unclosed comment, "base" empty or starting with '-', duplicate names
 *    (both indexes named) - exit 2 before anything runs;
 *  - a benchmark path that is a loop of symbolic links says so;
 *  - `bisect --machine ../x` and `fold --event-filter=` are usage errors;
 *  - a revision `:/TEXT` (a search of every ref's messages) is refused, and
 *    `baseline show HEAD` without commits says so;
 *  - `run --filter NONE -q` still warns that nothing ran.
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
#include "tests/util/testutil.h"

#define PERFGATE PG_TEST_PERFGATE_EXPECT

static void expect(const struct pg_buf *b, const char *needle)
{
        if (!strstr(b->ptr ? b->ptr : "", needle))
                fail_msg("missing '%s' in:\n%s", needle, b->ptr ? b->ptr : "");
}

/* Run the shell command @cmd ("$PERFGATE_BIN" is the perfgate binary under
 * test); return its exit status. */
static int run_sh(struct pg_run_out *o, const char *cmd)
{
        char *argv[] = { "sh", "-c", (char *) cmd, NULL };

        (void) pg_test_env("PERFGATE_BIN");
        return pg_test_run(o, NULL, argv);
}

/* A git project in the sandbox: bench/spin, one commit. */
static void project(void)
{
        pg_test_sh(
            "git init -q -b main . && git config user.name t && git config user.email t@t && "
            "git config commit.gpgsign false && mkdir -p bench && "
            "printf '#!/bin/sh\\nexit 0\\n' > bench/spin && chmod +x bench/spin && "
            "printf '.perfgate/\\nout*\\n' > .gitignore && git add -A && git commit -qm init");
}

/* ---- names shown on a terminal -------------------------------------------- */

static void test_list_escapes_subject_and_entry_names(void **state)
{
        struct pg_run_out o;
        (void) state;
        project();
        /* a subject with ESC, BEL, CR, a bidi override and 3000 more bytes */
        pg_test_sh(
            "printf 'esc \\033]0;TITLE\\007 \\033[2J cr\\rX \\342\\200\\256rtl %s\\n' "
            "\"$(head -c 3000 /dev/zero | tr '\\0' A)\" > msg && git commit -q --allow-empty -F "
            "msg");
        PERFGATE(&o, 0, "run", "--repeat", "2", "--no-profile", "-q");
        pg_run_out_release(&o);
        PERFGATE(&o, 0, "baseline", "save");
        pg_run_out_release(&o);
        /* entry names git refuses to write, planted with raw tree objects as a
         * pusher of the data branch could: an ESC and a newline in file names */
        pg_test_sh(
            "H=$(git rev-parse HEAD) && g=$(git rev-parse perfgate-baselines:default/$H/spin.json) "
            "&& "
            "mt() { python3 -c 'import sys,subprocess; a=sys.argv[1:]; "
            "e=sorted([(a[i],a[i+1],a[i+2].encode(\"utf-8\",\"surrogateescape\")) for i in "
            "range(0,len(a),3)], key=lambda e: e[2]+(b\"/\" if e[0]==\"40000\" else b\"\")); "
            "d=b\"\".join(m.encode()+b\" \"+n+b\"\\0\"+bytes.fromhex(s) for m,s,n in e); "
            "print(subprocess.run([\"git\",\"hash-object\",\"-t\",\"tree\",\"--literally\",\"-w\","
            "\"--stdin\"],input=d,capture_output=True,check=True).stdout.decode().strip())' "
            "\"$@\"; "
            "} && "
            "ct=$(mt 100644 $g \"$(printf 'esc\\033[31mred.json')\" 100644 $g \"$(printf "
            "'nl\\nx.json')\" "
            "100644 $g spin.json) && "
            "git update-ref refs/heads/perfgate-baselines $(git commit-tree $(mt 40000 $(mt 40000 "
            "$ct $H) "
            "default) -p perfgate-baselines -m x)");
        PERFGATE(&o, 0, "baseline", "list");
        expect(&o.out, "default       esc\\x1b[31mred,nl\\nx,spin  # esc \\x1b]0;TITLE\\x07 "
                       "\\x1b[2J cr\\rX \\u202ertl AAAA");
        expect(&o.out, "... (");
        assert_null(strchr(o.out.ptr, '\033'));
        assert_null(strchr(o.out.ptr, '\r'));
        assert_null(strstr(o.out.ptr, "\342\200\256"));
        /* the line is cut: no 3000-byte run of 'A' */
        {
                char run[1001];
                memset(run, 'A', 1000);
                run[1000] = '\0';
                assert_null(strstr(o.out.ptr, run));
        }
        pg_run_out_release(&o);
}

static void test_bidi_names_escaped(void **state)
{
        struct pg_run_out o;
        (void) state;
        project();
        /* U+2067 (RIGHT-TO-LEFT ISOLATE) is allowed in a name (the name rule
         * refuses U+202A..E only), never shown raw */
        pg_test_write("bench/perfgate.json",
                      "{\"benchmarks\":[{\"argv\":[\"./spin\"],\"name\":\"rtl\\u2067x\","
                      "\"repeat\":2}]}");
        PERFGATE(&o, 0, "run", "--no-profile", "-q", "--out", "out", "bench/");
        pg_run_out_release(&o);
        PERFGATE(&o, 0, "show", "out");
        expect(&o.out, "perfgate result 'rtl\\u2067x'");
        assert_null(strstr(o.out.ptr, "\342\201\247"));
        pg_run_out_release(&o);
        PERFGATE(&o, 0, "compare", "--results", "out", "out");
        expect(&o.out, "rtl\\u2067x");
        assert_null(strstr(o.out.ptr, "\342\201\247"));
        pg_run_out_release(&o);
}

/* ---- links around the output directory ------------------------------------- */

static void test_run_refuses_committed_perfgate_link(void **state)
{
        struct pg_run_out o;
        (void) state;
        project();
        pg_test_sh(
            "mkdir victim && git rm -q --cached .gitignore && printf 'victim/\\n' > .gitignore && "
            "ln -s \"$PWD/victim\" .perfgate && git add -A && git commit -qm link");
        PERFGATE(&o, 2, "run", "--repeat", "2", "--no-profile", "-q");
        expect(&o.err, "refusing to write into '.perfgate/results': '.perfgate' is a symbolic "
                       "link (to '");
        pg_run_out_release(&o);
        pg_test_sh("test -z \"$(ls -A victim)\"");
        /* a directory the user names keeps its rule: followed as named */
        PERFGATE(&o, 0, "run", "--repeat", "2", "--no-profile", "-q", "--out", ".perfgate/results");
        pg_run_out_release(&o);
        assert_true(pg_test_exists("victim/results/spin.json"));
}

static void test_run_out_swapped_for_link_mid_run(void **state)
{
        struct pg_run_out o;
        char *script, sb[4096];
        (void) state;
        assert_non_null(getcwd(sb, sizeof(sb)));
        project();
        pg_test_sh("mkdir victim");
        /* bench/a swaps the output directory for a link; bench/b runs after it */
        script = NULL;
        {
                struct pg_buf b = PG_BUF_INIT;
                pg_buf_printf(&b,
                              "#!/bin/sh\n[ -L '%s/out' ] || { mv '%s/out' '%s/out.old'; "
                              "ln -s '%s/victim' '%s/out'; }\n",
                              sb, sb, sb, sb, sb);
                script = pg_buf_detach(&b, NULL);
        }
        pg_test_write("bench/a", script);
        free(script);
        pg_test_sh("chmod +x bench/a && cp bench/spin bench/b");
        PERFGATE(&o, 4, "run", "--repeat", "2", "--no-profile", "-q", "--out", "out", "bench/");
        expect(&o.err, "refusing to write into 'out': it is no longer the directory this run "
                       "created or opened");
        pg_run_out_release(&o);
        pg_test_sh("test -z \"$(ls -A victim)\"");
        assert_true(pg_test_exists("out.old/a.log"));
}

/* ---- one rule for the files perfgate reads ---------------------------------- */

static void test_devices_refused_pipes_bounded(void **state)
{
        struct pg_run_out o;
        (void) state;
        PERFGATE(&o, 2, "flamegraph", "/dev/zero");
        expect(&o.err, "'/dev/zero' is a device, not a result file or folded stacks");
        pg_run_out_release(&o);
        PERFGATE(&o, 2, "diff", "/dev/zero", "/dev/null");
        expect(&o.err, "'/dev/zero' is a device");
        pg_run_out_release(&o);
        PERFGATE(&o, 2, "show", "/dev/zero");
        expect(&o.err, "'/dev/zero' is a device, not a result file");
        pg_run_out_release(&o);
        PERFGATE(&o, 2, "compare", "--config", "/dev/zero", "--results", "nowhere", "x");
        expect(&o.err, "'/dev/zero' is a device, not a perfgate.json file");
        pg_run_out_release(&o);
        /* stdin redirected from a device; a pipe that never ends stops at the bound */
        assert_int_equal(run_sh(&o, "\"$PERFGATE_BIN\" flamegraph - < /dev/zero"), 2);
        expect(&o.err, "'stdin' is a device");
        pg_run_out_release(&o);
        assert_int_equal(
            run_sh(&o,
                   "head -c 300000000 /dev/zero | tr '\\0' 'a' | \"$PERFGATE_BIN\" flamegraph -"),
            2);
        expect(&o.err, "'stdin' (a pipe) gave more than 256 MiB");
        pg_run_out_release(&o);
        /* a pipe of folded stacks within the bound is read */
        assert_int_equal(run_sh(&o, "printf 'a;b 3\\n' | \"$PERFGATE_BIN\" flamegraph - -o g.svg"),
                         0);
        pg_run_out_release(&o);
        assert_true(pg_test_exists("g.svg"));
}

/* A large junk *.json in a results directory (a file of NULs, 200 MiB) is
 * refused at its first byte without being read: under a 128 MiB address
 * space limit (ASan: largest allocation), where reading it would run out
 * of memory (exit 4), compare and show exit 2 naming byte 0. One over 256
 * MiB is refused by its size. */
#define SMALL_MEMORY                                                                               \
        "if ldd \"$PERFGATE_BIN\" | grep -q libasan; then "                                        \
        "export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}"                                      \
        "allocator_may_return_null=1:max_allocation_size_mb=128; "                                 \
        "else ulimit -v 131072; fi; "
static void test_result_file_junk_not_read(void **state)
{
        struct pg_run_out o;
        (void) state;
        assert_int_equal(mkdir("r", 0755), 0);
        assert_int_equal(run_sh(&o, "truncate -s 200M r/big.json"), 0);
        pg_run_out_release(&o);
        assert_int_equal(
            run_sh(&o, SMALL_MEMORY "\"$PERFGATE_BIN\" compare ./r --results r/big.json"), 2);
        expect(&o.err, "'r/big.json': invalid JSON at line 1, column 1 (byte 0): a result file "
                       "is a JSON object, '{' first");
        pg_run_out_release(&o);
        assert_int_equal(run_sh(&o, SMALL_MEMORY "\"$PERFGATE_BIN\" show r"), 2);
        expect(&o.err, "'r/big.json': invalid JSON at line 1, column 1 (byte 0)");
        pg_run_out_release(&o);
        assert_int_equal(run_sh(&o, "truncate -s 300M r/big.json"), 0);
        pg_run_out_release(&o);
        PERFGATE(&o, 2, "show", "r/big.json");
        expect(&o.err, "'r/big.json' is 300 MiB, over the 256 MiB a result file may hold "
                       "(docs/limits.md); it is not read");
        pg_run_out_release(&o);
}

/* ---- --filter --------------------------------------------------------------- */

static void test_filter_regex_bounded(void **state)
{
        static const char *const huge[] = { "(a{255}){255}{255}", "a{1000}{1000}", "(a{255}){255}",
                                            "((x{20}|y){30}){20}" };
        struct pg_run_out o;
        (void) state;
        project();
        for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
                PERFGATE(&o, 2, "run", "--no-profile", "-q", "--out", "out", "--filter", huge[i],
                         "bench/");
                expect(&o.err, "is too large: its repetitions write out to more than 10000 "
                               "positions");
                pg_run_out_release(&o);
        }
        assert_false(pg_test_exists("out"));
        PERFGATE(&o, 0, "run", "--no-profile", "-q", "--repeat", "1", "--out", "out", "--filter",
                 "^s.{0,200}$", "bench/");
        pg_run_out_release(&o);
        assert_true(pg_test_exists("out/spin.json"));
}

/* ---- perfgate.json ----------------------------------------------------------- */

static void config_refused(const char *json, const char *needle)
{
        struct pg_run_out o;
        pg_test_write("bench/perfgate.json", json);
        PERFGATE(&o, 2, "run", "--no-profile", "-q", "--out", "out", "bench/");
        expect(&o.err, needle);
        assert_null(strstr(o.err.ptr, "warmup"));
        pg_run_out_release(&o);
        assert_false(pg_test_exists("out"));
}

static void test_config_refusals(void **state)
{
        struct pg_buf big = PG_BUF_INIT;
        (void) state;
        project();
        pg_buf_puts(&big, "{\"benchmarks\":[{\"argv\":[\"./spin\"],\"env\":{\"BIG\":\"");
        for (int i = 0; i < 200000; i++)
                pg_buf_putc(&big, 'x');
        pg_buf_puts(&big, "\"}}]}");
        config_refused(big.ptr, "benchmarks[0].env.BIG is 200004 bytes; the kernel takes at most "
                                "131071 bytes per argument or environment entry");
        pg_buf_reset(&big);
        pg_buf_puts(&big, "{\"benchmarks\":[{\"argv\":[\"./spin\",\"");
        for (int i = 0; i < 140000; i++)
                pg_buf_putc(&big, 'y');
        pg_buf_puts(&big, "\"]}]}");
        config_refused(big.ptr, "benchmarks[0].argv[1] is 140000 bytes");
        pg_buf_release(&big);
        config_refused("{\"benchmarks\":[{\"argv\":[\"./spin\",\"a\\u0000b\"]}]}",
                       "line 1, column 36: \\u0000 (a NUL character) in the string");
        config_refused("{\"benchmarks\":[{\"argv\":[\"./spin\"],\"env\":{\"X\":\"a\\u0000b\"}}]}",
                       "\\u0000 (a NUL character) in the string");
        config_refused("{\"benchmarks\":[{\"argv\":[\"./spin\"],\"name\":\"a\\ud800b\"}]}",
                       "high surrogate without its low half");
        config_refused("{\"benchmarks\":[{\"argv\":[\"./spin\"]}]}\n/* never closed",
                       "line 2, column 1: a /* comment is never closed");
        config_refused("{\"base\":\"\",\"benchmarks\":[{\"argv\":[\"./spin\"]}]}",
                       "\"base\" must be a string (a git revision or a results path), not empty "
                       "and not starting with '-'");
        config_refused("{\"base\":\"--output=/tmp/x\",\"benchmarks\":[{\"argv\":[\"./spin\"]}]}",
                       "not starting with '-'");
        config_refused(
            "{\"benchmarks\":[{\"argv\":[\"./spin\"],\"name\":\"a\"},"
            "{\"argv\":[\"./spin\"],\"name\":\"b\"},{\"argv\":[\"./spin\"],\"name\":\"a\"}]}",
            "benchmarks[0] and benchmarks[2] are both named 'a'");
        /* a surrogate pair is a character, and stays accepted */
        {
                struct pg_run_out o;
                pg_test_write(
                    "bench/perfgate.json",
                    "{\"benchmarks\":[{\"argv\":[\"./spin\"],\"name\":\"x\\ud83d\\ude00\","
                    "\"repeat\":1}]}");
                PERFGATE(&o, 0, "run", "--no-profile", "-q", "--out", "out", "bench/");
                pg_run_out_release(&o);
        }
}

static void test_symlink_loop_named(void **state)
{
        struct pg_run_out o;
        (void) state;
        project();
        pg_test_sh("ln -s loop2 bench/loop1 && ln -s loop1 bench/loop2");
        pg_test_write("bench/perfgate.json", "{\"benchmarks\":[{\"argv\":[\"./loop1\"]}]}");
        PERFGATE(&o, 2, "run", "--no-profile", "-q", "--out", "out", "bench/");
        expect(&o.err, "benchmark path 'bench/loop1' is a loop of symbolic links");
        pg_run_out_release(&o);
}

/* ---- usage ------------------------------------------------------------------ */

static void test_usage_consistency(void **state)
{
        struct pg_run_out o;
        (void) state;
        project();
        PERFGATE(&o, 2, "bisect", "--machine", "../x", "HEAD", "HEAD");
        expect(&o.err, "--machine '../x': ");
        pg_run_out_release(&o);
        assert_int_equal(
            run_sh(&o,
                   "printf 'p 1 [000] 1.0: 1 cpu-clock:\\n\\t1 f (/b)\\n' | \"$PERFGATE_BIN\" fold "
                   "--event-filter="),
            2);
        expect(&o.err, "--event-filter is empty");
        pg_run_out_release(&o);
        PERFGATE(&o, 0, "run", "--no-profile", "-q", "--out", "out", "--filter", "zzz", "bench/");
        expect(&o.err, "perfgate: warning: no benchmark matches the filter; nothing to run");
        pg_run_out_release(&o);
        /* ":/TEXT" would search every ref's messages, the data branch's too */
        PERFGATE(&o, 2, "baseline", "show", ":/init");
        expect(&o.err, "revision ':/init' searches commit messages across every ref");
        pg_run_out_release(&o);
        /* HEAD in a repository without commits: what save says, not "fetch HEAD" */
        pg_test_sh("rm -rf empty && git init -q empty");
        assert_int_equal(chdir("empty"), 0);
        PERFGATE(&o, 2, "baseline", "show", "HEAD");
        expect(&o.err, "HEAD has no commit yet; commit something first");
        pg_run_out_release(&o);
        assert_int_equal(chdir(".."), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, pg_test_setup_sandbox, pg_test_teardown_sandbox)
                T(test_list_escapes_subject_and_entry_names),
                T(test_bidi_names_escaped),
                T(test_run_refuses_committed_perfgate_link),
                T(test_run_out_swapped_for_link_mid_run),
                T(test_devices_refused_pipes_bounded),
                T(test_result_file_junk_not_read),
                T(test_filter_regex_bounded),
                T(test_config_refusals),
                T(test_symlink_loop_named),
                T(test_usage_consistency),
#undef T
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
