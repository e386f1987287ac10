/*
 * test_kallsyms_cache.c - the per-user kallsyms cache (runner/kallsyms.h,
 * pg_kallsyms_load_cached): a table from the cache names every address of
 * the kernel's text and of each module's text as a fresh read of the file
 * does; an address anywhere else (a BPF program, an ftrace trampoline, a
 * module loaded since) is looked up in a fresh read; another boot_id or
 * another module list is not served from the cache; a cache file that is
 * garbage, writable by others, a symlink or a FIFO is not used (nor waited
 * on); the init text (_sinittext.._einittext) is served from the cache.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "runner/debugcache.h"
#include "runner/kallsyms.h"
#include "tests/util/testutil.h"

/* A kernel whose text is _stext.._etext, one module (mod_a) and a BPF program. */
static const char table_v1[] = "ffffffff81000000 T _stext\n"
                               "ffffffff81000000 T startup_64\n"
                               "ffffffff81000040 d some_data\n"
                               "ffffffff81000100 t helper\n"
                               "ffffffff81000200 W weak_fn\n"
                               "ffffffff81000300 T _etext\n"
                               "ffffffffc0100000 t mod_a_fn\t[mod_a]\n"
                               "ffffffffc0100080 T mod_a_last\t[mod_a]\n"
                               "ffffffffc0200000 t bpf_prog_1\t[bpf]\n";

/* The same boot and modules, later: a trampoline came, BPF programs came and went. */
static const char table_v2[] = "ffffffff81000000 T _stext\n"
                               "ffffffff81000000 T startup_64\n"
                               "ffffffff81000100 t helper\n"
                               "ffffffff81000200 W weak_fn\n"
                               "ffffffff81000300 T _etext\n"
                               "ffffffffc0100000 t mod_a_fn\t[mod_a]\n"
                               "ffffffffc0100080 T mod_a_last\t[mod_a]\n"
                               "ffffffffc0180000 t ftrace_trampoline\t[__builtin__ftrace]\n"
                               "ffffffffc0200000 t bpf_prog_3\t[bpf]\n"
                               "ffffffffc0200100 t bpf_prog_2\t[bpf]\n";

/* (a module whose name holds "bpf" does not make BPF's pseudo-module one) */
static const char modules_v1[] = "mod_a 16384 0 - Live 0xffffffffc0100000\n"
                                 "xbpf 4096 0 - Live 0xffffffffc0400000\n";

struct files {
        char dir[4096], kallsyms[4096 + 16], modules[4096 + 16], boot_id[4096 + 16],
            cache[4096 + 16];
        struct pg_kallsyms_src src;
};

static void files_init(struct files *f, const char *table, const char *modules, const char *boot)
{
        const char *dir = pg_test_sandbox();

        snprintf(f->dir, sizeof(f->dir), "%s", dir);
        snprintf(f->kallsyms, sizeof(f->kallsyms), "%s/kallsyms", dir);
        snprintf(f->modules, sizeof(f->modules), "%s/modules", dir);
        snprintf(f->boot_id, sizeof(f->boot_id), "%s/boot_id", dir);
        snprintf(f->cache, sizeof(f->cache), "%s/cache", dir);
        pg_test_write(f->kallsyms, table);
        pg_test_write(f->modules, modules);
        pg_test_write(f->boot_id, boot);
        f->src = (struct pg_kallsyms_src){ f->kallsyms, f->modules, f->boot_id, f->cache };
}

/* Load through the cache; whether the table came from it. */
static bool load(struct pg_kallsyms *k, const struct files *f)
{
        pg_kallsyms_load_cached(k, &f->src);
        return k->cached;
}

static void test_cached_names_and_fallback(void **state)
{
        struct files f;
        struct pg_kallsyms k;

        (void) state;
        files_init(&f, table_v1, modules_v1, "boot-1\n");
        assert_false(load(&k, &f)); /* nothing cached yet: read, then stored */
        pg_kallsyms_release(&k);
        assert_true(pg_test_exists(f.cache));
        /* the kernel's table changes without the key changing */
        pg_test_write(f.kallsyms, table_v2);
        assert_true(load(&k, &f));
        /* inside the kernel's and mod_a's text: from the cache (v1's names
         * equal v2's there); the cached table stays */
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffff81000050), "startup_64");
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffff81000250), "weak_fn");
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffffc0100010), "mod_a_fn");
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffffc0100080), "mod_a_last");
        assert_true(k.cached);
        /* past mod_a's last symbol: the trampoline that came since, from a fresh read */
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffffc0180010), "ftrace_trampoline");
        assert_false(k.cached);
        pg_kallsyms_release(&k);
        /* a BPF program's address is never served from the cache */
        assert_true(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffffc0200110), "bpf_prog_2");
        assert_false(k.cached);
        pg_kallsyms_release(&k);
        assert_true(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffffc0200000), "bpf_prog_3");
        assert_false(k.cached);
        pg_kallsyms_release(&k);
        /* below the kernel: no symbol, read in full */
        assert_true(load(&k, &f));
        assert_null(pg_kallsyms_find(&k, 0xffffffff80000000));
        pg_kallsyms_release(&k);
        pg_test_sandbox_remove();
}

static void test_key(void **state)
{
        struct files f;
        struct pg_kallsyms k;

        (void) state;
        files_init(&f, table_v1, modules_v1, "boot-1\n");
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        /* reference counts change without the symbols changing: still the key */
        pg_test_write(f.modules, "mod_a 16384 3 other, Live 0xffffffffc0100000\n"
                                 "xbpf 4096 1 - Live 0xffffffffc0400000\n");
        assert_true(load(&k, &f));
        pg_kallsyms_release(&k);
        /* another boot: a fresh read, which is stored */
        pg_test_write(f.kallsyms, "ffffffff91000000 T _stext\nffffffff91000100 T _etext\n");
        pg_test_write(f.boot_id, "boot-2\n");
        assert_false(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffff91000010), "_stext");
        pg_kallsyms_release(&k);
        assert_true(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffff91000010), "_stext");
        pg_kallsyms_release(&k);
        /* a module reloaded at another address */
        pg_test_write(f.kallsyms, table_v1);
        pg_test_write(f.modules, "mod_a 16384 0 - Live 0xffffffffc0300000\n");
        assert_false(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffffc0100010), "mod_a_fn");
        pg_kallsyms_release(&k);
        /* a kernel without modules (no /proc/modules): cached */
        unlink(f.modules);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_true(load(&k, &f));
        pg_kallsyms_release(&k);
        /* a module list that cannot be read: no cache */
        snprintf(f.modules, sizeof(f.modules), "%s/boot_id/x", f.dir);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        /* no boot_id: no cache */
        unlink(f.boot_id);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        pg_test_sandbox_remove();
}

static void test_unusable_files(void **state)
{
        struct files f;
        struct pg_kallsyms k;
        char target[4096 + 16], *text;
        struct stat st;

        (void) state;
        files_init(&f, table_v1, modules_v1, "boot-1\n");
        /* garbage: refused, removed, written again */
        pg_test_write(f.cache, "not a table\n");
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_true(load(&k, &f));
        pg_kallsyms_release(&k);
        /* a good file cut short */
        assert_int_equal(truncate(f.cache, 100), 0);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        /* writable by others */
        assert_int_equal(chmod(f.cache, 0666), 0);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_int_equal(stat(f.cache, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        /* a symlink: not read, the target left as it was, the link replaced */
        snprintf(target, sizeof(target), "%s/target", f.dir);
        pg_test_write(target, "kept\n");
        unlink(f.cache);
        assert_int_equal(symlink(target, f.cache), 0);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        text = pg_test_read(target);
        assert_string_equal(text, "kept\n");
        free(text);
        assert_int_equal(lstat(f.cache, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        pg_test_sandbox_remove();
}

/* The init text (_sinittext.._einittext, where start_kernel stays on the
 * boot CPU's idle stack in every system-wide profile) is served from the
 * cache too; a FIFO at the cache path does not block. */
static void test_init_text_and_fifo(void **state)
{
        struct files f;
        struct pg_kallsyms k;

        (void) state;
        files_init(&f,
                   "ffffffff81000000 T _stext\n"
                   "ffffffff81000100 t helper\n"
                   "ffffffff81000300 T _etext\n"
                   "ffffffff83000000 T _sinittext\n"
                   "ffffffff83000000 T start_kernel\n"
                   "ffffffff83000200 T _einittext\n",
                   "", "boot-1\n");
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_true(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffff83000010), "start_kernel");
        assert_true(k.cached);
        pg_kallsyms_release(&k);
        /* a FIFO: not used, not waited on */
        unlink(f.cache);
        assert_int_equal(mkfifo(f.cache, 0600), 0);
        assert_false(load(&k, &f));
        assert_string_equal(pg_kallsyms_find(&k, 0xffffffff81000110), "helper");
        pg_kallsyms_release(&k);
        pg_test_sandbox_remove();
}

/* Every text symbol of the live table inside the cached ranges, and one
 * byte below it, named from the cache as from a fresh read. */
static void test_live_same_names(void **state)
{
        struct files f;
        struct pg_kallsyms fresh, k;
        char *text;
        size_t checked = 0;

        (void) state;
        pg_kallsyms_load(&fresh, "/proc/kallsyms");
        if (!pg_kallsyms_visible(&fresh)) {
                pg_kallsyms_release(&fresh);
                skip(); /* addresses hidden from this user (kptr_restrict) */
        }
        pg_kallsyms_release(&fresh);
        /* the live file can change between reads (BPF): copy it */
        text = pg_test_read("/proc/kallsyms");
        files_init(&f, text, "", "");
        free(text);
        text = pg_test_read("/proc/sys/kernel/random/boot_id");
        pg_test_write(f.boot_id, text);
        free(text);
        if (access("/proc/modules", R_OK) == 0) {
                text = pg_test_read("/proc/modules");
                pg_test_write(f.modules, text);
                free(text);
        }
        pg_kallsyms_load(&fresh, f.kallsyms);
        assert_false(load(&k, &f));
        pg_kallsyms_release(&k);
        assert_true(load(&k, &f));
        assert_true(k.nranges >= 1);
        for (size_t i = 0; i < fresh.n; i++) {
                uint64_t a = fresh.syms[i].addr;

                for (uint64_t at = a - 1; at <= a; at++) {
                        bool inside = false;

                        for (size_t r = 0; r < k.nranges; r++)
                                inside |= k.ranges[r][0] <= at && at <= k.ranges[r][1];
                        if (!inside)
                                continue;
                        assert_string_equal(pg_kallsyms_find(&k, at),
                                            pg_kallsyms_lookup(&fresh, at));
                        assert_true(k.cached);
                        checked++;
                }
        }
        /* most of the table is the kernel's own text */
        assert_true(checked > fresh.n);
        pg_kallsyms_release(&k);
        pg_kallsyms_release(&fresh);
        pg_test_sandbox_remove();
}

static void test_off_switch(void **state)
{
        char dir[4096];
        const char *home = pg_test_sandbox();

        (void) state;
        setenv("XDG_CACHE_HOME", home, 1);
        unsetenv("PERFGATE_KALLSYMS_CACHE");
        assert_true(pg_cache_dir(NULL, "PERFGATE_KALLSYMS_CACHE", dir, sizeof(dir)));
        setenv("PERFGATE_KALLSYMS_CACHE", "0", 1);
        assert_false(pg_cache_dir(NULL, "PERFGATE_KALLSYMS_CACHE", dir, sizeof(dir)));
        unsetenv("PERFGATE_KALLSYMS_CACHE");
        pg_test_sandbox_remove();
}

int main(void)
{
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_cached_names_and_fallback),
                                            cmocka_unit_test(test_key),
                                            cmocka_unit_test(test_unusable_files),
                                            cmocka_unit_test(test_init_text_and_fifo),
                                            cmocka_unit_test(test_live_same_names),
                                            cmocka_unit_test(test_off_switch) };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
