/*
 * scopeindex.h - the inlined-function scopes of an address, as
 * dwarf_getscopes(3) (elfutils 0.188 libdw/dwarf_getscopes.c) reports them,
 * from a per-CU index built once instead of a walk over the CU per address.
 *
 * dwarf_getscopes(cu, pc) walks the CU's DIE tree the way
 * libdw/libdw_visit_scopes.c does (descending only into the DIEs that may
 * own scopes: compile units, modules, lexical, with, catch and try blocks,
 * entry points, inlined subroutines, subprograms, namespaces, classes and
 * structures, when they have children). Its first pass follows, level by
 * level, the first child in tree order whose address ranges (dwarf_haspc)
 * contain pc; the scopes are that path from its innermost DIE out to the
 * innermost DW_TAG_inlined_subroutine on it (I). A second search finds the
 * DIE I's DW_AT_abstract_origin names anywhere in that same walk of the CU
 * (a DIE occurs once in it when the CU imports no partial units) and
 * appends that DIE's enclosing scopes out to the CU. Without an inlined
 * subroutine on the path the scopes end at the CU; when the origin is not
 * in the walk (another CU) the call returns 0 and no scopes.
 *
 * The index records that walk once per CU: every DIE it visits (and the
 * children of unions, for the second rule below; the origin search ignores
 * them as libdw does), in tree order, with its parent, first child, next
 * sibling, tag and address ranges. The first pass is then a loop over in-memory ranges and the
 * origin a hash lookup. A CU whose walk meets something the index does not
 * model (an imported unit, any libdw error while reading DIEs or ranges) is
 * marked, and its addresses are answered by dwarf_getscopes itself.
 *
 * The same index answers a second rule, the one addr2line -i (binutils),
 * perf's inline frames and DWARF 5 section 3.3.8 describe: the chain of
 * every DW_TAG_inlined_subroutine whose ranges contain pc, found through
 * the namespaces, classes, structures, unions and modules that nest
 * subprograms (rustc puts every function in a DW_TAG_namespace; g++ defines
 * the member functions of a local type inside it, inside its function) and
 * through lexical blocks (pg_scopes_at, pg_scopeindex_chain).
 */
#ifndef PG_RUNNER_SCOPEINDEX_H
#define PG_RUNNER_SCOPEINDEX_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hashmap.h"

struct pg_scope_cu;    /* runner/scopeindex.c */
struct pg_scope_top;   /* runner/scopeindex.c */
struct pg_scope_split; /* runner/scopeindex.c */

/** The CUs of one module indexed so far; zero-initialised is empty. */
struct pg_scopeindex {
        struct pg_u64map by_cu; /* CU DIE address -> index into cus */
        struct pg_scope_cu *cus;
        size_t ncus, capcus;
        /* pg_scopeindex_cu: every CU's ranges (cutops, sorted), once built */
        bool cutable;
        struct pg_scope_top *cutops;
        size_t ncutops;
        Dwarf_Die *cudies; /* the CUs in file order: cutops' ids */
        size_t ncudies;
        /* pg_scopeindex_cu: skeleton units (split DWARF) and their split units */
        struct pg_u64map by_skel;       /* CU DIE address -> index into splits */
        struct pg_u64map by_split;      /* split unit DIE address -> index into splits */
        struct pg_scope_split **splits; /* each malloc'd; NULL: answer the CU itself */
        size_t nsplits, capsplits;
        size_t dwo_missing; /* skeleton units looked up whose split unit libdw did not find */
        char *dwo_first;    /* the first of those: its .dwo's path */
};

/**
 * The CU DIE holding link-time address @addr of @mod (a module of one
 * file, @x its index): the one CU lookup of every DWARF answer perfgate
 * gives about an address (inlined frames, source lines, the call site of
 * "grew most at", annotate), so that one address has one CU everywhere.
 * The CU dwfl_module_addrdie(@mod, @addr, @bias) finds through
 * .debug_aranges when its ranges (dwarf_haspc) hold the address; else (the
 * Go linker, clang and lld write no .debug_aranges; a cgo binary has them
 * for its C objects alone, and libdwfl then answers the C CU before a gap)
 * the first CU in the file whose DW_AT_low_pc/high_pc or DW_AT_ranges hold
 * it, from a table of every CU's ranges built at the first such lookup;
 * else (no CU's ranges hold it) libdwfl's answer, which may be NULL. When
 * that CU is a skeleton unit (-gsplit-dwarf), the answer is its split unit
 * from the .dwo file (pg_dwarf_split_unit), whose DIEs hold the functions
 * and inlined subroutines and whose line lookups libdw answers from the
 * skeleton's line table; when libdw finds no split unit, the skeleton
 * itself (source lines, no inlined frames), counted in @x->dwo_missing
 * (the first one's .dwo path in @x->dwo_first). The DIE is valid while
 * @mod's Dwarf and @x are; *@bias (@addr - *@bias is the DWARF address) as
 * dwfl_module_addrdie sets it.
 */
Dwarf_Die *pg_scopeindex_cu(struct pg_scopeindex *x, Dwfl_Module *mod, Dwarf_Addr addr,
                            Dwarf_Addr *bias);

/**
 * The skeleton unit of @cu into *@skel when @cu is a split unit that
 * pg_scopeindex_cu(@x, ...) answered (libdw 0.188's dwarf_cu_info does not
 * give a split unit's skeleton): true then, else false. The skeleton's
 * DW_AT_comp_dir and line table (its file names too) serve the split unit.
 */
bool pg_scopeindex_skeleton(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Die *skel);

/**
 * The DW_TAG_inlined_subroutine DIEs among dwarf_getscopes(@cu, @pc)'s
 * scopes (@pc in the CU's own address space, as dwarf_getscopes takes it),
 * outermost first, into @out (at most @max; more are not stored but still
 * counted). Returns how many there are: 0 when dwarf_getscopes would give
 * none, fail, or return 0. The CU is indexed at its second lookup (the
 * first asks dwarf_getscopes: a CU with one sampled address is not worth a
 * whole walk). The DIEs stored point into the module's DWARF data, valid
 * while its Dwarf is.
 */
int pg_scopeindex_inlined(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                          int max);

/**
 * The scopes holding DWARF address @pc (in @parent's CU's address space)
 * below @parent, innermost first, into @v (at most @max; the count is
 * returned, 0 when none): the first subprogram, inlined subroutine or
 * lexical block in DIE order whose ranges (dwarf_haspc) contain @pc, found
 * through DW_TAG_namespace, DW_TAG_class_type, DW_TAG_structure_type,
 * DW_TAG_union_type and DW_TAG_module DIEs (which have no addresses), and
 * through those types when they are local to code that does not hold @pc
 * (g++ defines the member functions of a class, structure or union local
 * to a function inside that type, inside the function's DIE), then the
 * same inside it, level by level, to the innermost; 64 levels at most.
 * Walks the DIEs with libdw on every call. The DIEs point into @parent's
 * DWARF data.
 */
int pg_scopes_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *v, int max);

/**
 * The DW_TAG_inlined_subroutine DIEs among scopes @v[0 .. @n) (innermost
 * first, as dwarf_getscopes and pg_scopes_at give them; @n < 0 is none),
 * outermost first, into @out: at most @max stored, all counted, the count
 * returned.
 */
int pg_scopes_keep_inlined(Dwarf_Die *v, int n, Dwarf_Die *out, int max);

/**
 * pg_scopes_at(@cu, @pc, @out, @max) (the scopes holding @pc, innermost
 * first, their count returned), from the CU's index: the first lookup in a
 * CU walks it with libdw (pg_scopes_at); later ones use the index, built as
 * for pg_scopeindex_inlined (a CU it cannot model stays with
 * pg_scopes_at). The DIEs point into the module's DWARF data.
 */
int pg_scopeindex_scopes(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                         int max);

/**
 * The DW_TAG_inlined_subroutine DIEs among pg_scopes_at(@cu, @pc)'s scopes,
 * outermost first, into @out (at most @max stored; all counted): the full
 * chain of functions inlined at @pc, whatever namespaces or lexical blocks
 * nest them, as addr2line -i lists them (innermost first there). Returns
 * the count, 0 when none. The first lookup in a CU walks it with libdw
 * (pg_scopes_at); later ones use the index, built as for
 * pg_scopeindex_inlined (a CU it cannot model stays with pg_scopes_at).
 */
int pg_scopeindex_chain(struct pg_scopeindex *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out,
                        int max);

/** Free @x's memory and leave it empty. */
void pg_scopeindex_release(struct pg_scopeindex *x);

#endif
