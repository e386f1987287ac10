/*
 * doctor.c - machine and binary checks behind `perfgate doctor` (doctor.h).
 * Sources: perf_event_open(2) for paranoid levels and errno meanings;
 * Documentation/admin-guide/sysctl/kernel.rst for the kernel.* knobs;
 * docs/doctor.md for what each means
 * here. Each check owns its strings; nothing here prints.
 */
#include "runner/doctor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/demangle.h"
#include "runner/dwarfcheck.h"
#include "runner/events.h"
#include "runner/host.h"
#include "runner/kallsyms.h"
#include "runner/sched.h"
#include "runner/libdw.h"

const char *pg_check_status_name(enum pg_check_status s)
{
        static const char *const names[] = { "ok", "warn", "missing" };
        return (size_t) s < 3 ? names[s] : "unknown";
}

static void pg_add(struct pg_doctor *d, const char *name, enum pg_check_status st,
                   const char *value, const char *meaning, const char *fix)
{
        struct pg_check *c;

        d->checks = pg_xreallocarray(d->checks, d->n + 1, sizeof(*d->checks));
        c = &d->checks[d->n++];
        c->name = pg_xstrdup(name);
        c->status = st;
        c->value = pg_xstrdup(value ? value : "");
        c->meaning = pg_xstrdup(meaning ? meaning : "");
        c->fix = st == PG_CHECK_OK || !fix ? NULL : pg_xstrdup(fix);
}

void pg_doctor_release(struct pg_doctor *d)
{
        for (size_t i = 0; i < d->n; i++) {
                free(d->checks[i].name);
                free(d->checks[i].value);
                free(d->checks[i].meaning);
                free(d->checks[i].fix);
        }
        free(d->checks);
        memset(d, 0, sizeof(*d));
}

/* First line of a small sysfs/procfs file, or NULL (caller frees). */
static char *pg_read_line(const char *path)
{
        struct pg_buf b = PG_BUF_INIT;
        char *nl;

        if (pg_read_file(path, &b) < 0) {
                pg_buf_release(&b);
                return NULL;
        }
        nl = strchr(b.ptr, '\n');
        if (nl)
                pg_buf_truncate(&b, (size_t) (nl - b.ptr));
        return pg_buf_detach(&b, NULL);
}

static long pg_read_long(const char *path, long dflt)
{
        char *s = pg_read_line(path), *end;
        long v = dflt;
        if (s) {
                v = strtol(s, &end, 10);
                if (end == s)
                        v = dflt;
        }
        free(s);
        return v;
}

/* Effective capability bit @cap of this process (from /proc/self/status). */
static bool pg_has_cap(int cap)
{
        struct pg_buf b = PG_BUF_INIT;
        const char *p;
        bool has = false;

        if (pg_read_file("/proc/self/status", &b) == 0 && (p = strstr(b.ptr, "CapEff:")) != NULL)
                has = (strtoull(p + 7, NULL, 16) >> cap) & 1;
        pg_buf_release(&b);
        return has;
}

/* Open @e on this process like the runner would; 0 or the errno. */
static int pg_probe_open(const struct pg_event_def *e, bool exclude_kernel)
{
        struct perf_event_attr a;
        int fd;

        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = e->type;
        a.config = e->config;
        a.disabled = 1;
        a.exclude_kernel = exclude_kernel;
        a.exclude_hv = exclude_kernel;
        fd = (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                return errno;
        close(fd);
        return 0;
}

/* Count task-clock of this process in user space, as a run falls back to
 * at kernel.perf_event_paranoid 2; 0 or the errno. */
static int pg_probe_user_task_clock(void)
{
        size_t nev;
        const struct pg_event_def *table = pg_events_table(&nev);

        for (size_t i = 0; i < nev; i++)
                if (strcmp(table[i].name, "task-clock") == 0)
                        return pg_probe_open(&table[i], true);
        return ENOENT;
}

/*
 * Whether an off-CPU profile can be recorded (runner/offcpu.h): the
 * context-switches event sampled with kernel included and context_switch
 * records, opened on this process as `perfgate run --off-cpu` opens it.
 */
static void pg_check_offcpu(struct pg_doctor *d)
{
        struct perf_event_attr a;
        char value[96];
        int fd, err = 0;

        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a.sample_period = 1;
        a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
        a.context_switch = 1;
        a.disabled = 1;
        fd = (int) syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0)
                err = errno;
        else
                close(fd);
        if (err == 0) {
                pg_add(d, "off-cpu", PG_CHECK_OK, "allowed",
                       "run --off-cpu can record where threads block (context switches "
                       "sampled in the kernel)",
                       NULL);
                return;
        }
        snprintf(value, sizeof(value), "%s (%s)",
                 err == EACCES || err == EPERM ? "permission denied" : "not supported",
                 strerrorname_np(err) ? strerrorname_np(err) : "?");
        pg_add(d, "off-cpu", PG_CHECK_WARN, value,
               "run --off-cpu stores no off-CPU profile: a context switch happens in the "
               "kernel, and an event that excludes the kernel never sees one",
               err == EACCES || err == EPERM
                   ? "sudo sysctl kernel.perf_event_paranoid=1, or grant the perfgate binary "
                     "CAP_PERFMON: sudo setcap cap_perfmon+ep $(command -v perfgate)"
                   : "check that the kernel has CONFIG_PERF_EVENTS");
}

/*
 * Whether scheduler latency can be recorded (runner/sched.h): the sched
 * tracepoints' formats readable in tracefs, and sched_switch opened
 * CPU-wide with raw records, as `perfgate run --sched` opens it.
 */
static void pg_check_sched(struct pg_doctor *d)
{
        struct pg_sched_tp tp;
        int error = pg_sched_probe(&tp);

        if (error == 0) {
                pg_add(d, "sched-latency", PG_CHECK_OK, "allowed",
                       "run --sched can record scheduler latency (CPU-wide sched tracepoints)",
                       NULL);
                return;
        }
        {
                /* runner/sched.c's messages are "CAUSE; WHAT TO DO": the cause
                 * is the value and what to do the one fix line, so that the
                 * tracefs or sysctl command is not printed twice */
                const char *msg = pg_error_last(), *sep = strstr(msg, "; ");
                char *value =
                    pg_xasprintf("%s: %.*s", error == PG_EPERM ? "not permitted" : "not available",
                                 (int) (sep ? (size_t) (sep - msg) : strlen(msg)), msg);
                pg_add(d, "sched-latency", PG_CHECK_WARN, value,
                       "run --sched stores no scheduler latency (its metrics are marked "
                       "not-supported): a wakeup is only seen by CPU-wide sched tracepoints, "
                       "whose raw records and tracefs formats need privileges",
                       sep ? sep + 2
                           : "check that the kernel has its sched tracepoints (CONFIG_TRACEPOINTS, "
                             "CONFIG_FTRACE), then run perfgate doctor again");
                free(value);
        }
        pg_error_clear();
}

static void pg_check_events(struct pg_doctor *d, bool privileged, long paranoid, bool has_pmu)
{
        bool exclude_kernel = !privileged && paranoid >= 2;
        /* an unprivileged process above paranoid 2 is refused by the kernel
         * itself (where a distribution patch gives 3 that meaning); anything
         * else that refuses is a seccomp filter or a security module */
        const char *perm_fix =
            !privileged && paranoid > 2
                ? "sudo sysctl kernel.perf_event_paranoid=1, or grant the perfgate binary "
                  "CAP_PERFMON: sudo setcap cap_perfmon+ep $(command -v perfgate)"
                : "kernel.perf_event_paranoid allows this, so a seccomp profile (a container's "
                  "or a CI runner's) or a security module (SELinux, AppArmor) refuses "
                  "perf_event_open to this process: allow it there";
        int sw_ok = 0;

        size_t nev;
        const struct pg_event_def *table = pg_events_table(&nev);

        for (size_t i = 0; i < nev; i++) {
                const struct pg_event_def *e = &table[i];
                if (!e->is_default)
                        continue;
                char name[64], value[160];
                int err = pg_probe_open(e, exclude_kernel);
                bool hw = e->hardware;

                if (err == EACCES && !exclude_kernel) {
                        err = pg_probe_open(e, true);
                        exclude_kernel = err == 0 ? true : exclude_kernel;
                }
                snprintf(name, sizeof(name), "event:%s", e->name);
                if (err == 0 && e->kernel_only && exclude_kernel) {
                        /* it opens, but counts 0: run records it as kernel-only
                         * (runner/counting.h), which is not measured */
                        pg_add(d, name, PG_CHECK_WARN, "not measured (user space only)",
                               "context switches and CPU migrations happen only in the kernel, "
                               "so counting user space only gives 0 (as perf stat shows): run "
                               "records the event as kernel-only, never as 0",
                               "sudo sysctl kernel.perf_event_paranoid=1, or grant the perfgate "
                               "binary CAP_PERFMON: sudo setcap cap_perfmon+ep $(command -v "
                               "perfgate)");
                } else if (err == 0) {
                        if (!hw)
                                sw_ok++;
                        snprintf(value, sizeof(value), "supported%s",
                                 exclude_kernel ? " (user space only)" : "");
                        pg_add(d, name, PG_CHECK_OK, value, "counted natively", NULL);
                } else if (err == EACCES || err == EPERM) {
                        snprintf(value, sizeof(value), "permission denied (%s)",
                                 strerrorname_np(err));
                        pg_add(d, name, PG_CHECK_MISSING, value,
                               "this event is refused to this process", perm_fix);
                } else {
                        snprintf(value, sizeof(value), "not supported (%s)",
                                 strerrorname_np(err) ? strerrorname_np(err) : "?");
                        pg_add(d, name, hw ? PG_CHECK_MISSING : PG_CHECK_WARN, value,
                               hw ? "recorded as not-supported, never as 0; gate on software "
                                    "metrics or use --counters simulated"
                                  : "this software event is unavailable",
                               hw && !has_pmu ? "run on bare metal or a VM with a virtual PMU "
                                                "(e.g. KVM -cpu host,pmu=on), or use "
                                                "`perfgate run --counters simulated`"
                                              : "check that the kernel has CONFIG_PERF_EVENTS");
                }
        }
        d->can_measure = sw_ok > 0;
}

/* elfutils' libdw and libelf, loaded on first use (runner/libdw.h): a
 * profiled run, annotate and the binary checks need them */
static void pg_check_libdw(struct pg_doctor *d)
{
        if (pg_libdw_init() == 0)
                pg_add(d, "libdw", PG_CHECK_OK,
                       PG_LIBDW_SONAME " and " PG_LIBELF_SONAME " (elfutils)",
                       "sampled stacks can be symbolized, and ELF programs read",
                       "apt-get install libdw1 libelf1");
        else
                pg_add(d, "libdw", PG_CHECK_MISSING, pg_error_last(),
                       "profiled runs, annotate and the binary checks cannot read ELF or DWARF; "
                       "`perfgate run --no-profile` still counts",
                       "apt-get install libdw1 libelf1");
}

static void pg_check_machine(struct pg_doctor *d)
{
        struct pg_buf pmus = PG_BUF_INIT, v = PG_BUF_INIT;
        struct pg_host host;
        char *isolfix;
        bool has_pmu, virt, privileged;
        long paranoid, lv;
        char *s;
        FILE *f;

        pg_host_probe(&host);
        has_pmu = host.npmu > 0;
        virt = host.virtualized;
        for (size_t i = 0; i < host.npmu; i++)
                pg_buf_printf(&pmus, "%s%s", i ? " " : "", host.pmu[i]);
        pg_buf_printf(&v, "core PMU: %s", pmus.len ? pmus.ptr : "none");
        pg_add(d, "pmu", has_pmu ? PG_CHECK_OK : PG_CHECK_MISSING, v.ptr,
               has_pmu ? "hardware counters (cycles, instructions, caches, branches) are available"
                       : "no core PMU: cycles, instructions, branch and cache events are not "
                         "supported; time, software counters and sampling (cpu-clock) still work",
               virt ? "this is a VM without a virtual PMU: use a bare-metal runner, enable the "
                      "vPMU in the hypervisor, or `perfgate run --counters simulated`"
                    : "check that the kernel was built with the CPU's PMU driver");
        pg_add(d, "virtualization", virt ? PG_CHECK_WARN : PG_CHECK_OK,
               virt ? "virtual machine (hypervisor flag)" : "bare metal",
               virt ? "neighbours and the hypervisor add noise; hardware counters are usually "
                      "hidden"
                    : "measurements are free of hypervisor noise",
               "use a dedicated bare-metal runner for gating on hardware counters");
        pg_check_libdw(d);

        /* privileges and paranoid */
        privileged = geteuid() == 0 || pg_host_privileged();
        pg_buf_reset(&v);
        pg_buf_printf(&v, "%s%s%s%s", geteuid() == 0 ? "root" : "not root",
                      pg_has_cap(38) ? ", CAP_PERFMON" : "",
                      pg_has_cap(21) ? ", CAP_SYS_ADMIN" : "",
                      pg_has_cap(34) ? ", CAP_SYSLOG" : "");
        pg_add(d, "privileges", privileged ? PG_CHECK_OK : PG_CHECK_WARN, v.ptr,
               privileged ? "perf_event_paranoid does not restrict this process"
                          : "perf_event_paranoid applies to this user",
               "grant only what is needed: sudo setcap cap_perfmon,cap_syslog+ep $(command -v "
               "perfgate) (cap_syslog: kernel frames get names)");
        paranoid = pg_read_long("/proc/sys/kernel/perf_event_paranoid", 99);
        pg_buf_reset(&v);
        pg_buf_printf(&v, "%ld", paranoid);
        {
                const char *meaning;
                enum pg_check_status st = PG_CHECK_OK;
                if (privileged)
                        meaning = "no effect: this process is privileged";
                else if (paranoid <= -1)
                        meaning = "everything allowed";
                else if (paranoid == 0)
                        meaning = "per-task and CPU-wide events, kernel included";
                else if (paranoid == 1)
                        meaning = "per-task events including kernel; no CPU-wide events";
                else if (paranoid == 2) {
                        meaning =
                            "user space only: kernel time is not sampled, and context-switches "
                            "and cpu-migrations are not measured (kernel-only)";
                        st = PG_CHECK_WARN;
                } else if (pg_probe_user_task_clock() == 0) {
                        /* judged by the probe: a kernel without the distribution
                         * patch that gives 3 its meaning treats it as 2 */
                        meaning = "this kernel treats it as 2 (it has no distribution patch "
                                  "that refuses perf events above 2, as its probe shows): user "
                                  "space only, and context-switches and cpu-migrations are not "
                                  "measured (kernel-only)";
                        st = PG_CHECK_WARN;
                } else {
                        meaning = "perf events refused to unprivileged users (distribution level)";
                        st = PG_CHECK_MISSING;
                }
                pg_add(d, "kernel.perf_event_paranoid", st, v.ptr, meaning,
                       "sudo sysctl kernel.perf_event_paranoid=1 (persist in "
                       "/etc/sysctl.d/99-perfgate.conf), or setcap cap_perfmon+ep on perfgate");
        }
        /* judged by what this process reads: the kernel decides per reader
         * (runner/kallsyms.h, pg_kallsyms_shown()) */
        lv = pg_read_long("/proc/sys/kernel/kptr_restrict", -1);
        pg_buf_reset(&v);
        pg_buf_printf(&v, "%ld", lv);
        {
                bool shown = pg_kallsyms_shown(NULL);
                /* kernel/kallsyms.c, kallsyms_show_value(): at 0 the addresses
                 * are shown to every reader when perf_event_paranoid is 1 or
                 * less, else only to CAP_SYSLOG (as at 1); at 2 to no one
                 * (Documentation/admin-guide/sysctl/kernel.rst) */
                if (!shown && lv == 0 && !privileged)
                        pg_add(d, "kernel.kptr_restrict", PG_CHECK_OK, v.ptr,
                               "the least restrictive setting; /proc/kallsyms shows this "
                               "process only zero addresses because kernel.perf_event_paranoid "
                               "is above 1 (and it lacks CAP_SYSLOG), which also keeps kernel "
                               "frames out of its samples (no CAP_PERFMON): see "
                               "kernel.perf_event_paranoid",
                               NULL);
                else
                        pg_add(
                            d, "kernel.kptr_restrict", shown ? PG_CHECK_OK : PG_CHECK_WARN, v.ptr,
                            shown
                                ? "/proc/kallsyms shows this process kernel addresses: kernel "
                                  "frames get names"
                                : "/proc/kallsyms shows this process only zero addresses: kernel "
                                  "frames stay unnamed (the kernel shows them to CAP_SYSLOG, or to "
                                  "everyone at kernel.perf_event_paranoid 1 or less with "
                                  "kernel.kptr_restrict 0)",
                            lv >= 2 ? "sudo sysctl kernel.kptr_restrict=0 (2 hides them from "
                                      "everyone), then as below"
                                    : "grant CAP_SYSLOG with CAP_PERFMON: sudo setcap "
                                      "cap_perfmon,cap_syslog+ep $(command -v perfgate); or sudo "
                                      "sysctl "
                                      "kernel.kptr_restrict=0 kernel.perf_event_paranoid=1");
        }
        lv = pg_read_long("/proc/sys/kernel/perf_event_max_sample_rate", -1);
        pg_buf_reset(&v);
        pg_buf_printf(&v, "%ld Hz", lv);
        pg_add(d, "kernel.perf_event_max_sample_rate", lv >= 999 ? PG_CHECK_OK : PG_CHECK_WARN,
               v.ptr,
               lv >= 999 ? "sampling at the default 999 Hz is allowed"
                         : "the kernel caps sampling below 999 Hz (it lowers this itself when "
                           "interrupts take too long): profiles get fewer samples",
               "sudo sysctl kernel.perf_event_max_sample_rate=100000, or pass a lower --freq");
        lv = pg_read_long("/proc/sys/kernel/perf_event_max_stack", -1);
        pg_buf_reset(&v);
        pg_buf_printf(&v, "%ld frames", lv);
        pg_add(d, "kernel.perf_event_max_stack", lv >= 127 ? PG_CHECK_OK : PG_CHECK_WARN, v.ptr,
               "deeper call chains are cut at this depth and counted as truncated",
               "sudo sysctl kernel.perf_event_max_stack=512");
        s = pg_read_line("/proc/sys/kernel/nmi_watchdog");
        pg_add(d, "kernel.nmi_watchdog", s && strcmp(s, "1") == 0 ? PG_CHECK_WARN : PG_CHECK_OK,
               s ? s : "not present",
               s && strcmp(s, "1") == 0 ? "the NMI watchdog holds one hardware counter, so "
                                          "event groups multiplex sooner"
                                        : "no hardware counter is held by the watchdog",
               "sudo sysctl kernel.nmi_watchdog=0");
        free(s);
        lv = pg_read_long("/proc/sys/kernel/perf_event_mlock_kb", -1);
        pg_buf_reset(&v);
        pg_buf_printf(&v, "%ld KiB per CPU", lv);
        pg_add(d, "kernel.perf_event_mlock_kb",
               privileged || lv >= 516 ? PG_CHECK_OK : PG_CHECK_WARN, v.ptr,
               "limit on ring-buffer memory for unprivileged sampling (mmap fails with EPERM "
               "beyond it)",
               "sudo sysctl kernel.perf_event_mlock_kb=2048");

        pg_check_events(d, privileged, paranoid, has_pmu);
        pg_check_offcpu(d);
        pg_check_sched(d);

        /* CPU frequency and topology */
        s = pg_read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
        pg_add(d, "cpu.governor", !s || strcmp(s, "performance") == 0 ? PG_CHECK_OK : PG_CHECK_WARN,
               s ? s : "not exposed (typical in VMs)",
               !s ? "frequency scaling is not visible from here"
               : strcmp(s, "performance") == 0
                   ? "cores run at a fixed high frequency"
                   : "the frequency follows load, which adds noise to time metrics",
               "sudo cpupower frequency-set -g performance");
        free(s);
        {
                char *nt = pg_read_line("/sys/devices/system/cpu/intel_pstate/no_turbo");
                char *bo = pg_read_line("/sys/devices/system/cpu/cpufreq/boost");
                bool on = (nt && strcmp(nt, "0") == 0) || (bo && strcmp(bo, "1") == 0);
                pg_add(d, "cpu.boost", on ? PG_CHECK_WARN : PG_CHECK_OK,
                       nt || bo ? (on ? "enabled" : "disabled") : "not exposed",
                       on ? "turbo/boost makes the clock depend on temperature and load"
                          : "no frequency boost noise visible",
                       nt ? "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
                          : "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost");
                free(nt);
                free(bo);
        }
        s = pg_read_line("/sys/devices/system/cpu/smt/active");
        pg_add(d, "cpu.smt", s && strcmp(s, "1") == 0 ? PG_CHECK_WARN : PG_CHECK_OK,
               s ? (strcmp(s, "1") == 0 ? "active" : "inactive") : "not exposed",
               s && strcmp(s, "1") == 0
                   ? "a sibling hyperthread shares the core's caches and pipeline with the "
                     "benchmark"
                   : "no SMT sibling interference",
               "echo off | sudo tee /sys/devices/system/cpu/smt/control, or pin with "
               "--cpus to cores whose siblings are isolated");
        free(s);
        {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                if (n >= 4)
                        isolfix = pg_xasprintf(
                            "reserve CPUs for benchmarks on the kernel command line, e.g. "
                            "isolcpus=%ld-%ld nohz_full=%ld-%ld, reboot, and run `perfgate run "
                            "--cpus %ld-%ld`",
                            n - 2, n - 1, n - 2, n - 1, n - 2, n - 1);
                else
                        isolfix = pg_xasprintf("this machine has %ld CPUs, too few to reserve "
                                               "some for benchmarks: use a runner with 4 or more",
                                               n);
        }
        s = pg_read_line("/sys/devices/system/cpu/isolated");
        pg_add(d, "cpu.isolated", s && *s ? PG_CHECK_OK : PG_CHECK_WARN, s && *s ? s : "none",
               s && *s ? "these CPUs are kept free of other tasks: pass them to `perfgate run "
                         "--cpus`"
                       : "the benchmark shares its CPUs with everything else on the machine",
               isolfix);
        free(isolfix);
        free(s);
        {
                double load = -1;
                long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
                f = fopen("/proc/loadavg", "r");
                if (f) {
                        if (fscanf(f, "%lf", &load) != 1)
                                load = -1;
                        fclose(f);
                }
                pg_buf_reset(&v);
                pg_buf_printf(&v, "%.2f (1 min) on %ld CPUs", load, ncpu);
                pg_add(d, "load",
                       load >= 0 && load < 0.5 * (double) ncpu ? PG_CHECK_OK : PG_CHECK_WARN, v.ptr,
                       load >= 0 && load < 0.5 * (double) ncpu
                           ? "the machine is mostly idle"
                           : "other work is running: time metrics will be noisy",
                       "run benchmarks on a dedicated runner, one job at a time");
        }
        /* valgrind for --counters simulated */
        {
                char *path = getenv("PATH") ? pg_xstrdup(getenv("PATH")) : pg_xstrdup("/usr/bin");
                bool found = false;
                for (char *dir = strtok(path, ":"); dir && !found; dir = strtok(NULL, ":")) {
                        char *p = pg_path_join(dir, "valgrind");
                        found = access(p, X_OK) == 0;
                        free(p);
                }
                free(path);
                pg_add(d, "valgrind", found ? PG_CHECK_OK : PG_CHECK_WARN,
                       found ? "installed" : "not installed",
                       found ? "`perfgate run --counters simulated` can simulate instructions, "
                               "branches and caches where no PMU exists"
                             : "simulated counters (`--counters simulated`) are unavailable",
                       "sudo apt-get install valgrind");
        }
        pg_buf_release(&pmus);
        pg_buf_release(&v);
        pg_host_release(&host);
}

/* ---- binaries --------------------------------------------------------- */

/* A frame pointer set up in the first bytes @p[0..n) of an x86-64
 * function: GCC and Clang emit `push %rbp` (55) and a later
 * `mov %rsp,%rbp` (48 89 e5), not always adjacent because GCC shrink-wraps
 * the set-up past early exits and schedules other instructions between the
 * halves; the Go compiler (cmd/compile, amd64) subtracts the frame first,
 * then saves the caller's %rbp at its top and points %rbp there:
 * `mov %rbp,M(%rsp)` (48 89 6c 24 M, or 48 89 ac 24 M32) and a later
 * `lea M(%rsp),%rbp` (48 8d 6c 24 M, or 48 8d ac 24 M32). */
static bool pg_x86_fp_prologue(const unsigned char *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                bool push = p[i] == 0x55;
                bool save = i + 4 <= n && p[i] == 0x48 && p[i + 1] == 0x89 &&
                            (p[i + 2] == 0x6c || p[i + 2] == 0xac) && p[i + 3] == 0x24;
                if (!push && !save)
                        continue;
                for (size_t j = i + 1; j + 3 <= n; j++) {
                        if (push && j + 3 <= n && p[j] == 0x48 && p[j + 1] == 0x89 &&
                            p[j + 2] == 0xe5)
                                return true;
                        if (save && j + 4 <= n && p[j] == 0x48 && p[j + 1] == 0x8d &&
                            (p[j + 2] == 0x6c || p[j + 2] == 0xac) && p[j + 3] == 0x24)
                                return true;
                }
        }
        return false;
}

static bool pg_a64_fp_prologue(const unsigned char *p, size_t n)
{
        /* stp x29, x30, [sp, #imm]! = 0xa9807bfd | imm7 << 15 */
        for (size_t i = 0; i + 4 <= n; i += 4) {
                uint32_t insn = (uint32_t) p[i] | (uint32_t) p[i + 1] << 8 |
                                (uint32_t) p[i + 2] << 16 | (uint32_t) p[i + 3] << 24;
                if ((insn & 0xffc07fff) == 0xa9807bfd)
                        return true;
        }
        return false;
}

#define PG_PROLOGUE_WINDOW 48

/* The address ranges of one DWARF compile unit. */
struct pg_cu_range {
        uint64_t lo, hi;
        bool toolchain; /* the Rust standard library's, precompiled */
};

static int pg_cu_range_cmp(const void *a, const void *b)
{
        const struct pg_cu_range *x = a, *y = b;
        return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The crates of the Rust sysroot: the standard library's workspace
 * (library/ in rustc's sources) and the crates.io dependencies it vendors,
 * all shipped precompiled (rustc 1.63's library/Cargo.lock and later). */
static const char *const pg_rust_sysroot_crates[] = {
        "std",
        "core",
        "alloc",
        "proc_macro",
        "test",
        "panic_unwind",
        "panic_abort",
        "unwind",
        "compiler_builtins",
        "std_detect",
        "profiler_builtins",
        "rustc_std_workspace_core",
        "rustc_std_workspace_alloc",
        "rustc_std_workspace_std",
        "gimli",
        "addr2line",
        "object",
        "miniz_oxide",
        "adler",
        "adler2",
        "rustc_demangle",
        "hashbrown",
        "memchr",
        "libc",
        "cfg_if",
        "dlmalloc",
        "unicode_width",
        "getopts",
        "allocator_api2",
};

/* Whether the first @len bytes of @name are a sysroot crate's name. */
static bool pg_rust_sysroot_crate(const char *name, size_t len)
{
        for (size_t i = 0; i < sizeof(pg_rust_sysroot_crates) / sizeof(*pg_rust_sysroot_crates);
             i++)
                if (strlen(pg_rust_sysroot_crates[i]) == len &&
                    memcmp(pg_rust_sysroot_crates[i], name, len) == 0)
                        return true;
        return false;
}

/* A compile unit of the precompiled Rust sysroot (std, core, alloc and the
 * crates they vendor), by where its sources were: rustc's own sources are
 * remapped to /rustc/<commit> in rustup's builds (DW_AT_name
 * /rustc/<commit>/library/std/src/lib.rs/@/std.<hash>) and live under
 * /usr/src/rustc-<version> in Debian's (DW_AT_comp_dir, also of the vendored
 * crates: /usr/src/rustc-1.63.0/vendor/rustc-demangle); rustup remaps the
 * vendored crates to /rust/deps/<crate>-<version> (older releases:
 * /cargo/registry/src/...), where only a sysroot crate's unit counts (the
 * name ends in /@/<crate>.<hash>), not a user's dependency built there. */
static bool pg_cu_is_rust_toolchain(Dwarf_Die *cu)
{
        Dwarf_Attribute a;
        const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
        const char *name = dwarf_diename(cu), *at;
        if (dwarf_srclang(cu) != DW_LANG_Rust)
                return false;
        if (pg_str_has_prefix(dir, "/rustc/") || pg_str_has_prefix(dir, "/usr/src/rustc-") ||
            pg_str_has_prefix(name, "/rustc/") || pg_str_has_prefix(name, "/usr/src/rustc-"))
                return true;
        if (!(pg_str_has_prefix(dir, "/rust/deps/") ||
              pg_str_has_prefix(dir, "/cargo/registry/")) ||
            !name || (at = strstr(name, "/@/")) == NULL)
                return false;
        at += 3;
        return pg_rust_sysroot_crate(at, strcspn(at, ".-"));
}

/* A function of a Rust program that no compile unit covers, judged by its
 * name (@sname, the ELF symbol) to come from the precompiled sysroot: the
 * panic runtime's and std's unmangled entry points (rust_begin_unwind,
 * rust_panic, __rust_drop_panic, __rust_foreign_exception,
 * __rust_start_panic, rust_eh_personality, std's default allocator
 * __rdl_*), or a mangled name (legacy or v0, demangled as perf shows it)
 * whose path starts in a sysroot crate: `gimli::read::...`,
 * `<gimli::read::Error as core::fmt::Debug>::fmt` (the type's crate).
 * A generic of std instantiated in the user's crate (alloc::slice::
 * merge_sort<T>) is counted here too: without the crate's DWARF, nothing
 * tells it from std's own code. */
static bool pg_rust_sysroot_name(const char *sname)
{
        static const char *const unmangled[] = {
                "rust_begin_unwind",        "rust_panic",         "__rust_drop_panic",
                "__rust_foreign_exception", "__rust_start_panic", "__rust_panic_cleanup",
                "rust_eh_personality",      "__rust_probestack",  "rust_oom",
        };
        struct pg_buf dm = PG_BUF_INIT;
        const char *p;
        bool tc;

        for (size_t i = 0; i < sizeof(unmangled) / sizeof(*unmangled); i++)
                if (strcmp(sname, unmangled[i]) == 0)
                        return true;
        if (pg_str_has_prefix(sname, "__rdl_"))
                return true;
        /* not pg_demangle_is_rust(): it wants the legacy hash last, which
         * long names with an LLVM suffix do not pass */
        if (!pg_str_has_prefix(sname, "_ZN") && !pg_str_has_prefix(sname, "_R"))
                return false;
        pg_demangle(&dm, sname);
        p = dm.ptr;
        /* <&mut T as Trait>: the crate of the type's path */
        while (*p == '<' || *p == '&' || *p == '*' || *p == '[' || *p == ' ')
                p++;
        for (;;) {
                if (pg_str_has_prefix(p, "mut "))
                        p += 4;
                else if (pg_str_has_prefix(p, "const "))
                        p += 6;
                else if (pg_str_has_prefix(p, "dyn "))
                        p += 4;
                else
                        break;
        }
        tc = strstr(p, "::") != NULL && pg_rust_sysroot_crate(p, (size_t) (strstr(p, "::") - p)) &&
             strcspn(p, " <>&*[],") >= (size_t) (strstr(p, "::") - p);
        pg_buf_release(&dm);
        return tc;
}

/* The compile units' ranges of @e, sorted by start, into *out (malloc'd,
 * *n entries); sets *rust when a unit is Rust. No DWARF: *n = 0. */
static void pg_cu_ranges(Elf *e, struct pg_cu_range **out, size_t *n, bool *rust)
{
        Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
        Dwarf_CU *cu = NULL;
        Dwarf_Die cudie;
        size_t cap = 0;

        *out = NULL;
        *n = 0;
        if (!dw)
                return;
        while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
                Dwarf_Addr base, lo, hi;
                ptrdiff_t off = 0;
                bool tc = pg_cu_is_rust_toolchain(&cudie);
                if (dwarf_srclang(&cudie) == DW_LANG_Rust)
                        *rust = true;
                while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
                        if (hi <= lo)
                                continue;
                        if (*n == cap) {
                                cap = cap ? 2 * cap : 64;
                                *out = pg_xrealloc(*out, cap * sizeof(**out));
                        }
                        (*out)[(*n)++] = (struct pg_cu_range){ lo, hi, tc };
                }
        }
        dwarf_end(dw);
        if (*n)
                qsort(*out, *n, sizeof(**out), pg_cu_range_cmp);
}

/* The compile unit range holding @addr, or NULL. */
static const struct pg_cu_range *pg_cu_find(const struct pg_cu_range *r, size_t n, uint64_t addr)
{
        size_t lo = 0, hi = n;
        while (lo < hi) { /* first range starting after addr */
                size_t mid = lo + (hi - lo) / 2;
                if (r[mid].lo <= addr)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo > 0 && addr < r[lo - 1].hi ? &r[lo - 1] : NULL;
}

/* NAME.cold or NAME.cold.N: a part GCC moved out of NAME's body. */
static bool pg_is_cold_part(const char *name)
{
        const char *p = strstr(name, ".cold");
        while (p) {
                const char *q = p + 5;
                if (*q == '.')
                        for (q++; *q >= '0' && *q <= '9'; q++)
                                ;
                if (*q == '\0')
                        return true;
                p = strstr(p + 1, ".cold");
        }
        return false;
}

/* A Go program: the Go linker writes its build ID note and build info. */
static bool pg_elf_is_go(Elf *e)
{
        Elf_Scn *scn = NULL;
        size_t shstrndx;
        if (elf_getshdrstrndx(e, &shstrndx) < 0)
                return false;
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                GElf_Shdr sh;
                const char *sn;
                if (gelf_getshdr(scn, &sh) && (sn = elf_strptr(e, shstrndx, sh.sh_name)) &&
                    (strcmp(sn, ".note.go.buildid") == 0 || strcmp(sn, ".go.buildinfo") == 0))
                        return true;
        }
        return false;
}

int pg_elf_frame_pointers(const char *path, struct pg_fp_share *out)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        Elf *e = NULL;
        Elf_Scn *scn = NULL;
        GElf_Ehdr eh;
        int symtab_type = SHT_SYMTAB;
        struct pg_cu_range *cus = NULL;
        size_t ncus = 0;
        bool rust = false, own = false;

        memset(out, 0, sizeof(*out));
        if (fd < 0)
                return pg_error_set(PG_EINPUT, "cannot open '%s': %s", path, strerror(errno));
        if (pg_libdw_init() < 0) {
                close(fd);
                return PG_EIO;
        }
        e = elf_begin(fd, ELF_C_READ, NULL);
        if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
                if (e)
                        elf_end(e);
                close(fd);
                return pg_error_set(PG_EINPUT, "'%s' is not an ELF file", path);
        }
        out->lang = pg_elf_is_go(e) ? PG_FP_GO : PG_FP_NATIVE;
        pg_cu_ranges(e, &cus, &ncus, &rust);
        if (rust && out->lang == PG_FP_NATIVE)
                out->lang = PG_FP_RUST;
        /* judge the code the user compiled: with debug info, the functions
         * inside compile units not of the Rust standard library (crt and
         * libraries without debug info are not theirs to rebuild) */
        for (size_t i = 0; i < ncus && !own; i++)
                own = !cus[i].toolchain;
        out->own_only = own;
again:
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                GElf_Shdr sh;
                Elf_Data *data;
                size_t count;
                if (!gelf_getshdr(scn, &sh) || sh.sh_type != (unsigned) symtab_type ||
                    !sh.sh_entsize)
                        continue;
                data = elf_getdata(scn, NULL);
                count = sh.sh_size / sh.sh_entsize;
                for (size_t i = 0; data && i < count; i++) {
                        GElf_Sym sym;
                        Elf_Scn *tscn;
                        GElf_Shdr tsh;
                        Elf_Data *tdata;
                        size_t off, win, len;
                        const unsigned char *code;
                        const struct pg_cu_range *cu;
                        bool fp = false;
                        const char *sname;
                        if (!gelf_getsym(data, (int) i, &sym) ||
                            GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
                            sym.st_shndx >= SHN_LORESERVE || sym.st_size < 8)
                                continue;
                        /* GCC's cold part of a function (NAME.cold, hot/cold
                         * partitioning) runs in its parent's frame */
                        sname = elf_strptr(e, sh.sh_link, sym.st_name);
                        if (sname && pg_is_cold_part(sname))
                                continue;
                        tscn = elf_getscn(e, sym.st_shndx);
                        if (!tscn || !gelf_getshdr(tscn, &tsh) || tsh.sh_type != SHT_PROGBITS ||
                            !(tsh.sh_flags & SHF_EXECINSTR) || sym.st_value < tsh.sh_addr)
                                continue;
                        off = sym.st_value - tsh.sh_addr;
                        tdata = elf_getdata(tscn, NULL);
                        if (!tdata || !tdata->d_buf || off + 8 > tdata->d_size)
                                continue;
                        code = (const unsigned char *) tdata->d_buf + off;
                        len =
                            off + sym.st_size <= tdata->d_size ? sym.st_size : tdata->d_size - off;
                        win = len < PG_PROLOGUE_WINDOW ? len : PG_PROLOGUE_WINDOW;
                        /* leaf functions (no direct call) need no frame: GCC
                         * omits it even with -fno-omit-frame-pointer unless
                         * -mno-omit-leaf-frame-pointer, so judge callers only */
                        if (eh.e_machine == EM_X86_64 && !memchr(code, 0xe8, len))
                                continue;
                        cu = ncus ? pg_cu_find(cus, ncus, sym.st_value) : NULL;
                        if ((cu && cu->toolchain) || (!cu && out->lang == PG_FP_RUST && sname &&
                                                      pg_rust_sysroot_name(sname))) {
                                out->toolchain++;
                                continue;
                        }
                        if (own && !cu)
                                continue;
                        out->examined++;
                        if (eh.e_machine == EM_X86_64)
                                fp = pg_x86_fp_prologue(code, win);
                        else if (eh.e_machine == EM_AARCH64)
                                fp = pg_a64_fp_prologue(code, win);
                        out->with_fp += fp;
                }
        }
        if (!out->examined && !out->toolchain && symtab_type == SHT_SYMTAB) {
                symtab_type = SHT_DYNSYM;
                scn = NULL;
                goto again;
        }
        free(cus);
        elf_end(e);
        close(fd);
        return 0;
}

size_t pg_elf_frame_pointer_share(const char *path, size_t *with_fp)
{
        struct pg_fp_share s;
        if (pg_elf_frame_pointers(path, &s) < 0)
                s.examined = s.with_fp = 0;
        *with_fp = s.with_fp;
        return s.examined;
}

/* The frame-pointer check of @path (name @name) into @d: the share of the
 * user's own non-leaf functions that set up a frame pointer, and the fix in
 * the terms of the binary's language. @eh: 1 when the file's call-frame
 * information in .eh_frame covers its code, from which a profile recovers
 * the caller of a leaf that set up no frame (docs/run.md, "Profile"); 0
 * when it has no .eh_frame (Go writes .debug_frame only); -1 when it has one
 * that leaves the Go code out (cgo: the FDEs cover the C code only). */
static void pg_check_frame_pointers(struct pg_doctor *d, const char *name, const char *path, int eh)
{
        const char *leaf =
            eh > 0   ? "a sample in a leaf function without a frame keeps its "
                       "caller (perfgate reads it from .eh_frame; perf record -g "
                       "loses it)"
            : eh < 0 ? "a sample in a Go leaf function without a frame skips its caller: Go "
                       "writes .debug_frame only, and the .eh_frame that cgo links in covers "
                       "only the C code (--call-graph dwarf shows the caller)"
                     : "a sample in a leaf function without a frame skips its "
                       "caller (the file has no .eh_frame to recover it from; "
                       "--call-graph dwarf shows it)";
        struct pg_fp_share s;
        char value[512], extra[160] = "", *meaning;
        const char *fix;
        double share;

        if (pg_elf_frame_pointers(path, &s) < 0)
                s.examined = 0;
        fix = s.lang == PG_FP_GO ? "run with --call-graph dwarf (the Go toolchain has no switch "
                                   "for frame pointers)"
              : s.lang == PG_FP_RUST ? "rebuild with RUSTFLAGS='-C force-frame-pointers=yes', or "
                                       "run with --call-graph dwarf"
                                     : "rebuild with -fno-omit-frame-pointer "
                                       "-mno-omit-leaf-frame-pointer, or run with --call-graph "
                                       "dwarf";
        if (!s.examined) {
                pg_add(d, name, PG_CHECK_WARN,
                       s.toolchain ? "cannot judge (no function of your own with a call)"
                                   : "cannot judge (no function symbols)",
                       "frame-pointer call chains may be shallow", fix);
                return;
        }
        share = (double) s.with_fp / (double) s.examined;
        if (s.lang == PG_FP_RUST && s.toolchain)
                snprintf(extra, sizeof(extra), "; Rust standard library excluded: %zu functions",
                         s.toolchain);
        else if (s.lang == PG_FP_GO)
                snprintf(extra, sizeof(extra), "; Go keeps frame pointers on amd64 and arm64");
        /* leaf functions: GCC gives them no frame even with
         * -mno-omit-leaf-frame-pointer when they use no stack */
        snprintf(value, sizeof(value),
                 "%zu of %zu %snon-leaf functions (%.0f%%) set up a frame pointer (%sleaf "
                 "functions not judged%s)",
                 s.with_fp, s.examined, s.own_only && s.lang != PG_FP_GO ? "of your " : "",
                 100 * share, s.own_only && s.lang != PG_FP_GO ? "functions with debug info; " : "",
                 extra);
        /* Debian's and rustup's libstd are built without frame pointers:
         * perf record -g shows __libc_start_call_main >
         * std::rt::lang_start_internal > ..., without main and
         * std::rt::lang_start */
        meaning =
            share < 0.5 ? pg_xstrdup("frame-pointer call chains will lose callers: stacks "
                                     "look flat or split")
            : s.lang == PG_FP_RUST && s.toolchain
                ? pg_xasprintf("frame-pointer call chains (the default) go up through "
                               "your functions, then stop in the precompiled Rust "
                               "standard library (built without frame pointers): they "
                               "reach std::rt::lang_start_internal and skip its callers "
                               "std::rt::lang_start and main (--call-graph dwarf shows "
                               "them); %s",
                               leaf)
                : pg_xasprintf("frame-pointer call chains (the default) reach main; %s", leaf);
        pg_add(d, name, share >= 0.5 ? PG_CHECK_OK : PG_CHECK_WARN, value, meaning, fix);
        free(meaning);
}

/*
 * The DWARF in @e that libdw cannot read (runner/dwarfcheck.h), as check
 * @name: debug sections compressed with what libelf cannot decompress, or
 * skeleton units (-gsplit-dwarf) whose .dwo files are not found (or not
 * regular files: not opened), @path being the file @e was read from. true when
 * it added the check (a problem, or split DWARF that reads whole), false
 * when the DWARF is in the file as usual.
 */
static bool pg_check_dwarf_readable(struct pg_doctor *d, const char *name, const char *path, Elf *e)
{
        Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
        Dwarf_CU *cu = NULL;
        Dwarf_Die cudie, split;
        size_t nskel = 0, nmissing = 0;
        struct pg_buf first = PG_BUF_INIT;
        char value[1024], tbuf[32];
        uint32_t type;

        if (dw == NULL) {
                if ((type = pg_elf_debug_compression(e)) == 0)
                        return false;
                snprintf(value, sizeof(value),
                         "DWARF in the file, %s-compressed, which this libelf cannot decompress",
                         pg_elf_compression_name(type, tbuf, sizeof(tbuf)));
                pg_add(d, name, PG_CHECK_WARN, value,
                       "no inlined frames or source lines (names come from the symbol table); "
                       "elfutils reads zstd from 0.189 on",
                       "link with -Wl,--compress-debug-sections=zlib (or none), or run objcopy "
                       "--decompress-debug-sections on the binary");
                return true;
        }
        while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
                if (pg_dwarf_split_unit(&cudie, path, &split, nmissing == 0 ? &first : NULL)) {
                        nskel++;
                        nmissing += split.addr == NULL;
                }
        dwarf_end(dw);
        if (nskel == 0)
                return false;
        if (nmissing == 0) {
                snprintf(value, sizeof(value),
                         "DWARF in the file, split into %zu .dwo file%s, all found", nskel,
                         nskel == 1 ? "" : "s");
                pg_add(d, name, PG_CHECK_OK, value,
                       "inlined frames and source lines can be shown (keep the .dwo files where "
                       "the binary names them: DW_AT_comp_dir/DW_AT_dwo_name)",
                       NULL);
        } else {
                snprintf(value, sizeof(value),
                         "DWARF in the file, split into %zu .dwo files: %zu not read (the "
                         "first: %s)",
                         nskel, nmissing, first.ptr);
                pg_add(d, name, PG_CHECK_WARN, value,
                       "the code of those units has no inlined frames (libdw reads .dwp "
                       "packages from elfutils 0.190 on)",
                       "keep the .dwo files where the binary names them, or build without "
                       "-gsplit-dwarf");
        }
        pg_buf_release(&first);
        return true;
}

/*
 * The debug info of a Rust program (@e), as check @name, when the DWARF in
 * it is only the precompiled sysroot's (Debian's and rustup's libstd carry
 * theirs): Cargo's release profile builds the user's crate with `debug = 0`,
 * so its compile units are absent (or have no line table) although the file
 * has .debug_info. true when it added the check (that warning), false when
 * the program is not Rust or its own units have line tables.
 */
static bool pg_check_rust_debuginfo(struct pg_doctor *d, const char *name, Elf *e)
{
        Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
        Dwarf_CU *cu = NULL;
        Dwarf_Die cudie;
        size_t nsys = 0, nown = 0, nlines = 0;
        char value[256];

        if (!dw)
                return false;
        /* a unit of another language with a line table (C built with -g
         * by a build script, a C program linking a Rust library) is the
         * user's code with source lines: no warning */
        while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
                if (pg_cu_is_rust_toolchain(&cudie)) {
                        nsys++;
                        continue;
                }
                nown += dwarf_srclang(&cudie) == DW_LANG_Rust;
                nlines += dwarf_hasattr(&cudie, DW_AT_stmt_list) != 0;
        }
        dwarf_end(dw);
        if (nsys == 0 || nlines > 0)
                return false;
        snprintf(value, sizeof(value),
                 nown ? "DWARF in the file, but your crate's %zu compile unit%s no line table "
                        "(the rest is the precompiled Rust standard library's)"
                      : "DWARF in the file, all of it the precompiled Rust standard library's "
                        "(%zu compile units): none for your crate",
                 nown ? nown : nsys, nown == 1 ? " has" : "s have");
        pg_add(d, name, PG_CHECK_WARN, value,
               "your functions get names from the symbol table, but no source lines or "
               "inlined frames: annotate's source view shows \"(no line table entry)\" and "
               "hotspots no FILE:LINE (Cargo's release profile builds with debug = 0)",
               "in Cargo.toml set [profile.release] debug = 1 (or build with "
               "CARGO_PROFILE_RELEASE_DEBUG=1; debug = \"line-tables-only\" needs Rust 1.71), "
               "or pass rustc -C debuginfo=1");
        return true;
}

/* Whether the .eh_frame of Go program @e covers its Go code: the Go
 * linker writes .debug_frame only, and a cgo program's .eh_frame (from the
 * C compiler and the C libraries linked in) has FDEs for the C code alone.
 * Judged at main.main (else runtime.main): true when an FDE covers it. */
static bool pg_go_eh_covers(Elf *e)
{
        Elf_Scn *scn = NULL;
        GElf_Addr addr = 0;
        Dwarf_CFI *cfi;
        Dwarf_Frame *fr = NULL;
        bool covered;

        while ((scn = elf_nextscn(e, scn)) != NULL && !addr) {
                GElf_Shdr sh;
                Elf_Data *data;
                if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
                    (data = elf_getdata(scn, NULL)) == NULL)
                        continue;
                for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
                        GElf_Sym sym;
                        const char *sn;
                        if (!gelf_getsym(data, (int) i, &sym) ||
                            GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
                            (sn = elf_strptr(e, sh.sh_link, sym.st_name)) == NULL)
                                continue;
                        if (strcmp(sn, "main.main") == 0) {
                                addr = sym.st_value;
                                break;
                        }
                        if (strcmp(sn, "runtime.main") == 0)
                                addr = sym.st_value;
                }
        }
        if (!addr || (cfi = dwarf_getcfi_elf(e)) == NULL)
                return false;
        covered = dwarf_cfi_addrframe(cfi, addr, &fr) == 0;
        free(fr);
        dwarf_cfi_end(cfi);
        return covered;
}

/* Inspect sections: symtab, debug_info, build-id note, debuglink; PIE. */
static void pg_check_binary(struct pg_doctor *d, const char *path)
{
        /* O_NONBLOCK: a FIFO named on the command line is refused below,
         * not waited on */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), open_errno = errno;
        Elf *e = NULL;
        Elf_Scn *scn = NULL;
        GElf_Ehdr eh;
        size_t shstrndx, nph = 0;
        bool has_symtab = false, has_debug = false, pie = false, has_interp = false, has_eh = false;
        char *debuglink = NULL, *buildid = NULL, name[512], value[1024];
        struct pg_buf dbg = PG_BUF_INIT;
        struct stat st;

        snprintf(name, sizeof(name), "binary:%s", path); /* the checks that end it early */
        if (fd < 0) {
                snprintf(value, sizeof(value), "cannot open: %s", strerror(open_errno));
                pg_add(d, name, PG_CHECK_MISSING, value, "perfgate cannot inspect this file",
                       "check the path");
                return;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                pg_add(d, name, PG_CHECK_MISSING, "not a regular file",
                       "perfgate doctor inspects a program's file (a device, FIFO or directory "
                       "is none)",
                       "point perfgate doctor at the compiled program");
                goto done;
        }
        if (pg_libdw_init() < 0) {
                pg_add(d, name, PG_CHECK_MISSING, "cannot inspect: libdw is not loaded",
                       "perfgate reads ELF programs with elfutils' libdw and libelf (see the "
                       "libdw check)",
                       "apt-get install libdw1 libelf1");
                goto done;
        }
        e = elf_begin(fd, ELF_C_READ, NULL);
        if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
            elf_getshdrstrndx(e, &shstrndx) < 0) {
                char magic[2] = { 0, 0 };
                bool script = pread(fd, magic, 2, 0) == 2 && magic[0] == '#' && magic[1] == '!';
                pg_add(d, name, PG_CHECK_MISSING,
                       script ? "a script, not an ELF file" : "not an ELF file",
                       script ? "scripts are measured, but their frames are the interpreter's"
                              : "perfgate doctor reads ELF programs (symbols, debug info)",
                       "point perfgate doctor at the compiled program");
                goto done;
        }
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                GElf_Shdr sh;
                const char *sn;
                if (!gelf_getshdr(scn, &sh) || !(sn = elf_strptr(e, shstrndx, sh.sh_name)))
                        continue;
                if (sh.sh_type == SHT_SYMTAB)
                        has_symtab = true;
                if (strcmp(sn, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS)
                        has_debug = true;
                if (strcmp(sn, ".eh_frame") == 0 && sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
                        has_eh = true;
                if (strcmp(sn, ".gnu_debuglink") == 0) {
                        Elf_Data *dd = elf_getdata(scn, NULL);
                        if (dd && dd->d_size > 1)
                                debuglink = pg_xstrndup(dd->d_buf, dd->d_size);
                }
                if (sh.sh_type == SHT_NOTE && strcmp(sn, ".note.gnu.build-id") == 0) {
                        Elf_Data *dd = elf_getdata(scn, NULL);
                        const unsigned char *p = dd ? dd->d_buf : NULL;
                        if (p && dd->d_size >= 16) {
                                uint32_t namesz, descsz;
                                memcpy(&namesz, p, 4);
                                memcpy(&descsz, p + 4, 4);
                                size_t off = 12 + ((namesz + 3) & ~3u);
                                if (off + descsz <= dd->d_size && descsz > 1 && descsz <= 64) {
                                        struct pg_buf h = PG_BUF_INIT;
                                        pg_buf_hex(&h, p + off, descsz);
                                        buildid = pg_buf_detach(&h, NULL);
                                }
                        }
                }
        }
        if (elf_getphdrnum(e, &nph) == 0)
                for (size_t i = 0; i < nph; i++) {
                        GElf_Phdr ph;
                        if (gelf_getphdr(e, (int) i, &ph) && ph.p_type == PT_INTERP)
                                has_interp = true;
                }
        pie = eh.e_type == ET_DYN && has_interp;

        snprintf(name, sizeof(name), "binary:%s:symbols", path);
        pg_add(d, name, has_symtab ? PG_CHECK_OK : PG_CHECK_WARN,
               has_symtab ? "not stripped" : "stripped (.symtab removed)",
               has_symtab ? "static functions get names"
                          : "only exported functions get names unless separate debuginfo is found",
               "keep symbols in benchmark builds, or ship debuginfo (objcopy --only-keep-debug)");

        if (has_debug) {
                pg_buf_puts(&dbg, "DWARF in the file");
        } else if (buildid && strlen(buildid) > 2) {
                char *p =
                    pg_xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", buildid, buildid + 2);
                if (access(p, R_OK) == 0)
                        pg_buf_printf(&dbg, "by build-id: %s", p);
                free(p);
        }
        if (!dbg.len && debuglink) {
                char *dir = pg_xstrdup(path), *slash = strrchr(dir, '/');
                char *cands[3];
                if (slash)
                        *slash = '\0';
                else
                        strcpy(dir, ".");
                cands[0] = pg_xasprintf("%s/%s", dir, debuglink);
                cands[1] = pg_xasprintf("%s/.debug/%s", dir, debuglink);
                cands[2] =
                    pg_xasprintf("/usr/lib/debug%s%s/%s", dir[0] == '/' ? "" : "/", dir, debuglink);
                for (int i = 0; i < 3; i++) {
                        if (!dbg.len && strcmp(cands[i], path) != 0 && access(cands[i], R_OK) == 0)
                                pg_buf_printf(&dbg, "by debuglink: %s", cands[i]);
                        free(cands[i]);
                }
                free(dir);
        }
        snprintf(name, sizeof(name), "binary:%s:debuginfo", path);
        if (has_debug &&
            (pg_check_dwarf_readable(d, name, path, e) || pg_check_rust_debuginfo(d, name, e)))
                goto frame_pointers;
        pg_add(d, name, dbg.len ? PG_CHECK_OK : PG_CHECK_WARN, dbg.len ? dbg.ptr : "none found",
               dbg.len ? "inlined frames and source lines can be shown"
                       : "no inlined frames or source lines; `--call-graph dwarf` still unwinds "
                         "through .eh_frame",
               "build with -g, or install the debug package / put NAME.debug beside the binary "
               "or under /usr/lib/debug/.build-id/");

frame_pointers:
        snprintf(name, sizeof(name), "binary:%s:frame-pointers", path);
        pg_check_frame_pointers(d, name, path,
                                has_eh && pg_elf_is_go(e) ? (pg_go_eh_covers(e) ? 1 : -1) : has_eh);
        snprintf(name, sizeof(name), "binary:%s:pie", path);
        pg_add(d, name, PG_CHECK_OK,
               pie ? "position-independent executable"
                   : (eh.e_type == ET_EXEC ? "fixed-address executable" : "shared object"),
               "symbolization handles either (load bias computed from PT_LOAD)", NULL);
done:
        free(debuglink);
        free(buildid);
        pg_buf_release(&dbg);
        if (e)
                elf_end(e);
        close(fd);
}

void pg_doctor_run(struct pg_doctor *d, char *const *binaries, size_t nbin)
{
        memset(d, 0, sizeof(*d));
        pg_check_machine(d);
        for (size_t i = 0; i < nbin; i++)
                pg_check_binary(d, binaries[i]);
}
