/*
 * test_doctor_toolchains.c - `perfgate doctor`'s frame-pointer verdict on
 * programs built here and now by each installed toolchain, with and without
 * frame pointers: gcc + ld.bfd, g++, clang + ld.lld, Debian's rustc
 * (/usr/bin/rustc, never ~/.cargo) with and without
 * -C force-frame-pointers=yes, and Debian's go. A toolchain that is not
 * installed skips its test with the package to install (ci/install-deps.sh
 * lists them).
 *
 * Rust links the precompiled standard library, which has no frame pointers
 * whatever the user's RUSTFLAGS: the verdict is about the user's own
 * functions. Go keeps frame pointers on amd64 with a prologue of its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "runner/doctor.h"
#include "tests/util/testutil.h"

static const char pg_c_src[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) static unsigned long leaf(unsigned long x)\n"
    "{ return (x * 2654435761u) ^ (x >> 7); }\n"
    "__attribute__((noinline)) unsigned long mid(unsigned long n)\n"
    "{ unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += leaf(i); return s; }\n"
    "__attribute__((noinline)) unsigned long top(unsigned long n)\n"
    "{ unsigned long a = mid(n); return a ^ mid(n / 2 + a % 3); }\n"
    "int main(int argc, char **argv)\n"
    "{ printf(\"%lu\\n\", top(argc > 1 ? strtoul(argv[1], 0, 10) : 1000)); return 0; }\n";

/* main's exception clean-up goes to main.cold (GCC hot/cold partitioning) */
static const char pg_cxx_src[] =
    "#include <cstdio>\n"
    "#include <string>\n"
    "#include <vector>\n"
    "__attribute__((noinline)) unsigned sum(const std::vector<unsigned> &v)\n"
    "{ unsigned s = 0; for (unsigned x : v) s += x * 2654435761u; return s; }\n"
    "__attribute__((noinline)) size_t words(const std::string &s)\n"
    "{ size_t n = 0; for (char c : s) n += c == ' '; return n; }\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "        std::vector<unsigned> v(1000u + (unsigned) argc, 7u);\n"
    "        std::string s(argv[0]);\n"
    "        for (int i = 0; i < 100; i++) s += \" word\";\n"
    "        std::printf(\"%u %zu\\n\", sum(v), words(s));\n"
    "        return 0;\n"
    "}\n";

static const char pg_rust_src[] =
    "#[inline(never)]\n"
    "fn leaf(x: u64) -> u64 { x.wrapping_mul(2654435761) ^ (x >> 7) }\n"
    "#[inline(never)]\n"
    "fn mid(n: u64) -> u64 { (0..n).map(|i| leaf(i)).sum() }\n"
    "#[inline(never)]\n"
    "fn top(n: u64) -> u64 { let a = mid(n); a ^ mid(n / 2 + a % 3) }\n"
    "fn main() {\n"
    "    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);\n"
    "    println!(\"{}\", top(n));\n"
    "}\n";

static const char pg_go_src[] =
    "package main\n"
    "import (\"fmt\"; \"os\"; \"strconv\")\n"
    "//go:noinline\n"
    "func leaf(x uint64) uint64 { return (x * 2654435761) ^ (x >> 7) }\n"
    "//go:noinline\n"
    "func mid(n uint64) uint64 { s := uint64(0); for i := uint64(0); i < n; i++ { s += leaf(i) "
    "}; return s }\n"
    "//go:noinline\n"
    "func top(n uint64) uint64 { a := mid(n); return a ^ mid(n/2+a%3) }\n"
    "func main() {\n"
    "    n := uint64(1000)\n"
    "    if len(os.Args) > 1 { v, _ := strconv.Atoi(os.Args[1]); n = uint64(v) }\n"
    "    fmt.Println(top(n))\n"
    "}\n";

static bool pg_have(const char *tool)
{
        char *cmd = pg_xasprintf("command -v %s >/dev/null 2>&1", tool);
        int rc = system(cmd);
        free(cmd);
        return rc == 0;
}

/* Run the shell command @cmd in the current directory (the sandbox); fail
 * the test with its output when it fails. */
static void pg_build(const char *cmd)
{
        char *full = pg_xasprintf("(%s) >build.log 2>&1", cmd);
        if (system(full) != 0)
                fail_msg("build failed: %s\n%s", cmd, pg_test_read("build.log"));
        free(full);
}

/* The frame-pointer check of @bin (in the current directory). Caller frees
 * with pg_doctor_release(). */
static const struct pg_check *pg_fp_check(struct pg_doctor *d, const char *bin)
{
        char *path = pg_xstrdup(bin);
        char *name = pg_xasprintf("binary:%s:frame-pointers", path);
        char *bins[] = { path };
        const struct pg_check *c = NULL;
        pg_doctor_run(d, bins, 1);
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->checks[i].name, name) == 0)
                        c = &d->checks[i];
        assert_non_null(c);
        print_message("%s: %s: %s\n", bin, pg_check_status_name(c->status), c->value);
        free(path);
        free(name);
        return c;
}

static void pg_assert_has(const char *s, const char *part)
{
        if (!s || !strstr(s, part))
                fail_msg("'%s' does not contain '%s'", s ? s : "(null)", part);
}

/* gcc or clang (@cc, linker @ld) with and without frame pointers. */
static void pg_native(const char *cc, const char *ld)
{
        struct pg_doctor d;
        const struct pg_check *c;
        struct pg_fp_share s;
        char *cmd;

        pg_test_sandbox();
        pg_test_write("fp.c", pg_c_src);
        cmd = pg_xasprintf("%s -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer "
                           "-fuse-ld=%s -o with fp.c && %s -O2 -g -fomit-frame-pointer "
                           "-fuse-ld=%s -o without fp.c",
                           cc, ld, cc, ld);
        pg_build(cmd);
        free(cmd);
        /* judged: the user's mid, top and main (crt has no debug info; leaf
         * makes no call) */
        assert_int_equal(pg_elf_frame_pointers("with", &s), 0);
        assert_true(s.own_only);
        assert_int_equal(s.lang, PG_FP_NATIVE);
        assert_int_equal(s.examined, 3);
        assert_int_equal(s.with_fp, 3);
        assert_int_equal(pg_elf_frame_pointers("without", &s), 0);
        assert_int_equal(s.examined, 3);
        assert_int_equal(s.with_fp, 0);

        c = pg_fp_check(&d, "with");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->value, "3 of 3 of your non-leaf functions (100%) set up a frame pointer "
                                "(functions with debug info; leaf functions not judged)");
        /* gcc, clang and rustc write .eh_frame: run recovers a leaf's caller */
        pg_assert_has(c->meaning, "without a frame keeps its caller (perfgate reads it from "
                                  ".eh_frame");
        pg_doctor_release(&d);
        c = pg_fp_check(&d, "without");
        assert_int_equal(c->status, PG_CHECK_WARN);
        pg_assert_has(c->value, "0 of 3 of your non-leaf functions");
        pg_assert_has(c->fix, "-fno-omit-frame-pointer");
        pg_doctor_release(&d);
}

static void test_doctor_gcc_bfd(void **state)
{
        (void) state;
        if (!pg_have("gcc") || !pg_have("ld.bfd")) {
                print_message("SKIP: gcc or ld.bfd not installed (apt-get install gcc)\n");
                skip();
        }
        pg_native("gcc", "bfd");
        pg_test_sandbox_remove();
}

static void test_doctor_gxx_cold_part(void **state)
{
        struct pg_fp_share s;
        (void) state;
        if (!pg_have("g++")) {
                print_message("SKIP: g++ not installed (apt-get install g++)\n");
                skip();
        }
        pg_test_sandbox();
        pg_test_write("fp.cpp", pg_cxx_src);
        pg_build("g++ -O2 -g -fno-omit-frame-pointer -o with fp.cpp && nm with | grep -q "
                 "' main.cold$'");
        /* main calls; sum and words are leaves; main.cold is main's, in
         * main's frame, not a function that lacks one */
        assert_int_equal(pg_elf_frame_pointers("with", &s), 0);
        assert_int_equal(s.examined, 1);
        assert_int_equal(s.with_fp, 1);
        pg_test_sandbox_remove();
}

static void test_doctor_clang_lld(void **state)
{
        (void) state;
        if (!pg_have("clang") || !pg_have("ld.lld")) {
                print_message("SKIP: clang or lld not installed (apt-get install clang lld)\n");
                skip();
        }
        pg_native("clang", "lld");
        pg_test_sandbox_remove();
}

static void test_doctor_rust(void **state)
{
        struct pg_doctor d;
        const struct pg_check *c;
        struct pg_fp_share s;
        (void) state;

        if (access("/usr/bin/rustc", X_OK) != 0) {
                print_message("SKIP: Debian's rustc not installed (apt-get install rustc)\n");
                skip();
        }
        pg_test_sandbox();
        pg_test_write("fp.rs", pg_rust_src);
        pg_build("/usr/bin/rustc -O -g -C force-frame-pointers=yes -o with fp.rs && "
                 "/usr/bin/rustc -O -g -o without fp.rs");
        /* the standard library (no frame pointers, precompiled) is left out */
        assert_int_equal(pg_elf_frame_pointers("with", &s), 0);
        assert_int_equal(s.lang, PG_FP_RUST);
        assert_true(s.toolchain > 50);
        assert_true(s.examined >= 3);
        assert_int_equal(s.with_fp, s.examined);
        assert_int_equal(pg_elf_frame_pointers("without", &s), 0);
        assert_true(s.examined >= 3);
        assert_true(s.with_fp * 2 < s.examined);

        c = pg_fp_check(&d, "with");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->value, "of your non-leaf functions (100%) set up a frame pointer");
        pg_assert_has(c->value, "Rust standard library excluded");
        pg_assert_has(c->meaning, "keeps its caller");
        pg_doctor_release(&d);
        c = pg_fp_check(&d, "without");
        assert_int_equal(c->status, PG_CHECK_WARN);
        pg_assert_has(c->fix, "-C force-frame-pointers=yes");
        assert_null(strstr(c->fix, "-fno-omit-frame-pointer"));
        pg_doctor_release(&d);
        pg_test_sandbox_remove();
}

static void test_doctor_go(void **state)
{
        struct pg_doctor d;
        const struct pg_check *c;
        struct pg_fp_share s;
        const char *go = access("/usr/lib/go/bin/go", X_OK) == 0 ? "/usr/lib/go/bin/go"
                         : access("/usr/bin/go", X_OK) == 0      ? "/usr/bin/go"
                                                                 : NULL;
        char *cmd;
        (void) state;

        if (!go) {
                print_message("SKIP: Debian's go not installed (apt-get install golang-go)\n");
                skip();
        }
        pg_test_sandbox();
        pg_test_write("fp.go", pg_go_src);
        cmd = pg_xasprintf("env GOCACHE=\"$PWD/gocache\" GOPATH=\"$PWD/gopath\" GO111MODULE=off "
                           "GOFLAGS= %s build -o gobin fp.go",
                           go);
        pg_build(cmd);
        free(cmd);
        assert_int_equal(pg_elf_frame_pointers("gobin", &s), 0);
        assert_int_equal(s.lang, PG_FP_GO);
        assert_true(s.examined > 100); /* the runtime is Go's own code, built with them */
        assert_true(s.with_fp * 10 >= s.examined * 9);

        c = pg_fp_check(&d, "gobin");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->value, "Go keeps frame pointers");
        /* Go writes .debug_frame only: nothing to recover a leaf's caller from */
        pg_assert_has(c->meaning, "skips its caller (the file has no .eh_frame");
        assert_true(c->fix == NULL || strstr(c->fix, "-fno-omit-frame-pointer") == NULL);
        pg_doctor_release(&d);
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_doctor_gcc_bfd),
                cmocka_unit_test(test_doctor_gxx_cold_part),
                cmocka_unit_test(test_doctor_clang_lld),
                cmocka_unit_test(test_doctor_rust),
                cmocka_unit_test(test_doctor_go),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
