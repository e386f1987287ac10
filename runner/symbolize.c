/*
 * symbolize.c - from the time-ordered records of sampling runs to folded
 * stacks (see symbolize.h): the processes and threads of a run (pid -> its
 * address space, tid -> comm), each sample's call chain resolved frame by
 * frame (runner/sym_frames.c) or unwound from its registers and stack copy
 * in DWARF mode (runner/unwind.h), kernel frames from /proc/kallsyms (loaded
 * by a background thread during the run), and the accumulated stacks,
 * interned in a common/hashmap.h string map with a count per stack. The
 * address spaces are in runner/sym_aspace.c, the ELF/DWARF module cache in
 * runner/sym_modules.c.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "baselines/frame.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "runner/annotate.h"
#include "runner/debugcache.h"
#include "runner/fold.h"
#include "runner/sym_internal.h"
#include "runner/libdw.h"

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

/* Add @count samples to folded stack @key (@len bytes). */
static void pg_stacks_add(struct pg_symbolizer *s, const char *key, size_t len, uint64_t count)
{
        bool added;
        size_t idx = pg_strmap_intern(&s->stacks, key, len, &added);

        if (added) {
                if (idx >= s->capcounts) {
                        s->capcounts = s->capcounts ? s->capcounts * 2 : 1024;
                        s->counts = pg_xreallocarray(s->counts, s->capcounts, sizeof(*s->counts));
                }
                s->counts[idx] = 0;
        }
        s->counts[idx] += count;
}

/* The kernel's symbols: the file the options name, else the live ones
 * through the per-user cache (runner/kallsyms.h, PERFGATE_KALLSYMS_CACHE=0: off). */
static void pg_ksyms_load(struct pg_symbolizer *s)
{
        struct pg_kallsyms_src src = { "/proc/kallsyms", "/proc/modules",
                                       "/proc/sys/kernel/random/boot_id", NULL };
        char dir[4096], path[4096 + 16];

        if (s->o.kallsyms_path != NULL) {
                pg_kallsyms_load(&s->ksyms, s->o.kallsyms_path);
                return;
        }
        if (pg_cache_dir(NULL, "PERFGATE_KALLSYMS_CACHE", dir, sizeof(dir))) {
                snprintf(path, sizeof(path), "%s/kallsyms", dir);
                src.cache = path;
        }
        pg_kallsyms_load_cached(&s->ksyms, &src);
}

/* The kallsyms table: joins the loader thread, or loads it here. */
static void pg_ksyms_wait(struct pg_symbolizer *s)
{
        if (s->ksyms_thread_running) {
                pthread_join(s->ksyms_thread, NULL);
                s->ksyms_thread_running = false;
        } else {
                pg_ksyms_load(s);
        }
        s->ksyms_loaded = true;
}

static void *pg_ksyms_thread(void *arg)
{
        struct pg_symbolizer *s = arg;

        pg_thread_background();
        pg_ksyms_load(s);
        return NULL;
}

/*
 * Count the sample's own instruction address under the function that holds
 * it: the ELF symbol (the outermost name of the frames at that address,
 * inlined callees aside) and the file, at its link-time address, which is
 * the same in every run and in the file `perfgate annotate` reads.
 */
static void pg_count_leaf_address(struct pg_symbolizer *s, struct pg_aspace *as, uint32_t pid,
                                  uint64_t ip)
{
        const struct pg_buf *pool = NULL;
        const struct pg_frame_res *r;
        const struct pg_map *m;
        struct pg_sym_hot *h;
        const char *name;
        size_t len, idx;
        uint32_t at;
        bool added;

        if (!pg_user_addr_plausible(ip))
                return;
        r = pg_frame_resolve(s, as, pid, ip, &pool);
        m = pg_aspace_find(as, ip);
        if (r->unresolved || r->len == 0 || m == NULL || m->kind != PG_MAP_FILE || m->file < 0 ||
            m->bad)
                return;
        name = pool->ptr + r->off;
        len = strcspn(name, ";");
        if (len > r->len)
                len = r->len;
        pg_buf_reset(&s->kscratch);
        pg_buf_add(&s->kscratch, name, len);
        pg_buf_putc(&s->kscratch, '\0');
        pg_buf_puts(&s->kscratch, s->files[m->file].path);
        idx = pg_strmap_intern(&s->hotkeys, s->kscratch.ptr, s->kscratch.len, &added);
        if (added) {
                if (idx >= s->caphot) {
                        size_t old = s->caphot;

                        s->caphot = s->caphot ? s->caphot * 2 : 16;
                        s->hot = pg_xreallocarray(s->hot, s->caphot, sizeof(*s->hot));
                        memset(s->hot + old, 0, (s->caphot - old) * sizeof(*s->hot));
                }
        }
        h = &s->hot[idx];
        if (pg_u64map_get(&h->at, ip - m->bias, &at)) {
                h->v[at].count++;
                return;
        }
        if (h->n == h->cap) {
                h->cap = h->cap ? h->cap * 2 : 8;
                h->v = pg_xreallocarray(h->v, h->cap, sizeof(*h->v));
        }
        h->v[h->n] = (struct pg_addr_count){ ip - m->bias, 1 };
        pg_u64map_put(&h->at, ip - m->bias, (uint32_t) h->n++);
}

/* A frame-pointer stack that reaches no entry ended at @pc: count its file,
 * so a warning can name the library that breaks most chains (a system
 * library built without frame pointers) rather than the user's build. */
static void pg_note_stop(struct pg_symbolizer *s, struct pg_aspace *as, uint64_t pc)
{
        const struct pg_map *m = pg_aspace_find(as, pc);
        size_t i = 0;

        if (m == NULL || m->file < 0)
                return;
        while (i < s->nstops && s->stops[i].file != m->file)
                i++;
        if (i == s->nstops) {
                if (i == sizeof(s->stops) / sizeof(s->stops[0]))
                        return;
                s->stops[s->nstops].file = m->file;
                s->stops[s->nstops++].n = 0;
        }
        if (++s->stops[i].n > s->st.stop_count) {
                s->st.stop_count = s->stops[i].n;
                s->st.stop_module = s->files[m->file].path;
        }
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
        uint64_t ctx = PERF_CONTEXT_USER, outer = 0;
        bool first_in_ctx = true, truncated = false, rooted = false, astray = false;
        const struct pg_buf *pool = NULL;

        if (s->o.weight_by_period && smp->period == 0)
                return; /* weighed to nothing (runner/offcpu.h) */
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
                        kn = pg_kallsyms_find(&s->ksyms, pc);
                        if (kn == NULL)
                                continue; /* invisible: user-only stacks */
                        pg_fold_append_frame(&s->kscratch, kn, strlen(kn), PG_FRAME_KERNEL);
                        segs[nsegs++] = (struct pg_seg){ &s->kscratch, off,
                                                         (uint32_t) (s->kscratch.len - off) };
                        s->st.kernel_frames = true;
                        continue;
                }
                if (ctx != PERF_CONTEXT_USER)
                        continue;
                if (!pg_user_addr_plausible(ip)) {
                        /* a return address no user code can have (0x10, a
                         * kernel address): the walk left the frame chain, and
                         * what follows is junk; counted to max_stack, it is not
                         * a truncated chain */
                        if (pc != ip) {
                                astray = true;
                                break;
                        }
                        continue;
                }
                r = pg_frame_resolve(s, as, pid, pc, &pool);
                if (r->nomap && pc != ip) {
                        /* a return address in no mapping: the frame-pointer walk
                         * left the stack (code without frame pointers); what
                         * follows is junk, not callers */
                        astray = true;
                        break;
                }
                s->st.frames++;
                s->st.unresolved += r->unresolved;
                rooted = rooted || r->root;
                segs[nsegs++] = (struct pg_seg){ pool, r->off, r->len };
                outer = pc;
                if (pc == ip && !s->o.dwarf && smp->abi != 0 && nsegs < PG_MAX_FRAMES) {
                        uint64_t caller = pg_leaf_caller(s, as, smp, ip);
                        uint64_t next = i + 1 < smp->nr ? pg_perf_chain_ip(smp, i + 1) : 0;

                        if (caller && caller != next - 1) {
                                r = pg_frame_resolve(s, as, pid, caller, &pool);
                                s->st.frames++;
                                s->st.unresolved += r->unresolved;
                                rooted = rooted || r->root;
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
                        r = pg_frame_resolve(s, as, pid, s->pcs[i], &pool);
                        s->st.frames++;
                        s->st.unresolved += r->unresolved;
                        rooted = rooted || r->root;
                        segs[nsegs++] = (struct pg_seg){ pool, r->off, r->len };
                }
        }
        if (s->max_stack && nreal >= s->max_stack && !astray) {
                truncated = true;
                s->st.truncated++;
        }
        /* a stack reaches main or a thread entry when any of its frames is
         * one: the frames outside it (__libc_start_call_main, a local symbol
         * of libc without its debuginfo) may have no name */
        s->st.rooted += rooted && !truncated;
        if (!rooted && !truncated && !s->o.dwarf && outer)
                pg_note_stop(s, as, outer);
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
        pg_stacks_add(s, s->key.ptr, s->key.len, s->o.weight_by_period ? smp->period : 1);
        s->st.samples++;
        pg_count_leaf_address(s, as, pid, smp->ip); /* 0 without PERF_SAMPLE_IP: skipped */
}

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
        /* debug files whose sections libdw inflated: kept inflated for the next process */
        for (size_t i = 0; i < s->nfiles; i++) {
                if (s->files[i].mod != NULL && s->files[i].dwarf_read && !s->files[i].debug_saved) {
                        s->files[i].debug_saved = true;
                        pg_debugcache_save(s->files[i].mod);
                }
        }
}

/*
 * Copy perfgate's own vDSO image (identical for every process on this
 * kernel) into an anonymous memfd, named by a /proc/self/fd path: nothing is
 * left behind in /tmp even when perfgate is killed (memfd_create(2)).
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
        struct pg_symbolizer *s;
        char resolved[4096];
        int rc;

        *out = NULL;
        if ((rc = pg_libdw_init()) < 0)
                return rc;
        s = pg_xcalloc(1, sizeof(*s));
        s->o = *o;
        if (o->debug_dir && realpath(o->debug_dir, resolved) != NULL)
                s->debuginfo_path = pg_xasprintf(":.debug:%s:/usr/lib/debug", resolved);
        else
                s->debuginfo_path = pg_xstrdup(":.debug:/usr/lib/debug");
        s->callbacks.find_elf = dwfl_linux_proc_find_elf;
        s->callbacks.find_debuginfo = pg_debugcache_find_debuginfo;
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
        pg_buf_init(&s->key);
        pg_buf_init(&s->kscratch);
        pg_buf_init(&s->fpool);
        pthread_mutex_init(&s->pf_lock, NULL);
        pthread_cond_init(&s->pf_cond, NULL);
        *out = s;
        return 0;
}

void pg_symbolizer_kernel_expected(struct pg_symbolizer *s)
{
        /* /proc/kallsyms takes tens of ms to generate: read it in the
         * background, during the sampling run (joined at first use) */
        if (s->o.kernel && !s->ksyms_loaded && !s->ksyms_thread_running)
                s->ksyms_thread_running =
                    pthread_create(&s->ksyms_thread, NULL, pg_ksyms_thread, s) == 0;
}

void pg_symbolizer_clear_profile(struct pg_symbolizer *s)
{
        const char *rejected = s->st.rejected_debug; /* owned by a cached file */
        bool rejected_symtab = s->st.rejected_debug_symtab;
        const char *lost = s->st.debug_lost; /* about cached files */

        pg_strmap_release(&s->stacks);
        for (size_t i = 0; i < s->hotkeys.n; i++) {
                pg_u64map_release(&s->hot[i].at);
                free(s->hot[i].v);
                memset(&s->hot[i], 0, sizeof(s->hot[i]));
        }
        pg_strmap_release(&s->hotkeys);
        free(s->run_mark);
        free(s->run_counts);
        free(s->run_totals);
        pg_strmap_release(&s->run_names);
        s->run_mark = NULL;
        s->run_counts = NULL;
        s->run_totals = NULL;
        s->nrun_mark = s->nrun_counts = s->caprun_counts = s->nruns = 0;
        memset(&s->st, 0, sizeof(s->st));
        s->nstops = 0;
        s->st.rejected_debug = rejected;
        s->st.rejected_debug_symtab = rejected_symtab;
        s->st.debug_lost = lost;
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
        pthread_mutex_destroy(&s->pf_lock);
        pthread_cond_destroy(&s->pf_cond);
        pg_run_reset(s);
        free(s->procs);
        free(s->threads);
        pg_symbolizer_clear_profile(s);
        free(s->hot);
        free(s->counts);
        free(s->jitdump_problem);
        pg_buf_release(&s->debug_notes);
        pg_buf_release(&s->key);
        pg_buf_release(&s->kscratch);
        pg_kallsyms_release(&s->ksyms);
        pg_u64map_release(&s->fcache);
        pg_u64map_release(&s->leafplans);
        free(s->fres);
        pg_buf_release(&s->fpool);
        pg_files_release(s);
        if (s->have_vdso)
                close(s->vdso_fd);
        free(s->debuginfo_path);
        free(s);
}

const struct pg_symbolize_stats *pg_symbolizer_stats(const struct pg_symbolizer *s)
{
        return &s->st;
}

/* @file into @out, under @comp_dir when relative (DWARF 5 section 3.1.1):
 * one key whatever form the line table gives it in (clang's DWARF 5 names
 * are absolute, rustc's DWARF 4 ones relative to the crate). */
static void pg_src_key(struct pg_buf *out, const char *comp_dir, const char *file)
{
        if (comp_dir && comp_dir[0] == '/' && file[0] != '/') {
                pg_buf_puts(out, comp_dir);
                if (out->ptr[out->len - 1] != '/')
                        pg_buf_putc(out, '/');
        }
        pg_buf_puts(out, file);
}

/* @f's module's build-id (hex) and its samples by source line
 * ("file:line"), from the line table of the CU the folding finds for each
 * address (pg_module_line()); those at lines inlined from another file also
 * by the call site in the function's own file (pg_module_inline_site()). */
static void pg_export_lines(const struct pg_symbolizer *s, struct pg_fn_addrs *f)
{
        struct pg_buf where = PG_BUF_INIT, site = PG_BUF_INIT, callee = PG_BUF_INIT;
        const char *comp_dir;
        size_t idx, capinl = 0;
        struct pg_inline_cache cache = { 0 };

        if (!pg_strmap_find(&s->fileids, f->module, strlen(f->module), &idx))
                return;
        pg_buf_hex(&where, s->files[idx].build_id, s->files[idx].build_id_len);
        if (where.len)
                f->build_id = pg_buf_detach(&where, NULL);
        if (s->files[idx].mod == NULL)
                return;
        f->lines = pg_xcalloc(f->n ? f->n : 1, sizeof(*f->lines));
        /* one function, one compile unit */
        comp_dir =
            f->n ? pg_module_comp_dir(&s->files[idx].scopes, s->files[idx].mod, f->addrs[0].addr)
                 : NULL;
        for (size_t j = 0; j < f->n; j++) {
                int lineno;
                const char *file = pg_module_line(&s->files[idx].scopes, s->files[idx].mod,
                                                  f->addrs[j].addr, &lineno);

                if (file == NULL || lineno <= 0)
                        continue;
                pg_buf_reset(&where);
                pg_src_key(&where, comp_dir, file);
                pg_buf_printf(&where, ":%d", lineno);
                pg_buf_reset(&site);
                pg_buf_reset(&callee);
                if (pg_module_inline_site(&s->files[idx], f->addrs[j].addr, file, &cache, &site,
                                          &callee)) {
                        if (comp_dir && site.ptr[0] != '/') {
                                char *rel = pg_buf_detach(&site, NULL);

                                pg_src_key(&site, comp_dir, rel);
                                free(rel);
                        }
                        if (f->ninlined == capinl) {
                                capinl = capinl ? capinl * 2 : 8;
                                f->inlined =
                                    pg_xreallocarray(f->inlined, capinl, sizeof(*f->inlined));
                        }
                        f->inlined[f->ninlined++] =
                            (struct pg_inline_count){ pg_buf_detach(&site, NULL),
                                                      pg_buf_detach(&callee, NULL),
                                                      pg_xstrdup(where.ptr), f->addrs[j].count };
                }
                f->lines[f->nlines].where = pg_buf_detach(&where, NULL);
                f->lines[f->nlines++].count = f->addrs[j].count;
        }
        pg_buf_release(&where);
        pg_buf_release(&site);
        pg_buf_release(&callee);
}

void pg_symbolizer_top(const struct pg_symbolizer *s, size_t n, struct pg_symbolize_top *top)
{
        struct pg_strmap leaves = PG_STRMAP_INIT;
        uint64_t *self = pg_xcalloc(s->stacks.n ? s->stacks.n : 1, sizeof(*self));
        size_t best[PG_SYMBOLIZE_TOP_MAX];

        memset(top, 0, sizeof(*top));
        if (n > PG_SYMBOLIZE_TOP_MAX)
                n = PG_SYMBOLIZE_TOP_MAX;
        for (size_t i = 0; i < s->stacks.n; i++) {
                const char *k = s->stacks.keys[i].ptr;
                size_t len, at = pg_frame_self(k, s->stacks.keys[i].len, &len);

                self[pg_strmap_intern(&leaves, k + at, len, NULL)] += s->counts[i];
                top->total += s->counts[i];
        }
        top->n = pg_strmap_top(&leaves, self, n, best);
        for (size_t k = 0; k < top->n; k++) {
                snprintf(top->name[k], sizeof(top->name[k]), "%s", leaves.keys[best[k]].ptr);
                top->samples[k] = self[best[k]];
        }
        free(self);
        pg_strmap_release(&leaves);
}

void pg_symbolizer_end_run(struct pg_symbolizer *s)
{
        size_t n = s->stacks.n, *name = pg_xcalloc(n ? n : 1, sizeof(*name));
        uint64_t total = 0, *acc;

        /* each stack's self frame, then the run's samples by self frame */
        for (size_t i = 0; i < n; i++) {
                size_t len, at;

                if (s->counts[i] == (i < s->nrun_mark ? s->run_mark[i] : 0))
                        continue;
                at = pg_frame_self(s->stacks.keys[i].ptr, s->stacks.keys[i].len, &len);
                name[i] = pg_strmap_intern(&s->run_names, s->stacks.keys[i].ptr + at, len, NULL);
        }
        acc = pg_xcalloc(s->run_names.n ? s->run_names.n : 1, sizeof(*acc));
        for (size_t i = 0; i < n; i++) {
                uint64_t d = s->counts[i] - (i < s->nrun_mark ? s->run_mark[i] : 0);

                acc[name[i]] += d;
                total += d;
        }
        for (size_t k = 0; k < s->run_names.n; k++) {
                if (acc[k] == 0)
                        continue;
                if (s->nrun_counts == s->caprun_counts) {
                        s->caprun_counts = s->caprun_counts ? 2 * s->caprun_counts : 256;
                        s->run_counts = pg_xreallocarray(s->run_counts, s->caprun_counts,
                                                         sizeof(*s->run_counts));
                }
                s->run_counts[s->nrun_counts++] = (struct pg_sym_run_count){ s->nruns, k, acc[k] };
        }
        free(acc);
        free(name);
        free(s->run_mark);
        s->run_mark = pg_xmalloc((n ? n : 1) * sizeof(*s->run_mark));
        if (n) /* counts is NULL before the first stack */
                memcpy(s->run_mark, s->counts, n * sizeof(*s->run_mark));
        s->nrun_mark = n;
        s->run_totals = pg_xreallocarray(s->run_totals, s->nruns + 1, sizeof(*s->run_totals));
        s->run_totals[s->nruns++] = total;
}

static int pg_run_self_name_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_run_self *) a)->function,
                      ((const struct pg_run_self *) b)->function);
}

/* @s's per-run self counts into @p, when it has one run per @p->runs */
static void pg_export_runs(const struct pg_symbolizer *s, struct pg_profile *p)
{
        pg_profile_clear_runs(p);
        if (s->nruns == 0 || s->nruns != p->runs)
                return;
        p->run_samples = pg_xcalloc(s->nruns, sizeof(*p->run_samples));
        memcpy(p->run_samples, s->run_totals, s->nruns * sizeof(*p->run_samples));
        p->nrun_self = s->run_names.n;
        p->run_self = pg_xcalloc(p->nrun_self ? p->nrun_self : 1, sizeof(*p->run_self));
        for (size_t i = 0; i < p->nrun_self; i++) {
                p->run_self[i].function =
                    pg_xstrndup(s->run_names.keys[i].ptr, s->run_names.keys[i].len);
                p->run_self[i].counts = pg_xcalloc(s->nruns, sizeof(uint64_t));
        }
        for (size_t j = 0; j < s->nrun_counts; j++)
                p->run_self[s->run_counts[j].name].counts[s->run_counts[j].run] +=
                    s->run_counts[j].count;
        qsort(p->run_self, p->nrun_self, sizeof(*p->run_self), pg_run_self_name_cmp);
}

void pg_symbolizer_export(const struct pg_symbolizer *s, struct pg_profile *p)
{
        struct pg_stack *v = pg_xcalloc(s->stacks.n ? s->stacks.n : 1, sizeof(*v));

        for (size_t i = 0; i < s->stacks.n; i++) {
                v[i].frames = (char *) s->stacks.keys[i].ptr;
                v[i].count = s->counts[i];
        }
        pg_profile_set_stacks(p, v, s->stacks.n);
        free(v);
        pg_export_runs(s, p);
        pg_profile_clear_addrs(p);
        p->naddrs = s->hotkeys.n;
        p->inline_sites = true; /* pg_export_lines asks every address */
        p->addrs = pg_xcalloc(p->naddrs ? p->naddrs : 1, sizeof(*p->addrs));
        for (size_t i = 0; i < s->hotkeys.n; i++) {
                const char *k = s->hotkeys.keys[i].ptr;
                struct pg_fn_addrs *f = &p->addrs[i];

                f->function = pg_xstrdup(k);
                f->module = pg_xstrdup(k + strlen(k) + 1);
                f->n = s->hot[i].n;
                f->addrs = pg_xcalloc(f->n ? f->n : 1, sizeof(*f->addrs));
                memcpy(f->addrs, s->hot[i].v, f->n * sizeof(*f->addrs));
                pg_export_lines(s, f);
        }
        pg_profile_sort_addrs(p);
}
