/*
 * jitdump.c - jitdump files to JIT symbols (see jitdump.h). Every read is
 * bounds-checked against the data: a truncated or crafted file ends the
 * parse with a message, never reads past the end.
 */
#include "runner/jitdump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"

enum {
        PG_JIT_CODE_LOAD = 0,
        PG_JIT_CODE_MOVE = 1,
        PG_JIT_CODE_CLOSE = 3,
};

#define PG_JITDUMP_HEADER_MIN 32 /* magic .. timestamp; flags follow in version 1 */
#define PG_JITDUMP_PREFIX     16 /* id, total_size, timestamp */
#define PG_JITDUMP_LOAD_FIXED (PG_JITDUMP_PREFIX + 8 + 4 * 8)
#define PG_JITDUMP_MOVE_FIXED (PG_JITDUMP_PREFIX + 8 + 5 * 8)
#define PG_JITDUMP_MAX_BYTES  (1ull << 30)

struct pg_jd {
        const uint8_t *p;
        bool swap;
};

static uint32_t pg_jd_u32(const struct pg_jd *d, size_t off)
{
        uint32_t v;

        memcpy(&v, d->p + off, sizeof(v));
        return d->swap ? __builtin_bswap32(v) : v;
}

static uint64_t pg_jd_u64(const struct pg_jd *d, size_t off)
{
        uint64_t v;

        memcpy(&v, d->p + off, sizeof(v));
        return d->swap ? __builtin_bswap64(v) : v;
}

bool pg_jitdump_is_dump_name(const char *path, size_t len)
{
        const char *base = path, *end = path + len, *q;

        for (const char *c = path; c < end; c++)
                if (*c == '/')
                        base = c + 1;
        if (end - base < 10 || memcmp(base, "jit-", 4) != 0)
                return false;
        for (q = base + 4; q < end && *q >= '0' && *q <= '9'; q++)
                ;
        return q > base + 4 && end - q == 5 && memcmp(q, ".dump", 5) == 0;
}

/* The name of the code loaded as @index (the latest load of it), or NULL. */
static const char *pg_jd_index_name(const uint64_t *index, const struct pg_jitmap *m, size_t n,
                                    uint64_t want)
{
        for (size_t i = n; i-- > 0;)
                if (index[i] == want)
                        return m->syms[i].name;
        return NULL;
}

int pg_jitdump_parse(struct pg_jitmap *m, const void *data, size_t len)
{
        struct pg_jd d = { data, false };
        uint32_t magic, version, hsize;
        uint64_t *index = NULL; /* code_index of each symbol added here */
        size_t first = m->n, cap = 0, off;
        int error = 0;

        if (len < PG_JITDUMP_HEADER_MIN) {
                error = pg_error_set(
                    PG_EINPUT, "not a jitdump: %zu bytes, shorter than a jitdump header", len);
                goto done;
        }
        magic = pg_jd_u32(&d, 0);
        if (magic != PG_JITDUMP_MAGIC) {
                d.swap = true;
                if (pg_jd_u32(&d, 0) != PG_JITDUMP_MAGIC) {
                        error = pg_error_set(PG_EINPUT, "not a jitdump: no \"JiTD\" magic (0x%08x)",
                                             magic);
                        goto done;
                }
        }
        version = pg_jd_u32(&d, 4);
        hsize = pg_jd_u32(&d, 8);
        if (version != 1) {
                error = pg_error_set(PG_EINPUT, "version %u, not the version 1 perfgate reads",
                                     version);
                goto done;
        }
        if (hsize < PG_JITDUMP_HEADER_MIN || hsize > len) {
                error = pg_error_set(
                    PG_EINPUT, "truncated or corrupt: the header claims %u bytes, the file has %zu",
                    hsize, len);
                goto done;
        }
        for (off = hsize; off < len;) {
                uint32_t id, rsize;

                if (len - off < PG_JITDUMP_PREFIX) {
                        error = pg_error_set(PG_EINPUT, "truncated: %zu stray bytes at offset %zu",
                                             len - off, off);
                        goto done;
                }
                id = pg_jd_u32(&d, off);
                rsize = pg_jd_u32(&d, off + 4);
                if (rsize < PG_JITDUMP_PREFIX || rsize > len - off) {
                        error = pg_error_set(PG_EINPUT,
                                             "truncated or corrupt: the record at offset %zu "
                                             "claims %u bytes, %zu remain",
                                             off, rsize, len - off);
                        goto done;
                }
                if (id == PG_JIT_CODE_CLOSE)
                        break;
                if (id == PG_JIT_CODE_LOAD) {
                        const char *name = (const char *) d.p + off + PG_JITDUMP_LOAD_FIXED, *nul;
                        uint64_t addr, size;

                        if (rsize < PG_JITDUMP_LOAD_FIXED + 1 ||
                            (nul = memchr(name, '\0', rsize - PG_JITDUMP_LOAD_FIXED)) == NULL) {
                                error = pg_error_set(PG_EINPUT,
                                                     "corrupt: the code load at offset %zu has "
                                                     "no complete name",
                                                     off);
                                goto done;
                        }
                        addr = pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 16);
                        size = pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 24);
                        if (m->n - first == cap) {
                                cap = cap ? cap * 2 : 64;
                                index = pg_xreallocarray(index, cap, sizeof(*index));
                        }
                        index[m->n - first] = pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 32);
                        pg_jitmap_add(m, addr, size, name, (size_t) (nul - name));
                } else if (id == PG_JIT_CODE_MOVE) {
                        const char *name;
                        char *copy;

                        if (rsize < PG_JITDUMP_MOVE_FIXED) {
                                error = pg_error_set(PG_EINPUT,
                                                     "corrupt: the code move at offset %zu is %u "
                                                     "bytes, shorter than its fields",
                                                     off, rsize);
                                goto done;
                        }
                        name = pg_jd_index_name(index, m, m->n - first,
                                                pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 40));
                        if (name != NULL) {
                                if (m->n - first == cap) {
                                        cap = cap ? cap * 2 : 64;
                                        index = pg_xreallocarray(index, cap, sizeof(*index));
                                }
                                index[m->n - first] = pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 40);
                                copy = pg_xstrdup(name); /* the array may move */
                                pg_jitmap_add(m, pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 24),
                                              pg_jd_u64(&d, off + PG_JITDUMP_PREFIX + 32), copy,
                                              strlen(copy));
                                free(copy);
                        }
                }
                off += rsize;
        }
done:
        free(index);
        pg_jitmap_sort(m);
        return error;
}

int pg_jitdump_load(struct pg_jitmap *m, const char *path)
{
        struct pg_buf b = PG_BUF_INIT;
        struct stat st;
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), error = 0;

        if (fd < 0)
                return pg_error_set(PG_EIO, "cannot open jitdump '%s': %s", path, strerror(errno));
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
                error = pg_error_set(PG_EIO, "jitdump '%s' is not a regular file", path);
                goto done;
        }
        if ((uint64_t) st.st_size > PG_JITDUMP_MAX_BYTES) {
                error = pg_error_set(PG_EIO, "jitdump '%s' is too large (%.3g GiB, limit 1 GiB)",
                                     path, (double) st.st_size / (double) (1ull << 30));
                goto done;
        }
        pg_buf_grow(&b, (size_t) st.st_size + 1);
        for (;;) {
                ssize_t got;

                pg_buf_grow(&b, 65536);
                got = read(fd, b.ptr + b.len, 65536);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0) {
                        error = pg_error_set(PG_EIO, "cannot read jitdump '%s': %s", path,
                                             strerror(errno));
                        goto done;
                }
                if (got == 0 || b.len + (size_t) got > PG_JITDUMP_MAX_BYTES)
                        break;
                b.len += (size_t) got;
        }
        if ((error = pg_jitdump_parse(m, b.ptr, b.len)) < 0) {
                char *why = pg_xstrdup(pg_error_last());

                error = pg_error_set(PG_EINPUT, "jitdump '%s': %s", path, why);
                free(why);
        }
done:
        close(fd);
        pg_buf_release(&b);
        return error;
}
