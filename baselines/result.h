/*
 * result.h - the result model: what one benchmark's measurement is, in memory
 * and as a JSON file (DESIGN.md section 4). A result and a baseline are the
 * same thing; this is the one loader and validator for both.
 *
 * Ownership: a struct pg_result owns every string and array it points to;
 * pg_result_release() frees them all. Strings are UTF-8 (names coming from
 * binaries are sanitised with pg_utf8_sanitize() before they get here).
 *
 * Invariants kept by the loader and by pg_result_add_metric():
 *  - a metric with status PG_METRIC_OK has nvalues >= 1 finite values;
 *    any other status has no values (nothing that was not counted is 0);
 *  - coverage, when present, has nvalues entries in (0, 1];
 *  - profile stacks are sorted bytewise by key, keys unique, counts > 0;
 *  - per-function costs ("functions", from simulated counters) are sorted
 *    bytewise by name, names unique and non-empty, every function has one
 *    count per entry of functions.counters (sorted, unique).
 */
#ifndef PG_BASELINES_RESULT_H
#define PG_BASELINES_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define PG_RESULT_SCHEMA       "perfgate/result/1"
#define PG_RESULT_SCHEMA_MAJOR 1

enum pg_metric_status {
        PG_METRIC_OK = 0,        /* counted: values[] holds one value per repetition */
        PG_METRIC_NOT_SUPPORTED, /* the event could not be opened on this host */
        PG_METRIC_NOT_COUNTED,   /* opened but never scheduled (time_running == 0) */
        PG_METRIC_KERNEL_ONLY    /* counts only in the kernel, and kernel was excluded */
};

struct pg_metric {
        char *name; /* perf event name ("task-clock") or derived ("ipc") */
        char *unit; /* "ns", "count", "bytes" or "ratio" */
        enum pg_metric_status status;
        size_t nvalues;   /* one per measured repetition; 0 unless OK */
        double *values;   /* nvalues finite values, in base units */
        double *coverage; /* NULL, or nvalues fractions time_running/time_enabled */
        char *reason;     /* NULL, or why it is not OK ("ENOENT: no PMU") */
};

struct pg_stack {
        char *frames;   /* folded key: "comm;main;parse;copy_field" (root first) */
        uint64_t count; /* samples with exactly this stack */
};

/** Samples at one instruction address (the ELF's link-time address). */
struct pg_addr_count {
        uint64_t addr;
        uint64_t count;
};

/** Samples of one source line ("file:line"). */
struct pg_line_count {
        char *where;
        uint64_t count;
};

/**
 * Samples of a function at one line of code inlined into it from another
 * file than the function's own (a header, Rust's core, Go's runtime): that
 * line, the function inlined there, and the call site in the function's own
 * file that brought it in (DWARF DW_TAG_inlined_subroutine's DW_AT_call_file
 * and DW_AT_call_line; DWARF 5, section 3.3.8.2).
 */
struct pg_inline_count {
        char *site;     /* "file:line" in the function's own file */
        char *function; /* the function inlined at @site (demangled, no parameters) */
        char *line;     /* "file:line" the samples are at: a key of the lines */
        uint64_t count;
};

/**
 * Where in one function its own samples fell (optional "addresses" of a
 * profile): the sampled instruction addresses of the samples whose leaf is
 * @function in @module, as link-time addresses of that ELF file (runtime
 * address - load bias), for `perfgate annotate`.
 */
struct pg_fn_addrs {
        char *function;   /* the symbol (the outermost name at the address) */
        char *module;     /* absolute path of the ELF file */
        char *build_id;   /* its NT_GNU_BUILD_ID when recorded, lower-case hex; or NULL */
        uint64_t samples; /* sum of the counts */
        size_t n;
        struct pg_addr_count *addrs; /* sorted by addr, unique, counts > 0 */
        size_t nlines;
        struct pg_line_count *lines; /* the same samples by source line, "file:line"
                                      * (sorted, unique); none without a line table */
        size_t ninlined;
        struct pg_inline_count *inlined; /* of those, the samples at lines inlined from
                                          * another file, by (site, function, line):
                                          * sorted, unique; per line at most its count */
};

/**
 * One function's own samples in each sampling run of a profile (optional
 * "run_self" of a profile): the samples whose self frame (pg_frame_self())
 * is @function, one count per run, in run order.
 */
struct pg_run_self {
        char *function;   /* the self frame as the stacks spell it */
        uint64_t *counts; /* pg_profile.runs entries */
};

struct pg_profile {
        bool present; /* false: no "profile" in the file (--no-profile) */
        char *event;  /* sampling event: "cpu-clock" or "cycles" */
        uint64_t frequency_hz;
        char *call_graph;    /* "fp" or "dwarf" */
        uint64_t samples;    /* samples folded into stacks */
        uint64_t lost;       /* samples lost (PERF_RECORD_LOST) */
        uint64_t throttled;  /* PERF_RECORD_THROTTLE records */
        uint64_t truncated;  /* samples whose chain hit perf_event_max_stack */
        uint64_t frames;     /* user frames looked up (0: not recorded) */
        uint64_t unresolved; /* of those, named "[module]" or "[unknown]": no symbol, an
                              * unreadable ELF, a build-id or debuginfo mismatch */
        uint64_t runs;       /* sampling runs folded together */
        bool kernel;         /* kernel frames were recorded and are in the stacks */
        size_t nstacks;
        struct pg_stack *stacks; /* sorted bytewise by frames */
        char *frames_arena;      /* NULL: each stacks[i].frames is a malloc() block of its
                                    own; else they all point into this one block (as the
                                    loader reads them) and only it is freed */
        size_t naddrs;
        struct pg_fn_addrs *addrs; /* sorted by (function, module); NULL in older results */
        bool inline_sites;         /* every address was asked where code inlined at it was
                                    * called (addrs[].inlined): a function without entries
                                    * has none; false in results of older versions */
        char *missing;         /* with present false: why the run stored none although it sampled
                        * (the result's "profile_missing" / "offcpu_missing": "too many
                        * open files for 2 sampling events: raise 'ulimit -n'"); NULL when
                        * none was asked for (--no-profile) or in older results */
        uint64_t *run_samples; /* samples of each sampling run (runs entries, summing
                                        * to samples); NULL in results of older versions */
        size_t nrun_self;
        struct pg_run_self *run_self; /* sorted by function, unique; with run_samples only:
                                       * every run's counts sum to its run_samples */
};

/* Name of the entry that holds the functions below functions.min_share. */
#define PG_FUNCTIONS_OTHER "[other]"

/** One function's costs (simulated counters; runner/simulate.h). */
struct pg_function {
        char *name;       /* function name as the simulator gives it, or PG_FUNCTIONS_OTHER */
        char *file;       /* source file of its costliest code, NULL when unknown */
        uint64_t line;    /* its hottest source line (most instructions), 0 when unknown */
        uint64_t *counts; /* one count per functions.counters entry */
};

/** Per-function costs of one benchmark (optional "functions" object). */
struct pg_functions {
        bool present;     /* false: no "functions" in the file */
        char *source;     /* where they come from: "cachegrind" */
        double min_share; /* functions below this share of every counter are in "[other]" */
        size_t ncounters;
        char **counters; /* counter names ("instructions", ...), sorted bytewise */
        size_t n;
        struct pg_function *items; /* sorted bytewise by name */
};

/**
 * The paired A/A noise of a benchmark (optional "noise" object), measured by
 * `perfgate compare --calibrate`: interleaved pairs of two builds of the
 * same commit (docs/compare.md, "Noise calibration").
 */
struct pg_noise {
        bool present;     /* false: no "noise" in the file */
        char *metric;     /* the metric measured: "task-clock" */
        uint64_t pairs;   /* pairs measured (>= 2) */
        double paired_sd; /* 1.4826 x MAD of the per-pair log(b/a), a fraction (>= 0) */
};

/* How a `perfgate record` recording ended (docs/result-format.md, "recording"). */
enum pg_record_end {
        PG_RECORD_END_DURATION,      /* "duration": the requested --duration passed */
        PG_RECORD_END_INTERRUPTED,   /* "interrupted": SIGINT or SIGTERM stopped it */
        PG_RECORD_END_TARGET_EXITED, /* "target-exited": the process or command ended */
};

struct pg_recording {
        bool present; /* false: no "recording" in the file (every `run` result) */
        enum pg_record_end ended;
        uint64_t elapsed_ns;   /* how long the recording lasted */
        uint64_t requested_ns; /* --duration, 0 when none was given */
};

/**
 * Processes a benchmark started that were still running when it exited
 * (runner/run.c kills them then): their CPU time until then is in the
 * benchmark's counters and profile, as perf stat counts a workload's
 * children, so its figures may be disturbed (docs/run.md, "Processes a
 * benchmark leaves behind"). Counting runs only, warmup included.
 */
struct pg_leftovers {
        bool present;       /* false: none was left (no "leftovers" in the file) */
        uint64_t runs;      /* runs after which processes were still running, >= 1 */
        uint64_t of_runs;   /* the counting runs made (warmup + repeat), >= runs */
        uint64_t processes; /* the most left running after one run, >= 1 */
};

/**
 * Append @l in words for a report: "1 process it started was still running
 * at its exit in 4 of 4 runs, its CPU time counted" ("up to 3 processes
 * ... were ..., their CPU time counted" for more). @l must be present.
 */
void pg_leftovers_describe(struct pg_buf *out, const struct pg_leftovers *l);

/**
 * The machine's other load while the measured repetitions ran (runner/
 * procload.h; docs/result-format.md, "load"): CPUs kept busy by other work
 * (system-wide non-idle time from /proc/stat minus the benchmark's own user
 * and system time, over the wall time) and the steal fraction (steal time
 * over all CPU time, proc(5)).
 */
struct pg_load {
        bool present;       /* false: not recorded (older results, /proc/stat unreadable) */
        double other_cpus;  /* CPUs busy with other work, >= 0 */
        double steal;       /* 0..1 */
        uint64_t window_ns; /* wall time from the first read to the second, > 0 */
};

/** The name of @e in the result file ("duration", ...). */
const char *pg_record_end_name(enum pg_record_end e);

/** Scheduler latency of one task name (runner/sched.h), summed over runs. */
struct pg_sched_task {
        char *comm;              /* the task's name (comm, at most 15 bytes) */
        uint64_t threads;        /* most tasks of that name in one run */
        uint64_t runtime_ns;     /* time on a CPU */
        uint64_t switches;       /* switch-ins after waiting for a CPU (perf's "Count") */
        uint64_t delay_total_ns; /* their delays summed (average = this / switches) */
        uint64_t delay_max_ns;   /* the longest one */
};

/** Scheduler latency of a benchmark (optional "sched", run --sched). */
struct pg_sched {
        bool present;  /* false: no "sched" in the file */
        uint64_t runs; /* recorded runs summed in tasks */
        size_t n;
        struct pg_sched_task *tasks; /* sorted bytewise by comm, unique */
};

/** Free what @s owns and make it empty (not present). */
void pg_sched_release(struct pg_sched *s);

struct pg_host {
        char *cpu;     /* CPU model name */
        uint64_t cpus; /* online CPUs */
        char *kernel;  /* uname release */
        char *arch;    /* uname machine */
        size_t npmu;
        char **pmu; /* core PMU names found in sysfs ("cpu", "cpu_core", ...) */
        bool virtualized;
        int perf_event_paranoid;
        bool exclude_kernel; /* events were opened with exclude_kernel=1 */
};

struct pg_result {
        char *name; /* benchmark name, unique within a run */
        size_t ncommand;
        char **command; /* argv the benchmark ran with */
        char *created;  /* UTC time, "2026-11-29T10:00:00Z" */
        bool has_git;
        char *git_commit; /* 40 hex digits, when has_git */
        bool git_dirty;
        char *machine; /* machine name the baseline is filed under */
        struct pg_host host;
        char *counters; /* "hardware", "software" or "simulated" */
        uint64_t repeat;
        uint64_t warmup;
        size_t nmetrics;
        struct pg_metric *metrics; /* any order in memory; written sorted by name */
        struct pg_profile profile;
        struct pg_profile offcpu;      /* optional ("offcpu", run --off-cpu): where threads
                                     blocked; stack counts are ns blocked, "samples"
                                     their sum, event "context-switches" */
        struct pg_sched sched;         /* optional ("sched", run --sched): per-task latency */
        struct pg_functions functions; /* optional; present with --counters simulated */
        struct pg_noise noise;         /* optional; present after calibration */
        struct pg_recording recording; /* optional; present in `perfgate record` results */
        struct pg_leftovers leftovers; /* optional; present when processes outlived a run */
        struct pg_load load;           /* optional; the machine's other load (run) */
};

/**
 * The `created` value of a result finished now: UTC,
 * "YYYY-MM-DDTHH:MM:SSZ" (docs/result-format.md). Returns a new string.
 */
char *pg_result_created_now(void);

/**
 * pg_result_created_now() for @t, seconds since the Unix epoch: for years
 * 1000 to 9999 the same text as gmtime_r(3) and strftime
 * "%Y-%m-%dT%H:%M:%SZ" give, without reading the time zone (other years
 * print zero-padded to four digits, or with more). Returns a new string.
 */
char *pg_result_created_at(int64_t t);

/** Make @r empty (all zero). */
void pg_result_init(struct pg_result *r);
/** Free everything @r owns and make it empty again. */
void pg_result_release(struct pg_result *r);

/**
 * Add (or replace) metric @name in @r, copying @values (n entries) and
 * @coverage (NULL or n entries). For a status other than PG_METRIC_OK pass
 * n = 0; @reason may be NULL. Returns the stored metric (borrowed).
 */
struct pg_metric *pg_result_add_metric(struct pg_result *r, const char *name, const char *unit,
                                       enum pg_metric_status status, const double *values,
                                       const double *coverage, size_t n, const char *reason);

/** The metric called @name, or NULL (borrowed). */
const struct pg_metric *pg_result_find_metric(const struct pg_result *r, const char *name);

/**
 * Compute the derived ratios of DESIGN.md section 4 from the counted metrics
 * already in @r, per repetition: ipc = instructions/cycles, branch-miss-rate =
 * branch-misses/branches, cache-miss-rate = cache-misses/cache-references,
 * L1-dcache-miss-rate, LLC-miss-rate (misses/loads), cpus-utilized =
 * task-clock/duration_time (the definitions perf stat prints, from
 * tools/perf/util/stat-shadow.c). A ratio is added only when both operands
 * are OK with the same number of repetitions and every denominator is > 0;
 * otherwise it is absent (never NaN or Inf).
 */
void pg_result_derive(struct pg_result *r);

/**
 * Store the folded stacks of @r's profile: takes @n (key, count) pairs,
 * copies them, sorts them and merges duplicate keys. Keys must not be empty.
 */
void pg_profile_set_stacks(struct pg_profile *p, const struct pg_stack *stacks, size_t n);

/** Free what @p owns and make it empty (not present). */
void pg_profile_release(struct pg_profile *p);

/**
 * The address histogram of @function in @p: the entry with the most samples
 * when several modules have a function of that name; NULL when none.
 */
const struct pg_fn_addrs *pg_profile_find_addrs(const struct pg_profile *p, const char *function);

/** Free @p's per-run self counts (run_samples, run_self); the stacks stay. */
void pg_profile_clear_runs(struct pg_profile *p);

/** Free @p's address histograms and leave it without any. */
void pg_profile_clear_addrs(struct pg_profile *p);

/**
 * Sort @p's address histograms by (function, module) and each one's
 * addresses, merging duplicates; recomputes their samples. Used by the
 * symbolizer's export and the loader.
 */
void pg_profile_sort_addrs(struct pg_profile *p);

/**
 * Store the source files of @p's line keys ("lines", and "inlined"'s
 * "site" and "line") that lie below @root (an absolute directory: the
 * project's root, the git work tree's top or else perfgate.json's
 * directory) relative to it: "/ci/_work/proj/cpp/geo.cpp:25" becomes
 * "cpp/geo.cpp:25", so that two checkouts of one project in different
 * directories key the same line alike. Other paths (system headers,
 * /usr/src, Rust's /rustc/<hash>/...) are kept. Re-sorts and merges
 * (pg_profile_sort_addrs()). @root NULL or empty: nothing changes.
 */
void pg_profile_relative_sources(struct pg_profile *p, const char *root);

/** Free what @f owns and make it empty (not present). */
void pg_functions_release(struct pg_functions *f);

/**
 * Sort @f's items by name (call after filling them in any order). Duplicate
 * names are a caller bug (asserted).
 */
void pg_functions_sort(struct pg_functions *f);

/** Index of counter @name in f->counters, or -1. */
int pg_functions_counter_index(const struct pg_functions *f, const char *name);

/** The function called @name in @f, or NULL (borrowed). */
const struct pg_function *pg_functions_find(const struct pg_functions *f, const char *name);

/**
 * Serialise @r as the deterministic JSON of DESIGN.md section 4 into @out.
 * Errors: PG_EINPUT when a value is non-finite (a bug upstream).
 */
int pg_result_to_json(const struct pg_result *r, struct pg_buf *out);

/**
 * Parse and validate a result from @len bytes of JSON text into @r (which
 * must be initialised; on error it is left empty).
 * @origin: how to name the input in messages ("path" or "branch:path").
 * Errors: PG_EINPUT for invalid JSON (with line, column, byte offset), a
 * newer schema major version ("needs perfgate/result/N"), missing or
 * ill-typed fields, NaN/Inf, or broken invariants (named by field): a
 * negative metric value, a unit other than ns, count, bytes or ratio, a
 * profile whose "samples" is not the sum of its stack counts.
 */
int pg_result_from_json(struct pg_result *r, const char *text, size_t len, const char *origin);

/**
 * pg_result_from_json() of a text the caller lets it change: a profile's
 * "stacks" object of the plain shape perfgate writes is read straight from
 * @text and blanked there (newlines and byte offsets kept), so no JSON tree
 * is built for it; same result, same errors. @text's content is undefined
 * afterwards (still @len bytes, still its owner's).
 */
int pg_result_from_json_buf(struct pg_result *r, char *text, size_t len, const char *origin);

/**
 * pg_result_from_json() on the file at @path. A regular file larger than
 * PG_RESULT_MAX_BYTES, or whose first byte after whitespace (in its first
 * 4 KiB) is no '{', is refused (PG_EINPUT) before it is read whole.
 * Errors also PG_ENOTFOUND/PG_EIO.
 */
int pg_result_load(struct pg_result *r, const char *path);

/**
 * Write @r to @path, a file perfgate names in its results directory,
 * atomically (temp file + rename; an entry at @path, a link included, is
 * replaced, never written through: pg_write_file_own()).
 * Errors: PG_EIO, PG_EINPUT.
 */
int pg_result_save(const struct pg_result *r, const char *path);

/**
 * Write @r to @path, a path the user named (-o FILE), as
 * pg_write_file_atomic() writes it: atomically for a regular file or a new
 * one, through a symlink and into a device or FIFO in place, as cp(1) does.
 * Errors: PG_EIO, PG_EINPUT.
 */
int pg_result_save_as(const struct pg_result *r, const char *path);

/* The largest result file read (a file, or a blob of the data branch):
 * results are KBs to tens of MBs (a million stacks: 40 MB), and a shared
 * directory or branch must not make every reader load gigabytes. */
#define PG_RESULT_MAX_BYTES (256 << 20)

/** A set of results, sorted by name (the content of one results directory). */
struct pg_result_set {
        size_t n;
        struct pg_result *items;
};

void pg_result_set_init(struct pg_result_set *s);
void pg_result_set_release(struct pg_result_set *s);

/* The file a `perfgate run` keeps in its output directory from before it
 * touches any result until its last benchmark ran (pg_run_marker_write(),
 * pg_run_marker_remove()): found there with no run holding the directory's
 * lock, it says the last run was interrupted, killed or stopped by an
 * error, and the directory holds a half-done set (docs/limits.md,
 * "Interrupted runs and partial files"). Hidden: no result is ever read
 * from it. */
#define PG_RUN_MARKER ".perfgate-run"

/**
 * Write PG_RUN_MARKER in @dir (temp file, fsync, rename: whatever entry is
 * there, a link included, is replaced, never written through): the text
 * "perfgate run\npid PID\nbenchmarks N\n" then the @n benchmark names
 * @names, one a line (names hold no newline: pg_result_name_valid()).
 * Errors: PG_EIO with the path and strerror(errno).
 */
int pg_run_marker_write(const char *dir, const char *const *names, size_t n);

/**
 * Remove PG_RUN_MARKER from @dir: the run into it completed. A marker that
 * is not there is no error. Errors: PG_EIO with the path and strerror(errno).
 */
int pg_run_marker_remove(const char *dir);

/**
 * Load every "*.json" file directly in @dir into @s (sorted by result name),
 * holding a shared flock(2) on @dir meanwhile (pg_dir_lock_shared()): a
 * `perfgate run` writing into @dir (pg_dir_lock()) has moved the old
 * results of its benchmarks aside and not yet written all the new ones, so
 * its set is refused, not loaded half-done; the run in turn waits for the
 * load to end. A PG_RUN_MARKER left by a run that no longer holds the lock
 * (interrupted, killed or stopped by an error) is refused too.
 * Errors: PG_ENOTFOUND (no such directory), PG_EINPUT (a file is invalid, or
 * two files hold the same benchmark name, or a run is writing into @dir
 * now, or "the last perfgate run into 'DIR' (pid P) stopped after K of N
 * benchmarks ..."), PG_EIO. An empty directory is not an error here
 * (s->n == 0); callers decide.
 */
int pg_result_set_load_dir(struct pg_result_set *s, const char *dir);

/**
 * Move @r into @s (s takes ownership; @r is left empty), keeping @s sorted.
 * Errors: PG_EINPUT when @s already has a result of that name.
 */
int pg_result_set_add(struct pg_result_set *s, struct pg_result *r);

/** The result called @name in @s, or NULL (borrowed). */
const struct pg_result *pg_result_set_find(const struct pg_result_set *s, const char *name);

/** Name of @status as written in JSON ("ok", "not-supported", ...). */
const char *pg_metric_status_name(enum pg_metric_status status);

/** The longest benchmark name, in bytes (it becomes <out>/<name>.json). */
#define PG_RESULT_NAME_MAX 200

/** What pg_result_name_valid() accepts, for messages. */
#define PG_RESULT_NAME_RULE                                                                        \
        "a benchmark name is 1 to 200 bytes of UTF-8 without '/' or control characters, "          \
        "does not start with '.', and is no name git refuses in a tree (see docs/limits.md)"

/**
 * Why git would refuse @component (one file or directory name of the data
 * branch, e.g. "ci-x86" or "parse.json") as a tree entry, or NULL when it is
 * safe. The rules are git's own checks of tree entries that hold on every
 * platform (fsck.c fsck_tree, read-cache.c verify_path_internal, path.c
 * is_ntfs_dotgit/is_ntfs_dot_generic, utf8.c is_hfs_dotgit), made a little
 * broader so that one plain rule covers them; '\' splits the name into
 * pieces as fsck reads it (path.c), and each piece must not
 *   - start with '.' (".", "..", ".git", ".gitmodules", ".gitattributes",
 *     ".git ", ".git::$INDEX_ALLOCATION": fsck hasDot/hasDotdot/hasDotgit,
 *     gitmodulesBlob, gitattributesBlob);
 *   - end with '.' or ' ' (Windows drops them: "git~1." is "git~1");
 *   - hold '~' followed by a digit in its first 8 bytes (an NTFS 8.3 short
 *     name: "git~1" is ".git", "gitmod~1" is ".gitmodules");
 * and the name must hold no code point HFS+ ignores (U+200C-U+200F,
 * U+202A-U+202E, U+206A-U+206F, U+FEFF: ".g\u200cit" is ".git" on a Mac).
 * An empty name is refused. @component must be valid UTF-8 (not checked).
 * Returns a static string naming the rule ("starts with '.'", ...).
 */
const char *pg_path_component_why(const char *component);

/**
 * Whether @name is usable as a benchmark and file name: PG_RESULT_NAME_RULE
 * (1..PG_RESULT_NAME_MAX bytes of valid UTF-8, no '/', no control byte
 * 0x00-0x1f or 0x7f, and "<name>.json" passes pg_path_component_why(), so
 * no leading '.'). Names are never mapped: the result file is
 * <out>/<name>.json byte for byte and `<machine>/<commit>/<name>.json` on
 * the data branch, so a name that could not be a file name, a JSON string
 * or a git tree entry is refused where it is declared.
 */
bool pg_result_name_valid(const char *name);

/**
 * pg_result_name_valid() with the reason: NULL when valid, else a static
 * string naming the rule broken ("starts with '.'", "holds a control
 * character", ...).
 */
const char *pg_result_name_why(const char *name);

/**
 * Why @machine cannot name a machine directory of the data branch (NULL: it
 * can): the benchmark-name rule applied to the directory name itself, i.e.
 * 1..PG_RESULT_NAME_MAX bytes of UTF-8, no '/' or control character, and
 * pg_path_component_why(@machine). Static string, as pg_result_name_why().
 */
const char *pg_machine_name_why(const char *machine);

/**
 * Why the @len bytes at @key are not a stack ("is empty", "has an empty
 * frame", "holds a NUL byte"), or NULL when they are one. A stack is one or more frame names joined
 * by ';', root first (docs/result-format.md): perfgate names every frame
 * ('[unknown]' when nothing covers the address), so an empty one (";",
 * "a;", "a;;b", ";a") is a converter's mistake. FlameGraph's flamegraph.pl
 * would draw an inner empty frame as a box without a name and drop a
 * trailing one (Perl's split), making "a;" and "a" one stack there and two
 * here; the loader refuses both rather than guess. The one check every
 * reader of result files goes through (show, flamegraph, diff, compare:
 * refused, exit 2). Folded text is FlameGraph's own format and is read as
 * flamegraph.pl reads it (compare/folded.h).
 */
const char *pg_stack_key_problem(const char *key, size_t len);

#endif
