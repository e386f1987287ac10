/*
 * fsutil.c - file helpers (see fsutil.h). Atomic writes use mkstemp in the
 * destination directory so the final rename never crosses file systems.
 */
#include "common/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

int pg_read_file(const char *path, struct pg_buf *out)
{
        int fd, error = 0;
        int is_stdin = strcmp(path, "-") == 0;

        fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return pg_error_set(errno == ENOENT ? PG_ENOTFOUND : PG_EIO, "cannot open '%s': %s",
                                    path, strerror(errno));
        for (;;) {
                ssize_t n;
                pg_buf_grow(out, 65536);
                n = read(fd, out->ptr + out->len, out->cap - out->len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        error = pg_error_set(PG_EIO, "cannot read '%s': %s", path, strerror(errno));
                        break;
                }
                if (n == 0)
                        break;
                out->len += (size_t) n;
                out->ptr[out->len] = '\0';
        }
        if (!is_stdin)
                close(fd);
        return error;
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
 * replaced by a rename without destroying them: write into them in place. */
static int pg_write_in_place(const char *path, const void *data, size_t len)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY), error = 0;

        if (fd < 0)
                return pg_error_set(PG_EIO, "cannot open '%s' for writing: %s", path,
                                    strerror(errno));
        if (pg_write_all(fd, data, len) < 0)
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", path, strerror(errno));
        if (close(fd) < 0 && !error)
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", path, strerror(errno));
        return error;
}

int pg_write_file_atomic(const char *path, const void *data, size_t len)
{
        char *tmp = NULL, *real = NULL;
        int fd, error = 0;
        mode_t mask;
        struct stat st;

        /* through a symlink, replace what it points to, not the link */
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                real = realpath(path, NULL);
                if (!real) { /* dangling: create the file it names */
                        char target[4096];
                        ssize_t n = readlink(path, target, sizeof(target) - 1);
                        if (n > 0) {
                                const char *slash = strrchr(path, '/');
                                target[n] = '\0';
                                real = target[0] == '/' || !slash
                                           ? pg_xstrdup(target)
                                           : pg_xasprintf("%.*s/%s", (int) (slash - path), path,
                                                          target);
                        }
                }
                if (real)
                        path = real;
        }
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
                if (S_ISDIR(st.st_mode))
                        error = pg_error_set(PG_EIO, "cannot write '%s': it is a directory", path);
                else
                        error = pg_write_in_place(path, data, len);
                free(real);
                return error;
        }
        tmp = pg_xasprintf("%s.tmp.XXXXXX", path);

        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                error = pg_error_set(PG_EIO, "cannot create a temporary file beside '%s': %s", path,
                                     strerror(errno));
                goto done;
        }
        mask = umask(0);
        umask(mask);
        if (fchmod(fd, 0666 & ~mask) < 0 || pg_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", tmp, strerror(errno));
                close(fd);
                unlink(tmp);
                goto done;
        }
        if (close(fd) < 0 || rename(tmp, path) < 0) {
                error = pg_error_set(PG_EIO, "cannot write '%s': %s", path, strerror(errno));
                unlink(tmp);
        }
done:
        free(tmp);
        free(real);
        return error;
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
                                error = pg_error_set(PG_EIO, "cannot create directory '%s': %s", p,
                                                     strerror(errno));
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
