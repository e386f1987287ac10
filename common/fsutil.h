/*
 * fsutil.h - reading whole files, writing files atomically, directories.
 *
 * Every file perfgate writes goes through pg_write_file_atomic(): a temporary
 * file in the target's directory, fsync, then rename(2), so a reader (or a
 * kill -9 at any moment) sees the old file, the new file, or none, never a
 * partial one.
 */
#ifndef PG_COMMON_FSUTIL_H
#define PG_COMMON_FSUTIL_H

#include <stddef.h>

#include "common/buf.h"

/**
 * Read the whole file at @path (or stdin when @path is "-") into @out.
 * @out is appended to; it is NUL-terminated.
 * Errors: PG_ENOTFOUND (no such file), PG_EIO (other read errors).
 */
int pg_read_file(const char *path, struct pg_buf *out);

/**
 * Write @len bytes of @data to @path atomically (temp file in the same
 * directory, fsync, rename). The file gets mode 0666 less the umask.
 * A symlink is followed (its target is replaced, not the link); a target
 * that exists and is not a regular file (a device such as /dev/stdout, a
 * FIFO) is written in place, never replaced. Errors: PG_EIO with the path
 * and strerror(errno) (also for a directory).
 */
int pg_write_file_atomic(const char *path, const void *data, size_t len);

/**
 * Create directory @path and its missing parents (mode 0755).
 * Errors: PG_EIO with the path and strerror(errno).
 */
int pg_mkdir_p(const char *path);

/** Non-zero when @path names an existing directory. */
int pg_is_dir(const char *path);

/** Last path component of @path (borrowed pointer into @path). */
const char *pg_basename(const char *path);

/** @dir "/" @name as a new string (free() it). */
char *pg_path_join(const char *dir, const char *name);

#endif
