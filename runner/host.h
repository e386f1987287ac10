/*
 * host.h - the host fingerprint stored with every result (DESIGN.md
 * section 4, "host"): CPU model, online CPUs, kernel release, architecture,
 * core PMUs listed in /sys/bus/event_source/devices, whether the machine is
 * virtualized, kernel.perf_event_paranoid, and whether perfgate runs with
 * the privileges that lift that policy (CAP_PERFMON or CAP_SYS_ADMIN).
 * Reading it never fails: what cannot be read is left empty or "unknown".
 */
#ifndef PG_RUNNER_HOST_H
#define PG_RUNNER_HOST_H

#include <stdbool.h>

#include "baselines/result.h"

/**
 * Fill @h (the caller's; freed by pg_result_release() of its result, or
 * pg_host_release()) with this machine's fingerprint. exclude_kernel is left
 * false: the counting runs decide it.
 * Sources: /proc/cpuinfo ("model name", else "Hardware"/"CPU part"; the
 * "hypervisor" flag), uname(2), sysconf(_SC_NPROCESSORS_ONLN),
 * /sys/bus/event_source/devices (a core PMU is "cpu" or one with a "cpus"
 * file, as perf's pmu.c is_sysfs_pmu_core() decides), /sys/hypervisor/type,
 * /proc/sys/kernel/perf_event_paranoid (-9 when unreadable).
 */
void pg_host_probe(struct pg_host *h);

/** Free what pg_host_probe() allocated in @h and zero it. */
void pg_host_release(struct pg_host *h);

/** Copy @src into @dst (deep; @dst is overwritten, not released). */
void pg_host_copy(struct pg_host *dst, const struct pg_host *src);

/**
 * Whether the process may count kernel events regardless of
 * perf_event_paranoid: effective CAP_PERFMON (38) or CAP_SYS_ADMIN (21),
 * read from /proc/self/status "CapEff" (capabilities(7)).
 */
bool pg_host_privileged(void);

#endif
