/*
 * kallsyms.h - kernel function names from /proc/kallsyms for kernel frames
 * of sampled call chains. The table is visible only when the kernel shows
 * addresses (kptr_restrict, perf_event_paranoid); when every address reads
 * as 0 the table is empty and pg_kallsyms_visible() is false.
 */
#ifndef PG_RUNNER_KALLSYMS_H
#define PG_RUNNER_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_ksym {
        uint64_t addr;
        uint32_t name_off; /* into names */
};

struct pg_kallsyms {
        struct pg_ksym *syms; /* sorted by addr */
        size_t n;
        char *names;
        size_t names_len;
        /* Loaded from the cache (pg_kallsyms_load_cached): the table is exact
         * only for addresses in ranges[] (inclusive pairs); pg_kallsyms_find()
         * reads reload_path in full for any other address. */
        bool cached;
        uint64_t (*ranges)[2];
        size_t nranges;
        char *reload_path;
        void *blob; /* the cache file mapped (blob_len bytes); syms and names point into it */
        size_t blob_len;
};

/** Where pg_kallsyms_load_cached() reads the kernel's state and keeps its cache. */
struct pg_kallsyms_src {
        const char *kallsyms; /* "/proc/kallsyms" */
        const char *modules;  /* "/proc/modules" (missing: no modules) */
        const char *boot_id;  /* "/proc/sys/kernel/random/boot_id" */
        const char *cache;    /* the cache file; NULL: no cache */
};

/**
 * Load the text symbols (types t, T, w, W) of @path (normally
 * "/proc/kallsyms"; lines "ADDR TYPE NAME [MODULE]"). A missing or
 * unreadable file gives an empty table, never an error.
 */
void pg_kallsyms_load(struct pg_kallsyms *k, const char *path);

/**
 * As pg_kallsyms_load(@src->kallsyms), but from the cache file @src->cache
 * when it was written in this boot (the same boot_id) with the same modules
 * loaded (name, size and address of each line of @src->modules): generating
 * /proc/kallsyms costs the kernel tens of ms of CPU per read. The cached
 * table is the whole table as read then, trusted only for addresses whose
 * symbols cannot have changed since without the key changing: the kernel's
 * own text (_stext to _etext) and each loaded module's text (its first to
 * its last text symbol). Anything else (BPF programs, ftrace and kprobe
 * trampolines, which come and go without a module) makes
 * pg_kallsyms_find() read the file in full.
 * The cache file is used only when it is a regular file (not a symlink) of
 * the user's that others cannot write, with a well-formed table; one that
 * is not is removed. After a full read with visible addresses the cache is
 * written (a temporary file renamed into place, mode 0600). Never fails:
 * any cache problem falls back to the full read.
 */
void pg_kallsyms_load_cached(struct pg_kallsyms *k, const struct pg_kallsyms_src *src);

/**
 * pg_kallsyms_lookup(), exact also for a table from the cache: an address
 * outside the cached table's ranges first replaces the table with a full
 * read of the kallsyms file (names returned before stay valid only until
 * then: copy them).
 */
const char *pg_kallsyms_find(struct pg_kallsyms *k, uint64_t addr);

void pg_kallsyms_release(struct pg_kallsyms *k);

/**
 * Whether the kallsyms file at @path (NULL: /proc/kallsyms) shows this
 * process addresses: a non-zero one among its first 64 KiB. The kernel
 * decides per reader (kernel/kallsyms.c, kallsyms_show_value()): with
 * kernel.kptr_restrict 0 it shows them when kernel.perf_event_paranoid is
 * 1 or less, else (and with kptr_restrict 1) only to a reader with
 * CAP_SYSLOG; with kptr_restrict 2, to nobody. So CAP_PERFMON alone lets
 * perfgate sample kernel frames that it then cannot name. False when the
 * file cannot be read.
 */
bool pg_kallsyms_shown(const char *path);

/** What run and record say when kernel frames were sampled but
 * pg_kallsyms_shown() is false (one line, no newline). */
#define PG_KALLSYMS_HIDDEN_WARNING                                                                 \
        "kernel frames are not named: /proc/kallsyms shows this process no addresses (the "        \
        "kernel shows them to CAP_SYSLOG, or to everyone at kernel.perf_event_paranoid 1 or "      \
        "less with kernel.kptr_restrict 0), so the profiles keep user-space frames only; grant "   \
        "CAP_SYSLOG with CAP_PERFMON (sudo setcap cap_perfmon,cap_syslog+ep perfgate) or set "     \
        "kernel.perf_event_paranoid=1"

/** Whether any symbol has a non-zero address. */
bool pg_kallsyms_visible(const struct pg_kallsyms *k);

/** The function containing @addr (the last symbol at or below it), or NULL. */
const char *pg_kallsyms_lookup(const struct pg_kallsyms *k, uint64_t addr);

#endif
