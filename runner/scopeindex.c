/*
 * scopeindex.c - see scopeindex.h. Invariants of an indexed CU: nodes are
 * in the walk's order (preorder, children in DIE order); node i's subtree is
 * nodes [i, end); child and next are node indexes or PG_NONE; ranges of
 * node i are ranges[r0 .. r0 + nr), each [lo, hi) as dwarf_ranges gives it;
 * the nodes' DIE addresses strictly increase (a CU's DIEs are stored in
 * preorder, DWARF 5 section 2.3), so a DIE's node is found by binary search;
 * level is 1 for the CU's children. tops (pg_scopeindex_chain) are the
 * ranges of the subprograms, inlined subroutines and lexical blocks that
 * pg_scopes_at may take first: those at the CU level or in a namespace-like
 * DIE (a namespace, class, structure, union or module, itself in the CU,
 * in another, or in code: a local type), sorted by lo; maxhi is the
 * largest hi of tops[0 .. i].
 */
#include "runner/scopeindex.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runner/dwarfcheck.h"
#include "runner/libdw.h"

#define PG_NONE UINT32_MAX

struct pg_scope_node {
        Dwarf_Die die;
        uint32_t parent, child, next;
        uint32_t r0, nr;
        int tag;
        uint32_t level;
};

struct pg_scope_top {
        uint64_t lo, hi, maxhi;
        uint32_t node;
};

struct pg_scope_cu {
        int lookups; /* before the index is built */
        bool built, fallback;
        struct pg_scope_node *nodes;
        size_t n, cap;
        uint64_t (*ranges)[2];
        size_t nranges, capranges;
        uint32_t first; /* the CU's first child */
        bool tops_built;
        struct pg_scope_top *tops;
        size_t ntops;
};

/* The most levels pg_scopes_at descends, and so the most scopes it reports. */
#define PG_SCOPE_DEPTH 64
#define PG_SCOPE_MAX   (PG_SCOPE_DEPTH + 2)

/* Whether the index records the children of a DIE of @tag: those
 * dwarf_getscopes' walk descends into (libdw_visit_scopes.c
 * may_have_scopes), and unions, which pg_scopes_at enters too. */
static bool pg_may_have_scopes(int tag)
{
        switch (tag) {
        case DW_TAG_union_type:
        case DW_TAG_compile_unit:
        case DW_TAG_module:
        case DW_TAG_lexical_block:
        case DW_TAG_with_stmt:
        case DW_TAG_catch_block:
        case DW_TAG_try_block:
        case DW_TAG_entry_point:
        case DW_TAG_inlined_subroutine:
        case DW_TAG_subprogram:
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
                return true;
        default:
                return false;
        }
}

/* Add @die (child of @parent) with its ranges; false on a libdw error. */
static bool pg_scope_add(struct pg_scope_cu *c, Dwarf_Die *die, uint32_t parent)
{
        struct pg_scope_node *nd;
        Dwarf_Addr base, lo, hi;
        ptrdiff_t off = 0;
        bool has;

        if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 256;
                c->nodes = pg_xreallocarray(c->nodes, c->cap, sizeof(*c->nodes));
        }
        nd = &c->nodes[c->n];
        nd->die = *die;
        nd->parent = parent;
        nd->child = nd->next = PG_NONE;
        nd->r0 = (uint32_t) c->nranges;
        nd->nr = 0;
        nd->tag = dwarf_tag(die);
        nd->level = parent == PG_NONE ? 1 : c->nodes[parent].level + 1;
        /* dwarf_haspc's loop, all of it: a range list that fails part way
         * would make dwarf_haspc's answer depend on the address. Without
         * DW_AT_high_pc and DW_AT_ranges, dwarf_ranges gives no range and no
         * error (libdw/dwarf_ranges.c): the abbreviation says so, cheaper
         * than reading the attributes */
        has = dwarf_hasattr(die, DW_AT_high_pc) || dwarf_hasattr(die, DW_AT_ranges);
        while (has && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
                if (c->nranges == c->capranges) {
                        c->capranges = c->capranges ? c->capranges * 2 : 256;
                        c->ranges = pg_xreallocarray(c->ranges, c->capranges, sizeof(*c->ranges));
                }
                c->ranges[c->nranges][0] = lo;
                c->ranges[c->nranges++][1] = hi;
                nd->nr++;
        }
        /* out of order: not a layout the binary search in pg_scope_find serves */
        if (off < 0 || nd->tag == DW_TAG_imported_unit ||
            (c->n > 0 && (uintptr_t) c->nodes[c->n - 1].die.addr >= (uintptr_t) die->addr))
                return false;
        c->n++;
        return true;
}

/* Record the walk of @cu into @c; false when the CU must be left to dwarf_getscopes. */
static bool pg_scope_build(struct pg_scope_cu *c, Dwarf_Die *cu)
{
        /* an explicit stack of the nodes whose children are being added */
        uint32_t *stack = NULL, prev = PG_NONE;
        size_t depth = 0, cap = 0;
        Dwarf_Die d;
        int r;
        bool ok = true;

        c->first = PG_NONE;
        if ((r = dwarf_child(cu, &d)) != 0)
                return r > 0; /* no children is legal */
        for (;;) {
                uint32_t parent = depth ? stack[depth - 1] : PG_NONE, me = (uint32_t) c->n;

                if (!pg_scope_add(c, &d, parent)) {
                        ok = false;
                        break;
                }
                if (prev != PG_NONE)
                        c->nodes[prev].next = me;
                else if (parent != PG_NONE)
                        c->nodes[parent].child = me;
                else
                        c->first = me;
                prev = me;
                if (pg_may_have_scopes(c->nodes[me].tag) && dwarf_haschildren(&d)) {
                        Dwarf_Die kid;

                        if ((r = dwarf_child(&d, &kid)) < 0) {
                                ok = false;
                                break;
                        }
                        if (r == 0) {
                                if (depth == cap) {
                                        cap = cap ? cap * 2 : 32;
                                        stack = pg_xreallocarray(stack, cap, sizeof(*stack));
                                }
                                stack[depth++] = me;
                                prev = PG_NONE;
                                d = kid;
                                continue;
                        }
                }
                /* the next sibling, here or up the stack */
                while ((r = dwarf_siblingof(&d, &d)) != 0) {
                        if (r < 0 || depth == 0) {
                                ok = r > 0;
                                goto done;
                        }
                        prev = stack[--depth];
                        d = c->nodes[prev].die;
                }
        }
done:
        free(stack);
        return ok;
}

/* Whether node @i's ranges contain @pc, as dwarf_haspc. */
static bool pg_scope_has(const struct pg_scope_cu *c, uint32_t i, Dwarf_Addr pc)
{
        for (uint32_t k = 0; k < c->nodes[i].nr; k++)
                if (pc >= c->ranges[c->nodes[i].r0 + k][0] && pc < c->ranges[c->nodes[i].r0 + k][1])
                        return true;
        return false;
}

/* The node of the DIE at @addr, or PG_NONE when the walk did not visit it. */
static uint32_t pg_scope_find(const struct pg_scope_cu *c, const void *addr)
{
        size_t lo = 0, hi = c->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if ((uintptr_t) c->nodes[mid].die.addr < (uintptr_t) addr)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < c->n && c->nodes[lo].die.addr == addr ? (uint32_t) lo : PG_NONE;
}

int pg_scopes_keep_inlined(Dwarf_Die *v, int n, Dwarf_Die *out, int max)
{
        int k = 0;

        for (int i = n - 1; i >= 0; i--)
                if (dwarf_tag(&v[i]) == DW_TAG_inlined_subroutine) {
                        if (k < max)
                                out[k] = v[i];
                        k++;
                }
        return k;
}

/* dwarf_getscopes itself, its inlined subroutines kept (see pg_scopeindex_inlined). */
static int pg_scope_libdw(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
        Dwarf_Die *scopes = NULL;
        int n = dwarf_getscopes(cu, pc, &scopes), k = pg_scopes_keep_inlined(scopes, n, out, max);

        free(scopes);
        return k;
}

/* @cu's entry in @x, counting one lookup and indexing the CU at its second. */
static struct pg_scope_cu *pg_scope_cu_get(struct pg_scopeindex *x, Dwarf_Die *cu)
{
        uint64_t key = (uint64_t) (uintptr_t) cu->addr;
        struct pg_scope_cu *c;
        uint32_t idx;

        if (!pg_u64map_get(&x->by_cu, key, &idx)) {
                if (x->ncus == x->capcus) {
                        x->capcus = x->capcus ? x->capcus * 2 : 16;
                        x->cus = pg_xreallocarray(x->cus, x->capcus, sizeof(*x->cus));
                }
                idx = (uint32_t) x->ncus++;
                memset(&x->cus[idx], 0, sizeof(x->cus[idx]));
                pg_u64map_put(&x->by_cu, key, idx);
        }
        c = &x->cus[idx];
        if (!c->built && c->lookups++ >= 1) {
                c->built = true;
                c->fallback = !pg_scope_build(c, cu);
        }
        return c;
}

int pg_scopeindex_inlined(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                          int max)
{
        struct pg_scope_cu *c = pg_scope_cu_get(x, cu);
        uint32_t node = PG_NONE, inl = PG_NONE, o, chain[256];
        Dwarf_Attribute attr;
        Dwarf_Die origin;
        int n = 0, k = 0;

        if (!c->built || c->fallback)
                return pg_scope_libdw(cu, pc, out, max);
        /* the first pass: the first child containing pc, level by level */
        for (uint32_t i = c->first; i != PG_NONE;) {
                if (!pg_scope_has(c, i, pc)) {
                        i = c->nodes[i].next;
                        continue;
                }
                node = i;
                if (c->nodes[i].tag == DW_TAG_inlined_subroutine)
                        inl = i;
                i = c->nodes[i].child;
        }
        if (node == PG_NONE || inl == PG_NONE)
                return 0; /* no scopes, or none inlined */
        /* the abstract origin, found in the same walk; its enclosing scopes */
        if (dwarf_attr(&c->nodes[inl].die, DW_AT_abstract_origin, &attr) == NULL ||
            dwarf_formref_die(&attr, &origin) == NULL ||
            (o = pg_scope_find(c, origin.addr)) == PG_NONE)
                return 0;
        /* libdw's walk does not enter unions (may_have_scopes): not found there */
        for (uint32_t p = c->nodes[o].parent; p != PG_NONE; p = c->nodes[p].parent)
                if (c->nodes[p].tag == DW_TAG_union_type)
                        return 0;
        for (uint32_t p = c->nodes[o].parent; p != PG_NONE; p = c->nodes[p].parent)
                if (c->nodes[p].tag == DW_TAG_inlined_subroutine) {
                        if (n == (int) (sizeof(chain) / sizeof(chain[0])))
                                return pg_scope_libdw(cu, pc, out, max);
                        chain[n++] = p;
                }
        for (int i = n - 1; i >= 0; i--, k++)
                if (k < max)
                        out[k] = c->nodes[chain[i]].die;
        if (k < max)
                out[k] = c->nodes[inl].die;
        return k + 1;
}

/* The DIEs pg_scopes_at passes through without addresses of their own. */
static bool pg_scope_nests(int tag)
{
        return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
               tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_module;
}

/* The DIEs pg_scopes_at reports when their ranges contain the address. */
static bool pg_scope_code(int tag)
{
        return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
               tag == DW_TAG_lexical_block;
}

/* pg_scopes_at below @parent, examined at @depth; @local: @parent is code
 * that does not hold @pc, whose local types alone are searched. */
static int pg_scopes_walk(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *v, int max, int depth,
                          bool local)
{
        Dwarf_Die child;

        if (depth > PG_SCOPE_DEPTH || dwarf_child(parent, &child) != 0)
                return 0;
        do {
                int n, tag = dwarf_tag(&child);

                if (pg_scope_nests(tag)) {
                        if ((n = pg_scopes_walk(&child, pc, v, max, depth + 1, false)) > 0)
                                return n;
                } else if (!pg_scope_code(tag)) {
                        continue;
                } else if (!local && dwarf_haspc(&child, pc) > 0) {
                        n = pg_scopes_walk(&child, pc, v, max, depth + 1, false);
                        if (n < max)
                                v[n++] = child;
                        return n;
                } else if (tag != DW_TAG_inlined_subroutine &&
                           (n = pg_scopes_walk(&child, pc, v, max, depth + 1, true)) > 0) {
                        /* g++ defines the member functions of a class local to
                         * a function inside that class, inside the function
                         * (an inlined instance holds no types) */
                        return n;
                }
        } while (dwarf_siblingof(&child, &child) == 0);
        return 0;
}

int pg_scopes_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *v, int max)
{
        return pg_scopes_walk(parent, pc, v, max, 0, false);
}

/* pg_scopes_walk over the index: node indexes into @v. */
static int pg_scopes_nodes(const struct pg_scope_cu *c, uint32_t parent, Dwarf_Addr pc, uint32_t *v,
                           int max, int depth, bool local)
{
        if (depth > PG_SCOPE_DEPTH)
                return 0;
        for (uint32_t i = c->nodes[parent].child; i != PG_NONE; i = c->nodes[i].next) {
                int n;

                if (pg_scope_nests(c->nodes[i].tag)) {
                        if ((n = pg_scopes_nodes(c, i, pc, v, max, depth + 1, false)) > 0)
                                return n;
                } else if (!pg_scope_code(c->nodes[i].tag)) {
                        continue;
                } else if (!local && pg_scope_has(c, i, pc)) {
                        n = pg_scopes_nodes(c, i, pc, v, max, depth + 1, false);
                        if (n < max)
                                v[n++] = i;
                        return n;
                } else if (c->nodes[i].tag != DW_TAG_inlined_subroutine &&
                           (n = pg_scopes_nodes(c, i, pc, v, max, depth + 1, true)) > 0) {
                        return n;
                }
        }
        return 0;
}

static int pg_scope_top_cmp(const void *a, const void *b)
{
        const struct pg_scope_top *x = a, *y = b;

        if (x->lo != y->lo)
                return x->lo < y->lo ? -1 : 1;
        return x->node < y->node ? -1 : x->node > y->node;
}

/* Sort range table @t (@n entries) by lo and set each entry's maxhi. */
static void pg_scope_tops_sort(struct pg_scope_top *t, size_t n)
{
        uint64_t maxhi = 0;

        if (n > 1)
                qsort(t, n, sizeof(*t), pg_scope_top_cmp);
        for (size_t i = 0; i < n; i++) {
                if (t[i].hi > maxhi)
                        maxhi = t[i].hi;
                t[i].maxhi = maxhi;
        }
}

/* The smallest node of sorted table @t whose range holds @pc, or PG_NONE. */
static uint32_t pg_scope_tops_find(const struct pg_scope_top *t, size_t n, uint64_t pc)
{
        size_t lo = 0, hi = n;
        uint32_t best = PG_NONE;

        /* the last entry starting at or below pc, then back while one may still hold it */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (t[mid].lo <= pc)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (size_t i = lo; i-- > 0 && t[i].maxhi > pc;)
                if (t[i].hi > pc && t[i].node < best)
                        best = t[i].node;
        return best;
}

/* The CU-level table of pg_scopes_at's first step (see the invariants above). */
static void pg_scope_tops(struct pg_scope_cu *c)
{
        bool *open = pg_xcalloc(c->n ? c->n : 1, sizeof(*open)); /* its children examined */
        size_t cap = 0;

        for (uint32_t i = 0; i < c->n; i++) {
                const struct pg_scope_node *nd = &c->nodes[i];

                if (nd->parent != PG_NONE && !open[nd->parent])
                        continue;
                /* examined at depth level - 1; its children at depth level:
                 * a nest's, and code's (in it, or in its local types) */
                if ((pg_scope_nests(nd->tag) ||
                     (pg_scope_code(nd->tag) && nd->tag != DW_TAG_inlined_subroutine)) &&
                    nd->level <= PG_SCOPE_DEPTH)
                        open[i] = true;
                /* code is taken where the walk is not inside other code (a
                 * local type's member functions are inside a nest) */
                if (!pg_scope_code(nd->tag) || nd->level > PG_SCOPE_DEPTH + 1 ||
                    (nd->parent != PG_NONE && !pg_scope_nests(c->nodes[nd->parent].tag)))
                        continue;
                for (uint32_t k = 0; k < nd->nr; k++) {
                        if (c->ntops == cap) {
                                cap = cap ? cap * 2 : 64;
                                c->tops = pg_xreallocarray(c->tops, cap, sizeof(*c->tops));
                        }
                        c->tops[c->ntops++] = (struct pg_scope_top){
                                .lo = c->ranges[nd->r0 + k][0],
                                .hi = c->ranges[nd->r0 + k][1],
                                .node = i,
                        };
                }
        }
        free(open);
        pg_scope_tops_sort(c->tops, c->ntops);
        c->tops_built = true;
}

int pg_scopeindex_scopes(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                         int max)
{
        struct pg_scope_cu *c = pg_scope_cu_get(x, cu);
        uint32_t best, v[PG_SCOPE_MAX];
        int n;

        if (!c->built || c->fallback)
                return pg_scopes_at(cu, pc, out, max);
        if (!c->tops_built)
                pg_scope_tops(c);
        /* the first in DIE order, as the walk */
        best = pg_scope_tops_find(c->tops, c->ntops, pc);
        if (best == PG_NONE)
                return 0;
        n = pg_scopes_nodes(c, best, pc, v, max < PG_SCOPE_MAX ? max : PG_SCOPE_MAX,
                            (int) c->nodes[best].level, false);
        if (n < max && n < PG_SCOPE_MAX)
                v[n++] = best;
        for (int i = 0; i < n; i++)
                out[i] = c->nodes[v[i]].die;
        return n;
}

int pg_scopeindex_chain(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                        int max)
{
        Dwarf_Die d[PG_SCOPE_MAX];

        return pg_scopes_keep_inlined(d, pg_scopeindex_scopes(x, cu, pc, d, PG_SCOPE_MAX), out,
                                      max);
}

/* Every CU's ranges of @dw into @x's table, ids in file order. */
static void pg_scope_cutable(struct pg_scopeindex *x, Dwarf *dw)
{
        Dwarf_Off off = 0, next;
        size_t hsize, cap = 0, capcus = 0;
        Dwarf_Die cu;

        while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
                Dwarf_Addr base, lo, hi;
                ptrdiff_t r = 0;

                if (dwarf_offdie(dw, off + hsize, &cu) != NULL) {
                        if (x->ncudies == capcus) {
                                capcus = capcus ? capcus * 2 : 64;
                                x->cudies = pg_xreallocarray(x->cudies, capcus, sizeof(*x->cudies));
                        }
                        x->cudies[x->ncudies] = cu;
                        while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
                                if (x->ncutops == cap) {
                                        cap = cap ? cap * 2 : 64;
                                        x->cutops =
                                            pg_xreallocarray(x->cutops, cap, sizeof(*x->cutops));
                                }
                                x->cutops[x->ncutops++] = (struct pg_scope_top){
                                        .lo = lo, .hi = hi, .node = (uint32_t) x->ncudies
                                };
                        }
                        x->ncudies++;
                }
                off = next;
        }
        pg_scope_tops_sort(x->cutops, x->ncutops);
}

/* The CU holding @addr as pg_scopeindex_cu finds it, before the split unit. */
static Dwarf_Die *pg_scope_cu_find(struct pg_scopeindex *x, Dwfl_Module *mod, Dwarf_Addr addr,
                                   Dwarf_Addr *bias)
{
        Dwarf_Addr own_bias = 0, dwfl_bias = 0;
        Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &dwfl_bias);
        Dwarf *dw;
        uint32_t at;

        /* libdwfl takes the aranges as covering the text without gaps
         * (libdwfl/cu.c addrarange): past a CU's last range it answers that CU */
        if (cu != NULL && dwarf_haspc(cu, addr - dwfl_bias) > 0) {
                *bias = dwfl_bias;
                return cu;
        }
        if ((dw = dwfl_module_getdwarf(mod, &own_bias)) != NULL) {
                if (!x->cutable) {
                        pg_scope_cutable(x, dw);
                        x->cutable = true;
                }
                at = pg_scope_tops_find(x->cutops, x->ncutops, addr - own_bias);
                if (at != PG_NONE) {
                        *bias = own_bias;
                        return &x->cudies[at];
                }
        }
        /* no CU's ranges hold it (a CU without DW_AT_low_pc or DW_AT_ranges):
         * libdwfl's answer, whatever it is */
        *bias = dwfl_bias;
        return cu;
}

/* A skeleton unit and its split unit (pg_scopeindex_cu). */
struct pg_scope_split {
        Dwarf_Die skel, split;
};

/* @cu of @mod, or its split unit when it is a skeleton unit whose split
 * unit libdw finds (pg_scopeindex_cu), looked up once per CU. */
static Dwarf_Die *pg_scope_split(struct pg_scopeindex *x, Dwfl_Module *mod, Dwarf_Die *cu)
{
        uint64_t key = (uint64_t) (uintptr_t) cu->addr;
        uint32_t idx;
        Dwarf_Die split;
        struct pg_buf where = PG_BUF_INIT;
        const char *mainfile = NULL, *debugfile = NULL;

        if (!pg_u64map_get(&x->by_skel, key, &idx)) {
                if (x->nsplits == x->capsplits) {
                        x->capsplits = x->capsplits ? x->capsplits * 2 : 16;
                        x->splits = pg_xreallocarray(x->splits, x->capsplits, sizeof(*x->splits));
                }
                idx = (uint32_t) x->nsplits++;
                x->splits[idx] = NULL;
                pg_u64map_put(&x->by_skel, key, idx);
                /* the file the DWARF was read from: the debug file when
                 * separate */
                dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
                if (pg_dwarf_split_unit(cu, debugfile ? debugfile : mainfile, &split, &where)) {
                        if (split.addr != NULL) {
                                x->splits[idx] = pg_xmalloc(sizeof(*x->splits[idx]));
                                *x->splits[idx] = (struct pg_scope_split){ *cu, split };
                                pg_u64map_put(&x->by_split, (uint64_t) (uintptr_t) split.addr, idx);
                        } else if (x->dwo_missing++ == 0) {
                                x->dwo_first = pg_buf_detach(&where, NULL);
                        }
                }
                pg_buf_release(&where);
        }
        return x->splits[idx] ? &x->splits[idx]->split : cu;
}

bool pg_scopeindex_skeleton(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Die *skel)
{
        uint32_t idx;

        if (x->nsplits == 0 ||
            !pg_u64map_get(&x->by_split, (uint64_t) (uintptr_t) cu->addr, &idx) ||
            x->splits[idx] == NULL)
                return false;
        *skel = x->splits[idx]->skel;
        return true;
}

Dwarf_Die *pg_scopeindex_cu(struct pg_scopeindex *x, Dwfl_Module *mod, Dwarf_Addr addr,
                            Dwarf_Addr *bias)
{
        Dwarf_Die *cu = pg_scope_cu_find(x, mod, addr, bias);

        return cu != NULL ? pg_scope_split(x, mod, cu) : NULL;
}

void pg_scopeindex_release(struct pg_scopeindex *x)
{
        for (size_t i = 0; i < x->ncus; i++) {
                free(x->cus[i].nodes);
                free(x->cus[i].ranges);
                free(x->cus[i].tops);
        }
        free(x->cus);
        free(x->cutops);
        free(x->cudies);
        for (size_t i = 0; i < x->nsplits; i++)
                free(x->splits[i]);
        free(x->splits);
        free(x->dwo_first);
        pg_u64map_release(&x->by_skel);
        pg_u64map_release(&x->by_split);
        pg_u64map_release(&x->by_cu);
        memset(x, 0, sizeof(*x));
}
