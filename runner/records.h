/*
 * records.h - a pure decoder of perf_event ring-buffer records
 * (PERF_RECORD_SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT, LOST, THROTTLE,
 * UNTHROTTLE, LOST_SAMPLES) from a byte buffer, given the event's
 * sample_type, and a log that buffers the records of a whole run from every
 * CPU's buffer and orders them by time.
 *
 * Layouts: man 2 perf_event_open and linux/perf_event.h (enum
 * perf_event_type). With
 * sample_id_all every non-sample record ends in a trailer of the selected
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER fields, in that order.
 *
 * Invariants: the decoder never reads outside [buf, buf+len); input may be
 * arbitrary bytes (it is fuzzed), unaligned, truncated or lying about sizes;
 * pointers in a decoded record point into the input buffer (borrowed).
 * Multi-byte fields are read with memcpy (no alignment assumption).
 */
#ifndef PG_RUNNER_RECORDS_H
#define PG_RUNNER_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** What the event was opened with; decides the record layouts. */
struct pg_perf_format {
        uint64_t sample_type;    /* attr.sample_type (PERF_SAMPLE_* bits) */
        uint64_t regs_user_mask; /* attr.sample_regs_user */
        bool sample_id_all;      /* attr.sample_id_all: non-sample records carry a trailer */
};

/** The sample_id trailer (or the same fields of a sample). */
struct pg_perf_id {
        uint32_t pid, tid;
        uint64_t time; /* perf clock, ns; 0 when TIME is not selected */
        uint64_t id;
        uint32_t cpu;
};

struct pg_perf_sample {
        uint64_t ip;
        uint64_t period;
        uint64_t nr;              /* callchain entries (markers included) */
        const unsigned char *ips; /* nr little-endian u64 at any alignment */
        uint64_t abi;             /* REGS_USER abi; 0: no registers */
        uint32_t nregs;           /* popcount(regs_user_mask) when abi != 0 */
        const unsigned char *regs;
        uint64_t stack_size; /* STACK_USER bytes captured */
        const unsigned char *stack;
        uint64_t stack_dyn_size;  /* valid bytes of stack (<= stack_size) */
        const unsigned char *raw; /* RAW: the tracepoint record (tracefs format), or NULL */
        uint32_t raw_size;        /* its bytes (the kernel's padding included) */
};

struct pg_perf_mmap {
        uint32_t pid, tid;
        uint64_t addr, len, pgoff;
        uint32_t prot, flags; /* MMAP2 only; MMAP records get PROT_EXEC */
        bool has_build_id;
        uint8_t build_id_size;
        uint8_t build_id[20];
        const char *filename; /* not necessarily NUL-terminated: filename_len */
        size_t filename_len;
};

struct pg_perf_comm {
        uint32_t pid, tid;
        bool exec; /* PERF_RECORD_MISC_COMM_EXEC */
        const char *comm;
        size_t comm_len;
};

struct pg_perf_task { /* FORK and EXIT */
        uint32_t pid, ppid, tid, ptid;
        uint64_t time;
};

struct pg_perf_record {
        uint32_t type; /* PERF_RECORD_* */
        uint16_t misc;
        uint16_t size;
        struct pg_perf_id sid; /* the sample's own fields or the trailer */
        union {
                struct pg_perf_sample sample; /* PERF_RECORD_SAMPLE */
                struct pg_perf_mmap mmap;     /* MMAP and MMAP2 */
                struct pg_perf_comm comm;
                struct pg_perf_task task;
                uint64_t lost; /* LOST (count of lost records) and LOST_SAMPLES */
        } u;
};

/**
 * Decode the record at @buf (@len bytes available). Fills @out; unknown
 * record types decode only the header (and trailer) and succeed.
 * Returns 0, or -1 when the input is malformed: shorter than its header says,
 * header size < 8, a field running past the record, a callchain or stack
 * size that does not fit, a REGS_USER abi with an empty mask.
 * Never reads outside @buf[0..len).
 */
int pg_perf_record_decode(const void *buf, size_t len, const struct pg_perf_format *fmt,
                          struct pg_perf_record *out);

/** Entry @i of a sample's callchain (caller guarantees i < nr). */
static inline uint64_t pg_perf_chain_ip(const struct pg_perf_sample *s, uint64_t i)
{
        uint64_t v;

        memcpy(&v, s->ips + i * 8, 8);
        return v;
}

/** Register slot @i of a sample's REGS_USER block (i < nregs). */
static inline uint64_t pg_perf_reg(const struct pg_perf_sample *s, uint32_t i)
{
        uint64_t v;

        memcpy(&v, s->regs + (size_t) i * 8, 8);
        return v;
}

/** One buffered record: where its bytes are in the log's arena. */
struct pg_record_ref {
        uint64_t time;
        uint64_t seq; /* arrival order; breaks time ties, keeps per-CPU order */
        size_t offset;
        uint32_t len;
};

/**
 * All records of one sampling run, copied out of the ring buffers. The arena
 * keeps each record 8-byte aligned. Sort with pg_record_log_sort() before
 * applying MMAP2/COMM/FORK bookkeeping (each CPU's buffer is in time order;
 * the buffers interleave).
 */
struct pg_record_log {
        unsigned char *arena;
        size_t arena_len, arena_cap;
        struct pg_record_ref *refs;
        size_t nrefs, refs_cap;
        uint64_t seq;
};

void pg_record_log_init(struct pg_record_log *log);
void pg_record_log_release(struct pg_record_log *log);
/** Forget all records, keep the memory. */
void pg_record_log_reset(struct pg_record_log *log);

/**
 * Copy a record of @len bytes into @log; @time is its timestamp (0 when it
 * has none, which sorts it first). Aborts on out of memory (pg_x*).
 */
void pg_record_log_add(struct pg_record_log *log, const void *rec, size_t len, uint64_t time);

/**
 * Add a synthesized record to @log, as perf's util/synthetic-events.c makes
 * them for tasks that ran before the events existed: an MMAP2 record of @m
 * (pid, tid, addr, len, pgoff, prot, flags, filename; build-id when
 * m->has_build_id) or a COMM record (not an exec). The sample_id trailer
 * that @fmt selects holds the pid/tid and zeros, so the record sorts before
 * every real one (time 0). Names longer than 4 KiB are cut.
 */
void pg_record_log_add_mmap2(struct pg_record_log *log, const struct pg_perf_format *fmt,
                             const struct pg_perf_mmap *m);
void pg_record_log_add_comm(struct pg_record_log *log, const struct pg_perf_format *fmt,
                            uint32_t pid, uint32_t tid, const char *comm);

/** Sort the refs by (time, seq). */
void pg_record_log_sort(struct pg_record_log *log);

/**
 * The timestamp of the record at @buf (@len bytes) under @fmt: the TIME of a
 * sample or of the sample_id trailer. Returns 0 when the record has none or
 * is malformed.
 */
uint64_t pg_perf_record_time(const void *buf, size_t len, const struct pg_perf_format *fmt);

#endif
