/*
 * perfscript.h - the streaming `perf script` text importer behind
 * `perfgate fold`: call-graph samples in, folded stacks out, compatible with
 * stackcollapse-perf.pl (brendangregg/FlameGraph) and its conformance files;
 * Rust symbols that perf printed mangled are demangled as perfgate run names
 * them (runner/demangle.h).
 *
 * Input grammar (what `perf script` prints): '#' lines are comments; a
 * sample header "COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT:" (parsed from
 * the pid/timestamp anchor, so a comm may hold spaces, digits and brackets);
 * indented frame lines "ADDR SYMBOL (MODULE)", leaf first;
 * a blank line (or the next header, or the end of input) ends a record.
 *
 * Memory is bounded by the number of distinct stacks, not by the input:
 * input is consumed chunk by chunk (only a partial last line is kept), the
 * frames of the current record live in reused buffers, and each distinct
 * folded stack is stored once, in a hash table keyed by the folded text.
 *
 * Ownership: struct pg_perfscript is opaque; pg_perfscript_new() /
 * pg_perfscript_free(). Nothing here prints: odd input is counted per kind
 * (struct pg_perfscript_stats) for the caller to report once per kind.
 */
#ifndef PG_RUNNER_PERFSCRIPT_H
#define PG_RUNNER_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runner/fold.h"

/** What a stack's count adds up. */
enum pg_perfscript_weight {
        PG_WEIGHT_PERIOD = 0, /* sum of the header's period (1 when absent or 0): the reference */
        PG_WEIGHT_SAMPLES     /* number of samples */
};

struct pg_perfscript_options {
        bool include_pid;      /* root "comm-PID" ("comm-?" when only one id is printed) */
        bool include_tid;      /* root "comm-PID/TID" (wins over include_pid) */
        bool annotate_kernel;  /* "_[k]" on kernel frames (pg_fold_module_is_kernel) */
        bool annotate_jit;     /* "_[j]" on JIT frames (pg_fold_module_is_jit) */
        bool annotate_inlined; /* "_[i]" on frames perf prints with module "(inlined)" */
        bool include_addrs;    /* unresolved frames as "[module <addr>]" */
        enum pg_comm_mode comm;
        enum pg_perfscript_weight weight;
        /*
         * Events to keep: NULL or "" keeps the first event met (the
         * reference's default, so cycles and instructions never mix; its
         * modifiers do not count: "cpu-clock:u" and "cpu-clock" are kept
         * together); else a
         * comma-separated list of names, each matching an event exactly or,
         * when it has no ':' modifier, any "NAME:mod" ("cpu-clock" keeps
         * "cpu-clock:pppH").
         */
        const char *event_filter;
        /*
         * A callchain with at least this many frames counts as cut at
         * kernel.perf_event_max_stack; 0 = never.
         */
        unsigned max_stack;
        bool mark_truncated; /* root such stacks under a "[truncated]" frame after the comm */
        bool no_tidy_java;   /* keep the leading 'L' of Java class frames under a "java*" comm */
};

/** Kinds of odd input, each reported once with a count. */
enum pg_perfscript_odd {
        PG_PS_ODD_UNRECOGNIZED = 0, /* neither header, frame, comment nor blank */
        PG_PS_ODD_NON_SAMPLE,       /* PERF_RECORD_* lines of --show-*-events */
        PG_PS_ODD_PERF_MESSAGE,     /* perf's own "Warning:"/"Error:" text mixed into the input */
        PG_PS_ODD_TRACE_ERROR,      /* "instruction trace error ..." (Intel PT, CoreSight) */
        PG_PS_ODD_ORPHAN_FRAME,     /* a frame line outside any sample record */
        PG_PS_ODD_OTHER_EVENT,      /* a sample of an event not kept (counts samples) */
        PG_PS_ODD_TRUNCATED,        /* a callchain at the max-stack limit (counts samples) */
        PG_PS_ODD_NO_FRAMES,        /* a sample with no frame at all under PG_COMM_NONE */
        PG_PS_ODD_BAD_PERIOD,       /* a header whose period is not a decimal u64 (skipped) */
        PG_PS_ODD__COUNT
};

/** Where the first line of an odd kind was seen, for the one warning. */
struct pg_perfscript_odd_info {
        uint64_t count;
        uint64_t first_line; /* 1-based line number within its source */
        char first_source[256];
        char excerpt[72]; /* the line's start, printable ASCII only */
};

struct pg_perfscript_stats {
        uint64_t samples;           /* records folded into stacks */
        uint64_t weight_total;      /* sum of the counts written */
        uint64_t lines;             /* lines read, all sources */
        uint64_t stacks;            /* distinct folded stacks */
        char event[64];             /* the event kept ("" when headers carried none) */
        char header_event[64];      /* first "# event : name = X" of a perf script --header */
        char other_events[128];     /* names of skipped events, comma-separated, cut to fit */
        uint64_t kernel_frames;     /* frames in kernel modules (pg_fold_module_is_kernel) */
        uint64_t kernel_unresolved; /* ...of which "[unknown]", plus [unknown] frames at kernel
                                       addresses: perf script could not read kallsyms */
        struct pg_perfscript_odd_info odd[PG_PS_ODD__COUNT];
};

struct pg_perfscript;

/**
 * Create an importer with a copy of @opts (event_filter is copied too).
 * @out: receives the importer; the caller frees it with pg_perfscript_free().
 * Errors: PG_EINPUT when event_filter holds an empty name ("a,,b").
 */
int pg_perfscript_new(struct pg_perfscript **out, const struct pg_perfscript_options *opts);

/** Free @ps and everything it holds (NULL is fine). */
void pg_perfscript_free(struct pg_perfscript *ps);

/** The longest line the importer holds (perf prints far shorter ones). */
#define PG_PERFSCRIPT_MAX_LINE_BYTES (16u << 20)

/**
 * Start a new source named @name (copied, used in stats; e.g. a path or
 * "<stdin>"): line numbers restart at 1. A record still open from the
 * previous source is ended first.
 */
void pg_perfscript_begin(struct pg_perfscript *ps, const char *name);

/**
 * Feed @len bytes of perf script text; lines may be split across calls.
 * Errors: PG_EINPUT when the source starts with the perf.data magic
 * ("PERFILE2": the binary file was given instead of perf script's text),
 * when one line is longer than PG_PERFSCRIPT_MAX_LINE_BYTES (memory
 * stays bounded by the distinct stacks, never by the input's size), and
 * when the sample periods add up to more than 2^64 - 1 (the message names
 * the line of the first sample that did not fit).
 */
int pg_perfscript_feed(struct pg_perfscript *ps, const char *data, size_t len);

/**
 * End the current source: fold a last line without a newline and the last
 * record even when no blank line follows it (stackcollapse-perf.pl drops it;
 * perfgate does not). Errors: PG_EINPUT as pg_perfscript_feed() (a
 * perf.data file shorter than one line).
 */
int pg_perfscript_end(struct pg_perfscript *ps);

/**
 * pg_perfscript_begin(@name), feed all of @f in 256 KiB chunks, then
 * pg_perfscript_end(). Errors: PG_EIO on a read error (message has @name
 * and strerror), PG_EINPUT as pg_perfscript_feed().
 */
int pg_perfscript_read(struct pg_perfscript *ps, FILE *f, const char *name);

/** Statistics so far (borrowed; valid until the next call on @ps). */
const struct pg_perfscript_stats *pg_perfscript_stats(const struct pg_perfscript *ps);

/** One folded stack: text root first, ';'-joined, and its count. */
struct pg_folded {
        const char *stack; /* NUL-terminated; owned by the importer */
        size_t len;
        uint64_t count;
};

/**
 * The folded stacks sorted bytewise by stack (the reference's output order).
 * @out: receives a new array of @n entries (free() the array, not the
 * strings, which stay owned by @ps until pg_perfscript_free()).
 */
void pg_perfscript_sorted(struct pg_perfscript *ps, struct pg_folded **out, size_t *n);

/**
 * Write the folded stacks to @f as "STACK COUNT\n" lines in bytewise order.
 * Errors: PG_EIO when writing fails (message names @name).
 */
int pg_perfscript_write(struct pg_perfscript *ps, FILE *f, const char *name);

#endif
