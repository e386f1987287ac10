/*
 * test_scope_index.c - runner/scopeindex.h gives, for every address probed,
 * the same inlined-subroutine DIEs, in the same order, as dwarf_getscopes(3)
 * itself (the scopes of tag DW_TAG_inlined_subroutine, outermost first,
 * which is all the symbolizer folds), on real files: glibc through its
 * separate debug file, the perfgate binary (gcc -O2 -g, inlining
 * everywhere), the C++ and inline fixtures, the fixture layouts built by
 * gcc and clang with bfd and lld, and programs built here by Debian's rustc
 * (-O, -g) and by golang-go. Addresses probed: an even stride over each
 * executable segment and the entry of every inlined instance found there.
 * The same addresses check the index's second rule, the full chain of
 * inlined subroutines (pg_scopeindex_chain), against the libdw walk it
 * models (pg_scopes_at), with the CU found by pg_scopeindex_cu (Go's files
 * have no .debug_aranges).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/scopeindex.h"
#include "tests/runner/offline_module.h"
#include "tests/util/testutil.h"

static size_t mismatches, with_inlined, chain_mismatches, with_chain;

/* The inlined scopes of dwarf_getscopes(@cu, @pc), outermost first, into @out. */
static int oracle(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
        Dwarf_Die *scopes = NULL;
        int n = dwarf_getscopes(cu, pc, &scopes), k = pg_scopes_keep_inlined(scopes, n, out, max);

        free(scopes);
        return k;
}

/* The inlined subroutines of pg_scopes_at(@cu, @pc), outermost first, into @out. */
static int chain_oracle(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
        Dwarf_Die v[80];

        return pg_scopes_keep_inlined(v, pg_scopes_at(cu, pc, v, 80), out, max);
}

/* One rule: the libdw call the index reproduces, and the index's answer. */
struct rule {
        const char *what;
        int (*oracle)(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max);
        int (*index)(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                     int max);
        size_t *with, *mismatches;
};

static const struct rule getscopes = { "dwarf_getscopes", oracle, pg_scopeindex_inlined,
                                       &with_inlined, &mismatches };
static const struct rule chain = { "the walk of pg_scopes_at", chain_oracle, pg_scopeindex_chain,
                                   &with_chain, &chain_mismatches };

/* Compare @r's two answers at module-relative @addr of @cu (NULL: no CU). */
static void compare_rule(const struct rule *r, struct pg_scopeindex *x, Dwarf_Die *cu,
                         Dwarf_Addr bias, const char *path, Dwarf_Addr addr)
{
        Dwarf_Die want[64], got[64];
        int nw, ng;

        if (cu == NULL)
                return;
        nw = r->oracle(cu, addr - bias, want, 64);
        (void) r->index(x, cu, addr - bias, got, 64); /* indexes the CU */
        ng = r->index(x, cu, addr - bias, got, 64);
        *r->with += nw > 0;
        if (nw == ng) {
                for (int i = 0; i < nw && i < 64; i++)
                        if (want[i].addr != got[i].addr)
                                goto differ;
                return;
        }
differ:
        if ((*r->mismatches)++ < 10)
                fprintf(stderr, "%s: %#llx: %s has %d inlined scopes, the index %d\n", path,
                        (unsigned long long) addr, r->what, nw, ng);
}

/* Compare one address (module-relative @addr) by both rules; the chain's CU
 * as the symbolizer finds it (pg_scopeindex_cu: Go's files have no
 * .debug_aranges), dwarf_getscopes' as before. */
static void probe(struct pg_scopeindex *x, Dwfl_Module *mod, const char *path, Dwarf_Addr addr)
{
        Dwarf_Addr bias = 0;

        compare_rule(&getscopes, x, dwfl_module_addrdie(mod, addr, &bias), bias, path, addr);
        bias = 0;
        compare_rule(&chain, x, pg_scopeindex_cu(x, mod, addr, &bias), bias, path, addr);
}

/* The low_pc of every DW_TAG_inlined_subroutine under @die (module-relative). */
static void inlined_entries(Dwarf_Die *die, Dwarf_Addr bias, Dwarf_Addr **v, size_t *n, size_t *cap)
{
        Dwarf_Die kid;
        Dwarf_Addr lo;

        if (dwarf_child(die, &kid) != 0)
                return;
        do {
                if (dwarf_tag(&kid) == DW_TAG_inlined_subroutine && dwarf_lowpc(&kid, &lo) == 0) {
                        if (*n == *cap) {
                                *cap = *cap ? *cap * 2 : 1024;
                                *v = realloc(*v, *cap * sizeof(**v));
                                assert_non_null(*v);
                        }
                        (*v)[(*n)++] = lo + bias;
                }
                inlined_entries(&kid, bias, v, n, cap);
        } while (dwarf_siblingof(&kid, &kid) == 0);
}

struct stride_ctx {
        struct pg_scopeindex *x;
        Dwfl_Module *mod;
        const char *path;
};

static void stride_probe(void *arg, uint64_t addr)
{
        struct stride_ctx *c = arg;

        probe(c->x, c->mod, c->path, addr);
}

/* Probe @path with about @budget addresses; returns how many were probed. */
static size_t check_file(const char *path, size_t budget)
{
        Dwfl *dwfl;
        Dwfl_Module *mod = pg_offline_module(path, &dwfl);
        struct pg_scopeindex x = { 0 };
        size_t probes = 0, n = 0, cap = 0;
        Dwarf_Addr bias, *entries = NULL;
        Dwarf_Die *cu = NULL;
        struct stride_ctx sc = { &x, mod, path };

        if (mod == NULL)
                return 0;
        probes += pg_exec_stride(mod, budget, stride_probe, &sc);
        /* the entries of inlined instances: where the innermost scope changes */
        while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL)
                inlined_entries(cu, bias, &entries, &n, &cap);
        for (size_t i = 0; i < n; i += n / budget + 1, probes += 2) {
                probe(&x, mod, path, entries[i]);
                probe(&x, mod, path, entries[i] - 1);
        }
        free(entries);
        pg_scopeindex_release(&x);
        dwfl_end(dwfl);
        return probes;
}

/* Build @src (@name in a sandbox) with @cmd; its output path, or NULL when the tool is missing. */
static const char *build(const char *tool, const char *name, const char *src, const char *cmd)
{
        static char path[4096];
        char file[4096 + 64];
        const char *dir;

        if (access(tool, X_OK) != 0) {
                print_message("SKIP: %s not installed\n", tool);
                return NULL;
        }
        dir = pg_test_sandbox(); /* also the working directory */
        snprintf(file, sizeof(file), "%s/%s", dir, name);
        pg_test_write(file, src);
        assert_int_equal(system(cmd), 0);
        snprintf(path, sizeof(path), "%s/prog", dir);
        return path;
}

static const char rust_src[] = "#[inline(always)]\n"
                               "fn mix(x: u64) -> u64 { x.rotate_left(5) ^ x.wrapping_mul(31) }\n"
                               "fn main() {\n"
                               "    let v: Vec<u64> = (0..100000u64).map(mix).collect();\n"
                               "    let mut m = std::collections::HashMap::new();\n"
                               "    for x in &v { *m.entry(x % 97).or_insert(0u64) += x; }\n"
                               "    let s: u64 = m.values().sum();\n"
                               "    println!(\"{}\", s);\n"
                               "}\n";

static const char go_src[] =
    "package main\n"
    "import (\"fmt\"; \"sort\"; \"strings\")\n"
    "func key(s string) string { return strings.ToLower(s) }\n"
    "func main() {\n"
    "    w := strings.Fields(\"b a C d B e A\")\n"
    "    sort.Slice(w, func(i, j int) bool { return key(w[i]) < key(w[j]) })\n"
    "    fmt.Println(w)\n"
    "}\n";

static void test_same_as_dwarf_getscopes(void **state)
{
        const char *fixtures[] = { "sample_callpath", "sample_cxx", "sample_inline_vdso",
                                   "sample_debuglink" };
        const char *dir = pg_test_env("PG_FIXTURE_DIR"), *prog;
        size_t total = 0, libc, perfgate, before, chain_before;
        char path[4096];

        (void) state;
        libc = check_file("/lib/x86_64-linux-gnu/libc.so.6", 20000);
        libc += check_file("/lib/aarch64-linux-gnu/libc.so.6", 20000);
        total += libc;
        perfgate = check_file(pg_test_env("PERFGATE_BIN"), 20000);
        total += perfgate;
        for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, fixtures[i]);
                total += check_file(path, 5000);
        }
        total += pg_test_each_layout(check_file, 5000);
        /* rustc nests each function in DW_TAG_namespace DIEs, which have no
         * addresses: dwarf_getscopes' first pass never enters them, and finds
         * no inlined scopes there; the index must agree */
        prog = build("/usr/bin/rustc", "m.rs", rust_src, "/usr/bin/rustc -O -g -o prog m.rs");
        if (prog != NULL) {
                before = with_inlined;
                chain_before = with_chain;
                total += check_file(prog, 20000);
                fprintf(stderr,
                        "rustc: %zu addresses with inlined scopes, %zu with an inline chain\n",
                        with_inlined - before, with_chain - chain_before);
                assert_true(with_chain - chain_before > 100);
        }
        if (prog != NULL)
                pg_test_sandbox_remove();
        prog = build("/usr/lib/go/bin/go", "m.go", go_src,
                     "GOFLAGS=-mod=mod GO111MODULE=off GOCACHE=$PWD/cache /usr/lib/go/bin/go "
                     "build -o prog m.go");
        if (prog != NULL) {
                before = with_inlined;
                chain_before = with_chain;
                total += check_file(prog, 20000);
                fprintf(stderr, "go: %zu addresses with inlined scopes, %zu with an inline chain\n",
                        with_inlined - before, with_chain - chain_before);
                assert_true(with_chain - chain_before > 100);
                pg_test_sandbox_remove();
        }
        fprintf(stderr,
                "%zu addresses compared with dwarf_getscopes (%zu with inlined scopes) and with "
                "the walk of pg_scopes_at (%zu with an inline chain)\n",
                total, with_inlined, with_chain);
        assert_true(perfgate > 1000);
        /* the index was exercised: Debian's -O2 glibc, an optimised perfgate
         * and the -O1 layouts inline (a Debug perfgate, as the sanitizer
         * build makes it, hardly does) */
        assert_true(with_inlined > 100);
        assert_int_equal(mismatches, 0);
        assert_int_equal(chain_mismatches, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_same_as_dwarf_getscopes) };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
