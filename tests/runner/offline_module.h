/*
 * offline_module.h - helpers shared by the index tests (test_symbol_index,
 * test_scope_index): one ELF file opened as the only module of an offline
 * libdwfl session (its separate debug file found by build-id or debuglink),
 * and an even stride of addresses over its executable segments.
 */
#ifndef PG_TESTS_RUNNER_OFFLINE_MODULE_H
#define PG_TESTS_RUNNER_OFFLINE_MODULE_H

#include <stdint.h>
#include <unistd.h>

#include "runner/libdw.h"

static char *pg_offline_debuginfo_path = NULL;

/* @path as the one module of a new offline Dwfl, stored in *@dwfl (the
 * caller dwfl_end()s it); NULL, and no Dwfl, when libdw cannot be loaded
 * (pg_libdw_init(): the indexes call it through its pointers) or @path
 * cannot be read or reported. */
static inline Dwfl_Module *pg_offline_module(const char *path, Dwfl **dwfl)
{
        static Dwfl_Callbacks cb;
        Dwfl_Module *mod;

        *dwfl = NULL;
        if (pg_libdw_init() < 0)
                return NULL;
        cb.find_elf = dwfl_build_id_find_elf;
        cb.find_debuginfo = dwfl_standard_find_debuginfo;
        cb.section_address = dwfl_offline_section_address;
        cb.debuginfo_path = &pg_offline_debuginfo_path;
        if (access(path, R_OK) != 0 || (*dwfl = dwfl_begin(&cb)) == NULL)
                return NULL;
        dwfl_report_begin(*dwfl);
        mod = dwfl_report_elf(*dwfl, "m", path, -1, 0, true);
        dwfl_report_end(*dwfl, NULL, NULL);
        if (mod == NULL) {
                dwfl_end(*dwfl);
                *dwfl = NULL;
        }
        return mod;
}

/* @fn(@arg, address) for about @steps addresses evenly spread over each
 * executable segment of @mod (addresses as the module is loaded); returns
 * how many. */
static inline size_t pg_exec_stride(Dwfl_Module *mod, uint64_t steps,
                                    void (*fn)(void *arg, uint64_t addr), void *arg)
{
        Dwarf_Addr bias;
        Elf *elf = dwfl_module_getelf(mod, &bias);
        size_t nph = 0, n = 0;

        if (elf == NULL || elf_getphdrnum(elf, &nph) != 0)
                return 0;
        for (size_t k = 0; k < nph; k++) {
                GElf_Phdr ph;

                if (gelf_getphdr(elf, (int) k, &ph) == NULL || ph.p_type != PT_LOAD ||
                    !(ph.p_flags & PF_X))
                        continue;
                for (uint64_t a = 0; a < ph.p_memsz; a += ph.p_memsz / steps + 1, n++)
                        fn(arg, ph.p_vaddr + bias + a);
        }
        return n;
}

#endif
