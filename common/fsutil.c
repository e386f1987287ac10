/*
 * fsutil.c - file helpers (see fsutil.h). Atomic writes use mkstemp in the
 * destination directory so the final rename never crosses file systems.
 */
#include "common/fsutil.h"
#include "common/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

/* Append what @fd holds to @out, stopping after @limit bytes; EINTR is
 * retried. 0, or PG_EIO naming @path. */
static int pg_read_fd(int fd, const char *path, size_t limit, struct pg_buf *out)
{
        size_t got = 0;

        while (got < limit) {
                size_t room;
                ssize_t n;

                pg_buf_grow(out, limit - got < 65536 ? limit - got : 65536);
                room = out->cap - out->len - 1;
                n = read(fd, out->ptr + out->len, limit - got < room ? limit - got : room);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return pg_error_set(PG_EIO, "cannot read '%s': %s", path, strerror(errno));
                if (n == 0)
                        break;
                out->len += (size_t) n;
                out->ptr[out->len] = '\0';
                got += (size_t) n;
        }
        return 0;
}

int pg_read_file(const char *path, struct pg_buf *out)
{
        int fd, error;
        int is_stdin = strcmp(path, "-") == 0;

        fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot open '%s': %s",
                                    path, strerror(errno));
        error = pg_read_fd(fd, path, SIZE_MAX, out);
        if (!is_stdin)
                close(fd);
        return error;
}

int pg_read_input(const char *path, const char *what, struct pg_buf *out)
{
        size_t len0 = out->len;
        int is_stdin = strcmp(path, "-") == 0;
        const char *name = is_stdin ? "stdin" : path;
        struct stat st;
        int fd, error = 0;

        fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot open '%s': %s",
                                    path, strerror(errno));
        if (fstat(fd, &st) != 0) {
                error = pg_error_set(PG_EIO, "cannot inspect '%s': %s", name, strerror(errno));
        } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
                /* a device may never end (/dev/zero, /dev/urandom) */
                error = pg_error_set(PG_EINPUT, "'%s' is a device, not a %s", name, what);
        } else if (S_ISDIR(st.st_mode)) {
                error = pg_error_set(PG_EINPUT, "'%s' is a directory, not a %s", name, what);
        } else if (S_ISREG(st.st_mode)) {
                /* one block of the file's size (plus one byte, which finds
                 * the end), not a doubling one: each doubling of a 40 MB
                 * file's buffer was a new block faulted in and copied */
                if (st.st_size > 0 && (uintmax_t) st.st_size < SIZE_MAX / 2)
                        pg_buf_grow(out, (size_t) st.st_size + 1);
                error = pg_read_fd(fd, name, SIZE_MAX, out);
        } else if ((error = pg_read_fd(fd, name, PG_INPUT_STREAM_MAX_BYTES + 1, out)) == 0 &&
                   out->len - len0 > PG_INPUT_STREAM_MAX_BYTES) {
                /* a pipe or FIFO has no size to judge first: read with a bound */
                error = pg_error_set(PG_EINPUT,
                                     "'%s' (a pipe) gave more than %u MiB, more than a %s "
                                     "read through a pipe may hold; write it to a file and "
                                     "give that",
                                     name, PG_INPUT_STREAM_MAX_BYTES >> 20, what);
        }
        if (!is_stdin)
                close(fd);
        if (error)
                pg_buf_truncate(out, len0);
        return error;
}

int pg_read_regular_file(const char *path, size_t max_bytes, struct pg_buf *out)
{
        size_t len0 = out->len;
        struct stat st;
        int fd, error = 0;

        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot open '%s': %s",
                                    path, strerror(errno));
        if (fstat(fd, &st) != 0) {
                error = pg_error_set(PG_EIO, "cannot inspect '%s': %s", path, strerror(errno));
        } else if (!S_ISREG(st.st_mode)) {
                error = pg_error_set(PG_EINPUT, "'%s' is not a regular file (%s)", path,
                                     S_ISDIR(st.st_mode)    ? "a directory"
                                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                                     : S_ISCHR(st.st_mode)  ? "a character device"
                                     : S_ISBLK(st.st_mode)  ? "a block device"
                                                            : "a socket");
        } else if ((uint64_t) st.st_size > max_bytes) {
                error = pg_error_set(PG_EINPUT, "'%s' is larger than %zu MiB (%llu MiB)", path,
                                     max_bytes >> 20, (unsigned long long) (st.st_size >> 20));
        } else if ((error = pg_read_fd(fd, path, max_bytes + 1, out)) == 0 &&
                   out->len - len0 > max_bytes) {
                error = pg_error_set(PG_EINPUT, "'%s' is larger than %zu MiB (it grew)", path,
                                     max_bytes >> 20);
        }
        close(fd);
        if (error)
                pg_buf_truncate(out, len0);
        return error;
}

int pg_read_tail(int fd, size_t max_bytes, struct pg_buf *out)
{
        struct stat st;
        off_t off;
        size_t want;

        if (fstat(fd, &st) < 0)
                return pg_error_set(PG_EIO, "cannot inspect a log: %s", strerror(errno));
        want = (size_t) st.st_size < max_bytes ? (size_t) st.st_size : max_bytes;
        off = st.st_size - (off_t) want;
        pg_buf_grow(out, want + 1);
        while (want) {
                ssize_t n = pread(fd, out->ptr + out->len, want, off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return pg_error_set(PG_EIO, "cannot read a log: %s", strerror(errno));
                if (n == 0)
                        break;
                out->len += (size_t) n;
                off += n;
                want -= (size_t) n;
        }
        out->ptr[out->len] = '\0';
        return 0;
}

static int pg_write_all(int fd, const char *p, size_t len)
{
        while (len) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -1;
                }
                p += n;
                len -= (size_t) n;
        }
        return 0;
}

/* Targets that are not regular files (devices, FIFOs, sockets) cannot be
 * replaced by a rename without destroying them: write into them in place;
 * @truncate for a regular file reached through a link the user named. */
static int pg_write_in_place(const char *path, const void *data, size_t len, bool truncate)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (truncate ? O_TRUNC : 0)), error = 0;

        if (fd < 0)
                return pg_error_set(PG_EIO, "cannot open '%s' for writing: %s", path,
                                    strerror(errno));
        if (pg_write_all(fd, data, len) < 0)
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", path, strerror(errno));
        if (close(fd) < 0 && !error)
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", path, strerror(errno));
        return error;
}

int pg_mkstemp_tracked(char *tmpl)
{
        int fd, e;

        pg_interrupt_hold(); /* created and tracked as one step */
        fd = mkostemp(tmpl, O_CLOEXEC);
        e = errno;
        if (fd >= 0)
                pg_interrupt_track(tmpl);
        pg_interrupt_release();
        errno = e;
        return fd;
}

char *pg_mkdtemp_tracked(char *tmpl)
{
        char *dir;
        int e;

        pg_interrupt_hold();
        dir = mkdtemp(tmpl);
        e = errno;
        if (dir)
                pg_interrupt_track(tmpl);
        pg_interrupt_release();
        errno = e;
        return dir;
}

/* Set the message of a failed pg_write_replace() of @path (errno @e):
 * "cannot WHAT 'PATH': ERROR; 'PATH' is unchanged" (or "was not created"
 * when there was none), so a full disk's message says what was lost. */
static int pg_write_replace_error(const char *what, const char *path, int e)
{
        struct stat st;
        bool existed = lstat(path, &st) == 0;

        return pg_error_set(PG_EIO, "cannot %s '%s': %s; '%s' %s", what, path, strerror(e), path,
                            existed ? "is unchanged" : "was not created");
}

/* Temp file beside @target (mkostemp: O_CREAT|O_EXCL, so never through a
 * link), fsync, then rename(2) over @target. rename replaces the directory
 * entry itself: a link planted at @target is replaced, its target
 * untouched. @path is what the user named, for messages: @target itself,
 * or a link whose final target @target is. @keep NULL: the file gets mode
 * 0666 less the umask; else @target's stat(2), whose mode, owner and group
 * the new file keeps. On failure the temp is removed and @target is as it
 * was. Returns 1 (nothing written, no message) when @keep is given and the
 * temp cannot be made there (EACCES, EPERM, EROFS: a directory the user
 * may not write) or be given @keep's owner (fchown(2) EPERM): the caller
 * writes in place instead. */
static int pg_write_replace_at(const char *path, const char *target, const struct stat *keep,
                               const void *data, size_t len)
{
        char *tmp = pg_xasprintf("%s.tmp.XXXXXX", target);
        struct stat st;
        int fd, error = 0;
        mode_t mode;

        fd = pg_mkstemp_tracked(tmp);
        if (fd < 0) {
                if (keep && (errno == EACCES || errno == EPERM || errno == EROFS))
                        error = 1;
                else
                        error =
                            pg_write_replace_error("create a temporary file beside", path, errno);
                goto done;
        }
        if (keep) {
                /* chown first: a non-root chown clears the set-id bits */
                if (fstat(fd, &st) < 0 ||
                    ((st.st_uid != keep->st_uid || st.st_gid != keep->st_gid) &&
                     fchown(fd, keep->st_uid, keep->st_gid) < 0)) {
                        close(fd);
                        unlink(tmp);
                        error = 1;
                        goto done;
                }
                mode = keep->st_mode & 07777;
        } else {
                mode = umask(0);
                umask(mode);
                mode = 0666 & ~mode;
        }
        if (fchmod(fd, mode) < 0 || pg_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
                int e = errno;
                close(fd);
                unlink(tmp);
                error = pg_write_replace_error("write", path, e);
                goto done;
        }
        if (close(fd) < 0 || rename(tmp, target) < 0) {
                int e = errno;
                unlink(tmp);
                error = pg_write_replace_error("write", path, e);
        }
done:
        pg_interrupt_untrack(tmp);
        free(tmp);
        return error;
}

static int pg_write_replace(const char *path, const void *data, size_t len)
{
        return pg_write_replace_at(path, path, NULL, data, len);
}

/* The regular file @st that the link @path leads to, replaced as
 * pg_write_replace_at() replaces it, its mode, owner and group kept: the
 * link stays, and a full disk leaves the old file whole. Written in place
 * as cp(1) does (truncated, so not atomic) where that cannot be done: the
 * target's directory is not writable, its owner cannot be given to the new
 * file, or it has other hard links (which a rename would part from it). */
static int pg_write_through_link(const char *path, const struct stat *st, const void *data,
                                 size_t len)
{
        char *target;
        int error = 1;

        if (st->st_nlink > 1 || !(target = realpath(path, NULL)))
                return pg_write_in_place(path, data, len, true);
        error = pg_write_replace_at(path, target, st, data, len);
        free(target);
        return error == 1 ? pg_write_in_place(path, data, len, true) : error;
}

/* Whether the link @path (lstat @lst) is one the kernel would not follow
 * under fs.protected_symlinks=1 (may_follow_link(), fs/namei.c): in a
 * sticky world-writable directory, a link owned neither by the caller nor
 * by the directory's owner, which another user may have planted there. */
/* The directory holding the entry @path names ("." for a bare name, "/"
 * for one at the root); the caller frees it. */
static char *pg_dir_of(const char *path)
{
        char *dir = pg_xstrdup(path), *slash = strrchr(dir, '/');

        if (!slash) {
                free(dir);
                return pg_xstrdup(".");
        }
        *(slash == dir ? slash + 1 : slash) = '\0';
        return dir;
}

static bool pg_link_planted(const char *path, const struct stat *lst)
{
        char *dir = pg_dir_of(path);
        struct stat ds;
        bool planted = false;

        if (stat(dir, &ds) == 0 && (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) &&
            lst->st_uid != geteuid() && lst->st_uid != ds.st_uid)
                planted = true;
        free(dir);
        return planted;
}

static int pg_link_planted_error(int code, const char *path, const struct stat *lst)
{
        return pg_error_set(code,
                            "refusing to write through '%s': it is a symbolic link of another "
                            "user (uid %u) in a shared sticky directory, who could have planted "
                            "it there (the kernel's fs.protected_symlinks rule); remove it or "
                            "give another path",
                            path, (unsigned) lst->st_uid);
}

int pg_write_file_atomic(const char *path, const void *data, size_t len)
{
        struct stat st;

        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                if (pg_link_planted(path, &st))
                        return pg_link_planted_error(PG_EIO, path, &st);
                /* named by the user: written through as cp(1) does, but
                 * replacing its target (pg_write_through_link()); like GNU
                 * cp, never through a dangling link */
                if (stat(path, &st) < 0)
                        return pg_error_set(PG_EIO, "not writing through dangling symlink '%s'",
                                            path);
                if (S_ISDIR(st.st_mode))
                        return pg_error_set(PG_EIO, "cannot write '%s': it is a directory", path);
                if (S_ISREG(st.st_mode))
                        return pg_write_through_link(path, &st, data, len);
                return pg_write_in_place(path, data, len, false);
        }
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
                if (S_ISDIR(st.st_mode))
                        return pg_error_set(PG_EIO, "cannot write '%s': it is a directory", path);
                return pg_write_in_place(path, data, len, false);
        }
        return pg_write_replace(path, data, len);
}

int pg_write_file_own(const char *path, const void *data, size_t len)
{
        struct stat st;

        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                return pg_error_set(PG_EIO, "cannot write '%s': it is a directory", path);
        return pg_write_replace(path, data, len);
}

int pg_dir_check_owner(const char *path)
{
        struct stat st, lst;
        uid_t me = geteuid();

        if (lstat(path, &lst) < 0 || stat(path, &st) < 0)
                return pg_error_set(PG_EIO, "cannot inspect directory '%s': %s", path,
                                    strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return pg_error_set(PG_EIO, "'%s' exists and is not a directory", path);
        if ((S_ISLNK(lst.st_mode) && lst.st_uid != me) || st.st_uid != me) {
                uid_t owner = S_ISLNK(lst.st_mode) && lst.st_uid != me ? lst.st_uid : st.st_uid;
                struct passwd *pw = getpwuid(owner);
                char who[64];
                if (pw)
                        snprintf(who, sizeof(who), "'%s' (uid %u)", pw->pw_name, (unsigned) owner);
                else
                        snprintf(who, sizeof(who), "uid %u", (unsigned) owner);
                return pg_error_set(PG_EINPUT,
                                    "refusing to write into '%s': it belongs to user %s, not to "
                                    "you (uid %u), who could plant links in it; use a directory "
                                    "of your own",
                                    path, who, (unsigned) me);
        }
        return 0;
}

/* The entry @path itself, as pg_write_file_atomic() will write it: a
 * directory or a dangling link is refused, a link is written through (so
 * its target must open for writing), and anything else is replaced by a
 * file created beside it (tried here, then removed: a writable-looking
 * directory such as /proc refuses new files). */
static int pg_output_target_check(const char *path)
{
        struct stat lst = { 0 }, st = { 0 };
        char *tmp;
        int fd, error = 0;

        if (lstat(path, &lst) != 0) {
                /* absent: a new regular file (lstat(2) leaves lst undefined) */
                memset(&lst, 0, sizeof(lst));
                lst.st_mode = S_IFREG;
                st = lst;
        } else if (S_ISLNK(lst.st_mode)) {
                if (pg_link_planted(path, &lst))
                        return pg_link_planted_error(PG_EINPUT, path, &lst);
                if (stat(path, &st) != 0)
                        return pg_error_set(PG_EINPUT,
                                            "cannot write '%s': it is a dangling symbolic link "
                                            "(%s), which perfgate does not write through; "
                                            "remove it or give another path",
                                            path, strerror(errno));
        } else {
                st = lst;
        }
        if (S_ISDIR(st.st_mode))
                return pg_error_set(PG_EINPUT,
                                    "cannot write '%s': it is a directory; give a file name", path);
        if (S_ISLNK(lst.st_mode) || !S_ISREG(st.st_mode)) {
                /* written in place: it must open for writing (no truncation
                 * here; O_NONBLOCK: a FIFO without a reader fails, not hangs) */
                fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                if (fd < 0)
                        return pg_error_set(PG_EINPUT, "cannot write '%s': %s; give another path",
                                            path, strerror(errno));
                close(fd);
                return 0;
        }
        tmp = pg_xasprintf("%s.tmp.XXXXXX", path);
        fd = pg_mkstemp_tracked(tmp);
        if (fd < 0) {
                error = pg_error_set(PG_EINPUT,
                                     "cannot write '%s': no file can be created beside it (%s); "
                                     "give another path",
                                     path, strerror(errno));
        } else {
                close(fd);
                unlink(tmp);
                pg_interrupt_untrack(tmp);
        }
        free(tmp);
        return error;
}

int pg_output_file_check(const char *path)
{
        char *dir;
        struct stat st;
        int error = 0;

        if (strcmp(path, "-") == 0)
                return 0;
        dir = pg_dir_of(path);
        errno = 0;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0)
                error = pg_error_set(PG_EINPUT,
                                     "cannot write '%s' later: '%s' is not a writable directory "
                                     "(%s); give a path in one",
                                     path, dir, errno ? strerror(errno) : "not a directory");
        else
                error = pg_output_target_check(path);
        free(dir);
        return error;
}

int pg_path_check_no_links(const char *top, const char *rel)
{
        struct pg_buf path = PG_BUF_INIT;
        const char *p = rel;
        int error = 0;

        if (top && *top)
                pg_buf_printf(&path, "%s/", top);
        while (*p && !error) {
                size_t n = strcspn(p, "/");
                struct stat lst;
                pg_buf_add(&path, p, n);
                p += n;
                while (*p == '/')
                        p++;
                if (n == 0 || (n == 1 && path.ptr[path.len - 1] == '.'))
                        ; /* "" or "." adds no entry */
                else if (lstat(path.ptr, &lst) < 0)
                        break; /* absent: perfgate creates it, a real directory */
                else if (S_ISLNK(lst.st_mode)) {
                        char to[256];
                        ssize_t k = readlink(path.ptr, to, sizeof(to) - 1);
                        to[k < 0 ? 0 : k] = '\0';
                        error = pg_error_set(PG_EINPUT,
                                             "refusing to write into '%s': '%s' is a symbolic "
                                             "link (to '%s'), and perfgate does not follow links "
                                             "in the output directories it names itself; "
                                             "remove it (or name an output directory of your "
                                             "own where the command has an option for one)",
                                             rel, path.ptr, to);
                } else if (!S_ISDIR(lst.st_mode)) {
                        error = pg_error_set(PG_EINPUT,
                                             "cannot write into '%s': '%s' exists and is not a "
                                             "directory; remove it",
                                             rel, path.ptr);
                }
                pg_buf_putc(&path, '/');
        }
        pg_buf_release(&path);
        return error;
}

int pg_mkdir_under(const char *top, const char *rel)
{
        char *path = top && *top ? pg_path_join(top, rel) : pg_xstrdup(rel);
        int error = pg_path_check_no_links(top, rel);

        if (!error)
                error = pg_mkdir_p(path);
        free(path);
        return error;
}

int pg_dir_identify(const char *path, struct pg_dir_id *id)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return pg_error_set(PG_EIO, "cannot inspect directory '%s': %s", path,
                                    strerror(errno));
        id->dev = (uint64_t) st.st_dev;
        id->ino = (uint64_t) st.st_ino;
        return 0;
}

int pg_dir_unchanged(const char *path, const struct pg_dir_id *id)
{
        struct stat st;

        if (stat(path, &st) == 0 && (uint64_t) st.st_dev == id->dev &&
            (uint64_t) st.st_ino == id->ino)
                return 0;
        return pg_error_set(PG_EIO,
                            "refusing to write into '%s': it is no longer the directory this "
                            "run created or opened (it was moved, removed or replaced, perhaps "
                            "by a link, while a benchmark ran); nothing more is written there",
                            path);
}

int pg_output_file_prepare(const char *path)
{
        char *dir = pg_dir_of(path);
        struct stat st;
        int error = 0;

        if (strcmp(path, "-") != 0 && lstat(dir, &st) < 0 && errno == ENOENT)
                error = pg_mkdir_p(dir);
        free(dir);
        return error < 0 ? error : pg_output_file_check(path);
}

int pg_mkdir_own(const char *path)
{
        int error = pg_mkdir_p(path);
        return error < 0 ? error : pg_dir_check_owner(path);
}

int pg_mkdir_p(const char *path)
{
        char *p = pg_xstrdup(path);
        int error = 0;

        for (char *s = p + 1;; s++) {
                if (*s == '/' || *s == '\0') {
                        char c = *s;
                        *s = '\0';
                        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                                if (errno == ENOENT && p[0] != '/' && pg_cwd_gone())
                                        error = pg_error_set(
                                            PG_EIO,
                                            "cannot create directory '%s': the current directory "
                                            "no longer exists (it was removed after perfgate "
                                            "started in it); cd into an existing directory",
                                            p);
                                else
                                        error =
                                            pg_error_set(PG_EIO, "cannot create directory '%s': %s",
                                                         p, strerror(errno));
                                break;
                        }
                        *s = c;
                        if (!c)
                                break;
                }
        }
        if (!error && !pg_is_dir(path))
                error = pg_error_set(PG_EIO, "'%s' exists and is not a directory", path);
        free(p);
        return error;
}

bool pg_cwd_gone(void)
{
        char *cwd = getcwd(NULL, 0);
        bool gone = !cwd && errno == ENOENT;

        free(cwd);
        return gone;
}

int pg_is_dir(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *pg_basename(const char *path)
{
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

char *pg_path_join(const char *dir, const char *name)
{
        size_t n = strlen(dir);
        if (n && dir[n - 1] == '/')
                return pg_xasprintf("%s%s", dir, name);
        return pg_xasprintf("%s/%s", dir, name);
}

/* The pid /proc/locks gives for a flock(2) of type @type ("WRITE" or "READ")
 * on the file open at @fd, 0 when none is listed (or the holder is outside
 * our pid namespace): for messages only, never for a decision.
 * proc(5), /proc/locks: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END",
 * major and minor in hex; a line with "->" is a process waiting for a lock. */
static long pg_flock_holder(int fd, const char *type)
{
        struct stat st;
        char line[256], want[64];
        long pid = 0;
        FILE *f;

        if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
                return 0;
        snprintf(want, sizeof(want), "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                 (unsigned long long) st.st_ino);
        while (!pid && fgets(line, sizeof(line), f)) {
                char kind[16], t[16], dev[64];
                long p;
                if (strstr(line, "->") ||
                    sscanf(line, "%*d: %15s %*s %15s %ld %63s", kind, t, &p, dev) != 4)
                        continue;
                if (strcmp(kind, "FLOCK") == 0 && strcmp(t, type) == 0 && strcmp(dev, want) == 0)
                        pid = p;
        }
        fclose(f);
        return pid > 0 ? pid : 0;
}

/* " (pid N)" naming the holder of @type's lock on @fd, "" when unknown. */
static void pg_flock_who(int fd, const char *type, char *out, size_t size)
{
        long pid = pg_flock_holder(fd, type);
        if (pid)
                snprintf(out, size, " (pid %ld)", pid);
        else
                out[0] = '\0';
}

int pg_dir_lock(const char *path, int *fd)
{
        int d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        unsigned waited_ms = 0;
        char who[32];

        *fd = -1;
        if (d < 0)
                return pg_error_set(PG_EIO, "cannot open '%s': %s%s", path, strerror(errno),
                                    pg_fd_limit_hint(errno));
        /* readers (pg_dir_lock_shared()) hold a shared lock while they load
         * the results, well under a second: a writer waits for them, up to
         * PG_DIR_LOCK_WAIT_MS; another writer (it refuses a shared lock too)
         * is refused at once */
        for (;;) {
                if (flock(d, LOCK_EX | LOCK_NB) == 0) {
                        *fd = d;
                        return 0;
                }
                if (errno != EWOULDBLOCK) {
                        close(d);
                        return 0;
                }
                if (flock(d, LOCK_SH | LOCK_NB) < 0)
                        break; /* a writer */
                flock(d, LOCK_UN);
                if (pg_interrupted()) { /* flag mode: SIGINT ends the wait */
                        close(d);
                        return pg_error_set(PG_EINTR, "interrupted");
                }
                if (waited_ms >= PG_DIR_LOCK_WAIT_MS) {
                        pg_flock_who(d, "READ", who, sizeof(who));
                        close(d);
                        return pg_error_set(PG_EINPUT,
                                            "another perfgate command%s has been reading '%s' for "
                                            "%u s; wait for it to end, or give this run its own "
                                            "--out",
                                            who, path, PG_DIR_LOCK_WAIT_MS / 1000);
                }
                nanosleep(&(struct timespec){ 0, PG_DIR_LOCK_POLL_MS * 1000000L }, NULL);
                waited_ms += PG_DIR_LOCK_POLL_MS;
        }
        pg_flock_who(d, "WRITE", who, sizeof(who));
        close(d);
        return pg_error_set(PG_EINPUT,
                            "another perfgate run%s is writing into '%s' now (a second run of the "
                            "same benchmarks would remove its logs and mix its results); wait for "
                            "it to end, or give this run its own --out",
                            who, path);
}

int pg_dir_lock_shared(int dirfd, const char *path)
{
        char who[32];

        if (flock(dirfd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK)
                return 0;
        pg_flock_who(dirfd, "WRITE", who, sizeof(who));
        return pg_error_set(PG_EINPUT,
                            "a perfgate run%s is writing into '%s' now: its results are not all "
                            "there yet; wait for it to end, then run this again",
                            who, path);
}

const char *pg_path_below(const char *path, const char *root)
{
        size_t n = strlen(root);

        while (n > 1 && root[n - 1] == '/')
                n--;
        if (n == 0 || root[0] != '/' || path[0] != '/')
                return NULL;
        if (n == 1) /* root "/" */
                return path[1] ? path + 1 : NULL;
        if (strncmp(path, root, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
                return NULL;
        return path + n + 1;
}

bool pg_source_key_same(const char *a, const char *b)
{
        const char *abs = a, *rel = b;
        size_t na, nr;

        if (strcmp(a, b) == 0)
                return true;
        if (a[0] != '/') {
                abs = b;
                rel = a;
        }
        if (abs[0] != '/' || rel[0] == '/' || rel[0] == '\0')
                return false;
        na = strlen(abs);
        nr = strlen(rel);
        return na > nr && abs[na - nr - 1] == '/' && strcmp(abs + na - nr, rel) == 0;
}
