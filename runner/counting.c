/*
 * counting.c - opening, reading and classifying counting groups (see
 * counting.h for the attributes and fallbacks).
 * Invariants: after pg_counter_set_open() fails nothing is open; c[i].leader
 * is -1 when the event could not be opened, and keeps describing the grouping
 * used after pg_counter_set_close(); a group's members are opened only with
 * their leader's fd, never with a member's.
 */
#include "runner/counting.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/error.h"
#include "runner/host.h"

#define PG_READ_FORMAT_BASE                                                                        \
        (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

static int pg_perf_open_sys(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                            int group_fd, unsigned long flags)
{
        long fd;
        (void) ctx;
        fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
        return fd < 0 ? -errno : (int) fd;
}

/*
 * Fill @a with the attributes perfgate asks for when counting @d.
 * @leader: the event leads its group (disabled = 1, enable_on_exec = 1).
 * @group_read: read_format includes PERF_FORMAT_GROUP.
 * @exclude_kernel: exclude_kernel = exclude_hv = 1.
 * @start_disabled: a leader gets no enable_on_exec (perf stat --delay=-1).
 */
static void pg_counter_attr(struct perf_event_attr *a, const struct pg_event_def *d, bool leader,
                            bool group_read, bool exclude_kernel, bool start_disabled)
{
        memset(a, 0, sizeof(*a));
        a->size = sizeof(*a);
        a->type = d->type;
        a->config = d->config;
        a->read_format = PG_READ_FORMAT_BASE | (group_read ? PERF_FORMAT_GROUP : 0);
        a->disabled = leader;
        a->enable_on_exec = leader && !start_disabled;
        a->inherit = 1;
        a->exclude_kernel = exclude_kernel;
        a->exclude_hv = exclude_kernel;
}

void pg_counter_set_init(struct pg_counter_set *s, const struct pg_event_list *l,
                         const struct pg_counter_opts *o)
{
        memset(s, 0, sizeof(*s));
        s->n = l->n;
        for (size_t i = 0; i < l->n; i++) {
                s->c[i].def = l->ev[i];
                s->c[i].fd = -1;
                s->c[i].leader = -1;
        }
        s->exclude_kernel = o && o->exclude_kernel;
        s->group_read = !(o && o->no_group_read);
        s->start_disabled = o && o->start_disabled;
        s->no_pmu = o && o->no_pmu;
        s->open_fn = o && o->open_fn ? o->open_fn : pg_perf_open_sys;
        s->open_ctx = o ? o->open_ctx : NULL;
}

void pg_counter_set_close(struct pg_counter_set *s)
{
        for (size_t i = 0; i < s->n; i++) {
                if (s->c[i].fd >= 0)
                        close(s->c[i].fd);
                s->c[i].fd = -1;
        }
}

size_t pg_counter_set_leader_fds(const struct pg_counter_set *s, int *out)
{
        size_t n = 0;
        for (size_t i = 0; i < s->n; i++)
                if (s->c[i].fd >= 0 && s->c[i].leader == (int) i)
                        out[n++] = s->c[i].fd;
        return n;
}

bool pg_counter_set_any_open(const struct pg_counter_set *s)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->c[i].fd >= 0)
                        return true;
        return false;
}

/* The errors perf stat reports as <not supported> (builtin-stat.c,
 * stat_handle_error), plus EBUSY: a PMU held exclusively by someone else. */
static bool pg_errno_unsupported(int e)
{
        return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == ENXIO || e == EINVAL ||
               e == ENOSYS || e == EBUSY;
}

/* The types a CPU's PMU serves (perf_event_open(2): PERF_TYPE_HARDWARE and
 * PERF_TYPE_HW_CACHE are generic events the core PMU maps). */
static bool pg_type_needs_pmu(uint32_t type)
{
        return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE;
}

static int pg_open_one(struct pg_counter_set *s, size_t i, pid_t pid, int group_fd, bool leader)
{
        struct perf_event_attr a;
        pg_counter_attr(&a, s->c[i].def, leader, s->group_read, s->exclude_kernel,
                        s->start_disabled);
        return s->open_fn(s->open_ctx, &a, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Why: perf_event_paranoid only binds unprivileged callers, so the same
 * EACCES means different things. Every counter was refused, also with
 * exclude_kernel=1: the kernel's own check (perf_event_open(2), kernel/
 * events/core.c) refuses that only above paranoid 2 (Debian's and
 * Android's level 3 patch) to a process without CAP_PERFMON or
 * CAP_SYS_ADMIN. Otherwise the refusal came from elsewhere - a seccomp
 * filter or a security module's perf_event hook - and no sysctl helps. */
static int pg_perm_error(int e)
{
        char buf[32] = "unknown", *end;
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
        long paranoid;

        if (f) {
                if (!fgets(buf, sizeof(buf), f))
                        strcpy(buf, "unknown");
                buf[strcspn(buf, "\n")] = '\0';
                fclose(f);
        }
        paranoid = strtol(buf, &end, 10);
        if (end != buf && (paranoid <= 2 || pg_host_privileged()))
                return pg_error_set(
                    PG_EPERM,
                    "perf_event_open refused every counter (%s), although "
                    "kernel.perf_event_paranoid is %s, which lets a process count its own "
                    "children in user space%s: the refusal comes from a seccomp profile (a "
                    "container's or a CI runner's) or a security module (SELinux, AppArmor), "
                    "not from the sysctl; allow perf_event_open there (e.g. docker run "
                    "--security-opt seccomp=PROFILE, or --privileged)",
                    strerror(e), buf,
                    pg_host_privileged() ? ", and this process has CAP_PERFMON or CAP_SYS_ADMIN"
                                         : "");
        return pg_error_set(PG_EPERM,
                            "perf_event_open refused every counter (%s, kernel.perf_event_paranoid "
                            "is %s); run as root, grant CAP_PERFMON (setcap cap_perfmon+ep "
                            "perfgate), or lower it with 'sysctl kernel.perf_event_paranoid=2'; "
                            "in a container allow perf_event_open in the seccomp profile",
                            strerror(e), buf);
}

int pg_counter_set_open(struct pg_counter_set *s, pid_t pid)
{
        int perm_errno;
        bool any, no_pmu_seen, hw_asked;

restart:
        perm_errno = 0;
        any = false;
        /* Why: on a host without a core PMU every hardware and cache event
         * fails with ENOENT (no PMU takes the type: kernel/events/core.c,
         * perf_init_event()), 14 calls for the defaults. When sysfs lists no
         * core PMU and the first hardware open confirms it, the rest get that
         * answer without asking. Both must agree: a PMU host answers ENOENT
         * for a single unmapped event (arch/x86/events/core.c,
         * x86_pmu_event_init()), which says nothing about the others. */
        no_pmu_seen = hw_asked = false;
        for (size_t g = 0; g < s->n;) {
                size_t end = g;
                int leader = -1;

                while (end < s->n && s->c[end].def->group == s->c[g].def->group)
                        end++;
                for (size_t i = g; i < end; i++) {
                        struct pg_count *c = &s->c[i];
                        bool as_leader = leader < 0;
                        bool hw = pg_type_needs_pmu(c->def->type);
                        int fd = no_pmu_seen && hw
                                     ? -ENOENT
                                     : pg_open_one(s, i, pid, as_leader ? -1 : s->c[leader].fd,
                                                   as_leader);
                        int e = fd < 0 ? -fd : 0;

                        memset(&c->r, 0, sizeof(c->r));
                        c->leader = -1;
                        if (e == EINVAL && as_leader && s->group_read) {
                                /* inherit + PERF_FORMAT_GROUP is EINVAL before Linux 4.13 */
                                s->group_read = false;
                                fd = pg_open_one(s, i, pid, -1, true);
                                if (fd >= 0) {
                                        close(fd);
                                        s->fell_back_group = true;
                                        pg_counter_set_close(s);
                                        goto restart;
                                }
                                s->group_read = true;
                        }
                        if (e == EINVAL && !as_leader) {
                                /* a member that cannot join its group counts on its own */
                                fd = pg_open_one(s, i, pid, -1, true);
                                e = fd < 0 ? -fd : 0;
                                as_leader = true;
                        }
                        if (s->no_pmu && hw && !hw_asked && e == ENOENT)
                                no_pmu_seen = true;
                        hw_asked = hw_asked || hw;
                        if ((e == EACCES || e == EPERM) && !s->exclude_kernel) {
                                pg_counter_set_close(s);
                                s->exclude_kernel = true;
                                s->fell_back_user = true;
                                goto restart;
                        }
                        if (e == EACCES || e == EPERM) {
                                perm_errno = e;
                                c->r.state = PG_COUNT_NOT_SUPPORTED;
                                c->r.open_errno = e;
                                continue;
                        }
                        if (e && pg_errno_unsupported(e)) {
                                c->r.state = PG_COUNT_NOT_SUPPORTED;
                                c->r.open_errno = e;
                                continue;
                        }
                        if (e) {
                                pg_counter_set_close(s);
                                if (e == ESRCH)
                                        return pg_error_set(PG_EMEASURE,
                                                            "the benchmark process %d is gone "
                                                            "before counting started",
                                                            (int) pid);
                                return pg_error_set(PG_EIO, "cannot open event '%s': %s%s",
                                                    c->def->name, strerror(e), pg_fd_limit_hint(e));
                        }
                        c->fd = fd;
                        if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id) < 0) {
                                e = errno;
                                pg_counter_set_close(s);
                                return pg_error_set(PG_EIO, "cannot get the id of event '%s': %s",
                                                    c->def->name, strerror(e));
                        }
                        if (as_leader && leader < 0)
                                leader = (int) i;
                        c->leader = as_leader ? (int) i : leader;
                        any = true;
                }
                g = end;
        }
        if (!any && perm_errno)
                return pg_perm_error(perm_errno);
        return 0;
}

int pg_counter_decode_group(const uint64_t *buf, size_t nwords, const uint64_t *ids, size_t n,
                            struct pg_count_reading *out)
{
        uint64_t nr;

        if (nwords < 3)
                return pg_error_set(PG_EINPUT, "group read buffer of %zu words is too short",
                                    nwords);
        nr = buf[0];
        if (nr > (nwords - 3) / 2)
                return pg_error_set(PG_EINPUT,
                                    "group read buffer claims %llu events but holds %zu words",
                                    (unsigned long long) nr, nwords);
        for (size_t i = 0; i < n; i++) {
                out[i].raw = 0;
                out[i].enabled_ns = buf[1];
                out[i].running_ns = 0;
                for (uint64_t k = 0; k < nr; k++) {
                        if (buf[3 + 2 * k + 1] == ids[i]) {
                                out[i].raw = buf[3 + 2 * k];
                                out[i].running_ns = buf[2];
                                break;
                        }
                }
        }
        return 0;
}

void pg_count_classify(struct pg_count_reading *r, const struct pg_event_def *d,
                       bool exclude_kernel)
{
        r->value = 0;
        r->coverage = 0;
        if (r->state == PG_COUNT_NOT_SUPPORTED)
                return;
        if (d->kernel_only && exclude_kernel) {
                r->state = PG_COUNT_KERNEL_ONLY;
                return;
        }
        if (r->running_ns == 0) {
                r->state = PG_COUNT_NOT_COUNTED;
                return;
        }
        if (d->type == PERF_TYPE_HARDWARE && r->raw == 0 &&
            (d->config == PERF_COUNT_HW_CPU_CYCLES || d->config == PERF_COUNT_HW_INSTRUCTIONS)) {
                r->state = PG_COUNT_NOT_COUNTED;
                return;
        }
        r->state = PG_COUNT_OK;
        if (r->enabled_ns > r->running_ns) {
                r->coverage = (double) r->running_ns / (double) r->enabled_ns;
                r->value = (double) r->raw * ((double) r->enabled_ns / (double) r->running_ns);
        } else {
                r->coverage = 1.0;
                r->value = (double) r->raw;
        }
}

static int pg_read_words(int fd, uint64_t *buf, size_t nwords, size_t *got, const char *name)
{
        ssize_t n;
        do
                n = read(fd, buf, nwords * sizeof(uint64_t));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return pg_error_set(PG_EIO, "cannot read event '%s': %s", name, strerror(errno));
        *got = (size_t) n / sizeof(uint64_t);
        return 0;
}

int pg_counter_set_read(struct pg_counter_set *s)
{
        uint64_t buf[3 + 2 * PG_EVENTS_MAX] = { 0 };
        size_t got = 0;
        int error;

        for (size_t i = 0; i < s->n; i++) {
                struct pg_count *c = &s->c[i];
                if (c->fd < 0)
                        continue;
                if (!s->group_read) {
                        /* {value, time_enabled, time_running, id} */
                        if ((error = pg_read_words(c->fd, buf, 4, &got, c->def->name)) < 0)
                                return error;
                        if (got < 4 || buf[3] != c->id)
                                return pg_error_set(PG_EIO, "short read of event '%s'",
                                                    c->def->name);
                        c->r.raw = buf[0];
                        c->r.enabled_ns = buf[1];
                        c->r.running_ns = buf[2];
                        continue;
                }
                if (c->leader != (int) i)
                        continue;
                if ((error = pg_read_words(c->fd, buf, sizeof(buf) / sizeof(buf[0]), &got,
                                           c->def->name)) < 0)
                        return error;
                for (size_t k = i; k < s->n; k++) {
                        if (s->c[k].leader != (int) i)
                                continue;
                        if ((error =
                                 pg_counter_decode_group(buf, got, &s->c[k].id, 1, &s->c[k].r)) < 0)
                                return pg_error_prefix(error, "event '%s'", s->c[k].def->name);
                }
        }
        for (size_t i = 0; i < s->n; i++)
                pg_count_classify(&s->c[i].r, s->c[i].def, s->exclude_kernel);
        return 0;
}

/* Why a metric is not OK, for the result's "reason"; @rep is 0-based and only
 * mentioned when earlier repetitions did count the event. */
static char *pg_reason(const struct pg_count_reading *r, size_t rep)
{
        char where[48] = "";

        if (rep > 0)
                snprintf(where, sizeof(where), " in repetition %zu", rep + 1);
        switch (r->state) {
        case PG_COUNT_NOT_SUPPORTED:
                return pg_xasprintf("perf_event_open failed%s: %s%s", where,
                                    strerror(r->open_errno),
                                    r->open_errno == ENOENT ? " (no PMU for this event)" : "");
        case PG_COUNT_NOT_COUNTED:
                return pg_xasprintf(r->running_ns ? "the PMU counted nothing%s"
                                                  : "never scheduled on the PMU "
                                                    "(time_running 0)%s",
                                    where);
        case PG_COUNT_KERNEL_ONLY:
                return pg_xstrdup("counts only in the kernel, and kernel counting was excluded "
                                  "(exclude_kernel=1: no permission, see perf_event_paranoid)");
        case PG_COUNT_OK:
                break;
        }
        return NULL;
}

static enum pg_metric_status pg_metric_status_of(enum pg_count_state s)
{
        switch (s) {
        case PG_COUNT_NOT_SUPPORTED:
                return PG_METRIC_NOT_SUPPORTED;
        case PG_COUNT_NOT_COUNTED:
                return PG_METRIC_NOT_COUNTED;
        case PG_COUNT_KERNEL_ONLY:
                return PG_METRIC_KERNEL_ONLY;
        case PG_COUNT_OK:
                break;
        }
        return PG_METRIC_OK;
}

void pg_counter_metrics_add(struct pg_result *res, const struct pg_event_list *l,
                            const struct pg_count_reading *readings, size_t nreps,
                            struct pg_buf *warnings)
{
        double *values = pg_xcalloc(nreps ? nreps : 1, sizeof(double));
        double *coverage = pg_xcalloc(nreps ? nreps : 1, sizeof(double));

        for (size_t e = 0; e < l->n; e++) {
                const struct pg_count_reading *bad = NULL;
                size_t bad_rep = 0;
                bool scaled = false;
                double min_cov = 1.0;

                for (size_t k = 0; k < nreps; k++) {
                        const struct pg_count_reading *r = &readings[k * l->n + e];
                        if (r->state != PG_COUNT_OK) {
                                bad = r;
                                bad_rep = k;
                                break;
                        }
                        values[k] = r->value;
                        coverage[k] = r->coverage;
                        if (r->coverage < 1.0)
                                scaled = true;
                        if (r->coverage < min_cov)
                                min_cov = r->coverage;
                }
                if (!nreps)
                        continue;
                if (bad) {
                        char *why = pg_reason(bad, bad_rep);
                        pg_result_add_metric(res, l->ev[e]->name, l->ev[e]->unit,
                                             pg_metric_status_of(bad->state), NULL, NULL, 0, why);
                        free(why);
                        continue;
                }
                pg_result_add_metric(res, l->ev[e]->name, l->ev[e]->unit, PG_METRIC_OK, values,
                                     scaled ? coverage : NULL, nreps, NULL);
                if (warnings && min_cov < PG_COVERAGE_LOW)
                        pg_buf_printf(warnings,
                                      "low coverage for '%s': counted %.1f%% of the time "
                                      "(multiplexed; the value is scaled)\n",
                                      l->ev[e]->name, min_cov * 100.0);
        }
        free(values);
        free(coverage);
}
