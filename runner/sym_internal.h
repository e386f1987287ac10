/*
 * sym_internal.h - what the symbolizer's files share (not a public API):
 *   runner/sym_aspace.c   address spaces: a process's executable mappings,
 *                         copied on FORK, replaced on exec, and the per-space
 *                         Dwfl that DWARF-mode unwinding walks
 *   runner/sym_modules.c  the ELF/DWARF module cache: one Dwfl per file at its
 *                         link-time addresses, load biases, build-id checks,
 *                         debuglink refusal, PLT stubs, and the prefetch thread
 *   runner/sym_frames.c   frame resolution: an address to folded frame names
 *                         (symbol, inlined callees, "[module]"), root names,
 *                         the leaf fixup of frame-pointer chains
 *   runner/symbolize.c    records to folded stacks: processes, threads,
 *                         samples, the stacks table, lifecycle
 * Threads: the prefetch thread touches files only; the main thread touches
 * them after pg_prefetch_join() (sym_modules.c).
 */
#ifndef PG_RUNNER_SYM_INTERNAL_H
#define PG_RUNNER_SYM_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hashmap.h"
#include "runner/jitmap.h"
#include "runner/kallsyms.h"
#include "runner/scopeindex.h"
#include "runner/records.h"
#include "runner/symindex.h"
#include "runner/symbolize.h"
#include "runner/unwind.h"

#define PG_MAX_FRAMES 1024

enum pg_map_kind { PG_MAP_FILE, PG_MAP_VDSO, PG_MAP_ANON, PG_MAP_OTHER };

struct pg_map {
        uint64_t start, end, pgoff;
        char *path;
        const char *base; /* basename inside path */
        enum pg_map_kind kind;
        bool has_build_id;
        uint8_t build_id_size;
        uint8_t build_id[20];
        bool bad;      /* not a regular file, deleted or build-id mismatch */
        int32_t file;  /* index in symbolizer files; -1 until looked up */
        uint64_t bias; /* runtime address - ELF vaddr (valid when file >= 0) */
};

#define PG_MAX_LOADS 16

/*
 * One ELF file, reported once at its link-time addresses into its own Dwfl
 * that lives as long as the symbolizer: lookups translate a runtime address
 * by the mapping's bias, so later runs (other ASLR bases, other pids) reuse
 * the loaded symbol tables, debuginfo and CFI.
 */
struct pg_file {
        char *path;
        bool bad; /* cannot be opened or is not a regular ELF file */
        Dwfl *dwfl;
        Dwfl_Module *mod;
        int etype; /* -1: not opened yet */
        size_t nloads;
        struct {
                uint64_t offset, vaddr, filesz;
                uint32_t flags; /* PF_X, PF_W, PF_R */
        } loads[PG_MAX_LOADS];
        size_t build_id_len;
        uint8_t build_id[20];
        char *rejected_debug; /* a debuglink target that exists but was refused */
        /* PLT stubs (pg_file_plt()): entry i at plt_first + i * plt_entsize */
        bool plt_read;
        uint64_t plt_first, plt_entsize;
        size_t nplt;
        char **plt_names;            /* demangled "name@plt", NULL for an unnamed slot */
        struct pg_u64map aliases;    /* symbol address -> symtab index + 1 (pg_file_alias) */
        struct pg_symindex syms;     /* address -> symbol, as dwfl_module_addrinfo */
        struct pg_scopeindex scopes; /* address -> inlined scopes, as dwarf_getscopes */
        struct pg_u64map qual;       /* declaration DIE -> its scopes' prefix in qualpool */
        struct pg_buf qualpool;      /* "ns::Cls::" prefixes, each NUL-terminated */
        bool dwarf_read;             /* its DWARF was asked for (dwfl_module_addrdie) */
        bool debug_saved;            /* offered to the debuginfo cache (runner/debugcache.h) */
        bool debug_checked;          /* compressed DWARF looked for (pg_file_note_debug) */
        bool dwo_noted;              /* a missing .dwo said (pg_file_note_debug) */
};

struct pg_frame_res {
        uint32_t off, len; /* folded text in the address space's pool */
        uint16_t nframes;
        uint16_t unresolved;
        bool root;  /* the outermost frame here is a process or thread entry */
        bool nomap; /* no mapping of the process covers the address */
};

struct pg_aspace {
        int refs;
        uint32_t pid; /* whose perf-PID.map describes anonymous code */
        struct pg_map *maps;
        size_t nmaps, capmaps;
        Dwfl *dwfl;
        bool dirty; /* maps changed since the Dwfl was built */
        struct pg_unwinder unwinder;
        struct pg_u64map cache; /* adjusted pc -> index in res */
        struct pg_frame_res *res;
        size_t nres, capres;
        struct pg_buf pool;
        struct pg_jitmap jit;     /* perf-PID.map */
        struct pg_jitmap jitdump; /* the jit-PID.dump files the process mapped */
        char **jitdumps;          /* their paths, from MMAP records */
        size_t njitdumps;
        bool jit_tried; /* both loaded (again once another dump is mapped) */
};

struct pg_proc {
        struct pg_aspace *as;
};

struct pg_thread {
        char comm[32];
        size_t comm_len;
        char folded[96]; /* comm as the first folded frame (pg_fold_append_comm) */
        size_t folded_len;
};

struct pg_symbolizer {
        struct pg_symbolizer_opts o;
        char *debuginfo_path;
        Dwfl_Callbacks callbacks;
        char vdso_path[64]; /* /proc/self/fd/N of the vDSO copy */
        int vdso_fd;
        bool have_vdso;
        struct pg_kallsyms ksyms;
        bool ksyms_loaded;
        pthread_t ksyms_thread; /* loads ksyms while the benchmark runs */
        bool ksyms_thread_running;
        /* prefetch: files named by MMAP2 records during a run are opened
         * and their symbols, DWARF and CFI loaded by a background thread;
         * the main thread touches files only after pg_prefetch_join() */
        pthread_mutex_t pf_lock;
        pthread_cond_t pf_cond;
        pthread_t pf_thread;
        bool pf_running, pf_stop;
        char **pf_queue;
        size_t pf_n, pf_cap, pf_next;
        struct pg_strmap pf_seen; /* paths queued (main thread only) */
        unsigned max_stack;
        struct pg_symbolize_stats st;
        /* per profile: the files where frame-pointer chains that reach no
         * entry stop, and how many stop in each (st.stop_module: the most) */
        struct {
                int32_t file;
                uint64_t n;
        } stops[8];
        size_t nstops;
        struct pg_buf debug_notes; /* what of the files' DWARF libdw cannot read, one line per
                                      file and problem (st.debug_lost points here) */
        char *jitdump_problem;     /* the first jitdump that did not read whole (st points here) */
        /* per run */
        struct pg_u64map procmap; /* pid -> procs index */
        struct pg_proc *procs;
        size_t nprocs, capprocs;
        struct pg_u64map threadmap; /* tid -> threads index */
        struct pg_thread *threads;
        size_t nthreads, capthreads;
        /* frames of files, by (file, file offset): valid across runs and ASLR */
        struct pg_u64map fcache;
        struct pg_u64map leafplans; /* (file, address) -> leaf plan (pg_leaf_plan) */
        struct pg_frame_res *fres;
        size_t nfres, capfres;
        struct pg_buf fpool;
        struct pg_strmap fileids; /* path -> index in files (interned in order) */
        struct pg_file *files;
        size_t nfiles, capfiles;
        /* accumulated stacks: folded key -> index in counts */
        struct pg_strmap stacks;
        uint64_t *counts;
        size_t capcounts;
        /* per sampling run (pg_symbolizer_end_run()): counts at the end of
         * the last run, the self frames seen, and each run's (run, self
         * frame, samples) in run order, with the runs' sample totals */
        uint64_t *run_mark;
        size_t nrun_mark;
        struct pg_strmap run_names;
        struct pg_sym_run_count {
                size_t run, name;
                uint64_t count;
        } * run_counts;
        size_t nrun_counts, caprun_counts;
        uint64_t *run_totals;
        size_t nruns;
        /* scratch */
        /* per (function, module): the link-time addresses of leaf samples */
        struct pg_strmap hotkeys; /* "function\0module" -> index in hot */
        struct pg_sym_hot {
                struct pg_u64map at; /* address -> index in v */
                struct pg_addr_count *v;
                size_t n, cap;
        } * hot;
        size_t caphot;
        struct pg_buf key, kscratch;
        uint64_t pcs[PG_MAX_FRAMES];
        struct pg_seg {
                const struct pg_buf *pool; /* where the text is */
                uint32_t off, len;
        } segs[PG_MAX_FRAMES + 1]; /* one sample's resolved entries, leaf first */
};

/* A plausible user-space address (not NULL's page, below the canonical hole). */
static inline bool pg_user_addr_plausible(uint64_t a)
{
        return a >= 4096 && a < 0x0000800000000000ULL;
}

/* ---- sym_aspace.c ---- */

/** A new, empty address space of process @pid (one reference). */
struct pg_aspace *pg_aspace_new(uint32_t pid);

/** Drop a reference to @as; the last one frees it (NULL is fine). */
void pg_aspace_unref(struct pg_aspace *as);

/** A copy of @src's mappings for process @pid (a FORK that then maps something). */
struct pg_aspace *pg_aspace_clone(const struct pg_aspace *src, uint32_t pid);

/** The mapping of @as that covers @addr (the newest), or NULL. */
struct pg_map *pg_aspace_find(struct pg_aspace *as, uint64_t addr);

/** Add the executable mapping of MMAP2 record @m; it replaces what it overlaps. */
void pg_aspace_add(struct pg_aspace *as, const struct pg_perf_mmap *m);

/** (Re)build @as->dwfl, every usable file at its runtime address (DWARF-mode unwinding). */
void pg_aspace_build(struct pg_symbolizer *s, struct pg_aspace *as);

/* ---- sym_modules.c ---- */

/** Lower the calling thread's priority: background work never slows the benchmark. */
void pg_thread_background(void);

/** Wait until the prefetch thread has loaded everything queued, and stop it. */
void pg_prefetch_join(struct pg_symbolizer *s);

/**
 * The file behind mapping @m, opened, with m->bias set; NULL (and @m marked
 * bad) when it cannot be used: not a regular ELF file, or its build-id is
 * not the MMAP2 record's (replaced on disk since the run).
 */
struct pg_file *pg_map_file(struct pg_symbolizer *s, struct pg_map *m);

/** The "name@plt" of the PLT stub at ELF address @vaddr of @f, or NULL. */
const char *pg_file_plt_name(struct pg_file *f, uint64_t vaddr);

/**
 * The name perf report gives the function that starts at ELF address @start
 * of @f, where several symbols (aliases) may start: @name is the one libdwfl
 * found. Returns a name owned by @f's Dwfl.
 */
const char *pg_file_alias(struct pg_file *f, uint64_t start, const char *name);

/** Free the module cache's files. */
void pg_files_release(struct pg_symbolizer *s);

/* ---- sym_frames.c ---- */

/**
 * The folded frames at @pc (already adjusted: ip - 1 for return addresses)
 * in @as; *pool says where their text is. Frames in files are cached per
 * (file, link-time address) for the symbolizer's lifetime, others per
 * address space.
 */
const struct pg_frame_res *pg_frame_resolve(struct pg_symbolizer *s, struct pg_aspace *as,
                                            uint32_t pid, uint64_t pc, const struct pg_buf **pool);

/**
 * The caller (return address - 1) of a sampled leaf frame at @ip, from the
 * sample's SP and stack copy and the leaf's CFI; 0 when unknown or when the
 * registers are not those of @ip.
 */
uint64_t pg_leaf_caller(struct pg_symbolizer *s, struct pg_aspace *as,
                        const struct pg_perf_sample *smp, uint64_t ip);

/**
 * Where link-time address @addr of @f's module, whose line table puts it in
 * @file, sits in the source of the function holding it, when @file is not
 * that function's own file (the DW_AT_decl_file of the outermost
 * DW_TAG_subprogram holding @addr, found through namespaces and classes,
 * else the file of its entry's line): code
 * inlined from a header, Rust's core, Go's runtime. Walks the
 * DW_TAG_inlined_subroutine scopes around @addr from the innermost out, and
 * takes the first whose call (DW_AT_call_file, DW_AT_call_line) is in the
 * function's own file: appends that "file:line" to @site and the inlined
 * function's name (as in the folded frames) to @callee. false, leaving
 * both alone, when @addr is in the function's own file, has no DWARF
 * scopes, or no call site there. @cache: zeroed by the caller before the
 * first call, then kept (the subprogram of the last address, searched again
 * only when the next address is outside it).
 */
struct pg_inline_cache {
        bool valid;
        Dwfl_Module *mod;
        Dwarf_Die sub; /* the subprogram of the last address */
        Dwarf_Die cu;
        Dwarf_Addr bias;
};
bool pg_module_inline_site(struct pg_file *f, uint64_t addr, const char *file,
                           struct pg_inline_cache *cache, struct pg_buf *site,
                           struct pg_buf *callee);

#endif
