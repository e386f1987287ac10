/*
 * fsutil.h - reading whole files, writing files atomically, directories.
 *
 * Every file perfgate writes goes through pg_write_file_atomic() (a path
 * the user named) or pg_write_file_own() (a file perfgate names itself in
 * an output directory): a temporary file in the target's directory, fsync,
 * then rename(2), so a reader (or a kill -9 at any moment) sees the old
 * file, the new file, or none, never a partial one. The temporary is made
 * with O_CREAT|O_EXCL and rename(2) replaces a directory entry, not what a
 * link there points to, so no write goes through a link perfgate did not
 * create. Output directories are checked with pg_dir_check_owner().
 */
#ifndef PG_COMMON_FSUTIL_H
#define PG_COMMON_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/**
 * Read the whole file at @path (or stdin when @path is "-") into @out.
 * @out is appended to; it is NUL-terminated.
 * Errors: PG_ENOTFOUND (no such file), PG_EIO (other read errors).
 */
int pg_read_file(const char *path, struct pg_buf *out);

/** The most pg_read_input() reads through a pipe, a FIFO or stdin that is one. */
#define PG_INPUT_STREAM_MAX_BYTES (256u << 20)

/**
 * Append the input file @path (stdin when "-") to @out (NUL-terminated),
 * by the one rule for the files perfgate reads (results, folded stacks,
 * perfgate.json; docs/limits.md, "Input sizes"): a regular file is read
 * whole; a pipe, FIFO or socket up to PG_INPUT_STREAM_MAX_BYTES; a device
 * (it may never end: /dev/zero) or a directory is refused. A FIFO opens as
 * cat(1) opens it (waiting for a writer). @what names the expected content
 * in messages ("result file"). Errors: PG_ENOTFOUND (no such file);
 * PG_EINPUT "'PATH' is a device, not a WHAT", "... is a directory, not a
 * WHAT", "'PATH' (a pipe) gave more than N MiB ..."; PG_EIO (other errors).
 * On error @out is unchanged.
 */
int pg_read_input(const char *path, const char *what, struct pg_buf *out);

/**
 * Append the regular file at @path to @out (NUL-terminated), @max_bytes at
 * most: for files someone else controls. It is opened with O_NONBLOCK (a
 * FIFO does not wait for a writer) and read only when fstat(2) says it is a
 * regular file of at most @max_bytes; reading stops after @max_bytes + 1
 * bytes however the file grows meanwhile. Symbolic links are followed.
 * Errors: PG_ENOTFOUND (no such file); PG_EINPUT (not a regular file, or
 * larger than @max_bytes: the message names the path and says which);
 * @max_bytes must be below SIZE_MAX.
 * PG_EIO (other errors, with strerror(errno)). On error @out is unchanged.
 */
int pg_read_regular_file(const char *path, size_t max_bytes, struct pg_buf *out);

/**
 * Append the last @max_bytes (at most) of the file open as @fd to @out
 * (NUL-terminated), reading nothing before them: the file's size bounds
 * nothing here. The file offset of @fd is not used (pread(2)).
 * Errors: PG_EIO with strerror(errno).
 */
int pg_read_tail(int fd, size_t max_bytes, struct pg_buf *out);

/**
 * Write @len bytes of @data to @path, a path the user named (-o FILE,
 * --json FILE), atomically (temp file in the same directory, fsync,
 * rename). The file gets mode 0666 less the umask.
 * A symlink is written through as cp(1) does, but atomically: its
 * existing regular target is replaced by a temp file beside it with its
 * mode, owner and group, renamed over it (the link stays); where that
 * cannot be done (the target's directory not writable, its owner not
 * grantable, other hard links to it) the target is truncated and written
 * in place (keeping its inode; not atomic). A dangling link is refused as
 * GNU cp refuses it, and so is
 * a link of another user in a sticky world-writable directory (the rule of
 * fs.protected_symlinks, may_follow_link() in fs/namei.c). A target
 * that exists and is not a regular file (a device such as /dev/stdout, a
 * FIFO) is written in place, never replaced. Errors: PG_EIO with the path
 * and strerror(errno) (also for a directory and a dangling link).
 */
int pg_write_file_atomic(const char *path, const void *data, size_t len);

/**
 * Write @len bytes of @data to @path, a file perfgate names itself inside
 * an output directory (<name>.json, <name>.diff.svg), atomically. Whatever
 * entry is at @path (a regular file, a link, a FIFO) is replaced by the new
 * regular file; nothing is ever written through a link.
 * Errors: PG_EIO with the path and strerror(errno) (also for a directory).
 */
int pg_write_file_own(const char *path, const void *data, size_t len);

/**
 * mkostemp(@tmpl, O_CLOEXEC) (@tmpl ends in "XXXXXX", replaced in place),
 * and the file it creates tracked as a temporary that a signal or running
 * out of memory removes (pg_interrupt_track(@tmpl): @tmpl must outlive the
 * file; pg_interrupt_untrack(@tmpl) once it is renamed or removed).
 * Returns the descriptor, or -1 with errno set.
 */
int pg_mkstemp_tracked(char *tmpl);

/**
 * mkdtemp(@tmpl), the directory tracked as pg_mkstemp_tracked() tracks a
 * file (a signal removes it with what it holds). Returns @tmpl, or NULL
 * with errno set.
 */
char *pg_mkdtemp_tracked(char *tmpl);

/**
 * Check that directory @path (and, when @path is a symlink, the link) is
 * owned by the effective user: another user's directory could hold links
 * planted to redirect perfgate's writes.
 * Errors: PG_EINPUT "refusing to write into 'DIR': 'DIR' belongs to user
 * 'NAME' (uid N) ..."; PG_EIO when @path cannot be inspected or is not a
 * directory.
 */
int pg_dir_check_owner(const char *path);

/**
 * Check, before work whose result cannot be had again cheaply (a
 * recording, a measurement), that a file can later be written at @path, a
 * path the user named (-o FILE, --json FILE), as pg_write_file_atomic()
 * will write it: the directory it names exists, is a directory, and the
 * effective user may write in it; @path is not a directory, a dangling
 * symbolic link, or a link another user may have planted in a sticky
 * world-writable directory; a link's target opens for writing; else a file
 * can be created beside @path (one is created and removed at once). "-"
 * passes (stdout). Errors: PG_EINPUT "cannot write 'PATH' later: 'DIR' is
 * not a writable directory (REASON); give a path in one", "cannot write
 * 'PATH': it is a directory ...", "... a dangling symbolic link ...",
 * "refusing to write through 'PATH' ...".
 */
int pg_output_file_check(const char *path);

/**
 * Check that no existing component of @rel, a relative directory path
 * perfgate names itself (".perfgate/results", ".perfgate/builds"), under
 * @top (a directory the user chose; NULL or "" for the working directory)
 * is a symbolic link or something other than a directory: such a link may
 * come from the project's own files (a committed ".perfgate" link), and
 * perfgate never writes through a link it did not create
 * (docs/limits.md, "Links and shared directories"). Components that do not
 * exist yet pass (perfgate creates them). Errors: PG_EINPUT "refusing to
 * write into 'REL': 'PATH' is a symbolic link (to 'TARGET') ...", "... exists
 * and is not a directory".
 */
int pg_path_check_no_links(const char *top, const char *rel);

/**
 * pg_path_check_no_links(@top, @rel), then create @top/@rel and its missing
 * parents (pg_mkdir_p()): a directory perfgate names itself under a
 * directory the user chose. Errors: as those two.
 */
int pg_mkdir_under(const char *top, const char *rel);

/** A directory's identity (st_dev, st_ino) while it stays in place. */
struct pg_dir_id {
        uint64_t dev;
        uint64_t ino;
};

/**
 * Record in @id the directory @path resolves to now (stat(2), links
 * followed). Errors: PG_EIO with strerror(errno).
 */
int pg_dir_identify(const char *path, struct pg_dir_id *id);

/**
 * Check that @path still resolves to the directory @id recorded, before a
 * write into it: a directory moved away and replaced (by a link to another
 * directory, say) while a benchmark ran must not receive what follows.
 * Errors: PG_EIO "refusing to write into 'PATH': it is no longer the
 * directory this run created or opened ...".
 */
int pg_dir_unchanged(const char *path, const struct pg_dir_id *id);

/**
 * pg_output_file_check() for a report file whose missing parent directories
 * are created first (mode 0755, as mkdir -p; `compare --markdown
 * report/comment.md` makes report/ as --flamegraph-dir makes its directory).
 * Errors: those of pg_mkdir_p() (PG_EIO: a parent is a file, or cannot be
 * created) and of pg_output_file_check().
 */
int pg_output_file_prepare(const char *path);

/* How long pg_dir_lock() waits for readers (pg_dir_lock_shared()) to end,
 * and how often it looks, in milliseconds. */
#define PG_DIR_LOCK_WAIT_MS 60000u
#define PG_DIR_LOCK_POLL_MS 20u

/**
 * Take an exclusive flock(2) on directory @path: one writer at a time in an
 * output directory (`run --out`), and no reader while it writes. Another
 * writer refuses it at once; readers (pg_dir_lock_shared(), who hold the
 * lock while they load the results) are waited for, polling every
 * PG_DIR_LOCK_POLL_MS, up to PG_DIR_LOCK_WAIT_MS. The lock is held
 * by the open descriptor stored in *@fd (O_CLOEXEC) until it is closed, or
 * the process ends however it ends (a SIGKILL releases it too); no file is
 * created. A file system that cannot lock (flock(2) fails with other than
 * EWOULDBLOCK, as NFS may) gives *@fd = -1 and 0: best effort.
 * Errors: PG_EINPUT "another perfgate run (pid N) is writing into 'DIR' now
 * ..." (the pid from /proc/locks, left out when unknown), or "another
 * perfgate command (pid N) has been reading 'DIR' for 60 s ..."; PG_EINTR
 * when a signal arrived in flag mode while waiting; PG_EIO when @path
 * cannot be opened as a directory.
 */
int pg_dir_lock(const char *path, int *fd);

/**
 * Take a shared flock(2) on the directory open at @dirfd (named @path in
 * the message), without waiting: a reader of a results directory
 * (pg_result_set_load_dir()) never sees the half-written set of a `run`
 * holding pg_dir_lock() on it. Held until @dirfd is closed. Best effort as
 * pg_dir_lock(): a file system that cannot lock gives 0.
 * Errors: PG_EINPUT "a perfgate run (pid N) is writing into 'DIR' now: its
 * results are not all there yet; wait for it to end, then run this again".
 */
int pg_dir_lock_shared(int dirfd, const char *path);

/** pg_mkdir_p() then pg_dir_check_owner(): an output directory of our own. */
int pg_mkdir_own(const char *path);

/**
 * Create directory @path and its missing parents (mode 0755).
 * Errors: PG_EIO with the path and strerror(errno).
 */
int pg_mkdir_p(const char *path);

/** Non-zero when @path names an existing directory. */
int pg_is_dir(const char *path);

/**
 * Whether the process's working directory was removed after it entered it
 * (getcwd(3) fails with ENOENT, "the current working directory has been
 * unlinked"): every relative path then names nothing, and creating a file
 * or directory there fails with ENOENT.
 */
bool pg_cwd_gone(void);

/** Last path component of @path (borrowed pointer into @path). */
const char *pg_basename(const char *path);

/** @dir "/" @name as a new string (free() it). */
char *pg_path_join(const char *dir, const char *name);

/**
 * The part of @path below directory @root (both absolute, without "." or
 * ".." components): "cpp/geo.cpp" for "/src/proj/cpp/geo.cpp" under
 * "/src/proj" (a trailing '/' of @root is allowed). NULL when @path is not
 * strictly below @root, or either is empty. Borrowed pointer into @path.
 */
const char *pg_path_below(const char *path, const char *root);

/**
 * Whether two source keys ("file:line" of docs/result-format.md, "lines")
 * name the same line: equal, or one absolute and the other relative with
 * the absolute one ending in "/" and the relative one. The second case
 * matches a key written before keys were made relative to the project's
 * root ("/ci/_work/proj/cpp/geo.cpp:25") to one written after
 * ("cpp/geo.cpp:25").
 */
bool pg_source_key_same(const char *a, const char *b);

#endif
