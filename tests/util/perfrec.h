/*
 * perfrec.h - building raw perf_event records by hand for the decoder and
 * symbolizer tests: a record buffer, the header, 64-bit and paired 32-bit
 * fields, NUL-padded strings, and the size patched into the header at the
 * end (layouts: include/uapi/linux/perf_event.h).
 */
#ifndef PG_TESTS_PERFREC_H
#define PG_TESTS_PERFREC_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* the sample_type of frame-pointer sampling (runner/sample.c) */
#define PG_REC_FP_TYPE                                                                             \
        (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
         PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct pg_rec {
        unsigned char b[65536];
        size_t n; /* bytes written, header included */
};

/** Start a record of @type with @misc: writes the header, size 0 for now. */
void pg_rec_begin(struct pg_rec *r, uint32_t type, uint16_t misc);
/** Append one u64. */
void pg_rec_put64(struct pg_rec *r, uint64_t v);
/** Append two u32 (pid/tid, cpu/res). */
void pg_rec_put32x2(struct pg_rec *r, uint32_t a, uint32_t b);
/** Append @s with its NUL, padded with zeros to a multiple of 8 bytes. */
void pg_rec_putstr(struct pg_rec *r, const char *s);
/** Write the record's size into its header (the u16 at offset 6). */
void pg_rec_finish(struct pg_rec *r);

#endif
