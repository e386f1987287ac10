/*
 * jitmap.h - JIT symbol maps, /tmp/perf-PID.map (the format perf reads:
 * one symbol per line, "START SIZE NAME", START and SIZE in hex with or
 * without "0x"; tools/perf/util/symbol.c in the Linux source).
 * Lines that do not parse are skipped; later entries win on overlap.
 */
#ifndef PG_RUNNER_JITMAP_H
#define PG_RUNNER_JITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_jitsym {
        uint64_t start, size;
        char *name;
        size_t seq; /* order of addition: the later of two equal starts wins */
};

struct pg_jitmap {
        struct pg_jitsym *syms; /* sorted by start */
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

/** The symbol covering @addr, or NULL. */
const struct pg_jitsym *pg_jitmap_lookup(const struct pg_jitmap *m, uint64_t addr);

#endif
