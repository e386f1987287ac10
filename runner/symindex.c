/*
 * symindex.c - see symindex.h. dwfl_module_addrinfo() (elfutils 0.188,
 * libdwfl/dwfl_module_addrsym.c) scans every symbol of the module for each
 * address, reading each one through gelf_getsymshndx(); a profile with a few
 * thousand distinct addresses in libc (its debug file has ~10,000 symbols)
 * spent most of its symbolization there. Its scan keeps, in table order over
 * the candidates with value <= address:
 *   - min_label, the highest value + size seen;
 *   - the closest sized symbol that contains the address: one replaces it
 *     when it starts higher or binds stronger (GLOBAL > WEAK > LOCAL > other),
 *     or, at the same start, when it is smaller and binds no weaker, or is no
 *     larger and binds stronger;
 *   - while no sized symbol contains it, a sizeless label in the address's
 *     section whose value is >= min_label, used at the end when its value is
 *     still >= min_label.
 * Globals are scanned first; locals only when no global contains the address
 * and no global label sits exactly at it. Whatever the order of labels, the
 * label it returns is the last one (table order) in the address's section
 * whose value equals the final min_label (the scan accepts labels in
 * non-decreasing value order, and the final test needs value >= min_label >=
 * value). So a lookup here needs only: the sized symbols containing the
 * address (binary search, then back while the running maximum end is above
 * the address), folded in table order by the rule above; or else the running
 * maximum end at the address, and the labels at exactly that value.
 */
#include "runner/symindex.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runner/libdw.h"

struct pg_symindex_sym {
        uint64_t value; /* module address (libdwfl's adjusted value) */
        GElf_Sym sym;   /* as read, st_value unadjusted */
        const char *name;
        int ndx;         /* libdwfl's symbol index */
        GElf_Word shndx; /* section index as libdwfl gives it (-1: not SHF_ALLOC) */
};

static int pg_sym_cmp(const void *a, const void *b)
{
        const struct pg_symindex_sym *x = a, *y = b;

        if (x->value != y->value)
                return x->value < y->value ? -1 : 1;
        return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

/* GELF_ST_BIND as libdwfl ranks it (binding_value(), higher is better). */
static int pg_bind_rank(const GElf_Sym *s)
{
        switch (GELF_ST_BIND(s->st_info)) {
        case STB_GLOBAL:
                return 3;
        case STB_WEAK:
                return 2;
        case STB_LOCAL:
                return 1;
        default:
                return 0;
        }
}

static void pg_part_add(struct pg_symindex_part *p, size_t *cap, const struct pg_symindex_sym *s)
{
        if (p->n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                p->v = pg_xreallocarray(p->v, *cap, sizeof(*p->v));
        }
        p->v[p->n++] = *s;
}

static void pg_part_finish(struct pg_symindex_part *p)
{
        uint64_t m = 0;

        if (p->n == 0)
                return;
        qsort(p->v, p->n, sizeof(*p->v), pg_sym_cmp);
        p->maxend = pg_xreallocarray(NULL, p->n, sizeof(*p->maxend));
        for (size_t i = 0; i < p->n; i++) {
                uint64_t end = p->v[i].value + p->v[i].sym.st_size;

                if (end > m)
                        m = end;
                p->maxend[i] = m;
        }
}

void pg_symindex_build(struct pg_symindex *ix, Dwfl_Module *mod)
{
        int n = dwfl_module_getsymtab(mod);
        int fg = n < 0 ? -1 : dwfl_module_getsymtab_first_global(mod);
        size_t capg = 0, capl = 0, capa = 0;
        Dwarf_Addr ebias;
        Elf *main_elf = dwfl_module_getelf(mod, &ebias);
        GElf_Ehdr eh;

        memset(ix, 0, sizeof(*ix));
        ix->built = true;
        ix->mod = mod;
        ix->exact = true;
        if (n < 0 || fg < 0)
                return; /* libdwfl finds nothing either */
        if (main_elf != NULL && gelf_getehdr(main_elf, &eh) != NULL && eh.e_type == ET_REL)
                ix->exact = false;
        for (int i = 1; i < n && ix->exact; i++) {
                struct pg_symindex_sym s = { 0 };
                GElf_Addr value;
                Elf *elf;
                Dwarf_Addr bias;
                int type;

                s.name = dwfl_module_getsym_info(mod, i, &s.sym, &value, &s.shndx, &elf, &bias);
                if (s.name == NULL || s.name[0] == '\0')
                        continue;
                s.ndx = i;
                s.value = value;
                /* unresolved values are st_value, biased or not; anything
                 * else came from ebl_resolve_sym_value */
                if (value != s.sym.st_value && value != s.sym.st_value + bias)
                        ix->exact = false;
                if (ix->nall == capa) {
                        capa = capa ? capa * 2 : 256;
                        ix->all = pg_xreallocarray(ix->all, capa, sizeof(*ix->all));
                }
                ix->all[ix->nall++] = s;
                type = GELF_ST_TYPE(s.sym.st_info);
                if (s.sym.st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE ||
                    type == STT_TLS)
                        continue;
                if (i >= (fg == 0 ? 1 : fg))
                        pg_part_add(&ix->globals, &capg, &s);
                else if (fg > 1)
                        pg_part_add(&ix->locals, &capl, &s);
        }
        if (ix->nall > 1)
                qsort(ix->all, ix->nall, sizeof(*ix->all), pg_sym_cmp);
        pg_part_finish(&ix->globals);
        pg_part_finish(&ix->locals);
}

/* The number of entries of @v (sorted by value) with value <= @addr. */
static size_t pg_upto(const struct pg_symindex_sym *v, size_t n, uint64_t addr)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (v[mid].value <= addr)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* The section index libdwfl finds @addr in (SHN_UNDEF: none). */
static size_t pg_section_of(Dwfl_Module *mod, uint64_t addr)
{
        Dwarf_Addr a = addr, bias;
        Elf_Scn *scn = dwfl_module_address_section(mod, &a, &bias);

        return scn ? elf_ndxscn(scn) : SHN_UNDEF;
}

/*
 * The sized symbols of @p containing @addr, folded in table order by
 * libdwfl's rule (try_sym_value); NULL when none contains it. *@maxend: the
 * highest value + size of the symbols with value <= @addr (0 if none).
 */
static const struct pg_symindex_sym *pg_part_closest(const struct pg_symindex_part *p,
                                                     uint64_t addr, uint64_t *maxend)
{
        size_t k = pg_upto(p->v, p->n, addr);
        const struct pg_symindex_sym *cur = NULL, *next;
        int lastndx = 0;

        *maxend = k ? p->maxend[k - 1] : 0;
        /* the containing symbols, in table order (usually one; aliases and
         * nested symbols give a few) */
        do {
                next = NULL;
                for (size_t i = k; i-- > 0 && p->maxend[i] > addr;) {
                        const struct pg_symindex_sym *s = &p->v[i];

                        if (s->sym.st_size != 0 && addr - s->value < s->sym.st_size &&
                            s->ndx > lastndx && (next == NULL || s->ndx < next->ndx))
                                next = s;
                }
                if (next == NULL)
                        break;
                lastndx = next->ndx;
                if (cur == NULL) {
                        cur = next;
                } else {
                        int bc = pg_bind_rank(&cur->sym), bn = pg_bind_rank(&next->sym);

                        if (cur->value < next->value || bc < bn ||
                            (cur->value == next->value &&
                             ((cur->sym.st_size > next->sym.st_size && bc <= bn) ||
                              (cur->sym.st_size >= next->sym.st_size && bc < bn))))
                                cur = next;
                }
        } while (next != NULL);
        return cur;
}

/* The last label (table order) of @p at exactly @value in @addr's section, or NULL. */
static const struct pg_symindex_sym *pg_part_label(const struct pg_symindex_part *p,
                                                   Dwfl_Module *mod, uint64_t value, uint64_t addr,
                                                   size_t *addr_sec)
{
        size_t k = pg_upto(p->v, p->n, value);
        const struct pg_symindex_sym *best = NULL;

        for (size_t i = k; i-- > 0 && p->v[i].value == value;) {
                const struct pg_symindex_sym *s = &p->v[i];
                bool same;

                if (s->sym.st_size != 0 || (best != NULL && s->ndx < best->ndx))
                        continue;
                if (s->shndx >= SHN_LORESERVE) {
                        same = s->value == addr;
                } else {
                        if (*addr_sec == (size_t) -1)
                                *addr_sec = pg_section_of(mod, addr);
                        same = *addr_sec == pg_section_of(mod, s->value);
                }
                if (same)
                        best = s;
        }
        return best;
}

const char *pg_symindex_lookup(struct pg_symindex *ix, Dwfl_Module *mod, uint64_t addr,
                               uint64_t *start)
{
        const struct pg_symindex_sym *hit, *glabel = NULL, *llabel = NULL;
        uint64_t gmax, lmax = 0;
        size_t addr_sec = (size_t) -1;

        if (!ix->built)
                pg_symindex_build(ix, mod);
        if (!ix->exact) {
                GElf_Off off;
                GElf_Sym sym;
                const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);

                *start = addr - off;
                return name;
        }
        hit = pg_part_closest(&ix->globals, addr, &gmax);
        if (hit == NULL) {
                glabel = pg_part_label(&ix->globals, mod, gmax, addr, &addr_sec);
                if (ix->locals.n > 0 && (glabel == NULL || glabel->value != addr)) {
                        hit = pg_part_closest(&ix->locals, addr, &lmax);
                        if (hit == NULL && lmax >= gmax)
                                llabel = pg_part_label(&ix->locals, mod, lmax, addr, &addr_sec);
                        if (lmax > gmax)
                                glabel = NULL;
                }
        }
        if (hit == NULL)
                hit = llabel ? llabel : glabel;
        if (hit == NULL)
                return NULL;
        *start = hit->value;
        return hit->name;
}

void pg_symindex_at(struct pg_symindex *ix, Dwfl_Module *mod, uint64_t addr,
                    void (*fn)(void *arg, int ndx, const GElf_Sym *sym, const char *name),
                    void *arg)
{
        size_t hi, lo;

        if (!ix->built)
                pg_symindex_build(ix, mod);
        if (!ix->exact) {
                int n = dwfl_module_getsymtab(mod);

                for (int i = 1; i < n; i++) {
                        GElf_Sym sym;
                        GElf_Addr value;
                        const char *name =
                            dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL);

                        if (name != NULL && name[0] != '\0' && value == addr)
                                fn(arg, i, &sym, name);
                }
                return;
        }
        hi = pg_upto(ix->all, ix->nall, addr);
        for (lo = hi; lo > 0 && ix->all[lo - 1].value == addr; lo--)
                ;
        for (size_t i = lo; i < hi; i++)
                fn(arg, ix->all[i].ndx, &ix->all[i].sym, ix->all[i].name);
}

void pg_symindex_release(struct pg_symindex *ix)
{
        free(ix->globals.v);
        free(ix->globals.maxend);
        free(ix->locals.v);
        free(ix->locals.maxend);
        free(ix->all);
        memset(ix, 0, sizeof(*ix));
}
