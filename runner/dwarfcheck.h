/*
 * dwarfcheck.h - DWARF that a file points to but libdw may not read, so
 * that perfgate says what is lost instead of showing frames without their
 * inlined functions and source lines: split DWARF (-gsplit-dwarf) whose
 * .dwo files are not where the skeleton units name them, and debug
 * sections compressed with an algorithm the installed libelf cannot
 * decompress (zstd before elfutils 0.189). Used by the symbolizer (a
 * warning of `record` and `run`) and by `perfgate doctor BIN`.
 */
#ifndef PG_RUNNER_DWARFCHECK_H
#define PG_RUNNER_DWARFCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "runner/libdw.h"

/** ch_type of a section compressed with zstd (gABI, "Section Compression";
 * not in glibc 2.36's <elf.h>). */
#define PG_ELFCOMPRESS_ZSTD 2

/**
 * Whether compile unit @cu (as dwarf_get_units or dwfl_module_addrdie give
 * it) is a skeleton unit, the part of a -gsplit-dwarf unit kept in the
 * linked file (DWARF 5 section 3.1.2; GCC's DWARF 4 form with
 * DW_AT_GNU_dwo_name too), whose DIEs below the unit (functions, inlined
 * subroutines) are in a .dwo file. When it is, *@split is the split unit's
 * DIE that libdw found (the .dwo named by DW_AT_comp_dir and DW_AT_dwo_name,
 * libdw/libdw_find_split_unit.c), or has a NULL addr when it found none (a
 * .dwo missing or of another build; a .dwp package, which libdw reads only
 * from elfutils 0.191 on) or when perfgate did not let it look: a path
 * libdw would open (@elfpath.dwp, the .dwo beside @elfpath, the .dwo in
 * DW_AT_comp_dir) exists and is not a regular file (a FIFO would block
 * libdw's open(2) forever, out of reach of signals; a device may never
 * end). @elfpath is the file @cu was read from (the debug file when
 * separate; NULL: not known, only absolute paths are checked). @where (if
 * not NULL) then gets what happened, for a message: "'PATH' was not found
 * or belongs to another build" or "'PATH' is a FIFO, not a regular file,
 * so perfgate did not open it". false (and *@split untouched): not a skeleton unit.
 */
bool pg_dwarf_split_unit(Dwarf_Die *cu, const char *elfpath, Dwarf_Die *split,
                         struct pg_buf *where);

/**
 * dwarf_decl_file(@die) (the file DW_AT_decl_file names, borrowed from
 * libdw; NULL when none), or with @files_cu not NULL the file that
 * attribute names in @files_cu's line table: a DIE of a split unit takes
 * its skeleton's (GCC and clang number DW_AT_decl_file and DW_AT_call_file
 * there as the skeleton's line table does; GCC's .debug_line.dwo repeats
 * that list), because libdw 0.188 answers dwarf_getsrcfiles on GCC's
 * split units with success and no table, and dwarf_decl_file then aborts
 * on an assertion (libdw/dwarf_decl_file.c).
 */
const char *pg_dwarf_decl_file(Dwarf_Die *die, Dwarf_Die *files_cu);

/**
 * The compression type (ch_type, gABI Elf64_Chdr) of the first
 * SHF_COMPRESSED section of @e named .debug_* whose type is not
 * ELFCOMPRESS_ZLIB, e.g. PG_ELFCOMPRESS_ZSTD (`-gz=zstd`, `ld
 * --compress-debug-sections=zstd`); 0 when there is none. Whether libelf
 * can decompress it is for the caller to find out (dwarf_begin_elf fails
 * when it cannot).
 */
uint32_t pg_elf_debug_compression(Elf *e);

/** "zstd" for PG_ELFCOMPRESS_ZSTD, else "type N" into a static buffer of
 * the caller's: @buf of @size bytes. */
const char *pg_elf_compression_name(uint32_t type, char *buf, size_t size);

#endif
