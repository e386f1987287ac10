/*
 * events.c - the event table and --events lookup (see events.h).
 * Invariant: groups are adjacent in pg_event_table and group 0 (software)
 * comes first; pg_events_parse() keeps table order, so a selection's groups
 * stay adjacent as well.
 */
#include "runner/events.h"

#include <linux/perf_event.h>
#include <string.h>

#include "common/error.h"

/* HW_CACHE config encoding, perf_event_open(2): id | (op << 8) | (result << 16). */
#define PG_CACHE(id, op, res)                                                                      \
        ((uint64_t) (PERF_COUNT_HW_CACHE_##id) | ((uint64_t) (PERF_COUNT_HW_CACHE_OP_##op) << 8) | \
         ((uint64_t) (PERF_COUNT_HW_CACHE_RESULT_##res) << 16))

#define SW(n, c, u, g, k, d)                                                                       \
        {                                                                                          \
                n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, u, g, false, k, d                        \
        }
#define HW(n, c, g, d)                                                                             \
        {                                                                                          \
                n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, "count", g, true, false, d               \
        }
#define HC(n, id, op, res, g)                                                                      \
        {                                                                                          \
                n, PERF_TYPE_HW_CACHE, PG_CACHE(id, op, res), "count", g, true, false, true        \
        }

static const struct pg_event_def pg_event_table[] = {
        /* group 0: software; survives hosts without a PMU */
        SW("task-clock", TASK_CLOCK, "ns", 0, false, true),
        SW("context-switches", CONTEXT_SWITCHES, "count", 0, true, true),
        SW("cpu-migrations", CPU_MIGRATIONS, "count", 0, true, true),
        SW("page-faults", PAGE_FAULTS, "count", 0, false, true),
        SW("cpu-clock", CPU_CLOCK, "ns", 0, false, false),
        SW("minor-faults", PAGE_FAULTS_MIN, "count", 0, false, false),
        SW("major-faults", PAGE_FAULTS_MAJ, "count", 0, false, false),
        SW("alignment-faults", ALIGNMENT_FAULTS, "count", 0, false, false),
        SW("emulation-faults", EMULATION_FAULTS, "count", 0, false, false),
        /* perf stat's default hardware events */
        HW("cycles", CPU_CYCLES, 1, true),
        HW("instructions", INSTRUCTIONS, 1, true),
        HW("branches", BRANCH_INSTRUCTIONS, 1, true),
        HW("branch-misses", BRANCH_MISSES, 1, true),
        HW("cache-references", CACHE_REFERENCES, 2, true),
        HW("cache-misses", CACHE_MISSES, 2, true),
        /* -d */
        HC("L1-dcache-loads", L1D, READ, ACCESS, 3),
        HC("L1-dcache-load-misses", L1D, READ, MISS, 3),
        HC("LLC-loads", LL, READ, ACCESS, 4),
        HC("LLC-load-misses", LL, READ, MISS, 4),
        /* -d -d */
        HC("L1-icache-loads", L1I, READ, ACCESS, 5),
        HC("L1-icache-load-misses", L1I, READ, MISS, 5),
        HC("dTLB-loads", DTLB, READ, ACCESS, 6),
        HC("dTLB-load-misses", DTLB, READ, MISS, 6),
        HC("iTLB-loads", ITLB, READ, ACCESS, 7),
        HC("iTLB-load-misses", ITLB, READ, MISS, 7),
        /* only through --events, one group each */
        HW("ref-cycles", REF_CPU_CYCLES, 8, false),
        HW("bus-cycles", BUS_CYCLES, 9, false),
        HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND, 10, false),
        HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND, 11, false),
};

#define PG_NEVENTS (sizeof(pg_event_table) / sizeof(pg_event_table[0]))
_Static_assert(PG_NEVENTS <= PG_EVENTS_MAX, "PG_EVENTS_MAX too small");

const struct pg_event_def *pg_events_table(size_t *n)
{
        *n = PG_NEVENTS;
        return pg_event_table;
}

const struct pg_event_def *pg_event_find(const char *name)
{
        for (size_t i = 0; i < PG_NEVENTS; i++)
                if (strcmp(pg_event_table[i].name, name) == 0)
                        return &pg_event_table[i];
        return NULL;
}

void pg_events_default(struct pg_event_list *out)
{
        out->n = 0;
        for (size_t i = 0; i < PG_NEVENTS; i++)
                if (pg_event_table[i].is_default)
                        out->ev[out->n++] = &pg_event_table[i];
}

/* Append the valid event names, comma-separated, to @out. */
static void pg_events_names(struct pg_buf *out)
{
        for (size_t i = 0; i < PG_NEVENTS; i++) {
                if (i)
                        pg_buf_puts(out, ", ");
                pg_buf_puts(out, pg_event_table[i].name);
        }
}

int pg_events_parse(struct pg_event_list *out, const char *spec)
{
        bool chosen[PG_NEVENTS] = { false };
        const char *p = spec;

        out->n = 0;
        while (*p) {
                size_t len = strcspn(p, ",");
                const struct pg_event_def *d = NULL;

                for (size_t i = 0; len && i < PG_NEVENTS; i++) {
                        if (strlen(pg_event_table[i].name) == len &&
                            memcmp(pg_event_table[i].name, p, len) == 0) {
                                d = &pg_event_table[i];
                                chosen[i] = true;
                        }
                }
                if (len && !d) {
                        struct pg_buf names = PG_BUF_INIT;
                        int error;
                        pg_events_names(&names);
                        error = pg_error_set(PG_EINPUT, "unknown event '%.*s'; valid events: %s",
                                             (int) len, p, names.ptr);
                        pg_buf_release(&names);
                        return error;
                }
                p += len;
                if (*p == ',')
                        p++;
        }
        for (size_t i = 0; i < PG_NEVENTS; i++)
                if (chosen[i])
                        out->ev[out->n++] = &pg_event_table[i];
        if (!out->n)
                return pg_error_set(PG_EINPUT, "the event list '%s' names no event", spec);
        return 0;
}

void pg_events_filter(struct pg_event_list *l, bool (*keep)(const struct pg_event_def *))
{
        size_t k = 0;
        for (size_t i = 0; i < l->n; i++)
                if (keep(l->ev[i]))
                        l->ev[k++] = l->ev[i];
        l->n = k;
}
