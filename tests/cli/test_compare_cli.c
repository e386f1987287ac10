/*
 * test_compare_cli.c - `perfgate compare` end to end, running the real
 * binary: every report format against golden files (tests/golden/compare/,
 * regenerate with PG_BLESS=1 ctest -R test_compare_cli and review the diff),
 * the JUnit file under xmllint, the Markdown rendered by cmark-gfm with
 * hostile benchmark and function names, the OpenMetrics syntax, every exit
 * status (0, 1, 1 with --strict, 2 for each kind of bad input, 4 for an
 * unwritable report), nothing written on bad input, sharded result
 * directories, and the field cases 26, 32 and 34 through the CLI.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/json.h"
#include "tests/util/testutil.h"

static char *pg_golden_path(const char *rel)
{
        return pg_xasprintf("%s/tests/golden/compare/%s", pg_test_env("PG_SOURCE_DIR"), rel);
}

/* Link golden input directory @rel into the sandbox as @as. */
static void pg_link_input(const char *rel, const char *as)
{
        char *p = pg_golden_path(rel);
        assert_int_equal(symlink(p, as), 0);
        free(p);
}

static void pg_check_golden(const char *actual, const char *golden_rel)
{
        char *path = pg_golden_path(golden_rel), *golden;
        if (getenv("PG_BLESS"))
                pg_test_write(path, actual); /* explicit regeneration, reviewed in git diff */
        golden = pg_test_read(path);
        if (strcmp(actual, golden) != 0)
                fail_msg("output differs from %s:\n%s", path, actual);
        free(golden);
        free(path);
}

static bool pg_have(const char *tool)
{
        char *cmd = pg_xasprintf("command -v %s >/dev/null 2>&1", tool);
        int rc = system(cmd);
        free(cmd);
        return rc == 0;
}

static void test_compare_cli_golden_reports(void **state)
{
        struct pg_run_out o;
        char *text;
        (void) state;
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--markdown", "out.md",
                         "--json", "out.json", "--junit", "out.xml", "--openmetrics", "out.om",
                         NULL);
        assert_int_equal(o.status, 1);           /* two regressions */
        assert_null(strstr(o.out.ptr, "\033[")); /* NO_COLOR, and not a TTY */
        pg_check_golden(o.out.ptr, "report.txt");
        pg_run_out_release(&o);
        text = pg_test_read("out.md");
        assert_true(strncmp(text, "<!-- perfgate -->\n", 18) == 0);
        assert_non_null(strstr(text, "2 regressions in 7 benchmarks"));
        pg_check_golden(text, "report.md");
        free(text);
        text = pg_test_read("out.json");
        pg_check_golden(text, "report.json");
        free(text);
        text = pg_test_read("out.xml");
        pg_check_golden(text, "report.xml");
        free(text);
        text = pg_test_read("out.om");
        pg_check_golden(text, "report.om");
        free(text);
}

static void test_compare_cli_text_content(void **state)
{
        struct pg_run_out o;
        const char *reg, *hot, *path;
        (void) state;
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", NULL);
        assert_int_equal(o.status, 1);
        /* one line per benchmark, worst first */
        assert_non_null(strstr(o.out.ptr, "\nregression    parse "));
        assert_non_null(strstr(o.out.ptr, "\nimprovement   render "));
        assert_non_null(strstr(o.out.ptr, "\nnew           compress "));
        assert_non_null(strstr(o.out.ptr, "\nmissing       oldbench "));
        assert_non_null(strstr(o.out.ptr, "\ninconclusive  noisy "));
        /* regressions in detail: metric, base, head, change, p-value, threshold */
        reg = strstr(o.out.ptr, "    task-clock             100.4 ms     125.5 ms     +25.0%     "
                                "0.00794  10%       regression");
        assert_non_null(reg);
        /* the injected function is the first hotspot of parse, with its path */
        hot = strstr(o.out.ptr, "  parse (2000 -> 2600 samples)\n    copy_field  40.00% -> 53.85%");
        assert_non_null(hot);
        path = strstr(hot, "via main > parse_request > copy_field");
        assert_non_null(path);
        /* a newline in a function name cannot start a line of its own */
        assert_non_null(strstr(o.out.ptr, "</script>\\n`x`"));
        pg_run_out_release(&o);
}

static void test_compare_cli_junit_valid(void **state)
{
        struct pg_run_out o;
        char *xml;
        char *argv[] = { "xmllint", "--noout", "out.xml", NULL };
        (void) state;
        if (!pg_have("xmllint"))
                skip(); /* ci/install-deps.sh test installs libxml2-utils */
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--junit", "out.xml", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_run(&o, NULL, argv), 0);
        assert_string_equal(o.err.ptr, "");
        pg_run_out_release(&o);
        xml = pg_test_read("out.xml");
        /* what GitHub's and GitLab's reporters read */
        assert_non_null(strstr(xml, "<testsuite name=\"perfgate\" tests=\"7\" failures=\"2\""));
        assert_non_null(strstr(xml, "<testcase name=\"parse\" classname=\"perfgate.default\" "
                                    "time=\"0.125500\">\n      <failure message=\"task-clock "
                                    "regression: 100.4 ms -&gt; 125.5 ms (+25.0%, p = 0.00794, "
                                    "threshold 10%)\""));
        assert_non_null(strstr(xml, "name=\"pipe|&lt;img src=x onerror=alert(1)&gt;"));
        free(xml);
        /* --strict: the inconclusive benchmark fails too */
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--junit", "out.xml",
                         "--strict", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
        xml = pg_test_read("out.xml");
        assert_non_null(strstr(xml, "failures=\"3\""));
        free(xml);
}

static size_t pg_count(const char *s, const char *needle)
{
        size_t n = 0;
        for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

static void test_compare_cli_markdown_hostile_names(void **state)
{
        struct pg_run_out o;
        char *html, *table_end, *hot;
        /* --unsafe: let raw HTML through, as GitHub does for allowed tags, so an
         * injected tag would show up in the output instead of being dropped */
        char *argv[] = { "cmark-gfm", "--unsafe", "-e", "table", "out.md", NULL };
        (void) state;
        if (!pg_have("cmark-gfm"))
                skip(); /* ci/install-deps.sh test installs cmark-gfm */
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--markdown", "out.md", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_run(&o, NULL, argv), 0);
        html = o.out.ptr;
        /* no tag from a name survives: only cmark's own tags and our <details> */
        assert_int_equal(pg_count(html, "<details>"), 5);
        assert_int_equal(pg_count(html, "</details>"), 5);
        assert_null(strstr(html, "raw HTML omitted"));
        assert_null(strstr(html, "<script"));
        assert_null(strstr(html, "<img"));
        assert_null(strstr(html, "<code>"));               /* backticks did not open a code span */
        assert_null(strstr(html, "<em>"));                 /* nor asterisks emphasis */
        assert_null(strstr(html, "<a href=\"http://e\"")); /* nor [z](http://e) a link */
        /* the names are shown as text */
        assert_non_null(strstr(html, "pipe|&lt;img src=x onerror=alert(1)&gt;`code`*em*"));
        assert_non_null(strstr(html, "evil|fn&lt;script&gt;alert(1)&lt;/script&gt;\\n`x`"));
        /* benchmark table: header + 7 rows of exactly 4 cells */
        table_end = strstr(html, "</table>");
        assert_non_null(table_end);
        *table_end = '\0';
        assert_int_equal(pg_count(html, "<tr>"), 8);
        assert_int_equal(pg_count(html, "<td"), 28);
        /* hotspot table: 2 rows of 8 cells (the regressed functions, the hostile
         * one among them); functions whose share moved only because others
         * grew are "shifted", not listed */
        hot = strstr(table_end + 1, "<table>");
        assert_non_null(hot);
        *strstr(hot, "</table>") = '\0';
        assert_int_equal(pg_count(hot, "<tr>"), 3);
        assert_int_equal(pg_count(hot, "<td"), 16);
        assert_non_null(strstr(hot, "evil|fn&lt;script&gt;"));
        pg_run_out_release(&o);
}

/* OpenMetrics text format: comments, samples name{labels} value, # EOF. */
static void test_compare_cli_openmetrics_syntax(void **state)
{
        struct pg_run_out o;
        char *text, *save = NULL;
        regex_t sample;
        size_t lines = 0;
        (void) state;
        assert_int_equal(
            regcomp(&sample,
                    "^[a-zA-Z_:][a-zA-Z0-9_:]*"
                    "(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
                    "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\")*)\\})? "
                    "-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?$",
                    REG_EXTENDED | REG_NOSUB),
            0);
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--openmetrics", "out.om",
                         NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
        text = pg_test_read("out.om");
        assert_true(strlen(text) > 7 && strcmp(text + strlen(text) - 6, "# EOF\n") == 0);
        assert_non_null(strstr(text, "perfgate_regression{benchmark=\"parse\"} 1\n"));
        assert_non_null(strstr(text, "perfgate_change_ratio{benchmark=\"parse\",metric=\"task-"
                                     "clock\"} 0.25\n"));
        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                lines++;
                if (strncmp(l, "# TYPE ", 7) == 0 || strncmp(l, "# HELP ", 7) == 0 ||
                    strcmp(l, "# EOF") == 0)
                        continue;
                if (regexec(&sample, l, 0, NULL, 0) != 0)
                        fail_msg("not an OpenMetrics sample: '%s'", l);
        }
        assert_true(lines > 20);
        regfree(&sample);
        free(text);
}

static void test_compare_cli_json_strict_parse(void **state)
{
        struct pg_run_out o;
        char *text;
        cJSON *root = NULL, *counts;
        (void) state;
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "out.json", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
        text = pg_test_read("out.json");
        assert_int_equal(pg_json_parse(text, strlen(text), "out.json", 0, &root), 0);
        assert_string_equal(pg_json_get_string(root, "schema"), "perfgate/compare/1");
        assert_int_equal(cJSON_GetObjectItem(root, "exit_status")->valueint, 1);
        counts = cJSON_GetObjectItem(root, "counts");
        assert_int_equal(cJSON_GetObjectItem(counts, "regression")->valueint, 2);
        assert_int_equal(cJSON_GetObjectItem(counts, "new")->valueint, 1);
        assert_int_equal(cJSON_GetObjectItem(counts, "missing")->valueint, 1);
        cJSON_Delete(root);
        free(text);
}

static void test_compare_cli_exit_0_aa(void **state)
{
        struct pg_run_out o;
        (void) state;
        /* A/A: the same results against themselves */
        pg_link_input("base", "base");
        pg_test_perfgate(&o, "compare", "base", "--results", "base", "--json", "aa.json", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "no regression in 6 benchmarks\n"));
        assert_null(strstr(o.out.ptr, "regression    "));
        pg_run_out_release(&o);
        /* B/A: the injected regression reversed is an improvement and passes */
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "head/parse.json", "--results", "base/parse.json", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "\nimprovement   parse "));
        assert_non_null(strstr(o.out.ptr, "no regression in 1 benchmark (1 improvement)\n"));
        pg_run_out_release(&o);
}

static void test_compare_cli_sharded_results(void **state)
{
        struct pg_run_out o;
        char *src;
        (void) state;
        pg_link_input("base", "base");
        assert_int_equal(mkdir("s1", 0755), 0);
        assert_int_equal(mkdir("s2", 0755), 0);
        src = pg_golden_path("head/parse.json");
        assert_int_equal(symlink(src, "s1/parse.json"), 0);
        assert_int_equal(symlink(src, "s2/parse2.json"), 0); /* same benchmark twice */
        free(src);
        src = pg_golden_path("head/render.json");
        assert_int_equal(symlink(src, "s2/render.json"), 0);
        free(src);
        pg_test_perfgate(&o, "compare", "base", "--results", "s1", "--results", "s2", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "benchmark 'parse' appears in more than one results"));
        pg_run_out_release(&o);
        assert_int_equal(unlink("s2/parse2.json"), 0);
        pg_test_perfgate(&o, "compare", "base", "--results", "s1", "--results", "s2", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "\nregression    parse "));
        assert_non_null(strstr(o.out.ptr, "\nimprovement   render "));
        pg_run_out_release(&o);
}

static void test_compare_cli_bad_input_exit_2(void **state)
{
        static const char *const cases[][8] = {
                { "--bogus", NULL },
                { "base", "--json", NULL },
                { "base", "extra", NULL },
                { "base", "--max-walk", "-3", NULL },
                { "base", "--results", "nope", NULL },
                { "./missing.json", NULL },
                { "missing.json", NULL },
                { "base", "--config", "nope.json", NULL },
                { "base", "--config", "bad.json", NULL },
                { "base", "--config", "badrule.json", NULL },
                { "corrupt", NULL },
                { "base", "--link-base", "https://x", NULL },
                { "base", "--results", "empty", NULL },
                { "base", "--markdown-plain", "plain.md", NULL },
                { "base", "--flamegraph-dir", "fg", "--link-base", "https://x", "--markdown-plain",
                  "./out.md", NULL },
        };
        static const char *const expect[] = {
                "unknown option '--bogus'",
                "option '--json' needs a value",
                "unexpected argument 'extra'",
                "--max-walk '-3' is not a number",
                "no results in 'nope'; run 'perfgate run' first",
                "baseline './missing.json' does not exist",
                "baseline 'missing.json' does not exist",
                "config 'nope.json' does not exist",
                "'bad.json': invalid JSON at line 1",
                "'badrule.json': compare.metrics.ipc threshold must be a string like \"5%\"",
                "'corrupt/x.json'",
                "--link-base needs --flamegraph-dir",
                "no result files in 'empty'",
                "--markdown-plain needs --markdown and --link-base",
                "'--markdown' and '--markdown-plain' name the same file './out.md'",
        };
        (void) state;
        pg_link_input("base", "base");
        pg_link_input("head", ".perfgate-head");
        assert_int_equal(mkdir(".perfgate", 0755), 0);
        assert_int_equal(symlink("../.perfgate-head", ".perfgate/results"), 0);
        assert_int_equal(mkdir("corrupt", 0755), 0);
        assert_int_equal(mkdir("empty", 0755), 0);
        pg_test_write("corrupt/x.json", "{\"schema\": \"perfgate/result/1\", \"name\": NaN}");
        pg_test_write("bad.json", "{ nope");
        pg_test_write("badrule.json",
                      "{\"compare\": {\"metrics\": {\"ipc\": {\"threshold\": 5}}}}");
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pg_run_out o;
                char *argv[16];
                size_t n = 0;
                argv[n++] = (char *) pg_test_env("PERFGATE_BIN");
                argv[n++] = "compare";
                argv[n++] = "--markdown";
                argv[n++] = "out.md";
                for (size_t k = 0; cases[i][k]; k++)
                        argv[n++] = (char *) cases[i][k];
                argv[n] = NULL;
                pg_test_run(&o, NULL, argv);
                if (o.status != 2 || !strstr(o.err.ptr, expect[i]))
                        fail_msg("case %zu: exit %d, stderr '%s' (expected 2 and '%s')", i,
                                 o.status, o.err.ptr, expect[i]);
                assert_true(strncmp(o.err.ptr, "perfgate: error: ", 17) == 0);
                assert_false(pg_test_exists("out.md")); /* nothing half-written */
                pg_run_out_release(&o);
        }
}

static void test_compare_cli_no_baseline(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_link_input("head", "head");
        assert_int_equal(mkdir("nobase", 0755), 0);
        /* an empty directory written as a path: nothing to compare yet */
        pg_test_perfgate(&o, "compare", "./nobase", "--results", "head", "--markdown", "out.md",
                         NULL);
        assert_int_equal(o.status, 0);
        assert_string_equal(o.out.ptr,
                            "perfgate: no baseline results in './nobase'; nothing to compare.\n");
        assert_false(pg_test_exists("out.md"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "./nobase", "--results", "head", "--require-baseline",
                         NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "perfgate: error: no baseline results in './nobase'"));
        pg_run_out_release(&o);
        /* a bare word naming an empty directory is never a pass */
        pg_test_perfgate(&o, "compare", "nobase", "--results", "head", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "no result files in 'nobase' (a directory, not a git "
                                          "revision)"));
        pg_run_out_release(&o);
}

static void test_compare_cli_git_revision(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_link_input("head", "head");
        /* the sandbox is not a git repository: an unknown revision is bad input */
        pg_test_perfgate(&o, "compare", "main", "--results", "head", NULL);
        assert_int_equal(o.status, 2);
        pg_run_out_release(&o);
        /* a repository with no baseline yet (the first run): exit 0, and the
         * Markdown comment says so, so a CI step that posts it has a body */
        {
                char *init[] = { "git", "init", "-q", "-b", "main", ".", NULL };
                char *commit[] = { "git",    "-c", "user.name=t",   "-c", "user.email=t@t",
                                   "commit", "-q", "--allow-empty", "-m", "x",
                                   NULL };
                char *md;
                assert_int_equal(pg_test_run(&o, NULL, init), 0);
                pg_run_out_release(&o);
                assert_int_equal(pg_test_run(&o, NULL, commit), 0);
                pg_run_out_release(&o);
                pg_test_perfgate(&o, "compare", "main", "--results", "head", "--markdown", "c.md",
                                 NULL);
                assert_int_equal(o.status, 0);
                assert_non_null(strstr(o.out.ptr, "no baseline for 'main'"));
                pg_run_out_release(&o);
                md = pg_test_read("c.md");
                assert_true(strncmp(md, "<!-- perfgate -->", 17) == 0);
                assert_non_null(strstr(md, "no baseline yet"));
                free(md);
                /* that comment is a report: a failed write is exit 4 with
                 * the error, not a warning and exit 0 with no comment */
                if (access("/dev/full", W_OK) == 0) {
                        pg_test_perfgate(&o, "compare", "main", "--results", "head", "--markdown",
                                         "/dev/full", NULL);
                        if (o.status != 4 ||
                            !strstr(o.err.ptr, "perfgate: error: cannot write '/dev/full': No "
                                               "space left on device"))
                                fail_msg("exit %d\n%s", o.status, o.err.ptr);
                        pg_run_out_release(&o);
                }
                pg_test_perfgate(&o, "compare", "main", "--results", "head", "--require-baseline",
                                 NULL);
                assert_int_equal(o.status, 2);
                pg_run_out_release(&o);
        }
}

static void test_compare_cli_io_error_exit_4(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        /* missing directories are made, as for --flamegraph-dir (the demo
         * writes report/comment.md) */
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "new/dir/out.json",
                         NULL);
        assert_int_equal(o.status, 1);
        assert_int_equal(access("new/dir/out.json", F_OK), 0);
        pg_run_out_release(&o);
        pg_test_write("afile", "x\n"); /* a parent that is a file */
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "afile/out.json",
                         NULL);
        assert_int_equal(o.status, 4);
        assert_non_null(strstr(o.err.ptr, "afile"));
        pg_run_out_release(&o);
        /* a report that cannot be written leaves none of the others behind:
         * the CI would post a Markdown verdict for a job that failed */
        assert_int_equal(mkdir("adir.json", 0755), 0);
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--markdown", "out.md",
                         "--junit", "out.xml", "--json", "adir.json", NULL);
        assert_int_equal(o.status, 4);
        assert_non_null(strstr(o.err.ptr, "'adir.json': it is a directory"));
        assert_int_equal(access("out.md", F_OK), -1);
        assert_int_equal(access("out.xml", F_OK), -1);
        pg_run_out_release(&o);
        /* a report whose write fails names it once (/dev/full: every write
         * is ENOSPC; a device is written in place) */
        if (access("/dev/full", W_OK) == 0) {
                const char *p;
                int named = 0;
                pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "/dev/full",
                                 NULL);
                assert_int_equal(o.status, 4);
                for (p = o.err.ptr; (p = strstr(p, "/dev/full")); p++)
                        named++;
                if (named != 1 || !strstr(o.err.ptr, "cannot write '/dev/full': No space left"))
                        fail_msg("'/dev/full' named %d times:\n%s", named, o.err.ptr);
                pg_run_out_release(&o);
        }
}

static void test_compare_cli_flamegraphs(void **state)
{
        struct pg_run_out o;
        char *md;
        (void) state;
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--flamegraph-dir", "fg",
                         "--link-base", "https://ci.example/artifacts", "--markdown", "out.md",
                         "--markdown-plain", "plain.md", NULL);
        assert_int_equal(o.status, 1);
        md = pg_test_read("out.md");
        {
                /* --markdown-plain: the report compare writes without --link-base */
                struct pg_run_out p;
                char *plain = pg_test_read("plain.md"), *want;
                pg_test_perfgate(&p, "compare", "base", "--results", "head", "--markdown",
                                 "want.md", "--flamegraph-dir", "fg2", NULL);
                assert_int_equal(p.status, 1);
                want = pg_test_read("want.md");
                assert_string_equal(plain, want);
                assert_null(strstr(plain, "https://ci.example"));
                assert_string_not_equal(plain, md);
                free(plain);
                free(want);
                pg_run_out_release(&p);
        }
        if (strstr(o.err.ptr, "flame graphs are not built into this perfgate yet")) {
                /* placeholder renderer: a warning, the gate still works, no links */
                assert_false(pg_test_exists("fg/parse.diff.svg"));
                assert_null(strstr(md, "https://ci.example"));
        } else {
                assert_true(pg_test_exists("fg/parse.diff.svg"));
                assert_true(pg_test_exists("fg/parse.base.svg"));
                assert_false(pg_test_exists("fg/checksum.diff.svg")); /* no profile, unchanged */
                assert_non_null(
                    strstr(md, "<a href=\"https://ci.example/artifacts/parse.diff.svg\">"));
                /* a hostile name is percent-encoded in the link */
                assert_non_null(strstr(md, "pipe%7C%3Cimg%20src%3Dx"));
                /* the regressions' images, before the first <details>, worst first
                 * (pipe... task-clock +29.9% before parse +25.0%), each linking to
                 * its interactive graph; none for the improvement */
                assert_true(pg_test_exists("fg/parse.image.svg"));
                assert_false(pg_test_exists("fg/render.image.svg"));
                const char *img_parse =
                    strstr(md, "<a href=\"https://ci.example/artifacts/parse.diff.svg\"><img "
                               "src=\"https://ci.example/artifacts/parse.image.svg\"");
                const char *img_pipe =
                    strstr(md, "<img src=\"https://ci.example/artifacts/pipe%7C");
                const char *details = strstr(md, "<details>");
                assert_non_null(img_parse);
                assert_non_null(img_pipe);
                assert_non_null(details);
                assert_true(img_pipe < img_parse && img_parse < details);
                assert_non_null(strstr(img_parse, "alt=\"parse: differential flame graph; "
                                                  "copy&#95;field grew"));
                char *svg = pg_test_read("fg/parse.image.svg");
                assert_null(strstr(svg, "<script"));
                assert_non_null(strstr(svg, "width=\"880.0\""));
                assert_non_null(strstr(svg, ">copy_field</text>"));
                free(svg);
                /* both sides counted task-clock: coloured by own time */
                svg = pg_test_read("fg/parse.diff.svg");
                assert_non_null(strstr(svg, "change of each frame&#39;s own time, self share x "
                                            "run time"));
                /* under half the hotspot threshold (2 pp): white, and said */
                assert_non_null(strstr(svg, "; under 1.00% white)"));
                free(svg);
        }
        free(md);
        pg_run_out_release(&o);
}

static void test_compare_cli_case26_no_nan(void **state)
{
        struct pg_run_out o;
        char *text;
        cJSON *root = NULL, *metrics, *m;
        int seen = 0;
        (void) state;
        pg_link_input("cases/26/base", "base");
        pg_link_input("cases/26/head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "out.json",
                         "--markdown", "out.md", NULL);
        assert_int_equal(o.status, 1); /* instructions 1200 -> 3.6M is a real regression */
        assert_null(strstr(o.out.ptr, "nan"));
        assert_null(strstr(o.out.ptr, "inf"));
        pg_run_out_release(&o);
        text = pg_test_read("out.md");
        assert_null(strstr(text, "nan"));
        assert_null(strstr(text, "inf"));
        free(text);
        text = pg_test_read("out.json");
        assert_null(strstr(text, "NaN"));
        assert_null(strstr(text, "Infinity"));
        assert_int_equal(pg_json_parse(text, strlen(text), "out.json", 0, &root), 0);
        metrics = cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0), "metrics");
        cJSON_ArrayForEach(m, metrics)
        {
                const char *name = pg_json_get_string(m, "metric");
                const char *outcome = pg_json_get_string(m, "outcome");
                const char *reason = pg_json_get_string(m, "reason");
                if (strcmp(name, "task-clock") == 0) {
                        assert_string_equal(outcome, "not comparable");
                        assert_string_equal(reason, "zero baseline");
                        assert_true(cJSON_IsNull(
                            cJSON_GetObjectItem(cJSON_GetObjectItem(m, "change"), "relative")));
                        seen++;
                } else if (strcmp(name, "ipc") == 0) {
                        assert_string_equal(outcome, "not comparable");
                        assert_string_equal(reason, "undefined in the baseline ('cycles' is 0)");
                        seen++;
                } else if (strcmp(name, "LLC-miss-rate") == 0) {
                        assert_string_equal(outcome, "not comparable");
                        assert_non_null(strstr(reason, "undefined on both sides"));
                        seen++;
                } else if (strcmp(name, "branch-miss-rate") == 0) {
                        assert_string_equal(reason, "undefined in the baseline ('branches' is 0)");
                        seen++;
                }
        }
        assert_int_equal(seen, 4);
        cJSON_Delete(root);
        free(text);
}

static void test_compare_cli_case26_strict(void **state)
{
        struct pg_run_out o;
        (void) state;
        /* only the zero task-clock baseline, gated alone: inconclusive, 0; --strict 1 */
        pg_link_input("cases/26/base", "base");
        pg_link_input("cases/26/head", "head");
        pg_test_write("only-time.json", "{\"compare\": {\"gate\": [\"task-clock\"]}}");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config", "only-time.json",
                         NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "\ninconclusive  tiny_kernel "));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config", "only-time.json",
                         "--strict", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
}

static void test_compare_cli_case32_missing_and_new(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_link_input("cases/32/base", "base");
        pg_link_input("cases/32/head", "head");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", NULL);
        assert_int_equal(o.status, 0); /* new and missing do not fail by default */
        assert_non_null(strstr(o.out.ptr, "\nmissing       checksum "));
        assert_non_null(strstr(o.out.ptr, "\nnew           compress                 new, no "
                                          "baseline\n"));
        assert_non_null(strstr(o.out.ptr, "\nunchanged     parse_small "));
        /* the vanished ipc is said, not passed over, and why */
        assert_non_null(strstr(o.out.ptr, "parse_large              task-clock -0.2%; not "
                                          "judged: ipc (present in the baseline, undefined in "
                                          "head ('cycles' not measured))\n"));
        assert_non_null(strstr(o.out.ptr, "(1 missing, 1 new)"));
        pg_run_out_release(&o);
        /* when ipc gates, its disappearance makes the benchmark inconclusive */
        pg_test_write("gate-ipc.json", "{\"compare\": {\"gate\": [\"task-clock\", \"ipc\"]}}");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config", "gate-ipc.json",
                         "--strict", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "\ninconclusive  parse_large "));
        assert_non_null(strstr(o.out.ptr, "present in the baseline, undefined in head"));
        pg_run_out_release(&o);
        /* a removed benchmark fails when the project says so */
        pg_test_write("strict-missing.json", "{\"compare\": {\"fail_on_missing\": true}}");
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--config",
                         "strict-missing.json", NULL);
        assert_int_equal(o.status, 1);
        pg_run_out_release(&o);
}

static void test_compare_cli_case34_direction(void **state)
{
        struct pg_run_out o;
        char *text;
        cJSON *root = NULL, *b;
        (void) state;
        pg_link_input("cases/34/base", "base");
        pg_link_input("cases/34/head", "head");
        pg_link_input("cases/34/perfgate.json", "perfgate.json"); /* picked up by default */
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--json", "out.json", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "\nregression    A "));
        assert_non_null(strstr(o.out.ptr, "\nimprovement   B "));
        pg_run_out_release(&o);
        text = pg_test_read("out.json");
        assert_int_equal(pg_json_parse(text, strlen(text), "out.json", 0, &root), 0);
        cJSON_ArrayForEach(b, cJSON_GetObjectItem(root, "benchmarks"))
        {
                const char *bench = pg_json_get_string(b, "name");
                cJSON *m;
                cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "metrics"))
                {
                        const char *name = pg_json_get_string(m, "metric");
                        const char *outcome = pg_json_get_string(m, "outcome");
                        const char *want;
                        if (strcmp(bench, "B") == 0)
                                want = "improvement"; /* never fails */
                        else if (strcmp(name, "branch-miss-rate") == 0)
                                want = "unchanged"; /* +4% is below 5% */
                        else
                                want = "regression"; /* ipc down, LLC rate and time up */
                        if (strcmp(outcome, want) != 0)
                                fail_msg("%s.%s: %s, expected %s", bench, name, outcome, want);
                        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(m, "gate")));
                }
        }
        cJSON_Delete(root);
        free(text);
}

/* A benchmark that measured nothing in head fails the gate. */
static void test_compare_cli_failed_benchmark(void **state)
{
        struct pg_run_out o;
        (void) state;
        assert_int_equal(mkdir("b", 0755), 0);
        assert_int_equal(mkdir("h", 0755), 0);
        pg_test_write("b/x.json", "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", "
                                  "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", "
                                  "\"values\": [5, 6, 7]}}}");
        pg_test_write("h/x.json", "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", "
                                  "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", "
                                  "\"status\": \"not-counted\"}}}");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--junit", "out.xml", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "\nfailed        x                        head has no "
                                          "measured metric"));
        /* the failure leads the summary: exit 1 never reads "no regression" */
        assert_non_null(strstr(o.out.ptr,
                               "\n1 benchmark failed (no metrics measured), 0 regressions in 1 "
                               "benchmark\n"));
        assert_null(strstr(o.out.ptr, "no regression"));
        pg_run_out_release(&o);
}

/* Baseline from another host: counters inconclusive, time judged; another
 * CPU model: everything inconclusive. */
static void test_compare_cli_host_mismatch(void **state)
{
        static const char fmt[] =
            "{\"schema\": \"perfgate/result/1\", \"name\": \"x\", \"counters\": \"%s\", "
            "\"host\": {\"cpu\": \"%s\", \"pmu\": [%s], \"exclude_kernel\": %s}, "
            "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": [%s]}, "
            "\"instructions\": {\"unit\": \"count\", \"values\": [%s]}}}";
        struct pg_run_out o;
        char *j;
        (void) state;
        assert_int_equal(mkdir("b", 0755), 0);
        assert_int_equal(mkdir("h", 0755), 0);
        assert_int_equal(mkdir("h2", 0755), 0);
        j = pg_xasprintf(fmt, "hardware", "CPU A", "\"cpu\"", "false", "100, 101, 99, 100, 100",
                         "1000, 1001, 999, 1000, 1000");
        pg_test_write("b/x.json", j);
        free(j);
        j = pg_xasprintf(fmt, "simulated", "CPU A", "", "true", "130, 131, 129, 130, 130",
                         "1300, 1301, 1299, 1300, 1300");
        pg_test_write("h/x.json", j);
        free(j);
        j = pg_xasprintf(fmt, "hardware", "CPU B", "\"cpu\"", "false", "130, 131, 129, 130, 130",
                         "1000, 1001, 999, 1000, 1000");
        pg_test_write("h2/x.json", j);
        free(j);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--json", "v.json", NULL);
        assert_int_equal(o.status, 1); /* task-clock +30% is still judged */
        assert_non_null(strstr(o.out.ptr, "hosts differ: pmu [cpu] vs [], counters 'hardware' vs "
                                          "'simulated', exclude_kernel false vs true\n"));
        assert_non_null(strstr(o.out.ptr, "instructions           1000         1300         "
                                          "+30.0%"));
        /* simulated against hardware counts: never compared (docs/compare.md) */
        assert_non_null(strstr(o.out.ptr, "'hardware' counters in the baseline, 'simulated' in "
                                          "head: simulated counts are never compared"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "b", "--results", "h2", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "\ninconclusive  x "));
        assert_non_null(strstr(o.out.ptr, "cpu model 'CPU A' vs 'CPU B'"));
        pg_run_out_release(&o);
}

/* Hundreds of benchmarks: the PR comment stays under GitHub's 65536 limit. */
static void test_compare_cli_markdown_size_limit(void **state)
{
        struct pg_run_out o;
        char *md;
        (void) state;
        assert_int_equal(mkdir("b", 0755), 0);
        assert_int_equal(mkdir("h", 0755), 0);
        for (int i = 0; i < 400; i++) {
                for (int side = 0; side < 2; side++) {
                        char *path = pg_xasprintf("%s/bench_with_a_long_name_%03d.json",
                                                  side ? "h" : "b", i);
                        char *json = pg_xasprintf(
                            "{\"schema\": \"perfgate/result/1\", \"name\": "
                            "\"bench_with_a_long_name_%03d\", \"metrics\": {\"task-clock\": "
                            "{\"unit\": \"ns\", \"values\": [%d, %d, %d]}}}",
                            i, 1000 + side, 1001 + side, 999 + side);
                        pg_test_write(path, json);
                        free(path);
                        free(json);
                }
        }
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "out.md", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        md = pg_test_read("out.md");
        assert_true(strlen(md) < 65536);
        assert_non_null(strstr(md, "no regression in 400 benchmarks"));
        assert_non_null(
            strstr(md, "| :white_circle: | bench&#95;with&#95;a&#95;long&#95;name&#95;399 |"));
        assert_non_null(strstr(md, "Details of the remaining benchmarks are left out"));
        free(md);
}

/* Colour only on a terminal, and never with NO_COLOR: run under script(1),
 * which gives perfgate a pseudo-terminal. */
static void test_compare_cli_color_tty_only(void **state)
{
        struct pg_run_out o;
        char *cmd;
        char *argv[] = { "script", "-qec", NULL, "/dev/null", NULL };
        (void) state;
        if (!pg_have("script"))
                skip(); /* util-linux script(1) */
        pg_link_input("base", "base");
        pg_link_input("head", "head");
        cmd = pg_xasprintf("'%s' compare base --results head", pg_test_env("PERFGATE_BIN"));
        argv[2] = cmd;
        unsetenv("NO_COLOR");
        setenv("TERM", "xterm", 1);
        pg_test_run(&o, NULL, argv);
        assert_non_null(strstr(o.out.ptr, "\033[31mregression"));
        assert_non_null(strstr(o.out.ptr, "\033[32mimprovement"));
        pg_run_out_release(&o);
        setenv("NO_COLOR", "1", 1);
        pg_test_run(&o, NULL, argv);
        assert_non_null(strstr(o.out.ptr, "regression    parse"));
        assert_null(strstr(o.out.ptr, "\033["));
        pg_run_out_release(&o);
        unsetenv("NO_COLOR");
        setenv("TERM", "dumb", 1);
        pg_test_run(&o, NULL, argv);
        assert_null(strstr(o.out.ptr, "\033["));
        pg_run_out_release(&o);
        setenv("NO_COLOR", "1", 1);
        free(cmd);
}

/* Write result @name into @dir: task-clock values @values (a JSON array) and
 * a cpu-clock profile of @samples samples whose stacks are @stacks (a JSON
 * object), or no profile when @stacks is NULL. */
static void pg_write_tc_profile(const char *dir, const char *name, const char *values,
                                const char *stacks, int samples)
{
        char *path = pg_xasprintf("%s/%s.json", dir, name);
        char *profile = stacks ? pg_xasprintf(", \"profile\": {\"call_graph\": \"fp\", "
                                              "\"event\": \"cpu-clock\", \"frequency_hz\": 999, "
                                              "\"lost\": 0, \"runs\": 1, \"samples\": %d, "
                                              "\"stacks\": %s}",
                                              samples, stacks)
                               : pg_xstrdup("");
        char *text =
            pg_xasprintf("{\"schema\": \"perfgate/result/1\", \"name\": \"%s\", "
                         "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": %s}}%s}",
                         name, values, profile);
        mkdir(dir, 0755);
        pg_test_write(path, text);
        free(profile);
        free(text);
        free(path);
}

/* Write result @name into @dir with task-clock values @values (a JSON array). */
static void pg_write_tc(const char *dir, const char *name, const char *values)
{
        pg_write_tc_profile(dir, name, values, NULL, 0);
}

/* A typo in the config must not silently disable the gate: without the
 * config the 20% task-clock regression fails (exit 1); each misspelt config
 * is refused with exit 2, naming the key or metric, the file and the known
 * names, and writes nothing. */
static void test_compare_cli_config_typos(void **state)
{
        static const char *const cfg[][2] = {
                { "{\"compare\": {\"gate\": [\"task-clok\"]}}",
                  "'cx.json': compare.gate names unknown metric 'task-clok' (did you mean "
                  "'task-clock'?); known metrics: " },
                { "{\"compare\": {\"metrics\": {\"task-clock\": {\"threshhold\": \"50%\"}}}}",
                  "'cx.json': unknown key 'threshhold' in compare.metrics.task-clock; known "
                  "keys: threshold, direction" },
                { "{\"comapre\": {\"gate\": [\"instructions\"]}}",
                  "'cx.json': unknown top-level key 'comapre'; known keys: base, benchmarks, "
                  "build, compare, defaults" },
                { "{\"compare\": {\"gate\": []}}", "'cx.json': compare.gate is empty" },
                { "{\"benchmarks\": [{\"name\": \"x\", \"argv\": [\"x\"], \"compare\": "
                  "{\"gate\": [\"instructions\"]}}]}",
                  "'cx.json': benchmarks[0].compare is not read by 'perfgate compare'; move its "
                  "rules to compare.benchmarks.x" },
        };
        struct pg_run_out o;
        (void) state;
        pg_write_tc("b", "x", "[100, 101, 99, 100.5, 100.2]");
        pg_write_tc("h", "x", "[120, 121, 119, 120.5, 120.2]");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "\nregression    x "));
        pg_run_out_release(&o);
        for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
                pg_test_write("cx.json", cfg[i][0]);
                pg_test_perfgate(&o, "compare", "b", "--results", "h", "--config", "cx.json",
                                 "--markdown", "out.md", NULL);
                if (o.status != 2 || !strstr(o.err.ptr, cfg[i][1]))
                        fail_msg("config %s: exit %d, stderr '%s' (expected 2 and '%s')", cfg[i][0],
                                 o.status, o.err.ptr, cfg[i][1]);
                assert_false(pg_test_exists("out.md"));
                pg_run_out_release(&o);
        }
        /* a metric only the results have is known; an unknown benchmark warns */
        pg_test_write("cx.json", "{\"compare\": {\"gate\": [\"task-clock\"], \"benchmarks\": "
                                 "{\"nosuch\": {\"gate\": [\"task-clock\"]}}}}");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--config", "cx.json", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.err.ptr, "perfgate: warning: 'cx.json': compare.benchmarks "
                                          "names benchmark 'nosuch', which is in neither"));
        pg_run_out_release(&o);
        /* the check also runs when there is no baseline to compare with */
        pg_test_write("cx.json", "{\"compare\": {\"gate\": [\"task-clok\"]}}");
        assert_int_equal(mkdir("empty", 0755), 0);
        pg_test_perfgate(&o, "compare", "./empty", "--results", "h", "--config", "cx.json", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "unknown metric 'task-clok'"));
        pg_run_out_release(&o);
}

/* A hotspot that regressed while task-clock did not move (a batch measured on
 * a slower machine hides the time, never the share): listed but not gating by
 * default (exit 0); with "hotspots": {"gate": true} the build fails (exit 1)
 * and the summary line says which function. */
static void test_compare_cli_hotspot_gate(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_write_tc_profile("b", "x", "[100e6, 101e6, 99e6, 100.5e6, 100.2e6]",
                            "{\"x;main;split\": 240, \"x;main;count\": 1760}", 2000);
        pg_write_tc_profile("h", "x", "[100.3e6, 100.9e6, 99.2e6, 100.4e6, 100.1e6]",
                            "{\"x;main;split\": 660, \"x;main;count\": 1340}", 2000);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "\nunchanged     x "));
        assert_non_null(strstr(o.out.ptr, "    split  12.00% -> 33.00% (+21.00 pp"));
        assert_null(strstr(o.out.ptr, "hotspot 'split' grew"));
        pg_run_out_release(&o);
        pg_test_write("cx.json", "{\"compare\": {\"hotspots\": {\"gate\": true}}}");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--config", "cx.json", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "\nregression    x "));
        assert_non_null(strstr(o.out.ptr, "task-clock +0.1%; hotspot 'split' grew\n"));
        assert_non_null(strstr(o.out.ptr, "1 regression in 1 benchmark"));
        pg_run_out_release(&o);
}

/* A function that is most of the run (97% of the samples) gets 2.8x slower:
 * its share cannot move, so no share test names it; the report names it as
 * "grew (own time)" with its path, in the text and the Markdown, because the
 * benchmark's task-clock regressed. Without a task-clock regression (A/A) no
 * function is named, whatever own time says. */
static void test_compare_cli_dominant_function_grew(void **state)
{
        static const char *const stacks = "{\"x;main;hot\": 1940, \"x;main;other\": 60}";
        struct pg_run_out o;
        char *md;
        (void) state;
        pg_write_tc_profile("b", "x", "[100e6, 101e6, 99e6, 100.5e6, 100.2e6]", stacks, 2000);
        pg_write_tc_profile("h", "x", "[280e6, 281e6, 279e6, 280.5e6, 280.2e6]", stacks, 2000);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "out.md", NULL);
        assert_int_equal(o.status, 1);
        assert_non_null(strstr(o.out.ptr, "    hot  97.00% -> 97.00% (+0.00 pp"));
        assert_non_null(strstr(o.out.ptr, "own time +174.6 ms"));
        assert_non_null(strstr(o.out.ptr, ") grew (own time)\n      via main > hot\n"));
        pg_run_out_release(&o);
        md = pg_test_read("out.md");
        assert_non_null(strstr(md, "hot"));
        assert_non_null(strstr(md, "grew (own time)"));
        free(md);
        /* A/A in time, same profiles: nothing is named */
        pg_write_tc_profile("h", "x", "[100.3e6, 100.9e6, 99.2e6, 100.4e6, 100.1e6]", stacks, 2000);
        pg_test_perfgate(&o, "compare", "b", "--results", "h", NULL);
        assert_int_equal(o.status, 0);
        assert_null(strstr(o.out.ptr, "grew (own time)"));
        pg_run_out_release(&o);
}

/* Values at the ends of the double range: no report prints inf or nan, the
 * JSON is written, and the change is "not comparable". */
static void test_compare_cli_overflow_no_inf(void **state)
{
        static const char *const files[] = { "out.md", "out.json", "out.xml", "out.om" };
        struct pg_run_out o;
        (void) state;
        pg_write_tc("b", "x", "[1e-300, 1e-300, 1e-300, 1e-300, 1e-300]");
        pg_write_tc("h", "x", "[1e308, 1e308, 1e308, 1e308, 1e308]");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "out.md", "--json",
                         "out.json", "--junit", "out.xml", "--openmetrics", "out.om", NULL);
        /* not comparable on a gating metric: inconclusive, exit 0 without --strict */
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "\ninconclusive  x "));
        assert_non_null(strstr(o.out.ptr, "change too large to compute"));
        assert_null(strstr(o.out.ptr, "inf"));
        assert_null(strstr(o.out.ptr, "nan"));
        pg_run_out_release(&o);
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                char *text = pg_test_read(files[i]);
                if (strstr(text, "inf") || strstr(text, "nan") || strstr(text, "Infinity") ||
                    strstr(text, "NaN"))
                        fail_msg("%s has a non-finite number:\n%s", files[i], text);
                free(text);
        }
        /* a negative baseline never gets as far as the reports */
        pg_write_tc("b", "x", "[1e308, 1e308, 1e308, 1e308, 1e308]");
        pg_write_tc("h", "x", "[-1e308, -1e308, -1e308, -1e308, -1e308]");
        pg_test_perfgate(&o, "compare", "b", "--results", "h", "--markdown", "neg.md", "--json",
                         "neg.json", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "'h/x.json': field 'metrics.task-clock' has a negative "
                                          "value"));
        assert_false(pg_test_exists("neg.md"));
        assert_false(pg_test_exists("neg.json"));
        pg_run_out_release(&o);
}

/* `perfgate diff` and `perfgate flamegraph` on a directory: bad input (2). */
static void test_compare_cli_diff_directory(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_write_tc("d", "x", "[1]");
        pg_test_perfgate(&o, "diff", "d", "d", "-o", "out.svg", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "'d' is a directory; give a result file or folded "
                                          "stacks"));
        assert_false(pg_test_exists("out.svg"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "flamegraph", "d", "-o", "out.svg", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "'d' is a directory"));
        pg_run_out_release(&o);
}

static void test_compare_cli_help(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_test_perfgate(&o, "compare", "--help", NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "exit status: 0 no regression"));
        assert_non_null(strstr(o.out.ptr, "--flamegraph-dir DIR"));
        pg_run_out_release(&o);
}

/* Write result @name into @dir with task-clock values around 100 and the
 * git fields @commit (40 hex digits) and @dirty. */
static void pg_write_git(const char *dir, const char *name, const char *commit, bool dirty)
{
        char *path = pg_xasprintf("%s/%s.json", dir, name);
        char *text = pg_xasprintf("{\"schema\": \"perfgate/result/1\", \"name\": \"%s\", "
                                  "\"git\": {\"commit\": \"%s\", \"dirty\": %s}, "
                                  "\"metrics\": {\"task-clock\": {\"unit\": \"ns\", "
                                  "\"values\": [100, 101, 99, 100.5, 100.2]}}}",
                                  name, commit, dirty ? "true" : "false");
        mkdir(dir, 0755);
        pg_test_write(path, text);
        free(text);
        free(path);
}

/* Head results measured at different commits are not one run's (results a
 * run into a reused directory did not remeasure, shards of two pushes): the
 * verdict stands, and one warning names the commits and how many results
 * each holds. Results of one commit get no such warning. */
static void test_compare_cli_mixed_commits(void **state)
{
        static const char *c1 = "1111111111111111111111111111111111111111";
        static const char *c2 = "2222222222222222222222222222222222222222";
        struct pg_run_out o;
        (void) state;
        for (int i = 0; i < 4; i++) {
                char name[2] = { (char) ('a' + i), 0 };
                pg_write_git("b", name, c1, false);
                pg_write_git("same", name, c2, false);
                pg_write_git("mix", name, i == 3 ? c2 : c1, i == 3);
        }
        pg_test_perfgate(&o, "compare", "./b", "--results", "same", NULL);
        assert_int_equal(o.status, 0);
        assert_null(strstr(o.err.ptr, "commits"));
        pg_run_out_release(&o);
        pg_test_perfgate(&o, "compare", "./b", "--results", "mix", NULL);
        assert_int_equal(o.status, 0);
        if (!strstr(o.err.ptr, "perfgate: warning: the head results come from 2 commits (3 from "
                               "111111111111, 1 from 222222222222 (dirty)): not all from one "
                               "run? run the benchmarks again into an empty --out\n"))
                fail_msg("no warning:\n%s", o.err.ptr);
        pg_run_out_release(&o);
}

#define T(f) cmocka_unit_test_setup_teardown(f, pg_test_setup_sandbox, pg_test_teardown_sandbox)

int main(void)
{
        const struct CMUnitTest tests[] = {
                T(test_compare_cli_golden_reports),
                T(test_compare_cli_text_content),
                T(test_compare_cli_junit_valid),
                T(test_compare_cli_markdown_hostile_names),
                T(test_compare_cli_openmetrics_syntax),
                T(test_compare_cli_json_strict_parse),
                T(test_compare_cli_exit_0_aa),
                T(test_compare_cli_sharded_results),
                T(test_compare_cli_bad_input_exit_2),
                T(test_compare_cli_no_baseline),
                T(test_compare_cli_git_revision),
                T(test_compare_cli_io_error_exit_4),
                T(test_compare_cli_flamegraphs),
                T(test_compare_cli_case26_no_nan),
                T(test_compare_cli_case26_strict),
                T(test_compare_cli_case32_missing_and_new),
                T(test_compare_cli_case34_direction),
                T(test_compare_cli_failed_benchmark),
                T(test_compare_cli_host_mismatch),
                T(test_compare_cli_markdown_size_limit),
                T(test_compare_cli_color_tty_only),
                T(test_compare_cli_config_typos),
                T(test_compare_cli_hotspot_gate),
                T(test_compare_cli_dominant_function_grew),
                T(test_compare_cli_overflow_no_inf),
                T(test_compare_cli_diff_directory),
                T(test_compare_cli_help),
                T(test_compare_cli_mixed_commits),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
