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

static void profile_release(struct pg_profile *p)
{
        for (size_t i = 0; i < p->nstacks; i++)
                free(p->stacks[i].frames);
        free(p->stacks);
        free(p->event);
        free(p->call_graph);
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
        profile_release(&p);
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_layouts),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
