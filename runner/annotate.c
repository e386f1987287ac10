/*
 * annotate.c - a function's samples by source line and instruction (see
 * annotate.h). The ELF file is opened with libdwfl as a single module at
 * bias 0, so link-time addresses are Dwfl addresses; separate debuginfo is
 * found as the symbolizer finds it (build-id, .gnu_debuglink, @debug_dir).
 */
#include "runner/annotate.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/hashmap.h"
#include "common/json.h"
#include "common/strdist.h"
#include "runner/debugfind.h"
#include "runner/demangle.h"
#include "runner/dwarfcheck.h"
#include "runner/libdw.h"

void pg_annotation_release(struct pg_annotation *a)
{
        free(a->function);
        free(a->module);
        for (size_t i = 0; i < a->nlines; i++) {
                free(a->lines[i].file);
                free(a->lines[i].comp_dir);
        }
        free(a->lines);
        for (size_t i = 0; i < a->ninsns; i++)
                free(a->insns[i].text);
        free(a->insns);
        free(a->disasm_error);
        free(a->warning);
        free(a->outside_symbol);
        for (size_t i = 0; i < a->nsymbols; i++) {
                free(a->symbols[i].symbol);
                free(a->symbols[i].signature);
        }
        free(a->symbols);
        memset(a, 0, sizeof(*a));
}

struct pg_near {
        const char *name;
        uint64_t samples;
        size_t dist; /* 0: contains the name asked for */
};

static int pg_near_cmp(const void *x, const void *y)
{
        const struct pg_near *a = x, *b = y;

        if (a->dist != b->dist)
                return a->dist < b->dist ? -1 : 1;
        if (a->samples != b->samples)
                return a->samples > b->samples ? -1 : 1;
        return strcmp(a->name, b->name);
}

/* Whether frame @f (@len bytes, maybe with an inlined "_[i]" annotation)
 * names @function. */
static bool pg_frame_is(const char *f, size_t len, const char *function, size_t flen)
{
        if (len >= 4 && memcmp(f + len - 4, "_[i]", 4) == 0)
                len -= 4;
        return len == flen && memcmp(f, function, flen) == 0;
}

/* The samples of each function of @p that has samples of its own (an
 * address histogram, so `annotate` can show it): function -> index in *out. */
static void pg_own_samples(const struct pg_profile *p, struct pg_strmap *names, uint64_t **out)
{
        *out = pg_xcalloc(p->naddrs ? p->naddrs : 1, sizeof(**out));
        for (size_t i = 0; i < p->naddrs; i++) {
                size_t idx = pg_strmap_intern(names, p->addrs[i].function,
                                              strlen(p->addrs[i].function), NULL);

                (*out)[idx] += p->addrs[i].samples;
        }
}

/*
 * The PG_ENOTFOUND message for @function, which has no samples of its own in
 * @p. Only functions that can be annotated (samples of their own) are
 * listed, never @function itself, hottest first, at most 5: when @function
 * is in the stacks as a caller, the functions below it that hold its
 * samples; otherwise the functions whose names contain it or are a few
 * edits away.
 */
static int pg_not_found(const struct pg_profile *p, const char *function)
{
        struct pg_strmap names = PG_STRMAP_INIT;
        uint64_t *own, *below;
        size_t flen = strlen(function), maxd = flen / 3 + 1, nn = 0;
        struct pg_near *near;
        struct pg_buf msg = PG_BUF_INIT;
        bool caller = false;
        int rc;

        pg_own_samples(p, &names, &own);
        below = pg_xcalloc(names.n ? names.n : 1, sizeof(*below));
        for (size_t i = 0; i < p->nstacks; i++) {
                const char *s = strchr(p->stacks[i].frames, ';'); /* after the comm */
                bool through = false;
                size_t last = SIZE_MAX; /* the innermost annotatable frame below it */

                while (s) {
                        const char *f = s + 1, *e = strchr(f, ';');
                        size_t len = e ? (size_t) (e - f) : strlen(f), idx;

                        if (pg_frame_is(f, len, function, flen))
                                through = true;
                        else if (through && pg_strmap_find(&names, f, len, &idx))
                                last = idx;
                        s = e;
                }
                if (through && last != SIZE_MAX) {
                        below[last] += p->stacks[i].count;
                        caller = true;
                }
        }
        near = pg_xcalloc(names.n ? names.n : 1, sizeof(*near));
        for (size_t i = 0; i < names.n; i++) {
                const char *n = names.keys[i].ptr;
                size_t d;

                if (strcmp(n, function) == 0)
                        continue; /* it has samples only in another form; never itself */
                if (caller) {
                        if (below[i] > 0)
                                near[nn++] = (struct pg_near){ n, below[i], 0 };
                        continue;
                }
                d = strstr(n, function) ? 0 : pg_edit_distance(n, function, maxd) + 1;
                if (d <= maxd + 1)
                        near[nn++] = (struct pg_near){ n, own[i], d };
        }
        qsort(near, nn, sizeof(*near), pg_near_cmp);
        pg_buf_printf(&msg, "function '%s' has no samples of its own in this profile", function);
        if (caller)
                pg_buf_puts(&msg, ": it is a caller, its samples are in the functions it calls");
        for (size_t i = 0; i < nn && i < 5; i++)
                pg_buf_printf(&msg, "%s'%s'",
                              i        ? ", "
                              : caller ? "; annotate one of "
                                       : "; near names: ",
                              near[i].name);
        if (nn == 0)
                pg_buf_puts(&msg, "; 'perfgate show RESULT' lists its functions");
        {
                /* one line: what it quotes (the name asked for, the names near
                 * it) is shown escaped */
                char *shown = pg_shown(msg.ptr);
                rc = pg_error_set(PG_ENOTFOUND, "%s", shown);
                free(shown);
        }
        pg_buf_release(&msg);
        free(near);
        free(own);
        free(below);
        pg_strmap_release(&names);
        return rc;
}

static int pg_line_cmp(const void *x, const void *y)
{
        const struct pg_annot_line *a = x, *b = y;
        int c;

        if (a->count != b->count)
                return a->count > b->count ? -1 : 1;
        if ((c = strcmp(a->file, b->file)) != 0)
                return c;
        return a->line < b->line ? -1 : a->line > b->line;
}

const char *pg_module_line(struct pg_scopeindex *cus, Dwfl_Module *mod, uint64_t addr, int *lineno)
{
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = pg_scopeindex_cu(cus, mod, (Dwarf_Addr) addr, &bias);
        Dwarf_Line *l;

        *lineno = 0;
        if (cu != NULL && (l = dwarf_getsrc_die(cu, addr - bias)) != NULL &&
            dwarf_lineno(l, lineno) == 0)
                return dwarf_linesrc(l, NULL, NULL);
        return NULL;
}

const char *pg_module_comp_dir(struct pg_scopeindex *cus, Dwfl_Module *mod, uint64_t addr)
{
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = pg_scopeindex_cu(cus, mod, (Dwarf_Addr) addr, &bias);
        Dwarf_Attribute at;
        Dwarf_Die skel;

        if (cu != NULL && dwarf_attr(cu, DW_AT_comp_dir, &at) == NULL &&
            pg_scopeindex_skeleton(cus, cu, &skel))
                cu = &skel; /* a split unit: the skeleton's */
        if (cu == NULL || dwarf_attr(cu, DW_AT_comp_dir, &at) == NULL)
                return NULL;
        return dwarf_formstring(&at);
}

/* The source line of @addr: an index into @a->lines + 1 (added when new),
 * or 0 when the line table does not cover it. */
static size_t pg_line_of(struct pg_scopeindex *cus, Dwfl_Module *mod, uint64_t addr,
                         struct pg_annotation *a, struct pg_strmap *seen, size_t *cap)
{
        const char *file = NULL;
        int lineno = 0;
        struct pg_buf key = PG_BUF_INIT;
        size_t idx;
        bool added;

        file = pg_module_line(cus, mod, addr, &lineno);
        if (file == NULL || lineno <= 0)
                return 0;
        pg_buf_printf(&key, "%d:%s", lineno, file);
        idx = pg_strmap_intern(seen, key.ptr, key.len, &added);
        pg_buf_release(&key);
        if (added) {
                if (a->nlines == *cap) {
                        *cap = *cap ? *cap * 2 : 16;
                        a->lines = pg_xreallocarray(a->lines, *cap, sizeof(*a->lines));
                }
                const char *cd = file[0] != '/' ? pg_module_comp_dir(cus, mod, addr) : NULL;
                a->lines[a->nlines++] = (struct pg_annot_line){ pg_xstrdup(file), (uint64_t) lineno,
                                                                0, cd ? pg_xstrdup(cd) : NULL };
        }
        return idx + 1;
}

/* The bytes of [start, end) from the executable section holding them. */
static const unsigned char *pg_code_bytes(Dwfl_Module *mod, uint64_t start, uint64_t end)
{
        GElf_Addr bias = 0;
        Elf *elf = dwfl_module_getelf(mod, &bias);
        Elf_Scn *scn = NULL;

        if (elf == NULL)
                return NULL;
        while ((scn = elf_nextscn(elf, scn)) != NULL) {
                GElf_Shdr sh;
                Elf_Data *d;

                if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
                    !(sh.sh_flags & SHF_EXECINSTR) || start < sh.sh_addr ||
                    end > sh.sh_addr + sh.sh_size)
                        continue;
                d = elf_getdata(scn, NULL);
                if (d == NULL || d->d_buf == NULL || d->d_size < end - sh.sh_addr)
                        return NULL;
                return (const unsigned char *) d->d_buf + (start - sh.sh_addr);
        }
        return NULL;
}

/* capstone, loaded on first use rather than linked: a linked library is
 * relocated before main(), and capstone's tables are most of perfgate's
 * start-up relocations (CMakeLists.txt). The soname is the one of the
 * capstone the headers describe (Debian 12: libcapstone.so.4). */
#define PG_CS_STR2(x)      #x
#define PG_CS_STR(x)       PG_CS_STR2(x)
#define PG_CAPSTONE_SONAME "libcapstone.so." PG_CS_STR(CS_API_MAJOR)

static struct {
        __typeof__(cs_open) *open;
        __typeof__(cs_option) *option;
        __typeof__(cs_disasm) *disasm;
        __typeof__(cs_free) *free;
        __typeof__(cs_close) *close;
} pg_cs;
static pthread_once_t pg_cs_once = PTHREAD_ONCE_INIT;
static char pg_cs_error[512]; /* empty: loaded */

static void pg_cs_load(void)
{
        void *lib = dlopen(PG_CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
        const char *why;

        if (lib && (*(void **) &pg_cs.open = dlsym(lib, "cs_open")) != NULL &&
            (*(void **) &pg_cs.option = dlsym(lib, "cs_option")) != NULL &&
            (*(void **) &pg_cs.disasm = dlsym(lib, "cs_disasm")) != NULL &&
            (*(void **) &pg_cs.free = dlsym(lib, "cs_free")) != NULL &&
            (*(void **) &pg_cs.close = dlsym(lib, "cs_close")) != NULL)
                return;
        why = dlerror();
        snprintf(pg_cs_error, sizeof(pg_cs_error),
                 "cannot load the disassembler %s: %s (Debian: apt-get install libcapstone%d)",
                 PG_CAPSTONE_SONAME, why ? why : "a function is missing", CS_API_MAJOR);
}

/* Disassemble [a->start, a->end) with capstone (x86-64 in AT&T syntax, as
 * objdump and perf annotate show it; AArch64), counting each instruction's
 * samples. A failure leaves no instructions and says why. */
static void pg_disassemble(struct pg_scopeindex *cus, Dwfl_Module *mod, const struct pg_fn_addrs *f,
                           struct pg_annotation *a, struct pg_strmap *seen, size_t *cap)
{
        GElf_Addr bias = 0;
        Elf *elf = dwfl_module_getelf(mod, &bias);
        GElf_Ehdr eh;
        const unsigned char *code = pg_code_bytes(mod, a->start, a->end);
        csh h;
        cs_insn *insn = NULL;
        size_t n, k = 0;
        cs_arch arch;
        cs_mode mode;

        if (elf == NULL || gelf_getehdr(elf, &eh) == NULL || code == NULL) {
                a->disasm_error = pg_xstrdup("the function's code is not in the file");
                return;
        }
        if (eh.e_machine == EM_X86_64) {
                arch = CS_ARCH_X86;
                mode = CS_MODE_64;
        } else if (eh.e_machine == EM_AARCH64) {
                arch = CS_ARCH_ARM64;
                mode = CS_MODE_ARM;
        } else {
                a->disasm_error =
                    pg_xasprintf("no disassembler for ELF machine %u", (unsigned) eh.e_machine);
                return;
        }
        pthread_once(&pg_cs_once, pg_cs_load);
        if (pg_cs_error[0]) {
                a->disasm_error = pg_xstrdup(pg_cs_error);
                return;
        }
        if (pg_cs.open(arch, mode, &h) != CS_ERR_OK) {
                a->disasm_error = pg_xstrdup("capstone cannot open a disassembler");
                return;
        }
        if (arch == CS_ARCH_X86)
                pg_cs.option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
        n = pg_cs.disasm(h, code, a->end - a->start, a->start, 0, &insn);
        a->insns = pg_xcalloc(n ? n : 1, sizeof(*a->insns));
        for (size_t i = 0; i < n; i++) {
                struct pg_annot_insn *in = &a->insns[a->ninsns++];

                in->addr = insn[i].address;
                in->text = insn[i].op_str[0]
                               ? pg_xasprintf("%s %s", insn[i].mnemonic, insn[i].op_str)
                               : pg_xstrdup(insn[i].mnemonic);
                in->line = pg_line_of(cus, mod, in->addr, a, seen, cap);
                while (k < f->n && f->addrs[k].addr < in->addr + insn[i].size) {
                        if (f->addrs[k].addr >= in->addr)
                                in->count += f->addrs[k].count;
                        k++;
                }
        }
        if (n == 0)
                a->disasm_error = pg_xstrdup("capstone could not decode the function");
        pg_cs.free(insn, n);
        pg_cs.close(&h);
}

/* Sort @a's lines hottest first and renumber its instructions' lines (each
 * line owns its file string, so the string's address identifies it). */
static void pg_sort_lines(struct pg_annotation *a)
{
        size_t n = a->nlines ? a->nlines : 1;
        struct pg_annot_line *sorted = pg_xcalloc(n, sizeof(*sorted));
        size_t *pos = pg_xcalloc(n, sizeof(*pos));

        memcpy(sorted, a->lines, a->nlines * sizeof(*sorted));
        qsort(sorted, a->nlines, sizeof(*sorted), pg_line_cmp);
        for (size_t i = 0; i < a->nlines; i++)
                for (size_t j = 0; j < a->nlines; j++)
                        if (sorted[i].file == a->lines[j].file)
                                pos[j] = i;
        for (size_t i = 0; i < a->ninsns; i++)
                if (a->insns[i].line)
                        a->insns[i].line = pos[a->insns[i].line - 1] + 1;
        free(a->lines);
        a->lines = sorted;
        free(pos);
}

/*
 * PG_EINPUT when @mod's NT_GNU_BUILD_ID (dwfl_module_build_id(), the note
 * elfutils reads) differs from the one recorded for @f: the file was rebuilt
 * since, and the recorded addresses would name other instructions, as
 * `perf annotate` refuses by build-id. 0 when equal or either is unknown.
 */
static int pg_check_build(Dwfl_Module *mod, const struct pg_fn_addrs *f)
{
        const unsigned char *bits;
        GElf_Addr vaddr;
        int n = dwfl_module_build_id(mod, &bits, &vaddr);
        struct pg_buf hex = PG_BUF_INIT;
        int rc = 0;

        if (f->build_id == NULL || n <= 0)
                return 0;
        pg_buf_hex(&hex, bits, (size_t) n);
        if (strcmp(hex.ptr, f->build_id) != 0)
                rc = pg_error_set(PG_EINPUT,
                                  "'%s' changed since the recording: build-id %s, recorded %s; "
                                  "its samples would be shown against other instructions. "
                                  "Annotate the build that was recorded, or record again",
                                  f->module, hex.ptr, f->build_id);
        pg_buf_release(&hex);
        return rc;
}

/* Whether @mod has no symbol table of its own (stripped: no SHT_SYMTAB) and
 * no separate debuginfo was found for it. */
static bool pg_stripped(Dwfl_Module *mod)
{
        GElf_Addr bias;
        Elf *e = dwfl_module_getelf(mod, &bias);
        Elf_Scn *scn = NULL;
        GElf_Shdr sh;

        if (e == NULL)
                return false;
        while ((scn = elf_nextscn(e, scn)) != NULL)
                if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB)
                        return false;
        return dwfl_module_getdwarf(mod, &bias) == NULL;
}

/* For a result without build-ids: a warning in @a when a source line the
 * file's line table now gives for the sampled addresses is not among the
 * lines recorded for them (f->lines, docs/result-format.md), naming one of
 * each: the file was most likely rebuilt since. */
static void pg_check_lines(const struct pg_fn_addrs *f, struct pg_annotation *a)
{
        struct pg_buf where = PG_BUF_INIT;

        if (f->nlines == 0)
                return;
        for (size_t i = 0; i < a->nlines && !a->warning; i++) {
                bool known = false;

                if (a->lines[i].count == 0)
                        continue;
                pg_buf_reset(&where);
                if (a->lines[i].comp_dir)
                        pg_buf_printf(&where, "%s/", a->lines[i].comp_dir);
                pg_buf_printf(&where, "%s:%llu", a->lines[i].file,
                              (unsigned long long) a->lines[i].line);
                /* the recording keeps files below the project's root
                 * relative to it (docs/result-format.md) */
                for (size_t j = 0; j < f->nlines && !known; j++)
                        known = pg_source_key_same(f->lines[j].where, where.ptr);
                if (!known)
                        a->warning = pg_xasprintf(
                            "'%s' does not match the recording: its line table puts samples "
                            "at %s, the recording at %s; it was probably rebuilt since, and "
                            "the shares below may belong to other instructions",
                            f->module, where.ptr, f->lines[0].where);
        }
        pg_buf_release(&where);
}

static int pg_symbol_cmp(const void *x, const void *y)
{
        const struct pg_annot_symbol *a = x, *b = y;

        if (a->count != b->count)
                return a->count > b->count ? -1 : 1;
        return a->start < b->start ? -1 : a->start > b->start;
}

/* The symbols of @mod holding @f's samples into out->symbols, most samples
 * first; samples at addresses no symbol holds are left out. */
static void pg_collect_symbols(Dwfl_Module *mod, const struct pg_fn_addrs *f,
                               struct pg_annotation *out)
{
        size_t cap = 0;
        struct pg_buf sig = PG_BUF_INIT;

        for (size_t i = 0; i < f->n; i++) {
                GElf_Sym sym;
                GElf_Off off;
                const char *name =
                    dwfl_module_addrinfo(mod, f->addrs[i].addr, &off, &sym, NULL, NULL, NULL);
                uint64_t start = f->addrs[i].addr - off;
                size_t k = 0;

                if (name == NULL)
                        continue;
                while (k < out->nsymbols && out->symbols[k].start != start)
                        k++;
                if (k == out->nsymbols) {
                        if (out->nsymbols == cap) {
                                cap = cap ? cap * 2 : 4;
                                out->symbols =
                                    pg_xreallocarray(out->symbols, cap, sizeof(*out->symbols));
                        }
                        pg_buf_reset(&sig);
                        pg_demangle_signature(&sig, name);
                        out->symbols[out->nsymbols++] = (struct pg_annot_symbol){
                                pg_xstrdup(name), pg_buf_detach(&sig, NULL), start,
                                start + (sym.st_size ? sym.st_size : off + 1), 0
                        };
                }
                out->symbols[k].count += f->addrs[i].count;
        }
        pg_buf_release(&sig);
        if (out->nsymbols > 1)
                qsort(out->symbols, out->nsymbols, sizeof(*out->symbols), pg_symbol_cmp);
}

void pg_annotation_list_symbols(struct pg_buf *b, const struct pg_annotation *a, bool mark)
{
        for (size_t i = 0; i < a->nsymbols; i++)
                pg_buf_printf(b, "\n  %s  %s  %.2f%%%s", a->symbols[i].symbol,
                              a->symbols[i].signature,
                              100.0 * (double) a->symbols[i].count / (double) a->samples,
                              mark && i == a->chosen ? "  (shown)" : "");
}

/*
 * Whether annotate's debug-file search ends, as libdw's own does, by asking
 * the debuginfod servers DEBUGINFOD_URLS names (docs/bare-metal.md). When it
 * is unset or empty the client has no server to ask (debuginfod-client.c
 * answers ENOSYS), so the search stays local (runner/debugfind.h) and the
 * client and its libraries are never loaded.
 */
static bool pg_asks_debuginfod(void)
{
        const char *urls = getenv("DEBUGINFOD_URLS");

        return urls != NULL && urls[0] != '\0';
}

/*
 * The search when a server is named: this machine's files as
 * pg_debugfind() searches them, then the build-id alone handed to the
 * debuginfod client. Not dwfl_standard_find_debuginfo(), which ends the
 * same way but opens its local candidates with a blocking open(2): a FIFO
 * planted where a debug file is looked for hung annotate.
 */
static int pg_annotate_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                      Dwarf_Addr base, const char *file_name,
                                      const char *debuglink_file, GElf_Word debuglink_crc,
                                      char **debuginfo_file_name)
{
        int fd = pg_debugfind_callback(mod, userdata, modname, base, file_name, debuglink_file,
                                       debuglink_crc, debuginfo_file_name);

        return fd >= 0 ? fd : pg_debugfind_debuginfod(mod, debuginfo_file_name);
}

int pg_annotate(const struct pg_profile *p, const char *function, const char *debug_dir,
                struct pg_annotation *out)
{
        const struct pg_fn_addrs *f;
        char *dpath = NULL;
        Dwfl_Callbacks cb = { 0 };
        Dwfl *dwfl = NULL;
        Dwfl_Module *mod;
        void **ud;
        struct pg_strmap seen = PG_STRMAP_INIT;
        struct pg_scopeindex cus = { 0 };
        size_t cap = 0;
        uint64_t hot = 0, hot_count = 0, outside_hot = 0;
        GElf_Sym sym;
        GElf_Off off;
        const char *symname;
        struct stat st = { 0 };
        int rc = 0, fd;
        const char *want = NULL;

        memset(out, 0, sizeof(*out));
        if ((rc = pg_libdw_init()) < 0)
                return rc;
        if (p->naddrs == 0 && p->samples > 0)
                return pg_error_set(PG_EINPUT,
                                    "this result has no per-address samples (it was written by "
                                    "an older perfgate or from folded stacks); record it again");
        f = pg_profile_find_addrs(p, function);
        if (f == NULL && function[0] == '_' && (function[1] == 'Z' || function[1] == 'R')) {
                /* a mangled name: the profile's name for it, and that symbol */
                struct pg_buf name = PG_BUF_INIT;

                pg_demangle(&name, function);
                f = name.len ? pg_profile_find_addrs(p, name.ptr) : NULL;
                want = f ? function : NULL;
                pg_buf_release(&name);
        }
        if (f == NULL && strlen(function) > 4 &&
            strcmp(function + strlen(function) - 4, "_[k]") == 0)
                return pg_error_set(PG_EINPUT,
                                    "'%s' is a kernel function: annotate reads the user-space "
                                    "ELF files a result names, not the kernel image, so it "
                                    "cannot show it ('perf annotate' with a vmlinux can)",
                                    function);
        if (f == NULL)
                return pg_not_found(p, function);
        out->function = pg_xstrdup(f->function);
        out->module = pg_xstrdup(f->module);
        out->samples = f->samples;
        /* separate debuginfo as the symbolizer looks for it: the build-id tree
         * under @debug_dir, then the system's */
        dpath =
            pg_xasprintf("%s%s:/usr/lib/debug", debug_dir ? debug_dir : "", debug_dir ? ":" : "");
        cb.find_elf = dwfl_build_id_find_elf;
        cb.find_debuginfo =
            pg_asks_debuginfod() ? pg_annotate_find_debuginfo : pg_debugfind_callback;
        cb.debuginfo_path = &dpath;
        dwfl = dwfl_begin(&cb);
        /* O_NONBLOCK: a FIFO named by a crafted result must not hang the open;
         * anything but a regular file is refused */
        fd = open(f->module, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (dwfl == NULL || fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
                rc = pg_error_set(PG_EIO, "cannot read '%s', the file the samples were taken in%s",
                                  f->module,
                                  fd >= 0 && !S_ISREG(st.st_mode) ? ": not a regular file" : "");
                if (fd >= 0)
                        close(fd);
                goto done;
        }
        dwfl_report_begin(dwfl);
        mod = dwfl_report_elf(dwfl, f->function, f->module, fd, 0, false);
        dwfl_report_end(dwfl, NULL, NULL);
        if (mod == NULL) {
                rc = pg_error_set(PG_EIO, "cannot read '%s' as an ELF file: %s", f->module,
                                  dwfl_errmsg(-1));
                goto done;
        }
        /* pg_debugfind_callback()'s path is the module's user data */
        dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
        *ud = dpath;
        if ((rc = pg_check_build(mod, f)) < 0)
                goto done;
        for (size_t i = 0; i < f->n; i++)
                if (f->addrs[i].count > hot_count) {
                        hot_count = f->addrs[i].count;
                        hot = f->addrs[i].addr;
                }
        symname = dwfl_module_addrinfo(mod, hot, &off, &sym, NULL, NULL, NULL);
        if (symname == NULL && pg_stripped(mod)) {
                rc = pg_error_set(PG_EIO,
                                  "'%s' has no symbol table (it was stripped) and no separate "
                                  "debuginfo was found for it; use --debug-dir DIR (a "
                                  ".build-id tree) or the unstripped build",
                                  f->module);
                goto done;
        }
        if (symname == NULL) {
                rc = pg_error_set(PG_EINPUT,
                                  "'%s' has no symbol at 0x%llx where '%s' was sampled: the file "
                                  "was rebuilt since the recording",
                                  f->module, (unsigned long long) hot, f->function);
                goto done;
        }
        out->start = hot - off;
        out->end = out->start + (sym.st_size ? sym.st_size : off + 1);
        pg_collect_symbols(mod, f, out);
        for (size_t k = 0; want && k < out->nsymbols && !out->selected; k++)
                if (strcmp(out->symbols[k].symbol, want) == 0) {
                        out->chosen = k;
                        out->selected = true;
                }
        if (want && !out->selected) {
                struct pg_buf list = PG_BUF_INIT;

                pg_annotation_list_symbols(&list, out, false);
                rc = pg_error_set(PG_ENOTFOUND,
                                  "symbol '%s' has no samples in '%s'; the symbols of '%s' that "
                                  "have:%s",
                                  want, f->module, f->function, list.ptr ? list.ptr : " none");
                pg_buf_release(&list);
                goto done;
        }
        if (out->nsymbols > 0) {
                /* by name: the symbol with the most samples */
                out->start = out->symbols[out->chosen].start;
                out->end = out->symbols[out->chosen].end;
        }
        for (size_t i = 0; i < f->n; i++) {
                const struct pg_fn_addrs *ff = f;
                size_t li;

                if (ff->addrs[i].addr < out->start || ff->addrs[i].addr >= out->end) {
                        out->outside += ff->addrs[i].count;
                        if (ff->addrs[i].count > outside_hot) {
                                const char *o = dwfl_module_addrname(mod, ff->addrs[i].addr);

                                outside_hot = ff->addrs[i].count;
                                free(out->outside_symbol);
                                out->outside_symbol = o ? pg_xstrdup(o) : NULL;
                        }
                        continue;
                }
                li = pg_line_of(&cus, mod, ff->addrs[i].addr, out, &seen, &cap);
                if (li)
                        out->lines[li - 1].count += ff->addrs[i].count;
                else
                        out->no_line += ff->addrs[i].count;
        }
        if (f->build_id == NULL)
                pg_check_lines(f, out);
        pg_disassemble(&cus, mod, f, out, &seen, &cap);
        pg_sort_lines(out);
done:
        pg_strmap_release(&seen);
        pg_scopeindex_release(&cus);
        if (dwfl)
                dwfl_end(dwfl);
        free(dpath);
        if (rc < 0)
                pg_annotation_release(out);
        return rc;
}
