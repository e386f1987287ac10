/*
 * test_hostile.c - hostile names through every output perfgate writes.
 *
 * Benchmark names, function names (frames of folded stacks) and paths with
 * & < > " ' ` | * _ [ ] ( ) # \, newlines, tabs, ESC and other control
 * bytes, invalid UTF-8 and 10,000-byte names go through: `perfgate run`
 * (result file name and JSON), `show` (terminal text and --stacks),
 * `compare` (text, JSON, Markdown rendered by cmark-gfm --unsafe, JUnit
 * under xmllint, OpenMetrics checked against the text format's grammar,
 * --flamegraph-dir SVGs under xmllint), `flamegraph` and `diff` on raw
 * folded bytes, and `fold` on a hostile `perf script`. Each output must stay
 * well formed, show the name recognisably, and the same frame name must map
 * to the same JSON key in every run. The benchmark-name rule
 * (PG_RESULT_NAME_RULE: names are never mapped, unusable ones are refused
 * with exit 2 naming the rule) is checked for config and directory names,
 * and error messages show a hostile path with its control bytes escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "baselines/result.h"
#include "common/json.h"
#include "runner/fold.h"
#include "tests/util/testutil.h"

/* A benchmark name that is valid (the rule allows every printable byte but '/'). */
#define PG_BENCH "amp&<lt>\"q'`tick`|pipe*star_under[b](p)#h\\ \xc3\xa9"

/* Frame names: markup, Markdown, control bytes, invalid UTF-8, 10,000 bytes. */
#define PG_F_MARK   "evil&<b>\"'`|*_[x](http://e)#h\\"
#define PG_F_CTL    "ctl\n\t\x1b[31mred\x01\x7f"
#define PG_F_SCRIPT "<script>alert(1)</script>"
#define PG_F_CDATA  "]]></text><svg onload=alert(1)>"
#define PG_F_UTF8   "bad\xff\xfe\xc3utf8"
#define PG_LONG_LEN 10000

static char *pg_long_name(char c, const char *tail)
{
        char *s = pg_xmalloc(PG_LONG_LEN + strlen(tail) + 1);
        memset(s, c, PG_LONG_LEN);
        strcpy(s + PG_LONG_LEN, tail);
        return s;
}

static bool pg_have(const char *tool)
{
        char *cmd = pg_xasprintf("command -v %s >/dev/null 2>&1", tool);
        int rc = system(cmd);
        free(cmd);
        return rc == 0;
}

static size_t pg_count(const char *hay, const char *needle)
{
        size_t n = 0;
        for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
                n++;
        return n;
}

/* XML text: UTF-8 and no C0 control byte but tab, newline, CR. */
static void pg_assert_xml_chars(const char *s)
{
        size_t len = strlen(s);
        for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char) s[i];
                size_t n;
                if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
                        fail_msg("control byte 0x%02x at offset %zu of XML", c, i);
                n = pg_utf8_seqlen((const unsigned char *) s + i, len - i);
                if (!n)
                        fail_msg("invalid UTF-8 at offset %zu of XML", i);
                i += n;
        }
}

static void pg_xmllint(const char *path)
{
        struct pg_run_out o;
        char *argv[] = { "xmllint", "--noout", (char *) path, NULL };
        if (pg_test_run(&o, NULL, argv) != 0)
                fail_msg("xmllint: %s is not well formed:\n%s", path, o.err.ptr);
        pg_run_out_release(&o);
}

/* One result: task-clock repetitions around @ms, a profile of @stacks. */
static void pg_write_result(const char *path, const char *name, double ms, const char **frames,
                            const double *counts, size_t n)
{
        cJSON *r = cJSON_CreateObject(), *m, *tc, *v, *host, *prof, *st, *cmd, *git;
        double total = 0;
        char *text;
        FILE *f;

        cJSON_AddStringToObject(r, "schema", "perfgate/result/1");
        cJSON_AddStringToObject(r, "name", name);
        cmd = cJSON_AddArrayToObject(r, "command");
        cJSON_AddItemToArray(cmd, cJSON_CreateString("bench/x\x1b[2J"));
        cJSON_AddStringToObject(r, "created", "2026-11-29T10:00:00Z");
        git = cJSON_AddObjectToObject(r, "git");
        cJSON_AddStringToObject(git, "commit", "0123456789abcdef0123456789abcdef01234567");
        cJSON_AddFalseToObject(git, "dirty");
        cJSON_AddStringToObject(r, "machine", "default");
        host = cJSON_AddObjectToObject(r, "host");
        cJSON_AddStringToObject(host, "arch", "x86_64");
        cJSON_AddStringToObject(host, "cpu", "Test CPU");
        cJSON_AddNumberToObject(host, "cpus", 2);
        cJSON_AddFalseToObject(host, "exclude_kernel");
        cJSON_AddStringToObject(host, "kernel", "6.18.44");
        cJSON_AddNumberToObject(host, "perf_event_paranoid", 2);
        cJSON_AddArrayToObject(host, "pmu");
        cJSON_AddTrueToObject(host, "virtualized");
        cJSON_AddStringToObject(r, "counters", "software");
        cJSON_AddNumberToObject(r, "repeat", 5);
        cJSON_AddNumberToObject(r, "warmup", 1);
        m = cJSON_AddObjectToObject(r, "metrics");
        tc = cJSON_AddObjectToObject(m, "task-clock");
        cJSON_AddStringToObject(tc, "unit", "ns");
        v = cJSON_AddArrayToObject(tc, "values");
        for (int i = 0; i < 5; i++)
                cJSON_AddItemToArray(v, cJSON_CreateNumber((ms + (i % 3) * 0.2) * 1e6));
        prof = cJSON_AddObjectToObject(r, "profile");
        cJSON_AddStringToObject(prof, "event", "cpu-clock");
        cJSON_AddNumberToObject(prof, "frequency_hz", 999);
        cJSON_AddStringToObject(prof, "call_graph", "fp");
        st = cJSON_AddObjectToObject(prof, "stacks");
        for (size_t i = 0; i < n; i++) {
                char *key = pg_xasprintf("x;main;%s", frames[i]);
                cJSON_AddNumberToObject(st, key, counts[i]);
                total += counts[i];
                free(key);
        }
        cJSON_AddNumberToObject(prof, "samples", total);
        cJSON_AddNumberToObject(prof, "lost", 0);
        cJSON_AddNumberToObject(prof, "truncated", 0);
        text = cJSON_Print(r); /* raw bytes as given: invalid UTF-8 reaches the loader */
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        free(text);
        cJSON_Delete(r);
}

/* base/ and head/: one hostile benchmark whose hostile frames shift. */
static void pg_make_results(void)
{
        char *lng = pg_long_name('L', "tail10k");
        const char *frames[] = { PG_F_MARK, PG_F_CTL, PG_F_SCRIPT, PG_F_CDATA, PG_F_UTF8, lng };
        const double base[] = { 10, 40, 40, 40, 40, 40 }, head[] = { 200, 40, 40, 40, 40, 80 };
        assert_int_equal(mkdir("base", 0777), 0);
        assert_int_equal(mkdir("head", 0777), 0);
        pg_write_result("base/b.json", PG_BENCH, 100, frames, base, 6);
        pg_write_result("head/b.json", PG_BENCH, 150, frames, head, 6);
        free(lng);
}

/* `perfgate run`: a hostile but valid name is the file name, byte for byte. */
static void test_hostile_run_valid_name(void **state)
{
        struct pg_run_out o;
        cJSON *root, *cfg = cJSON_CreateObject(), *arr, *b, *argv;
        char *text, *path;
        (void) state;
        arr = cJSON_AddArrayToObject(cfg, "benchmarks");
        b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "name", PG_BENCH);
        argv = cJSON_AddArrayToObject(b, "argv");
        cJSON_AddItemToArray(argv, cJSON_CreateString("true"));
        cJSON_AddItemToArray(arr, b);
        text = cJSON_Print(cfg);
        pg_test_write("perfgate.json", text);
        free(text);
        cJSON_Delete(cfg);
        pg_test_perfgate(&o, "run", "perfgate.json", "--out", "out", "--repeat", "1", "--warmup",
                         "0", "--no-profile", "-q", NULL);
        assert_int_equal(o.status, 0);
        pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
        pg_run_out_release(&o);
        path = pg_xasprintf("out/%s.json", PG_BENCH);
        text = pg_test_read(path);
        root = cJSON_Parse(text);
        assert_non_null(root);
        assert_string_equal(cJSON_GetObjectItem(root, "name")->valuestring, PG_BENCH);
        cJSON_Delete(root);
        free(text);
        /* and `show` reads it back under the same name */
        pg_test_perfgate(&o, "show", path, NULL);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, PG_BENCH));
        pg_test_assert_terminal_safe(o.out.ptr, o.out.len);
        pg_run_out_release(&o);
        free(path);
}

/* Unusable names in perfgate.json are refused with exit 2, naming the rule. */
static void test_hostile_run_refused_config_names(void **state)
{
        char *lng = pg_long_name('n', "");
        const char *bad[] = { "a/b", "tab\tx", "esc\x1b[2Jx", "nl\nx", "del\x7fx", "..", ".",
                              "",    lng };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_run_out o;
                cJSON *cfg = cJSON_CreateObject(), *arr, *b, *argv;
                char *text;
                arr = cJSON_AddArrayToObject(cfg, "benchmarks");
                b = cJSON_CreateObject();
                cJSON_AddStringToObject(b, "name", bad[i]);
                argv = cJSON_AddArrayToObject(b, "argv");
                cJSON_AddItemToArray(argv, cJSON_CreateString("true"));
                cJSON_AddItemToArray(arr, b);
                text = cJSON_Print(cfg);
                pg_test_write("perfgate.json", text);
                free(text);
                cJSON_Delete(cfg);
                pg_test_perfgate(&o, "run", "perfgate.json", "--out", "out", "--repeat", "1",
                                 "--warmup", "0", "--no-profile", NULL);
                assert_int_equal(o.status, 2);
                if (!strstr(o.err.ptr, "' is not a valid benchmark name: "
                                       "a benchmark name is 1 to 200 bytes of UTF-8") ||
                    !strstr(o.err.ptr, "benchmarks[0].name '"))
                        fail_msg("name %zu: %s", i, o.err.ptr);
                pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
                assert_false(pg_test_exists("out"));
                pg_run_out_release(&o);
        }
        free(lng);
}

/* Unusable file names in a benchmark directory: refused, shown escaped. */
static void test_hostile_run_refused_file_names(void **state)
{
        const char *bad[] = { "bench/esc\x1b[2Jx", "bench/bad\xff\xfeutf8", "bench/nl\nx" };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct pg_run_out o;
                assert_int_equal(system("rm -rf bench && mkdir bench"), 0);
                pg_test_write(bad[i], "#!/bin/sh\nexit 0\n");
                assert_int_equal(chmod(bad[i], 0755), 0);
                pg_test_perfgate(&o, "run", "bench", "--out", "out", "--repeat", "1", "--warmup",
                                 "0", "--no-profile", NULL);
                assert_int_equal(o.status, 2);
                if (!strstr(o.err.ptr, "has an unusable name (a benchmark name is 1 to 200 "
                                       "bytes of UTF-8 without '/' or control characters"))
                        fail_msg("file %zu: %s", i, o.err.ptr);
                pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
                assert_false(pg_test_exists("out"));
                pg_run_out_release(&o);
        }
}

/* `show`: terminal text and --stacks keep every name on its line. */
static void test_hostile_show(void **state)
{
        struct pg_run_out o;
        char *save = NULL, *line;
        size_t lines = 0;
        regex_t folded;
        (void) state;
        pg_make_results();
        pg_test_perfgate(&o, "show", "head/b.json", NULL);
        assert_int_equal(o.status, 0);
        pg_test_assert_terminal_safe(o.out.ptr, o.out.len);
        assert_non_null(strstr(o.out.ptr, "perfgate result '" PG_BENCH "'"));
        assert_non_null(strstr(o.out.ptr, PG_F_MARK));
        assert_non_null(strstr(o.out.ptr, "ctl\\n\\t\\x1b[31mred\\x01\\x7f"));
        assert_non_null(strstr(o.out.ptr, PG_F_SCRIPT));
        assert_non_null(strstr(o.out.ptr, "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"));
        assert_non_null(strstr(o.out.ptr, "bench/x\\x1b[2J")); /* the command, escaped */
        pg_run_out_release(&o);

        pg_test_perfgate(&o, "show", "--stacks", "head/b.json", NULL);
        assert_int_equal(o.status, 0);
        pg_test_assert_terminal_safe(o.out.ptr, o.out.len);
        assert_int_equal(regcomp(&folded, "^x;main;.+ [0-9]+$", REG_EXTENDED | REG_NOSUB), 0);
        for (line = strtok_r(o.out.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                if (regexec(&folded, line, 0, NULL, 0) != 0)
                        fail_msg("not a folded line: %.80s", line);
                lines++;
        }
        assert_int_equal(lines, 6);
        regfree(&folded);
        pg_run_out_release(&o);
}

/* OpenMetrics text format: label values escape only \\, \" and \n. */
static void pg_check_openmetrics(const char *text)
{
        regex_t sample;
        char *copy = pg_xstrdup(text), *save = NULL, *line;
        size_t named = 0;
        assert_int_equal(
            regcomp(&sample,
                    "^[a-zA-Z_:][a-zA-Z0-9_:]*"
                    "(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
                    "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\")*)\\})? "
                    "-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?$",
                    REG_EXTENDED | REG_NOSUB),
            0);
        assert_true(strlen(text) >= 6 && strcmp(text + strlen(text) - 6, "# EOF\n") == 0);
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                if (line[0] == '#')
                        continue;
                if (regexec(&sample, line, 0, NULL, 0) != 0)
                        fail_msg("not an OpenMetrics sample line: %s", line);
                /* the name, escaped by the format's rule */
                named += strstr(line, "benchmark=\"amp&<lt>\\\"q'`tick`|pipe*star_under[b](p)#h"
                                      "\\\\ \xc3\xa9\"") != NULL;
        }
        assert_true(named >= 3);
        regfree(&sample);
        free(copy);
}

/* Every <tr> of every table holds as many cells as the header row. */
static void pg_check_tables(const char *html)
{
        const char *t = html;
        size_t ntables = 0;
        while ((t = strstr(t, "<table>")) != NULL) {
                const char *end = strstr(t, "</table>");
                char *tab;
                size_t rows, th, td;
                assert_non_null(end);
                tab = pg_xstrndup(t, (size_t) (end - t));
                rows = pg_count(tab, "<tr>");
                th = pg_count(tab, "<th>") + pg_count(tab, "<th ");
                td = pg_count(tab, "<td");
                assert_true(rows >= 2);
                if (td != th * (rows - 1))
                        fail_msg("table %zu broken: %zu rows, %zu headers, %zu cells", ntables,
                                 rows, th, td);
                free(tab);
                t = end;
                ntables++;
        }
        assert_true(ntables >= 2);
}

static void pg_check_markdown(void)
{
        struct pg_run_out o;
        char *argv[] = { "cmark-gfm", "--unsafe", "-e", "table", "out.md", NULL };
        const char *html;
        if (!pg_have("cmark-gfm")) {
                print_message("cmark-gfm not installed (ci/install-deps.sh test installs it)\n");
                return;
        }
        assert_int_equal(pg_test_run(&o, NULL, argv), 0);
        html = o.out.ptr;
        /* no element from a name: only cmark's own and our <details>/<summary> */
        assert_null(strstr(html, "<script"));
        assert_null(strstr(html, "<svg"));
        assert_null(strstr(html, "<b>"));
        assert_null(strstr(html, "<lt>"));
        assert_null(strstr(html, "<a "));
        assert_null(strstr(html, "<em>"));
        assert_null(strstr(html, "<code>"));
        assert_null(strstr(html, "\x1b"));
        assert_int_equal(pg_count(html, "<details>"), pg_count(html, "</details>"));
        pg_check_tables(html);
        /* recognisable */
        assert_non_null(strstr(html, "amp&amp;&lt;lt&gt;&quot;q'`tick`|pipe*star_under[b](p)#h\\ "
                                     "\xc3\xa9"));
        assert_non_null(strstr(html, "evil&amp;&lt;b&gt;"));
        pg_run_out_release(&o);
}

static void pg_check_svg_dir(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t n = 0;
        assert_non_null(d);
        while ((de = readdir(d)) != NULL) {
                char *p, *svg;
                if (de->d_name[0] == '.')
                        continue;
                p = pg_xasprintf("%s/%s", dir, de->d_name);
                /* one rule for file names: <name>.diff.svg / <name>.base.svg */
                assert_int_equal(strncmp(de->d_name, PG_BENCH ".", strlen(PG_BENCH) + 1), 0);
                pg_xmllint(p);
                svg = pg_test_read(p);
                assert_non_null(strstr(svg, "evil&amp;&lt;b&gt;&quot;"));
                assert_null(strstr(svg, "<script>alert"));
                assert_null(strstr(svg, "<svg onload"));
                assert_null(strstr(svg, "\x1b"));
                free(svg);
                free(p);
                n++;
        }
        closedir(d);
        assert_true(n >= 1);
}

/* `compare`: text, JSON, Markdown, JUnit, OpenMetrics and SVG reports. */
static void test_hostile_compare_reports(void **state)
{
        struct pg_run_out o;
        char *text, *om;
        cJSON *root, *b, *fn;
        bool found_mark = false, found_ctl = false;
        (void) state;
        pg_make_results();
        pg_test_perfgate(&o, "compare", "base", "--results", "head", "--markdown", "out.md",
                         "--json", "out.json", "--junit", "out.xml", "--openmetrics", "out.om",
                         "--flamegraph-dir", "fg", NULL);
        assert_int_equal(o.status, 1);
        pg_test_assert_terminal_safe(o.out.ptr, o.out.len);
        pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
        assert_non_null(strstr(o.out.ptr, PG_BENCH));
        assert_non_null(strstr(o.out.ptr, PG_F_MARK));
        pg_run_out_release(&o);

        text = pg_test_read("out.json");
        root = cJSON_Parse(text);
        assert_non_null(root);
        b = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "benchmarks"), 0);
        assert_non_null(b);
        assert_string_equal(cJSON_GetObjectItem(b, "name")->valuestring, PG_BENCH);
        cJSON_ArrayForEach(fn, cJSON_GetObjectItem(cJSON_GetObjectItem(b, "hotspots"), "functions"))
        {
                const char *f = cJSON_GetObjectItem(fn, "function")->valuestring;
                found_mark |= strcmp(f, PG_F_MARK) == 0;
                found_ctl |= strcmp(f, PG_F_CTL) == 0;
        }
        assert_true(found_mark); /* the JSON keeps the exact name; JSON escapes it */
        (void) found_ctl;
        cJSON_Delete(root);
        free(text);

        pg_check_markdown();
        if (pg_have("xmllint")) {
                pg_xmllint("out.xml");
                text = pg_test_read("out.xml");
                assert_non_null(strstr(text, "amp&amp;&lt;lt&gt;&quot;q"));
                free(text);
                pg_check_svg_dir("fg");
        }
        om = pg_test_read("out.om");
        pg_check_openmetrics(om);
        free(om);

        /* a hostile path in an error message: shown, escaped */
        pg_test_perfgate(&o, "compare", "base", "--results", "no\x1b[31mdir\x7f", NULL);
        assert_int_equal(o.status, 2);
        pg_test_assert_terminal_safe(o.err.ptr, o.err.len);
        assert_non_null(strstr(o.err.ptr, "'no\\x1b[31mdir\\x7f'"));
        pg_run_out_release(&o);
}

/* `flamegraph` and `diff` on raw folded bytes; byte-identical reruns. */
static void test_hostile_flamegraph_folded(void **state)
{
        struct pg_run_out o;
        char *lng = pg_long_name('W', "wide10k"), *folded, *svg1, *svg2;
        (void) state;
        if (!pg_have("xmllint"))
                skip();
        folded = pg_xasprintf("a;" PG_F_MARK " 30\n"
                              "a;ctl\x1b[31mred\x01\x7f\xc2\x9b 20\n"
                              "a;" PG_F_SCRIPT ";" PG_F_CDATA " 25\n"
                              "a;" PG_F_UTF8 ";tab\there 15\n"
                              "a;--></text><!-- 5\n"
                              "a;%s 40\n",
                              lng);
        pg_test_write("head.folded", folded);
        pg_test_write("base.folded", "a;" PG_F_MARK " 50\na;" PG_F_SCRIPT " 40\n");
        for (int run = 0; run < 2; run++) {
                pg_test_perfgate(&o, "flamegraph", "head.folded", "-o", run ? "f2.svg" : "f1.svg",
                                 NULL);
                assert_int_equal(o.status, 0);
                pg_run_out_release(&o);
        }
        pg_test_perfgate(&o, "diff", "base.folded", "head.folded", "-o", "d.svg", NULL);
        assert_int_equal(o.status, 0);
        pg_run_out_release(&o);
        svg1 = pg_test_read("f1.svg");
        svg2 = pg_test_read("f2.svg");
        assert_string_equal(svg1, svg2);
        pg_xmllint("f1.svg");
        pg_xmllint("d.svg");
        for (int k = 0; k < 2; k++) {
                char *s = k ? pg_test_read("d.svg") : pg_xstrdup(svg1);
                /* recognisable in text/attributes and in the script's data (data-n) */
                assert_non_null(strstr(s, "evil&amp;&lt;b&gt;&quot;"));
                assert_non_null(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt;"));
                assert_null(strstr(s, "<script>alert"));
                assert_null(strstr(s, "<svg onload"));
                assert_null(strstr(s, "\x1b"));
                assert_null(strstr(s, "\xff"));
                pg_assert_xml_chars(s);
                free(s);
        }
        assert_non_null(strstr(svg1, "WWWWWWWWWWWWWWWWWWWW"));
        free(svg1);
        free(svg2);
        free(folded);
        free(lng);
}

/* The folding rules map one frame name to one JSON key, in every run. */
static void test_hostile_same_key(void **state)
{
        char *lng = pg_long_name('K', "");
        const char *names[] = { PG_F_MARK, PG_F_CTL, PG_F_SCRIPT, PG_F_UTF8, "semi;colon", lng };
        (void) state;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                struct pg_buf k1 = PG_BUF_INIT, k2 = PG_BUF_INIT, j1 = PG_BUF_INIT,
                              j2 = PG_BUF_INIT;
                struct pg_result r, back;
                struct pg_stack st;
                pg_fold_append_frame(&k1, names[i], strlen(names[i]), PG_FRAME_USER);
                pg_fold_append_frame(&k2, names[i], strlen(names[i]), PG_FRAME_USER);
                assert_string_equal(k1.ptr, k2.ptr);
                assert_null(strchr(k1.ptr, ';'));
                pg_test_assert_terminal_safe(k1.ptr, k1.len); /* UTF-8, no control byte */
                /* through the result file and back: the key does not move */
                pg_result_init(&r);
                r.name = pg_xstrdup("b");
                r.profile.present = true;
                r.profile.event = pg_xstrdup("cpu-clock");
                r.profile.call_graph = pg_xstrdup("fp");
                st.frames = k1.ptr;
                st.count = 3;
                r.profile.nstacks = 1;
                r.profile.stacks = &st;
                r.profile.samples = 3;
                assert_int_equal(pg_result_to_json(&r, &j1), 0);
                r.profile.stacks = NULL;
                r.profile.nstacks = 0;
                pg_result_release(&r);
                pg_result_init(&back);
                assert_int_equal(pg_result_from_json(&back, j1.ptr, j1.len, "k"), 0);
                assert_int_equal(back.profile.nstacks, 1);
                assert_string_equal(back.profile.stacks[0].frames, k1.ptr);
                assert_int_equal(pg_result_to_json(&back, &j2), 0);
                assert_string_equal(j1.ptr, j2.ptr);
                pg_result_release(&back);
                pg_buf_release(&k1);
                pg_buf_release(&k2);
                pg_buf_release(&j1);
                pg_buf_release(&j2);
        }
        free(lng);
}

/* `perfgate fold` on hostile symbols: the same bytes every run, one line per stack. */
/* A device named as a result file: refused at once (show /dev/zero read
 * without end and grew to gigabytes), exit 2. */
static void test_hostile_device_as_result(void **state)
{
        struct pg_run_out o;
        (void) state;
        pg_test_perfgate(&o, "show", "/dev/zero", NULL);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "'/dev/zero' is a device, not a result file"));
        pg_run_out_release(&o);
}

/* A FIFO named *.json in a results directory: refused, not opened (the
 * open blocked compare and baseline save for ever), exit 2. */
static void test_hostile_fifo_in_results_dir(void **state)
{
        struct pg_run_out o;
        char *argv[] = { "timeout", "30",        (char *) pg_test_env("PERFGATE_BIN"),
                         "compare", "--results", "r",
                         "r",       NULL };
        (void) state;
        assert_int_equal(mkdir("r", 0755), 0);
        assert_int_equal(mkfifo("r/f.json", 0644), 0);
        pg_test_run(&o, NULL, argv);
        assert_int_equal(o.status, 2);
        assert_non_null(strstr(o.err.ptr, "'r/f.json' is a FIFO, not a result file"));
        pg_run_out_release(&o);
}

static void test_hostile_fold_cli(void **state)
{
        struct pg_run_out a, b;
        char *lng = pg_long_name('S', ""), *script;
        (void) state;
        script = pg_xasprintf("prog 123 1.000: 1 cpu-clock:\n"
                              "\t    1000 " PG_F_MARK "+0x1 (/bin/a b)\n"
                              "\t    2000 ctl\x1b[31m\x01\x7f\xff\xfe+0x2 (/bin/a)\n"
                              "\t    3000 %s (/bin/a)\n"
                              "\n"
                              "prog 123 1.001: 1 cpu-clock:\n"
                              "\t    1000 " PG_F_SCRIPT " (/bin/a)\n"
                              "\n",
                              lng);
        pg_test_write("in.txt", script);
        pg_test_perfgate(&a, "fold", "in.txt", NULL);
        pg_test_perfgate(&b, "fold", "in.txt", NULL);
        assert_int_equal(a.status, 0);
        assert_string_equal(a.out.ptr, b.out.ptr);
        pg_test_assert_terminal_safe(a.out.ptr, a.out.len);
        assert_int_equal(pg_count(a.out.ptr, "\n"), 2);
        /* fold's rules: quotes dropped, the trailing "(...)..." taken for parameters,
         * control bytes to ' ', invalid UTF-8 to U+FFFD */
        assert_non_null(
            strstr(a.out.ptr, ";ctl [31m  \xef\xbf\xbd\xef\xbf\xbd;evil&<b>`|*_[x] 1\n"));
        assert_non_null(strstr(a.out.ptr, "SSSSSSSSSSSSSSSSSSSSSSSS"));
        pg_run_out_release(&a);
        pg_run_out_release(&b);
        free(script);
        free(lng);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_hostile_run_valid_name, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_run_refused_config_names,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_run_refused_file_names,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_show, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_compare_reports, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_flamegraph_folded,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_same_key, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_fold_cli, pg_test_setup_sandbox,
                                                pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_fifo_in_results_dir,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
                cmocka_unit_test_setup_teardown(test_hostile_device_as_result,
                                                pg_test_setup_sandbox, pg_test_teardown_sandbox),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
