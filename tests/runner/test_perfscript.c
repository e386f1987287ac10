/*
 * test_perfscript.c - the streaming perf script importer (runner/perfscript.h):
 * header parsing from the pid/time anchor (tests/data/cases/03), records split
 * across any chunk boundary, the final record without a blank line, weights,
 * event selection, odd lines counted once per kind, deep and truncated call
 * chains (tests/data/cases/18), single-line samples, the perf.data mistake, and
 * memory that does not grow with the input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/perfscript.h"
#include "tests/util/testutil.h"

/* Fold @text in chunks of @chunk bytes (0: all at once) and return the output. */
static char *pg_fold_text(const struct pg_perfscript_options *o, const char *text, size_t chunk,
                          struct pg_perfscript_stats *st)
{
        struct pg_perfscript *ps;
        struct pg_folded *v;
        struct pg_buf out = PG_BUF_INIT;
        size_t n, len = strlen(text);

        assert_int_equal(pg_perfscript_new(&ps, o), 0);
        pg_perfscript_begin(ps, "t");
        if (chunk == 0)
                chunk = len ? len : 1;
        for (size_t off = 0; off < len; off += chunk)
                assert_int_equal(
                    pg_perfscript_feed(ps, text + off, len - off < chunk ? len - off : chunk), 0);
        assert_int_equal(pg_perfscript_end(ps), 0);
        pg_perfscript_sorted(ps, &v, &n);
        for (size_t i = 0; i < n; i++)
                pg_buf_printf(&out, "%s %llu\n", v[i].stack, (unsigned long long) v[i].count);
        if (st)
                *st = *pg_perfscript_stats(ps);
        free(v);
        pg_perfscript_free(ps);
        return pg_buf_detach(&out, NULL);
}

static const char pg_two_records[] =
    "# ========\n"
    "# cmdline : /usr/bin/perf record -g ./app\n"
    "app 100/101 [000] 1.000001:    250 cpu-clock:u: \n"
    "\t    4005d0 inner+0x10 (/opt/app)\n"
    "\t    4005e0 outer+0x20 (/opt/app)\n"
    "\t    4005f0 main+0x30 (/opt/app)\n"
    "\n"
    "app 100/101 [000] 1.000002:    750 cpu-clock:u: \n"
    "\t    4005d0 inner+0x10 (/opt/app)\n"
    "\t    4005e0 outer+0x20 (/opt/app)\n"
    "\t    4005f0 main+0x30 (/opt/app)\n"; /* no trailing blank line */

static void test_perfscript_chunking_and_eof(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript_stats st;
        (void) state;
        char *whole = pg_fold_text(&o, pg_two_records, 0, &st);
        /* the final record counts although no blank line follows it */
        assert_string_equal(whole, "app;main;outer;inner 1000\n");
        assert_int_equal(st.samples, 2);
        assert_int_equal(st.weight_total, 1000);
        assert_string_equal(st.event, "cpu-clock:u");
        for (size_t chunk = 1; chunk < 40; chunk += 3) {
                char *part = pg_fold_text(&o, pg_two_records, chunk, NULL);
                assert_string_equal(part, whole);
                free(part);
        }
        free(whole);
        o.weight = PG_WEIGHT_SAMPLES;
        o.include_tid = true;
        whole = pg_fold_text(&o, pg_two_records, 0, NULL);
        assert_string_equal(whole, "app-100/101;main;outer;inner 2\n");
        free(whole);
}

static void test_perfscript_headers_from_the_right(void **state)
{
        struct pg_perfscript_options o = { .weight = PG_WEIGHT_SAMPLES, .include_pid = true };
        struct pg_perfscript_stats st;
        (void) state;
        /* comms with spaces, a trailing number, brackets and a colon; headers
         * with and without cpu, time, period; CRLF line ends */
        char *out = pg_fold_text(&o,
                                 "Net Recv Thread 2 31415 [001] 5120.260981:    2210040 cycles: \n"
                                 "\t7f1200003000 recv_packet+0x20 (/opt/libnet.so)\n\n"
                                 "pool [worker] 31422 [000] 5120.270003: cycles:\r\n"
                                 "\t55d0a0001800 hash_block+0x30 (/opt/app)\r\n\r\n"
                                 "java 19983 cycles:\n"
                                 "7f722d12e1d4 LBusy;::main (/tmp/perf-19982.map)\n\n"
                                 "w:1 77 5.5: cycles:\n"
                                 "\t1 f (/x)\n\n",
                                 0, &st);
        assert_string_equal(out, "Net_Recv_Thread_2-?;recv_packet 1\n"
                                 "java-?;LBusy:::main 1\n"
                                 "pool_[worker]-?;hash_block 1\n"
                                 "w:1-?;f 1\n");
        assert_int_equal(st.odd[PG_PS_ODD_UNRECOGNIZED].count, 0);
        free(out);
}

static void test_perfscript_periods_and_events(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript_stats st;
        const char *in = "a 1 [0] 1.1:  7 cycles: \n\t1 f (/m)\n\n"
                         "a 1 [0] 1.2:  5 instructions: \n\t2 g (/m)\n\n"
                         "a 1 [0] 1.3:  0 cycles:u: \n\t1 f (/m)\n\n"
                         "a 1 [0] 1.4:  3 instructions: \n\t2 g (/m)\n\n";
        char *out;
        (void) state;
        /* the first event is kept, whatever its modifiers; a period of 0 counts 1 */
        out = pg_fold_text(&o, in, 0, &st);
        assert_string_equal(out, "a;f 8\n");
        assert_int_equal(st.odd[PG_PS_ODD_OTHER_EVENT].count, 2);
        assert_int_equal(st.odd[PG_PS_ODD_OTHER_EVENT].first_line, 4);
        assert_string_equal(st.other_events, "instructions");
        free(out);
        o.event_filter = "instructions";
        out = pg_fold_text(&o, in, 0, &st);
        assert_string_equal(out, "a;g 8\n");
        assert_string_equal(st.other_events, "cycles,cycles:u");
        free(out);
        o.event_filter = "cycles:u"; /* with a modifier: exact */
        out = pg_fold_text(&o, in, 0, NULL);
        assert_string_equal(out, "a;f 1\n");
        free(out);
        o.event_filter = "cycles,instructions";
        out = pg_fold_text(&o, in, 0, NULL);
        assert_string_equal(out, "a;f 8\na;g 8\n");
        free(out);
}

static void test_perfscript_bad_filter(void **state)
{
        struct pg_perfscript_options o = { .event_filter = "cycles,,instructions" };
        struct pg_perfscript *ps = NULL;
        (void) state;
        assert_int_equal(pg_perfscript_new(&ps, &o), PG_EINPUT);
        assert_null(ps);
        assert_non_null(strstr(pg_error_last(), "empty event name"));
}

static void test_perfscript_odd_lines(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript_stats st;
        (void) state;
        char *out = pg_fold_text(&o,
                                 "\t1 orphan (/m)\n"
                                 "Warning:\n"
                                 "this is not perf output\n"
                                 "perf 9 [000] 1.0: PERF_RECORD_COMM: perf:9/9\n"
                                 "perf 9 [000] 1.1: PERF_RECORD_FORK(10:10):(9:9)\n"
                                 " instruction trace error type 1 time 1.2 cpu 0 pid 9\n"
                                 "app 9 [000] 1.3: 1 cpu-clock: \n"
                                 "\t1 f (/m)\n"
                                 "another bad line\n"
                                 "\n"
                                 "   \t \n"
                                 "app 9 [000] 1.4: 1 cpu-clock: \n\n",
                                 0, &st);
        /* the fold goes on: the header-only record folds to its comm, like the reference */
        assert_string_equal(out, "app 1\napp;f 1\n");
        assert_int_equal(st.odd[PG_PS_ODD_ORPHAN_FRAME].count, 1);
        assert_int_equal(st.odd[PG_PS_ODD_ORPHAN_FRAME].first_line, 1);
        assert_int_equal(st.odd[PG_PS_ODD_PERF_MESSAGE].count, 1);
        assert_int_equal(st.odd[PG_PS_ODD_UNRECOGNIZED].count, 2);
        assert_int_equal(st.odd[PG_PS_ODD_UNRECOGNIZED].first_line, 3);
        assert_string_equal(st.odd[PG_PS_ODD_UNRECOGNIZED].excerpt, "this is not perf output");
        assert_string_equal(st.odd[PG_PS_ODD_UNRECOGNIZED].first_source, "t");
        assert_int_equal(st.odd[PG_PS_ODD_NON_SAMPLE].count, 2);
        assert_int_equal(st.odd[PG_PS_ODD_TRACE_ERROR].count, 1);
        assert_int_equal(st.samples, 2);
        free(out);
}

static void test_perfscript_empty_and_header_only(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript_stats st;
        (void) state;
        char *out = pg_fold_text(&o, "", 0, &st);
        assert_string_equal(out, "");
        assert_int_equal(st.samples, 0);
        free(out);
        out = pg_fold_text(
            &o, "# ========\n# event : name = cpu-clock, , id = { 7 }, type = 1\n#\n", 0, &st);
        assert_string_equal(out, "");
        assert_string_equal(st.header_event, "cpu-clock");
        for (int k = 0; k < PG_PS_ODD__COUNT; k++)
                assert_int_equal(st.odd[k].count, 0);
        free(out);
}

static void test_perfscript_annotations_and_inline_chains(void **state)
{
        struct pg_perfscript_options o = { .weight = PG_WEIGHT_SAMPLES,
                                           .annotate_kernel = true,
                                           .annotate_jit = true,
                                           .annotate_inlined = true };
        (void) state;
        char *out = pg_fold_text(&o,
                                 "java 5 [0] 1.0: cycles:\n"
                                 "\tffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
                                 "\t7f00 Lfoo/A;::a->Lfoo/B;::b->Lfoo/C;::c (/tmp/perf-5.map)\n"
                                 "\t6f4c copy+0x4 (inlined)\n"
                                 "\t6f4c Ptr::operator->() const (/opt/app)\n"
                                 "\t7f01 [unknown] (/tmp/perf-5.map)\n\n",
                                 0, NULL);
        /* "->" chains: first element keeps the module's annotation, the rest are _[i] */
        assert_string_equal(out, "java;[perf-5.map]_[j];Ptr::operator->;copy_[i];"
                                 "foo/A:::a_[j];foo/B:::b_[i];foo/C:::c_[i];"
                                 "native_write_msr_safe_[k] 1\n");
        free(out);
}

/*
 * Rust symbols that perf printed mangled (built without a demangler) get
 * the names perfgate run gives them: demangled, legacy hash dropped; mangled
 * C++ stays as stackcollapse-perf.pl leaves it.
 */
static void test_perfscript_rust_mangled(void **state)
{
        struct pg_perfscript_options o = { .weight = PG_WEIGHT_SAMPLES };
        (void) state;
        char *out = pg_fold_text(
            &o,
            "rsbench 7 [0] 1.0: cpu-clock:\n"
            "\t5f00 _ZN4core4hash3sip15Hasher$LT$S$GT$5write17h0123456789abcdefE+0x4 (/opt/rs)\n"
            "\t5f10 _RNvCs1234_7mycrate3foo+0x10 (/opt/rs)\n"
            "\t5f20 _ZN7rsbench4main17hfedcba9876543210E.llvm.42+0x2 (/opt/rs)\n"
            "\t5f30 _ZN10JavaThread3runEv (/opt/libjvm.so)\n\n",
            0, NULL);
        assert_string_equal(out, "rsbench;_ZN10JavaThread3runEv;rsbench::main;mycrate::foo;"
                                 "core::hash::sip::Hasher<S>::write 1\n");
        free(out);
}

static void test_perfscript_single_line_samples(void **state)
{
        struct pg_perfscript_options o = { 0 };
        (void) state;
        /* perf script without -g: right-aligned comm, the frame on the header line, no
         * blank lines between records; "dd" looks like hex but is a comm */
        char *out = pg_fold_text(&o,
                                 "              dd 29776 [000] 1.1:      10 cpu-clock:  "
                                 "ffffffff81 native_write_msr+0xe ([kernel.kallsyms])\n"
                                 "              dd 29776 [000] 1.2:      10 cpu-clock:  "
                                 "4005d0 main+0x4 (/bin/dd)\n"
                                 "            perf 2 [000] 1.3:      10 cpu-clock:  "
                                 "4005d0 [unknown] (/usr/bin/perf)\n",
                                 0, NULL);
        assert_string_equal(out, "dd;main 10\ndd;native_write_msr 10\nperf;[perf] 10\n");
        free(out);
}

static void test_perfscript_deep_and_truncated(void **state)
{
        struct pg_perfscript_options o = { .weight = PG_WEIGHT_SAMPLES, .max_stack = 127 };
        struct pg_perfscript_stats st;
        struct pg_buf in = PG_BUF_INIT;
        (void) state;
        /* tests/data/cases/18: 3000-deep recursion folds whole; 127 frames count as cut */
        pg_buf_puts(&in, "deep 9 [0] 1.0: cpu-clock:u:\n\t1150 spin+0x10 (/d)\n");
        for (int i = 0; i < 3000; i++)
                pg_buf_puts(&in, "\t1183 rec+0x3a (/d)\n");
        pg_buf_puts(&in, "\t1190 main+0x1 (/d)\n\ndeep 9 [0] 1.1: cpu-clock:u:\n");
        for (int i = 0; i < 127; i++)
                pg_buf_puts(&in, "\t1183 rec+0x3a (/d)\n");
        char *out = pg_fold_text(&o, in.ptr, 4096, &st);
        size_t semis = 0;
        for (const char *p = out; *p; p++)
                semis += *p == ';';
        assert_int_equal(semis, 3002 + 127); /* deep;main;rec x3000;spin + deep;rec x127 */
        assert_int_equal(st.odd[PG_PS_ODD_TRUNCATED].count, 2);
        assert_int_equal(st.odd[PG_PS_ODD_TRUNCATED].first_line, 1);
        free(out);
        o.mark_truncated = true;
        o.max_stack = 3001;
        out = pg_fold_text(&o, in.ptr, 0, &st);
        assert_non_null(strstr(out, "deep;[truncated];main;rec;rec;"));
        assert_non_null(strstr(out, "\ndeep;rec;rec;"));
        assert_int_equal(st.odd[PG_PS_ODD_TRUNCATED].count, 1);
        free(out);
        pg_buf_release(&in);
}

/* A frame line seen before is replayed, not parsed again: the replay must
 * give what parsing gives, whatever record it is in (a Java record tidies
 * the same line differently), and count kernel frames every time. */
static void test_perfscript_repeated_lines(void **state)
{
        static const char java[] = "java 1/1 [000] 1.000001:    1 cpu-clock: \n"
                                   "\tffffffff81000010 do_syscall_64+0x10 ([kernel.kallsyms])\n"
                                   "\t    7f0000001000 Lcom/x/Foo;.bar (/tmp/perf-1.map)\n"
                                   "\t    7f0000002000 [unknown] (/tmp/perf-1.map)\n"
                                   "\n";
        static const char app[] = "app 2/2 [000] 1.000002:    1 cpu-clock: \n"
                                  "\tffffffff81000010 do_syscall_64+0x10 ([kernel.kallsyms])\n"
                                  "\t    7f0000001000 Lcom/x/Foo;.bar (/tmp/perf-1.map)\n"
                                  "\t    7f0000002000 [unknown] (/tmp/perf-1.map)\n"
                                  "\n";
        struct pg_perfscript_options o = { .include_addrs = true };
        struct pg_perfscript_stats st1, st;
        struct pg_buf all = PG_BUF_INIT;
        (void) state;

        char *j1 = pg_fold_text(&o, java, 0, &st1);
        char *a1 = pg_fold_text(&o, app, 0, NULL);
        assert_int_equal(st1.kernel_frames, 1);
        /* the Java tidy applies to the java record only */
        assert_string_not_equal(strchr(j1, ';'), strchr(a1, ';'));
        pg_buf_printf(&all, "%s%s%s%s%s", java, app, app, java, java);
        char *mixed = pg_fold_text(&o, all.ptr, 0, &st);
        /* the same stacks as each record folded alone, with their counts */
        j1[strlen(j1) - 2] = '3';
        a1[strlen(a1) - 2] = '2';
        assert_non_null(strstr(mixed, j1));
        assert_non_null(strstr(mixed, a1));
        assert_int_equal(strlen(mixed), strlen(j1) + strlen(a1));
        assert_int_equal(st.samples, 5);
        assert_int_equal(st.kernel_frames, 5);
        assert_int_equal(st.stacks, 2);
        /* and in any chunking */
        for (size_t chunk = 1; chunk < 64; chunk += 7) {
                char *part = pg_fold_text(&o, all.ptr, chunk, NULL);
                assert_string_equal(part, mixed);
                free(part);
        }
        free(mixed);
        free(j1);
        free(a1);
        pg_buf_release(&all);
}

static void test_perfscript_perf_data_refused(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript *ps;
        (void) state;
        assert_int_equal(pg_perfscript_new(&ps, &o), 0);
        pg_perfscript_begin(ps, "perf.data");
        assert_int_equal(pg_perfscript_feed(ps, "PERFILE2\0\0\0\x68\n", 13), PG_EINPUT);
        assert_non_null(strstr(pg_error_last(), "'perf.data' is a perf.data file"));
        pg_perfscript_free(ps);
}

static long pg_maxrss_kb(void)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return ru.ru_maxrss;
}

static void test_perfscript_memory_bounded(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript *ps;
        struct pg_buf rec = PG_BUF_INIT;
        long before;
        (void) state;
        /* 100,000 samples (about 60 MB of text) over 8 distinct stacks */
        assert_int_equal(pg_perfscript_new(&ps, &o), 0);
        pg_perfscript_begin(ps, "gen");
        for (int k = 0; k < 8; k++) {
                pg_buf_printf(&rec, "bench 4242 [001] 12.345678:    1001001 cpu-clock: \n");
                for (int d = 0; d < 8; d++)
                        pg_buf_printf(&rec,
                                      "\t    55d0a00011%02x fn_%d_%d+0x1e (/opt/bench/bin/app)\n",
                                      d, k, d);
                pg_buf_puts(&rec,
                            "\t   2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n\n");
        }
        before = pg_maxrss_kb();
        for (int i = 0; i < 12500; i++)
                assert_int_equal(pg_perfscript_feed(ps, rec.ptr, rec.len), 0);
        assert_int_equal(pg_perfscript_end(ps), 0);
        const struct pg_perfscript_stats *st = pg_perfscript_stats(ps);
        assert_int_equal(st->samples, 100000);
        assert_int_equal(st->stacks, 8);
        assert_int_equal(st->weight_total, 100000ull * 1001001);
        /* the peak grew by far less than the 60 MB that went through */
        assert_true(pg_maxrss_kb() - before < 8 * 1024);
        pg_perfscript_free(ps);
        pg_buf_release(&rec);
}

static void test_perfscript_read_and_write(void **state)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript *ps;
        char path[64];
        FILE *f;
        (void) state;
        pg_test_sandbox();
        f = fopen("in.txt", "w");
        assert_non_null(f);
        fputs(pg_two_records, f);
        fclose(f);
        assert_int_equal(pg_perfscript_new(&ps, &o), 0);
        f = fopen("in.txt", "r");
        assert_int_equal(pg_perfscript_read(ps, f, "in.txt"), 0);
        fclose(f);
        snprintf(path, sizeof(path), "out.txt");
        f = fopen(path, "w");
        assert_int_equal(pg_perfscript_write(ps, f, path), 0);
        fclose(f);
        char *got = pg_test_read(path);
        assert_string_equal(got, "app;main;outer;inner 1000\n");
        free(got);
        /* a write that fails is reported */
        f = fopen("/dev/full", "w");
        if (f) {
                assert_int_equal(pg_perfscript_write(ps, f, "/dev/full"), PG_EIO);
                assert_non_null(strstr(pg_error_last(), "cannot write '/dev/full'"));
                fclose(f);
        }
        pg_perfscript_free(ps);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_perfscript_chunking_and_eof),
                cmocka_unit_test(test_perfscript_headers_from_the_right),
                cmocka_unit_test(test_perfscript_periods_and_events),
                cmocka_unit_test(test_perfscript_bad_filter),
                cmocka_unit_test(test_perfscript_odd_lines),
                cmocka_unit_test(test_perfscript_empty_and_header_only),
                cmocka_unit_test(test_perfscript_annotations_and_inline_chains),
                cmocka_unit_test(test_perfscript_single_line_samples),
                cmocka_unit_test(test_perfscript_rust_mangled),
                cmocka_unit_test(test_perfscript_deep_and_truncated),
                cmocka_unit_test(test_perfscript_repeated_lines),
                cmocka_unit_test(test_perfscript_perf_data_refused),
                cmocka_unit_test(test_perfscript_memory_bounded),
                cmocka_unit_test(test_perfscript_read_and_write),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
