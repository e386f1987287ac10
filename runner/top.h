/*
 * top.h - `perfgate top` as a library: a live session on a process or the
 * whole system (runner/record.h, pg_live_*), refreshed each interval into
 * entries (comm, dso, symbol of the sampled leaf frame or, for an inlined
 * leaf, of the function it was inlined into: pg_frame_self() in
 * baselines/frame.h; grouped by the sort
 * keys asked for) ranked by their share of a decaying window, as `perf top`
 * keeps it: before each refresh every entry's weight is multiplied by 7/8
 * (tools/perf/util/hist.c, hists__decay_entry), then the interval's samples
 * are added.
 */
#ifndef PG_RUNNER_TOP_H
#define PG_RUNNER_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "common/hashmap.h"
#include "runner/record.h"

enum pg_top_key { PG_TOP_COMM = 0, PG_TOP_DSO, PG_TOP_SYM };

#define PG_TOP_MAX_KEYS 3

/** Decay of the window per refresh: weight = weight * 7 / 8 + new samples. */
#define PG_TOP_DECAY (7.0 / 8.0)

struct pg_top_entry {
        const char *fields[PG_TOP_MAX_KEYS]; /* in sort-key order (borrowed from the top) */
        double weight;                       /* decayed samples */
        double share;                        /* weight / sum of all weights, a fraction */
        uint64_t interval;                   /* samples in the last interval */
};

struct pg_top {
        struct pg_live live;
        enum pg_top_key keys[PG_TOP_MAX_KEYS];
        size_t nkeys;
        struct pg_strmap last; /* folded stack -> index in last_count */
        uint64_t *last_count;  /* its count at the previous refresh */
        size_t cap_last;
        struct pg_strmap entries; /* "field\x1f field..." -> index in ents */
        struct pg_top_entry *ents;
        size_t cap_ents;
        const struct pg_top_entry **ranked; /* the last refresh's ranking */
        struct pg_profile profile;          /* every stack so far (for callers) */
        uint64_t samples;                   /* in the last interval */
        uint64_t lost;                      /* in total */
        uint64_t refreshes;
};

/**
 * Start a top session on @o->pid or the whole system (@o->system_wide)
 * grouping by @keys[0..@nkeys) (1 to 3 distinct keys). On error the caller
 * still calls pg_top_close(). Errors: those of pg_live_open().
 */
int pg_top_open(struct pg_top *t, const struct pg_record_opts *o, const enum pg_top_key *keys,
                size_t nkeys, struct pg_record_info *info);

/**
 * Sample for @interval_ns (shorter when the process exits or SIGINT
 * arrives: see @info), fold, decay and add. Sets *@out to the entries
 * ranked by share (descending, then by fields), *@n to their number
 * (entries whose weight decayed below 0.5 samples are left out); both stay
 * valid until the next refresh or pg_top_close().
 */
void pg_top_refresh(struct pg_top *t, uint64_t interval_ns, struct pg_record_info *info,
                    const struct pg_top_entry ***out, size_t *n);

/**
 * pg_top_refresh() without the wait: fold what pg_live_wait() on t->live
 * drained, decay, add and rank (for a caller that waits in slices, e.g. to
 * read keys).
 */
void pg_top_update(struct pg_top *t, const struct pg_top_entry ***out, size_t *n);

/** A caller of a function and its samples. */
struct pg_top_caller {
        char *name; /* the calling frame, or "[root]" (free() it) */
        uint64_t count;
};

/**
 * The hottest callers of symbol @sym over every sample so far: the frame
 * right above it in each stack whose self frame (pg_frame_self()) it is, summed, at most @max, by
 * count (descending) then name. Returns how many were stored in @out.
 */
size_t pg_top_callers(const struct pg_top *t, const char *sym, struct pg_top_caller *out,
                      size_t max);

/** Stop sampling and free everything (safe after a failed open). */
void pg_top_close(struct pg_top *t);

/**
 * Parse a --sort list ("comm,dso,sym"; "symbol" is "sym") into @keys.
 * Returns the number of keys, or 0 when the list is empty, has an unknown
 * or a repeated key.
 */
size_t pg_top_parse_sort(const char *s, enum pg_top_key keys[PG_TOP_MAX_KEYS]);

#endif
