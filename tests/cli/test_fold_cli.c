/*
 * test_fold_cli.c - `perfgate fold` as users run it: the 78 conformance pairs
 * of tests/data/conformance/flamegraph byte for byte, the handed cases 01, 03,
 * 05, 10, 13, 18 and 19, every documented error and its exit status, one
 * warning per kind of odd input, and real `perf record -g` + `perf script`
 * output of a CMake-built fixture (skipped with a reason when perf cannot
 * record on this machine).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tests/util/testutil.h"

static char *pg_data(const char *rel)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_buf_printf(&b, "%s/%s", pg_test_env("PG_DATA_DIR"), rel);
        return pg_buf_detach(&b, NULL);
}

static size_t pg_count_lines(const char *s)
{
        size_t n = 0;
        for (; *s; s++)
                n += *s == '\n';
        return n;
}

/* Replace every @from in @s by @to (new string). */
static char *pg_replace(const char *s, const char *from, const char *to)
{
        struct pg_buf b = PG_BUF_INIT;
        size_t fl = strlen(from);
        const char *p;
        while ((p = strstr(s, from)) != NULL) {
                pg_buf_add(&b, s, (size_t) (p - s));
                pg_buf_puts(&b, to);
                s = p + fl;
        }
        pg_buf_puts(&b, s);
        return pg_buf_detach(&b, NULL);
}

static void test_fold_cli_conformance_78(void **state)
{
        static const char *const flags[] = { "pid", "tid", "kernel", "jit", "all", "addrs" };
        char *dir = pg_data("conformance/flamegraph");
        DIR *d = opendir(dir);
        struct dirent *e;
        int pairs = 0, failed = 0;
        (void) state;
        assert_non_null(d);
        while ((e = readdir(d)) != NULL) {
                size_t n = strlen(e->d_name);
                if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0)
                        continue;
                for (size_t f = 0; f < 6; f++) {
                        char in[4096], exp[4096], flag[32];
                        struct pg_run_out o;
                        snprintf(in, sizeof(in), "%s/%s", dir, e->d_name);
                        snprintf(exp, sizeof(exp), "%s/expected/%.*s-collapsed-%s.txt", dir,
                                 (int) (n - 4), e->d_name, flags[f]);
                        snprintf(flag, sizeof(flag), "--%s", flags[f]);
                        pg_test_perfgate(&o, "fold", flag, in, NULL);
                        char *want = pg_test_read(exp);
                        if (o.status != 0 || strcmp(o.out.ptr, want) != 0) {
                                print_error("mismatch: perfgate fold %s %s (status %d)\n", flag,
                                            e->d_name, o.status);
                                failed++;
                        }
                        pairs++;
                        free(want);
                        pg_run_out_release(&o);
                }
        }
        closedir(d);
        free(dir);
        assert_int_equal(pairs, 78);
        assert_int_equal(failed, 0);
}

static void test_fold_cli_conformance_totals(void **state)
{
        /* the last record counts without a trailing blank line (--all totals of
         * tests/data/conformance/README.md), and event selection */
        static const struct {
                const char *stem;
                unsigned long long total;
        } want[] = { { "perf-dd-stacks-01", 111111110ull }, { "perf-iperf-stacks-pidtid-01", 201 },
                     { "perf-java-stacks-01", 46 },         { "perf-mirageos-stacks-01", 53 },
                     { "perf-numa-stacks-01", 200 },        { "perf-vertx-stacks-01", 286 } };
        (void) state;
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                char rel[256];
                struct pg_run_out o;
                unsigned long long total = 0;
                snprintf(rel, sizeof(rel), "conformance/flamegraph/%s.txt", want[i].stem);
                char *in = pg_data(rel);
                assert_int_equal(pg_test_perfgate(&o, "fold", "--all", in, NULL), 0);
                for (char *p = o.out.ptr; (p = strchr(p, '\n')) != NULL; p++) {
                        char *sp = p;
                        while (sp > o.out.ptr && sp[-1] != ' ')
                                sp--;
                        total += strtoull(sp, NULL, 10);
                }
                if (total != want[i].total)
                        fail_msg("%s: total %llu, want %llu", want[i].stem, total, want[i].total);
                pg_run_out_release(&o);
                free(in);
        }
        char *ci = pg_data("conformance/flamegraph/perf-cycles-instructions-01.txt");
        struct pg_run_out o;
        assert_int_equal(pg_test_perfgate(&o, "fold", "--event-filter=cycles", ci, NULL), 0);
        assert_int_equal(pg_count_lines(o.out.ptr), 8);
        assert_null(strstr(o.err.ptr, "warning")); /* an explicit choice is not warned about */
        pg_run_out_release(&o);
        /* the default keeps the first event and says which one, once */
        assert_int_equal(pg_test_perfgate(&o, "fold", ci, NULL), 0);
        assert_non_null(strstr(o.err.ptr, "kept only event 'instructions'"));
        assert_non_null(strstr(o.err.ptr, "skipped 111 samples of other events (cycles)"));
        assert_int_equal(pg_count_lines(o.err.ptr), 1);
        pg_run_out_release(&o);
        free(ci);
}

/* Fold case file @input with @flags (NULL-terminated) and compare with @expected_text. */
static void pg_case(const char *input, const char *expected_text, const char *f1, const char *f2,
                    const char *f3, const char *f4)
{
        char *in = pg_data(input);
        struct pg_run_out o;
        const char *argv[8] = { 0 };
        int a = 0;
        argv[a++] = "fold";
        if (f1)
                argv[a++] = f1;
        if (f2)
                argv[a++] = f2;
        if (f3)
                argv[a++] = f3;
        if (f4)
                argv[a++] = f4;
        argv[a++] = in;
        pg_test_perfgate(&o, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], NULL);
        if (o.status != 0 || strcmp(o.out.ptr, expected_text) != 0)
                fail_msg("%s: status %d\n--- got\n%s--- want\n%s--- stderr\n%s", input, o.status,
                         o.out.ptr, expected_text, o.err.ptr);
        if (o.err.len != 0)
                fail_msg("%s: unexpected stderr: %s", input, o.err.ptr);
        pg_run_out_release(&o);
        free(in);
}

static char *pg_case_file(const char *rel)
{
        char *p = pg_data(rel);
        char *t = pg_test_read(p);
        free(p);
        return t;
}

static void test_fold_cli_case01_templates(void **state)
{
        char *want = pg_case_file("cases/01-cpp-template-parens/expected.folded");
        (void) state;
        pg_case("cases/01-cpp-template-parens/input.perf-script.txt", want, "--weight=samples",
                NULL, NULL, NULL);
        free(want);
}

static void test_fold_cli_case03_comm_spaces(void **state)
{
        char *want = pg_case_file("cases/03-comm-with-spaces/expected.folded");
        (void) state;
        pg_case("cases/03-comm-with-spaces/input.perf-script.txt", want, "--weight", "samples",
                NULL, NULL);
        /* by default the counts are the periods */
        char *w2 = pg_replace(want, "decode_frame 1\n", "decode_frame 1000000\n");
        char *w3 = pg_replace(w2, "recv_packet 1\n", "recv_packet 2210040\n");
        char *w4 = pg_replace(w3, "hash_block 1\n", "hash_block 1000000\n");
        pg_case("cases/03-comm-with-spaces/input.perf-script.txt", w4, NULL, NULL, NULL, NULL);
        free(w2);
        free(w3);
        free(w4);
        free(want);
}

static void test_fold_cli_case05_semicolons(void **state)
{
        char *want = pg_case_file("cases/05-semicolon-in-frames/expected.folded");
        (void) state;
        pg_case("cases/05-semicolon-in-frames/input.perf-script.txt", want, "--weight=samples",
                "--no-tidy-java", NULL, NULL);
        /* by default the reference's Java tidy drops the 'L' of class names under "java" */
        char *w1 = pg_replace(want, ";Lcom/", ";com/");
        char *w2 = pg_replace(w1, ";Ljava/", ";java/");
        /* sorted bytewise again: '[' sorts after 'c' now */
        const char *nl = strchr(w2, '\n');
        struct pg_buf sorted = PG_BUF_INIT;
        pg_buf_puts(&sorted, nl + 1);
        pg_buf_add(&sorted, w2, (size_t) (nl + 1 - w2));
        assert_null(strstr(sorted.ptr, ";L"));
        pg_case("cases/05-semicolon-in-frames/input.perf-script.txt", sorted.ptr,
                "--weight=samples", NULL, NULL, NULL);
        /* frames per line = callchain lines + 1 (comm): 4 and 3 separators */
        for (const char *line = sorted.ptr; *line;) {
                const char *end = strchr(line, '\n');
                int semis = 0;
                for (const char *p = line; p < end; p++)
                        semis += *p == ';';
                assert_true(semis == 4 || semis == 3);
                line = end + 1;
        }
        pg_buf_release(&sorted);
        free(w1);
        free(w2);
        free(want);
}

static void test_fold_cli_case10_kernel_frames(void **state)
{
        const char *in = "cases/10-kernel-unknown-inlined-modules/input.perf-script.txt";
        char *want =
            pg_case_file("cases/10-kernel-unknown-inlined-modules/expected-annotated.folded");
        (void) state;
        pg_case(in, want, "--weight=samples", "--kernel", "--event-filter=cpu-clock,cycles", NULL);
        /* without annotation the suffixes disappear */
        char *plain = pg_replace(want, "_[k]", "");
        pg_case(in, plain, "--weight=samples", "--event-filter=cpu-clock,cycles", NULL, NULL);
        /* --all also marks the frame perf printed as (inlined) */
        char *all = pg_replace(want, "copy_nonoverlapping;", "copy_nonoverlapping_[i];");
        pg_case(in, all, "--weight=samples", "--all", "--event-filter=cpu-clock,cycles", NULL);
        assert_null(strstr(all, "[[kernel.kallsyms]]"));
        free(all);
        free(plain);
        free(want);
}

static void test_fold_cli_case13_comm_modes(void **state)
{
        const char *in = "cases/13-thread-name-normalization/input.perf-script.txt";
        char *d = pg_case_file("cases/13-thread-name-normalization/expected-default.folded");
        char *n = pg_case_file("cases/13-thread-name-normalization/expected-normalized.folded");
        char *x = pg_case_file("cases/13-thread-name-normalization/expected-no-comm.folded");
        struct pg_run_out o;
        (void) state;
        pg_case(in, d, "--weight=samples", NULL, NULL, NULL);
        pg_case(in, n, "--weight=samples", "--comm=normalize", NULL, NULL);
        pg_case(in, x, "--weight=samples", "--comm", "none", NULL);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--comm=none", "--pid", "-", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "'--comm none' cannot be combined with '--pid'"));
        pg_run_out_release(&o);
        free(d);
        free(n);
        free(x);
}

static void test_fold_cli_case18_truncated(void **state)
{
        char *in = pg_data("cases/18-deep-and-truncated-stacks/truncated.perf-script.txt");
        struct pg_run_out o;
        (void) state;
        /* the file stands for a chain cut at the limit: flag it at its length */
        assert_int_equal(pg_test_perfgate(&o, "fold", "--max-stack=3", in, NULL), 0);
        assert_string_equal(o.out.ptr, "deep;rec;rec;rec 10101010\n");
        assert_non_null(strstr(o.err.ptr, "1 sample has a call chain of 3 or more frames"));
        assert_non_null(strstr(o.err.ptr, "kernel.perf_event_max_stack"));
        pg_run_out_release(&o);
        assert_int_equal(
            pg_test_perfgate(&o, "fold", "--max-stack=3", "--mark-truncated", in, NULL), 0);
        assert_string_equal(o.out.ptr, "deep;[truncated];rec;rec;rec 10101010\n");
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--max-stack=0", in, NULL), 0);
        assert_string_equal(o.err.ptr, "");
        pg_run_out_release(&o);
        free(in);
}

static void test_fold_cli_case19_empty(void **state)
{
        char *empty = pg_data("cases/19-empty-profile/empty.perf-script.txt");
        char *hdr = pg_data("cases/19-empty-profile/header-only.perf-script.txt");
        struct pg_run_out o;
        (void) state;
        assert_int_equal(pg_test_perfgate(&o, "fold", empty, NULL), 0);
        assert_string_equal(o.out.ptr, "");
        assert_non_null(strstr(o.err.ptr, "0 samples"));
        assert_int_equal(pg_count_lines(o.err.ptr), 1);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", hdr, NULL), 0);
        assert_string_equal(o.out.ptr, "");
        assert_non_null(strstr(o.err.ptr, "0 samples for event cpu-clock"));
        assert_int_equal(pg_count_lines(o.err.ptr), 1); /* the header lines warn about nothing */
        pg_run_out_release(&o);
        free(empty);
        free(hdr);
}

static void test_fold_cli_errors(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_test_sandbox();
        assert_int_equal(pg_test_perfgate(&o, "fold", "missing.txt", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "cannot open 'missing.txt': no such file"));
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", ".", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "'.' is a directory"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--bogus", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "unknown option '--bogus'"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--comm=maybe", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "invalid --comm 'maybe'"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--weight=bytes", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "invalid --weight 'bytes'"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--max-stack=-1", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "invalid --max-stack '-1'"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--event-filter", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "needs a value"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--event-filter=a,,b", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "empty event name"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--inline", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "'--inline' is not supported"));
        pg_run_out_release(&o);
        /* perf.data given instead of perf script's text */
        pg_test_write("perf.data", "PERFILE2\x68");
        assert_int_equal(pg_test_perfgate(&o, "fold", "perf.data", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "run 'perf script -i perf.data | perfgate fold'"));
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);
        /* text that holds no samples at all (folded stacks, a log) */
        pg_test_write("folded.txt", "a;b;c 10\na;b 3\n");
        assert_int_equal(pg_test_perfgate(&o, "fold", "folded.txt", NULL), 2);
        assert_non_null(strstr(o.err.ptr, "skipped 2 unrecognized lines (first at folded.txt:1"));
        assert_non_null(strstr(o.err.ptr, "no samples found; is this perf script output?"));
        pg_run_out_release(&o);
        /* an event filter that matches nothing */
        pg_test_write("s.txt", "a 1 [0] 1.0: 5 cycles:\n\t1 f (/m)\n\n");
        assert_int_equal(pg_test_perfgate(&o, "fold", "--event-filter=instructions", "s.txt", NULL),
                         2);
        assert_non_null(strstr(o.err.ptr, "no samples of event 'instructions'; the input has "
                                          "'cycles'"));
        pg_run_out_release(&o);
        /* an output that cannot be written: exit 4, nothing left behind */
        assert_int_equal(
            pg_test_perfgate(&o, "fold", "-o", "no/such/dir/out.folded", "s.txt", NULL), 4);
        assert_false(pg_test_exists("no/such/dir/out.folded"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_fold_cli_io_paths(void **state)
{
        struct pg_run_out o;
        const char *rec = "app 1 [0] 1.0: 5 cycles:\n\t1 f (/m)\n\n";
        (void) state;
        pg_test_sandbox();
        pg_test_write("a.txt", rec);
        pg_test_write("b.txt", "app 1 [0] 2.0: 7 cycles:\n\t1 f (/m)\n\t2 main (/m)\n");
        /* several inputs fold together; '-' is stdin; -o writes the file */
        char *argv[] = { (char *) pg_test_env("PERFGATE_BIN"),
                         "fold",
                         "a.txt",
                         "-",
                         "b.txt",
                         "-o",
                         "out.folded",
                         NULL };
        assert_int_equal(pg_test_run(&o, rec, argv), 0);
        assert_string_equal(o.out.ptr, "");
        char *got = pg_test_read("out.folded");
        assert_string_equal(got, "app;f 10\napp;main;f 7\n");
        free(got);
        pg_run_out_release(&o);
        /* no FILE: stdin */
        char *argv2[] = { (char *) pg_test_env("PERFGATE_BIN"), "fold", NULL };
        assert_int_equal(pg_test_run(&o, rec, argv2), 0);
        assert_string_equal(o.out.ptr, "app;f 5\n");
        pg_run_out_release(&o);
        /* one warning per kind, with the count; the fold goes on */
        char *argv3[] = { (char *) pg_test_env("PERFGATE_BIN"), "fold", NULL };
        assert_int_equal(pg_test_run(&o,
                                     "junk one\njunk two\njunk three\n"
                                     "perf 9 [000] 1.0: PERF_RECORD_COMM: perf:9/9\n"
                                     "app 1 [0] 1.0: 5 cycles:\n\t1 f (/m)\n\n",
                                     argv3),
                         0);
        assert_string_equal(o.out.ptr, "app;f 5\n");
        assert_non_null(strstr(o.err.ptr, "skipped 3 unrecognized lines (first at <stdin>:1: "
                                          "'junk one')"));
        assert_non_null(strstr(o.err.ptr, "skipped 1 non-sample records"));
        assert_int_equal(pg_count_lines(o.err.ptr), 2);
        pg_run_out_release(&o);
        /* -q silences the warnings, not the output */
        char *argv4[] = { (char *) pg_test_env("PERFGATE_BIN"), "fold", "-q", NULL };
        assert_int_equal(pg_test_run(&o, "junk\napp 1 [0] 1.0: 5 cycles:\n\t1 f (/m)\n", argv4), 0);
        assert_string_equal(o.out.ptr, "app;f 5\n");
        assert_string_equal(o.err.ptr, "");
        pg_run_out_release(&o);
        /* most kernel frames unresolved: one warning that says why (tests/data/cases/10) */
        char *argv5[] = { (char *) pg_test_env("PERFGATE_BIN"), "fold", NULL };
        assert_int_equal(
            pg_test_run(&o,
                        "app 1 [0] 1.0: 5 cycles:\n"
                        "\tffffffc0081a27e0 [unknown] ([kernel.kallsyms])\n"
                        "\tffffffff81a27e0a [unknown] ([unknown])\n"
                        "\tffffffff81101c20 cpu_startup_entry+0x20 ([kernel.kallsyms])\n"
                        "\t1 main (/m)\n",
                        argv5),
            0);
        assert_string_equal(o.out.ptr,
                            "app;main;cpu_startup_entry;[unknown];[kernel.kallsyms] 5\n");
        assert_non_null(strstr(o.err.ptr, "2 of 3 kernel frames are unresolved"));
        assert_non_null(strstr(o.err.ptr, "kptr_restrict"));
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "fold", "--help", NULL), 0);
        assert_non_null(strstr(o.out.ptr, "usage: perfgate fold"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/* perf record + perf script on the fixture; false (test skipped) when perf cannot record. */
static bool pg_perf_script(char *const record_tail[], size_t ntail, const char *out_path)
{
        char *argv[32];
        size_t a = 0;
        struct pg_run_out o;
        argv[a++] = "perf";
        argv[a++] = "record";
        argv[a++] = "-q";
        argv[a++] = "-e";
        argv[a++] = "cpu-clock";
        argv[a++] = "-F";
        argv[a++] = "999";
        argv[a++] = "-g";
        argv[a++] = "-o";
        argv[a++] = "perf.data";
        argv[a++] = "--";
        for (size_t i = 0; i < ntail; i++)
                argv[a++] = record_tail[i];
        argv[a] = NULL;
        if (pg_test_run(&o, NULL, argv) != 0) {
                print_message("skipped: 'perf record' failed here (status %d): %s\n", o.status,
                              o.err.ptr);
                pg_run_out_release(&o);
                return false;
        }
        pg_run_out_release(&o);
        char *sargv[] = { "perf", "script", "-i", "perf.data", NULL };
        if (pg_test_run(&o, NULL, sargv) != 0) {
                print_message("skipped: 'perf script' failed (status %d)\n", o.status);
                pg_run_out_release(&o);
                return false;
        }
        pg_test_write(out_path, o.out.ptr);
        pg_run_out_release(&o);
        return true;
}

static void test_fold_cli_real_perf_callpath(void **state)
{
        struct pg_run_out o;
        char *tail[] = { (char *) pg_test_fixture("fold_callpath"), "path", "400" };
        unsigned long long main_total = 0, main_path = 0, worker = 0, worker_fn = 0;
        (void) state;
        pg_test_sandbox();
        if (!pg_perf_script(tail, 3, "script.txt")) {
                pg_test_sandbox_remove();
                skip();
        }
        assert_int_equal(pg_test_perfgate(&o, "fold", "--weight=samples", "script.txt", NULL), 0);
        for (char *line = o.out.ptr; *line;) {
                char *end = strchr(line, '\n');
                char *sp = end;
                while (sp > line && sp[-1] != ' ')
                        sp--;
                unsigned long long c = strtoull(sp, NULL, 10);
                *end = '\0';
                if (strncmp(line, "fold_callpath;", 14) == 0) {
                        main_total += c;
                        if (strstr(line, ";main;outer;inner"))
                                main_path += c;
                } else if (strncmp(line, "Media_Worker_2;", 15) == 0) {
                        worker += c;
                        if (strstr(line, ";worker_spin"))
                                worker_fn += c;
                }
                line = end + 1;
        }
        print_message("main thread %llu samples (%llu under main;outer;inner), worker %llu "
                      "(%llu in worker_spin)\n",
                      main_total, main_path, worker, worker_fn);
        assert_true(main_total >= 20);
        assert_true(main_path * 10 >= main_total * 9);
        /* the comm with spaces and a trailing number was parsed from the right */
        assert_true(worker >= 20);
        assert_true(worker_fn * 10 >= worker * 9);
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

static void test_fold_cli_real_perf_deep(void **state)
{
        struct pg_run_out o;
        char *tail[] = { (char *) pg_test_fixture("fold_callpath"), "deep", "300", "300" };
        (void) state;
        pg_test_sandbox();
        if (!pg_perf_script(tail, 4, "script.txt")) {
                pg_test_sandbox_remove();
                skip();
        }
        /* every sample at the bottom of a 300-deep recursion is cut by the kernel */
        assert_int_equal(
            pg_test_perfgate(&o, "fold", "--max-stack=127", "--mark-truncated", "script.txt", NULL),
            0);
        assert_non_null(strstr(o.out.ptr, "fold_callpath;[truncated];rec;rec;"));
        assert_non_null(strstr(o.err.ptr, "call chain of 127 or more frames"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fold_cli_conformance_78),
                cmocka_unit_test(test_fold_cli_conformance_totals),
                cmocka_unit_test(test_fold_cli_case01_templates),
                cmocka_unit_test(test_fold_cli_case03_comm_spaces),
                cmocka_unit_test(test_fold_cli_case05_semicolons),
                cmocka_unit_test(test_fold_cli_case10_kernel_frames),
                cmocka_unit_test(test_fold_cli_case13_comm_modes),
                cmocka_unit_test(test_fold_cli_case18_truncated),
                cmocka_unit_test(test_fold_cli_case19_empty),
                cmocka_unit_test(test_fold_cli_errors),
                cmocka_unit_test(test_fold_cli_io_paths),
                cmocka_unit_test(test_fold_cli_real_perf_callpath),
                cmocka_unit_test(test_fold_cli_real_perf_deep),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
