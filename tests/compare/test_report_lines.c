/*
 * The text and Markdown reports show a multi-line confirmation note (a
 * failed build's log tail) as lines, not as a literal "\n", and the text
 * report names the flame graph files by their path under --flamegraph-dir.
 * A change of absurd size is printed short.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "compare/confirm.h"
#include "compare/report.h"
#include "compare/verdict.h"

static struct pg_result pg_base, pg_head; /* empty results: the report's details need both */

static void pg_one_bench(struct pg_comparison *c, const char *note)
{
        pg_comparison_init(c);
        c->n = 1;
        c->benches = calloc(1, sizeof(*c->benches));
        assert_non_null(c->benches);
        c->benches[0].name = pg_xstrdup("gobench");
        c->benches[0].verdict = PG_VERDICT_REGRESSION;
        c->benches[0].base = &pg_base;
        c->benches[0].head = &pg_head;
        c->counts[PG_VERDICT_REGRESSION] = 1;
        c->benches[0].flamegraph_diff = pg_xstrdup("gobench.diff.svg");
        c->benches[0].confirm = pg_bench_confirm_new();
        c->benches[0].confirm->note = pg_xstrdup(note);
}

static const char *const pg_note =
    "the build of base commit 58047e3ce347: 'go build' exited with status 2; last lines of "
    "'b/58047e3ce347.log':\ngo: cannot find GOROOT directory: /nonexistent\n<b>second</b> line";

static void test_text_report_note_lines(void **state)
{
        struct pg_comparison c;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_report_opts o = { 0 };
        (void) state;
        pg_one_bench(&c, pg_note);
        pg_report_text(&out, &c, &o);
        assert_null(strstr(out.ptr, "\\n"));
        /* each log line on its own line, indented under the verdict line */
        assert_non_null(strstr(out.ptr, "log':\n              go: cannot find GOROOT directory: "
                                        "/nonexistent\n              <b>second</b> line\n"));
        assert_non_null(strstr(out.ptr, "Differential flame graphs: gobench.diff.svg\n"));
        pg_buf_release(&out);
        pg_comparison_release(&c);
}

static void test_text_report_flamegraph_dir(void **state)
{
        struct pg_comparison c;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_report_opts o = { .flamegraph_dir = "flamegraphs/" };
        (void) state;
        pg_one_bench(&c, "x");
        pg_report_text(&out, &c, &o);
        assert_non_null(
            strstr(out.ptr, "Differential flame graphs: flamegraphs/gobench.diff.svg\n"));
        pg_buf_reset(&out);
        o.flamegraph_dir = "out/fg";
        pg_report_text(&out, &c, &o);
        assert_non_null(strstr(out.ptr, "Differential flame graphs: out/fg/gobench.diff.svg\n"));
        pg_buf_release(&out);
        pg_comparison_release(&c);
}

static void test_markdown_note_lines(void **state)
{
        struct pg_comparison c;
        struct pg_buf out = PG_BUF_INIT;
        struct pg_report_opts o = { 0 };
        (void) state;
        pg_one_bench(&c, pg_note);
        pg_report_markdown(&out, &c, &o);
        /* no backslash-n, escaped or not; a line break between the lines,
         * and the log's markup stays text; "<br>" ends no source line, so a
         * log line "---" cannot turn the one before into a heading */
        assert_null(strstr(out.ptr, "\\n"));
        assert_null(strstr(out.ptr, "&#92;n"));
        assert_non_null(strstr(out.ptr, "log&#39;:<br>go: cannot find GOROOT directory: "
                                        "/nonexistent<br>&lt;b&gt;second&lt;/b&gt; line"));
        assert_null(strstr(out.ptr, "<b>second"));
        pg_buf_release(&out);
        pg_comparison_release(&c);
}

/* A change of 1e301 percent (a stored 1.7e308 ns) is printed in a few
 * digits, not 300, in every report (they all use pg_report_fmt_change). */
static void test_change_of_absurd_size_is_short(void **state)
{
        struct pg_judgement j;
        struct pg_buf b = PG_BUF_INIT;
        (void) state;

        memset(&j, 0, sizeof(j));
        j.has_base = j.has_head = j.has_rel = true;
        j.rel_change = 8.4e299;
        pg_report_fmt_change(&b, &j);
        assert_string_equal(b.ptr, "+8.4e+301%");
        pg_buf_reset(&b);
        j.rel_change = 0.2345;
        pg_report_fmt_change(&b, &j);
        assert_string_equal(b.ptr, "+23.4%");
        pg_buf_release(&b);
}

/* The hottest path of a Rust benchmark's memcmp, as perfgate run recorded
 * it (rustc 1.8x, frame pointers): the 13 frames of Rust's runtime between
 * main and the program's main are left out of the shown path, so the
 * project's own function is the third one named; a C path starts at main;
 * a path without main (a libc function whose caller's frame pointer was
 * lost) is shown whole. */
static void test_path_shown_from_main(void **state)
{
        char *p;
        (void) state;

        p = pg_report_path_shown(
            "_start;__libc_start_main_impl;__libc_start_call_main;main;std::rt::lang_start_"
            "internal;"
            "std::rt::lang_start_internal::{{closure}}_[i];std::panic::catch_unwind_[i];"
            "std::panicking::try_[i];std::panicking::try::do_call_[i];"
            "std::rt::lang_start::{{closure}};"
            "std::sys::backtrace::__rust_begin_short_backtrace;"
            "core::ops::function::FnOnce::call_once_[i];tk::main;tk::distinct_words;"
            "alloc::slice::stable_sort_[i];__memcmp_evex_movbe");
        assert_string_equal(p, "main;...;tk::main;tk::distinct_words;alloc::slice::stable_sort_[i];"
                               "__memcmp_evex_movbe");
        free(p);
        p = pg_report_path_shown("_start;__libc_start_main;main;distinct_words;__strcmp_evex");
        assert_string_equal(p, "main;distinct_words;__strcmp_evex");
        free(p);
        p = pg_report_path_shown("msort_with_tmp.part.0;__memcmp_evex_movbe");
        assert_string_equal(p, "msort_with_tmp.part.0;__memcmp_evex_movbe");
        free(p);
        /* nothing after the runtime: from main on, whole */
        p = pg_report_path_shown("main;std::rt::lang_start_internal");
        assert_string_equal(p, "main;std::rt::lang_start_internal");
        free(p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text_report_note_lines),
                cmocka_unit_test(test_text_report_flamegraph_dir),
                cmocka_unit_test(test_markdown_note_lines),
                cmocka_unit_test(test_change_of_absurd_size_is_short),
                cmocka_unit_test(test_path_shown_from_main),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
