/*
 * sym_frames.c - frame resolution (see sym_internal.h): one address to its
 * folded frames, the ELF symbol demangled (runner/demangle.h) followed by the
 * functions inlined there (DWARF scopes, outermost first, "_[i]"); a PLT
 * stub as "name@plt"; an address in a file without a usable symbol as
 * "[module]", JIT code from /tmp/perf-PID.map, and "[unknown]" outside every
 * mapping. Also which names are process or thread entries, and the leaf
 * fixup of frame-pointer chains: a sampled frame unwound one step with its
 * CFI, so that a leaf without a frame of its own still shows its caller.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/annotate.h"
#include "runner/demangle.h"
#include "runner/dwarfcheck.h"
#include "runner/fold.h"
#include "runner/jitdump.h"
#include "runner/sym_internal.h"
#include "runner/libdw.h"

/*
 * Whether a chain whose outermost frame is @name (demangled) reached a
 * process or thread entry, i.e. was not cut by a missing frame pointer:
 * glibc's process and thread entries, the Go runtime's goroutine and thread
 * roots (runtime/asm_amd64.s: rt0_go, mstart, mcall, goexit; runtime/proc.go:
 * main), and Rust's std::rt::lang_start (library/std/src/rt.rs), whose
 * callers (main, __libc_start_call_main) a Rust binary built without frame
 * pointers in its std does not show.
 */
static bool pg_is_root_name(const char *name)
{
        static const char *const roots[] = { "_start",
                                             "__libc_start_call_main",
                                             "__libc_start_main",
                                             "main",
                                             "start_thread",
                                             "clone3",
                                             "clone",
                                             "__clone",
                                             "runtime.goexit",
                                             "runtime.goexit.abi0",
                                             "runtime.main",
                                             "runtime.mstart",
                                             "runtime.mstart.abi0",
                                             "runtime.mcall",
                                             "runtime.mcall.abi0",
                                             "runtime.rt0_go",
                                             "runtime.rt0_go.abi0" };
        static const char lang_start[] = "std::rt::lang_start";

        for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
                if (strcmp(name, roots[i]) == 0)
                        return true;
        /* std::rt::lang_start, ::{{closure}}, _internal, <T> (v0 generics) */
        return strncmp(name, lang_start, sizeof(lang_start) - 1) == 0;
}

static void pg_put_module(struct pg_buf *b, const char *modbase, struct pg_frame_res *r)
{
        pg_buf_putc(b, '[');
        pg_fold_append_frame(b, modbase, strlen(modbase), PG_FRAME_USER);
        pg_buf_putc(b, ']');
        r->nframes = 1;
        r->unresolved = 1;
}

/* Whether the CU holding @die is C (DW_AT_language): a C function is
 * never declared inside a namespace, class, structure or union. */
static bool pg_die_in_c(Dwarf_Die *die)
{
        Dwarf_Die cu;

        if (dwarf_diecu(die, &cu, NULL, NULL) == NULL)
                return false;
        switch (dwarf_srclang(&cu)) {
        case DW_LANG_C89:
        case DW_LANG_C:
        case DW_LANG_C99:
        case DW_LANG_C11:
                return true;
        default:
                return false;
        }
}

/*
 * The DIEs enclosing @decl below its CU, outermost first, into @v (at most
 * @max; the count returned, 0 when not found): each level's child whose
 * subtree holds @decl's offset (a CU's DIEs are stored in preorder, DWARF 5
 * section 2.3, so a DIE's subtree ends where its next sibling starts). For
 * declarations dwarf_getscopes_die does not reach: libdw's walk does not
 * enter unions (libdw_visit_scopes.c may_have_scopes).
 */
static int pg_die_path(Dwarf_Die *decl, Dwarf_Die *v, int max)
{
        Dwarf_Off want = dwarf_dieoffset(decl);
        Dwarf_Die cur, child, next;
        int n = 0;

        if (dwarf_diecu(decl, &cur, NULL, NULL) == NULL)
                return 0;
        while (n < max && dwarf_child(&cur, &child) == 0) {
                for (;;) {
                        Dwarf_Off off = dwarf_dieoffset(&child);
                        int r;

                        if (off == want)
                                return n;
                        r = dwarf_siblingof(&child, &next);
                        if (off < want && (r != 0 || dwarf_dieoffset(&next) > want))
                                break; /* in this one's subtree */
                        if (r != 0)
                                return 0;
                        child = next;
                }
                v[n++] = child;
                cur = child;
        }
        return 0;
}

/* Append "NAME::" of scope @d to @f's qualpool when it qualifies the
 * functions declared in it (a namespace, class, structure or union). */
static void pg_qualify_by(struct pg_file *f, Dwarf_Die *d)
{
        int tag = dwarf_tag(d);
        const char *sn;

        if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
            tag != DW_TAG_union_type)
                return;
        sn = dwarf_diename(d);
        pg_buf_puts(&f->qualpool, sn ? sn : "(anonymous namespace)");
        pg_buf_puts(&f->qualpool, "::");
}

/*
 * The qualified name of the function declared by @decl from its enclosing
 * scopes (namespaces, classes, structures, unions), appended to @out:
 * "ns::(anonymous namespace)::Cls<int>::f". Used when a function has no
 * DW_AT_linkage_name (C, Go, some C++ member functions). The prefix of each
 * declaration is kept in @f (dwarf_getscopes_die walks the whole CU); a C
 * declaration has none, and no walk.
 */
static void pg_qualified_name(struct pg_file *f, struct pg_buf *out, Dwarf_Die *decl,
                              const char *name)
{
        uint64_t key = (uint64_t) (uintptr_t) decl->addr;
        Dwarf_Die *scopes = NULL;
        uint32_t at;
        int n;

        if (pg_u64map_get(&f->qual, key, &at)) {
                pg_buf_puts(out, f->qualpool.ptr + at);
                pg_buf_puts(out, name);
                return;
        }
        at = (uint32_t) f->qualpool.len;
        n = pg_die_in_c(decl) ? 0 : dwarf_getscopes_die(decl, &scopes);
        /* scopes[0] is @decl itself, outward to the CU */
        for (int i = n - 1; i >= 1; i--)
                pg_qualify_by(f, &scopes[i]);
        free(scopes);
        if (n <= 0 && !pg_die_in_c(decl)) {
                /* not reached by libdw's walk (in a union): by offsets */
                Dwarf_Die path[64];
                int k = pg_die_path(decl, path, 64);

                for (int i = 0; i < k; i++)
                        pg_qualify_by(f, &path[i]);
        }
        pg_buf_putc(&f->qualpool, '\0');
        pg_u64map_put(&f->qual, key, at);
        pg_buf_puts(out, f->qualpool.ptr + at);
        pg_buf_puts(out, name);
}

/*
 * The name of the function inlined at DW_TAG_inlined_subroutine @inl, as
 * `addr2line -i -f -C` gives it but without the parameter list (and so
 * without a return type), like the symbol names (runner/demangle.h): the
 * demangled DW_AT_linkage_name of its DW_AT_abstract_origin (or of that
 * one's DW_AT_specification); without one, DW_AT_name qualified by the
 * scopes that enclose the declaration. false when it has no name.
 */
static bool pg_inlined_name(struct pg_file *f, struct pg_buf *out, Dwarf_Die *inl)
{
        Dwarf_Attribute attr;
        Dwarf_Die origin, decl;
        const char *s;

        if ((dwarf_attr_integrate(inl, DW_AT_linkage_name, &attr) != NULL ||
             dwarf_attr_integrate(inl, DW_AT_MIPS_linkage_name, &attr) != NULL) &&
            (s = dwarf_formstring(&attr)) != NULL && s[0] != '\0') {
                pg_demangle(out, s);
                return true;
        }
        s = dwarf_diename(inl);
        if (s == NULL)
                return false;
        /* the declaration: origin, then its specification (out-of-class definitions) */
        if (dwarf_attr(inl, DW_AT_abstract_origin, &attr) == NULL ||
            dwarf_formref_die(&attr, &origin) == NULL) {
                pg_buf_puts(out, s);
                return true;
        }
        decl = origin;
        if (dwarf_attr(&origin, DW_AT_specification, &attr) != NULL)
                (void) dwarf_formref_die(&attr, &decl);
        pg_qualified_name(f, out, &decl, s);
        return true;
}

/* The file (as the line table names it) that the function declared by
 * subprogram @sub of @cu is in: its DW_AT_decl_file, else the file of the
 * line of its entry; NULL when neither is known. @files_cu: the skeleton
 * whose file names serve @cu when it is a split unit, else NULL. */
static const char *pg_subprogram_file(Dwarf_Die *cu, Dwarf_Die *sub, Dwarf_Die *files_cu)
{
        const char *file = pg_dwarf_decl_file(sub, files_cu);
        Dwarf_Addr entry;
        Dwarf_Line *l;

        if (file != NULL)
                return file;
        if (dwarf_entrypc(sub, &entry) != 0 || (l = dwarf_getsrc_die(cu, entry)) == NULL)
                return NULL;
        return dwarf_linesrc(l, NULL, NULL);
}

#define PG_MAX_SCOPES 64

bool pg_module_inline_site(struct pg_file *f, uint64_t addr, const char *file,
                           struct pg_inline_cache *cache, struct pg_buf *site,
                           struct pg_buf *callee)
{
        Dwfl_Module *mod = f->mod;
        Dwarf_Addr bias = 0;
        Dwarf_Die scopes[PG_MAX_SCOPES];
        Dwarf_Files *files = NULL;
        size_t nfiles = 0;
        const char *own;
        Dwarf_Die skeleton;
        bool skel;
        int n;

        /* the addresses of one function come one after the other */
        if (!cache->valid || cache->mod != mod ||
            dwarf_haspc(&cache->sub, addr - cache->bias) <= 0) {
                Dwarf_Die v[PG_MAX_SCOPES], *cu;

                cache->valid = false;
                /* the CU the folding finds (pg_scopeindex_cu) */
                if ((cu = pg_scopeindex_cu(&f->scopes, mod, addr, &bias)) == NULL ||
                    (n = pg_scopeindex_scopes(&f->scopes, cu, addr - bias, v, PG_MAX_SCOPES)) <=
                        0 ||
                    dwarf_tag(&v[n - 1]) != DW_TAG_subprogram)
                        return false;
                *cache = (struct pg_inline_cache){
                        .valid = true, .mod = mod, .sub = v[n - 1], .cu = *cu, .bias = bias
                };
        }
        /* a split unit's file names are its skeleton's (pg_dwarf_decl_file) */
        skel = pg_scopeindex_skeleton(&f->scopes, &cache->cu, &skeleton);
        /* a line in the function's own file was not inlined from another */
        own = pg_subprogram_file(&cache->cu, &cache->sub, skel ? &skeleton : NULL);
        if (own == NULL || strcmp(own, file) == 0)
                return false;
        n = pg_scopes_at(&cache->sub, addr - cache->bias, scopes, PG_MAX_SCOPES);
        if (n <= 0 || dwarf_getsrcfiles(skel ? &skeleton : &cache->cu, &files, &nfiles) != 0)
                return false;
        /* innermost first: the first call made from the function's own file */
        for (int i = 0; i < n; i++) {
                Dwarf_Attribute attr;
                Dwarf_Word cf, cl;
                const char *cfile;

                if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
                    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &cf) != 0 ||
                    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &cl) != 0 ||
                    cf >= nfiles || cl == 0 ||
                    (cfile = dwarf_filesrc(files, cf, NULL, NULL)) == NULL ||
                    strcmp(cfile, own) != 0)
                        continue;
                pg_buf_printf(site, "%s:%llu", own, (unsigned long long) cl);
                if (!pg_inlined_name(f, callee, &scopes[i]))
                        pg_buf_puts(callee, "[unknown]");
                return true;
        }
        return false;
}
/* At most this many inlined frames at one address. */
#define PG_MAX_INLINED 64

/*
 * The functions inlined at DWARF address @pc of @cu, outermost first, into
 * @out: the full chain of inlined subroutines holding @pc
 * (pg_scopeindex_chain), as perf and addr2line -i report it, whatever
 * nests them (rustc and clang put functions in a DW_TAG_namespace, where
 * dwarf_getscopes' rule finds none) and wherever their abstract origin is
 * (Go's are in the CU of their package). docs/result-format.md, "Inlined
 * frames".
 */
static int pg_inlined_at(struct pg_file *f, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
        return pg_scopeindex_chain(&f->scopes, cu, pc, out, max);
}

/* Fold the frames at @vaddr of @mod (symbol, then inlined callees) into @b. */
static void pg_frame_resolve_dwfl(struct pg_buf *b, struct pg_file *f, uint64_t vaddr,
                                  struct pg_frame_res *r, const char *modbase)
{
        uint64_t symstart = 0;
        const char *plt = pg_file_plt_name(f, vaddr);
        const char *name = plt ? NULL : pg_symindex_lookup(&f->syms, f->mod, vaddr, &symstart);
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu;
        Dwarf_Die inl[PG_MAX_INLINED];
        int ninl;
        size_t start = b->len;
        struct pg_buf tmp = PG_BUF_INIT;

        if (plt != NULL) {
                /* a stub, not the function it jumps to (perf prints the same) */
                pg_fold_append_frame(b, plt, strlen(plt), PG_FRAME_USER);
                r->nframes = 1;
                return;
        }
        if (name == NULL || name[0] == '\0') {
                pg_put_module(b, modbase, r);
                return;
        }
        pg_demangle(&tmp, pg_file_alias(f, symstart, name));
        pg_fold_append_frame(b, tmp.ptr, tmp.len, PG_FRAME_USER);
        r->nframes = 1;
        r->root = pg_is_root_name(b->ptr + start);
        f->dwarf_read = true;
        cu = pg_scopeindex_cu(&f->scopes, f->mod, vaddr, &bias);
        if (cu == NULL) {
                pg_buf_release(&tmp);
                return;
        }
        ninl = pg_inlined_at(f, cu, vaddr - bias, inl, PG_MAX_INLINED);
        for (int i = 0; i < ninl && i < PG_MAX_INLINED; i++) {
                pg_buf_reset(&tmp);
                if (!pg_inlined_name(f, &tmp, &inl[i]))
                        continue;
                pg_buf_putc(b, ';');
                pg_fold_append_frame(b, tmp.ptr, tmp.len, PG_FRAME_INLINED);
                r->nframes++;
        }
        pg_buf_release(&tmp);
}

/* Load the JIT symbols of @as: its perf-PID.map and the jitdumps it mapped.
 * The first dump that does not read whole is kept for a warning, which says
 * what of its code is '[unknown]': all of it when nothing could be read,
 * else what lies past the problem. */
static void pg_jit_load(struct pg_symbolizer *s, struct pg_aspace *as, uint32_t pid)
{
        char path[4096];

        snprintf(path, sizeof(path), "%s/perf-%u.map", s->o.jitmap_dir ? s->o.jitmap_dir : "/tmp",
                 pid);
        pg_jitmap_load(&as->jit, path);
        for (size_t i = 0; i < as->njitdumps; i++) {
                int rc = pg_jitdump_load(&as->jitdump, as->jitdumps[i]);
                if (rc < 0 && s->jitdump_problem == NULL) {
                        s->jitdump_problem = pg_xasprintf(
                            "%s%s", pg_error_last(),
                            rc == PG_EINPUT ? "; the JIT code it describes past that point is "
                                              "'[unknown]' (a JIT still writing the file, or a "
                                              "damaged one)"
                                            : ": its JIT code is '[unknown]'");
                        s->st.jitdump_problem = s->jitdump_problem;
                }
                pg_error_clear();
        }
        as->jit_tried = true;
}

static void pg_frame_resolve_jit(struct pg_symbolizer *s, struct pg_aspace *as, uint32_t pid,
                                 uint64_t pc, struct pg_frame_res *r)
{
        const struct pg_jitsym *js;

        if (!as->jit_tried)
                pg_jit_load(s, as, pid);
        js = pg_jitmap_lookup(&as->jitdump, pc);
        if (js == NULL)
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
static const struct pg_frame_res *pg_frame_resolve_local(struct pg_symbolizer *s,
                                                         struct pg_aspace *as, uint32_t pid,
                                                         uint64_t pc, const struct pg_map *m)
{
        uint32_t idx;
        struct pg_frame_res r = { 0 };

        if (pg_u64map_get(&as->cache, pc, &idx))
                return &as->res[idx];
        r.off = (uint32_t) as->pool.len;
        if (m != NULL && m->kind == PG_MAP_ANON) {
                pg_frame_resolve_jit(s, as, as->pid ? as->pid : pid, pc, &r);
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
 * Say once per file of @s what of @f's DWARF libdw cannot read
 * (runner/dwarfcheck.h), into s->debug_notes (s->st.debug_lost): debug
 * sections compressed with what libelf cannot decompress (then libdw has no
 * DWARF of the file at all), and skeleton units whose .dwo file libdw did
 * not find (known as the CUs are looked up: pg_scopeindex_cu).
 */
static void pg_file_note_debug(struct pg_symbolizer *s, struct pg_file *f)
{
        Dwarf_Addr bias = 0;
        GElf_Addr ebias = 0;
        uint32_t type;
        char tbuf[32];

        if (!f->debug_checked) {
                const char *debugfile = NULL, *where = f->path;

                f->debug_checked = true;
                if (dwfl_module_getdwarf(f->mod, &bias) != NULL)
                        goto dwo;
                type = pg_elf_debug_compression(dwfl_module_getelf(f->mod, &ebias));
                dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
                if (type == 0 && debugfile != NULL) {
                        /* the separate debug file libdwfl found and could not read */
                        int fd = open(debugfile, O_RDONLY | O_CLOEXEC);
                        Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

                        type = pg_elf_debug_compression(e);
                        where = debugfile;
                        if (e != NULL)
                                elf_end(e);
                        if (fd >= 0)
                                close(fd);
                }
                if (type != 0)
                        pg_buf_printf(&s->debug_notes,
                                      "the debug sections of '%s' are %s-compressed, which this "
                                      "libelf cannot decompress (elfutils reads zstd from 0.189 "
                                      "on): the inlined frames and source lines of '%s' are "
                                      "missing; link with -Wl,--compress-debug-sections=zlib (or "
                                      "none), or run objcopy --decompress-debug-sections on it\n",
                                      where, pg_elf_compression_name(type, tbuf, sizeof(tbuf)),
                                      f->path);
        }
dwo:
        if (!f->dwo_noted && f->scopes.dwo_missing > 0) {
                /* dwp and llvm-dwp name the package after the binary */
                char *dwp = pg_xasprintf("%s.dwp", f->path);
                bool has_dwp = access(dwp, R_OK) == 0;

                f->dwo_noted = true;
                pg_buf_printf(&s->debug_notes,
                              "the DWARF of '%s' is split into .dwo files (-gsplit-dwarf) and "
                              "%s: the inlined "
                              "frames of its code are missing; %s%s%skeep the .dwo files where "
                              "the binary names them, or build without -gsplit-dwarf\n",
                              f->path, f->scopes.dwo_first,
                              has_dwp ? "this libdw does not read the package '" : "",
                              has_dwp ? dwp : "",
                              has_dwp ? "' (elfutils reads .dwp files from 0.190 on); " : "");
                free(dwp);
        }
        s->st.debug_lost = s->debug_notes.len ? s->debug_notes.ptr : NULL;
}

const struct pg_frame_res *pg_frame_resolve(struct pg_symbolizer *s, struct pg_aspace *as,
                                            uint32_t pid, uint64_t pc, const struct pg_buf **pool)
{
        struct pg_map *m = pg_aspace_find(as, pc);
        struct pg_file *f = m ? pg_map_file(s, m) : NULL;
        struct pg_frame_res r = { 0 };
        uint64_t vaddr, key;
        uint32_t idx;

        if (f == NULL) {
                *pool = &as->pool;
                return pg_frame_resolve_local(s, as, pid, pc, m);
        }
        *pool = &s->fpool;
        vaddr = pc - m->bias;
        key = ((uint64_t) m->file << 44) | (vaddr & ((1ULL << 44) - 1));
        if (pg_u64map_get(&s->fcache, key, &idx))
                return &s->fres[idx];
        r.off = (uint32_t) s->fpool.len;
        pg_frame_resolve_dwfl(&s->fpool, f, vaddr, &r, m->base);
        if (!f->debug_checked || (!f->dwo_noted && f->scopes.dwo_missing > 0))
                pg_file_note_debug(s, f);
        r.len = (uint32_t) (s->fpool.len - r.off);
        if (s->nfres == s->capfres) {
                s->capfres = s->capfres ? s->capfres * 2 : 256;
                s->fres = pg_xreallocarray(s->fres, s->capfres, sizeof(*s->fres));
        }
        s->fres[s->nfres] = r;
        pg_u64map_put(&s->fcache, key, (uint32_t) s->nfres);
        return &s->fres[s->nfres++];
}

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

uint64_t pg_leaf_caller(struct pg_symbolizer *s, struct pg_aspace *as,
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
