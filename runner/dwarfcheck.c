/*
 * dwarfcheck.c - DWARF a file points to that libdw may not read (see
 * dwarfcheck.h).
 */
#include "runner/dwarfcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What @mode is when it is not a regular file, for "'PATH' is ..." */
static const char *pg_not_regular(mode_t mode)
{
        if (S_ISFIFO(mode))
                return "a FIFO";
        if (S_ISDIR(mode))
                return "a directory";
        if (S_ISCHR(mode))
                return "a character device";
        if (S_ISBLK(mode))
                return "a block device";
        if (S_ISSOCK(mode))
                return "a socket";
        return "of another kind";
}

/* If @path exists and is not a regular file (symbolic links followed):
 * into @why "'PATH' is a FIFO, not a regular file ..."; true then. */
static bool pg_dwo_refused(const char *path, struct pg_buf *why)
{
        struct stat st;

        if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
                return false;
        pg_buf_printf(why, "'%s' is %s, not a regular file, so perfgate did not open it", path,
                      pg_not_regular(st.st_mode));
        return true;
}

/* libdw's __libdw_filepath(): @file if absolute, else @dir/@file if @dir is
 * absolute, else @debugdir[/@dir]/@file; false when none of these applies. */
static bool pg_dwo_join(struct pg_buf *out, const char *debugdir, const char *dir, const char *file)
{
        pg_buf_reset(out);
        if (file[0] == '/')
                pg_buf_puts(out, file);
        else if (dir != NULL && dir[0] == '/')
                pg_buf_printf(out, "%s/%s", dir, file);
        else if (debugdir == NULL)
                return false;
        else if (dir != NULL)
                pg_buf_printf(out, "%s/%s/%s", debugdir, dir, file);
        else
                pg_buf_printf(out, "%s/%s", debugdir, file);
        return true;
}

/* Whether a path libdw would open for a skeleton unit naming @dir (its
 * DW_AT_comp_dir) and @name (its DW_AT_dwo_name), of a file read from
 * @elfpath (NULL: not known) exists and is not a regular file; @why then
 * says which and what it is. The paths are those of
 * libdw/libdw_find_split_unit.c (elfutils 0.188 to 0.192): ELFPATH.dwp
 * (0.191 on), then DIR/DWO_NAME and DIR/COMP_DIR/DWO_NAME with DIR the
 * directory of the file libdw read (its debugdir, which libdw takes from
 * /proc/self/fd, a real path: the name as given is checked too). */
static bool pg_dwo_any_refused(const char *elfpath, const char *name, const char *dir,
                               struct pg_buf *why)
{
        struct pg_buf p = PG_BUF_INIT;
        char *real = elfpath != NULL ? realpath(elfpath, NULL) : NULL;
        const char *elfs[2] = { elfpath, real };
        bool refused = false;

        for (size_t i = 0; i < 2 && !refused; i++) {
                const char *slash;
                char *debugdir = NULL;

                if (elfs[i] == NULL)
                        continue;
                pg_buf_reset(&p);
                pg_buf_printf(&p, "%s.dwp", elfs[i]);
                refused = pg_dwo_refused(p.ptr, why);
                if ((slash = strrchr(elfs[i], '/')) != NULL)
                        debugdir = pg_xstrndup(elfs[i], (size_t) (slash - elfs[i]));
                if (!refused && name != NULL && pg_dwo_join(&p, debugdir, NULL, name))
                        refused = pg_dwo_refused(p.ptr, why);
                if (!refused && name != NULL && dir != NULL && pg_dwo_join(&p, debugdir, dir, name))
                        refused = pg_dwo_refused(p.ptr, why);
                free(debugdir);
        }
        /* no file known: the paths that do not depend on it */
        if (!refused && name != NULL && pg_dwo_join(&p, NULL, dir, name))
                refused = pg_dwo_refused(p.ptr, why);
        free(real);
        pg_buf_release(&p);
        return refused;
}

bool pg_dwarf_split_unit(Dwarf_Die *cu, const char *elfpath, Dwarf_Die *split, struct pg_buf *where)
{
        Dwarf_Die sub;
        Dwarf_Attribute a;
        uint8_t type = 0;
        const char *dir, *name;
        struct pg_buf why = PG_BUF_INIT;

        /* the unit type alone first: asking for the subdie makes libdw open
         * the .dwo (with a blocking open(2), which no signal ends on a FIFO) */
        if (cu == NULL || cu->cu == NULL ||
            dwarf_cu_info(cu->cu, NULL, &type, NULL, NULL, NULL, NULL, NULL) != 0 ||
            type != DW_UT_skeleton)
                return false;
        name = dwarf_formstring(dwarf_attr(cu, DW_AT_dwo_name, &a));
        if (name == NULL)
                name = dwarf_formstring(dwarf_attr(cu, DW_AT_GNU_dwo_name, &a));
        dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
        if (!pg_dwo_any_refused(elfpath, name, dir, &why) &&
            dwarf_cu_info(cu->cu, NULL, NULL, NULL, &sub, NULL, NULL, NULL) == 0 &&
            sub.addr != NULL && dwarf_tag(&sub) == DW_TAG_compile_unit) {
                *split = sub;
                return true;
        }
        memset(split, 0, sizeof(*split));
        if (where == NULL)
                ;
        else if (why.len > 0)
                pg_buf_puts(where, why.ptr);
        else if (name == NULL)
                pg_buf_puts(where, "(a .dwo file the skeleton unit does not name) was not found");
        else if (name[0] == '/' || dir == NULL)
                pg_buf_printf(where, "'%s' was not found or belongs to another build", name);
        else
                pg_buf_printf(where, "'%s/%s' was not found or belongs to another build", dir,
                              name);
        pg_buf_release(&why);
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
