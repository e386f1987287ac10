/*
 * jitmap.h - JIT symbol maps, /tmp/perf-PID.map (the format perf reads:
 * one symbol per line, "START SIZE NAME", START and SIZE in hex with or
 * without "0x"; tools/perf/util/symbol.c in the Linux source).
 * Lines that do not parse are skipped; the later of overlapping entries wins.
 */
#ifndef PG_RUNNER_JITMAP_H
#define PG_RUNNER_JITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_jitsym {
        uint64_t start, size;
        char *name;
        size_t seq; /* order of addition: of two entries covering an address, the later wins */
};

struct pg_jitmap {
        struct pg_jitsym *syms; /* sorted by start */
        uint64_t *max_end;      /* [i]: furthest start + size of syms[0..i] (pg_jitmap_sort) */
        size_t n, cap;
        bool loaded; /* a file was read */
};

/** Load @path; a missing file leaves an empty map (loaded = false). */
void pg_jitmap_load(struct pg_jitmap *m, const char *path);

/** Parse map text (@len bytes) into @m (for tests and for pg_jitmap_load). */
void pg_jitmap_parse(struct pg_jitmap *m, const char *text, size_t len);

/** Append a symbol (@name is @len bytes, copied); call pg_jitmap_sort() before lookups. */
void pg_jitmap_add(struct pg_jitmap *m, uint64_t start, uint64_t size, const char *name,
                   size_t len);

/** Sort @m by start, keeping the order of addition among equal starts. */
void pg_jitmap_sort(struct pg_jitmap *m);

void pg_jitmap_release(struct pg_jitmap *m);

/** Entries a lookup examines at most (a pathological map stays fast). */
#define PG_JITMAP_SCAN_MAX 65536

/**
 * The symbol covering @addr (start <= addr < start + size), or NULL; of
 * several that cover it, the one added last (the later load: perf's
 * perf-PID.map and jitdump readers let a later entry replace an earlier
 * one). Examines the entries that start at or before @addr and can still
 * reach it, at most PG_JITMAP_SCAN_MAX of them. Call pg_jitmap_sort()
 * after adding.
 */
const struct pg_jitsym *pg_jitmap_lookup(const struct pg_jitmap *m, uint64_t addr);

#endif
