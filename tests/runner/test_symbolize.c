/*
 * test_symbolize.c - names and bookkeeping: demangling rules (version
 * suffixes, C++ parameter lists, Rust hashes), perf-PID.map and kallsyms
 * parsing, and the symbolizer on hand-built record streams against a real
 * fixture binary: exec starts a new address space, fork copies it, comm per
 * thread, truncated chains, kernel and JIT frames, LOST/THROTTLE counting,
 * malformed records skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines/result.h"
#include "runner/demangle.h"
#include "runner/jitmap.h"
#include "runner/kallsyms.h"
#include "runner/symbolize.h"
#include "tests/util/testutil.h"
#include "tests/util/perfrec.h"

static void check_demangle(const char *in, const char *want)
{
        struct pg_buf b = PG_BUF_INIT;

        pg_demangle(&b, in);
        if (strcmp(b.ptr, want) != 0)
                fail_msg("demangle '%s': got '%s', want '%s'", in, b.ptr, want);
        pg_buf_release(&b);
}

static void test_demangle(void **state)
{
        (void) state;
        check_demangle("main", "main");
        check_demangle("clock_gettime@@GLIBC_2.17", "clock_gettime");
        check_demangle("memcpy@GLIBC_2.2.5", "memcpy");
        check_demangle("_ZN2ns1fEi", "ns::f");
        check_demangle("_ZN2ns1fEd", "ns::f"); /* overloads merge */
        check_demangle("_ZNK3Foo3barEv", "Foo::bar");
        check_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi",
                       "std::vector<int, std::allocator<int> >::push_back");
        check_demangle("_ZN3FooclEv", "Foo::operator()");
        check_demangle("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo");
        check_demangle("_ZN1r5outer5inner4work17hb7cc24c596dd3a57E", "r::outer::inner::work");
        check_demangle("_ZN2ns1fEi@@V1", "ns::f");
        check_demangle("_Znot_a_symbol", "_Znot_a_symbol");
        check_demangle("_R", "_R");
        /* perf's default flags: no return type, no parameters */
        check_demangle("_ZSt16__introsort_loopIPilN9__gnu_cxx5__ops15_Iter_less_iterEEvT_S4_T0_T1_",
                       "std::__introsort_loop<int*, long, __gnu_cxx::__ops::_Iter_less_iter>");
        check_demangle("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()");
        check_demangle("_ZNKSt5ctypeIcE8do_widenEc", "std::ctype<char>::do_widen");
        /* Rust v0 */
        check_demangle("_RNvCs1234_7mycrate3foo", "mycrate::foo");
}

static void test_jitmap(void **state)
{
        static const char text[] = "7f0000001000 40 jit_a\n"
                                   "0x7f0000002000 0x20 jit b with spaces\r\n"
                                   "garbage line\n"
                                   "zz 10 bad\n"
                                   "7f0000003000 10\n"
                                   "7f0000001010 8 jit_inner\n";
        struct pg_jitmap m = { 0 };

        (void) state;
        pg_jitmap_parse(&m, text, sizeof(text) - 1);
        assert_int_equal(m.n, 3);
        assert_string_equal(pg_jitmap_lookup(&m, 0x7f0000001000)->name, "jit_a");
        assert_string_equal(pg_jitmap_lookup(&m, 0x7f0000001014)->name, "jit_inner");
        assert_string_equal(pg_jitmap_lookup(&m, 0x7f000000103f)->name, "jit_a");
        assert_null(pg_jitmap_lookup(&m, 0x7f0000001040));
        assert_string_equal(pg_jitmap_lookup(&m, 0x7f000000201f)->name, "jit b with spaces");
        assert_null(pg_jitmap_lookup(&m, 0x7f0000000fff));
        pg_jitmap_release(&m);
        pg_jitmap_load(&m, "/nonexistent/perf-1.map");
        assert_false(m.loaded);
        assert_int_equal(m.n, 0);
}

static void test_kallsyms(void **state)
{
        const char *dir = pg_test_sandbox();
        char path[4096];
        struct pg_kallsyms k;

        (void) state;
        snprintf(path, sizeof(path), "%s/ks", dir);
        pg_test_write(path, "ffffffff81000000 T _stext\n"
                            "ffffffff81000100 t helper\n"
                            "ffffffff81000080 D some_data\n"
                            "ffffffff81000200 T mod_fn\t[mymod]\n");
        pg_kallsyms_load(&k, path);
        assert_true(pg_kallsyms_visible(&k));
        assert_int_equal(k.n, 3);
        assert_string_equal(pg_kallsyms_lookup(&k, 0xffffffff81000090), "_stext");
        assert_string_equal(pg_kallsyms_lookup(&k, 0xffffffff81000100), "helper");
        assert_string_equal(pg_kallsyms_lookup(&k, 0xffffffff81000300), "mod_fn");
        assert_null(pg_kallsyms_lookup(&k, 0xffffffff80000000));
        pg_kallsyms_release(&k);
        pg_test_write(path, "0000000000000000 T _stext\n0000000000000000 t helper\n");
        pg_kallsyms_load(&k, path);
        assert_false(pg_kallsyms_visible(&k));
        assert_null(pg_kallsyms_lookup(&k, 0xffffffff81000090));
        pg_kallsyms_release(&k);
        pg_test_sandbox_remove();
}

/* ---- hand-built record streams ---- */

static const struct pg_perf_format fmt = { PG_REC_FP_TYPE, 0, true };

static void end(struct pg_record_log *log, struct pg_rec *r, uint32_t pid, uint64_t time)
{
        pg_rec_put32x2(r, pid, pid);
        pg_rec_put64(r, time);
        pg_rec_put32x2(r, 0, 0);
        pg_rec_put64(r, 1);
        pg_rec_finish(r);
        pg_record_log_add(log, r->b, r->n, time);
}

static void rec_comm(struct pg_record_log *log, uint32_t pid, uint32_t tid, const char *comm,
                     bool exec, uint64_t t)
{
        struct pg_rec r;

        pg_rec_begin(&r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
        pg_rec_put32x2(&r, pid, tid);
        pg_rec_putstr(&r, comm);
        end(log, &r, pid, t);
}

static void rec_fork(struct pg_record_log *log, uint32_t pid, uint32_t ppid, uint32_t tid,
                     uint32_t ptid, uint64_t t)
{
        struct pg_rec r;

        pg_rec_begin(&r, PERF_RECORD_FORK, 0);
        pg_rec_put32x2(&r, pid, ppid);
        pg_rec_put32x2(&r, tid, ptid);
        pg_rec_put64(&r, t);
        end(log, &r, pid, t);
}

static void rec_mmap2(struct pg_record_log *log, uint32_t pid, uint64_t addr, uint64_t len,
                      const char *path, uint64_t t)
{
        struct pg_rec r;

        pg_rec_begin(&r, PERF_RECORD_MMAP2, 0);
        pg_rec_put32x2(&r, pid, pid);
        pg_rec_put64(&r, addr);
        pg_rec_put64(&r, len);
        pg_rec_put64(&r, 0);
        memset(r.b + r.n, 0, 24);
        r.n += 24;
        pg_rec_put32x2(&r, 5, 2);
        pg_rec_putstr(&r, path);
        end(log, &r, pid, t);
}

static void rec_sample(struct pg_record_log *log, uint32_t pid, uint32_t tid, const uint64_t *chain,
                       size_t nr, uint64_t t)
{
        struct pg_rec r;

        pg_rec_begin(&r, PERF_RECORD_SAMPLE, 0);
        pg_rec_put64(&r, 1);
        pg_rec_put64(&r, nr > 1 ? chain[1] : 0);
        pg_rec_put32x2(&r, pid, tid);
        pg_rec_put64(&r, t);
        pg_rec_put32x2(&r, 0, 0);
        pg_rec_put64(&r, 1001001);
        pg_rec_put64(&r, nr);
        for (size_t i = 0; i < nr; i++)
                pg_rec_put64(&r, chain[i]);
        pg_rec_finish(&r);
        pg_record_log_add(log, r.b, r.n, t);
}

static void rec_simple(struct pg_record_log *log, uint32_t type, uint64_t a, uint64_t b, uint64_t t)
{
        struct pg_rec r;

        pg_rec_begin(&r, type, 0);
        pg_rec_put64(&r, a);
        pg_rec_put64(&r, b);
        if (type == PERF_RECORD_THROTTLE)
                pg_rec_put64(&r, 0);
        end(log, &r, 0, t);
}

/* st_value of function @name in ELF file @path */
static uint64_t sym_addr(const char *path, const char *name)
{
        int fd = open(path, O_RDONLY);
        Elf *e;
        Elf_Scn *scn = NULL;
        uint64_t v = 0;

        elf_version(EV_CURRENT);
        assert_true(fd >= 0);
        e = elf_begin(fd, ELF_C_READ, NULL);
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                GElf_Shdr sh;
                Elf_Data *d;

                gelf_getshdr(scn, &sh);
                if (sh.sh_type != SHT_SYMTAB)
                        continue;
                d = elf_getdata(scn, NULL);
                for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
                        GElf_Sym s;

                        gelf_getsym(d, (int) i, &s);
                        if (strcmp(elf_strptr(e, sh.sh_link, s.st_name), name) == 0)
                                v = s.st_value;
                }
        }
        elf_end(e);
        close(fd);
        assert_true(v != 0);
        return v;
}

static uint64_t stack_count(const struct pg_profile *p, const char *key)
{
        for (size_t i = 0; i < p->nstacks; i++)
                if (strcmp(p->stacks[i].frames, key) == 0)
                        return p->stacks[i].count;
        return 0;
}

static void dump(const struct pg_profile *p)
{
        for (size_t i = 0; i < p->nstacks; i++)
                fprintf(stderr, "  %s %llu\n", p->stacks[i].frames,
                        (unsigned long long) p->stacks[i].count);
}

static void test_bookkeeping(void **state)
{
        const char *dir = pg_test_sandbox();
        char *bin = strdup(pg_test_fixture("sample_callpath"));
        const uint64_t base = 0x555555554000ULL, ubase = 0x7f0000000000ULL;
        uint64_t inner = base + sym_addr(bin, "inner"), outer = base + sym_addr(bin, "outer");
        uint64_t fp[] = { (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5 };
        uint64_t deep[] = { (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5, outer + 5,
                            outer + 5 };
        uint64_t kern[] = { (uint64_t) PERF_CONTEXT_KERNEL, 0xffffffff81000110ULL,
                            (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5 };
        uint64_t jit[] = { (uint64_t) PERF_CONTEXT_USER, ubase + 0x14, inner + 2 };
        /* a frame-pointer walk gone astray: a "return address" in no mapping,
         * then junk; 4 real frames = max_stack, yet not a truncated chain */
        uint64_t junk[] = { (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5, 0x1234567890ULL,
                            outer + 5 };
        /* the same with a return address no user code can have: also cut
         * there, and not counted as truncated (a process-exit stack of 11
         * frames was reported as cut at perf_event_max_stack) */
        uint64_t junk2[] = { (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5, 0x10, outer + 5 };
        struct pg_symbolizer_opts o = { .kernel = true, .max_stack = 4, .jitmap_dir = dir };
        struct pg_symbolizer *s;
        struct pg_record_log log;
        struct pg_profile p = { 0 };
        const struct pg_symbolize_stats *st;
        char ks[4096], map[4096];

        (void) state;
        snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
        pg_test_write(ks, "ffffffff81000100 T do_syscall_64\n");
        snprintf(map, sizeof(map), "%s/perf-300.map", dir);
        pg_test_write(map, "7f0000000010 10 jit_fn\n");
        o.kallsyms_path = ks;
        assert_int_equal(pg_symbolizer_new(&s, &o), 0);
        pg_record_log_init(&log);
        /* records deliberately added out of time order: sorting fixes it */
        rec_sample(&log, 100, 100, fp, 3, 30);
        rec_mmap2(&log, 100, base, 0x10000, bin, 20);
        rec_comm(&log, 100, 100, "bench", true, 10);
        rec_fork(&log, 200, 100, 200, 100, 40); /* a process: copies the maps */
        rec_sample(&log, 200, 200, fp, 3, 50);
        rec_fork(&log, 100, 100, 101, 100, 55); /* a thread: shares them */
        rec_comm(&log, 100, 101, "helper", false, 56);
        rec_sample(&log, 100, 101, fp, 3, 57);
        rec_sample(&log, 100, 100, deep, 5, 58); /* 4 real frames = max_stack */
        rec_sample(&log, 100, 100, kern, 5, 59);
        rec_sample(&log, 100, 100, junk, 5, 59);
        rec_sample(&log, 100, 100, junk2, 5, 59);
        rec_comm(&log, 200, 200, "other", true, 60); /* exec: the old maps are gone */
        rec_sample(&log, 200, 200, fp, 3, 70);
        rec_simple(&log, PERF_RECORD_LOST, 1, 5, 80);
        rec_simple(&log, PERF_RECORD_THROTTLE, 81, 1, 81);
        rec_comm(&log, 300, 300, "jitter", true, 90);
        rec_mmap2(&log, 300, base, 0x10000, bin, 91);
        rec_mmap2(&log, 300, ubase, 0x1000, "//anon", 92);
        rec_sample(&log, 300, 300, jit, 3, 93);
        pg_record_log_add(&log, "\x09\0\0\0\x04\0\0\0", 8, 95); /* malformed */
        pg_record_log_sort(&log);
        pg_symbolizer_process(s, &log, &fmt);
        pg_symbolizer_export(s, &p);
        st = pg_symbolizer_stats(s);
        if (stack_count(&p, "bench;outer;inner") != 4)
                dump(&p);
        assert_int_equal(stack_count(&p, "bench;outer;inner"), 4); /* junk cut off */
        assert_int_equal(stack_count(&p, "helper;outer;inner"), 1);
        assert_int_equal(stack_count(&p, "bench;[truncated];outer;outer;outer;inner"), 1);
        assert_int_equal(stack_count(&p, "bench;outer;inner;do_syscall_64_[k]"), 1);
        /* after exec the old maps are gone: the leaf is unknown, and the walk
         * stops at the first caller in no mapping */
        assert_int_equal(stack_count(&p, "other;[unknown]"), 1);
        assert_int_equal(stack_count(&p, "jitter;inner;jit_fn_[j]"), 1);
        assert_int_equal(st->samples, 9);
        assert_int_equal(st->truncated, 1);
        assert_int_equal(st->lost, 5);
        assert_int_equal(st->throttled, 1);
        assert_int_equal(st->malformed, 1);
        assert_true(st->kernel_frames);

        /* the address spaces of a run do not leak into the next run */
        pg_record_log_reset(&log);
        rec_sample(&log, 100, 100, fp, 3, 200);
        pg_symbolizer_process(s, &log, &fmt);
        pg_symbolizer_export(s, &p);
        assert_int_equal(stack_count(&p, "[unknown];[unknown]"), 1); /* no comm, no maps */
        assert_int_equal(stack_count(&p, "bench;outer;inner"), 4);   /* accumulated */

        pg_profile_release(&p);
        pg_record_log_release(&log);
        pg_symbolizer_free(s);
        free(bin);
        pg_test_sandbox_remove();
}

/* an MMAP2 record that carries the build-id of the mapped file (Linux 5.12+) */
static void rec_mmap2_bid(struct pg_record_log *log, uint32_t pid, uint64_t addr, uint64_t len,
                          const char *path, const uint8_t *bid, size_t bidlen, uint64_t t)
{
        struct pg_rec r;

        pg_rec_begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
        pg_rec_put32x2(&r, pid, pid);
        pg_rec_put64(&r, addr);
        pg_rec_put64(&r, len);
        pg_rec_put64(&r, 0);
        memset(r.b + r.n, 0, 24);
        r.b[r.n] = (uint8_t) bidlen;
        memcpy(r.b + r.n + 4, bid, bidlen);
        r.n += 24;
        pg_rec_put32x2(&r, 5, 2);
        pg_rec_putstr(&r, path);
        end(log, &r, pid, t);
}

/* Fold one sample of @chain in a process that mapped @path at @base; the key. */
static char *fold_one(const char *path, uint64_t base, const uint8_t *bid, size_t bidlen,
                      const uint64_t *chain, size_t nr, uint64_t *unresolved)
{
        struct pg_symbolizer_opts o = { .max_stack = 127 };
        struct pg_symbolizer *s;
        struct pg_record_log log;
        struct pg_profile p = { 0 };
        char *key;

        assert_int_equal(pg_symbolizer_new(&s, &o), 0);
        pg_record_log_init(&log);
        rec_comm(&log, 100, 100, "bench", true, 10);
        if (bid)
                rec_mmap2_bid(&log, 100, base, 0x10000, path, bid, bidlen, 20);
        else
                rec_mmap2(&log, 100, base, 0x10000, path, 20);
        rec_sample(&log, 100, 100, chain, nr, 30);
        pg_record_log_sort(&log);
        pg_symbolizer_process(s, &log, &fmt);
        pg_symbolizer_export(s, &p);
        assert_int_equal(p.nstacks, 1);
        key = p.stacks[0].frames;
        p.stacks[0].frames = NULL; /* kept: returned */
        pg_profile_release(&p);
        *unresolved = pg_symbolizer_stats(s)->unresolved;
        pg_record_log_release(&log);
        pg_symbolizer_free(s);
        return key;
}

/* The build-id of ELF file @path (its NT_GNU_BUILD_ID note). */
static size_t build_id_of(const char *path, uint8_t *out)
{
        int fd = open(path, O_RDONLY);
        Elf *e;
        const void *p = NULL;
        ssize_t n;

        elf_version(EV_CURRENT);
        assert_true(fd >= 0);
        e = elf_begin(fd, ELF_C_READ, NULL);
        n = dwelf_elf_gnu_build_id(e, &p);
        assert_true(n > 0 && n <= 20);
        memcpy(out, p, (size_t) n);
        elf_end(e);
        close(fd);
        return (size_t) n;
}

/*
 * Bad input never gives a wrong name: a mapped file that is not an ELF file,
 * an ELF file cut short, and a file replaced after the run (its build-id is
 * not the MMAP2 record's) are each named "[module]" and counted unresolved.
 */
/*
 * A stack reaches main when any frame is main, even when the frames outside
 * it have no name (__libc_start_call_main is a local symbol of libc, named
 * only with libc's debuginfo): such stacks must not count as cut short, or
 * `run` warns "frame pointers are missing" about a program built with them.
 */
static void test_rooted_past_unnamed_outer_frames(void **state)
{
        char *bin = strdup(pg_test_fixture("sample_callpath"));
        const uint64_t base = 0x555555554000ULL;
        uint64_t inner = base + sym_addr(bin, "inner"), outer = base + sym_addr(bin, "outer");
        uint64_t mainf = base + sym_addr(bin, "main");
        /* callers outside main: an address of the binary's mapping in no
         * function (its ELF header), as an unnamed libc frame would be */
        uint64_t chain[] = { (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5, mainf + 5,
                             base + 0x21 };
        struct pg_symbolizer_opts o = { 0 };
        struct pg_symbolizer *s;
        struct pg_record_log log;
        struct pg_profile p = { 0 };

        (void) state;
        assert_int_equal(pg_symbolizer_new(&s, &o), 0);
        pg_record_log_init(&log);
        rec_comm(&log, 100, 100, "bench", true, 10);
        rec_mmap2(&log, 100, base, 0x10000, bin, 20);
        rec_sample(&log, 100, 100, chain, 5, 30);
        pg_record_log_sort(&log);
        pg_symbolizer_process(s, &log, &fmt);
        pg_symbolizer_export(s, &p);
        if (stack_count(&p, "bench;[sample_callpath];main;outer;inner") != 1)
                dump(&p);
        assert_int_equal(stack_count(&p, "bench;[sample_callpath];main;outer;inner"), 1);
        assert_int_equal(pg_symbolizer_stats(s)->rooted, 1);
        pg_profile_release(&p);
        pg_record_log_release(&log);
        pg_symbolizer_free(s);
        free(bin);
}

static void test_bad_files(void **state)
{
        const char *dir = pg_test_sandbox();
        char *bin = strdup(pg_test_fixture("sample_callpath"));
        const uint64_t base = 0x555555554000ULL;
        uint64_t inner = base + sym_addr(bin, "inner"), outer = base + sym_addr(bin, "outer");
        uint64_t chain[] = { (uint64_t) PERF_CONTEXT_USER, inner + 2, outer + 5 };
        uint8_t bid[20], other[20];
        size_t bidlen = build_id_of(bin, bid);
        char path[4096], cmd[8192];
        uint64_t unres;
        char *key;

        (void) state;
        /* the real file, with its own build-id: named */
        key = fold_one(bin, base, bid, bidlen, chain, 3, &unres);
        assert_string_equal(key, "bench;outer;inner");
        assert_int_equal(unres, 0);
        free(key);

        /* replaced after the run: another build-id */
        memcpy(other, bid, bidlen);
        other[0] ^= 0xff;
        key = fold_one(bin, base, other, bidlen, chain, 3, &unres);
        assert_string_equal(key, "bench;[sample_callpath];[sample_callpath]");
        assert_int_equal(unres, 2);
        free(key);

        /* not an ELF file */
        snprintf(path, sizeof(path), "%s/notelf", dir);
        pg_test_write(path, "this is not an ELF file\n");
        key = fold_one(path, base, NULL, 0, chain, 3, &unres);
        assert_string_equal(key, "bench;[notelf];[notelf]");
        assert_int_equal(unres, 2);
        free(key);

        /* an ELF file cut after its first page: headers, no sections */
        snprintf(path, sizeof(path), "%s/cut", dir);
        snprintf(cmd, sizeof(cmd), "head -c 4096 '%s' > '%s'", bin, path);
        assert_int_equal(system(cmd), 0);
        key = fold_one(path, base, NULL, 0, chain, 3, &unres);
        assert_null(strstr(key, "inner"));
        assert_null(strstr(key, "outer"));
        free(key);

        /* a file that cannot be opened */
        snprintf(path, sizeof(path), "%s/gone", dir);
        key = fold_one(path, base, NULL, 0, chain, 3, &unres);
        assert_string_equal(key, "bench;[gone];[gone]");
        assert_int_equal(unres, 2);
        free(key);
        free(bin);
        pg_test_sandbox_remove();
}

/*
 * A sample in a PLT stub is named as perf and objdump name it
 * ("strtoul@plt"), not "[module]" and not the symbol before it; objdump's
 * disassembly gives the stub's address.
 */
static void test_plt_stub(void **state)
{
        char *bin = strdup(pg_test_fixture("sample_callpath"));
        const uint64_t base = 0x555555554000ULL;
        uint64_t outer = base + sym_addr(bin, "outer"), stub = 0;
        char cmd[8192], line[512];
        FILE *p;
        uint64_t unres;
        char *key;

        (void) state;
        snprintf(cmd, sizeof(cmd), "objdump -d '%s'", bin);
        p = popen(cmd, "r");
        assert_non_null(p);
        while (fgets(line, sizeof(line), p))
                if (strstr(line, " <strtoul@plt>:"))
                        stub = strtoull(line, NULL, 16);
        pclose(p);
        assert_true(stub != 0);
        uint64_t chain[] = { (uint64_t) PERF_CONTEXT_USER, base + stub + 4, outer + 5 };
        key = fold_one(bin, base, NULL, 0, chain, 3, &unres);
        assert_string_equal(key, "bench;outer;strtoul@plt");
        assert_int_equal(unres, 0);
        free(key);
        free(bin);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_demangle),
                cmocka_unit_test(test_jitmap),
                cmocka_unit_test(test_kallsyms),
                cmocka_unit_test(test_bookkeeping),
                cmocka_unit_test(test_rooted_past_unnamed_outer_frames),
                cmocka_unit_test(test_bad_files),
                cmocka_unit_test(test_plt_stub),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
