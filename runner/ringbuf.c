/*
 * ringbuf.c - perf mmap ring buffers and per-CPU sampling events (see
 * ringbuf.h). Invariants: a ring buffer's tail only moves forward, and only
 * after the records up to it were handed to the callback; every fd opened
 * here is CLOEXEC and closed by pg_sampling_close().
 */
#include "runner/ringbuf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

/*
 * Map @data_pages (a power of two) data pages of perf event @fd.
 * Errors: PG_EPERM when the kernel refuses the locked memory (EPERM; the
 * caller may retry smaller), PG_ENOTSUP (EINVAL: e.g. an inherited per-task
 * event), PG_EIO otherwise.
 */
static int pg_ringbuf_map(struct pg_ringbuf *rb, int fd, size_t data_pages)
{
        long page = sysconf(_SC_PAGESIZE);
        struct perf_event_mmap_page *mp;

        memset(rb, 0, sizeof(*rb));
        rb->fd = fd;
        rb->map_bytes = (1 + data_pages) * (size_t) page;
        rb->base = mmap(NULL, rb->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (rb->base == MAP_FAILED) {
                int e = errno;

                rb->base = NULL;
                if (e == EPERM)
                        return pg_error_set(PG_EPERM,
                                            "cannot lock %zu KiB for a sampling buffer: %s",
                                            rb->map_bytes / 1024, strerror(e));
                if (e == EINVAL)
                        return pg_error_set(PG_ENOTSUP, "cannot map a sampling buffer: %s",
                                            strerror(e));
                return pg_error_set(PG_EIO, "cannot map a sampling buffer: %s", strerror(e));
        }
        mp = rb->base;
        /* data_offset/data_size exist since 4.1; older kernels: page, rest */
        rb->data =
            (unsigned char *) rb->base + (mp->data_offset ? mp->data_offset : (uint64_t) page);
        rb->data_size = mp->data_size ? mp->data_size : data_pages * (uint64_t) page;
        rb->scratch = pg_xmalloc(rb->data_size);
        return 0;
}

/* Unmap; safe on a zeroed or already unmapped buffer. Does not close fd. */
static void pg_ringbuf_unmap(struct pg_ringbuf *rb)
{
        if (rb->base)
                munmap(rb->base, rb->map_bytes);
        free(rb->scratch);
        rb->base = NULL;
        rb->scratch = NULL;
}

size_t pg_ringbuf_drain(struct pg_ringbuf *rb, pg_ringbuf_record_cb cb, void *ctx)
{
        struct perf_event_mmap_page *mp = rb->base;
        uint64_t head, tail;
        size_t n = 0;

        if (mp == NULL)
                return 0;
        head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
        tail = mp->data_tail;
        while (tail < head) {
                uint64_t off = tail % rb->data_size;
                struct perf_event_header h;
                const unsigned char *rec = rb->data + off;

                /* records are 8-aligned and the header is 8 bytes: it never wraps
                 * (a misaligned tail means a corrupt size before it) */
                if (off > rb->data_size - sizeof(h)) {
                        tail = head;
                        break;
                }
                memcpy(&h, rec, sizeof(h));
                /* a record never exceeds the data area (the scratch copy's size) */
                if (h.size < sizeof(h) || h.size > head - tail || h.size > rb->data_size) {
                        tail = head; /* corrupt: drop the rest rather than loop */
                        break;
                }
                if (off + h.size > rb->data_size) {
                        size_t first = (size_t) (rb->data_size - off);

                        memcpy(rb->scratch, rec, first);
                        memcpy(rb->scratch + first, rb->data, h.size - first);
                        rec = rb->scratch;
                }
                cb(ctx, rec, h.size);
                tail += h.size;
                n++;
        }
        __atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
        return n;
}

/* Online CPU numbers from /sys/devices/system/cpu/online; caller frees. */
static int pg_online_cpus(int **cpus, size_t *n)
{
        struct pg_buf text;
        char *p, *end;
        size_t cap = 8;

        *cpus = NULL;
        *n = 0;
        pg_buf_init(&text);
        if (pg_read_file("/sys/devices/system/cpu/online", &text) < 0 || text.len == 0) {
                pg_buf_release(&text);
                long c = sysconf(_SC_NPROCESSORS_ONLN);

                pg_error_clear();
                *cpus = pg_xcalloc((size_t) (c > 0 ? c : 1), sizeof(int));
                for (long i = 0; i < (c > 0 ? c : 1); i++)
                        (*cpus)[(*n)++] = (int) i;
                return 0;
        }
        *cpus = pg_xcalloc(cap, sizeof(int));
        for (p = text.ptr; *p && *p != '\n';) {
                long a = strtol(p, &end, 10), b = a;

                if (end == p)
                        break;
                p = end;
                if (*p == '-') {
                        b = strtol(p + 1, &end, 10);
                        p = end;
                }
                for (long i = a; i <= b && i >= 0; i++) {
                        if (*n == cap) {
                                cap *= 2;
                                *cpus = pg_xreallocarray(*cpus, cap, sizeof(int));
                        }
                        (*cpus)[(*n)++] = (int) i;
                }
                if (*p == ',')
                        p++;
        }
        pg_buf_release(&text);
        if (*n == 0)
                (*cpus)[(*n)++] = 0;
        return 0;
}

/* The side-band records the symbolizer needs (sample.h). */
static void pg_attr_track(struct perf_event_attr *a)
{
        a->mmap = 1;
        a->mmap2 = 1;
        a->comm = 1;
        a->comm_exec = 1;
        a->task = 1;
}

static void pg_attr_fill(struct perf_event_attr *a, const struct pg_sampling_cfg *cfg, bool cycles,
                         bool exclude_kernel, size_t data_bytes)
{
        memset(a, 0, sizeof(*a));
        a->size = sizeof(*a);
        if (cfg->ntracepoints) {
                /* `perf sched record`'s events: every hit, its raw record */
                a->type = PERF_TYPE_TRACEPOINT;
                a->config = cfg->tracepoints[0];
                a->sample_period = 1;
                a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
                a->sample_id_all = 1;
                a->watermark = 1;
                a->wakeup_watermark = (uint32_t) (data_bytes / 2);
                (void) cycles;
                (void) exclude_kernel;
                return;
        }
        if (cfg->off_cpu) {
                a->type = PERF_TYPE_SOFTWARE;
                a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        } else if (cycles) {
                a->type = PERF_TYPE_HARDWARE;
                a->config = PERF_COUNT_HW_CPU_CYCLES;
        } else {
                a->type = PERF_TYPE_SOFTWARE;
                a->config = PERF_COUNT_SW_CPU_CLOCK;
        }
        if (cfg->off_cpu) {
                a->sample_period = 1; /* every switch-out */
                a->context_switch = 1;
        } else {
                a->freq = 1;
                a->sample_freq = cfg->freq_hz ? cfg->freq_hz : 999;
        }
        a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                         PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                         PERF_SAMPLE_CALLCHAIN;
        if (cfg->dwarf) {
                a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
                a->sample_regs_user = PG_SAMPLE_REGS_USER_MASK;
                a->sample_stack_user = PG_SAMPLE_STACK_USER_BYTES;
                a->exclude_callchain_user = 1;
        } else {
                /* leaf fixup: IP, SP, BP and the top of the stack let the
                 * symbolizer find the caller of a frameless leaf function */
                a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
                a->sample_regs_user = PG_SAMPLE_REGS_LEAF_MASK;
                a->sample_stack_user = PG_SAMPLE_STACK_LEAF_BYTES;
        }
        /* attach: the tasks already run, enabled at once; start_disabled:
         * at the first PERF_EVENT_IOC_ENABLE; else at the benchmark's exec */
        a->disabled = !cfg->attach;
        a->enable_on_exec = !cfg->attach && !cfg->start_disabled;
        a->inherit = 1;
        a->exclude_kernel = exclude_kernel;
        a->exclude_hv = exclude_kernel;
        if (!cfg->start_disabled)
                pg_attr_track(a);
        a->sample_id_all = 1;
        a->build_id = 1;
        a->watermark = 1;
        a->wakeup_watermark = (uint32_t) (data_bytes / 2);
}

static void pg_raise_nofile(size_t need)
{
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need + 64)
                return;
        rl.rlim_cur = need + 64 > rl.rlim_max ? rl.rlim_max : need + 64;
        (void) setrlimit(RLIMIT_NOFILE, &rl);
}

void pg_sampling_close(struct pg_sampling *s)
{
        for (size_t i = 0; i < s->n; i++) {
                if (s->rbs)
                        pg_ringbuf_unmap(&s->rbs[i]);
                if (s->fds && s->fds[i] >= 0)
                        close(s->fds[i]);
                if (s->track_fds && s->track_fds[i] >= 0)
                        close(s->track_fds[i]);
        }
        for (size_t i = 0; i < s->nmore; i++)
                close(s->more_fds[i]);
        free(s->more_fds);
        free(s->cpu_ids);
        free(s->fds);
        free(s->track_fds);
        s->track_fds = NULL;
        free(s->rbs);
        s->more_fds = NULL;
        s->nmore = s->capmore = 0;
        s->cpu_ids = NULL;
        s->fds = NULL;
        s->rbs = NULL;
        s->n = 0;
}

/* kernel.perf_event_paranoid as text, for messages (static buffer). */
static const char *pg_paranoid_text(void)
{
        static char buf[16];
        struct pg_buf t = PG_BUF_INIT;

        snprintf(buf, sizeof(buf), "?");
        if (pg_read_file("/proc/sys/kernel/perf_event_paranoid", &t) == 0 && t.len)
                snprintf(buf, sizeof(buf), "%.*s", (int) strcspn(t.ptr, "\n"), t.ptr);
        pg_buf_release(&t);
        pg_error_clear();
        return buf;
}

static int pg_open_one(struct perf_event_attr *a, pid_t pid, int cpu)
{
        return (int) syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Open one event per CPU for buffers of @pages data pages (the wakeup
 * watermark is half of that), falling back on the first CPU from cycles to
 * cpu-clock and from kernel+user to user-only; later CPUs use what worked.
 */
static int pg_sampling_open_events(struct pg_sampling *s, pid_t pid,
                                   const struct pg_sampling_cfg *cfg, const int *cpus, size_t pages,
                                   struct perf_event_attr *a)
{
        long page = sysconf(_SC_PAGESIZE);

        for (size_t i = 0; i < s->n; i++) {
                for (;;) {
                        pg_attr_fill(a, cfg, s->cycles, s->exclude_kernel, pages * (size_t) page);
                        s->fds[i] = pg_open_one(a, pid, cpus[i]);
                        if (s->fds[i] >= 0)
                                break;
                        if (i == 0 && s->cycles &&
                            (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV ||
                             errno == ENXIO || errno == EINVAL)) {
                                s->cycles = false; /* no PMU: perf's evsel__fallback */
                                continue;
                        }
                        if (cfg->ntracepoints && (errno == EACCES || errno == EPERM))
                                return pg_error_set(
                                    PG_EPERM,
                                    "CPU-wide sched tracepoints are not permitted: %s "
                                    "(kernel.perf_event_paranoid=%s); allow them with 'sysctl "
                                    "kernel.perf_event_paranoid=-1', or run as root or with "
                                    "CAP_PERFMON ('setcap cap_perfmon+ep' on perfgate)",
                                    strerror(errno), pg_paranoid_text());
                        if (cfg->off_cpu && (errno == EACCES || errno == EPERM))
                                return pg_error_set(
                                    PG_EPERM,
                                    "--off-cpu: cannot sample context switches: %s; they "
                                    "happen in the kernel, which kernel.perf_event_paranoid=%s "
                                    "keeps from unprivileged users (with exclude_kernel every "
                                    "switch would be dropped); lower it to 1 (sysctl "
                                    "kernel.perf_event_paranoid=1), or run as root or with "
                                    "CAP_PERFMON (setcap cap_perfmon,cap_syslog+ep perfgate: "
                                    "cap_syslog "
                                    "names the kernel frames)",
                                    strerror(errno), pg_paranoid_text());
                        if (i == 0 && errno == EACCES && !s->exclude_kernel) {
                                s->exclude_kernel = true; /* perf_event_paranoid >= 2 */
                                continue;
                        }
                        if (errno == ESRCH)
                                return pg_error_set(PG_ENOTFOUND,
                                                    "process %d does not exist (or exited)",
                                                    (int) pid);
                        if (errno == EMFILE || errno == ENFILE)
                                return pg_error_set(PG_EIO,
                                                    "too many open files for %zu sampling "
                                                    "events: raise 'ulimit -n'",
                                                    s->n);
                        if (errno == EACCES || errno == EPERM)
                                return pg_error_set(PG_EPERM,
                                                    "cannot open a sampling event: %s; lower "
                                                    "'kernel.perf_event_paranoid' (sysctl) to 2 "
                                                    "or less, or run with CAP_PERFMON",
                                                    strerror(errno));
                        return pg_error_set(
                            errno == ENOENT || errno == EOPNOTSUPP || errno == EINVAL ? PG_ENOTSUP
                                                                                      : PG_EIO,
                            "cannot open a sampling event on cpu %d: %s", cpus[i], strerror(errno));
                }
        }
        return 0;
}

static void pg_sampling_close_events(struct pg_sampling *s)
{
        for (size_t i = 0; i < s->n; i++) {
                pg_ringbuf_unmap(&s->rbs[i]);
                if (s->fds[i] >= 0)
                        close(s->fds[i]);
                s->fds[i] = -1;
                if (s->track_fds && s->track_fds[i] >= 0)
                        close(s->track_fds[i]);
                if (s->track_fds)
                        s->track_fds[i] = -1;
        }
}

/*
 * start_disabled: the per-CPU dummy tracking events (see ringbuf.h), with
 * the sampling events' sample_type (@a) so that every record of a buffer
 * decodes with one format, each redirected into its CPU's mapped buffer.
 */
static int pg_sampling_open_track(struct pg_sampling *s, pid_t pid, const int *cpus,
                                  const struct perf_event_attr *a)
{
        for (size_t i = 0; i < s->n; i++) {
                struct perf_event_attr t = *a;

                t.type = PERF_TYPE_SOFTWARE;
                t.config = PERF_COUNT_SW_DUMMY;
                t.freq = 0;
                t.sample_period = 1;
                t.enable_on_exec = 1;
                pg_attr_track(&t);
                s->track_fds[i] = pg_open_one(&t, pid, cpus[i]);
                if (s->track_fds[i] < 0 ||
                    ioctl(s->track_fds[i], PERF_EVENT_IOC_SET_OUTPUT, s->fds[i]) < 0)
                        return pg_error_set(PG_ENOTSUP,
                                            "cannot open the tracking event of a region of "
                                            "interest on cpu %d: %s",
                                            cpus[i], strerror(errno));
        }
        return 0;
}

int pg_sampling_open(struct pg_sampling *s, pid_t pid, const struct pg_sampling_cfg *cfg)
{
        return pg_sampling_open_tasks(s, &pid, 1, cfg);
}

int pg_sampling_add_task(struct pg_sampling *s, pid_t tid)
{
        struct perf_event_attr a;
        struct pg_sampling_cfg cfg = { .freq_hz = s->freq_hz, .dwarf = s->dwarf, .attach = true };
        long page = sysconf(_SC_PAGESIZE);

        pg_attr_fill(&a, &cfg, s->cycles, s->exclude_kernel, s->data_pages * (size_t) page);
        for (size_t i = 0; i < s->n; i++) {
                int fd = pg_open_one(&a, tid, s->cpu_ids[i]);

                if (fd < 0) {
                        if (errno == ESRCH)
                                return pg_error_set(PG_ENOTFOUND, "thread %d exited", (int) tid);
                        if (errno == EACCES || errno == EPERM)
                                return pg_error_set(PG_EPERM, "cannot sample thread %d: %s",
                                                    (int) tid, strerror(errno));
                        return pg_error_set(PG_EIO, "cannot sample thread %d: %s", (int) tid,
                                            strerror(errno));
                }
                if (s->nmore == s->capmore) {
                        s->capmore = s->capmore ? s->capmore * 2 : 16;
                        s->more_fds = pg_xreallocarray(s->more_fds, s->capmore, sizeof(int));
                }
                s->more_fds[s->nmore++] = fd;
                if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->fds[i]) < 0)
                        return pg_error_set(PG_EIO, "cannot share a sampling buffer: %s",
                                            strerror(errno));
        }
        return 0;
}

/* The further tracepoints of @cfg on every CPU, each redirected into its
 * CPU's buffer (PERF_EVENT_IOC_SET_OUTPUT), with @a's sample_type. */
static int pg_sampling_open_more_tp(struct pg_sampling *s, const struct pg_sampling_cfg *cfg,
                                    const struct perf_event_attr *a)
{
        for (size_t k = 1; k < cfg->ntracepoints; k++)
                for (size_t i = 0; i < s->n; i++) {
                        struct perf_event_attr t = *a;
                        int fd;

                        t.config = cfg->tracepoints[k];
                        fd = pg_open_one(&t, -1, s->cpu_ids[i]);
                        if (fd < 0)
                                return pg_error_set(
                                    errno == EACCES || errno == EPERM ? PG_EPERM : PG_ENOTSUP,
                                    "cannot open tracepoint %llu on cpu %d: %s",
                                    (unsigned long long) t.config, s->cpu_ids[i], strerror(errno));
                        if (s->nmore == s->capmore) {
                                s->capmore = s->capmore ? s->capmore * 2 : 16;
                                s->more_fds =
                                    pg_xreallocarray(s->more_fds, s->capmore, sizeof(int));
                        }
                        s->more_fds[s->nmore++] = fd;
                        if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->fds[i]) < 0)
                                return pg_error_set(PG_EIO, "cannot share a buffer: %s",
                                                    strerror(errno));
                }
        return 0;
}

int pg_sampling_open_tasks(struct pg_sampling *s, const pid_t *tids, size_t ntids,
                           const struct pg_sampling_cfg *cfg)
{
        pid_t pid = ntids && !cfg->ntracepoints ? tids[0] : -1;
        int *online = NULL;
        const int *cpus = cfg->cpus;
        size_t ncpus = cfg->ncpus, pages = cfg->data_pages ? cfg->data_pages : 64;
        struct perf_event_attr a;
        int rc = 0;

        memset(s, 0, sizeof(*s));
        if (cpus == NULL || ncpus == 0) {
                pg_online_cpus(&online, &ncpus);
                cpus = online;
        }
        pg_raise_nofile(ncpus);
        s->fds = pg_xcalloc(ncpus, sizeof(int));
        s->rbs = pg_xcalloc(ncpus, sizeof(*s->rbs));
        if (cfg->start_disabled)
                s->track_fds = pg_xcalloc(ncpus, sizeof(int));
        for (size_t i = 0; i < ncpus; i++) {
                s->fds[i] = -1;
                if (s->track_fds)
                        s->track_fds[i] = -1;
        }
        s->n = ncpus;
        s->cycles = cfg->use_cycles;
        s->exclude_kernel = cfg->exclude_kernel;
        for (;;) {
                rc = pg_sampling_open_events(s, pid, cfg, cpus, pages, &a);
                if (rc < 0)
                        goto done;
                for (size_t i = 0; i < ncpus && rc == 0; i++)
                        rc = pg_ringbuf_map(&s->rbs[i], s->fds[i], pages);
                if (rc != PG_EPERM || pages <= 8)
                        break;
                /* over the locked-memory budget: smaller buffers, and events
                 * reopened so that the wakeup watermark matches them */
                pg_sampling_close_events(s);
                pages /= 2;
        }
        if (rc == PG_EPERM)
                rc = pg_error_set(PG_EPERM, "cannot lock memory for the sampling buffers: raise "
                                            "'ulimit -l' or the sysctl "
                                            "'kernel.perf_event_mlock_kb'");
        if (rc == 0 && cfg->start_disabled)
                rc = pg_sampling_open_track(s, pid, cpus, &a);
        if (rc < 0)
                goto done;
        s->data_pages = pages;
        s->freq_hz = cfg->freq_hz;
        s->dwarf = cfg->dwarf;
        s->cpu_ids = pg_xcalloc(ncpus, sizeof(int));
        memcpy(s->cpu_ids, cpus, ncpus * sizeof(int));
        if (cfg->ntracepoints) {
                rc = pg_sampling_open_more_tp(s, cfg, &a);
                ntids = 0; /* CPU-wide: every task already */
        }
        for (size_t t = 1; t < ntids && rc == 0; t++) {
                rc = pg_sampling_add_task(s, tids[t]);
                if (rc == PG_ENOTFOUND)
                        rc = 0; /* a thread that ended since it was listed */
        }
        s->fmt.sample_type = a.sample_type;
        s->fmt.regs_user_mask = a.sample_regs_user;
        s->fmt.sample_id_all = true;
done:
        free(online);
        if (rc < 0)
                pg_sampling_close(s);
        return rc;
}

struct pg_drain_ctx {
        struct pg_record_log *log;
        const struct pg_perf_format *fmt;
};

static void pg_log_cb(void *ctx, const void *rec, size_t len)
{
        struct pg_drain_ctx *c = ctx;

        pg_record_log_add(c->log, rec, len, pg_perf_record_time(rec, len, c->fmt));
}

size_t pg_sampling_drain(struct pg_sampling *s, struct pg_record_log *log)
{
        struct pg_drain_ctx c = { log, &s->fmt };
        size_t n = 0;

        for (size_t i = 0; i < s->n; i++)
                n += pg_ringbuf_drain(&s->rbs[i], pg_log_cb, &c);
        return n;
}
