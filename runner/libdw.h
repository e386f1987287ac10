/*
 * libdw.h - elfutils' libdw and libelf, loaded when first used, not at
 * start-up. A library linked to the binary is mapped and relocated before
 * main() runs, with its own dependencies (libz, liblzma, libbz2), which
 * `perfgate run --no-profile` would pay before its first benchmark although
 * only symbolization, `annotate` and `doctor` read ELF and DWARF. The
 * runner/ files that use them include this header instead of <libelf.h>,
 * <gelf.h>, <elfutils/libdw.h> and <elfutils/libdwfl.h>: each function they
 * call is a pointer filled in by pg_libdw_init() (dlopen(3) of the sonames
 * the build was compiled against). Types and constants come from the
 * headers as before.
 */
#ifndef PG_RUNNER_LIBDW_H
#define PG_RUNNER_LIBDW_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

/* the sonames of Debian's libdw1 and libelf1 (elfutils) */
#define PG_LIBDW_SONAME  "libdw.so.1"
#define PG_LIBELF_SONAME "libelf.so.1"

/* every libdw function runner/ calls (libdw.so.1) */
#define PG_LIBDW_FUNCS(X)                                                                          \
        X(dwarf_attr)                                                                              \
        X(dwarf_attr_integrate)                                                                    \
        X(dwarf_begin_elf)                                                                         \
        X(dwarf_cfi_addrframe)                                                                     \
        X(dwarf_cfi_end)                                                                           \
        X(dwarf_child)                                                                             \
        X(dwarf_decl_file)                                                                         \
        X(dwarf_diecu)                                                                             \
        X(dwarf_diename)                                                                           \
        X(dwarf_dieoffset)                                                                         \
        X(dwarf_end)                                                                               \
        X(dwarf_entrypc)                                                                           \
        X(dwarf_filesrc)                                                                           \
        X(dwarf_formref_die)                                                                       \
        X(dwarf_formstring)                                                                        \
        X(dwarf_formudata)                                                                         \
        X(dwarf_frame_cfa)                                                                         \
        X(dwarf_frame_register)                                                                    \
        X(dwarf_cu_info)                                                                           \
        X(dwarf_get_units)                                                                         \
        X(dwarf_getcfi_elf)                                                                        \
        X(dwarf_getelf)                                                                            \
        X(dwarf_getscopes)                                                                         \
        X(dwarf_getscopes_die)                                                                     \
        X(dwarf_getsrc_die)                                                                        \
        X(dwarf_getsrcfiles)                                                                       \
        X(dwarf_hasattr)                                                                           \
        X(dwarf_haschildren)                                                                       \
        X(dwarf_haspc)                                                                             \
        X(dwarf_lineno)                                                                            \
        X(dwarf_linesrc)                                                                           \
        X(dwarf_nextcu)                                                                            \
        X(dwarf_offdie)                                                                            \
        X(dwarf_ranges)                                                                            \
        X(dwarf_siblingof)                                                                         \
        X(dwarf_srclang)                                                                           \
        X(dwarf_tag)                                                                               \
        X(dwelf_dwarf_gnu_debugaltlink)                                                            \
        X(dwelf_elf_begin)                                                                         \
        X(dwelf_elf_gnu_build_id)                                                                  \
        X(dwelf_elf_gnu_debuglink)                                                                 \
        X(dwfl_attach_state)                                                                       \
        X(dwfl_begin)                                                                              \
        X(dwfl_build_id_find_debuginfo)                                                            \
        X(dwfl_build_id_find_elf)                                                                  \
        X(dwfl_end)                                                                                \
        X(dwfl_errmsg)                                                                             \
        X(dwfl_frame_pc)                                                                           \
        X(dwfl_getthread_frames)                                                                   \
        X(dwfl_lineinfo)                                                                           \
        X(dwfl_linux_proc_find_elf)                                                                \
        X(dwfl_module_addrdie)                                                                     \
        X(dwfl_module_address_section)                                                             \
        X(dwfl_module_addrinfo)                                                                    \
        X(dwfl_module_addrname)                                                                    \
        X(dwfl_module_addrsym)                                                                     \
        X(dwfl_module_build_id)                                                                    \
        X(dwfl_module_eh_cfi)                                                                      \
        X(dwfl_module_getdwarf)                                                                    \
        X(dwfl_module_getelf)                                                                      \
        X(dwfl_module_getsrc)                                                                      \
        X(dwfl_module_getsym_info)                                                                 \
        X(dwfl_module_getsymtab)                                                                   \
        X(dwfl_module_getsymtab_first_global)                                                      \
        X(dwfl_module_info)                                                                        \
        X(dwfl_report_begin)                                                                       \
        X(dwfl_report_elf)                                                                         \
        X(dwfl_report_end)                                                                         \
        X(dwfl_standard_find_debuginfo)                                                            \
        X(dwfl_thread_state_registers)

/* every libelf function runner/ calls (libelf.so.1) */
#define PG_LIBELF_FUNCS(X)                                                                         \
        X(elf_begin)                                                                               \
        X(elf_compress)                                                                            \
        X(elf_end)                                                                                 \
        X(elf_getdata)                                                                             \
        X(elf_getphdrnum)                                                                          \
        X(elf_getscn)                                                                              \
        X(elf_getshdrnum)                                                                          \
        X(elf_getshdrstrndx)                                                                       \
        X(elf_kind)                                                                                \
        X(elf_ndxscn)                                                                              \
        X(elf_nextscn)                                                                             \
        X(elf_strptr)                                                                              \
        X(elf_version)                                                                             \
        X(gelf_getchdr)                                                                            \
        X(gelf_getehdr)                                                                            \
        X(gelf_getphdr)                                                                            \
        X(gelf_getrel)                                                                             \
        X(gelf_getrela)                                                                            \
        X(gelf_getshdr)                                                                            \
        X(gelf_getsym)                                                                             \
        X(gelf_getsymshndx)

struct pg_libdw {
#define PG_LIBDW_FIELD(n) __typeof__(n) *n;
        PG_LIBDW_FUNCS(PG_LIBDW_FIELD)
        PG_LIBELF_FUNCS(PG_LIBDW_FIELD)
#undef PG_LIBDW_FIELD
};

/* the loaded functions; NULL until pg_libdw_init() succeeded */
extern struct pg_libdw pg_libdw;

/**
 * Load libdw and libelf (first call only; thread-safe) and elf_version()
 * them. Every use of the functions below follows a successful call; later
 * calls are cheap (pthread_once(3)) and give the first call's answer.
 * Errors: PG_EIO when a library cannot be loaded or lacks a function; the
 * message names the file, what needs it and the Debian package to install.
 */
int pg_libdw_init(void);

/* the loader itself (runner/libdw.c) names the real functions */
#ifndef PG_LIBDW_LOADER
#define dwarf_attr                         pg_libdw.dwarf_attr
#define dwarf_attr_integrate               pg_libdw.dwarf_attr_integrate
#define dwarf_begin_elf                    pg_libdw.dwarf_begin_elf
#define dwarf_cfi_addrframe                pg_libdw.dwarf_cfi_addrframe
#define dwarf_cfi_end                      pg_libdw.dwarf_cfi_end
#define dwarf_child                        pg_libdw.dwarf_child
#define dwarf_decl_file                    pg_libdw.dwarf_decl_file
#define dwarf_diecu                        pg_libdw.dwarf_diecu
#define dwarf_diename                      pg_libdw.dwarf_diename
#define dwarf_dieoffset                    pg_libdw.dwarf_dieoffset
#define dwarf_end                          pg_libdw.dwarf_end
#define dwarf_entrypc                      pg_libdw.dwarf_entrypc
#define dwarf_filesrc                      pg_libdw.dwarf_filesrc
#define dwarf_formref_die                  pg_libdw.dwarf_formref_die
#define dwarf_formstring                   pg_libdw.dwarf_formstring
#define dwarf_formudata                    pg_libdw.dwarf_formudata
#define dwarf_frame_cfa                    pg_libdw.dwarf_frame_cfa
#define dwarf_frame_register               pg_libdw.dwarf_frame_register
#define dwarf_cu_info                      pg_libdw.dwarf_cu_info
#define dwarf_get_units                    pg_libdw.dwarf_get_units
#define dwarf_getcfi_elf                   pg_libdw.dwarf_getcfi_elf
#define dwarf_getelf                       pg_libdw.dwarf_getelf
#define dwarf_getscopes                    pg_libdw.dwarf_getscopes
#define dwarf_getscopes_die                pg_libdw.dwarf_getscopes_die
#define dwarf_getsrc_die                   pg_libdw.dwarf_getsrc_die
#define dwarf_getsrcfiles                  pg_libdw.dwarf_getsrcfiles
#define dwarf_hasattr                      pg_libdw.dwarf_hasattr
#define dwarf_haschildren                  pg_libdw.dwarf_haschildren
#define dwarf_haspc                        pg_libdw.dwarf_haspc
#define dwarf_lineno                       pg_libdw.dwarf_lineno
#define dwarf_linesrc                      pg_libdw.dwarf_linesrc
#define dwarf_nextcu                       pg_libdw.dwarf_nextcu
#define dwarf_offdie                       pg_libdw.dwarf_offdie
#define dwarf_ranges                       pg_libdw.dwarf_ranges
#define dwarf_siblingof                    pg_libdw.dwarf_siblingof
#define dwarf_srclang                      pg_libdw.dwarf_srclang
#define dwarf_tag                          pg_libdw.dwarf_tag
#define dwelf_dwarf_gnu_debugaltlink       pg_libdw.dwelf_dwarf_gnu_debugaltlink
#define dwelf_elf_begin                    pg_libdw.dwelf_elf_begin
#define dwelf_elf_gnu_build_id             pg_libdw.dwelf_elf_gnu_build_id
#define dwelf_elf_gnu_debuglink            pg_libdw.dwelf_elf_gnu_debuglink
#define dwfl_attach_state                  pg_libdw.dwfl_attach_state
#define dwfl_begin                         pg_libdw.dwfl_begin
#define dwfl_build_id_find_debuginfo       pg_libdw.dwfl_build_id_find_debuginfo
#define dwfl_build_id_find_elf             pg_libdw.dwfl_build_id_find_elf
#define dwfl_end                           pg_libdw.dwfl_end
#define dwfl_errmsg                        pg_libdw.dwfl_errmsg
#define dwfl_frame_pc                      pg_libdw.dwfl_frame_pc
#define dwfl_getthread_frames              pg_libdw.dwfl_getthread_frames
#define dwfl_lineinfo                      pg_libdw.dwfl_lineinfo
#define dwfl_linux_proc_find_elf           pg_libdw.dwfl_linux_proc_find_elf
#define dwfl_module_addrdie                pg_libdw.dwfl_module_addrdie
#define dwfl_module_address_section        pg_libdw.dwfl_module_address_section
#define dwfl_module_addrinfo               pg_libdw.dwfl_module_addrinfo
#define dwfl_module_addrname               pg_libdw.dwfl_module_addrname
#define dwfl_module_addrsym                pg_libdw.dwfl_module_addrsym
#define dwfl_module_build_id               pg_libdw.dwfl_module_build_id
#define dwfl_module_eh_cfi                 pg_libdw.dwfl_module_eh_cfi
#define dwfl_module_getdwarf               pg_libdw.dwfl_module_getdwarf
#define dwfl_module_getelf                 pg_libdw.dwfl_module_getelf
#define dwfl_module_getsrc                 pg_libdw.dwfl_module_getsrc
#define dwfl_module_getsym_info            pg_libdw.dwfl_module_getsym_info
#define dwfl_module_getsymtab              pg_libdw.dwfl_module_getsymtab
#define dwfl_module_getsymtab_first_global pg_libdw.dwfl_module_getsymtab_first_global
#define dwfl_module_info                   pg_libdw.dwfl_module_info
#define dwfl_report_begin                  pg_libdw.dwfl_report_begin
#define dwfl_report_elf                    pg_libdw.dwfl_report_elf
#define dwfl_report_end                    pg_libdw.dwfl_report_end
#define dwfl_standard_find_debuginfo       pg_libdw.dwfl_standard_find_debuginfo
#define dwfl_thread_state_registers        pg_libdw.dwfl_thread_state_registers
#define elf_begin                          pg_libdw.elf_begin
#define elf_compress                       pg_libdw.elf_compress
#define elf_end                            pg_libdw.elf_end
#define elf_getdata                        pg_libdw.elf_getdata
#define elf_getphdrnum                     pg_libdw.elf_getphdrnum
#define elf_getscn                         pg_libdw.elf_getscn
#define elf_getshdrnum                     pg_libdw.elf_getshdrnum
#define elf_getshdrstrndx                  pg_libdw.elf_getshdrstrndx
#define elf_kind                           pg_libdw.elf_kind
#define elf_ndxscn                         pg_libdw.elf_ndxscn
#define elf_nextscn                        pg_libdw.elf_nextscn
#define elf_strptr                         pg_libdw.elf_strptr
#define elf_version                        pg_libdw.elf_version
#define gelf_getehdr                       pg_libdw.gelf_getehdr
#define gelf_getphdr                       pg_libdw.gelf_getphdr
#define gelf_getrel                        pg_libdw.gelf_getrel
#define gelf_getrela                       pg_libdw.gelf_getrela
#define gelf_getchdr                       pg_libdw.gelf_getchdr
#define gelf_getshdr                       pg_libdw.gelf_getshdr
#define gelf_getsym                        pg_libdw.gelf_getsym
#define gelf_getsymshndx                   pg_libdw.gelf_getsymshndx

#endif

#endif
