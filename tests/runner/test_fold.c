/*
 * test_fold.c - the frame-name rules of runner/fold.h: offsets, parameter
 * lists (C++ templates, lambdas, operators, Java signatures, Go receivers;
 * tests/data/cases/01), quotes, separators, unresolved frames (tests/data/cases/10),
 * kernel/JIT module detection and the comm modes (tests/data/cases/13).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/buf.h"
#include "runner/fold.h"
#include "tests/util/testutil.h"

/* Tidy @sym as the importer does and compare with @want. */
static void pg_check_symbol(const char *sym, bool java, const char *want)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_fold_append_symbol(&b, sym, strlen(sym), java, PG_FRAME_USER);
        if (strcmp(b.ptr, want) != 0)
                fail_msg("tidy('%s') = '%s', want '%s'", sym, b.ptr, want);
        pg_buf_release(&b);
}

static void test_fold_strip_offset(void **state)
{
        (void) state;
        assert_int_equal(pg_fold_strip_offset("main+0x31", 9), 4);
        assert_int_equal(pg_fold_strip_offset("cpu_startup_entry+0x800047c022ec", 32), 17);
        assert_int_equal(pg_fold_strip_offset("main", 4), 4);
        assert_int_equal(pg_fold_strip_offset("a+0x", 4), 4);        /* no digits */
        assert_int_equal(pg_fold_strip_offset("x+0xZZ", 6), 6);      /* not hex */
        assert_int_equal(pg_fold_strip_offset("0x1f", 4), 4);        /* no '+' */
        assert_int_equal(pg_fold_strip_offset("f+0x1f+0x2", 10), 6); /* only the last */
}

static void test_fold_params_cpp_templates(void **state)
{
        (void) state;
        /* tests/data/cases/01: never cut inside <...> */
        pg_check_symbol("void run_task<void (*)()>(void (*)())+0x20", false,
                        "void run_task<void (*)()>");
        pg_check_symbol("Holder<(Mode)0>::step+0x16", false, "Holder<(Mode)0>::step");
        pg_check_symbol("std::function<bool (int)>::operator()(int) const+0x10", false,
                        "std::function<bool (int)>::operator()");
        pg_check_symbol("(anonymous namespace)::Parser::run(int)+0x40", false,
                        "(anonymous namespace)::Parser::run");
        pg_check_symbol("main::{lambda(int)#1}::operator()(int) const+0x8", false,
                        "main::{lambda(int)#1}::operator()");
        pg_check_symbol("std::ostream::operator<<(int)+0x12", false, "std::ostream::operator<<");
        pg_check_symbol("Foo::operator()", false, "Foo::operator()");
        pg_check_symbol("operator new(unsigned long)", false, "operator new");
        pg_check_symbol("PSPromotionManager::copy_to_survivor_space<false>(oopDesc*)", false,
                        "PSPromotionManager::copy_to_survivor_space<false>");
        pg_check_symbol("arrayOopDesc::base(BasicType) const", false, "arrayOopDesc::base");
        pg_check_symbol("foo(int) [clone .isra.0]", false, "foo");
        pg_check_symbol("S::get() const &&", false, "S::get");
        /* a ')' that closes something inside the name: nothing to strip */
        pg_check_symbol("outer(int)::Local::run", false, "outer(int)::Local::run");
}

static void test_fold_params_other_languages(void **state)
{
        (void) state;
        /* Go methods survive (the reference's rule) */
        pg_check_symbol("net/http.(*Client).Do", false, "net/http.(*Client).Do");
        pg_check_symbol("main.(*T).M", false, "main.(*T).M");
        /* Java: the signature and its return type go; 'L' only under a java comm */
        pg_check_symbol("Lorg/mozilla/javascript/MemberBox;.<init>(Ljava/lang/reflect/Method;)V",
                        true, "org/mozilla/javascript/MemberBox:.<init>");
        pg_check_symbol("Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/javascript/C",
                        true, "org/mozilla/javascript/ContextFactory:.call");
        pg_check_symbol("Lcom/example/dao/ClauseList;::getList", false,
                        "Lcom/example/dao/ClauseList:::getList");
        pg_check_symbol("LBusy;::main", true, "LBusy:::main"); /* no '/', 'L' stays */
        /* JS regexps: quotes are deleted as the reference does, '(' cut */
        pg_check_symbol("RegExp:[&<>\"']", false, "RegExp:[&<>]");
        pg_check_symbol("?Bar(?:/[\\d.]+|[ \\w.]*)", false, "?Bar");
        /* names never become empty */
        pg_check_symbol("\"\"", false, "[unknown]");
        pg_check_symbol("(anonymous namespace)", false, "(anonymous namespace)");
}

static void test_fold_frame_separators(void **state)
{
        struct pg_buf b = PG_BUF_INIT;
        (void) state;
        pg_fold_append_frame(&b, "a;b\nc\rd", 7, PG_FRAME_KERNEL);
        assert_string_equal(b.ptr, "a:b c d_[k]");
        pg_buf_reset(&b);
        /* NUL, ESC, tab and DEL never reach folded text (C strings, XML) */
        pg_fold_append_frame(&b, "x\0y\x1b[1m\tz\x7f", 10, PG_FRAME_USER);
        assert_int_equal(b.len, 10);
        assert_string_equal(b.ptr, "x y [1m z ");
        pg_buf_reset(&b);
        pg_fold_append_frame(&b, "caf\xc3\xa9\xff", 6, PG_FRAME_JIT);
        assert_string_equal(b.ptr, "caf\xc3\xa9\xef\xbf\xbd_[j]");
        pg_buf_reset(&b);
        pg_fold_append_frame(&b, "", 0, PG_FRAME_INLINED);
        assert_string_equal(b.ptr, "[unknown]_[i]");
        pg_buf_release(&b);
}

static void pg_check_unresolved(const char *mod, const char *pc, enum pg_frame_kind k,
                                const char *want)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_fold_append_unresolved(&b, mod, mod ? strlen(mod) : 0, pc, pc ? strlen(pc) : 0, k);
        if (strcmp(b.ptr, want) != 0)
                fail_msg("unresolved(%s) = '%s', want '%s'", mod ? mod : "NULL", b.ptr, want);
        pg_buf_release(&b);
}

static void test_fold_unresolved(void **state)
{
        (void) state;
        pg_check_unresolved("/bin/dd", NULL, PG_FRAME_USER, "[dd]");
        pg_check_unresolved("[unknown]", NULL, PG_FRAME_USER, "[unknown]");
        pg_check_unresolved(NULL, NULL, PG_FRAME_USER, "[unknown]");
        pg_check_unresolved("[unknown]", "552f0000552f", PG_FRAME_USER, "[unknown <552f0000552f>]");
        /* tests/data/cases/10: single brackets for the kernel, the reference's double for vdso */
        pg_check_unresolved("[kernel.kallsyms]", NULL, PG_FRAME_KERNEL, "[kernel.kallsyms]_[k]");
        pg_check_unresolved("[vdso]", NULL, PG_FRAME_KERNEL, "[[vdso]]_[k]");
        pg_check_unresolved("[vdso]", "7fffa95fe250", PG_FRAME_USER, "[[vdso] <7fffa95fe250>]");
        /* tests/data/cases/05: ';' in a module name */
        pg_check_unresolved("/usr/lib64/libpthread-2.17.so;5d1f2a10", NULL, PG_FRAME_USER,
                            "[libpthread-2.17.so:5d1f2a10]");
}

static bool pg_kern(const char *m)
{
        return pg_fold_module_is_kernel(m, strlen(m));
}

static bool pg_jit(const char *m)
{
        return pg_fold_module_is_jit(m, strlen(m));
}

static void test_fold_module_kinds(void **state)
{
        (void) state;
        assert_true(pg_kern("[kernel.kallsyms]"));
        assert_true(pg_kern("[vdso]")); /* the reference's quirk, kept for its goldens */
        assert_true(pg_kern("/lib/modules/4.3.0-rc1-virtual/build/vmlinux"));
        assert_true(pg_kern("/usr/lib/debug/boot/vmlinux-6.1.0-test"));
        assert_true(pg_kern("/lib/modules/6.1.0-test/kernel/drivers/net/nicdrv.ko"));
        assert_true(pg_kern("/lib/modules/6.1.0/kernel/fs/xfs.ko.zst"));
        assert_true(pg_kern("bpf_prog_7d41a0c2e9f3b581_lb_main"));
        assert_false(pg_kern("[unknown]"));
        assert_false(pg_kern("/usr/lib/x86_64-linux-gnu/libc.so.6"));
        assert_false(pg_kern("/opt/app/vmlinux.py"));
        assert_false(pg_kern(""));
        assert_true(pg_jit("/tmp/perf-7001.map"));
        assert_true(pg_jit("/home/u/.debug/jit/java-jit-1/jitted-3242-33.so"));
        assert_false(pg_jit("/tmp/perf-.map"));
        assert_false(pg_jit("/usr/lib/libjvm.so"));
        assert_false(pg_jit("/x/jitted-12.so"));
}

static void pg_check_comm(const char *comm, enum pg_comm_mode m, const char *want)
{
        struct pg_buf b = PG_BUF_INIT;
        pg_fold_append_comm(&b, comm, strlen(comm), m);
        assert_string_equal(b.ptr, want);
        pg_buf_release(&b);
}

static void test_fold_comm_modes(void **state)
{
        (void) state;
        pg_check_comm("Media Worker", PG_COMM_KEEP, "Media_Worker");
        pg_check_comm("ecutor-thread-3", PG_COMM_NORMALIZE, "ecutor-thread-*");
        pg_check_comm("ksoftirqd/32", PG_COMM_NORMALIZE, "ksoftirqd/*");
        pg_check_comm("Net Recv Thread 2", PG_COMM_NORMALIZE, "Net_Recv_Thread_*");
        pg_check_comm("node-v011", PG_COMM_NORMALIZE, "node-v011"); /* digits after a letter */
        pg_check_comm("12", PG_COMM_NORMALIZE, "12");
        pg_check_comm("app", PG_COMM_NONE, "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fold_strip_offset),
                cmocka_unit_test(test_fold_params_cpp_templates),
                cmocka_unit_test(test_fold_params_other_languages),
                cmocka_unit_test(test_fold_frame_separators),
                cmocka_unit_test(test_fold_unresolved),
                cmocka_unit_test(test_fold_module_kinds),
                cmocka_unit_test(test_fold_comm_modes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
