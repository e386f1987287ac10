/*
 * record.c - `perfgate record` (see record.h): attach to a process or the
 * whole system, or run a command, drain the per-CPU buffers until the end,
 * then symbolize and fold once, as a sampling run of `perfgate run` does.
 *
 * Invariants: events are opened before the task list and the mappings are
 * read (a thread or mapping created in between is then seen twice, never
 * missed); synthesized records carry time 0 and sort before real ones.
 */
#include "runner/record.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "runner/kallsyms.h"
#include "runner/launch.h"
#include "runner/records.h"
#include "runner/ringbuf.h"
#include "runner/symbolize.h"

struct pg_tidset {
        pid_t *v;
        size_t n, cap;
};

static bool pg_tidset_has(const struct pg_tidset *t, pid_t tid)
{
        for (size_t i = 0; i < t->n; i++)
                if (t->v[i] == tid)
                        return true;
        return false;
}

static void pg_tidset_add(struct pg_tidset *t, pid_t tid)
{
        if (t->n == t->cap) {
                t->cap = t->cap ? t->cap * 2 : 16;
                t->v = pg_xreallocarray(t->v, t->cap, sizeof(*t->v));
        }
        t->v[t->n++] = tid;
}

/* The numeric entries of directory @path (tasks of /proc/PID/task, or the
 * processes of /proc) not yet in @seen, added to @out. */
static void pg_list_numeric(const char *path, const struct pg_tidset *seen, struct pg_tidset *out)
{
        DIR *d = opendir(path);
        struct dirent *e;

        if (d == NULL)
                return;
        while ((e = readdir(d)) != NULL) {
                char *end;
                long v = strtol(e->d_name, &end, 10);

                if (*end || end == e->d_name || v <= 0)
                        continue;
                if (seen == NULL || !pg_tidset_has(seen, (pid_t) v))
                        pg_tidset_add(out, (pid_t) v);
        }
        closedir(d);
}

/* The first line of a small /proc file, without the newline ("" if none). */
static void pg_read_line(const char *path, char *out, size_t cap)
{
        FILE *f = fopen(path, "re");

        out[0] = '\0';
        if (f == NULL)
                return;
        if (fgets(out, (int) cap, f) == NULL)
                out[0] = '\0';
        out[strcspn(out, "\n")] = '\0';
        fclose(f);
}

/* COMM records for the threads of @pid and MMAP2 records for its executable
 * mappings (/proc/PID/maps, proc(5)), as perf synthesizes them. */
static void pg_synthesize_process(struct pg_record_log *log, const struct pg_perf_format *fmt,
                                  pid_t pid)
{
        struct pg_tidset tids = { 0 };
        char path[64], comm[64], line[4608];
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        pg_list_numeric(path, NULL, &tids);
        for (size_t i = 0; i < tids.n; i++) {
                snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int) pid, (int) tids.v[i]);
                pg_read_line(path, comm, sizeof(comm));
                if (comm[0])
                        pg_record_log_add_comm(log, fmt, (uint32_t) pid, (uint32_t) tids.v[i],
                                               comm);
        }
        free(tids.v);
        snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);
        f = fopen(path, "re");
        if (f == NULL)
                return;
        while (fgets(line, sizeof(line), f)) {
                struct pg_perf_mmap m = { 0 };
                unsigned long long start, end, off, ino;
                char perms[8];
                int name_at = 0;

                line[strcspn(line, "\n")] = '\0';
                if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &start, &end, perms, &off, &ino,
                           &name_at) < 5 ||
                    strlen(perms) < 3 || perms[2] != 'x')
                        continue;
                m.pid = m.tid = (uint32_t) pid;
                m.addr = start;
                m.len = end - start;
                m.pgoff = off;
                m.prot = 0x4 | (perms[0] == 'r' ? 0x1 : 0) | (perms[1] == 'w' ? 0x2 : 0);
                m.flags = perms[3] == 's' ? 0x01 : 0x02; /* MAP_SHARED : MAP_PRIVATE */
                m.filename = name_at > 0 ? line + name_at : "";
                m.filename_len = strlen(m.filename);
                if (m.filename_len == 0)
                        m.filename = "//anon", m.filename_len = 6;
                pg_record_log_add_mmap2(log, fmt, &m);
        }
        fclose(f);
}

static uint64_t pg_event_count(const struct pg_sampling *s)
{
        uint64_t sum = 0, v;

        for (size_t i = 0; i < s->n; i++)
                if (read(s->fds[i], &v, sizeof(v)) == (ssize_t) sizeof(v))
                        sum += v;
        for (size_t i = 0; i < s->nmore; i++)
                if (read(s->more_fds[i], &v, sizeof(v)) == (ssize_t) sizeof(v))
                        sum += v;
        return sum;
}

/* Why the kernel refused to attach to @pid, with what to do about it. */
static int pg_attach_refused(pid_t pid)
{
        char path[32];
        struct stat st;

        snprintf(path, sizeof(path), "/proc/%d", (int) pid);
        if (stat(path, &st) == 0 && st.st_uid != geteuid())
                return pg_error_set(PG_EPERM,
                                    "cannot record process %d: it belongs to another user (uid "
                                    "%u) and perfgate may not observe it; run perfgate as that "
                                    "user or as root, or grant it CAP_PERFMON and "
                                    "CAP_SYS_PTRACE (setcap cap_perfmon,cap_sys_ptrace+ep); "
                                    "kernel.perf_event_paranoid does not help, since the "
                                    "kernel also asks for ptrace access to another user's "
                                    "process",
                                    (int) pid, (unsigned) st.st_uid);
        return PG_EPERM; /* pg_sampling_open_tasks() said why and what to do */
}

/* A thread id passes /proc/TID (proc(5): hidden from listings, reachable
 * by name), but the process's mappings are kept under its Tgid, so
 * attaching to a thread would leave every frame unnamed: refused, naming
 * the process (perf record -p TID refuses it too). */
static long pg_tgid_of(pid_t id)
{
        char path[64], line[128];
        long tgid = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) id);
        if (!(f = fopen(path, "r")))
                return 0; /* gone: said by the attach */
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Tgid: %ld", &tgid) == 1)
                        break;
        fclose(f);
        return tgid;
}

static int pg_check_tgid(pid_t pid)
{
        long tgid = pg_tgid_of(pid);

        if (tgid > 0 && tgid != pid)
                return pg_error_set(PG_EINPUT,
                                    "%d is a thread of process %ld, not a process: use -p %ld "
                                    "(every thread of that process is recorded) or -t %d (this "
                                    "thread alone)",
                                    (int) pid, tgid, tgid, (int) pid);
        return 0;
}

/* Open the events on thread @tid alone, as perf record -t does: threads it
 * creates are followed (inherit), its siblings are not. */
static int pg_attach_thread(struct pg_live *l, pid_t tid, struct pg_record_info *info)
{
        char path[80];
        int rc;

        l->tgid = (pid_t) pg_tgid_of(tid);
        if (l->tgid <= 0)
                return pg_error_set(PG_ENOTFOUND, "no thread %d: it does not exist (or exited)",
                                    (int) tid);
        snprintf(l->thread_dir, sizeof(l->thread_dir), "/proc/%d/task/%d", (int) l->tgid,
                 (int) tid);
        snprintf(path, sizeof(path), "%s/comm", l->thread_dir);
        pg_read_line(path, info->comm, sizeof(info->comm));
        l->start_ns = pg_now_ns();
        rc = pg_sampling_open_tasks(&l->smp, &tid, 1, &l->cfg);
        if (rc == PG_ENOTFOUND)
                rc = pg_error_set(PG_ENOTFOUND, "no thread %d: it does not exist (or exited)",
                                  (int) tid);
        else if (rc == PG_EPERM)
                rc = pg_attach_refused(l->tgid);
        return rc;
}

/* Open the events on every thread of @pid, listing the threads again until
 * no new one appears (one created before its creator's event existed is not
 * inherited). */
static int pg_attach_process(struct pg_sampling *smp, pid_t pid, const struct pg_sampling_cfg *cfg)
{
        struct pg_tidset tids = { 0 }, fresh = { 0 };
        char path[32];
        int rc;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        pg_tidset_add(&tids, pid);
        pg_list_numeric(path, &tids, &tids);
        rc = pg_sampling_open_tasks(smp, tids.v, tids.n, cfg);
        if (rc == PG_ENOTFOUND)
                rc = pg_error_set(PG_ENOTFOUND, "no process %d: it does not exist (or exited)",
                                  (int) pid);
        else if (rc == PG_EPERM)
                rc = pg_attach_refused(pid);
        for (int round = 0; rc == 0 && round < 8; round++) {
                fresh.n = 0;
                pg_list_numeric(path, &tids, &fresh);
                if (fresh.n == 0)
                        break;
                for (size_t i = 0; i < fresh.n && rc == 0; i++) {
                        pg_tidset_add(&tids, fresh.v[i]);
                        rc = pg_sampling_add_task(smp, fresh.v[i]);
                        if (rc == PG_ENOTFOUND)
                                rc = 0;
                }
        }
        free(tids.v);
        free(fresh.v);
        return rc;
}

/* Drain until the duration ends, SIGINT/SIGTERM, the process behind
 * @pidfd (-1: none) exits, or the directory @alive ("": none, else a
 * thread's /proc/TGID/task/TID, removed when the thread ends) goes. */
static void pg_record_wait(struct pg_sample_drain_ctx *dc, int pidfd, const char *alive,
                           uint64_t duration_ns, struct pg_record_info *info)
{
        size_t n = dc->smp->n + 1;
        struct pollfd *pf = pg_xcalloc(n, sizeof(*pf));
        uint64_t start = pg_now_ns();

        for (size_t i = 0; i < dc->smp->n; i++)
                pf[i] = (struct pollfd){ .fd = dc->smp->fds[i], .events = POLLIN };
        pf[n - 1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
        for (;;) {
                int wait_ms = 100;

                if (pg_launch_interrupted()) {
                        info->interrupted = true;
                        break;
                }
                if (duration_ns) {
                        uint64_t now = pg_now_ns();

                        if (now - start >= duration_ns)
                                break;
                        if ((duration_ns - (now - start)) / 1000000 < 100)
                                wait_ms = (int) ((duration_ns - (now - start)) / 1000000) + 1;
                }
                (void) poll(pf, n, wait_ms);
                pg_sample_drain(dc);
                if ((pidfd >= 0 && (pf[n - 1].revents & (POLLIN | POLLHUP))) ||
                    (alive[0] && access(alive, F_OK) != 0)) {
                        info->target_exited = true;
                        break;
                }
        }
        free(pf);
}

/* Events into the log: every executable mapping and thread name of the
 * target as it is now (time 0: before any record drained after it). They
 * are not handed to the prefetcher: a live process maps many files it may
 * never run in while recorded (loading a libc's DWARF takes seconds on a
 * busy machine), so only the files samples land in are loaded, when the
 * samples are folded; files mapped during the recording are prefetched. */
static void pg_live_synthesize(struct pg_live *l)
{
        if (l->tgid > 0) {
                pg_synthesize_process(&l->log, &l->smp.fmt, l->tgid);
        } else {
                struct pg_tidset procs = { 0 };

                pg_list_numeric("/proc", NULL, &procs);
                for (size_t i = 0; i < procs.n; i++)
                        pg_synthesize_process(&l->log, &l->smp.fmt, procs.v[i]);
                free(procs.v);
        }
        l->dc.scanned = l->log.nrefs;
}

/* What record and top share before any event is opened: the sampling
 * configuration, the record log and the symbolizer. */
static int pg_live_setup(struct pg_live *l, const struct pg_record_opts *o)
{
        struct pg_symbolizer_opts so = { 0 };
        int rc;

        memset(l, 0, sizeof(*l));
        l->o = *o;
        l->pidfd = -1;
        pg_record_log_init(&l->log);
        pg_record_log_init(&l->spare);
        if ((rc = pg_sample_check_freq(o->freq_hz ? o->freq_hz : 999)) < 0)
                return rc;
        /* libdw would ask debuginfod servers (network) per module */
        unsetenv("DEBUGINFOD_URLS");
        l->cfg.freq_hz = o->freq_hz ? o->freq_hz : 999;
        l->cfg.dwarf = o->call_graph == PG_CALL_GRAPH_DWARF;
        l->cfg.exclude_kernel = o->exclude_kernel;
        l->cfg.data_pages = l->cfg.dwarf ? PG_RECORD_PAGES_DWARF : PG_RECORD_PAGES_FP;
        l->cfg.attach = o->argv == NULL;
        so.debug_dir = o->debug_dir;
        so.dwarf = l->cfg.dwarf;
        so.kernel = true;
        so.regs_user_mask = l->cfg.dwarf ? PG_SAMPLE_REGS_USER_MASK : PG_SAMPLE_REGS_LEAF_MASK;
        l->dc = (struct pg_sample_drain_ctx){ &l->smp, &l->log, NULL, 0, NULL, NULL };
        rc = pg_symbolizer_new(&l->sym, &so);
        l->dc.sym = l->sym;
        return rc;
}

int pg_live_open(struct pg_live *l, const struct pg_record_opts *o, struct pg_record_info *info)
{
        int rc;

        memset(info, 0, sizeof(*info));
        if ((rc = pg_live_setup(l, o)) < 0)
                return rc;
        if ((o->pid > 0) + (o->tid > 0) + o->system_wide != 1 || o->argv != NULL)
                return pg_error_set(PG_EINPUT, "give exactly one target: -p PID, -t TID or -a");
        if (o->tid > 0) {
                rc = pg_attach_thread(l, o->tid, info);
        } else if (o->pid > 0) {
                char path[64];

                snprintf(path, sizeof(path), "/proc/%d", (int) o->pid);
                if (access(path, F_OK) != 0)
                        return pg_error_set(PG_ENOTFOUND,
                                            "no process %d: it does not exist (or exited)",
                                            (int) o->pid);
                if ((rc = pg_check_tgid(o->pid)) < 0)
                        return rc;
                snprintf(path, sizeof(path), "/proc/%d/comm", (int) o->pid);
                pg_read_line(path, info->comm, sizeof(info->comm));
                l->pidfd = (int) syscall(SYS_pidfd_open, o->pid, 0);
                l->tgid = o->pid;
                l->start_ns = pg_now_ns();
                rc = pg_attach_process(&l->smp, o->pid, &l->cfg);
        } else {
                l->start_ns = pg_now_ns();
                rc = pg_sampling_open_tasks(&l->smp, NULL, 0, &l->cfg);
                if (rc == PG_EPERM)
                        rc = pg_error_set(PG_EPERM,
                                          "cannot record the whole system (-a): the kernel "
                                          "refuses events on every task; it needs "
                                          "kernel.perf_event_paranoid <= 0 (sudo sysctl "
                                          "kernel.perf_event_paranoid=0), CAP_PERFMON or root");
        }
        if (rc < 0)
                return rc;
        info->cycles = l->smp.cycles;
        info->exclude_kernel = l->smp.exclude_kernel;
        if (!l->smp.exclude_kernel)
                pg_symbolizer_kernel_expected(l->sym);
        pg_live_synthesize(l);
        return 0;
}

void pg_live_wait(struct pg_live *l, uint64_t duration_ns, struct pg_record_info *info)
{
        pg_record_wait(&l->dc, l->pidfd, l->thread_dir, duration_ns, info);
}

void pg_live_stop(struct pg_live *l)
{
        /* on an inherited per-task event, the ioctl reaches its children too
         * (perf_event_for_each_child(), kernel/events/core.c) */
        for (size_t i = 0; i < l->smp.n; i++)
                (void) ioctl(l->smp.fds[i], PERF_EVENT_IOC_DISABLE, 0);
        for (size_t i = 0; i < l->smp.nmore; i++)
                (void) ioctl(l->smp.more_fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void pg_live_fold(struct pg_live *l)
{
        struct pg_record_log done;

        pg_sample_drain(&l->dc);
        /* the next batch's mappings and names are read now, not after the
         * symbolization below: a process that exits meanwhile would leave
         * the samples it takes until its exit without either */
        done = l->log;
        l->log = l->spare;
        pg_record_log_reset(&l->log);
        pg_live_synthesize(l);
        pg_record_log_sort(&done);
        pg_symbolizer_process(l->sym, &done, &l->smp.fmt);
        pg_record_log_reset(&done);
        l->spare = done;
}

void pg_live_close(struct pg_live *l)
{
        pg_sampling_close(&l->smp);
        if (l->pidfd >= 0)
                close(l->pidfd);
        l->pidfd = -1;
        pg_symbolizer_free(l->sym);
        l->sym = NULL;
        pg_record_log_release(&l->log);
        pg_record_log_release(&l->spare);
}

static int pg_record_command(struct pg_live *l, struct pg_record_info *info)
{
        struct pg_sample_opts so = { .argv = l->o.argv,
                                     .log_fd = l->o.log_fd,
                                     .timeout_ns = l->o.duration_ns };
        struct pg_exit ex;
        int rc;

        memset(info, 0, sizeof(*info));
        rc = pg_sample_run_once(&so, &l->cfg, &l->smp, &l->log, l->sym, &ex);
        if (rc == PG_EINTR) {
                info->interrupted = true;
                rc = 0;
        }
        if (rc < 0)
                return rc;
        info->event_count = pg_event_count(&l->smp);
        info->wall_ns = ex.wall_ns;
        info->exit_status = ex.status;
        info->target_exited = !ex.timed_out && !ex.interrupted;
        info->cycles = l->smp.cycles;
        info->exclude_kernel = l->smp.exclude_kernel;
        pg_record_log_sort(&l->log);
        pg_symbolizer_process(l->sym, &l->log, &l->smp.fmt);
        return 0;
}

/* Record until the duration ends, the process exits or SIGINT, folding the
 * records drained so far whenever they pass PG_RECORD_FOLD_BYTES, so that a
 * long recording (8 KiB of stack per sample with --call-graph dwarf) does
 * not hold every record in memory. */
static void pg_record_live_loop(struct pg_live *l, struct pg_record_info *info)
{
        for (;;) {
                uint64_t slice = 1000000000ull, spent = pg_now_ns() - l->start_ns;

                if (l->o.duration_ns) {
                        if (spent >= l->o.duration_ns)
                                break;
                        if (l->o.duration_ns - spent < slice)
                                slice = l->o.duration_ns - spent;
                }
                pg_live_wait(l, slice, info);
                if (info->interrupted || info->target_exited)
                        break;
                if (l->log.arena_len > PG_RECORD_FOLD_BYTES)
                        pg_live_fold(l);
        }
        pg_live_stop(l);
        info->wall_ns = pg_now_ns() - l->start_ns;
}

int pg_record(const struct pg_record_opts *o, struct pg_profile *out, struct pg_record_info *info,
              struct pg_buf *warnings)
{
        struct pg_live l;
        int rc;

        memset(info, 0, sizeof(*info));
        if ((o->pid > 0) + (o->tid > 0) + o->system_wide +
                (o->argv != NULL && o->argv[0] != NULL) !=
            1)
                return pg_error_set(PG_EINPUT,
                                    "give exactly one target: -p PID, -t TID, -a or -- COMMAND");
        if (o->argv != NULL) {
                rc = pg_live_setup(&l, o);
                if (rc == 0)
                        rc = pg_record_command(&l, info);
        } else {
                rc = pg_live_open(&l, o, info);
                if (rc == 0) {
                        pg_record_live_loop(&l, info);
                        info->event_count = pg_event_count(&l.smp);
                        pg_live_fold(&l);
                }
        }
        if (rc < 0)
                goto done;
        pg_sample_export(l.sym, &l.cfg, info->cycles, info->exclude_kernel, 1, out);
        pg_sample_warnings(o->argv                    ? o->argv[0]
                           : o->pid > 0 || o->tid > 0 ? info->comm
                                                      : "the system",
                           o->argv == NULL, o->call_graph, o->exclude_kernel, out,
                           pg_symbolizer_stats(l.sym), info->exclude_kernel && !o->exclude_kernel,
                           warnings);
        /* sampled with the kernel, named without: kallsyms hides its addresses */
        if (warnings && !info->exclude_kernel && !out->kernel)
                pg_buf_puts(warnings, PG_KALLSYMS_HIDDEN_WARNING "\n");
done:
        pg_live_close(&l);
        return rc;
}
