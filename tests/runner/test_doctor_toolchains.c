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

/* A Cargo crate without dependencies (builds offline), pg_rust_src as
 * its src/main.rs. */
static const char pg_cargo_toml[] = "[package]\n"
                                    "name = \"fpcrate\"\n"
                                    "version = \"0.1.0\"\n"
                                    "edition = \"2021\"\n";

/* A cgo program: Go code calling a C function. */
static const char pg_cgo_src[] =
    "package main\n"
    "// unsigned crc(unsigned x) { return x * 2654435761u ^ (x >> 7); }\n"
    "import \"C\"\n"
    "import \"fmt\"\n"
    "//go:noinline\n"
    "func work(n uint) uint { s := uint(0); for i := uint(0); i < n; "
    "i++ { s += uint(C.crc(C.uint(i))) }; return s }\n"
    "func main() { fmt.Println(work(1000)) }\n";

/* The output of shell command @cmd (in the sandbox): the oracle's answer.
 * Caller frees. */
static char *pg_sh(const char *cmd)
{
        char *full = pg_xasprintf("(%s) >oracle.out 2>&1", cmd);
        if (system(full) != 0)
                fail_msg("oracle failed: %s\n%s", cmd, pg_test_read("oracle.out"));
        free(full);
        return pg_test_read("oracle.out");
}

/* The check named binary:@bin:@what of @d, or fail. */
static const struct pg_check *pg_find_check(const struct pg_doctor *d, const char *bin,
                                            const char *what)
{
        char *name = pg_xasprintf("binary:%s:%s", bin, what);
        const struct pg_check *c = NULL;
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->checks[i].name, name) == 0)
                        c = &d->checks[i];
        if (!c)
                fail_msg("no check %s", name);
        print_message("%s: %s: %s / %s\n", name, pg_check_status_name(c->status), c->value,
                      c->meaning);
        free(name);
        return c;
}

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

/* Build Go program @src (written as @file) into @bin in a new sandbox with
 * Debian's go, cgo on when @cgo (gcc as its C compiler); skip the test when
 * the toolchain is missing. */
static void pg_go_build(const char *src, const char *file, const char *bin, bool cgo)
{
        const char *go = access("/usr/lib/go/bin/go", X_OK) == 0 ? "/usr/lib/go/bin/go"
                         : access("/usr/bin/go", X_OK) == 0      ? "/usr/bin/go"
                                                                 : NULL;
        char *cmd;

        if (!go || (cgo && !pg_have("gcc"))) {
                print_message("SKIP: Debian's go%s not installed (apt-get install golang-go%s)\n",
                              cgo ? " or gcc" : "", cgo ? " gcc" : "");
                skip();
        }
        pg_test_sandbox();
        pg_test_write(file, src);
        cmd = pg_xasprintf("env GOCACHE=\"$PWD/gocache\" GOPATH=\"$PWD/gopath\" GO111MODULE=off "
                           "GOFLAGS= CGO_ENABLED=%d CC=gcc %s build -o %s %s",
                           cgo, go, bin, file);
        pg_build(cmd);
        free(cmd);
}

static void test_doctor_go(void **state)
{
        struct pg_doctor d;
        const struct pg_check *c;
        struct pg_fp_share s;
        (void) state;

        pg_go_build(pg_go_src, "fp.go", "gobin", false);
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

/*
 * A Cargo release build (Debian's cargo and rustc 1.63, no dependencies,
 * offline), as a team builds it: with RUSTFLAGS='-C force-frame-pointers=yes'
 * the crate's functions set up frame pointers (objdump: push %rbp in
 * fpcrate::top) and the verdict is ok, although libstd's vendored crates
 * (gimli, addr2line, ...), which have no compile unit here, and its panic
 * runtime have none; the release profile's debug = 0 leaves the crate
 * without DWARF (readelf: no unit of src/main.rs) while libstd's is in the
 * file, which doctor says, and CARGO_PROFILE_RELEASE_DEBUG=1 fixes.
 */
static void test_doctor_cargo(void **state)
{
        struct pg_doctor d;
        const struct pg_check *c;
        struct pg_fp_share s;
        char *bins[1], *out;
        (void) state;

        if (access("/usr/bin/rustc", X_OK) != 0 || access("/usr/bin/cargo", X_OK) != 0) {
                print_message("SKIP: Debian's rustc or cargo not installed (apt-get install "
                              "rustc cargo)\n");
                skip();
        }
        pg_test_sandbox();
        pg_test_write("Cargo.toml", pg_cargo_toml);
        assert_int_equal(system("mkdir src"), 0);
        pg_test_write("src/main.rs", pg_rust_src);
#define PG_CARGO                                                                                   \
        "env -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS CARGO_HOME=\"$PWD/cargo-home\" "  \
        "RUSTC=/usr/bin/rustc RUSTC_WRAPPER= /usr/bin/cargo build --release "                      \
        "--offline -q"
        pg_build("env RUSTFLAGS='-C force-frame-pointers=yes' " PG_CARGO
                 " && cp target/release/fpcrate with");
        pg_build("env RUSTFLAGS= " PG_CARGO " && cp target/release/fpcrate without");
        pg_build(
            "env RUSTFLAGS='-C force-frame-pointers=yes' CARGO_PROFILE_RELEASE_DEBUG=1 " PG_CARGO
            " && cp target/release/fpcrate withdebug");
#undef PG_CARGO
        /* the oracle: the crate's function sets up a frame pointer in one
         * build, not the other; the libstd DWARF is there, the crate's not */
        out = pg_sh("objdump -d --no-show-raw-insn -C with | sed -n '/<fpcrate::top>:/,/^$/p' | "
                    "head -8");
        pg_assert_has(out, "push   %rbp");
        free(out);
        out = pg_sh("objdump -d --no-show-raw-insn -C without | sed -n '/<fpcrate::top>:/,/^$/p' "
                    "| head -8");
        assert_null(strstr(out, "push   %rbp"));
        free(out);
        out =
            pg_sh("readelf --debug-dump=info with | grep -c 'DW_AT_name.*library/std/src/lib.rs'; "
                  "readelf --debug-dump=info with | grep -c 'DW_AT_name.*src/main.rs' || true");
        assert_true(atoi(out) > 0);
        assert_int_equal(atoi(strchr(out, '\n') + 1), 0);
        free(out);
        out = pg_sh("readelf --debug-dump=info withdebug | grep -c 'DW_AT_name.*src/main.rs'");
        assert_true(atoi(out) > 0);
        free(out);

        /* the sysroot functions (gimli::*, rust_panic, ...) are left out */
        assert_int_equal(pg_elf_frame_pointers("with", &s), 0);
        assert_int_equal(s.lang, PG_FP_RUST);
        assert_true(s.toolchain > 50);
        assert_true(s.examined >= 3);
        assert_int_equal(s.with_fp, s.examined);

        bins[0] = "with";
        pg_doctor_run(&d, bins, 1);
        c = pg_find_check(&d, "with", "frame-pointers");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->value, "(100%) set up a frame pointer");
        pg_assert_has(c->value, "Rust standard library excluded");
        c = pg_find_check(&d, "with", "debuginfo");
        assert_int_equal(c->status, PG_CHECK_WARN);
        pg_assert_has(c->value, "precompiled Rust standard library's");
        pg_assert_has(c->value, "none for your crate");
        pg_assert_has(c->fix, "[profile.release] debug = 1");
        pg_assert_has(c->fix, "CARGO_PROFILE_RELEASE_DEBUG=1");
        pg_doctor_release(&d);

        bins[0] = "without";
        pg_doctor_run(&d, bins, 1);
        c = pg_find_check(&d, "without", "frame-pointers");
        assert_int_equal(c->status, PG_CHECK_WARN);
        pg_assert_has(c->fix, "-C force-frame-pointers=yes");
        pg_doctor_release(&d);

        bins[0] = "withdebug";
        pg_doctor_run(&d, bins, 1);
        c = pg_find_check(&d, "withdebug", "debuginfo");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->meaning, "source lines can be shown");
        c = pg_find_check(&d, "withdebug", "frame-pointers");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->value, "of your non-leaf functions (100%)");
        pg_doctor_release(&d);
        pg_test_sandbox_remove();
}

/*
 * A cgo program has an .eh_frame (from gcc and the C runtime), but its FDEs
 * cover the C code only (readelf --debug-dump=frames: no FDE's pc range
 * holds main.main): doctor must not promise that a frameless Go leaf keeps
 * its caller.
 */
static void test_doctor_cgo(void **state)
{
        struct pg_doctor d;
        const struct pg_check *c;
        char *bins[] = { "cgobin" }, *out;
        (void) state;

        pg_go_build(pg_cgo_src, "cgo.go", "cgobin", true);
        /* the oracle: .eh_frame has FDEs, none of them covers main.main */
        out = pg_sh("m=0x$(nm cgobin | awk '$3 == \"main.main\" { print $1 }'); n=0; hit=0; "
                    "for r in $(readelf --debug-dump=frames cgobin | sed -n '/^Contents of the "
                    ".eh_frame section/,/^Contents of the .debug_frame/p' | grep ' FDE ' | "
                    "sed 's/.*pc=//'); do a=0x${r%%..*}; b=0x${r##*..}; n=$((n + 1)); "
                    "[ $((a <= m && m < b)) = 1 ] && hit=$((hit + 1)); done; echo $n $hit");
        print_message("eh_frame FDEs, covering main.main: %s", out);
        assert_true(atoi(out) > 0);
        assert_int_equal(atoi(strchr(out, ' ') + 1), 0);
        free(out);

        pg_doctor_run(&d, bins, 1);
        c = pg_find_check(&d, "cgobin", "frame-pointers");
        assert_int_equal(c->status, PG_CHECK_OK);
        pg_assert_has(c->value, "Go keeps frame pointers");
        pg_assert_has(c->meaning, "covers only the C code");
        assert_null(strstr(c->meaning, "keeps its caller"));
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
                cmocka_unit_test(test_doctor_cargo),
                cmocka_unit_test(test_doctor_cgo),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
