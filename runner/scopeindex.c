/*
 * scopeindex.c - see scopeindex.h. Invariants of an indexed CU: nodes are
 * in the walk's order (preorder, children in DIE order); node i's subtree is
 * nodes [i, end); child and next are node indexes or PG_NONE; ranges of
 * node i are ranges[r0 .. r0 + nr), each [lo, hi) as dwarf_ranges gives it;
 * the nodes' DIE addresses strictly increase (a CU's DIEs are stored in
 * preorder, DWARF 5 section 2.3), so a DIE's node is found by binary search.
 */
#include "runner/scopeindex.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runner/libdw.h"

#define PG_NONE UINT32_MAX

struct pg_scope_node {
        Dwarf_Die die;
        uint32_t parent, child, next;
        uint32_t r0, nr;
        int tag;
};

struct pg_scope_cu {
        int lookups; /* before the index is built */
        bool built, fallback;
        struct pg_scope_node *nodes;
        size_t n, cap;
        uint64_t (*ranges)[2];
        size_t nranges, capranges;
        uint32_t first; /* the CU's first child */
};

/* Whether the walk descends into a DIE of @tag (libdw_visit_scopes.c may_have_scopes). */
static bool pg_may_have_scopes(int tag)
{
        switch (tag) {
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

/* dwarf_getscopes itself, its inlined subroutines kept (see pg_scopeindex_inlined). */
static int pg_scope_libdw(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
        Dwarf_Die *scopes = NULL;
        int n = dwarf_getscopes(cu, pc, &scopes), k = 0;

        for (int i = n - 1; i >= 0; i--)
                if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
                        if (k < max)
                                out[k] = scopes[i];
                        k++;
                }
        free(scopes);
        return k;
}

int pg_scopeindex_inlined(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                          int max)
{
        uint64_t key = (uint64_t) (uintptr_t) cu->addr;
        struct pg_scope_cu *c;
        uint32_t idx, node = PG_NONE, inl = PG_NONE, o, chain[256];
        Dwarf_Attribute attr;
        Dwarf_Die origin;
        int n = 0, k = 0;

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

void pg_scopeindex_release(struct pg_scopeindex *x)
{
        for (size_t i = 0; i < x->ncus; i++) {
                free(x->cus[i].nodes);
                free(x->cus[i].ranges);
        }
        free(x->cus);
        pg_u64map_release(&x->by_cu);
        memset(x, 0, sizeof(*x));
}
