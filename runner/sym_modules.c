/*
 * sym_modules.c - the ELF/DWARF module cache (see sym_internal.h). Every ELF
 * file gets one Dwfl for the symbolizer's lifetime with the file at its
 * link-time addresses (dwfl_report_elf with add_p_vaddr: module address ==
 * ELF vaddr); a runtime address is translated by its mapping's load bias, so
 * names, debuginfo and CFI loaded once serve every later process and run
 * (other pids, other ASLR bases). Separate debuginfo is found by build-id and
 * .gnu_debuglink (runner/debugfind.h: libdwfl's search without debuginfod,
 * the module's user data its path); a debuglink target of
 * another build is refused and reported. A prefetcher thread opens the files
 * named by MMAP2 records while the benchmark runs.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/demangle.h"
#include "runner/fold.h"
#include "runner/sym_internal.h"
#include "runner/libdw.h"

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
                f->loads[f->nloads].flags = ph.p_flags;
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

/* The index of @path in s->files, adding (unopened) when new. */
static uint32_t pg_file_id(struct pg_symbolizer *s, const char *path)
{
        bool added;
        size_t idx = pg_strmap_intern(&s->fileids, path, strlen(path), &added);

        if (!added)
                return (uint32_t) idx;
        if (s->nfiles == s->capfiles) {
                s->capfiles = s->capfiles ? s->capfiles * 2 : 16;
                s->files = pg_xreallocarray(s->files, s->capfiles, sizeof(*s->files));
        }
        memset(&s->files[s->nfiles], 0, sizeof(s->files[0]));
        s->files[s->nfiles].path = pg_xstrdup(path);
        s->files[s->nfiles].bad = true; /* until opened */
        s->files[s->nfiles].etype = -1;
        pg_buf_init(&s->files[s->nfiles].qualpool);
        return (uint32_t) s->nfiles++;
}

static void pg_file_check_debuglink(struct pg_symbolizer *s, struct pg_file *f, const char *path);

/* Open @f (first use): read the ELF, report it at link addresses. */
static void pg_file_open(struct pg_symbolizer *s, struct pg_file *f, const char *disk_path,
                         const char *name)
{
        void **ud;

        f->etype = 0; /* opened (or tried) */
        if (!pg_is_regular(disk_path) || pg_file_read_elf(f, disk_path) < 0 || f->nloads == 0)
                return;
        f->dwfl = dwfl_begin(&s->callbacks);
        if (f->dwfl == NULL)
                return;
        dwfl_report_begin(f->dwfl);
        f->mod = dwfl_report_elf(f->dwfl, name, disk_path, -1, 0, true);
        dwfl_report_end(f->dwfl, NULL, NULL);
        if (f->mod == NULL)
                return;
        /* the debug-file search's path (runner/debugfind.h) */
        dwfl_module_info(f->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
        *ud = s->debuginfo_path;
        f->bad = false;
        pg_file_check_debuglink(s, f, disk_path);
}

/* Whether @e has a SHT_SYMTAB section (a `strip -g` file keeps it; `strip`
 * and `strip --strip-all` remove it, leaving .dynsym's exports). */
static bool pg_elf_has_symtab(Elf *e)
{
        Elf_Scn *scn = NULL;
        GElf_Shdr sh;

        while ((scn = elf_nextscn(e, scn)) != NULL)
                if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB)
                        return true;
        return false;
}

/*
 * A .gnu_debuglink whose target exists but was refused by libdwfl
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
        /* a file that kept its symbol table (`strip -g`) gave libdwfl no
         * reason to look for the debug file yet: asking for DWARF does
         * (libdwfl's find_dw()), and only a target refused then is refused */
        (void) dwfl_module_getdwarf(f->mod, &bias);
        dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
        if (debugfile != NULL)
                return;
        snprintf(dir, sizeof(dir), "%.*s", (int) (slash - path), path);
        snprintf(cand[0], sizeof(cand[0]), "%s/%s", dir, link);
        snprintf(cand[1], sizeof(cand[1]), "%s/.debug/%s", dir, link);
        snprintf(cand[2], sizeof(cand[2]), "/usr/lib/debug%s/%s", dir, link);
        for (int i = 0; i < 3; i++) {
                if (strcmp(cand[i], path) != 0 && access(cand[i], R_OK) == 0) {
                        f->rejected_debug = pg_xstrdup(cand[i]);
                        if (s->st.rejected_debug == NULL) {
                                s->st.rejected_debug = f->rejected_debug;
                                s->st.rejected_debug_symtab = pg_elf_has_symtab(e);
                        }
                        return;
                }
        }
}

void pg_thread_background(void)
{
        (void) setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), 19);
}

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

                        /* index the symbol table, and the CUs by a first lookup */
                        dwfl_module_info(f->mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
                        pg_symindex_build(&f->syms, f->mod);
                        (void) dwfl_module_addrdie(f->mod, low, &bias);
                        f->dwarf_read = true;
                        (void) dwfl_module_eh_cfi(f->mod, &bias);
                }
                pthread_mutex_lock(&s->pf_lock);
        }
        pthread_mutex_unlock(&s->pf_lock);
        return NULL;
}

void pg_symbolizer_prefetch(struct pg_symbolizer *s, const char *path, size_t len)
{
        bool added;

        if (len == 0 || path[0] != '/')
                return;
        (void) pg_strmap_intern(&s->pf_seen, path, len, &added);
        if (!added)
                return;
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

void pg_prefetch_join(struct pg_symbolizer *s)
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
 * The load bias (runtime address - ELF vaddr) of executable mapping @m of
 * @f. The dynamic loader and the kernel's ELF loader map each PT_LOAD at
 * p_vaddr & ~(page - 1) + bias from file offset p_offset & ~(page - 1)
 * (glibc elf/dl-map-segments.h, linux fs/binfmt_elf.c elf_map), so the
 * segment of @m is the one whose page-aligned offset is m->pgoff; when two
 * segments start in the same file page (lld packs .rodata and .text without
 * padding), the executable one is taken, since only PROT_EXEC mappings are
 * tracked. Every segment can have its own p_vaddr - p_offset: the bias is
 * taken from the segment found, not from the first one (perf's
 * start - pgoff assumes p_vaddr == p_offset, tools/perf/util/map.c).
 * Without a matching segment (a mapping made by hand), the old rule
 * start - pgoff stands.
 */
static uint64_t pg_map_bias(const struct pg_file *f, const struct pg_map *m, uint64_t page)
{
        size_t best = SIZE_MAX;

        if (f->etype == ET_EXEC)
                return 0;
        for (size_t i = 0; i < f->nloads; i++) {
                if ((f->loads[i].offset & ~(page - 1)) != m->pgoff)
                        continue;
                if (best == SIZE_MAX ||
                    ((f->loads[i].flags & PF_X) && !(f->loads[best].flags & PF_X)))
                        best = i;
        }
        if (best == SIZE_MAX) {
                /* a mapping that starts inside a segment (mremap, split) */
                for (size_t i = 0; i < f->nloads; i++) {
                        uint64_t lo = f->loads[i].offset & ~(page - 1);

                        if (m->pgoff > lo && m->pgoff < f->loads[i].offset + f->loads[i].filesz &&
                            (best == SIZE_MAX || (f->loads[i].flags & PF_X)))
                                best = i;
                }
        }
        if (best == SIZE_MAX)
                return m->start - m->pgoff;
        /* m->start - m->pgoff + p_offset is where p_offset sits at run time */
        return m->start - m->pgoff + f->loads[best].offset - f->loads[best].vaddr;
}

struct pg_file *pg_map_file(struct pg_symbolizer *s, struct pg_map *m)
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
                m->bias = pg_map_bias(f, m, (uint64_t) page);
                m->file = (int32_t) id;
        }
        return &s->files[m->file];
}

/*
 * The PLT stubs of @f, named as perf names them ("memcmp@plt"; perf's
 * dso__synthesize_plt_symbols in tools/perf/util/symbol-elf.c): relocation i
 * of .rela.plt (or .rel.plt) binds dynamic symbol NAME to the i-th stub,
 * which sits in .plt.sec when the binary has one (IBT), else in .plt after
 * its 16-byte header (x86-64 psABI, section 5.2, "Procedure Linkage Table").
 * No symbol table entry covers a stub, so without this such frames would be
 * "[module]". Read once per file, at the first unnamed address.
 */
static void pg_file_plt(struct pg_file *f)
{
        Dwarf_Addr bias;
        Elf *e = dwfl_module_getelf(f->mod, &bias);
        Elf_Scn *scn = NULL, *rel = NULL;
        GElf_Shdr plt = { 0 }, pltsec = { 0 }, relsh = { 0 }, sh;
        size_t shstrndx, n;
        Elf_Data *rd, *sd;

        f->plt_read = true;
        if (e == NULL || elf_getshdrstrndx(e, &shstrndx) < 0)
                return;
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                const char *nm;

                if (gelf_getshdr(scn, &sh) == NULL ||
                    (nm = elf_strptr(e, shstrndx, sh.sh_name)) == NULL)
                        continue;
                if (strcmp(nm, ".plt") == 0)
                        plt = sh;
                else if (strcmp(nm, ".plt.sec") == 0)
                        pltsec = sh;
                else if ((strcmp(nm, ".rela.plt") == 0 && sh.sh_type == SHT_RELA) ||
                         (strcmp(nm, ".rel.plt") == 0 && sh.sh_type == SHT_REL)) {
                        relsh = sh;
                        rel = scn;
                }
        }
        if (rel == NULL || (plt.sh_size == 0 && pltsec.sh_size == 0) || relsh.sh_entsize == 0 ||
            (rd = elf_getdata(rel, NULL)) == NULL ||
            (sd = elf_getdata(elf_getscn(e, relsh.sh_link), NULL)) == NULL ||
            gelf_getshdr(elf_getscn(e, relsh.sh_link), &sh) == NULL)
                return;
        if (pltsec.sh_size) {
                f->plt_first = pltsec.sh_addr;
                f->plt_entsize = pltsec.sh_entsize ? pltsec.sh_entsize : 16;
        } else {
                f->plt_entsize = plt.sh_entsize ? plt.sh_entsize : 16;
                f->plt_first = plt.sh_addr + 16;
        }
        n = relsh.sh_size / relsh.sh_entsize;
        f->plt_names = pg_xcalloc(n ? n : 1, sizeof(*f->plt_names));
        f->nplt = n;
        for (size_t i = 0; i < n; i++) {
                GElf_Rela ra;
                GElf_Rel r;
                GElf_Sym sym;
                uint64_t info;
                const char *name;
                struct pg_buf b = PG_BUF_INIT;

                if (relsh.sh_type == SHT_RELA) {
                        if (gelf_getrela(rd, (int) i, &ra) == NULL)
                                continue;
                        info = ra.r_info;
                } else {
                        if (gelf_getrel(rd, (int) i, &r) == NULL)
                                continue;
                        info = r.r_info;
                }
                if (GELF_R_SYM(info) == 0 ||
                    gelf_getsym(sd, (int) GELF_R_SYM(info), &sym) == NULL ||
                    (name = elf_strptr(e, sh.sh_link, sym.st_name)) == NULL || name[0] == '\0')
                        continue; /* IRELATIVE: no name */
                pg_demangle(&b, name);
                pg_buf_puts(&b, "@plt");
                f->plt_names[i] = pg_buf_detach(&b, NULL);
        }
}

const char *pg_file_plt_name(struct pg_file *f, uint64_t vaddr)
{
        uint64_t i;

        if (!f->plt_read)
                pg_file_plt(f);
        if (f->nplt == 0 || vaddr < f->plt_first)
                return NULL;
        i = (vaddr - f->plt_first) / f->plt_entsize;
        return i < f->nplt ? f->plt_names[i] : NULL;
}

void pg_files_release(struct pg_symbolizer *s)
{
        for (size_t i = 0; i < s->nfiles; i++) {
                if (s->files[i].dwfl)
                        dwfl_end(s->files[i].dwfl);
                free(s->files[i].path);
                free(s->files[i].rejected_debug);
                for (size_t j = 0; j < s->files[i].nplt; j++)
                        free(s->files[i].plt_names[j]);
                free(s->files[i].plt_names);
                pg_u64map_release(&s->files[i].aliases);
                pg_symindex_release(&s->files[i].syms);
                pg_scopeindex_release(&s->files[i].scopes);
                pg_u64map_release(&s->files[i].qual);
                pg_buf_release(&s->files[i].qualpool);
        }
        free(s->files);
        s->files = NULL;
        s->nfiles = s->capfiles = 0;
        pg_strmap_release(&s->fileids);
        pg_strmap_release(&s->pf_seen);
}

/* Leading underscores of @s. */
static size_t pg_underscores(const char *s)
{
        size_t n = 0;

        while (s[n] == '_')
                n++;
        return n;
}

/*
 * Whether symbol @a is a better name than @b for the same address, by
 * perf's rules (tools/perf/util/symbol.c, choose_best_symbol): one with a
 * size, then not weak, then global, then fewer leading underscores, then
 * the longer name ("malloc" over "__libc_malloc").
 */
static bool pg_alias_better(const GElf_Sym *a, const char *an, const GElf_Sym *b, const char *bn)
{
        int ab = GELF_ST_BIND(a->st_info), bb = GELF_ST_BIND(b->st_info);
        size_t au, bu;

        if ((a->st_size > 0) != (b->st_size > 0))
                return a->st_size > 0;
        if ((ab == STB_WEAK) != (bb == STB_WEAK))
                return bb == STB_WEAK;
        if ((ab == STB_GLOBAL) != (bb == STB_GLOBAL))
                return ab == STB_GLOBAL;
        au = pg_underscores(an);
        bu = pg_underscores(bn);
        if (au != bu)
                return au < bu;
        return strlen(an) > strlen(bn);
}

struct pg_alias_pick {
        GElf_Sym best;
        const char *bestname;
        uint32_t idx; /* symtab index + 1 of the best, 0: none */
};

static void pg_alias_consider(void *arg, int ndx, const GElf_Sym *sym, const char *nm)
{
        struct pg_alias_pick *p = arg;
        int type = GELF_ST_TYPE(sym->st_info);

        if (type != STT_FUNC && type != STT_GNU_IFUNC)
                return;
        if (p->bestname == NULL || pg_alias_better(sym, nm, &p->best, p->bestname)) {
                p->best = *sym;
                p->bestname = nm;
                p->idx = (uint32_t) ndx + 1;
        }
}

const char *pg_file_alias(struct pg_file *f, uint64_t start, const char *name)
{
        uint32_t idx;
        struct pg_alias_pick pick = { 0 };

        if (start == UINT64_MAX)
                return name;
        if (pg_u64map_get(&f->aliases, start, &idx)) {
                GElf_Sym sym;
                GElf_Addr addr;
                const char *nm;

                if (idx == 0 || (nm = dwfl_module_getsym_info(f->mod, (int) idx - 1, &sym, &addr,
                                                              NULL, NULL, NULL)) == NULL)
                        return name;
                return nm;
        }
        /* the symbols at @start, in table order (the first best wins) */
        pg_symindex_at(&f->syms, f->mod, start, pg_alias_consider, &pick);
        pg_u64map_put(&f->aliases, start, pick.idx);
        return pick.bestname ? pick.bestname : name;
}
