/*
 * dwarfcheck.c - DWARF a file points to that libdw may not read (see
 * dwarfcheck.h).
 */
#include "runner/dwarfcheck.h"

#include <stdio.h>
#include <string.h>

bool pg_dwarf_split_unit(Dwarf_Die *cu, Dwarf_Die *split, struct pg_buf *where)
{
        Dwarf_Die sub;
        Dwarf_Attribute a;
        uint8_t type = 0;
        const char *dir, *name;

        if (cu == NULL || cu->cu == NULL ||
            dwarf_cu_info(cu->cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) != 0 ||
            type != DW_UT_skeleton)
                return false;
        if (sub.addr != NULL && dwarf_tag(&sub) == DW_TAG_compile_unit) {
                *split = sub;
                return true;
        }
        memset(split, 0, sizeof(*split));
        if (where == NULL)
                return true;
        name = dwarf_formstring(dwarf_attr(cu, DW_AT_dwo_name, &a));
        if (name == NULL)
                name = dwarf_formstring(dwarf_attr(cu, DW_AT_GNU_dwo_name, &a));
        dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
        if (name == NULL)
                pg_buf_puts(where, "(a .dwo file the skeleton unit does not name)");
        else if (name[0] == '/' || dir == NULL)
                pg_buf_puts(where, name);
        else
                pg_buf_printf(where, "%s/%s", dir, name);
        return true;
}

const char *pg_dwarf_decl_file(Dwarf_Die *die, Dwarf_Die *files_cu)
{
        Dwarf_Attribute a;
        Dwarf_Word idx;
        Dwarf_Files *files;
        size_t n;

        if (files_cu == NULL)
                return dwarf_decl_file(die);
        if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &a), &idx) != 0 ||
            dwarf_getsrcfiles(files_cu, &files, &n) != 0 || idx >= n)
                return NULL;
        return dwarf_filesrc(files, idx, NULL, NULL);
}

uint32_t pg_elf_debug_compression(Elf *e)
{
        Elf_Scn *scn = NULL;
        size_t shstrndx;

        if (e == NULL || elf_getshdrstrndx(e, &shstrndx) < 0)
                return 0;
        while ((scn = elf_nextscn(e, scn)) != NULL) {
                GElf_Shdr sh;
                GElf_Chdr ch;
                const char *sn;

                if (gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_COMPRESSED) ||
                    (sn = elf_strptr(e, shstrndx, sh.sh_name)) == NULL ||
                    strncmp(sn, ".debug_", 7) != 0 || gelf_getchdr(scn, &ch) == NULL)
                        continue;
                if (ch.ch_type != ELFCOMPRESS_ZLIB)
                        return ch.ch_type;
        }
        return 0;
}

const char *pg_elf_compression_name(uint32_t type, char *buf, size_t size)
{
        if (type == PG_ELFCOMPRESS_ZSTD)
                return "zstd";
        snprintf(buf, size, "type %u", (unsigned) type);
        return buf;
}
