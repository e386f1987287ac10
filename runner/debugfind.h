/*
 * debugfind.h - finding a module's separate debug file among this machine's
 * files only: the search elfutils' dwfl_standard_find_debuginfo() makes
 * (libdwfl/find-debuginfo.c; the debuginfo_path rules are libdwfl.h's, at
 * Dwfl_Callbacks) without its last step, the debuginfod client. That step
 * dlopen()s libdebuginfod, and with it libcurl, GnuTLS, Kerberos and about
 * 30 more libraries whose constructors run (curl_global_init), in every
 * process that meets one module without a local debug file, even with
 * DEBUGINFOD_URLS unset (the client then answers ENOSYS): several ms of CPU
 * for nothing. perfgate's profiles never ask a debuginfod server
 * (docs/bare-metal.md).
 */
#ifndef PG_RUNNER_DEBUGFIND_H
#define PG_RUNNER_DEBUGFIND_H

#include <elfutils/libdwfl.h>

/**
 * The debug file of @mod, searched for as dwfl_standard_find_debuginfo()
 * of elfutils 0.188 does, in the same order, with the same checks:
 *  1. by build-id, as dwfl_build_id_find_debuginfo() does:
 *     DIR/.build-id/xx/rest.debug for each absolute DIR of the path, the
 *     file's build-id checked;
 *  2. by name along @path (a Dwfl_Callbacks.debuginfo_path string, ':'
 *     separated; NULL: libdwfl's default ":.debug:/usr/lib/debug"): an empty
 *     entry is @file_name's directory, a relative one that directory's
 *     subdirectory, an absolute one DIR/ followed by @file_name's directory,
 *     then by its tail after each '/' in turn, then DIR itself; the name looked
 *     for is @debuglink_file (.gnu_debuglink), else BASENAME.debug, and also
 *     BASENAME itself where libdwfl tries it. A candidate is taken when it is
 *     not @mod's own file by another name and has @mod's build-id (a module
 *     with one), else the CRC-32 @debuglink_crc of .gnu_debuglink (unless
 *     @debuglink_crc is 0 or the entry, or the whole path, begins with '-').
 *     A CRC of 0 is libdwfl's "none to check" (find-debuginfo.c, cancheck),
 *     kept so that both searches find the same file (test_debugfind
 *     compares them); docs/bare-metal.md says so;
 *  3. the same again for the target of @file_name when it is a symlink.
 * Also serves the lookup libdwfl makes, once the module's DWARF is open, for
 * a DWZ alternate file (.gnu_debugaltlink, checked by its build-id; the
 * .dwz subdirectory too).
 *
 * Unlike libdwfl, every candidate is opened without blocking and read only
 * when it is a regular file starting with the ELF magic: a FIFO, a device or
 * a file of zeros planted at a name looked for (the benchmark's
 * .gnu_debuglink, its build-id under a debug directory) counts as no file.
 *
 * Returns an open file descriptor (O_RDONLY, the caller's) and sets
 * *@debuginfo_file_name to its malloc'd name, or returns -1 with
 * *@debuginfo_file_name untouched (errno 0: nothing found; otherwise why a
 * candidate could not be opened).
 */
int pg_debugfind(Dwfl_Module *mod, const char *path, const char *file_name,
                 const char *debuglink_file, GElf_Word debuglink_crc, char **debuginfo_file_name);

/**
 * The debug file of @mod from the debuginfod servers DEBUGINFOD_URLS names
 * (debuginfod_find_debuginfo(3)), asked by build-id only: the last step of
 * dwfl_standard_find_debuginfo(), for a caller whose pg_debugfind() found
 * nothing locally. The build-id is @mod's, or, once its DWARF is open, the
 * .gnu_debugaltlink's (the DWZ alternate file). libdebuginfod.so.1 is loaded
 * on the first call (dlopen(3)), as libdwfl loads it.
 *
 * Returns an open file descriptor (the caller's) and sets
 * *@debuginfo_file_name to its malloc'd name (in the client's cache), or
 * returns -1 with errno 0: no build-id, no client library, or no server
 * that has the file (the client's own messages go to stderr when
 * DEBUGINFOD_VERBOSE is set).
 */
int pg_debugfind_debuginfod(Dwfl_Module *mod, char **debuginfo_file_name);

/**
 * pg_debugfind() as a Dwfl_Callbacks.find_debuginfo (arguments and result as
 * libdwfl.h documents them). The path is the module's user data (a
 * `const char *`, set with dwfl_module_info() when the module is reported),
 * which must be the Dwfl's *debuginfo_path; NULL: libdwfl's default.
 */
int pg_debugfind_callback(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif
