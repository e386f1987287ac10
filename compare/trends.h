/*
 * trends.h - what `perfgate history` shows, computed from a loaded history
 * (baselines/history.h): per benchmark, the series of each gating metric
 * over the commits (median of the repetitions, with their minimum and
 * maximum), its change points (compare/changepoint.h), its latest value and
 * trend, and the self share over time of the benchmark's top functions.
 *
 * Definitions (docs/history.md):
 *  - trend: median of the last w per-commit medians / median of the first w,
 *    minus 1, with w = min(10, max(1, n / 4)) for a series of n commits;
 *  - metrics: those asked for, else each benchmark's gating metrics under
 *    the rules given (pg_rules_get(), simulated defaults for simulated
 *    results);
 *  - top functions: the PG_TRENDS_TOP_FUNCTIONS functions with the highest
 *    mean self share (samples with the function as leaf / all samples) over
 *    the commits that have a profile, as compare/hotspot.h counts it.
 *
 * Ownership: struct pg_trends owns its arrays and strings and borrows the
 * history it was built from (which must outlive it); pg_trends_release().
 */
#ifndef PG_COMPARE_TRENDS_H
#define PG_COMPARE_TRENDS_H

#include <stdbool.h>
#include <stddef.h>

#include "baselines/history.h"
#include "common/buf.h"
#include "compare/changepoint.h"
#include "compare/rules.h"

#define PG_TRENDS_TOP_FUNCTIONS 5
#define PG_TRENDS_TREND_WINDOW  10

struct pg_series_point {
        size_t commit;           /* index into history->points */
        double median, min, max; /* of the repetitions, base units */
        size_t nvalues;          /* repetitions */
};

struct pg_series {
        char *metric;
        char *unit;                  /* "ns", "count", "bytes", "ratio" */
        enum pg_direction direction; /* from the metric's rule */
        size_t n;
        struct pg_series_point *points; /* commit order, oldest first */
        size_t ncp;
        struct pg_changepoint *cps; /* index = position in points[] */
        bool has_trend;             /* n >= 2 and the first window's median != 0 */
        double trend;               /* fraction (0.04 = +4%) */
        size_t trend_window;        /* w above */
};

/** A top function's self share at each commit of its benchmark that has a profile. */
struct pg_function_share {
        char *name;
        double mean_share; /* fraction, over the commits with a profile */
        double *share;     /* one per history point; < 0 where the commit has no profile */
};

struct pg_bench_trends {
        char *name;
        size_t npoints; /* commits that have this benchmark */
        size_t nseries;
        struct pg_series *series;
        size_t nfunctions;
        struct pg_function_share *functions; /* highest mean share first */
};

struct pg_trends {
        const struct pg_history *history; /* borrowed */
        size_t nbench;
        struct pg_bench_trends *bench; /* sorted by name */
};

struct pg_trends_opts {
        size_t nmetrics;
        const char *const *metrics;   /* metrics to chart; 0: each benchmark's gating metrics
                                       under the default rules (compare/rules.h) */
        struct pg_cp_opts cp;         /* change-point options */
        const struct pg_rules *rules; /* which metrics gate and their directions (perfgate.json's
                                         "compare" section); NULL: the defaults */
};

/** Fill @o with the defaults (gating metrics, pg_cp_opts_init()). */
void pg_trends_opts_init(struct pg_trends_opts *o);

/**
 * Build @t (any contents; overwritten) from @h. A metric's series holds the
 * commits where it was counted (status ok); a metric never counted for a
 * benchmark has no series.
 * Errors: PG_EINPUT from pg_changepoints_find() (bad options).
 */
int pg_trends_build(struct pg_trends *t, const struct pg_history *h,
                    const struct pg_trends_opts *o);

void pg_trends_release(struct pg_trends *t);

/**
 * The file name of @benchmark's page in the site (and the stem of its flame
 * graphs): bytes [A-Za-z0-9.-] kept, every other byte (also '_') written as
 * "_xx" (lower-case hex), then ".html"; appended to @out. Injective, safe
 * in a URL and on any file system; `compare --history-url` links to it.
 */
void pg_trends_page_name(struct pg_buf *out, const char *benchmark);

/**
 * The path, within the site, of @benchmark's flame graph at @commit (hex),
 * or with @diff of the differential flame graph across the change point at
 * @commit: "flame/<page stem>.<commit12>.svg" or
 * "flame/<page stem>.diff-<commit12>.svg"; appended to @out.
 */
void pg_trends_flame_path(struct pg_buf *out, const char *benchmark, const char *commit, bool diff);

/**
 * Append @t as JSON (schema "perfgate/history/1", docs/history.md) to @out,
 * deterministically formatted (common/json.h). Errors: PG_EINPUT (a
 * non-finite number: a bug upstream).
 */
int pg_trends_to_json(const struct pg_trends *t, struct pg_buf *out);

#endif
