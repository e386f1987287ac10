/*
 * test_sample.c - sampled call graphs of real processes (CMake-built
 * fixtures, -O1 -g -fno-omit-frame-pointer unless named otherwise), recorded
 * with cpu-clock at 999 Hz through pg_sample_profile(). Assertions are on
 * folded frame names, never on addresses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baselines/result.h"
#include "common/error.h"
#include "runner/launch.h"
#include "runner/ringbuf.h"
#include "runner/sample.h"
#include "runner/symbolize.h"
#include "tests/util/testutil.h"

struct run {
        struct pg_profile p;
        struct pg_buf warnings;
        int rc;
};

static void run_profile_at(struct run *r, char *const *argv, enum pg_call_graph cg,
                           const char *debug_dir, uint64_t min_samples, uint64_t budget_ns,
                           unsigned freq_hz)
{
        struct pg_sample_opts o = { .argv = argv,
                                    .freq_hz = freq_hz,
                                    .call_graph = cg,
                                    .min_samples = min_samples,
                                    .budget_ns = budget_ns,
                                    .timeout_ns = 20000000000ULL,
                                    .debug_dir = debug_dir };

        memset(r, 0, sizeof(*r));
        pg_buf_init(&r->warnings);
        r->rc = pg_sample_profile(&o, &r->p, &r->warnings);
}

static void run_profile(struct run *r, char *const *argv, enum pg_call_graph cg,
                        const char *debug_dir, uint64_t min_samples, uint64_t budget_ns)
{
        run_profile_at(r, argv, cg, debug_dir, min_samples, budget_ns, 999);
}

static void run_release(struct run *r)
{
        pg_profile_release(&r->p);
        pg_buf_release(&r->warnings);
}

/* @frag occurs in @key followed by ';' or the end (a whole frame sequence) */
static bool has_path(const char *key, const char *frag)
{
        for (const char *p = strstr(key, frag); p; p = strstr(p + 1, frag)) {
                char after = p[strlen(frag)];

                if ((p == key || p[-1] == ';' || frag[0] == ';') && (after == '\0' || after == ';'))
                        return true;
        }
        return false;
}

static uint64_t count_with(const struct pg_profile *p, const char *frag)
{
        uint64_t n = 0;

        for (size_t i = 0; i < p->nstacks; i++)
                if (has_path(p->stacks[i].frames, frag))
                        n += p->stacks[i].count;
        return n;
}

static void dump(const struct run *r)
{
        for (size_t i = 0; i < r->p.nstacks && i < 20; i++)
                fprintf(stderr, "  %s %llu\n", r->p.stacks[i].frames,
                        (unsigned long long) r->p.stacks[i].count);
        fprintf(stderr, "  warnings: %s\n", r->warnings.ptr);
}

static void test_call_path(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_callpath"), NULL };
        struct run r;
        uint64_t under;

        (void) state;
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        if (r.rc < 0)
                fail_msg("%s", pg_error_last());
        assert_true(r.p.present);
        assert_string_equal(r.p.call_graph, "fp");
        assert_true(strcmp(r.p.event, "cpu-clock") == 0 || strcmp(r.p.event, "cycles") == 0);
        assert_int_equal(r.p.frequency_hz, 999);
        assert_int_equal(r.p.runs, 1);
        assert_true(r.p.samples >= 50);
        under = count_with(&r.p, ";main;outer;inner");
        if (under * 10 < r.p.samples * 9)
                dump(&r);
        assert_true(under * 10 >= r.p.samples * 9);
        /* comm first */
        for (size_t i = 0; i < r.p.nstacks; i++)
                assert_true(strncmp(r.p.stacks[i].frames, "sample_callpat", 14) == 0);
        run_release(&r);
}

/* Pinned to one CPU: events are opened on that CPU only, and all samples come.
 * Long enough that start-up (ld.so, its page faults: about 5 samples on a
 * loaded machine) stays under a tenth: 100M rounds gave 43 of 49 there. */
static void test_pinned(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_callpath"), "400000000", NULL };
        static const int cpu0[] = { 0 };
        struct pg_sample_opts o = { .argv = argv, .freq_hz = 999, .cpus = cpu0, .ncpus = 1 };
        struct run r;

        (void) state;
        memset(&r, 0, sizeof(r));
        pg_buf_init(&r.warnings);
        assert_int_equal(pg_sample_profile(&o, &r.p, &r.warnings), 0);
        assert_true(r.p.samples > 10);
        if (count_with(&r.p, ";main;outer;inner") * 10 < r.p.samples * 9)
                dump(&r);
        assert_true(count_with(&r.p, ";main;outer;inner") * 10 >= r.p.samples * 9);
        run_release(&r);
}

static void test_repeat_until_min_samples(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_callpath"), "40000000", NULL };
        struct run r;

        (void) state;
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 120, 20000000000ULL);
        assert_int_equal(r.rc, 0);
        assert_true(r.p.runs > 1);
        assert_true(r.p.samples >= 120);
        run_release(&r);
}

static void test_threads(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_threads"), NULL };
        struct run r;
        uint64_t worker = 0, main_spin = 0;

        (void) state;
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        for (size_t i = 0; i < r.p.nstacks; i++) {
                const char *k = r.p.stacks[i].frames;

                if (has_path(k, ";worker_spin")) {
                        assert_true(strncmp(k, "worker;", 7) == 0); /* the thread's comm */
                        worker += r.p.stacks[i].count;
                }
                if (has_path(k, ";main_spin")) {
                        assert_true(strncmp(k, "sample_threads;", 15) == 0);
                        main_spin += r.p.stacks[i].count;
                }
        }
        if (worker == 0 || main_spin == 0)
                dump(&r);
        assert_true(worker > 0);
        assert_true(main_spin > 0);
        run_release(&r);
}

static void test_fork_exec(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_forkexec"), NULL, NULL };
        struct run r;
        uint64_t child = 0;

        (void) state;
        argv[1] = strdup(pg_test_fixture("sample_child"));
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        for (size_t i = 0; i < r.p.nstacks; i++)
                if (strncmp(r.p.stacks[i].frames, "sample_child;", 13) == 0 &&
                    has_path(r.p.stacks[i].frames, ";main;child_hot"))
                        child += r.p.stacks[i].count;
        if (child * 10 < r.p.samples * 8)
                dump(&r);
        assert_true(child * 10 >= r.p.samples * 8);
        free(argv[1]);
        run_release(&r);
}

static void test_dwarf_recovers_main(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_nofp"), NULL };
        struct run fp, dw;
        uint64_t hot_fp, main_fp, hot_dw, main_dw;

        (void) state;
        run_profile(&fp, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        run_profile(&dw, argv, PG_CALL_GRAPH_DWARF, NULL, 0, 0);
        assert_int_equal(fp.rc, 0);
        assert_int_equal(dw.rc, 0);
        assert_string_equal(dw.p.call_graph, "dwarf");
        hot_fp = count_with(&fp.p, ";hot_leaf");
        main_fp = count_with(&fp.p, ";main;mid;hot_leaf");
        hot_dw = count_with(&dw.p, ";hot_leaf");
        main_dw = count_with(&dw.p, ";main;mid;hot_leaf");
        if (main_dw * 10 < dw.p.samples * 9)
                dump(&dw);
        assert_true(hot_fp > 0 && hot_dw > 0);
        assert_true(main_fp * 2 < hot_fp);             /* fp cannot get past mid */
        assert_true(main_dw * 10 >= dw.p.samples * 9); /* dwarf reaches main */
        assert_true(has_path(dw.p.stacks[0].frames, "_start") || count_with(&dw.p, ";_start") > 0);
        /* the fp profile says why its stacks are short */
        assert_non_null(strstr(fp.warnings.ptr, "--call-graph dwarf"));
        run_release(&fp);
        run_release(&dw);
}

static void test_stripped_and_debuginfo(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_stripped"), NULL };
        char *dbg = NULL;
        struct run r;

        (void) state;
        argv[0] = strdup(pg_test_fixture("sample_stripped"));
        dbg = strdup(pg_test_fixture("debugroot"));
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        assert_true(count_with(&r.p, "[sample_stripped]") * 10 >= r.p.samples * 9);
        assert_int_equal(count_with(&r.p, ";strip_leaf"), 0);
        assert_non_null(strstr(r.warnings.ptr, "debuginfo"));
        run_release(&r);

        run_profile(&r, argv, PG_CALL_GRAPH_FP, dbg, 0, 0);
        assert_int_equal(r.rc, 0);
        if (count_with(&r.p, ";main;strip_outer;strip_leaf") * 10 < r.p.samples * 9)
                dump(&r);
        assert_true(count_with(&r.p, ";main;strip_outer;strip_leaf") * 10 >= r.p.samples * 9);
        run_release(&r);
        free(argv[0]);
        free(dbg);
}

/* Profile @fixture, whose .gnu_debuglink target (@fixture.debug) holds the
 * decoy's debug info: it runs, the target is refused with a warning naming
 * it, and no frame takes a decoy name. */
static void run_refused_link(struct run *r, const char *fixture)
{
        char *argv[] = { strdup(pg_test_fixture(fixture)), NULL };
        char *said = pg_xasprintf("%s.debug' belongs to another build", fixture);

        run_profile(r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r->rc, 0);
        for (size_t i = 0; i < r->p.nstacks; i++)
                assert_null(strstr(r->p.stacks[i].frames, "decoy"));
        assert_non_null(strstr(r->warnings.ptr, said));
        free(said);
        free(argv[0]);
}

static void test_debuglink(void **state)
{
        char *argv[] = { NULL, NULL };
        struct run r;

        (void) state;
        argv[0] = strdup(pg_test_fixture("sample_debuglink"));
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        assert_true(count_with(&r.p, ";main;strip_outer;strip_leaf") * 10 >= r.p.samples * 9);
        run_release(&r);
        free(argv[0]);

        /* case 36: a debuglink target from another build is refused, never used */
        run_refused_link(&r, "sample_wronglink");
        assert_true(count_with(&r.p, "[sample_wronglink]") > 0);
        assert_non_null(strstr(r.warnings.ptr, "frames are unresolved (it has no symbol table"));
        run_release(&r);

        /* the same refused target beside a `strip -g` binary: its own symbol
         * table names the functions, so the warning names what is lost (the
         * lines and inlined frames), not "unresolved" */
        run_refused_link(&r, "sample_gwronglink");
        assert_true(count_with(&r.p, ";main;strip_outer;strip_leaf") * 10 >= r.p.samples * 9);
        assert_non_null(strstr(r.warnings.ptr, "functions are named from its own symbol table but "
                                               "have no source lines and no inlined frames"));
        assert_null(strstr(r.warnings.ptr, "unresolved"));
        {
                const struct pg_fn_addrs *f = pg_profile_find_addrs(&r.p, "strip_leaf");

                assert_true(f == NULL || f->nlines == 0); /* the lines are lost */
        }
        run_release(&r);

        /* `strip -g` keeps the symbol table, so libdwfl looks for the
         * debuglink target only when DWARF is asked for: that target is
         * this build's, used for the lines, and not called another's */
        argv[0] = strdup(pg_test_fixture("sample_gdebuglink"));
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        assert_true(count_with(&r.p, ";main;strip_outer;strip_leaf") * 10 >= r.p.samples * 9);
        if (r.warnings.ptr && strstr(r.warnings.ptr, "belongs to another build"))
                fail_msg("a matching debuglink target called another build's: %s", r.warnings.ptr);
        {
                const struct pg_fn_addrs *f = pg_profile_find_addrs(&r.p, "strip_leaf");

                assert_non_null(f);
                assert_true(f->nlines > 0); /* lines: only the debug file has them */
        }
        run_release(&r);
        free(argv[0]);
}

static void test_truncated(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_deep"), "300", NULL };
        struct run r;

        (void) state;
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        assert_true(r.p.truncated > 0);
        assert_true(r.p.truncated * 10 >= r.p.samples * 8);
        for (size_t i = 0; i < r.p.nstacks; i++) {
                size_t recs = 0;

                for (const char *q = strstr(r.p.stacks[i].frames, ";rec"); q;
                     q = strstr(q + 1, ";rec"))
                        recs++;
                /* a chain of 100+ rec frames was cut: it must not pose as a root */
                if (recs >= 100)
                        assert_true(
                            strncmp(strchr(r.p.stacks[i].frames, ';'), ";[truncated];", 13) == 0);
        }
        assert_non_null(strstr(r.warnings.ptr, "perf_event_max_stack"));
        run_release(&r);
}

static void test_jit_map(void **state)
{
        const char *dir = pg_test_sandbox();
        char pidfile[4096], map[64];
        char *argv[] = { (char *) pg_test_fixture("sample_jit"), pidfile, NULL };
        char *pid;
        struct run r;

        (void) state;
        snprintf(pidfile, sizeof(pidfile), "%s/jit.pid", dir);
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        pid = pg_test_read(pidfile);
        snprintf(map, sizeof(map), "/tmp/perf-%d.map", atoi(pid));
        unlink(map);
        free(pid);
        assert_int_equal(r.rc, 0);
        if (count_with(&r.p, ";jit_loop_fn_[j]") * 10 < r.p.samples * 8)
                dump(&r);
        assert_true(count_with(&r.p, ";main;jit_loop_fn_[j]") * 10 >= r.p.samples * 8);
        run_release(&r);
        pg_test_sandbox_remove();
}

static void test_inline_vdso_kernel(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_inline_vdso"), NULL };
        struct run r;
        uint64_t kernel_frames = 0;

        (void) state;
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        if (count_with(&r.p, ";main;hot_inline;mix_[i]") == 0 ||
            count_with(&r.p, ";__vdso_clock_gettime") == 0)
                dump(&r);
        /* an always_inline callee shows as its own frame, marked _[i] */
        assert_true(count_with(&r.p, ";main;hot_inline;mix_[i]") > 0);
        /* the vDSO is named through perfgate's copy of its own vDSO */
        assert_true(count_with(&r.p, ";__vdso_clock_gettime") > 0);
        assert_int_equal(count_with(&r.p, "[vdso]"), 0);
        for (size_t i = 0; i < r.p.nstacks; i++)
                if (strstr(r.p.stacks[i].frames, "_[k]"))
                        kernel_frames += r.p.stacks[i].count;
        /* profile.kernel says whether kernel frames can be in the stacks */
        if (!r.p.kernel)
                assert_int_equal(kernel_frames, 0);
        run_release(&r);
}

static void test_cxx_demangled(void **state)
{
        char *argv[] = { NULL, NULL };
        struct run r;

        (void) state;
        argv[0] = strdup(pg_test_fixture("sample_cxx"));
        if (access(argv[0], X_OK) != 0) {
                fprintf(stderr, "skipped: no C++ compiler built the sample_cxx fixture\n");
                free(argv[0]);
                skip();
        }
        run_profile(&r, argv, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, 0);
        if (count_with(&r.p, ";main;ns::work") * 10 < r.p.samples * 5)
                dump(&r);
        /* both overloads fold into one frame; no mangled names anywhere */
        assert_true(count_with(&r.p, ";main;ns::work") * 10 >= r.p.samples * 5);
        assert_true(count_with(&r.p, ";main;ns::Acc<double>::add") > 0);
        for (size_t i = 0; i < r.p.nstacks; i++) {
                assert_null(strstr(r.p.stacks[i].frames, ";_Z"));
                assert_null(strstr(r.p.stacks[i].frames, "work("));
        }
        run_release(&r);
        free(argv[0]);
}

static void test_too_short(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_short"), NULL };
        struct run r;

        (void) state;
        /* 10 Hz: cpu-clock samples every 100 ms the task is on a CPU. The exec
         * and exit of this do-nothing static program cost about 1.1 ms of
         * task-clock here (perf stat), so at 999 Hz it was sampled now and
         * then; the zero-sample path under test is the same at any rate. */
        run_profile_at(&r, argv, PG_CALL_GRAPH_FP, NULL, 2000, 2000000000ULL, 10);
        assert_int_equal(r.rc, 0);
        assert_true(r.p.present);
        assert_int_equal(r.p.samples, 0);
        assert_int_equal(r.p.nstacks, 0);
        assert_int_equal(r.p.runs, 1); /* no point repeating a program that is never sampled */
        assert_non_null(strstr(r.warnings.ptr, "no samples"));
        run_release(&r);
}

/*
 * Unprivileged (an unused uid, perf_event_paranoid 2) with no locked-memory
 * allowance beyond perf_event_mlock_kb: opening with kernel frames fails
 * with EACCES and falls back to user-only stacks with a warning, and the
 * DWARF-mode buffers get EPERM from mmap and are shrunk until they fit.
 * The kernel counts that allowance per user across the whole machine, so
 * the uid is one no other process uses (not 65534, which a concurrent test
 * run may be using at the same moment).
 */
static void test_unprivileged(void **state)
{
        char bench[4096], fix[4096], reuid[32], regid[32];
        char *argv[] = { "prlimit", "--memlock=0:0", "setpriv", reuid,      regid, "--clear-groups",
                         bench,     "run",           "--dwarf", "--stacks", "--",  fix,
                         NULL };
        struct pg_run_out o;
        const char *box;
        char *copy;

        (void) state;
        if (getuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0 ||
            access("/usr/bin/prlimit", X_OK) != 0) {
                fprintf(stderr, "skipped: needs root, setpriv and prlimit to drop privileges\n");
                skip();
        }
        snprintf(reuid, sizeof(reuid), "--reuid=%ld", 3000000L + (long) getpid());
        snprintf(regid, sizeof(regid), "--regid=%ld", 3000000L + (long) getpid());
        /* that uid may not reach the build tree (a clone under /root): run copies */
        box = pg_test_sandbox();
        assert_int_equal(chmod(box, 0755), 0);
        copy = pg_test_copy_program(pg_test_fixture("pg-sample-bench"), box);
        snprintf(bench, sizeof(bench), "%s", copy);
        free(copy);
        copy = pg_test_copy_program(pg_test_fixture("sample_nofp"), box);
        snprintf(fix, sizeof(fix), "%s", copy);
        free(copy);
        pg_test_run(&o, NULL, argv);
        if (o.status != 0 || strstr(o.out.ptr, ";main;mid;hot_leaf") == NULL)
                fprintf(stderr, "status %d\nout: %s\nerr: %s\n", o.status, o.out.ptr, o.err.ptr);
        assert_int_equal(o.status, 0);
        assert_non_null(strstr(o.out.ptr, "sample_nofp;_start;__libc_start_main;"));
        assert_non_null(strstr(o.out.ptr, ";main;mid;hot_leaf"));
        assert_null(strstr(o.out.ptr, "_[k]"));
        assert_non_null(strstr(o.err.ptr, "kernel frames were not recorded"));
        pg_run_out_release(&o);
        pg_test_sandbox_remove();
}

/*
 * The lost-record path for real, deterministically: a DWARF sample (8 KiB
 * of user stack, PG_SAMPLE_STACK_USER_BYTES) is larger than a one-page ring
 * buffer, so the kernel drops every one, however fast the reader is, and
 * counts them in the buffer (kernel/events/ring_buffer.c,
 * __perf_output_handle_begin: rb->lost). It reports that count as a
 * PERF_RECORD_LOST only in front of the next record that fits in the same
 * buffer: here the benchmark's PERF_RECORD_EXIT. Benchmark and event are on
 * one CPU, so exit and drops share a buffer, and the buffer is read only
 * after the exit, so its exec-time records (COMM, MMAP2, under 2 KiB) leave
 * room for EXIT and LOST without any reader: nothing depends on how fast the
 * reader runs. cpu-clock at 999 Hz is a fixed period of 1.001 ms of the
 * task's CPU time (kernel/events/core.c, perf_swevent_init_hrtimer), so the
 * drops number about the benchmark's CPU milliseconds (wait4's rusage).
 */
static void test_lost_records(void **state)
{
        char *argv[] = { (char *) pg_test_fixture("sample_callpath"), "300000000", NULL };
        int cpu[1];
        struct pg_launch_opts lo = { .argv = argv, .cpus = cpu, .ncpus = 1 };
        struct pg_sampling_cfg cfg = {
                .freq_hz = 999, .dwarf = true, .data_pages = 1, .cpus = cpu, .ncpus = 1
        };
        struct pg_symbolizer_opts so = { .dwarf = true,
                                         .regs_user_mask = PG_SAMPLE_REGS_USER_MASK };
        struct pg_child c;
        struct pg_sampling smp;
        struct pg_record_log log;
        struct pg_exit ex;
        struct pg_symbolizer *sym;
        cpu_set_t allowed;
        uint64_t lost, cpu_ms;

        (void) state;
        /* the last CPU this process may use */
        assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
        cpu[0] = -1;
        for (int i = 0; i < CPU_SETSIZE; i++)
                if (CPU_ISSET(i, &allowed))
                        cpu[0] = i;
        assert_true(cpu[0] >= 0);
        pg_record_log_init(&log);
        assert_int_equal(pg_launch_prepare(&c, &lo), 0);
        assert_int_equal(pg_sampling_open(&smp, c.pid, &cfg), 0);
        assert_int_equal(smp.data_pages, 1);
        assert_int_equal(smp.n, 1);
        assert_int_equal(pg_launch_start(&c, argv[0]), 0);
        /* no reader while it runs */
        assert_int_equal(pg_launch_wait(&c, 0, NULL, 0, NULL, NULL, &ex), 0);
        assert_true(WIFEXITED(ex.status) && WEXITSTATUS(ex.status) == 0);
        pg_sampling_drain(&smp, &log);
        pg_record_log_sort(&log);
        assert_int_equal(pg_symbolizer_new(&sym, &so), 0);
        pg_symbolizer_process(sym, &log, &smp.fmt);
        lost = pg_symbolizer_stats(sym)->lost;
        cpu_ms = ((uint64_t) ex.ru.ru_utime.tv_sec + (uint64_t) ex.ru.ru_stime.tv_sec) * 1000 +
                 ((uint64_t) ex.ru.ru_utime.tv_usec + (uint64_t) ex.ru.ru_stime.tv_usec) / 1000;
        fprintf(stderr, "lost %llu samples in %llu ms of CPU on cpu %d\n",
                (unsigned long long) lost, (unsigned long long) cpu_ms, cpu[0]);
        assert_int_equal(pg_symbolizer_stats(sym)->samples, 0);
        assert_int_equal(pg_symbolizer_stats(sym)->malformed, 0);
        /* 300 M iterations are tens of ms of CPU on the fastest machine */
        assert_true(cpu_ms >= 20);
        /* every drop reported: about one per CPU ms (rusage's ticks and the
         * event's enabled time differ a little; a lost report would halve it) */
        assert_true(lost * 10 >= cpu_ms * 7);
        assert_true(lost <= cpu_ms * 13 / 10 + 5);
        pg_symbolizer_free(sym);
        pg_sampling_close(&smp);
        pg_record_log_release(&log);
}

static void test_errors(void **state)
{
        char *missing[] = { "/nonexistent/perfgate-bench", NULL };
        char *failing[] = { "/bin/sh", "-c", "exit 3", NULL };
        char *slow[] = { "/bin/sleep", "5", NULL };
        struct pg_sample_opts o = { .argv = slow, .timeout_ns = 200000000ULL };
        struct pg_profile p = { 0 };
        struct run r;

        (void) state;
        run_profile(&r, missing, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_true(r.rc == PG_ENOTFOUND || r.rc == PG_EMEASURE);
        assert_non_null(strstr(pg_error_last(), "perfgate-bench"));
        assert_false(r.p.present);
        run_release(&r);

        run_profile(&r, failing, PG_CALL_GRAPH_FP, NULL, 0, 0);
        assert_int_equal(r.rc, PG_EMEASURE);
        assert_non_null(strstr(pg_error_last(), "status 3"));
        assert_false(r.p.present);
        run_release(&r);

        assert_int_equal(pg_sample_profile(&o, &p, NULL), PG_EMEASURE);
        assert_non_null(strstr(pg_error_last(), "timed out"));

        o.argv = NULL;
        assert_int_equal(pg_sample_profile(&o, &p, NULL), PG_EINPUT);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_call_path),
                cmocka_unit_test(test_repeat_until_min_samples),
                cmocka_unit_test(test_pinned),
                cmocka_unit_test(test_threads),
                cmocka_unit_test(test_fork_exec),
                cmocka_unit_test(test_dwarf_recovers_main),
                cmocka_unit_test(test_stripped_and_debuginfo),
                cmocka_unit_test(test_debuglink),
                cmocka_unit_test(test_truncated),
                cmocka_unit_test(test_jit_map),
                cmocka_unit_test(test_inline_vdso_kernel),
                cmocka_unit_test(test_cxx_demangled),
                cmocka_unit_test(test_too_short),
                cmocka_unit_test(test_unprivileged),
                cmocka_unit_test(test_lost_records),
                cmocka_unit_test(test_errors),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
