/*
 * cachegrind.h - reading the output file of valgrind's cachegrind
 * (`--cache-sim=yes --branch-sim=yes`), in the format documented in the
 * Valgrind manual, "Cachegrind: a high-precision tracing profiler", section
 * "Cachegrind output file format": `desc:`/`cmd:`/`events:` header lines,
 * `fl=` file and `fn=` function lines, `LINE COUNT...` cost lines (trailing
 * zero counts may be omitted), and a final `summary:` line with the totals.
 * The parser checks the cost lines add up to the summary, which catches a
 * truncated file.
 */
#ifndef PG_RUNNER_CACHEGRIND_H
#define PG_RUNNER_CACHEGRIND_H

#include <stddef.h>
#include <stdint.h>

/* Simulated counters in perf's names, from cachegrind's events. */
enum pg_cg_counter {
        PG_CG_INSTRUCTIONS = 0, /* Ir */
        PG_CG_BRANCHES,         /* Bc + Bi */
        PG_CG_BRANCH_MISSES,    /* Bcm + Bim */
        PG_CG_L1D_LOADS,        /* Dr */
        PG_CG_L1D_LOAD_MISSES,  /* D1mr */
        PG_CG_LLC_LOADS,        /* D1mr: data reads that reach the last level */
        PG_CG_LLC_LOAD_MISSES,  /* DLmr */
        PG_CG_CYCLES,           /* estimate, see pg_cg_counters() */
        PG_CG_NCOUNTERS
};

/** perf's name of @c ("instructions", "branch-misses", ...). */
const char *pg_cg_counter_name(enum pg_cg_counter c);

struct pg_cg_func {
        char *name;        /* function as cachegrind names it (fn=) */
        char *file;        /* source file of its costliest block (fl=) */
        uint64_t *costs;   /* nevents costs, summed over all its blocks */
        uint64_t hot_line; /* source line with the most Ir (0 if unknown) */
        uint64_t hot_line_ir;
};

struct pg_cg {
        size_t nevents;
        char **events;    /* event names from `events:` ("Ir", "I1mr", ...) */
        uint64_t *totals; /* nevents totals from `summary:` */
        char *cmd;        /* the `cmd:` line, or NULL */
        size_t nfuncs;
        struct pg_cg_func *funcs; /* sorted by name */
};

/**
 * Parse @len bytes of a cachegrind output file into @cg (zeroed here;
 * release with pg_cg_release()). @origin names the input in messages.
 * Errors: PG_EINPUT "'<origin>' line N: <what>" for a malformed line, a
 * missing `events:` or `summary:` line, or costs that do not add up to the
 * summary (a truncated file).
 */
int pg_cg_parse(struct pg_cg *cg, const char *text, size_t len, const char *origin);

void pg_cg_release(struct pg_cg *cg);

/**
 * Map @costs (one per cg->events entry, e.g. cg->totals or a function's
 * costs) to perf-named counters in @out[PG_CG_NCOUNTERS]. Missing events
 * count as 0. The cycle estimate is the one iai-callgrind / Gungraun use
 * ("estimated cycles", iai-callgrind-runner/src/runner/callgrind/mod.rs):
 *   L1 hits + 5 x LL hits + 35 x RAM hits, where
 *   RAM hits = ILmr + DLmr + DLmw,
 *   LL hits  = I1mr + D1mr + D1mw - RAM hits,
 *   L1 hits  = Ir + Dr + Dw - (LL hits + RAM hits).
 */
void pg_cg_counters(const struct pg_cg *cg, const uint64_t *costs, double out[PG_CG_NCOUNTERS]);

#endif
