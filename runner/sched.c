/*
 * sched.c - scheduler latency from the sched tracepoints (see sched.h).
 * Invariant: a task's delay is counted only from a moment it was known to
 * be runnable (a wakeup after it slept, or a switch-out while runnable) to
 * its next switch-in, so no delay is ever invented for a task perfgate did
 * not see wait.
 */
#include "runner/sched.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/hashmap.h"
#include "runner/launch.h"
#include "runner/ringbuf.h"
#include "runner/sample.h"

int pg_tp_format_id(const char *text, uint64_t *id)
{
        const char *p = strstr(text, "\nID: ");
        char *end;
        unsigned long long v;

        if (!p && strncmp(text, "ID: ", 4) == 0)
                p = text - 1;
        if (!p)
                return pg_error_set(PG_EINPUT, "the tracepoint format has no 'ID:' line");
        v = strtoull(p + 5, &end, 10);
        if (end == p + 5)
                return pg_error_set(PG_EINPUT, "the tracepoint format's 'ID:' is not a number");
        *id = v;
        return 0;
}

/* The number after @key ("offset:") in the line [@p, @eol), or -1. */
static long pg_tp_attr(const char *p, const char *eol, const char *key)
{
        size_t n = strlen(key);

        for (; p + n <= eol; p++)
                if (memcmp(p, key, n) == 0) {
                        char *end;
                        long v = strtol(p + n, &end, 10);
                        return end == p + n || end > eol ? -1 : v;
                }
        return -1;
}

int pg_tp_format_field(const char *text, const char *name, struct pg_tp_field *out)
{
        size_t n = strlen(name);

        for (const char *p = strstr(text, "field:"); p; p = strstr(p + 1, "field:")) {
                const char *eol = strchr(p, '\n'), *semi = strchr(p, ';'), *q;
                long off, size, sgn;

                if (!eol)
                        eol = p + strlen(p);
                if (!semi || semi > eol)
                        continue;
                /* the declaration "type name" or "type name[N]" ends at ';' */
                q = semi;
                if (q > p && q[-1] == ']')
                        while (q > p && *q != '[')
                                q--;
                if ((size_t) (q - p) < n || memcmp(q - n, name, n) != 0 ||
                    (q - n > p && q[-n - 1] != ' ' && q[-n - 1] != '*'))
                        continue;
                off = pg_tp_attr(semi, eol, "offset:");
                size = pg_tp_attr(semi, eol, "size:");
                sgn = pg_tp_attr(semi, eol, "signed:");
                if (off < 0 || size <= 0 || off > 65535 || size > 65535)
                        return pg_error_set(PG_EINPUT,
                                            "the tracepoint field '%s' has no valid "
                                            "offset and size",
                                            name);
                out->offset = (uint32_t) off;
                out->size = (uint32_t) size;
                out->is_signed = sgn == 1;
                return 0;
        }
        return pg_error_set(PG_EINPUT, "the tracepoint format has no field '%s'", name);
}

/* Where tracefs is: its own mount point, or under debugfs. */
static const char *const pg_tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* Read the first of <tracefs dir>/events/sched/@event/format that opens
 * into @text: 0, else -1 with *@eacces set if one was refused. */
static int pg_tp_try_read(const char *event, struct pg_buf *text, int *eacces)
{
        for (size_t i = 0; i < sizeof(pg_tracefs_dirs) / sizeof(pg_tracefs_dirs[0]); i++) {
                char *path = pg_xasprintf("%s/events/sched/%s/format", pg_tracefs_dirs[i], event);
                FILE *f = fopen(path, "re");
                int e = errno;

                free(path);
                if (f) {
                        char chunk[4096];
                        size_t got;

                        pg_buf_reset(text);
                        while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
                                pg_buf_add(text, chunk, got);
                        fclose(f);
                        return 0;
                }
                if (e == EACCES || e == EPERM)
                        *eacces = 1;
        }
        return -1;
}

/*
 * Read <tracefs>/events/sched/@event/format into @text. Where no tracefs is
 * mounted (a freshly booted machine without systemd's sys-kernel-tracing
 * mount), mount it at /sys/kernel/tracing as perf does (tools/lib/api/fs/fs.c,
 * fs__mount(): mount(2) of "tracefs" with no options, which only a process
 * with CAP_SYS_ADMIN may do); a user who may not mount it gets every fix,
 * since a mounted tracefs alone does not let that user read it.
 */
static int pg_tp_read(const char *event, struct pg_buf *text)
{
        int seen_eacces = 0, mount_errno = 0;

        if (pg_tp_try_read(event, text, &seen_eacces) == 0)
                return 0;
        if (!seen_eacces) {
                struct stat st;

                if (stat("/sys/kernel/tracing/events", &st) == 0)
                        mount_errno = ENOENT; /* mounted, but without this event */
                else if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
                        if (pg_tp_try_read(event, text, &seen_eacces) == 0)
                                return 0;
                        mount_errno = ENOENT;
                } else
                        mount_errno = errno;
        }
        if (seen_eacces)
                return pg_error_set(PG_EPERM,
                                    "cannot read the format of sched:%s in tracefs "
                                    "(/sys/kernel/tracing): permission denied; run as root, or "
                                    "make tracefs readable by this user (tracefs mount options "
                                    "uid=, gid=, mode=) and also allow its raw CPU-wide records: "
                                    "'sysctl kernel.perf_event_paranoid=-1', or CAP_PERFMON "
                                    "('setcap cap_perfmon+ep' on perfgate)",
                                    event);
        if (mount_errno == EPERM || mount_errno == EACCES)
                return pg_error_set(PG_EPERM,
                                    "no tracefs is mounted and this user may not mount it (%s); "
                                    "run as root (perfgate then mounts it, as perf does), or have "
                                    "root mount it readable by this user (mount -t tracefs -o "
                                    "mode=755 nodev /sys/kernel/tracing) and also allow its raw "
                                    "CPU-wide records: 'sysctl kernel.perf_event_paranoid=-1', or "
                                    "CAP_PERFMON ('setcap cap_perfmon+ep' on perfgate)",
                                    strerror(mount_errno));
        return pg_error_set(
            PG_ENOTSUP,
            "no tracefs with the sched:%s tracepoint (looked in "
            "/sys/kernel/tracing and /sys/kernel/debug/tracing%s%s); mount it: "
            "mount -t tracefs nodev /sys/kernel/tracing",
            event, mount_errno && mount_errno != ENOENT ? ", and mounting it failed: " : "",
            mount_errno && mount_errno != ENOENT ? strerror(mount_errno) : "");
}

int pg_sched_tp_load(struct pg_sched_tp *tp)
{
        struct pg_buf t = PG_BUF_INIT;
        int error;

        memset(tp, 0, sizeof(*tp));
        if ((error = pg_tp_read("sched_switch", &t)) < 0)
                goto done;
        if ((error = pg_tp_format_id(t.ptr, &tp->switch_id)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "common_type", &tp->common_type)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "prev_comm", &tp->prev_comm)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "prev_pid", &tp->prev_pid)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "prev_state", &tp->prev_state)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "next_comm", &tp->next_comm)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "next_pid", &tp->next_pid)) < 0)
                goto bad;
        if ((error = pg_tp_read("sched_wakeup", &t)) < 0)
                goto done;
        if ((error = pg_tp_format_id(t.ptr, &tp->wakeup_id)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "pid", &tp->wakeup_pid)) < 0)
                goto bad;
        if ((error = pg_tp_read("sched_wakeup_new", &t)) < 0)
                goto done;
        if ((error = pg_tp_format_id(t.ptr, &tp->wakeup_new_id)) < 0 ||
            (error = pg_tp_format_field(t.ptr, "pid", &tp->wakeup_new_pid)) < 0)
                goto bad;
        goto done;
bad:
        error = pg_error_set(PG_ENOTSUP,
                             "the sched tracepoints of this kernel are not as "
                             "expected: %s",
                             pg_error_last());
done:
        pg_buf_release(&t);
        return error;
}

int pg_sched_probe(struct pg_sched_tp *tp)
{
        struct perf_event_attr a;
        int error = pg_sched_tp_load(tp), fd;

        if (error < 0)
                return error;
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = tp->switch_id;
        a.sample_period = 1;
        a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
        a.disabled = 1;
        fd = (int) syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
                close(fd);
                return 0;
        }
        if (errno == EACCES || errno == EPERM)
                return pg_error_set(
                    PG_EPERM,
                    "CPU-wide sched tracepoints are not permitted: %s; allow them with "
                    "'sysctl kernel.perf_event_paranoid=-1', or run as root or with "
                    "CAP_PERFMON ('setcap cap_perfmon+ep' on perfgate)",
                    strerror(errno));
        return pg_error_set(PG_ENOTSUP, "cannot open sched:sched_switch: %s", strerror(errno));
}

/* ---- analysis ------------------------------------------------------------ */

enum pg_sched_state { PG_SCHED_UNKNOWN = 0, PG_SCHED_SLEEPING, PG_SCHED_WAITING, PG_SCHED_RUNNING };

struct pg_sched_thread {
        char comm[17];
        enum pg_sched_state state;
        uint64_t since; /* SLEEPING: switched out; WAITING: runnable; RUNNING: switched in */
        uint64_t runtime_ns, switches, delay_total_ns, delay_max_ns;
};

struct pg_sched_an {
        const struct pg_sched_tp *tp;
        struct pg_u64map ids; /* tid -> 1 + index into th (0: not the benchmark's) */
        struct pg_sched_thread *th;
        size_t n, cap;
};

static uint64_t pg_tp_uint(const unsigned char *raw, uint32_t len, const struct pg_tp_field *f)
{
        uint64_t v = 0;

        if (f->offset + f->size > len || f->size > 8)
                return 0;
        if (f->size == 8) {
                memcpy(&v, raw + f->offset, 8);
        } else if (f->size == 4) {
                uint32_t w;
                memcpy(&w, raw + f->offset, 4);
                v = w;
        } else if (f->size == 2) {
                uint16_t w;
                memcpy(&w, raw + f->offset, 2);
                v = w;
        } else if (f->size == 1) {
                v = raw[f->offset];
        }
        return v;
}

static void pg_tp_comm(const unsigned char *raw, uint32_t len, const struct pg_tp_field *f,
                       char out[17])
{
        size_t n = f->size < 16 ? f->size : 16;

        if (f->offset + f->size > len)
                return;
        memcpy(out, raw + f->offset, n);
        out[n] = '\0';
}

/* The benchmark's thread @tid, or NULL when it is not one of its tasks. */
static struct pg_sched_thread *pg_an_find(struct pg_sched_an *an, uint64_t tid)
{
        uint32_t idx;

        if (tid == 0 || !pg_u64map_get(&an->ids, tid, &idx) || idx == 0)
                return NULL;
        return &an->th[idx - 1];
}

static struct pg_sched_thread *pg_an_add(struct pg_sched_an *an, uint64_t tid)
{
        struct pg_sched_thread *t = pg_an_find(an, tid);

        if (t)
                return t;
        if (an->n == an->cap) {
                an->cap = an->cap ? an->cap * 2 : 16;
                an->th = pg_xreallocarray(an->th, an->cap, sizeof(*an->th));
        }
        t = &an->th[an->n++];
        memset(t, 0, sizeof(*t));
        pg_u64map_put(&an->ids, tid, (uint32_t) an->n);
        return t;
}

/* A switch-in at @now: the delay since it became runnable counts once. */
static void pg_an_switch_in(struct pg_sched_thread *t, uint64_t now)
{
        if (t->state == PG_SCHED_UNKNOWN) { /* first seen running: delay 0, as perf */
                t->state = PG_SCHED_WAITING;
                t->since = now;
        }
        if (t->state == PG_SCHED_WAITING && now >= t->since) {
                uint64_t d = now - t->since;

                t->switches++;
                t->delay_total_ns += d;
                if (d > t->delay_max_ns)
                        t->delay_max_ns = d;
        }
        t->state = PG_SCHED_RUNNING;
        t->since = now;
}

static void pg_an_switch(struct pg_sched_an *an, const unsigned char *raw, uint32_t len,
                         uint64_t now)
{
        const struct pg_sched_tp *tp = an->tp;
        struct pg_sched_thread *prev = pg_an_find(an, pg_tp_uint(raw, len, &tp->prev_pid));
        struct pg_sched_thread *next = pg_an_find(an, pg_tp_uint(raw, len, &tp->next_pid));

        if (prev) {
                /* the state bits are TASK_REPORT (0xff); the bit above is
                 * the preemption mark (TASK_REPORT_MAX): runnable still */
                bool runnable = (pg_tp_uint(raw, len, &tp->prev_state) & 0xff) == 0;

                if (prev->state == PG_SCHED_RUNNING && now >= prev->since)
                        prev->runtime_ns += now - prev->since;
                pg_tp_comm(raw, len, &tp->prev_comm, prev->comm);
                prev->state = runnable ? PG_SCHED_WAITING : PG_SCHED_SLEEPING;
                prev->since = now;
        }
        if (next) {
                if (!next->comm[0])
                        pg_tp_comm(raw, len, &tp->next_comm, next->comm);
                pg_an_switch_in(next, now);
        }
}

/* Sort tasks by comm (qsort). */
static int pg_task_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_sched_task *) a)->comm,
                      ((const struct pg_sched_task *) b)->comm);
}

void pg_sched_analyze(const struct pg_record_log *log, const struct pg_perf_format *fmt,
                      const struct pg_sched_tp *tp, uint32_t root, struct pg_sched_run *out)
{
        struct pg_sched_an an = { .tp = tp };
        struct pg_strmap names = { 0 };

        memset(out, 0, sizeof(*out));
        pg_an_add(&an, root)->state = PG_SCHED_SLEEPING; /* blocked before its start */
        for (size_t i = 0; i < log->nrefs; i++) {
                const struct pg_record_ref *ref = &log->refs[i];
                struct pg_perf_record r;
                const unsigned char *raw;
                uint32_t len;
                uint64_t type;

                if (pg_perf_record_decode(log->arena + ref->offset, ref->len, fmt, &r) < 0)
                        continue;
                if (r.type == PERF_RECORD_LOST) {
                        out->lost += r.u.lost;
                        continue;
                }
                if (r.type != PERF_RECORD_SAMPLE || !r.u.sample.raw)
                        continue;
                raw = r.u.sample.raw;
                len = r.u.sample.raw_size;
                type = pg_tp_uint(raw, len, &tp->common_type);
                if (type == tp->switch_id) {
                        pg_an_switch(&an, raw, len, r.sid.time);
                } else if (type == tp->wakeup_new_id) {
                        /* fired in the parent: a task of the benchmark made it */
                        if (pg_an_find(&an, r.sid.tid)) {
                                struct pg_sched_thread *t =
                                    pg_an_add(&an, pg_tp_uint(raw, len, &tp->wakeup_new_pid));
                                t->state = PG_SCHED_WAITING;
                                t->since = r.sid.time;
                        }
                } else if (type == tp->wakeup_id) {
                        struct pg_sched_thread *t =
                            pg_an_find(&an, pg_tp_uint(raw, len, &tp->wakeup_pid));

                        /* a wakeup of a task that waits or runs changes nothing
                         * (perf's latency_wakeup_event) */
                        if (t && t->state == PG_SCHED_SLEEPING && r.sid.time >= t->since) {
                                t->state = PG_SCHED_WAITING;
                                t->since = r.sid.time;
                        }
                }
        }
        /* merge by comm */
        out->tasks = pg_xcalloc(an.n + 1, sizeof(*out->tasks));
        for (size_t i = 0; i < an.n; i++) {
                const struct pg_sched_thread *t = &an.th[i];
                const char *comm = t->comm[0] ? t->comm : "[unknown]";
                bool added;
                size_t k;
                struct pg_sched_task *o;

                if (t->switches == 0 && t->runtime_ns == 0)
                        continue; /* never ran while recorded */
                k = pg_strmap_intern(&names, comm, strlen(comm), &added);
                o = &out->tasks[k];
                if (added) {
                        o->comm = pg_xstrdup(comm);
                        out->n++;
                }
                o->threads++;
                o->runtime_ns += t->runtime_ns;
                o->switches += t->switches;
                o->delay_total_ns += t->delay_total_ns;
                if (t->delay_max_ns > o->delay_max_ns)
                        o->delay_max_ns = t->delay_max_ns;
                out->switches += t->switches;
                out->delay_total_ns += t->delay_total_ns;
                if (t->delay_max_ns > out->delay_max_ns)
                        out->delay_max_ns = t->delay_max_ns;
        }
        qsort(out->tasks, out->n, sizeof(*out->tasks), pg_task_cmp);
        pg_strmap_release(&names);
        pg_u64map_release(&an.ids);
        free(an.th);
}

void pg_sched_run_release(struct pg_sched_run *r)
{
        for (size_t i = 0; i < r->n; i++)
                free(r->tasks[i].comm);
        free(r->tasks);
        memset(r, 0, sizeof(*r));
}

void pg_sched_merge(struct pg_sched *s, const struct pg_sched_run *r)
{
        size_t n = s->n;

        s->present = true;
        s->runs++;
        s->tasks = pg_xreallocarray(s->tasks, s->n + r->n + 1, sizeof(*s->tasks));
        for (size_t i = 0; i < r->n; i++) {
                const struct pg_sched_task *t = &r->tasks[i];
                struct pg_sched_task *o = NULL;

                for (size_t k = 0; k < n && !o; k++)
                        if (strcmp(s->tasks[k].comm, t->comm) == 0)
                                o = &s->tasks[k];
                if (!o) {
                        o = &s->tasks[s->n++];
                        memset(o, 0, sizeof(*o));
                        o->comm = pg_xstrdup(t->comm);
                }
                if (t->threads > o->threads)
                        o->threads = t->threads;
                o->runtime_ns += t->runtime_ns;
                o->switches += t->switches;
                o->delay_total_ns += t->delay_total_ns;
                if (t->delay_max_ns > o->delay_max_ns)
                        o->delay_max_ns = t->delay_max_ns;
        }
        qsort(s->tasks, s->n, sizeof(*s->tasks), pg_task_cmp);
}

/* ---- recording ----------------------------------------------------------- */

/* Per-CPU buffer for the three tracepoints: a busy CPU switches tens of
 * thousands of times a second, about 100 bytes each. */
#define PG_SCHED_DATA_PAGES 256

int pg_sched_record(const struct pg_sample_opts *o, const struct pg_sched_tp *tp, uint64_t runs,
                    struct pg_sched *out, struct pg_sched_values *vals, struct pg_buf *warnings)
{
        const uint64_t ids[3] = { tp->switch_id, tp->wakeup_id, tp->wakeup_new_id };
        struct pg_sampling_cfg cfg = { 0 };
        struct pg_record_log log;
        uint64_t lost = 0;
        int rc = 0;

        cfg.tracepoints = ids;
        cfg.ntracepoints = 3;
        cfg.attach = true;
        cfg.data_pages = PG_SCHED_DATA_PAGES;
        pg_record_log_init(&log);
        for (uint64_t k = 0; k < runs; k++) {
                struct pg_sampling smp = { 0 };
                struct pg_sched_run run;
                struct pg_exit ex;

                pg_record_log_reset(&log);
                rc = pg_sample_run_once(o, &cfg, &smp, &log, NULL, &ex);
                rc = pg_sample_judge(o, rc, &ex);
                if (rc < 0) {
                        pg_sampling_close(&smp);
                        break;
                }
                pg_record_log_sort(&log);
                pg_sched_analyze(&log, &smp.fmt, tp, (uint32_t) ex.pid, &run);
                pg_sampling_close(&smp);
                pg_sched_merge(out, &run);
                lost += run.lost;
                if (run.switches > 0) {
                        vals->max_ns = pg_xreallocarray(vals->max_ns, vals->n + 1, sizeof(double));
                        vals->avg_ns = pg_xreallocarray(vals->avg_ns, vals->n + 1, sizeof(double));
                        vals->max_ns[vals->n] = (double) run.delay_max_ns;
                        vals->avg_ns[vals->n] = (double) run.delay_total_ns / (double) run.switches;
                        vals->n++;
                }
                pg_sched_run_release(&run);
                if (o->progress)
                        o->progress(o->progress_ctx, k + 1, NULL);
        }
        if (lost && warnings)
                pg_buf_printf(warnings,
                              "%llu scheduler events were lost (the buffers filled faster than "
                              "perfgate drained them): the latencies may be incomplete\n",
                              (unsigned long long) lost);
        pg_record_log_release(&log);
        return rc;
}

void pg_sched_values_release(struct pg_sched_values *v)
{
        free(v->max_ns);
        free(v->avg_ns);
        memset(v, 0, sizeof(*v));
}
