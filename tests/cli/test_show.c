/*
 * test_show.c - `perfgate show` on hand-made results: the perf stat -d -d
 * table (medians with thousands separators, MAD spread, derived ratio column,
 * <not supported>/<not counted>/<kernel only>, coverage, kernel line, time
 * lines), the hotspot list (children once per stack, self = leaf, hottest
 * path, modules), --stacks, golden outputs, case 26's zero denominators (no
 * NaN/Inf anywhere), colour, and every documented error with its exit status.
 *
 * Golden files live in tests/golden/show-*.txt; regenerate them explicitly
 * with PG_BLESS=1 and review the diff.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baselines/result.h"
#include "cli/cli.h"
#include "common/error.h"
#include "common/json.h"
#include "tests/util/cases.h"
#include "tests/util/testutil.h"

static const char *pg_sb; /* this test's sandbox (its cwd) */

/* ---- building results -------------------------------------------------- */

static void pg_base(struct pg_result *r, const char *name, const char *counters)
{
        pg_result_init(r);
        r->name = pg_xstrdup(name);
        r->ncommand = 2;
        r->command = pg_xcalloc(2, sizeof(char *));
        r->command[0] = pg_xasprintf("bin/%s", name);
        r->command[1] = pg_xstrdup("-n5");
        r->created = pg_xstrdup("2026-11-29T10:00:00Z");
        r->has_git = true;
        r->git_commit = pg_xstrdup("0123456789abcdef0123456789abcdef01234567");
        r->machine = pg_xstrdup("ci-box");
        r->host.cpu = pg_xstrdup("Example CPU @ 3.00GHz");
        r->host.cpus = 8;
        r->host.kernel = pg_xstrdup("6.1.0");
        r->host.arch = pg_xstrdup("x86_64");
        r->host.perf_event_paranoid = -1;
        r->counters = pg_xstrdup(counters);
        r->repeat = 5;
        r->warmup = 1;
}

static void pg_add(struct pg_result *r, const char *name, const char *unit, const double *v,
                   const double *cov)
{
        pg_result_add_metric(r, name, unit, PG_METRIC_OK, v, cov, 5, NULL);
}

/*
 * A host with a PMU, every perf stat -d -d counter, chosen so the expected
 * figures can be worked out by hand: medians 1,000,000,000 cycles and
 * 400,000,000 instructions (ipc 0.40), 117,000 / 1,000,000 branch misses
 * (11.70%), task-clock 990 ms over 500 ms wall (1.98 CPUs).
 */
static void pg_make_hardware(struct pg_result *r)
{
        static const double tc[] = { 990e6, 980e6, 1000e6, 990e6, 1100e6 };
        static const double dur[] = { 500e6, 500e6, 500e6, 500e6, 500e6 };
        static const double cyc[] = { 1e9, 1.02e9, 0.98e9, 1.1e9, 1e9 };
        static const double ins[] = { 4e8, 4.08e8, 3.92e8, 4.4e8, 4e8 };
        static const double br[] = { 1e6, 1e6, 1e6, 1e6, 1e6 };
        static const double bm[] = { 117000, 117000, 117000, 117000, 117000 };
        static const double llcl[] = { 2e6, 2e6, 2e6, 2e6, 2e6 };
        static const double llcm[] = { 5e5, 5e5, 5e5, 5e5, 5e5 };
        static const double cov[] = { 0.632, 0.632, 0.7, 0.5, 0.632 };
        static const double cs[] = { 12, 10, 11, 13, 12 };
        static const double pf[] = { 1500, 1500, 1500, 1500, 1500 };
        static const double ut[] = { 900e6, 900e6, 900e6, 900e6, 900e6 };
        static const double st[] = { 90e6, 80e6, 90e6, 100e6, 90e6 };
        static const double rss[] = { 45678592, 45678592, 45678592, 45678592, 45678592 };

        pg_base(r, "hardware", "hardware");
        r->host.npmu = 1;
        r->host.pmu = pg_xcalloc(1, sizeof(char *));
        r->host.pmu[0] = pg_xstrdup("cpu");
        pg_add(r, "task-clock", "ns", tc, NULL);
        pg_add(r, "duration_time", "ns", dur, NULL);
        pg_add(r, "user-time", "ns", ut, NULL);
        pg_add(r, "system-time", "ns", st, NULL);
        pg_add(r, "max-rss", "bytes", rss, NULL);
        pg_add(r, "context-switches", "count", cs, NULL);
        pg_result_add_metric(r, "cpu-migrations", "count", PG_METRIC_OK,
                             (double[]){ 0, 0, 0, 0, 0 }, NULL, 5, NULL);
        pg_add(r, "page-faults", "count", pf, NULL);
        pg_add(r, "cycles", "count", cyc, NULL);
        pg_add(r, "instructions", "count", ins, NULL);
        pg_add(r, "branches", "count", br, NULL);
        pg_add(r, "branch-misses", "count", bm, NULL);
        pg_add(r, "LLC-loads", "count", llcl, cov);
        pg_add(r, "LLC-load-misses", "count", llcm, cov);
        pg_result_add_metric(r, "L1-dcache-loads", "count", PG_METRIC_NOT_COUNTED, NULL, NULL, 0,
                             "never scheduled");
        pg_result_add_metric(r, "L1-dcache-load-misses", "count", PG_METRIC_NOT_COUNTED, NULL, NULL,
                             0, "never scheduled");
        pg_result_derive(r);
}

/* A VM without PMU, paranoid 2: software counters only, kernel excluded. */
static void pg_make_software(struct pg_result *r)
{
        static const double tc[] = { 412100000, 409800000, 415000000, 412000000, 450000000 };
        static const double pf[] = { 123, 123, 124, 123, 123 };

        pg_base(r, "software", "software");
        r->host.virtualized = true;
        r->host.perf_event_paranoid = 2;
        r->host.exclude_kernel = true;
        r->has_git = false;
        pg_add(r, "task-clock", "ns", tc, NULL);
        pg_add(r, "page-faults", "count", pf, NULL);
        pg_result_add_metric(r, "context-switches", "count", PG_METRIC_KERNEL_ONLY, NULL, NULL, 0,
                             "exclude_kernel=1");
        pg_result_add_metric(r, "cpu-migrations", "count", PG_METRIC_KERNEL_ONLY, NULL, NULL, 0,
                             "exclude_kernel=1");
        pg_result_add_metric(r, "cycles", "count", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "ENOENT");
        pg_result_add_metric(r, "instructions", "count", PG_METRIC_NOT_SUPPORTED, NULL, NULL, 0,
                             "ENOENT");
        pg_result_derive(r);
}

/*
 * Stacks with a known answer (100 samples): main is in 95, a in 70 (leaf of
 * 10), b leaf of 60, rec in 20 stacks but 60 frames (children must count it
 * once per stack), a kernel frame and an unresolved library frame, and one
 * stack that is only the process name.
 */
static void pg_add_profile(struct pg_result *r)
{
        struct pg_stack st[] = {
                { "prof;main;a;b", 60 },
                { "prof;main;a", 10 },
                { "prof;main;rec;rec;rec", 20 },
                { "prof;main;write_[k]", 3 },
                { "prof;main;[libz.so.1]", 2 },
                { "prof;[libc.so.6]", 4 },
                { "prof", 1 },
        };

        r->profile.present = true;
        r->profile.event = pg_xstrdup("cpu-clock");
        r->profile.frequency_hz = 999;
        r->profile.call_graph = pg_xstrdup("fp");
        r->profile.samples = 100;
        r->profile.runs = 2;
        r->profile.kernel = true;
        r->profile.lost = 1;
        pg_profile_set_stacks(&r->profile, st, sizeof(st) / sizeof(st[0]));
}

static char *pg_save(const struct pg_result *r, const char *file)
{
        char *path = pg_xasprintf("%s/%s", pg_sb, file);
        assert_int_equal(pg_result_save(r, path), 0);
        return path;
}

/* ---- helpers ------------------------------------------------------------ */

static void pg_assert_contains(const char *hay, const char *needle)
{
        if (!strstr(hay, needle)) {
                fprintf(stderr, "expected to find\n  [%s]\nin\n%s\n", needle, hay);
                fail();
        }
}

/* No "nan"/"inf" token in @s, in any case (case 26). */
static void pg_assert_no_nonfinite(const char *s)
{
        for (const char *p = s; *p; p++) {
                if ((p == s || !isalpha((unsigned char) p[-1])) &&
                    (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) &&
                    !isalpha((unsigned char) p[3]))
                        fail_msg("non-finite token at '%.20s' in\n%s", p, s);
        }
}

static void pg_check_golden(const char *out, const char *name)
{
        char *path = pg_xasprintf("%s/tests/golden/%s", pg_test_env("PG_SOURCE_DIR"), name);
        char *golden;

        if (getenv("PG_BLESS"))
                pg_test_write(path, out); /* explicit regeneration: PG_BLESS=1 ctest */
        golden = pg_test_read(path);
        assert_string_equal(out, golden);
        free(golden);
        free(path);
}

static int pg_setup(void **state)
{
        (void) state;
        pg_sb = pg_test_sandbox();
        return 0;
}

static int pg_teardown(void **state)
{
        (void) state;
        pg_test_sandbox_remove();
        return 0;
}

/* ---- what `perfgate show RESULT` prints: a table of cases ------------------ */

static void pg_make_profiled(struct pg_result *r)
{
        pg_make_software(r);
        pg_add_profile(r);
}

/* Lists end with NULL; an order list holds pairs (first before second). */
#define PG_TEXTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

struct pg_show_case {
        const char *name;                  /* the test's name in cmocka's output */
        void (*make)(struct pg_result *r); /* NULL: tests/golden/result-sample.json */
        const char *file;                  /* where the made result is saved */
        bool quiet;                        /* nothing on stderr */
        const char *const *has;            /* the output contains each */
        const char *const *lacks;          /* and none of these */
        const char *const *order;          /* pairs: the first comes before the second */
        bool finite;                       /* no nan/inf token */
        const char *golden;                /* tests/golden/ file equal to the output */
};

static const struct pg_show_case pg_show_cases[] = {
        { .name = "test_show_hardware_table",
          .make = pg_make_hardware,
          .file = "hardware.json",
          .quiet = true,
          .has = PG_TEXTS(
              /* medians with separators, msec, the derived column as perf stat prints it */
              "            990.00 msec task-clock", "#    1.98 CPUs utilized",
              "     1,000,000,000      cycles", "#    1.010 GHz" /* 1e9 cycles / 990 ms */,
              "       400,000,000      instructions", "#    0.40  insn per cycle",
              "#   11.70% of all branches", "#   25.00% of all LL-cache accesses",
              /* cycles 0.98,1,1,1.02,1.1 e9: |dev| 0.02,0,0,0.02,0.1 -> MAD 0.02e9 = 2.00% */
              "( +-  2.00% )",
              /* coverage: median of 0.5,0.632,0.632,0.632,0.7 */
              "  (63.2%)", "     <not counted>      L1-dcache-loads",
              /* page-faults per second of task-clock: 1500 / 0.99 s */
              "#    1.515 K/sec", "User and kernel space counted (perf_event_paranoid -1)",
              "       0.500000000 seconds time elapsed",
              "       0.900000000 seconds user  ( +-  0.00% )\n",
              /* system 80,90,90,90,100 ms: MAD 0 */
              "       0.090000000 seconds sys  ( +-  0.00% )", "        45,678,592 bytes max-rss"),
          /* derived metrics not shown as rows; everything was counted or not-counted */
          .lacks = PG_TEXTS(" ipc", "cannot count", "Profile"),
          /* perf stat -d -d order */
          .order = PG_TEXTS("task-clock", "context-switches", "instructions", "branch-misses",
                            "LLC-loads", "LLC-load-misses"),
          .finite = true,
          .golden = "show-hardware.txt" },
        { .name = "test_show_software_statuses",
          .make = pg_make_software,
          .file = "software.json",
          .has =
              PG_TEXTS("     <kernel only>      context-switches\n",
                       "     <kernel only>      cpu-migrations\n",
                       "   <not supported>      cycles\n", "   <not supported>      instructions\n",
                       "Kernel space excluded (exclude_kernel=1, "
                       "perf_event_paranoid 2): user-space counts only.",
                       "<not supported>: this host cannot count that event (it "
                       "has no hardware PMU)"),
          /* nothing derived from unsupported counters, no zero invented; no
           * duration_time in this result: no CPUs utilized, no elapsed line */
          .lacks = PG_TEXTS("insn per cycle", " GHz", "CPUs utilized", "time elapsed", "commit"),
          .golden = "show-software.txt" },
        { .name = "test_show_sample_golden",
          .has = PG_TEXTS("(63.2%)", "#    0.40  insn per cycle"),
          .golden = "show-sample.txt" },
        { .name = "test_show_hotspots",
          .make = pg_make_profiled,
          .file = "prof.json",
          .has = PG_TEXTS("Profile: 100 samples of cpu-clock at 999 Hz, call graph "
                          "fp, 2 runs, user and kernel frames",
                          "lost 1, throttled 0, truncated 0", "    95.00%     0.00%  main",
                          "hottest path: main > a > b (60.00%)", "    70.00%    10.00%  a",
                          "hottest path: a > b (60.00%)", "    60.00%    60.00%  b\n",
                          /* recursion: 20 samples, not 60 */
                          "    20.00%    20.00%  rec", "hottest path: rec > rec > rec (20.00%)",
                          "     3.00%     3.00%  write_[k]", "[kernel]",
                          "     4.00%     4.00%  [libc.so.6]", "libz.so.1\n"),
          /* the process name is not a function */
          .lacks = PG_TEXTS("%  prof"),
          /* sorted by children: main before a before b */
          .order = PG_TEXTS("%  main", "%  a\n", "%  a\n", "%  b\n"),
          .golden = "show-profile.txt" },
};

/* One row of pg_show_cases: the result made, saved, shown, its output judged. */
static void test_show_case(void **state)
{
        const struct pg_show_case *c = *state;
        struct pg_result r;
        struct pg_run_out o;
        char *path;

        if (c->make) {
                c->make(&r);
                path = pg_save(&r, c->file);
        } else {
                pg_result_init(&r);
                path = pg_xasprintf("%s/tests/golden/result-sample.json",
                                    pg_test_env("PG_SOURCE_DIR"));
        }
        assert_int_equal(pg_test_perfgate(&o, "show", path, NULL), 0);
        if (c->quiet)
                assert_string_equal(o.err.ptr, "");
        for (size_t i = 0; c->has && c->has[i]; i++)
                pg_assert_contains(o.out.ptr, c->has[i]);
        for (size_t i = 0; c->lacks && c->lacks[i]; i++)
                assert_null(strstr(o.out.ptr, c->lacks[i]));
        for (size_t i = 0; c->order && c->order[i]; i += 2)
                assert_true(strstr(o.out.ptr, c->order[i]) < strstr(o.out.ptr, c->order[i + 1]));
        if (c->finite)
                pg_assert_no_nonfinite(o.out.ptr);
        pg_check_golden(o.out.ptr, c->golden);
        pg_run_out_release(&o);
        pg_result_release(&r);
        free(path);
}

/* ---- profiles ----------------------------------------------------------- */

static void test_show_empty_profile(void **state)
{
        struct pg_result r;
        struct pg_run_out o;
        char *path;
        (void) state;

        pg_make_software(&r);
        r.profile.present = true;
        r.profile.event = pg_xstrdup("cpu-clock");
        r.profile.frequency_hz = 999;
        r.profile.call_graph = pg_xstrdup("fp");
        path = pg_save(&r, "empty.json");
        assert_int_equal(pg_test_perfgate(&o, "show", path, NULL), 0);
        pg_assert_contains(o.out.ptr, "No samples: the benchmark ran too briefly to be sampled.");
        pg_assert_no_nonfinite(o.out.ptr);
        pg_run_out_release(&o);
        assert_int_equal(pg_test_perfgate(&o, "show", "--stacks", path, NULL), 0);
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);
        pg_result_release(&r);
        free(path);
}

static void test_show_stacks(void **state)
{
        struct pg_result r;
        struct pg_run_out o;
        char *path;
        (void) state;

        pg_make_software(&r);
        pg_add_profile(&r);
        path = pg_save(&r, "prof.json");
        assert_int_equal(pg_test_perfgate(&o, "show", "--stacks", path, NULL), 0);
        assert_string_equal(o.out.ptr, "prof 1\n"
                                       "prof;[libc.so.6] 4\n"
                                       "prof;main;[libz.so.1] 2\n"
                                       "prof;main;a 10\n"
                                       "prof;main;a;b 60\n"
                                       "prof;main;rec;rec;rec 20\n"
                                       "prof;main;write_[k] 3\n");
        pg_run_out_release(&o);
        pg_result_release(&r);
        free(path);
}

static void test_show_directory(void **state)
{
        struct pg_result a, b;
        struct pg_run_out o;
        char *dir = pg_xasprintf("%s/results", pg_sb);
        char *pa, *pb;
        (void) state;

        assert_int_equal(mkdir(dir, 0777), 0);
        pg_make_software(&a);
        pg_make_hardware(&b);
        pa = pg_save(&a, "results/zz-software.json");
        pb = pg_save(&b, "results/aa-hardware.json");
        assert_int_equal(pg_test_perfgate(&o, "show", dir, NULL), 0);
        /* sorted by benchmark name: "hardware" before "software" */
        assert_non_null(strstr(o.out.ptr, "result 'hardware'"));
        assert_true(strstr(o.out.ptr, "result 'hardware'") <
                    strstr(o.out.ptr, "result 'software'"));
        pg_run_out_release(&o);
        pg_result_release(&a);
        pg_result_release(&b);
        free(pa);
        free(pb);
        free(dir);
}

/* ---- case 26: zero denominators ------------------------------------------ */

/* The case's draft format -> a one-repetition result (msec -> ns). */
static void pg_load_case26(struct pg_result *r, const char *file)
{
        char *path = pg_xasprintf("%s/cases/26-undefined-ratios-no-nan/%s",
                                  pg_test_env("PG_DATA_DIR"), file);
        char *text = pg_test_read(path);
        cJSON *root = NULL, *c;

        assert_int_equal(pg_json_parse(text, strlen(text), path, 0, &root), 0);
        pg_base(r, "tiny_kernel", "hardware");
        r->repeat = 1;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "counters"))
        {
                const char *unit = pg_json_get_string(c, "unit");
                double v = cJSON_GetObjectItemCaseSensitive(c, "value")->valuedouble;
                bool msec = unit && strcmp(unit, "msec") == 0;
                if (msec)
                        v *= 1e6;
                pg_result_add_metric(r, c->string, msec ? "ns" : "count", PG_METRIC_OK, &v, NULL, 1,
                                     NULL);
        }
        pg_result_derive(r);
        cJSON_Delete(root);
        free(text);
        free(path);
}

static void test_show_case26_zero_denominators(void **state)
{
        struct pg_result base, cur, back;
        struct pg_buf json = PG_BUF_INIT;
        struct pg_run_out o;
        char *pb, *pc;
        double v;
        (void) state;

        pg_load_case26(&base, "baseline.json");
        pg_load_case26(&cur, "current.json");
        /* expected.txt: baseline ratios all null; current ipc 1.5, branch-miss 1% */
        assert_null(pg_result_find_metric(&base, "ipc"));
        assert_null(pg_result_find_metric(&base, "branch-miss-rate"));
        assert_null(pg_result_find_metric(&base, "LLC-miss-rate"));
        assert_non_null(pg_result_find_metric(&cur, "ipc"));
        v = pg_result_find_metric(&cur, "ipc")->values[0];
        assert_true(v > 1.4999 && v < 1.5001);
        v = pg_result_find_metric(&cur, "branch-miss-rate")->values[0];
        assert_true(v > 0.00999 && v < 0.01001);
        assert_null(pg_result_find_metric(&cur, "LLC-miss-rate"));

        /* the JSON is finite, strict, and reads back */
        assert_int_equal(pg_result_to_json(&base, &json), 0);
        pg_assert_no_nonfinite(json.ptr);
        pg_result_init(&back);
        assert_int_equal(pg_result_from_json(&back, json.ptr, json.len, "case26"), 0);
        pg_result_release(&back);

        pb = pg_save(&base, "baseline.json");
        pc = pg_save(&cur, "current.json");
        assert_int_equal(pg_test_perfgate(&o, "show", pb, NULL), 0);
        pg_assert_no_nonfinite(o.out.ptr);
        pg_assert_no_nonfinite(o.err.ptr);
        pg_assert_contains(o.out.ptr, "#     n/a  insn per cycle (cycles was 0)");
        pg_assert_contains(o.out.ptr, "#     n/a  of all branches (branches was 0)");
        pg_assert_contains(o.out.ptr, "#     n/a  of all LL-cache accesses (LLC-loads was 0)");
        /* task-clock 0: no per-second rates, no GHz, no spread */
        assert_null(strstr(o.out.ptr, "/sec"));
        assert_null(strstr(o.out.ptr, " GHz"));
        pg_assert_contains(o.out.ptr, "              0.00 msec task-clock\n");
        pg_check_golden(o.out.ptr, "show-case26-baseline.txt");
        pg_run_out_release(&o);

        assert_int_equal(pg_test_perfgate(&o, "show", pc, NULL), 0);
        pg_assert_no_nonfinite(o.out.ptr);
        pg_assert_contains(o.out.ptr, "#    1.50  insn per cycle");
        pg_assert_contains(o.out.ptr, "#    1.00% of all branches");
        pg_assert_contains(o.out.ptr, "#     n/a  of all LL-cache accesses (LLC-loads was 0)");
        pg_assert_contains(o.out.ptr, "#    3.000 GHz"); /* 2.4e6 cycles / 0.8 ms */
        pg_run_out_release(&o);

        pg_buf_release(&json);
        pg_result_release(&base);
        pg_result_release(&cur);
        free(pb);
        free(pc);
}

static void test_show_refuses_nonfinite_tokens(void **state)
{
        static const char *const bad[] = { "NaN", "Infinity", "-Infinity", "-nan", "inf" };
        struct pg_run_out o;
        (void) state;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char *text = pg_xasprintf("{\"schema\": \"perfgate/result/1\", \"name\": \"x\", "
                                          "\"metrics\": {\"ipc\": {\"unit\": \"ratio\", "
                                          "\"values\": [%s]}}}\n",
                                          bad[i]);
                pg_test_write("nan.json", text);
                assert_int_equal(pg_test_perfgate(&o, "show", "nan.json", NULL), 2);
                pg_assert_contains(o.err.ptr, "'nan.json'");
                assert_string_equal(o.out.ptr, "");
                pg_run_out_release(&o);
                free(text);
        }
}

/* ---- errors ---------------------------------------------------------------- */

static void test_show_missing_file(void **state)
{
        struct pg_run_out o;
        (void) state;

        assert_int_equal(pg_test_perfgate(&o, "show", "no/such/result.json", NULL), 2);
        pg_assert_contains(o.err.ptr, "perfgate: error: ");
        pg_assert_contains(o.err.ptr, "'no/such/result.json'");
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);
}

static void test_show_corrupt_json(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_write("corrupt.json",
                      "{\n  \"schema\": \"perfgate/result/1\",\n  \"name\": oops\n}\n");
        assert_int_equal(pg_test_perfgate(&o, "show", "corrupt.json", NULL), 2);
        pg_assert_contains(o.err.ptr, "'corrupt.json'");
        pg_assert_contains(o.err.ptr, "line 3, column");
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);
}

static void test_show_newer_schema(void **state)
{
        struct pg_run_out o;
        (void) state;

        pg_test_write("new.json", "{\"schema\": \"perfgate/result/2\", \"name\": \"x\"}\n");
        assert_int_equal(pg_test_perfgate(&o, "show", "new.json", NULL), 2);
        pg_assert_contains(o.err.ptr, "upgrade perfgate");
        pg_run_out_release(&o);
}

/* A bad second file: nothing at all is printed for the good first one. */
static void test_show_nothing_half_written(void **state)
{
        struct pg_result r;
        struct pg_run_out o;
        char *path;
        (void) state;

        pg_make_software(&r);
        path = pg_save(&r, "good.json");
        pg_test_write("bad.json", "{");
        assert_int_equal(pg_test_perfgate(&o, "show", path, "bad.json", NULL), 2);
        assert_string_equal(o.out.ptr, "");
        pg_assert_contains(o.err.ptr, "'bad.json'");
        pg_run_out_release(&o);
        pg_result_release(&r);
        free(path);
}

static void test_show_usage_errors(void **state)
{
        struct pg_result r;
        struct pg_run_out o;
        char *path;
        (void) state;

        assert_int_equal(pg_test_perfgate(&o, "show", NULL), 2);
        pg_assert_contains(o.err.ptr, "name a result file");
        pg_assert_contains(o.err.ptr, "see 'perfgate help show'");
        pg_run_out_release(&o);

        assert_int_equal(pg_test_perfgate(&o, "show", "--frobnicate", "x.json", NULL), 2);
        pg_assert_contains(o.err.ptr, "unknown option '--frobnicate'");
        pg_run_out_release(&o);

        assert_int_equal(mkdir("emptydir", 0777), 0);
        assert_int_equal(pg_test_perfgate(&o, "show", "emptydir", NULL), 2);
        pg_assert_contains(o.err.ptr, "no result files (*.json) in 'emptydir'");
        pg_run_out_release(&o);

        pg_make_software(&r); /* no profile */
        path = pg_save(&r, "noprof.json");
        assert_int_equal(pg_test_perfgate(&o, "show", "--stacks", path, NULL), 2);
        pg_assert_contains(o.err.ptr, "result 'software' has no profile");
        assert_string_equal(o.out.ptr, "");
        pg_run_out_release(&o);

        assert_int_equal(pg_test_perfgate(&o, "show", "--help", NULL), 0);
        pg_assert_contains(o.out.ptr, "usage: perfgate show [--stacks] RESULT...");
        pg_run_out_release(&o);
        pg_result_release(&r);
        free(path);
}

/* ---- the printer itself: colour only when asked --------------------------- */

static void test_show_color(void **state)
{
        struct pg_result r;
        char *text = NULL;
        size_t len = 0;
        FILE *f;
        (void) state;

        pg_make_hardware(&r);
        pg_add_profile(&r);
        f = open_memstream(&text, &len);
        pg_cli_print_result(f, &r, true);
        fclose(f);
        pg_assert_contains(text, "\033[31m  95.00%\033[m"); /* >= 5%: red, as perf report */
        pg_assert_contains(text, "\033[32m   3.00%\033[m"); /* >= 0.5%: green */
        free(text);
        f = open_memstream(&text, &len);
        pg_cli_print_result(f, &r, false);
        fclose(f);
        assert_null(strchr(text, '\033'));
        free(text);
        pg_result_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_show_empty_profile, pg_setup, pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_stacks, pg_setup, pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_directory, pg_setup, pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_case26_zero_denominators, pg_setup,
                                                pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_refuses_nonfinite_tokens, pg_setup,
                                                pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_missing_file, pg_setup, pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_corrupt_json, pg_setup, pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_newer_schema, pg_setup, pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_nothing_half_written, pg_setup,
                                                pg_teardown),
                cmocka_unit_test_setup_teardown(test_show_usage_errors, pg_setup, pg_teardown),
                cmocka_unit_test(test_show_color),
        };
        return pg_run_tests_and_cases(tests, PG_NELEMS(tests), test_show_case, pg_setup,
                                      pg_teardown, pg_show_cases, sizeof(pg_show_cases[0]),
                                      PG_NELEMS(pg_show_cases));
}
