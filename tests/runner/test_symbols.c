/*
 * test_symbols.c - symbolization of the same call path (main -> outer ->
 * inner, or main -> lib_outer -> lib_inner in a dlopen'ed library) built in
 * every toolchain layout that tests/fixtures/symbols/build-layouts.sh could
 * make here, sampled with cpu-clock at 999 Hz in fp and dwarf modes. Each
 * layout places its executable PT_LOAD differently in the file and in memory
 * (lld: p_vaddr - p_offset differs from the first segment's, and the first
 * text page is shared with the read-only segment); a wrong load bias names
 * other functions or none. Assertions are on folded frame names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/error.h"
#include "runner/sample.h"
#include "tests/util/testutil.h"

/* @frag occurs in @key as whole frames */
static bool has_path(const char *key, const char *frag)
{
        for (const char *p = strstr(key, frag); p; p = strstr(p + 1, frag)) {
                char after = p[strlen(frag)];

                if (after == '\0' || after == ';')
                        return true;
        }
        return false;
}

/* Profile @argv in mode @cg; the share (0..1) of samples under @path. */
static double share_under(char *const *argv, enum pg_call_graph cg, const char *path,
                          const char *layout)
{
        struct pg_sample_opts o = {
                .argv = argv, .freq_hz = 999, .call_graph = cg, .timeout_ns = 30000000000ULL
        };
        struct pg_profile p = { 0 };
        struct pg_buf w = PG_BUF_INIT;
        uint64_t under = 0;
        double share;

        if (pg_sample_profile(&o, &p, &w) < 0)
                fail_msg("%s: %s", layout, pg_error_last());
        assert_true(p.samples >= 50);
        for (size_t i = 0; i < p.nstacks; i++)
                if (has_path(p.stacks[i].frames, path))
                        under += p.stacks[i].count;
        share = (double) under / (double) p.samples;
        if (share < 0.9) {
                fprintf(stderr, "%s (%s): %.0f%% under %s\n", layout,
                        cg == PG_CALL_GRAPH_DWARF ? "dwarf" : "fp", share * 100, path);
                for (size_t i = 0; i < p.nstacks && i < 12; i++)
                        fprintf(stderr, "  %s %llu\n", p.stacks[i].frames,
                                (unsigned long long) p.stacks[i].count);
        }
        pg_profile_release(&p);
        pg_buf_release(&w);
        return share;
}

static void test_layouts(void **state)
{
        char list[4096], name[256], kind[32];
        FILE *f;
        int n = 0, bad = 0;

        (void) state;
        snprintf(list, sizeof(list), "%s", pg_test_fixture("layouts/layouts.txt"));
        f = fopen(list, "r");
        assert_non_null(f);
        while (fscanf(f, "%255s %31s", name, kind) == 2) {
                char exe[8192], lib[8192], dir[4096];
                char *argv[] = { exe, NULL, "200000000", NULL };
                const char *path = ";main;outer;inner";

                snprintf(dir, sizeof(dir), "%s", pg_test_fixture("layouts"));
                if (strcmp(kind, "dlopen") == 0) {
                        snprintf(exe, sizeof(exe), "%s/layout_dlhost", dir);
                        snprintf(lib, sizeof(lib), "%s/%s", dir, name);
                        argv[1] = lib;
                        path = ";main;lib_outer;lib_inner";
                } else {
                        snprintf(exe, sizeof(exe), "%s/%s", dir, name);
                        argv[1] = "200000000";
                        argv[2] = NULL;
                }
                for (int dwarf = 0; dwarf < 2; dwarf++)
                        bad += share_under(argv, dwarf ? PG_CALL_GRAPH_DWARF : PG_CALL_GRAPH_FP,
                                           path, name) < 0.9;
                n++;
        }
        fclose(f);
        /* gcc with ld.bfd is always there; lld layouts when lld is installed */
        assert_true(n >= 6);
        assert_int_equal(bad, 0);
}

static bool frame_is(const char *key, const char *frame)
{
        size_t n = strlen(frame);

        for (const char *p = strstr(key, frame); p; p = strstr(p + 1, frame))
                if ((p == key || p[-1] == ';') && (p[n] == '\0' || p[n] == ';'))
                        return true;
        return false;
}

/* a frame ending in "::h" + 16 hex digits (a Rust legacy hash left in) */
static bool has_rust_hash(const char *key)
{
        for (const char *p = strstr(key, "::h"); p; p = strstr(p + 1, "::h")) {
                size_t i = 3;

                while (i < 19 && ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
                        i++;
                if (i == 19 && (p[19] == '\0' || p[19] == ';' || p[19] == '_'))
                        return true;
        }
        return false;
}

/*
 * The C, C++, Rust and Go programs of the differential test, sampled in fp
 * mode: names as perf prints them (no return type, no Rust hash, inlined
 * frames qualified), no false "frame pointers are missing" warning (Go
 * stacks start at runtime.goexit/runtime.main/runtime.mstart), and each
 * program's own functions named.
 */
static void test_languages(void **state)
{
        char list[4096], name[256];
        long scale;
        FILE *f;
        int n = 0;

        (void) state;
        snprintf(list, sizeof(list), "%s", pg_test_fixture("diff/programs.txt"));
        f = fopen(list, "r");
        assert_non_null(f);
        while (fscanf(f, "%255s %ld", name, &scale) == 2) {
                char exe[8192], arg[32];
                char *argv[] = { exe, arg, NULL };
                struct pg_sample_opts o = { .argv = argv,
                                            .freq_hz = 999,
                                            .call_graph = PG_CALL_GRAPH_FP,
                                            .timeout_ns = 60000000000ULL };
                struct pg_profile p = { 0 };
                struct pg_buf w = PG_BUF_INIT;
                const char *own = strstr(name, "_go")     ? ";main.main;"
                                  : strstr(name, "_rust") ? ";work::"
                                  : strstr(name, "_cxx")  ? ";work::"
                                                          : ";main;";
                uint64_t with_own = 0, qualified_inlined = 0, anon = 0;

                snprintf(exe, sizeof(exe), "%s/%s", pg_test_fixture("diff"), name);
                snprintf(arg, sizeof(arg), "%ld", scale);
                if (pg_sample_profile(&o, &p, &w) < 0)
                        fail_msg("%s: %s", name, pg_error_last());
                if (strstr(w.ptr ? w.ptr : "", "frame pointers are missing"))
                        fail_msg("%s: false warning: %s", name, w.ptr);
                for (size_t i = 0; i < p.nstacks; i++) {
                        const char *k = p.stacks[i].frames;

                        if (strstr(k, ";void ") || has_rust_hash(k) || strstr(k, "miniz_oxide") ||
                            strstr(k, "PathBuf") || frame_is(k, "compare_[i]") ||
                            frame_is(k, "operator()_[i]") || frame_is(k, "_M_data_[i]") ||
                            frame_is(k, "copy_[i]"))
                                fail_msg("%s: badly named stack: %s", name, k);
                        if (strstr(k, own))
                                with_own += p.stacks[i].count;
                        if (strstr(k, "::compare_[i]") || strstr(k, "::operator()_[i]"))
                                qualified_inlined += p.stacks[i].count;
                        if (strstr(k, ";(anonymous namespace)::"))
                                anon += p.stacks[i].count;
                }
                if (with_own * 2 < p.samples)
                        fail_msg("%s: only %llu of %llu samples under %s", name,
                                 (unsigned long long) with_own, (unsigned long long) p.samples,
                                 own);
                if (strcmp(name, "diff_cxx_gcc") == 0)
                        assert_true(qualified_inlined > 0);
                if (strstr(name, "_cxx"))
                        assert_true(anon > 0);
                pg_profile_release(&p);
                pg_buf_release(&w);
                n++;
        }
        fclose(f);
        assert_true(n >= 2); /* gcc and g++ are always there */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_layouts),
                cmocka_unit_test(test_languages),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
