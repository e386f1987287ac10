/*
 * sym_aspace.c - address spaces (see sym_internal.h): the executable
 * mappings of one process from its MMAP2 records, shared copy-on-write after
 * a FORK until one side maps something, replaced on exec (COMM with
 * PERF_RECORD_MISC_COMM_EXEC), plus the per-space Dwfl with every module at
 * its runtime address that DWARF-mode unwinding needs. A new mapping replaces
 * what it overlaps (munmap leaves no record).
 */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runner/jitdump.h"
#include "runner/sym_internal.h"
#include "runner/libdw.h"

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

struct pg_aspace *pg_aspace_new(uint32_t pid)
{
        struct pg_aspace *as = pg_xcalloc(1, sizeof(*as));

        as->refs = 1;
        as->pid = pid;
        pg_buf_init(&as->pool);
        return as;
}

void pg_aspace_unref(struct pg_aspace *as)
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
        pg_jitmap_release(&as->jitdump);
        for (size_t i = 0; i < as->njitdumps; i++)
                free(as->jitdumps[i]);
        free(as->jitdumps);
        free(as);
}

struct pg_aspace *pg_aspace_clone(const struct pg_aspace *src, uint32_t pid)
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
        if (src->njitdumps) {
                as->jitdumps = pg_xcalloc(src->njitdumps, sizeof(*as->jitdumps));
                for (size_t i = 0; i < src->njitdumps; i++)
                        as->jitdumps[i] = pg_xstrdup(src->jitdumps[i]);
                as->njitdumps = src->njitdumps;
        }
        return as;
}

struct pg_map *pg_aspace_find(struct pg_aspace *as, uint64_t addr)
{
        for (size_t i = as->nmaps; i-- > 0;)
                if (addr >= as->maps[i].start && addr < as->maps[i].end)
                        return &as->maps[i];
        return NULL;
}

/* A JIT announced its dump file by mapping it (jitdump.h): read it, with
 * perf-PID.map, at the next JIT frame looked up. */
static void pg_aspace_add_jitdump(struct pg_aspace *as, const char *path)
{
        for (size_t i = 0; i < as->njitdumps; i++)
                if (strcmp(as->jitdumps[i], path) == 0)
                        return;
        as->jitdumps = pg_xreallocarray(as->jitdumps, as->njitdumps + 1, sizeof(*as->jitdumps));
        as->jitdumps[as->njitdumps++] = pg_xstrdup(path);
        if (as->jit_tried) {
                pg_jitmap_release(&as->jit);
                pg_jitmap_release(&as->jitdump);
                as->jit_tried = false;
                pg_aspace_clear_cache(as); /* frames named "[unknown]" before */
        }
}

void pg_aspace_add(struct pg_aspace *as, const struct pg_perf_mmap *m)
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
        if (pg_jitdump_is_dump_name(m->filename, m->filename_len))
                pg_aspace_add_jitdump(as, nm.path);
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

/* The per-address-space Dwfl (all modules at their runtime addresses) that
 * DWARF-mode unwinding walks across. */
void pg_aspace_build(struct pg_symbolizer *s, struct pg_aspace *as)
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
                                    true) == NULL)
                        m->bad = true;
        }
        dwfl_report_end(as->dwfl, NULL, NULL);
        (void) pg_unwind_attach(&as->unwinder, as->dwfl, (pid_t) as->pid, s->o.regs_user_mask);
}
