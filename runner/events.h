/*
 * events.h - the counting events perfgate knows: the `perf stat -d -d` set
 * (perf's names, mapped to perf_event_attr type/config, PERF_TYPE_HW_CACHE
 * encodings included), how they are grouped (DESIGN.md section 3), and the
 * lookup of a user's --events list.
 *
 * Invariants: the table is static and read-only; names are unique; events of
 * one group are adjacent and in the table's order; the software group is
 * group 0 and comes first, so a host without a PMU still has its leader.
 */
#ifndef PG_RUNNER_EVENTS_H
#define PG_RUNNER_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct pg_event_def {
        const char *name; /* perf's name: "task-clock", "L1-dcache-load-misses" */
        uint32_t type;    /* PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE */
        uint64_t config;  /* PERF_COUNT_* or the HW_CACHE id | op << 8 | result << 16 */
        const char *unit; /* unit of the stored value: "ns" or "count" */
        int group;        /* events with the same group are opened as one perf group */
        bool hardware;    /* needs a CPU PMU (HARDWARE or HW_CACHE type) */
        bool kernel_only; /* counts only in the kernel: 0 under exclude_kernel=1 */
        bool is_default;  /* part of the default (perf stat -d -d) set */
};

/** Maximum number of events one selection can hold (the whole table). */
#define PG_EVENTS_MAX 40

/** A selection of events, in table order (so groups stay adjacent). */
struct pg_event_list {
        size_t n;
        const struct pg_event_def *ev[PG_EVENTS_MAX];
};

/**
 * The whole table (borrowed, static), @n gets its length. Default events come
 * first: the software group {task-clock, context-switches, cpu-migrations,
 * page-faults}, then {cycles, instructions, branches, branch-misses},
 * {cache-references, cache-misses}, {L1-dcache-loads, L1-dcache-load-misses},
 * {LLC-loads, LLC-load-misses}, and the -d -d pairs {L1-icache-loads,
 * L1-icache-load-misses}, {dTLB-loads, dTLB-load-misses}, {iTLB-loads,
 * iTLB-load-misses}; then events only --events selects. The HW_CACHE configs
 * follow perf_event_open(2) ("PERF_TYPE_HW_CACHE") and perf's
 * tools/perf/util/parse-events.c names.
 */
const struct pg_event_def *pg_events_table(size_t *n);

/** The event called @name (exact, case-sensitive), or NULL (borrowed). */
const struct pg_event_def *pg_event_find(const char *name);

/** Fill @out with the default set (the perf stat -d -d events). */
void pg_events_default(struct pg_event_list *out);

/**
 * Parse a comma-separated list of perf event names (@spec, e.g.
 * "task-clock,cycles") into @out, in table order, without duplicates.
 * Empty items are ignored.
 * Errors: PG_EINPUT "unknown event 'x'; valid events: ..." naming every
 * valid event; PG_EINPUT when the list names no event.
 */
int pg_events_parse(struct pg_event_list *out, const char *spec);

/** Keep only the events for which @keep(def) is true (in place). */
void pg_events_filter(struct pg_event_list *l, bool (*keep)(const struct pg_event_def *));

#endif
