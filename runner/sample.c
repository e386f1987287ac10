/*
 * sample.c - sampled call graphs of a benchmark (see sample.h): sampling
 * runs through runner/launch.h with per-CPU events and ring buffers
 * (runner/ringbuf.h), every record of a run buffered and sorted by time
 * (runner/records.h), then symbolized and folded (runner/symbolize.h).
 *
 * Invariants: a run that lost more than 1% of its samples is thrown away and
 * retried with buffers four times larger (up to 4096 pages, 3 retries, not
 * when the locked-memory limit already shrank them); the profile
 * holds only runs that were kept; the library never prints: problems become
 * one line per kind in @warnings.
 */
#include "runner/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <linux/perf_event.h>

#include "common/error.h"
#include "runner/control.h"
#include "runner/kallsyms.h"
#include "runner/launch.h"
#include "runner/offcpu.h"
#include "runner/records.h"
#include "runner/ringbuf.h"
#include "runner/symbolize.h"

#define PG_SAMPLE_MAX_PAGES 4096

/* Answer the benchmark's commands (when ctx->ctl is set), drain the buffers
 * and hand new executable mappings to the prefetcher. */
int pg_sample_drain(void *ctx)
{
        struct pg_sample_drain_ctx *c = ctx;
        struct pg_perf_record rec;
        int error = 0;

        if (c->ctl) {
                error = pg_control_poll(c->ctl);
                *c->ctl_slot = c->ctl->ctl_rd;
        }
        pg_sampling_drain(c->smp, c->log);
        for (; c->scanned < c->log->nrefs; c->scanned++) {
                const struct pg_record_ref *ref = &c->log->refs[c->scanned];
                const unsigned char *p = c->log->arena + ref->offset;
                uint32_t type;

                memcpy(&type, p, 4);
                if (type != PERF_RECORD_MMAP2 ||
                    pg_perf_record_decode(p, ref->len, &c->smp->fmt, &rec) < 0 ||
                    !(rec.u.mmap.prot & 0x4))
                        continue;
                pg_symbolizer_prefetch(c->sym, rec.u.mmap.filename, rec.u.mmap.filename_len);
        }
        return error;
}

/* Samples and lost samples in a run's log, for the retry decision. */
static void pg_log_count(const struct pg_record_log *log, uint64_t *samples, uint64_t *lost)
{
        *samples = 0;
        *lost = 0;
        for (size_t i = 0; i < log->nrefs; i++) {
                const unsigned char *rec = log->arena + log->refs[i].offset;
                struct perf_event_header h;

                memcpy(&h, rec, sizeof(h));
                if (h.type == PERF_RECORD_SAMPLE) {
                        (*samples)++;
                } else if (h.type == PERF_RECORD_LOST && log->refs[i].len >= 24) {
                        uint64_t n;

                        memcpy(&n, rec + 16, 8);
                        *lost += n;
                }
        }
}

void pg_sample_export(const struct pg_symbolizer *sym, const struct pg_sampling_cfg *cfg,
                      bool cycles, bool exclude_kernel, uint64_t runs, struct pg_profile *out)
{
        const struct pg_symbolize_stats *st = pg_symbolizer_stats(sym);

        free(out->event);
        free(out->call_graph);
        out->present = true;
        out->event = pg_xstrdup(cycles ? "cycles" : "cpu-clock");
        out->frequency_hz = cfg->freq_hz;
        out->call_graph = pg_xstrdup(cfg->dwarf ? "dwarf" : "fp");
        out->samples = st->samples;
        out->lost = st->lost;
        out->throttled = st->throttled;
        out->truncated = st->truncated;
        out->frames = st->frames;
        out->unresolved = st->unresolved;
        out->runs = runs;
        out->kernel = !exclude_kernel && pg_kallsyms_shown(NULL);
        pg_symbolizer_export(sym, out);
}

/* Whether a sampling run's exit (@rc from pg_sample_run_once(), @ex) is a
 * failure of the benchmark; sets the message. */
int pg_sample_judge(const struct pg_sample_opts *o, int rc, const struct pg_exit *ex)
{
        if (rc < 0)
                return rc;
        if (ex->interrupted)
                return pg_error_set(PG_EINTR, "interrupted while sampling '%s'", o->argv[0]);
        if (ex->timed_out)
                return pg_error_set(PG_EMEASURE,
                                    "benchmark '%s' timed out after %.1f s while sampling; raise "
                                    "the timeout or shorten the benchmark",
                                    o->argv[0], (double) o->timeout_ns / 1e9);
        if (!WIFEXITED(ex->status) || WEXITSTATUS(ex->status) != 0)
                return pg_error_set(PG_EMEASURE, "benchmark '%s' %s while sampling", o->argv[0],
                                    pg_describe_status(ex->status));
        return 0;
}

int pg_sample_run_once(const struct pg_sample_opts *o, const struct pg_sampling_cfg *cfg,
                       struct pg_sampling *smp, struct pg_record_log *log,
                       struct pg_symbolizer *sym, struct pg_exit *ex)
{
        struct pg_launch_opts lo = { .argv = o->argv,
                                     .cwd = o->cwd,
                                     .env = o->env,
                                     .log_fd = o->log_fd,
                                     .cpus = o->cpus,
                                     .ncpus = o->ncpus };
        struct pg_child c;
        struct pg_control ctl;
        struct pg_sample_drain_ctx ctx = { smp, log, sym, 0, &ctl, NULL };
        pid_t pid;
        int *fds = NULL, rc;

        memset(ex, 0, sizeof(*ex));
        if ((rc = pg_control_open(&ctl, !o->roi)) < 0)
                return rc;
        lo.ctl_fds = ctl.child_fds;
        rc = pg_launch_prepare(&c, &lo);
        if (rc < 0) {
                pg_control_close(&ctl);
                return rc;
        }
        pid = c.pid; /* c.pid is -1 once reaped */
        rc = pg_sampling_open(smp, c.pid, cfg);
        if (rc < 0) {
                pg_launch_cancel(&c);
                pg_control_close(&ctl);
                return rc;
        }
        if (sym && !smp->exclude_kernel) /* sym: NULL when only tracepoints are read */
                pg_symbolizer_kernel_expected(sym);
        /* tracepoints record the whole run: the markers switch nothing */
        pg_control_set_targets(&ctl, smp->fds, cfg->ntracepoints ? 0 : smp->n);
        rc = pg_launch_start(&c, o->argv[0]);
        if (rc < 0)
                goto done;
        pg_control_start(&ctl, c.start_ns);
        fds = pg_xcalloc(smp->n + 1, sizeof(int));
        for (size_t i = 0; i < smp->n; i++)
                fds[i] = smp->fds[i];
        fds[smp->n] = ctl.ctl_rd;
        ctx.ctl_slot = &fds[smp->n];
        rc = pg_launch_wait(&c, o->timeout_ns, fds, smp->n + 1, pg_sample_drain, &ctx, ex);
        ctx.ctl = NULL;
        if (pg_control_finish(&ctl, pg_now_ns()) < 0 && rc == 0)
                rc = PG_EIO;
        pg_sample_drain(&ctx);
done:
        ex->pid = pid;
        pg_control_close(&ctl);
        free(fds);
        return rc;
}

static const char *pg_sample_base(const char *path)
{
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

/* Most of the @unrooted frame-pointer stacks end in one file, and it is a
 * system library (under /lib or /usr/lib: Debian's libstdc++ thread
 * trampoline has no frame pointer), not the user's build. */
static bool pg_sample_system_stop(const struct pg_symbolize_stats *st, uint64_t unrooted)
{
        static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };

        if (!st->stop_module || st->stop_count * 2 <= unrooted)
                return false;
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                if (strncmp(st->stop_module, dirs[i], strlen(dirs[i])) == 0)
                        return true;
        return false;
}

void pg_sample_warnings(const char *what, bool live, enum pg_call_graph call_graph,
                        bool exclude_kernel, const struct pg_profile *p,
                        const struct pg_symbolize_stats *st, bool fell_back_user, struct pg_buf *w)
{
        if (w == NULL)
                return;
        if (p->samples == 0 && live)
                pg_buf_printf(w,
                              "no samples were taken of '%s': it used no CPU time while it was "
                              "recorded (samples count CPU time only; an idle or blocked "
                              "process has none); record it while it works, or for longer\n",
                              what);
        else if (p->samples == 0)
                pg_buf_printf(w,
                              "no samples were taken of '%s': it ran too briefly to be sampled "
                              "at %llu Hz; make it run longer (about 1 s of CPU time gives "
                              "1000 samples at 999 Hz) or raise --freq\n",
                              what, (unsigned long long) p->frequency_hz);
        if (p->lost > 0)
                pg_buf_printf(w,
                              "%llu samples were lost (%.1f%%): the sampling buffers filled "
                              "faster than perfgate drained them, so busy phases are "
                              "under-represented; lower --freq or raise 'ulimit -l'\n",
                              (unsigned long long) p->lost,
                              100.0 * (double) p->lost / (double) (p->lost + p->samples));
        if (p->throttled > 0)
                pg_buf_printf(w,
                              "the kernel throttled sampling %llu times (interrupt rate too "
                              "high); lower --freq\n",
                              (unsigned long long) p->throttled);
        /* a chain cut now and then (1 of 2000 samples) moves no share: warn
         * from 1% on; the count stays in the result (docs/result-format.md) */
        if (p->truncated > 0 && p->truncated * 100 >= p->samples)
                pg_buf_printf(w,
                              "%llu of %llu samples (%.1f%%) had call chains cut at "
                              "kernel.perf_event_max_stack; they are rooted under "
                              "'[truncated]' (as root: sysctl kernel.perf_event_max_stack=1024)\n",
                              (unsigned long long) p->truncated, (unsigned long long) p->samples,
                              100.0 * (double) p->truncated / (double) p->samples);
        if (st->frames >= 20 && st->unresolved * 2 > st->frames)
                pg_buf_printf(w,
                              "%.0f%% of the sampled frames have no function name: build the "
                              "benchmark with -g and -fno-omit-frame-pointer, use "
                              "--call-graph dwarf, or install its debuginfo (--debug-dir)\n",
                              100.0 * (double) st->unresolved / (double) st->frames);
        else if (call_graph == PG_CALL_GRAPH_FP && p->samples >= 20 &&
                 (p->samples - p->truncated) > 0 && st->rooted * 2 < p->samples - p->truncated &&
                 pg_sample_system_stop(st, p->samples - p->truncated - st->rooted))
                pg_buf_printf(w,
                              "only %.0f%% of the stacks reach main or a thread entry: most "
                              "chains stop in %s, a system library built without frame "
                              "pointers (your code's frames are there); use --call-graph "
                              "dwarf to unwind through it\n",
                              100.0 * (double) st->rooted / (double) (p->samples - p->truncated),
                              pg_sample_base(st->stop_module));
        else if (call_graph == PG_CALL_GRAPH_FP && p->samples >= 20 &&
                 (p->samples - p->truncated) > 0 && st->rooted * 2 < p->samples - p->truncated)
                pg_buf_printf(w,
                              "only %.0f%% of the stacks reach main or a thread entry: frame "
                              "pointers are missing; build with -fno-omit-frame-pointer "
                              "-mno-omit-leaf-frame-pointer, or use --call-graph dwarf\n",
                              100.0 * (double) st->rooted / (double) (p->samples - p->truncated));
        if (st->rejected_debug)
                pg_buf_printf(w,
                              "debug file '%s' belongs to another build (its CRC or build-id "
                              "does not match the binary that links to it); it was ignored, "
                              "so %s\n",
                              st->rejected_debug,
                              st->rejected_debug_symtab
                                  ? "that binary's functions are named from its own symbol "
                                    "table but have no source lines and no inlined frames"
                                  : "that binary's frames are unresolved (it has no symbol "
                                    "table of its own)");
        if (st->debug_lost)
                pg_buf_puts(w, st->debug_lost);
        if (st->jitdump_problem)
                pg_buf_printf(w, "%s\n", st->jitdump_problem);
        if (fell_back_user && !exclude_kernel)
                pg_buf_printf(w, "kernel frames were not recorded (perf_event_paranoid forbids "
                                 "them); stacks show user space only\n");
}

int pg_sample_check_freq(uint64_t freq_hz)
{
        FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
        unsigned long long max = 0;
        int n = f ? fscanf(f, "%llu", &max) : 0;

        if (f)
                fclose(f);
        if (n == 1 && max > 0 && freq_hz > max)
                return pg_error_set(
                    PG_EINPUT,
                    "--freq %llu is above kernel.perf_event_max_sample_rate (%llu), "
                    "the most samples per second this kernel takes; use --freq "
                    "%llu or less, or raise the limit: sudo sysctl "
                    "kernel.perf_event_max_sample_rate=%llu",
                    (unsigned long long) freq_hz, max, max, (unsigned long long) freq_hz);
        return 0;
}

/* What a sampling session keeps from one profile to the next. */
struct pg_sample_session {
        struct pg_symbolizer *sym;
        enum pg_call_graph call_graph;
        bool off_cpu;
        const char *debug_dir; /* borrowed, compared by address */
        /* what the events ended up with at the last run, the next run's start */
        bool known, exclude_kernel, cycles;
        size_t pages;
};

int pg_sample_session_new(struct pg_sample_session **out, const struct pg_sample_opts *o)
{
        struct pg_sample_session *ss = pg_xcalloc(1, sizeof(*ss));
        struct pg_symbolizer_opts so = { 0 };
        bool dwarf = o->call_graph == PG_CALL_GRAPH_DWARF;
        int rc;

        /* libdw would ask debuginfod servers (network) per module: never in a gate */
        unsetenv("DEBUGINFOD_URLS");
        so.debug_dir = o->debug_dir;
        so.dwarf = dwarf;
        so.kernel = true; /* kernel frames arrive only when exclude_kernel is off */
        so.regs_user_mask = dwarf ? PG_SAMPLE_REGS_USER_MASK : PG_SAMPLE_REGS_LEAF_MASK;
        so.weight_by_period = o->off_cpu;
        if ((rc = pg_symbolizer_new(&ss->sym, &so)) < 0) {
                free(ss);
                return rc;
        }
        ss->call_graph = o->call_graph;
        ss->off_cpu = o->off_cpu;
        ss->debug_dir = o->debug_dir;
        *out = ss;
        return 0;
}

void pg_sample_session_free(struct pg_sample_session *ss)
{
        if (ss == NULL)
                return;
        pg_symbolizer_free(ss->sym);
        free(ss);
}

int pg_sample_profile(const struct pg_sample_opts *o, struct pg_profile *out,
                      struct pg_buf *warnings)
{
        struct pg_sample_session *ss;
        int rc;

        if (o->argv == NULL || o->argv[0] == NULL)
                return pg_error_set(PG_EINPUT, "no benchmark command to sample");
        if ((rc = pg_sample_session_new(&ss, o)) < 0)
                return rc;
        rc = pg_sample_session_profile(ss, o, out, warnings);
        pg_sample_session_free(ss);
        return rc;
}

int pg_sample_session_profile(struct pg_sample_session *ss, const struct pg_sample_opts *o,
                              struct pg_profile *out, struct pg_buf *warnings)
{
        struct pg_sampling_cfg cfg = { 0 };
        struct pg_symbolizer *sym = ss->sym;
        struct pg_sampling smp = { 0 };
        struct pg_record_log log;
        struct pg_exit ex;
        const struct pg_symbolize_stats *st;
        uint64_t start_ns = pg_now_ns(), runs = 0, retries = 0;
        bool exclude_kernel = o->exclude_kernel, cycles = o->use_cycles;
        size_t pages = o->call_graph == PG_CALL_GRAPH_DWARF ? 256 : 64;
        int rc = 0;

        if (o->argv == NULL || o->argv[0] == NULL)
                return pg_error_set(PG_EINPUT, "no benchmark command to sample");
        if (o->call_graph != ss->call_graph || o->off_cpu != ss->off_cpu ||
            o->debug_dir != ss->debug_dir)
                return pg_error_set(PG_EINPUT, "a sampling session takes one call graph mode, "
                                               "event kind and debug directory");
        pg_record_log_init(&log);
        pg_symbolizer_clear_profile(sym);
        if (ss->known) {
                /* start from what the kernel granted last time: a refusal
                 * (kernel frames, cycles) or a buffer size is not retried */
                exclude_kernel = exclude_kernel || ss->exclude_kernel;
                cycles = cycles && ss->cycles;
                pages = ss->pages;
        }
        cfg.freq_hz = o->freq_hz ? o->freq_hz : 999;
        cfg.dwarf = o->call_graph == PG_CALL_GRAPH_DWARF;
        cfg.cpus = o->cpus;
        cfg.ncpus = o->ncpus;
        cfg.start_disabled = o->roi;
        cfg.off_cpu = o->off_cpu;
        if (o->off_cpu)
                exclude_kernel = false; /* a switch happens in the kernel */
        for (;;) {
                uint64_t run_samples, run_lost;

                cfg.use_cycles = cycles;
                cfg.exclude_kernel = exclude_kernel;
                cfg.data_pages = pages;
                pg_record_log_reset(&log);
                rc = pg_sample_run_once(o, &cfg, &smp, &log, sym, &ex);
                exclude_kernel = smp.exclude_kernel;
                cycles = smp.cycles;
                pages = smp.data_pages;
                pg_sampling_close(&smp);
                rc = pg_sample_judge(o, rc, &ex);
                if (rc < 0)
                        goto done;
                pg_log_count(&log, &run_samples, &run_lost);
                /* too small for this benchmark: retry larger, unless the
                 * locked-memory limit already made them smaller than asked */
                if (run_lost * 100 > run_samples + run_lost && pages == cfg.data_pages &&
                    pages < PG_SAMPLE_MAX_PAGES && retries < 3) {
                        pages *= 4;
                        retries++;
                        continue;
                }
                pg_record_log_sort(&log);
                if (o->off_cpu)
                        pg_offcpu_weigh(&log, &smp.fmt, NULL);
                pg_symbolizer_process(sym, &log, &smp.fmt);
                if (!o->off_cpu)
                        pg_symbolizer_end_run(sym);
                runs++;
                st = pg_symbolizer_stats(sym);
                if (o->progress) {
                        struct pg_symbolize_top top;

                        pg_symbolizer_top(sym, PG_SYMBOLIZE_TOP_MAX, &top);
                        o->progress(o->progress_ctx, runs, &top);
                }
                if (run_samples == 0 || st->samples >= o->min_samples || o->budget_ns == 0)
                        break;
                if (pg_now_ns() - start_ns >= o->budget_ns || (o->max_runs && runs >= o->max_runs))
                        break;
                if (pg_launch_interrupted()) {
                        rc = pg_error_set(PG_EINTR, "interrupted while sampling '%s'", o->argv[0]);
                        goto done;
                }
        }
        st = pg_symbolizer_stats(sym);
        pg_sample_export(sym, &cfg, cycles, exclude_kernel, runs, out);
        if (o->off_cpu) {
                /* weights are ns: "samples" is their sum (result.h); the
                 * event is the switch, sampled at every one */
                free(out->event);
                out->event = pg_xstrdup("context-switches");
                out->frequency_hz = 0;
                pg_profile_clear_addrs(out);
                out->samples = 0;
                for (size_t i = 0; i < out->nstacks; i++)
                        out->samples += out->stacks[i].count;
                if (out->samples == 0 && warnings)
                        pg_buf_printf(warnings,
                                      "no thread of '%s' blocked (no voluntary context switch "
                                      "was followed by a switch-in): the off-CPU profile is "
                                      "empty\n",
                                      o->argv[0]);
        } else {
                pg_sample_warnings(o->argv[0], false, o->call_graph, o->exclude_kernel, out, st,
                                   exclude_kernel && !o->exclude_kernel, warnings);
        }
        ss->known = true;
        ss->exclude_kernel = exclude_kernel;
        ss->cycles = cycles;
        ss->pages = pages;
done:
        pg_record_log_release(&log);
        return rc;
}
