/*
 * symbolize.h - from the time-ordered records of sampling runs to folded
 * stacks: process bookkeeping (COMM exec starts a new address space, FORK of
 * a process copies its parent's, a thread shares it, MMAP2 adds executable
 * mappings; perf_event_open(2), "MMAP2"), libdwfl symbolization with the
 * load bias of each mapping taken from its own PT_LOAD, ELF and DWARF names
 * with inlined frames named as `addr2line -i -f -C` names them (without
 * parameters), separate debuginfo by build-id and .gnu_debuglink,
 * demangling as perf report does (runner/demangle.h), PLT stubs as
 * "name@plt", the vDSO through a copy of perfgate's own, kernel frames from
 * /proc/kallsyms, JIT frames from /tmp/perf-PID.map and from the jit-PID.dump
 * files a process maps (runner/jitdump.h), and DWARF unwinding
 * (runner/unwind.h). The implementation is split by job: runner/symbolize.c
 * (records and stacks), runner/sym_aspace.c (address spaces),
 * runner/sym_modules.c (ELF/DWARF module cache), runner/sym_frames.c (frame
 * resolution); runner/sym_internal.h is what they share.
 *
 * Leaf fixup (frame-pointer chains): when a sample carries user registers and
 * a little stack, the sampled frame is unwound one step with its CFI; if the
 * caller found that way is not the chain's next entry (a frameless leaf or a
 * sample in a prologue), the caller is inserted.
 *
 * Folded keys follow runner/fold.h: comm first, root first; a chain cut at
 * kernel.perf_event_max_stack is rooted under "[truncated]"; an unresolved
 * frame is "[module-basename]" or "[unknown]" (never an absolute address:
 * ASLR would make every run differ, and never another function's name: a
 * file that cannot be read, was replaced after the run or whose debuginfo
 * belongs to another build gives "[module-basename]", counted in
 * pg_symbolize_stats.unresolved). Weights are sample counts.
 *
 * Invariants: the address-space model and the Dwfl sessions of one run are
 * dropped before the next run is processed (pids are reused); the folded
 * stacks and the counters accumulate over runs.
 */
#ifndef PG_RUNNER_SYMBOLIZE_H
#define PG_RUNNER_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "baselines/result.h"
#include "common/buf.h"
#include "runner/records.h"

struct pg_symbolizer_opts {
        const char *debug_dir;     /* extra debuginfo root (build-id tree), or NULL */
        bool kernel;               /* fold kernel frames (when kallsyms is visible) */
        bool dwarf;                /* user stacks are unwound from REGS_USER + STACK_USER */
        uint64_t regs_user_mask;   /* attr.sample_regs_user (dwarf mode and leaf fixup) */
        unsigned max_stack;        /* kernel.perf_event_max_stack; 0: read it */
        const char *kallsyms_path; /* NULL: /proc/kallsyms */
        const char *jitmap_dir;    /* NULL: /tmp (perf-PID.map files) */
        bool weight_by_period;     /* a sample adds its PERIOD to its stack (samples of
                                      period 0 are skipped), not 1: runner/offcpu.h */
};

struct pg_symbolize_stats {
        uint64_t samples;        /* folded */
        uint64_t lost;           /* from LOST and LOST_SAMPLES records */
        uint64_t throttled;      /* THROTTLE records */
        uint64_t truncated;      /* chains cut at max_stack */
        uint64_t frames;         /* user frames looked up */
        uint64_t unresolved;     /* of those, without a function name */
        uint64_t rooted;         /* samples with a frame that is a process or thread entry */
        const char *stop_module; /* frame-pointer stacks that reach no entry: the file (path)
                                    whose frame most of them end in, or NULL */
        uint64_t stop_count;     /* how many end there */
        uint64_t malformed;      /* records that did not decode */
        bool kernel_frames;      /* kernel frames were folded (kallsyms visible) */
        const char
            *rejected_debug; /* a .gnu_debuglink target refused as another build's, or NULL */
        bool rejected_debug_symtab;  /* the binary linking to it has its own .symtab (`strip
                                       -g`): functions are named, lines and inlines lost */
        const char *debug_lost;      /* what of the sampled files' DWARF libdw cannot read (split
                                   DWARF without its .dwo files, zstd-compressed sections) and
                                   what is lost, one line per file and problem, each ending in
                                   a newline; NULL when nothing */
        const char *jitdump_problem; /* why the first jitdump that did not read whole did not,
                                        and what of its code is '[unknown]' (its symbols before
                                        a problem inside it are used), or NULL */
};

struct pg_symbolizer;

/**
 * Create a symbolizer; loads libdw and libelf (pg_libdw_init()) if no
 * call did yet. Errors: PG_EIO when they cannot be loaded (*@out NULL; the
 * message names the package). A vDSO that cannot be copied is left
 * unresolved instead of failing.
 */
int pg_symbolizer_new(struct pg_symbolizer **out, const struct pg_symbolizer_opts *o);

/** Free @s and everything it holds (NULL is fine). */
void pg_symbolizer_free(struct pg_symbolizer *s);

/**
 * Apply the records of one run (@log, sorted by pg_record_log_sort()) in
 * order, folding each sample into the accumulated stacks. Malformed records
 * are counted and skipped. The run's address spaces are dropped at the end.
 */
void pg_symbolizer_process(struct pg_symbolizer *s, const struct pg_record_log *log,
                           const struct pg_perf_format *fmt);

/**
 * Queue the ELF file @path (@len bytes, from an executable MMAP2 record seen
 * while the benchmark still runs) to be opened and have its symbol table,
 * DWARF (decompressing debug sections, often tens of ms for libc's
 * debuginfo) and CFI loaded by a background thread, so that the work
 * overlaps the run. pg_symbolizer_process() waits for it. Paths already
 * queued, and paths that are not absolute, are ignored.
 */
void pg_symbolizer_prefetch(struct pg_symbolizer *s, const char *path, size_t len);

/**
 * Say that the events just opened sample the kernel too (exclude_kernel
 * off): /proc/kallsyms, which the kernel takes tens of ms of CPU to
 * generate, is then read by a background thread while the benchmark runs.
 * Without this call it is read at the first kernel frame, if any (with
 * exclude_kernel, never). Only the first call (and only with the
 * symbolizer's kernel option) starts the thread.
 */
void pg_symbolizer_kernel_expected(struct pg_symbolizer *s);

/**
 * Forget the accumulated folded stacks, per-address sample counts and
 * counters (pg_symbolizer_stats(), except rejected_debug and debug_lost,
 * which describe cached files), so that the next runs make a profile of their own, while
 * keeping what is costly to rebuild and the same for every run: the opened
 * ELF/DWARF files, their CFI and resolved frames, kallsyms and the vDSO
 * copy. Used to take one profile per run with one symbolizer.
 */
void pg_symbolizer_clear_profile(struct pg_symbolizer *s);

/** The counters accumulated so far. */
const struct pg_symbolize_stats *pg_symbolizer_stats(const struct pg_symbolizer *s);

/** At most this many functions in struct pg_symbolize_top. */
#define PG_SYMBOLIZE_TOP_MAX 3

/** The hottest functions so far, by self samples (samples whose self frame
 * they are: the leaf, or an inlined leaf's function; baselines/frame.h). */
struct pg_symbolize_top {
        size_t n;                            /* entries filled, hottest first (ties by name) */
        uint64_t total;                      /* samples folded so far */
        char name[PG_SYMBOLIZE_TOP_MAX][96]; /* the leaf frame as folded (cut at 95 bytes) */
        uint64_t samples[PG_SYMBOLIZE_TOP_MAX];
};

/**
 * Fill @top with the @n (at most PG_SYMBOLIZE_TOP_MAX) functions that are
 * the self frame of most of the samples folded so far (for progress
 * displays; O(stacks)).
 */
void pg_symbolizer_top(const struct pg_symbolizer *s, size_t n, struct pg_symbolize_top *top);

/**
 * End a sampling run: note the samples pg_symbolizer_process() folded since
 * the last call (or since pg_symbolizer_clear_profile()) by self frame
 * (pg_frame_self()), for the profile's run_samples and run_self
 * (baselines/result.h).
 */
void pg_symbolizer_end_run(struct pg_symbolizer *s);

/**
 * Copy the accumulated folded stacks into @p (pg_profile_set_stacks), and,
 * when pg_symbolizer_end_run() was called once for each of @p->runs runs,
 * their per-run self counts (run_samples, run_self).
 */
void pg_symbolizer_export(const struct pg_symbolizer *s, struct pg_profile *p);

#endif
