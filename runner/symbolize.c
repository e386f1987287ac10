/*
 * symbolize.c - address-space bookkeeping, libdwfl symbolization and folding
 * of sampled call chains (see symbolize.h).
 *
 * Data: processes (pid -> address space, shared copy-on-write after a FORK
 * until one side maps something), threads (tid -> comm and its folded
 * frame), per address space the list of executable mappings. Every ELF file
 * gets one Dwfl for the symbolizer's lifetime with the file at its link
 * addresses; a runtime address is translated by its mapping's PT_LOAD bias,
 * so the folded text of (file, address) is cached across processes and runs
 * (one address can stand for several frames when calls were inlined), as are
 * the CFI "leaf plans" of the frame-pointer fixup. Only DWARF-mode unwinding
 * needs a per-address-space Dwfl with every module at its runtime address.
 * Anonymous (JIT) and unknown code is cached per address space.
 *
 * Threads: a kallsyms loader starts with the symbolizer, and a prefetcher
 * opens the files named by MMAP2 records while the benchmark runs; both only
 * touch state the main thread leaves alone until it joins them (first kernel
 * frame, start of pg_symbolizer_process()).
 *
 * Folded stacks live in an open addressing table keyed by the whole key.
 */
#include "runner/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/demangle.h"
#include "runner/fold.h"
#include "runner/jitmap.h"
#include "runner/kallsyms.h"
#include "runner/unwind.h"

#define PG_MAX_FRAMES 1024

/* ---- u64 -> u32 hash map (open addressing, linear probing) ------------- */

struct pg_u64map {
        uint64_t *keys; /* UINT64_MAX = empty */
        uint32_t *vals;
        size_t cap, n; /* cap is a power of two */
};

static uint64_t pg_mix64(uint64_t x)
{
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return x;
}

static void pg_u64map_release(struct pg_u64map *m)
{
        free(m->keys);
        free(m->vals);
        memset(m, 0, sizeof(*m));
}

static bool pg_u64map_get(const struct pg_u64map *m, uint64_t key, uint32_t *val)
{
        if (m->cap == 0)
                return false;
        for (size_t i = pg_mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
                if (m->keys[i] == key) {
                        *val = m->vals[i];
                        return true;
                }
                if (m->keys[i] == UINT64_MAX)
                        return false;
        }
}

static void pg_u64map_put(struct pg_u64map *m, uint64_t key, uint32_t val)
{
        size_t i;

        if ((m->n + 1) * 2 > m->cap) {
                struct pg_u64map old = *m;

                m->cap = old.cap ? old.cap * 2 : 64;
                m->n = 0;
                m->keys = pg_xmalloc(m->cap * sizeof(*m->keys));
                m->vals = pg_xmalloc(m->cap * sizeof(*m->vals));
                memset(m->keys, 0xff, m->cap * sizeof(*m->keys));
                for (size_t j = 0; j < old.cap; j++)
                        if (old.keys[j] != UINT64_MAX)
                                pg_u64map_put(m, old.keys[j], old.vals[j]);
                pg_u64map_release(&old);
        }
        for (i = pg_mix64(key) & (m->cap - 1); m->keys[i] != UINT64_MAX && m->keys[i] != key;
             i = (i + 1) & (m->cap - 1))
                ;
        if (m->keys[i] == UINT64_MAX)
                m->n++;
        m->keys[i] = key;
        m->vals[i] = val;
}

/* ---- address spaces ---------------------------------------------------- */

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
        } loads[PG_MAX_LOADS];
        size_t build_id_len;
        uint8_t build_id[20];
        char *rejected_debug; /* a debuglink target that exists but was refused */
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
        struct pg_jitmap jit;
        bool jit_tried;
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

struct pg_stackent {
        uint64_t hash;
        uint32_t off, len;
        uint64_t count;
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
        struct pg_u64map pf_seen; /* path hashes queued (main thread only) */
        unsigned max_stack;
        struct pg_symbolize_stats st;
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
        struct pg_u64map fileids; /* hash of path -> index in files */
        struct pg_file *files;
        size_t nfiles, capfiles;
        /* accumulated stacks */
        struct pg_stackent *stacks; /* open addressing, cap power of two */
        size_t nstacks, capstacks;
        struct pg_buf keys;
        /* scratch */
        struct pg_buf key, kscratch;
        uint64_t pcs[PG_MAX_FRAMES];
        struct pg_seg {
                const struct pg_buf *pool; /* where the text is */
                uint32_t off, len;
        } segs[PG_MAX_FRAMES + 1]; /* one sample's resolved entries, leaf first */
};

static void pg_aspace_clear_cache(struct pg_aspace *as)
{
        pg_u64map_release(&as->cache);
        as->nres = 0;
        pg_buf_reset(&as->pool);
}

static void pg_aspace_drop_dwfl(struct pg_aspace *as)
{
        if (as->dwfl)
                dwfl_end(as->dwfl);
        as->dwfl = NULL;
        memset(&as->unwinder, 0, sizeof(as->unwinder));
}

static struct pg_aspace *pg_aspace_new(uint32_t pid)
{
        struct pg_aspace *as = pg_xcalloc(1, sizeof(*as));

        as->refs = 1;
        as->pid = pid;
        pg_buf_init(&as->pool);
        return as;
}

static void pg_aspace_unref(struct pg_aspace *as)
{
        if (as == NULL || --as->refs > 0)
                return;
        pg_aspace_drop_dwfl(as);
        for (size_t i = 0; i < as->nmaps; i++)
                free(as->maps[i].path);
        free(as->maps);
        pg_aspace_clear_cache(as);
        free(as->res);
        pg_buf_release(&as->pool);
        pg_jitmap_release(&as->jit);
        free(as);
}

static struct pg_aspace *pg_aspace_clone(const struct pg_aspace *src, uint32_t pid)
{
        struct pg_aspace *as = pg_aspace_new(pid);

        as->maps = pg_xcalloc(src->nmaps ? src->nmaps : 1, sizeof(*as->maps));
        as->capmaps = src->nmaps ? src->nmaps : 1;
        for (size_t i = 0; i < src->nmaps; i++) {
                as->maps[i] = src->maps[i];
                as->maps[i].path = pg_xstrdup(src->maps[i].path);
                as->maps[i].base = as->maps[i].path + (src->maps[i].base - src->maps[i].path);
        }
        as->nmaps = src->nmaps;
        return as;
}

static struct pg_map *pg_aspace_find(struct pg_aspace *as, uint64_t addr)
{
        for (size_t i = as->nmaps; i-- > 0;)
                if (addr >= as->maps[i].start && addr < as->maps[i].end)
                        return &as->maps[i];
        return NULL;
}

static void pg_aspace_add(struct pg_aspace *as, const struct pg_perf_mmap *m)
{
        struct pg_map nm = { 0 };
        const char *slash;
        bool overlap = false;
        size_t w = 0;

        nm.start = m->addr;
        nm.end = m->addr + m->len;
        nm.pgoff = m->pgoff;
        nm.path = pg_xstrndup(m->filename, m->filename_len);
        slash = strrchr(nm.path, '/');
        nm.base = slash && slash[1] ? slash + 1 : nm.path;
        nm.has_build_id = m->has_build_id;
        nm.build_id_size = m->build_id_size;
        memcpy(nm.build_id, m->build_id, sizeof(nm.build_id));
        nm.file = -1;
        if (strcmp(nm.path, "[vdso]") == 0)
                nm.kind = PG_MAP_VDSO;
        else if (nm.path[0] == '/' && nm.path[1] != '/' && strncmp(nm.path, "/dev/zero", 9) != 0 &&
                 strncmp(nm.path, "/memfd:", 7) != 0)
                nm.kind = PG_MAP_FILE;
        else if (nm.path[0] == '\0' || strncmp(nm.path, "//anon", 6) == 0 ||
                 strncmp(nm.path, "[anon", 5) == 0 || strncmp(nm.path, "/dev/zero", 9) == 0 ||
                 strncmp(nm.path, "/memfd:", 7) == 0 || strcmp(nm.path, "[heap]") == 0 ||
                 strcmp(nm.path, "[stack]") == 0)
                nm.kind = PG_MAP_ANON;
        else
                nm.kind = PG_MAP_OTHER;
        /* a new mapping replaces what it overlaps (munmap leaves no record) */
        for (size_t i = 0; i < as->nmaps; i++) {
                if (as->maps[i].start < nm.end && nm.start < as->maps[i].end) {
                        free(as->maps[i].path);
                        overlap = true;
                        continue;
                }
                as->maps[w++] = as->maps[i];
        }
        as->nmaps = w;
        if (as->nmaps == as->capmaps) {
                as->capmaps = as->capmaps ? as->capmaps * 2 : 16;
                as->maps = pg_xreallocarray(as->maps, as->capmaps, sizeof(*as->maps));
        }
        as->maps[as->nmaps++] = nm;
        if (as->dwfl)
                as->dirty = true;
        if (overlap)
                pg_aspace_clear_cache(as);
}

/* ---- Dwfl sessions ----------------------------------------------------- */

static bool pg_is_regular(const char *path)
{
        struct stat sb;
        size_t len = strlen(path);

        if (len >= 10 && strcmp(path + len - 10, " (deleted)") == 0)
                return false;
        return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Read @f's ELF type, PT_LOADs and build-id from @path. Returns 0 or -1. */
static int pg_file_read_elf(struct pg_file *f, const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
        Elf *e = NULL;
        GElf_Ehdr eh;
        size_t nph = 0;
        const void *bid = NULL;
        ssize_t n;

        if (fd < 0)
                return -1;
        e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
        if (e == NULL || gelf_getehdr(e, &eh) == NULL || elf_getphdrnum(e, &nph) < 0)
                goto done;
        f->etype = eh.e_type;
        for (size_t i = 0; i < nph && f->nloads < PG_MAX_LOADS; i++) {
                GElf_Phdr ph;

                if (gelf_getphdr(e, (int) i, &ph) == NULL || ph.p_type != PT_LOAD)
                        continue;
                f->loads[f->nloads].offset = ph.p_offset;
                f->loads[f->nloads].vaddr = ph.p_vaddr;
                f->loads[f->nloads].filesz = ph.p_filesz;
                f->nloads++;
        }
        n = dwelf_elf_gnu_build_id(e, &bid);
        if (n > 0 && (size_t) n <= sizeof(f->build_id)) {
                memcpy(f->build_id, bid, (size_t) n);
                f->build_id_len = (size_t) n;
        }
        rc = 0;
done:
        if (e)
                elf_end(e);
        close(fd);
        return rc;
}

static uint64_t pg_hash_bytes(const char *p, size_t n);

/* The index of @path in s->files, adding (unopened) when new. */
static uint32_t pg_file_id(struct pg_symbolizer *s, const char *path)
{
        uint64_t h = pg_hash_bytes(path, strlen(path)) & ~(1ULL << 63);
        uint32_t idx;

        for (;; h = (h + 1) & ~(1ULL << 63)) {
                if (!pg_u64map_get(&s->fileids, h, &idx))
                        break;
                if (strcmp(s->files[idx].path, path) == 0)
                        return idx;
        }
        if (s->nfiles == s->capfiles) {
                s->capfiles = s->capfiles ? s->capfiles * 2 : 16;
                s->files = pg_xreallocarray(s->files, s->capfiles, sizeof(*s->files));
        }
        memset(&s->files[s->nfiles], 0, sizeof(s->files[0]));
        s->files[s->nfiles].path = pg_xstrdup(path);
        s->files[s->nfiles].bad = true; /* until opened */
        s->files[s->nfiles].etype = -1;
        pg_u64map_put(&s->fileids, h, (uint32_t) s->nfiles);
        return (uint32_t) s->nfiles++;
}

static void pg_file_check_debuglink(struct pg_symbolizer *s, struct pg_file *f, const char *path);

/* Open @f (first use): read the ELF, report it at link addresses. */
static void pg_file_open(struct pg_symbolizer *s, struct pg_file *f, const char *disk_path,
                         const char *name)
{
        f->etype = 0; /* opened (or tried) */
        if (!pg_is_regular(disk_path) || pg_file_read_elf(f, disk_path) < 0 || f->nloads == 0)
                return;
        f->dwfl = dwfl_begin(&s->callbacks);
        if (f->dwfl == NULL)
                return;
        dwfl_report_begin(f->dwfl);
        f->mod = dwfl_report_elf(f->dwfl, name, disk_path, -1, 0, false);
        dwfl_report_end(f->dwfl, NULL, NULL);
        if (f->mod == NULL)
                return;
        f->bad = false;
        pg_file_check_debuglink(s, f, disk_path);
}

/*
 * Case 36: a .gnu_debuglink whose target exists but was refused by libdwfl
 * (CRC or build-id of another build). Its names must not be used (they are
 * not), and the user should learn why the frames are unresolved.
 */
static void pg_file_check_debuglink(struct pg_symbolizer *s, struct pg_file *f, const char *path)
{
        const char *mainfile = NULL, *debugfile = NULL, *link;
        Dwarf_Addr bias;
        Elf *e;
        GElf_Word crc;
        char dir[4096], cand[3][8192];
        const char *slash = strrchr(path, '/');

        (void) dwfl_module_getsymtab(f->mod); /* looks for the debug file */
        dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
        if (debugfile != NULL || (e = dwfl_module_getelf(f->mod, &bias)) == NULL ||
            (link = dwelf_elf_gnu_debuglink(e, &crc)) == NULL || slash == NULL)
                return;
        snprintf(dir, sizeof(dir), "%.*s", (int) (slash - path), path);
        snprintf(cand[0], sizeof(cand[0]), "%s/%s", dir, link);
        snprintf(cand[1], sizeof(cand[1]), "%s/.debug/%s", dir, link);
        snprintf(cand[2], sizeof(cand[2]), "/usr/lib/debug%s/%s", dir, link);
        for (int i = 0; i < 3; i++) {
                if (strcmp(cand[i], path) != 0 && access(cand[i], R_OK) == 0) {
                        f->rejected_debug = pg_xstrdup(cand[i]);
                        if (s->st.rejected_debug == NULL)
                                s->st.rejected_debug = f->rejected_debug;
                        return;
                }
        }
}

/* Background loader: opens queued files and loads what lookups will need. */
static void pg_thread_background(void);

static void *pg_prefetch_thread(void *arg)
{
        struct pg_symbolizer *s = arg;

        pg_thread_background();
        pthread_mutex_lock(&s->pf_lock);
        for (;;) {
                char *path;
                struct pg_file *f;
                const char *slash;
                uint32_t id;

                while (s->pf_next == s->pf_n && !s->pf_stop)
                        pthread_cond_wait(&s->pf_cond, &s->pf_lock);
                if (s->pf_next == s->pf_n)
                        break;
                path = s->pf_queue[s->pf_next++];
                pthread_mutex_unlock(&s->pf_lock);
                id = pg_file_id(s, path); /* may move s->files */
                f = &s->files[id];
                slash = strrchr(path, '/');
                if (f->etype == -1)
                        pg_file_open(s, f, path, slash ? slash + 1 : path);
                if (!f->bad) {
                        Dwarf_Addr bias, low = 0;
                        GElf_Off off;
                        GElf_Sym sym;

                        /* first lookups sort the symbol table and index the CUs */
                        dwfl_module_info(f->mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
                        (void) dwfl_module_addrinfo(f->mod, low, &off, &sym, NULL, NULL, NULL);
                        (void) dwfl_module_addrdie(f->mod, low, &bias);
                        (void) dwfl_module_eh_cfi(f->mod, &bias);
                }
                pthread_mutex_lock(&s->pf_lock);
        }
        pthread_mutex_unlock(&s->pf_lock);
        return NULL;
}

void pg_symbolizer_prefetch(struct pg_symbolizer *s, const char *path, size_t len)
{
        uint64_t h = pg_hash_bytes(path, len);
        uint32_t dummy;

        if (len == 0 || path[0] != '/' || pg_u64map_get(&s->pf_seen, h, &dummy))
                return;
        pg_u64map_put(&s->pf_seen, h, 1);
        pthread_mutex_lock(&s->pf_lock);
        if (s->pf_n == s->pf_cap) {
                s->pf_cap = s->pf_cap ? s->pf_cap * 2 : 16;
                s->pf_queue = pg_xreallocarray(s->pf_queue, s->pf_cap, sizeof(*s->pf_queue));
        }
        s->pf_queue[s->pf_n++] = pg_xstrndup(path, len);
        if (!s->pf_running && !s->pf_stop)
                s->pf_running = pthread_create(&s->pf_thread, NULL, pg_prefetch_thread, s) == 0;
        pthread_cond_signal(&s->pf_cond);
        pthread_mutex_unlock(&s->pf_lock);
}

/* Wait until the prefetch thread has loaded everything queued, and stop it. */
static void pg_prefetch_join(struct pg_symbolizer *s)
{
        if (!s->pf_running)
                return;
        pthread_mutex_lock(&s->pf_lock);
        s->pf_stop = true;
        pthread_cond_signal(&s->pf_cond);
        pthread_mutex_unlock(&s->pf_lock);
        pthread_join(s->pf_thread, NULL);
        s->pf_running = false;
        s->pf_stop = false;
}

/*
 * The file behind mapping @m, opened, with m->bias set: the runtime address
 * of ELF vaddr 0, from the PT_LOAD that contains file offset pgoff (perf's
 * start - pgoff assumes p_vaddr == p_offset). NULL when the file is unusable
 * or its build-id differs from the MMAP2 record's (replaced on disk since the
 * run): the map is then bad.
 */
static struct pg_file *pg_map_file(struct pg_symbolizer *s, struct pg_map *m)
{
        struct pg_file *f;
        long page = sysconf(_SC_PAGESIZE);

        if (m->bad || (m->kind != PG_MAP_FILE && m->kind != PG_MAP_VDSO))
                return NULL;
        if (m->file < 0) {
                uint32_t id;

                if (m->kind == PG_MAP_VDSO && !s->have_vdso) {
                        m->bad = true;
                        return NULL;
                }
                id = pg_file_id(s, m->path);
                f = &s->files[id];
                if (f->etype == -1)
                        pg_file_open(s, f, m->kind == PG_MAP_VDSO ? s->vdso_path : m->path,
                                     m->base);
                if (f->bad || (m->has_build_id && m->build_id_size > 0 &&
                               (m->build_id_size != f->build_id_len ||
                                memcmp(m->build_id, f->build_id, f->build_id_len) != 0))) {
                        m->bad = true;
                        return NULL;
                }
                m->bias = m->start - m->pgoff;
                for (size_t i = 0; i < f->nloads; i++) {
                        if (m->pgoff >= (f->loads[i].offset & ~(uint64_t) (page - 1)) &&
                            m->pgoff < f->loads[i].offset + f->loads[i].filesz) {
                                m->bias =
                                    m->start - m->pgoff - (f->loads[i].vaddr - f->loads[i].offset);
                                break;
                        }
                }
                if (f->etype == ET_EXEC)
                        m->bias = 0;
                m->file = (int32_t) id;
        }
        return &s->files[m->file];
}

/* The per-address-space Dwfl (all modules at their runtime addresses) that
 * DWARF-mode unwinding walks across. */
static void pg_aspace_build(struct pg_symbolizer *s, struct pg_aspace *as)
{
        pg_aspace_drop_dwfl(as);
        as->dirty = false;
        as->dwfl = dwfl_begin(&s->callbacks);
        if (as->dwfl == NULL)
                return;
        dwfl_report_begin(as->dwfl);
        for (size_t i = 0; i < as->nmaps; i++) {
                struct pg_map *m = &as->maps[i];
                struct pg_file *f = pg_map_file(s, m);
                bool dup = false;

                if (f == NULL)
                        continue;
                for (size_t j = 0; j < i && !dup; j++)
                        dup = as->maps[j].file == m->file && !as->maps[j].bad;
                if (dup)
                        continue; /* one module per file: the first exec mapping places it */
                if (dwfl_report_elf(as->dwfl, m->base,
                                    m->kind == PG_MAP_VDSO ? s->vdso_path : m->path, -1, m->bias,
                                    false) == NULL)
                        m->bad = true;
        }
        dwfl_report_end(as->dwfl, NULL, NULL);
        (void) pg_unwind_attach(&as->unwinder, as->dwfl, (pid_t) as->pid, s->o.regs_user_mask);
}

/* ---- resolving one address --------------------------------------------- */

static bool pg_is_root_name(const char *name)
{
        static const char *const roots[] = { "_start",
                                             "__libc_start_call_main",
                                             "__libc_start_main",
                                             "main",
                                             "start_thread",
                                             "clone3",
                                             "clone",
                                             "__clone" };

        for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
                if (strcmp(name, roots[i]) == 0)
                        return true;
        return false;
}

static void pg_put_module(struct pg_buf *b, const char *modbase, struct pg_frame_res *r)
{
        pg_buf_putc(b, '[');
        pg_fold_append_frame(b, modbase, strlen(modbase), PG_FRAME_USER);
        pg_buf_putc(b, ']');
        r->nframes = 1;
        r->unresolved = 1;
}

/* Fold the frames at @vaddr of @mod (symbol, then inlined callees) into @b. */
static void pg_resolve_dwfl(struct pg_buf *b, Dwfl_Module *mod, uint64_t vaddr,
                            struct pg_frame_res *r, const char *modbase)
{
        GElf_Off off;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(mod, vaddr, &off, &sym, NULL, NULL, NULL);
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu;
        Dwarf_Die *scopes = NULL;
        int nscopes;
        size_t start = b->len;
        struct pg_buf tmp = PG_BUF_INIT;

        if (name == NULL || name[0] == '\0') {
                pg_put_module(b, modbase, r);
                return;
        }
        pg_demangle(&tmp, name);
        pg_fold_append_frame(b, tmp.ptr, tmp.len, PG_FRAME_USER);
        pg_buf_release(&tmp);
        r->nframes = 1;
        r->root = pg_is_root_name(b->ptr + start);
        cu = dwfl_module_addrdie(mod, vaddr, &bias);
        if (cu == NULL)
                return;
        nscopes = dwarf_getscopes(cu, vaddr - bias, &scopes);
        /* scopes are innermost first: emit the inlined ones outermost first */
        for (int i = nscopes - 1; i >= 0; i--) {
                const char *iname;

                if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
                        continue;
                iname = dwarf_diename(&scopes[i]);
                if (iname == NULL)
                        continue;
                pg_buf_putc(b, ';');
                pg_fold_append_frame(b, iname, strlen(iname), PG_FRAME_INLINED);
                r->nframes++;
        }
        free(scopes);
}

static void pg_resolve_jit(struct pg_symbolizer *s, struct pg_aspace *as, uint32_t pid, uint64_t pc,
                           struct pg_frame_res *r)
{
        const struct pg_jitsym *js;

        if (!as->jit_tried) {
                char path[4096];

                snprintf(path, sizeof(path), "%s/perf-%u.map",
                         s->o.jitmap_dir ? s->o.jitmap_dir : "/tmp", pid);
                pg_jitmap_load(&as->jit, path);
                as->jit_tried = true;
        }
        js = pg_jitmap_lookup(&as->jit, pc);
        r->nframes = 1;
        if (js == NULL) {
                pg_buf_puts(&as->pool, "[unknown]");
                r->unresolved = 1;
                return;
        }
        pg_fold_append_frame(&as->pool, js->name, strlen(js->name), PG_FRAME_JIT);
}

/* Frames outside usable files (JIT, anonymous, unknown), cached per address space. */
static const struct pg_frame_res *pg_resolve_local(struct pg_symbolizer *s, struct pg_aspace *as,
                                                   uint32_t pid, uint64_t pc,
                                                   const struct pg_map *m)
{
        uint32_t idx;
        struct pg_frame_res r = { 0 };

        if (pg_u64map_get(&as->cache, pc, &idx))
                return &as->res[idx];
        r.off = (uint32_t) as->pool.len;
        if (m != NULL && m->kind == PG_MAP_ANON) {
                pg_resolve_jit(s, as, as->pid ? as->pid : pid, pc, &r);
        } else if (m != NULL && (m->kind == PG_MAP_FILE || m->kind == PG_MAP_VDSO)) {
                pg_put_module(&as->pool, m->base, &r);
        } else {
                pg_buf_puts(&as->pool, "[unknown]");
                r.nframes = 1;
                r.unresolved = 1;
                r.nomap = m == NULL;
        }
        r.len = (uint32_t) (as->pool.len - r.off);
        if (as->nres == as->capres) {
                as->capres = as->capres ? as->capres * 2 : 256;
                as->res = pg_xreallocarray(as->res, as->capres, sizeof(*as->res));
        }
        as->res[as->nres] = r;
        pg_u64map_put(&as->cache, pc, (uint32_t) as->nres);
        return &as->res[as->nres++];
}

/*
 * The folded frames at @pc (already adjusted: ip - 1 for return addresses)
 * in @as; *pool says where the text is. Frames in files are cached per
 * (file, link-time address) for the symbolizer's lifetime.
 */
static const struct pg_frame_res *pg_resolve(struct pg_symbolizer *s, struct pg_aspace *as,
                                             uint32_t pid, uint64_t pc, const struct pg_buf **pool)
{
        struct pg_map *m = pg_aspace_find(as, pc);
        struct pg_file *f = m ? pg_map_file(s, m) : NULL;
        struct pg_frame_res r = { 0 };
        uint64_t vaddr, key;
        uint32_t idx;

        if (f == NULL) {
                *pool = &as->pool;
                return pg_resolve_local(s, as, pid, pc, m);
        }
        *pool = &s->fpool;
        vaddr = pc - m->bias;
        key = ((uint64_t) m->file << 44) | (vaddr & ((1ULL << 44) - 1));
        if (pg_u64map_get(&s->fcache, key, &idx))
                return &s->fres[idx];
        r.off = (uint32_t) s->fpool.len;
        pg_resolve_dwfl(&s->fpool, f->mod, vaddr, &r, m->base);
        r.len = (uint32_t) (s->fpool.len - r.off);
        if (s->nfres == s->capfres) {
                s->capfres = s->capfres ? s->capfres * 2 : 256;
                s->fres = pg_xreallocarray(s->fres, s->capfres, sizeof(*s->fres));
        }
        s->fres[s->nfres] = r;
        pg_u64map_put(&s->fcache, key, (uint32_t) s->nfres);
        return &s->fres[s->nfres++];
}

/* ---- processes and threads ---------------------------------------------- */

static struct pg_proc *pg_proc_get(struct pg_symbolizer *s, uint32_t pid, bool create)
{
        uint32_t idx;

        if (pg_u64map_get(&s->procmap, pid, &idx))
                return &s->procs[idx];
        if (!create)
                return NULL;
        if (s->nprocs == s->capprocs) {
                s->capprocs = s->capprocs ? s->capprocs * 2 : 16;
                s->procs = pg_xreallocarray(s->procs, s->capprocs, sizeof(*s->procs));
        }
        s->procs[s->nprocs].as = pg_aspace_new(pid);
        pg_u64map_put(&s->procmap, pid, (uint32_t) s->nprocs);
        return &s->procs[s->nprocs++];
}

static struct pg_thread *pg_thread_get(struct pg_symbolizer *s, uint32_t tid, bool create)
{
        uint32_t idx;

        if (pg_u64map_get(&s->threadmap, tid, &idx))
                return &s->threads[idx];
        if (!create)
                return NULL;
        if (s->nthreads == s->capthreads) {
                s->capthreads = s->capthreads ? s->capthreads * 2 : 16;
                s->threads = pg_xreallocarray(s->threads, s->capthreads, sizeof(*s->threads));
        }
        memset(&s->threads[s->nthreads], 0, sizeof(s->threads[0]));
        pg_u64map_put(&s->threadmap, tid, (uint32_t) s->nthreads);
        return &s->threads[s->nthreads++];
}

static void pg_thread_set_comm(struct pg_thread *t, const char *comm, size_t len)
{
        struct pg_buf b = PG_BUF_INIT;

        if (len >= sizeof(t->comm))
                len = sizeof(t->comm) - 1;
        memcpy(t->comm, comm, len);
        t->comm[len] = '\0';
        t->comm_len = len;
        pg_fold_append_comm(&b, t->comm, t->comm_len, PG_COMM_KEEP);
        t->folded_len = b.len < sizeof(t->folded) ? b.len : 0;
        memcpy(t->folded, b.ptr, t->folded_len);
        pg_buf_release(&b);
}

static void pg_run_reset(struct pg_symbolizer *s)
{
        for (size_t i = 0; i < s->nprocs; i++)
                pg_aspace_unref(s->procs[i].as);
        s->nprocs = 0;
        s->nthreads = 0;
        pg_u64map_release(&s->procmap);
        pg_u64map_release(&s->threadmap);
}

/* ---- stacks table -------------------------------------------------------- */

static uint64_t pg_hash_bytes(const char *p, size_t n)
{
        uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

        while (n >= 8) {
                uint64_t v;

                memcpy(&v, p, 8);
                h = (h ^ pg_mix64(v)) * 0x9fb21c651e98df25ULL;
                p += 8;
                n -= 8;
        }
        if (n) {
                uint64_t v = 0;

                memcpy(&v, p, n);
                h = (h ^ pg_mix64(v)) * 0x9fb21c651e98df25ULL;
        }
        return pg_mix64(h);
}

static void pg_stacks_add(struct pg_symbolizer *s, const char *key, size_t len, uint64_t count);

static void pg_stacks_grow(struct pg_symbolizer *s)
{
        struct pg_stackent *old = s->stacks;
        size_t oldcap = s->capstacks;

        s->capstacks = oldcap ? oldcap * 2 : 1024;
        s->stacks = pg_xcalloc(s->capstacks, sizeof(*s->stacks));
        for (size_t i = 0; i < oldcap; i++) {
                size_t j;

                if (old[i].count == 0)
                        continue;
                for (j = old[i].hash & (s->capstacks - 1); s->stacks[j].count;
                     j = (j + 1) & (s->capstacks - 1))
                        ;
                s->stacks[j] = old[i];
        }
        free(old);
}

static void pg_stacks_add(struct pg_symbolizer *s, const char *key, size_t len, uint64_t count)
{
        uint64_t h = pg_hash_bytes(key, len);
        size_t i;

        if ((s->nstacks + 1) * 2 > s->capstacks)
                pg_stacks_grow(s);
        for (i = h & (s->capstacks - 1); s->stacks[i].count; i = (i + 1) & (s->capstacks - 1)) {
                struct pg_stackent *e = &s->stacks[i];

                if (e->hash == h && e->len == len && memcmp(s->keys.ptr + e->off, key, len) == 0) {
                        e->count += count;
                        return;
                }
        }
        s->stacks[i] = (struct pg_stackent){ h, (uint32_t) s->keys.len, (uint32_t) len, count };
        pg_buf_add(&s->keys, key, len);
        pg_buf_putc(&s->keys, '\0');
        s->nstacks++;
}

/* ---- samples ------------------------------------------------------------- */

/* The kallsyms table: joins the loader thread, or loads it here. */
static void pg_ksyms_wait(struct pg_symbolizer *s)
{
        if (s->ksyms_thread_running) {
                pthread_join(s->ksyms_thread, NULL);
                s->ksyms_thread_running = false;
        } else {
                pg_kallsyms_load(&s->ksyms,
                                 s->o.kallsyms_path ? s->o.kallsyms_path : "/proc/kallsyms");
        }
        s->ksyms_loaded = true;
}

/* Background threads run at the lowest priority: never slow the benchmark. */
static void pg_thread_background(void)
{
        (void) setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), 19);
}

static void *pg_ksyms_thread(void *arg)
{
        struct pg_symbolizer *s = arg;

        pg_thread_background();
        pg_kallsyms_load(&s->ksyms, s->o.kallsyms_path ? s->o.kallsyms_path : "/proc/kallsyms");
        return NULL;
}

static bool pg_user_addr_plausible(uint64_t a)
{
        return a >= 4096 && a < 0x0000800000000000ULL;
}

/*
 * The caller (return address - 1) of the frame at @ip, unwound one step by
 * CFI from the sample's user registers and stack top; 0 when unknown or when
 * the registers are not those of @ip.
 */
/*
 * Where the return address of the frame at @vaddr of @f sits, as an offset
 * from the sampled SP, from the frame's CFI (.eh_frame): CFA = rsp + a and
 * RA at CFA + b give a + b + 1. 0 when the CFA is rbp-based (the frame is set
 * up, so the frame-pointer chain already has the caller) or the rule is not
 * this simple form.
 */
static uint32_t pg_leaf_plan(struct pg_file *f, uint64_t vaddr)
{
        Dwarf_Addr cbias = 0;
        Dwarf_CFI *cfi = dwfl_module_eh_cfi(f->mod, &cbias);
        Dwarf_Frame *fr = NULL;
        Dwarf_Op *ops, mem[3];
        size_t nops;
        uint32_t plan = 0;
        int64_t cfa_off, ra_off = 0;

        if (cfi == NULL || dwarf_cfi_addrframe(cfi, vaddr - cbias, &fr) != 0)
                return 0;
        if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1)
                goto done;
        /* libdw gives a register+offset CFA as DW_OP_bregx(reg, offset) */
        if (ops[0].atom == DW_OP_bregx && ops[0].number == 7)
                cfa_off = (int64_t) ops[0].number2;
        else if (ops[0].atom == DW_OP_breg7)
                cfa_off = (int64_t) ops[0].number;
        else
                goto done; /* rbp-based or complex: the frame is set up */
        if (dwarf_frame_register(fr, 16, mem, &ops, &nops) != 0 || nops == 0 || nops > 3 ||
            ops[0].atom != DW_OP_call_frame_cfa)
                goto done;
        if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
                ra_off = (int64_t) ops[1].number;
        else if (nops == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus)
                ra_off = (int64_t) ops[1].number;
        else if (nops != 1)
                goto done;
        if (cfa_off + ra_off >= 0 && cfa_off + ra_off < (1 << 20))
                plan = (uint32_t) (cfa_off + ra_off) + 1;
done:
        free(fr);
        return plan;
}

/*
 * The caller (return address - 1) of a sampled leaf frame at @ip, from the
 * sample's SP and stack copy and the leaf's CFI (plan cached per file
 * address); 0 when unknown or when the registers are not those of @ip.
 */
static uint64_t pg_leaf_caller(struct pg_symbolizer *s, struct pg_aspace *as,
                               const struct pg_perf_sample *smp, uint64_t ip)
{
        struct pg_map *m = pg_aspace_find(as, ip);
        struct pg_file *f;
        uint64_t vaddr, key, ra;
        uint32_t plan;

        if (m == NULL || pg_unwind_reg(smp, s->o.regs_user_mask, 8) != ip ||
            (f = pg_map_file(s, m)) == NULL)
                return 0;
        vaddr = ip - m->bias;
        key = ((uint64_t) m->file << 44) | (vaddr & ((1ULL << 44) - 1));
        if (!pg_u64map_get(&s->leafplans, key, &plan)) {
                plan = pg_leaf_plan(f, vaddr);
                pg_u64map_put(&s->leafplans, key, plan);
        }
        if (plan == 0 || plan - 1 > smp->stack_dyn_size || smp->stack_dyn_size - (plan - 1) < 8)
                return 0;
        memcpy(&ra, smp->stack + (plan - 1), 8);
        return pg_user_addr_plausible(ra) ? ra - 1 : 0;
}

static void pg_fold_sample(struct pg_symbolizer *s, const struct pg_perf_record *rec)
{
        const struct pg_perf_sample *smp = &rec->u.sample;
        uint32_t pid = rec->sid.pid, tid = rec->sid.tid;
        struct pg_proc *proc = pg_proc_get(s, pid, true);
        struct pg_aspace *as = proc->as;
        struct pg_thread *t = pg_thread_get(s, tid, false);
        struct pg_seg *segs = s->segs;
        size_t nsegs = 0, nreal = 0;
        uint64_t ctx = PERF_CONTEXT_USER;
        bool first_in_ctx = true, truncated = false, rooted = false, astray = false;
        const struct pg_buf *pool = NULL;

        if (t == NULL || t->comm_len == 0)
                t = pg_thread_get(s, pid, false);
        pg_buf_reset(&s->kscratch);
        for (uint64_t i = 0; i < smp->nr && nsegs < PG_MAX_FRAMES; i++) {
                uint64_t ip = pg_perf_chain_ip(smp, i), pc;
                const struct pg_frame_res *r;

                if (ip >= (uint64_t) PERF_CONTEXT_MAX) {
                        ctx = ip;
                        first_in_ctx = true;
                        continue;
                }
                nreal++;
                pc = first_in_ctx ? ip : ip - 1;
                first_in_ctx = false;
                if (ctx == PERF_CONTEXT_KERNEL) {
                        const char *kn;
                        uint32_t off = (uint32_t) s->kscratch.len;

                        if (!s->o.kernel)
                                continue;
                        if (!s->ksyms_loaded)
                                pg_ksyms_wait(s);
                        kn = pg_kallsyms_lookup(&s->ksyms, pc);
                        if (kn == NULL)
                                continue; /* invisible: user-only stacks */
                        pg_fold_append_frame(&s->kscratch, kn, strlen(kn), PG_FRAME_KERNEL);
                        segs[nsegs++] = (struct pg_seg){ &s->kscratch, off,
                                                         (uint32_t) (s->kscratch.len - off) };
                        s->st.kernel_frames = true;
                        continue;
                }
                if (ctx != PERF_CONTEXT_USER || !pg_user_addr_plausible(ip))
                        continue;
                r = pg_resolve(s, as, pid, pc, &pool);
                if (r->nomap && pc != ip) {
                        /* a return address in no mapping: the frame-pointer walk
                         * left the stack (code without frame pointers); what
                         * follows is junk, not callers */
                        astray = true;
                        break;
                }
                s->st.frames++;
                s->st.unresolved += r->unresolved;
                rooted = r->root;
                segs[nsegs++] = (struct pg_seg){ pool, r->off, r->len };
                if (pc == ip && !s->o.dwarf && smp->abi != 0 && nsegs < PG_MAX_FRAMES) {
                        uint64_t caller = pg_leaf_caller(s, as, smp, ip);
                        uint64_t next = i + 1 < smp->nr ? pg_perf_chain_ip(smp, i + 1) : 0;

                        if (caller && caller != next - 1) {
                                r = pg_resolve(s, as, pid, caller, &pool);
                                s->st.frames++;
                                s->st.unresolved += r->unresolved;
                                rooted = r->root;
                                segs[nsegs++] = (struct pg_seg){ pool, r->off, r->len };
                        }
                }
        }
        if (s->o.dwarf && nsegs < PG_MAX_FRAMES) {
                size_t n;

                if (as->dwfl == NULL || as->dirty)
                        pg_aspace_build(s, as);
                n = as->dwfl ? pg_unwind_sample(&as->unwinder, as->dwfl, (pid_t) tid, smp, s->pcs,
                                                PG_MAX_FRAMES - nsegs)
                             : 0;
                if (n == 0 && pg_user_addr_plausible(smp->ip) && smp->abi != 0) {
                        s->pcs[0] = smp->ip;
                        n = 1;
                }
                for (size_t i = 0; i < n; i++) {
                        const struct pg_frame_res *r;

                        if (!pg_user_addr_plausible(s->pcs[i]))
                                continue;
                        r = pg_resolve(s, as, pid, s->pcs[i], &pool);
                        s->st.frames++;
                        s->st.unresolved += r->unresolved;
                        rooted = r->root;
                        segs[nsegs++] = (struct pg_seg){ pool, r->off, r->len };
                }
        }
        if (s->max_stack && nreal >= s->max_stack && !astray) {
                truncated = true;
                s->st.truncated++;
        }
        s->st.rooted += rooted && !truncated;
        pg_buf_reset(&s->key);
        if (t && t->folded_len)
                pg_buf_add(&s->key, t->folded, t->folded_len);
        else if (t && t->comm_len)
                pg_fold_append_comm(&s->key, t->comm, t->comm_len, PG_COMM_KEEP);
        else
                pg_buf_puts(&s->key, "[unknown]");
        if (truncated)
                pg_buf_puts(&s->key, ";[truncated]");
        if (nsegs == 0)
                pg_buf_puts(&s->key, ";[unknown]");
        for (size_t i = nsegs; i-- > 0;) {
                const char *p = segs[i].pool->ptr;

                pg_buf_putc(&s->key, ';');
                pg_buf_add(&s->key, p + segs[i].off, segs[i].len);
        }
        pg_stacks_add(s, s->key.ptr, s->key.len, 1);
        s->st.samples++;
}

/* ---- records ------------------------------------------------------------- */

static void pg_apply(struct pg_symbolizer *s, const struct pg_perf_record *r)
{
        switch (r->type) {
        case PERF_RECORD_SAMPLE:
                pg_fold_sample(s, r);
                break;
        case PERF_RECORD_COMM: {
                struct pg_thread *t = pg_thread_get(s, r->u.comm.tid, true);

                pg_thread_set_comm(t, r->u.comm.comm, r->u.comm.comm_len);
                if (r->u.comm.exec) {
                        struct pg_proc *p = pg_proc_get(s, r->u.comm.pid, true);

                        pg_aspace_unref(p->as); /* exec: a new image */
                        p->as = pg_aspace_new(r->u.comm.pid);
                }
                break;
        }
        case PERF_RECORD_FORK: {
                const struct pg_perf_task *k = &r->u.task;
                struct pg_thread *parent = pg_thread_get(s, k->ptid, false), *t;
                char comm[32];
                size_t len = 0;

                if (parent) {
                        len = parent->comm_len;
                        memcpy(comm, parent->comm, len);
                }
                t = pg_thread_get(s, k->tid, true);
                if (len)
                        pg_thread_set_comm(t, comm, len);
                if (k->pid != k->ppid) {
                        struct pg_proc *pp = pg_proc_get(s, k->ppid, false);
                        struct pg_aspace *pas = pp ? pp->as : NULL;
                        struct pg_proc *p = pg_proc_get(s, k->pid, true);

                        pg_aspace_unref(p->as);
                        if (pas) {
                                pas->refs++; /* copy on write: shared until one side maps */
                                p->as = pas;
                        } else {
                                p->as = pg_aspace_new(k->pid);
                        }
                }
                break;
        }
        case PERF_RECORD_MMAP:
        case PERF_RECORD_MMAP2: {
                struct pg_proc *p;

                if (!(r->u.mmap.prot & 0x4)) /* PROT_EXEC */
                        break;
                p = pg_proc_get(s, r->u.mmap.pid, true);
                if (p->as->refs > 1) {
                        struct pg_aspace *copy = pg_aspace_clone(p->as, r->u.mmap.pid);

                        pg_aspace_unref(p->as);
                        p->as = copy;
                }
                pg_aspace_add(p->as, &r->u.mmap);
                break;
        }
        case PERF_RECORD_LOST:
        case PERF_RECORD_LOST_SAMPLES:
                s->st.lost += r->u.lost;
                break;
        case PERF_RECORD_THROTTLE:
                s->st.throttled++;
                break;
        default:
                break;
        }
}

void pg_symbolizer_process(struct pg_symbolizer *s, const struct pg_record_log *log,
                           const struct pg_perf_format *fmt)
{
        struct pg_perf_record rec;

        pg_prefetch_join(s);
        for (size_t i = 0; i < log->nrefs; i++) {
                const struct pg_record_ref *ref = &log->refs[i];

                if (pg_perf_record_decode(log->arena + ref->offset, ref->len, fmt, &rec) < 0) {
                        s->st.malformed++;
                        continue;
                }
                pg_apply(s, &rec);
        }
        pg_run_reset(s);
}

/* ---- lifecycle ------------------------------------------------------------- */

/*
 * Copy perfgate's own vDSO image (identical for every process on this
 * kernel) into an anonymous memfd, named by a /proc/self/fd path: nothing is
 * left behind in /tmp even when perfgate is killed (4.2, pitfall 13).
 * The image size is e_shoff + e_shnum * e_shentsize.
 */
static bool pg_vdso_copy(struct pg_symbolizer *s)
{
        const unsigned char *img = (const unsigned char *) getauxval(AT_SYSINFO_EHDR);
        const Elf64_Ehdr *eh = (const Elf64_Ehdr *) img;
        size_t len;
        int fd;

        if (img == NULL || memcmp(img, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
                return false;
        len = eh->e_shoff + (size_t) eh->e_shnum * eh->e_shentsize;
        fd = memfd_create("perfgate-vdso", MFD_CLOEXEC);
        if (fd < 0)
                return false;
        if (write(fd, img, len) != (ssize_t) len) {
                close(fd);
                return false;
        }
        s->vdso_fd = fd;
        snprintf(s->vdso_path, sizeof(s->vdso_path), "/proc/self/fd/%d", fd);
        return true;
}

int pg_symbolizer_new(struct pg_symbolizer **out, const struct pg_symbolizer_opts *o)
{
        struct pg_symbolizer *s = pg_xcalloc(1, sizeof(*s));
        char resolved[4096];

        s->o = *o;
        elf_version(EV_CURRENT);
        if (o->debug_dir && realpath(o->debug_dir, resolved) != NULL)
                s->debuginfo_path = pg_xasprintf(":.debug:%s:/usr/lib/debug", resolved);
        else
                s->debuginfo_path = pg_xstrdup(":.debug:/usr/lib/debug");
        s->callbacks.find_elf = dwfl_linux_proc_find_elf;
        s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
        s->callbacks.debuginfo_path = &s->debuginfo_path;
        s->have_vdso = pg_vdso_copy(s);
        s->max_stack = o->max_stack;
        if (s->max_stack == 0) {
                struct pg_buf text = PG_BUF_INIT;

                s->max_stack = 127;
                if (pg_read_file("/proc/sys/kernel/perf_event_max_stack", &text) == 0 &&
                    atoi(text.ptr) > 0)
                        s->max_stack = (unsigned) atoi(text.ptr);
                pg_error_clear();
                pg_buf_release(&text);
        }
        pg_buf_init(&s->keys);
        pg_buf_init(&s->key);
        pg_buf_init(&s->kscratch);
        pg_buf_init(&s->fpool);
        pthread_mutex_init(&s->pf_lock, NULL);
        pthread_cond_init(&s->pf_cond, NULL);
        /* /proc/kallsyms takes tens of ms to generate: read it in the
         * background, during the sampling run (joined at first use) */
        if (o->kernel)
                s->ksyms_thread_running =
                    pthread_create(&s->ksyms_thread, NULL, pg_ksyms_thread, s) == 0;
        *out = s;
        return 0;
}

void pg_symbolizer_free(struct pg_symbolizer *s)
{
        if (s == NULL)
                return;
        if (s->ksyms_thread_running)
                pthread_join(s->ksyms_thread, NULL);
        pg_prefetch_join(s);
        for (size_t i = 0; i < s->pf_n; i++)
                free(s->pf_queue[i]);
        free(s->pf_queue);
        pg_u64map_release(&s->pf_seen);
        pthread_mutex_destroy(&s->pf_lock);
        pthread_cond_destroy(&s->pf_cond);
        pg_run_reset(s);
        free(s->procs);
        free(s->threads);
        free(s->stacks);
        pg_buf_release(&s->keys);
        pg_buf_release(&s->key);
        pg_buf_release(&s->kscratch);
        pg_kallsyms_release(&s->ksyms);
        pg_u64map_release(&s->fcache);
        pg_u64map_release(&s->leafplans);
        pg_u64map_release(&s->fileids);
        free(s->fres);
        pg_buf_release(&s->fpool);
        for (size_t i = 0; i < s->nfiles; i++) {
                if (s->files[i].dwfl)
                        dwfl_end(s->files[i].dwfl);
                free(s->files[i].path);
                free(s->files[i].rejected_debug);
        }
        free(s->files);
        if (s->have_vdso)
                close(s->vdso_fd);
        free(s->debuginfo_path);
        free(s);
}

const struct pg_symbolize_stats *pg_symbolizer_stats(const struct pg_symbolizer *s)
{
        return &s->st;
}

void pg_symbolizer_export(const struct pg_symbolizer *s, struct pg_profile *p)
{
        struct pg_stack *v = pg_xcalloc(s->nstacks ? s->nstacks : 1, sizeof(*v));
        size_t n = 0;

        for (size_t i = 0; i < s->capstacks; i++) {
                if (s->stacks[i].count == 0)
                        continue;
                v[n].frames = s->keys.ptr + s->stacks[i].off;
                v[n].count = s->stacks[i].count;
                n++;
        }
        pg_profile_set_stacks(p, v, n);
        free(v);
}
