/*
 * debugcache.h - a per-user cache of separate debug files with their
 * compressed sections (SHF_COMPRESSED, gcc/objcopy --compress-debug-sections,
 * as Debian ships glibc's) stored uncompressed, keyed by build-id, so that
 * libdw does not inflate tens of MB of DWARF in every perfgate process (as
 * perf keeps ~/.debug, tools/perf/util/build-id.c). Files live in
 * $XDG_CACHE_HOME/perfgate/debuginfo (default ~/.cache/perfgate/debuginfo),
 * a directory of the user's own with mode 0700, as BUILDID.debug: the debug
 * file's bytes, then the sections libdw inflated, stored inflated, then a
 * new section header table. Each is written to a temporary file and
 * renamed, and is used only when it is a regular file of the user's (not a
 * symlink) that others cannot write, and an ELF file with the build-id asked
 * for; anything else is removed (and written again after the next load).
 * The directory is kept under 512 MiB by removing the files used least
 * recently. PERFGATE_DEBUGINFO_CACHE=0 turns it off.
 */
#ifndef PG_RUNNER_DEBUGCACHE_H
#define PG_RUNNER_DEBUGCACHE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>

/** The cache's size limit in bytes. */
#define PG_DEBUGCACHE_MAX_BYTES (512ULL << 20)

/**
 * A Dwfl_Callbacks.find_debuginfo: the cached copy of the module's debug
 * file (by its build-id) when there is a usable one, else
 * pg_debugfind_callback() (runner/debugfind.h: libdwfl's own search of this
 * machine's files, the module's user data its debuginfo_path). Arguments
 * and result as libdwfl.h documents them: a file descriptor (libdwfl's) or
 * -1, and *@debuginfo_file_name, a malloc'd path.
 */
int pg_debugcache_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                                 GElf_Word debuglink_crc, char **debuginfo_file_name);

/**
 * Once libdw has read @mod's DWARF from a separate debug file with
 * compressed sections (not from the cache), store the copy with those
 * sections as libdw inflated them, so that the next process does not
 * inflate them again. Does nothing when the cache is off, the module has no
 * build-id, or nothing was compressed; failures leave no file behind.
 */
void pg_debugcache_save(Dwfl_Module *mod);

/**
 * perfgate's per-user cache directory, $XDG_CACHE_HOME/perfgate (default
 * ~/.cache/perfgate), or its subdirectory @sub (NULL: the directory itself),
 * into @out (@size bytes), created (mode 0700) when missing. False when the
 * environment variable @off_env is "0", there is no absolute
 * $XDG_CACHE_HOME or $HOME, or a directory on the way is not the user's own
 * (a symlink, another owner, writable by others).
 */
bool pg_cache_dir(const char *sub, const char *off_env, char *out, size_t size);

/**
 * The debug-file cache directory into @out (@size bytes), created when missing;
 * false when the cache is off (PERFGATE_DEBUGINFO_CACHE=0, no home), or the
 * directory is not the user's own (a symlink, another owner, writable by
 * others).
 */
bool pg_debugcache_dir(char *out, size_t size);

#endif
