/*
 * test_symbol_index.c - runner/symindex.h gives, for every address, the
 * symbol libdwfl's own dwfl_module_addrinfo() gives (name and start), on
 * real files: glibc with its separate debug file (thousands of locals,
 * aliases, sizeless assembly labels), the dynamic loader, libstdc++, the Go
 * toolchain's go binary, the perfgate binary, and the fixture layouts built
 * by gcc and clang with bfd and lld (PIE, non-PIE, static, gc-sections,
 * separate debug). Addresses probed: around every symbol's start and end,
 * and an even stride over each executable segment. Also the aliases at
 * each start, against a scan of the whole table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/symindex.h"
#include "tests/runner/offline_module.h"
#include "tests/util/testutil.h"

struct alias_ctx {
        int n;
        int ndx[64];
};

static void collect(void *arg, int ndx, const GElf_Sym *sym, const char *name)
{
        struct alias_ctx *c = arg;

        (void) sym;
        (void) name;
        if (c->n < 64)
                c->ndx[c->n++] = ndx;
}

static size_t mismatches;

/* Compare one address; print the first few differences. */
static void probe(struct pg_symindex *ix, Dwfl_Module *mod, const char *path, uint64_t addr)
{
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *want = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
        uint64_t start = 0;
        const char *got = pg_symindex_lookup(ix, mod, addr, &start);

        if ((want == NULL) != (got == NULL) ||
            (want != NULL && (strcmp(want, got) != 0 || start != addr - off))) {
                if (mismatches++ < 10)
                        fprintf(stderr, "%s: %#llx: libdwfl %s+%#llx, index %s (start %#llx)\n",
                                path, (unsigned long long) addr, want ? want : "(none)",
                                (unsigned long long) off, got ? got : "(none)",
                                (unsigned long long) start);
        }
}

/* Check @path; returns the number of addresses probed (0: not an ELF file here). */
struct stride_ctx {
        struct pg_symindex *ix;
        Dwfl_Module *mod;
        const char *path;
};

static void stride_probe(void *arg, uint64_t addr)
{
        struct stride_ctx *c = arg;

        probe(c->ix, c->mod, c->path, addr);
}

static size_t check_file(const char *path, size_t budget)
{
        Dwfl *dwfl;
        Dwfl_Module *mod = pg_offline_module(path, &dwfl);
        struct pg_symindex ix = { 0 };
        int n;
        size_t probes = 0, step, nsyms;
        struct stride_ctx sc = { &ix, NULL, path };

        if (mod == NULL)
                return 0;
        if ((n = dwfl_module_getsymtab(mod)) <= 1) {
                dwfl_end(dwfl);
                return 0;
        }
        sc.mod = mod;
        pg_symindex_build(&ix, mod);
        assert_true(ix.exact); /* x86-64 and aarch64 have no function descriptors */
        /* libdwfl scans n symbols per lookup: keep the test's cost bounded */
        nsyms = (size_t) n;
        step = nsyms * 5 * nsyms / budget + 1;
        for (int i = 1; i < n; i += (int) step) {
                GElf_Sym sym;
                GElf_Addr v;
                const char *nm = dwfl_module_getsym_info(mod, i, &sym, &v, NULL, NULL, NULL);
                struct alias_ctx got = { 0 };
                int want = 0;

                if (nm == NULL)
                        continue;
                probe(&ix, mod, path, v - 1);
                probe(&ix, mod, path, v);
                probe(&ix, mod, path, v + 1);
                probe(&ix, mod, path, v + sym.st_size - 1);
                probe(&ix, mod, path, v + sym.st_size);
                probes += 5;
                if (nm[0] == '\0')
                        continue;
                pg_symindex_at(&ix, mod, v, collect, &got);
                for (int j = 1; j < n; j++) {
                        GElf_Sym s2;
                        GElf_Addr v2;
                        const char *n2 =
                            dwfl_module_getsym_info(mod, j, &s2, &v2, NULL, NULL, NULL);

                        if (n2 == NULL || n2[0] == '\0' || v2 != v)
                                continue;
                        if (want < 64 && (want >= got.n || got.ndx[want] != j) && mismatches++ < 10)
                                fprintf(stderr, "%s: aliases at %#llx: index %d missing\n", path,
                                        (unsigned long long) v, j);
                        want++;
                }
                if (want != got.n && want < 64 && mismatches++ < 10)
                        fprintf(stderr, "%s: %d aliases at %#llx, index gave %d\n", path, want,
                                (unsigned long long) v, got.n);
                i += (int) step * 3; /* the alias scan costs a lookup's worth */
        }
        /* an even stride over the executable segments */
        probes += pg_exec_stride(mod, budget / nsyms / 2 + 1, stride_probe, &sc);
        pg_symindex_release(&ix);
        dwfl_end(dwfl);
        return probes;
}

static void test_same_as_libdwfl(void **state)
{
        const char *files[] = {
                "/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6",
                "/lib64/ld-linux-x86-64.so.2",     "/lib/x86_64-linux-gnu/libstdc++.so.6",
                "/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/go/bin/go"
        };
        const char *fixtures[] = { "sample_callpath", "sample_cxx", "sample_inline_vdso",
                                   "sample_stripped", "sample_debuglink" };
        size_t total = 0, libc = 0;
        const char *dir = pg_test_env("PG_FIXTURE_DIR");
        char path[4096];

        (void) state;
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                size_t p = check_file(files[i], 40000000);

                if (i < 2)
                        libc += p;
                total += p;
        }
        assert_true(libc > 1000); /* glibc's own tables were probed */
        total += check_file(pg_test_env("PERFGATE_BIN"), 40000000);
        for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, fixtures[i]);
                total += check_file(path, 20000000);
        }
        total += pg_test_each_layout(check_file, 20000000);
        fprintf(stderr, "%zu addresses compared with dwfl_module_addrinfo\n", total);
        assert_true(total > 10000);
        assert_int_equal(mismatches, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_same_as_libdwfl) };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
