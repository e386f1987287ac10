/*
 * repostate.c - the repository's state read from the files under .git,
 * without libgit2, when the answer is certain (pg_repo_state_fast(),
 * worktree.h). Loading libgit2 and git_libgit2_init() (which parses the
 * system's CA bundle with the mbedTLS backend) cost more CPU than a short
 * benchmark's counted run takes to start; `perfgate run` asks this state
 * once per invocation.
 *
 * The rules follow the formats in git's Documentation/gitformat-index.txt
 * (index versions 2 and 3, the "TREE" cache-tree extension),
 * Documentation/gitformat-pack.txt (pack index version 2, object entry
 * headers) and gitrepository-layout(5); and the decisions of libgit2 1.5
 * that pg_repo_state_get() would otherwise take: the repository search of
 * git_repository_open_ext() with no flags (src/libgit2/repository.c:
 * find_repo), and status's "unmodified by its stat data" test
 * (src/libgit2/diff_generate.c: maybe_modified; src/libgit2/index.c: an
 * entry as new as the index is racy and hashed). A linked work tree (a
 * .git file naming its git directory, whose commondir file names the
 * shared one: `git worktree add`) is read as git lays it out (HEAD and
 * index its own; objects, refs, config shared). Whatever is not covered
 * (a .git file or commondir file git would not write, a commondir beside
 * a .git directory, config.worktree, a per-work-tree ref as the linked
 * HEAD's target, index version 4, a split or sparse
 * index, an invalid cache tree, a deltified commit, an alternate object
 * store, SHA-256, core.worktree, extensions, includes, a directory of
 * another user, any stat difference, a racy entry when any attributes
 * file or configuration that could filter it exists, an index whose
 * checksum does not match, a symbolic link or file where an entry's
 * leading directory should be, a submodule whose path is not a directory,
 * a pack index whose fanout is inconsistent, an index over 256 KiB, a
 * file that is too long or not a regular file) returns "cannot tell" and
 * the caller asks libgit2.
 * Every read is bounded by the file's size; FIFOs are opened O_NONBLOCK.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "baselines/worktree.h"
#include "common/buf.h"
#include "common/dlib.h"
#include "common/error.h"

#define PG_RS_HEX 40 /* SHA-1 object ids only */
#define PG_RS_RAW 20

/* A small file (HEAD, a ref, config): a regular file of at most @cap - 1
 * bytes, read into @buf and NUL-terminated. Returns its length; or -1 with
 * errno ENOENT when it does not exist, and -1 with another errno for
 * anything else (unreadable, not a regular file, too long), which callers
 * take as "cannot tell". O_NONBLOCK: a FIFO never blocks the open. */
static ssize_t pg_rs_small(int dirfd, const char *name, char *buf, size_t cap)
{
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        ssize_t n = 0, len = 0;
        struct stat st;
        bool ok;

        if (fd < 0)
                return -1;
        ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t) st.st_size < cap - 1;
        while (ok && (n = read(fd, buf + len, cap - 1 - (size_t) len)) > 0)
                len += n;
        close(fd);
        if (!ok || n < 0 || (size_t) len >= cap - 1) {
                errno = EFBIG; /* never ENOENT: the file exists */
                return -1;
        }
        buf[len] = '\0';
        return len;
}

static int pg_rs_hexval(int c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

/* @s starts with 40 lower-case hex digits followed by @end (0: anything) */
static bool pg_rs_is_hex(const char *s, char end)
{
        for (int i = 0; i < PG_RS_HEX; i++)
                if (pg_rs_hexval((unsigned char) s[i]) < 0)
                        return false;
        return end == 0 || s[PG_RS_HEX] == end;
}

static void pg_rs_to_raw(const char *hex, unsigned char *raw)
{
        for (int i = 0; i < PG_RS_RAW; i++)
                raw[i] = (unsigned char) (pg_rs_hexval((unsigned char) hex[2 * i]) << 4 |
                                          pg_rs_hexval((unsigned char) hex[2 * i + 1]));
}

static uint32_t pg_rs_be32(const unsigned char *p)
{
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* A whole regular, non-empty file mapped read-only (@len its size), or
 * NULL; O_NONBLOCK: a FIFO never blocks the open. */
static void *pg_rs_map(int dirfd, const char *name, size_t *len)
{
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        void *p = NULL;

        if (fd < 0)
                return NULL;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
                p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
                if (p == MAP_FAILED)
                        p = NULL;
                else
                        *len = (size_t) st.st_size;
        }
        close(fd);
        return p;
}

/* HEAD's commit into @hex (41 bytes): HEAD (in @headfd, the work tree's
 * git directory) and the refs it names (loose, or in packed-refs, in
 * @reffd, the common directory), at most 5 symbolic hops. In a linked
 * work tree (@headfd differs from @reffd) a per-work-tree ref
 * (gitrepository-layout(5): refs/worktree/, refs/bisect/, refs/rewritten/)
 * is "cannot tell". 1 resolved, 0 cannot tell. */
static int pg_rs_head(int headfd, int reffd, char *hex)
{
        char buf[512], name[256];
        ssize_t n = pg_rs_small(headfd, "HEAD", buf, sizeof(buf));

        for (int hop = 0; hop < 5 && n > 0; hop++) {
                size_t nl;

                if (pg_rs_is_hex(buf, '\n')) {
                        memcpy(hex, buf, PG_RS_HEX);
                        hex[PG_RS_HEX] = '\0';
                        return 1;
                }
                if (strncmp(buf, "ref: refs/", 10) != 0 ||
                    (nl = strcspn(buf, "\n")) >= sizeof(name) || buf[nl] != '\n' || nl <= 5 ||
                    strstr(buf + 5, "..") != NULL)
                        return 0;
                memcpy(name, buf + 5, nl - 5);
                name[nl - 5] = '\0';
                if (headfd != reffd && (strncmp(name, "refs/worktree/", 14) == 0 ||
                                        strncmp(name, "refs/bisect/", 12) == 0 ||
                                        strncmp(name, "refs/rewritten/", 15) == 0))
                        return 0;
                if ((n = pg_rs_small(reffd, name, buf, sizeof(buf))) >= 0)
                        continue;
                if (errno != ENOENT)
                        return 0;
                /* packed-refs: "<hex> <name>\n" lines; '#' header, '^' peeled;
                 * a regular file (pg_rs_map), so its size bounds the read */
                {
                        size_t plen = 0, want = strlen(name);
                        const char *pr = pg_rs_map(reffd, "packed-refs", &plen), *line, *end;
                        int found = 0;

                        if (pr == NULL)
                                return 0; /* an unborn branch: libgit2 says it */
                        for (line = pr, end = pr + plen; line < end;) {
                                const char *eol = memchr(line, '\n', (size_t) (end - line));
                                size_t len = (size_t) ((eol ? eol : end) - line);
                                if (eol && len == PG_RS_HEX + 1 + want && pg_rs_is_hex(line, ' ') &&
                                    memcmp(line + PG_RS_HEX + 1, name, want) == 0) {
                                        memcpy(hex, line, PG_RS_HEX);
                                        hex[PG_RS_HEX] = '\0';
                                        found = 1;
                                        break;
                                }
                                line = eol ? eol + 1 : end;
                        }
                        munmap((void *) pr, plen);
                        return found;
                }
        }
        return 0;
}

/* zlib, loaded on first use (common/dlib.h): the answer is needed only
 * after the benchmark, and a linked library is mapped before main() */
#define PG_ZLIB_SONAME "libz.so.1"
static struct {
        __typeof__(inflateInit_) *init;
        __typeof__(inflate) *inflate;
        __typeof__(inflateEnd) *end;
} pg_zlib;
static pthread_once_t pg_zlib_once = PTHREAD_ONCE_INIT;
static bool pg_zlib_ok;

static void pg_zlib_load(void)
{
        static const char *const names[] = { "inflateInit_", "inflate", "inflateEnd" };
        void *fns[3];
        char why[256];

        if (!pg_dlib_load(PG_ZLIB_SONAME, "", names, fns, 3, why, sizeof(why)))
                return; /* no zlib: a packed commit is "cannot tell" */
        *(void **) &pg_zlib.init = fns[0];
        *(void **) &pg_zlib.inflate = fns[1];
        *(void **) &pg_zlib.end = fns[2];
        pg_zlib_ok = true;
}

/* The first bytes of a zlib stream at @in: inflate into @out (@cap bytes).
 * Returns the bytes produced, or -1 (also when zlib cannot be loaded). */
static ssize_t pg_rs_inflate(const unsigned char *in, size_t len, char *out, size_t cap)
{
        z_stream z;
        int rc;
        ssize_t got;

        pthread_once(&pg_zlib_once, pg_zlib_load);
        if (!pg_zlib_ok)
                return -1;
        memset(&z, 0, sizeof(z));
        /* inflateInit() is this macro of zlib.h */
        if (pg_zlib.init(&z, ZLIB_VERSION, (int) sizeof(z_stream)) != Z_OK)
                return -1;
        z.next_in = (unsigned char *) in;
        z.avail_in = (uInt) (len > UINT_MAX ? UINT_MAX : len);
        z.next_out = (unsigned char *) out;
        z.avail_out = (uInt) cap;
        rc = pg_zlib.inflate(&z, Z_SYNC_FLUSH);
        got = (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR)
                  ? (ssize_t) (cap - z.avail_out)
                  : -1;
        pg_zlib.end(&z);
        return got;
}

/* "tree <hex>\n" at the start of a commit's text: copy the hex. */
static int pg_rs_commit_tree(const char *text, ssize_t len, char *tree)
{
        if (len < 5 + PG_RS_HEX + 1 || memcmp(text, "tree ", 5) != 0 ||
            !pg_rs_is_hex(text + 5, '\n'))
                return 0;
        memcpy(tree, text + 5, PG_RS_HEX);
        tree[PG_RS_HEX] = '\0';
        return 1;
}

/* Commit @hex's tree id from a version 2 pack index @idx (its pack beside
 * it) in objects/pack/. 1 found, 0 not in this pack or cannot tell. */
static int pg_rs_packed_tree(int packfd, const char *idx, const unsigned char *raw, char *tree)
{
        size_t ilen = 0, plen = 0, plen_name = strlen(idx);
        const unsigned char *ix = pg_rs_map(packfd, idx, &ilen), *pk;
        uint32_t lo, hi, n;
        uint64_t off;
        char pack[NAME_MAX + 1], text[64];
        int found = 0;

        if (ix == NULL)
                return 0;
        if (ilen < 8 + 256 * 4 || memcmp(ix, "\377tOc", 4) != 0 || pg_rs_be32(ix + 4) != 2)
                goto done;
        /* the fanout: non-decreasing, its last entry the object count; then
         * n ids, n CRCs, n offsets, whole 8-byte large offsets, two ids */
        n = pg_rs_be32(ix + 8 + 255 * 4);
        for (int i = 1; i < 256; i++)
                if (pg_rs_be32(ix + 8 + i * 4) < pg_rs_be32(ix + 8 + (i - 1) * 4))
                        goto done;
        if (ilen < 8 + 256 * 4 + (size_t) n * 28 + 40 ||
            (ilen - (8 + 256 * 4 + (size_t) n * 28 + 40)) % 8 != 0)
                goto done;
        lo = raw[0] ? pg_rs_be32(ix + 8 + (raw[0] - 1) * 4) : 0;
        hi = pg_rs_be32(ix + 8 + raw[0] * 4);
        if (lo > hi || hi > n)
                goto done;
        while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                int c = memcmp(ix + 8 + 1024 + (size_t) mid * 20, raw, PG_RS_RAW);
                if (c == 0) {
                        lo = mid;
                        break;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo >= hi || memcmp(ix + 8 + 1024 + (size_t) lo * 20, raw, PG_RS_RAW) != 0)
                goto done;
        off = pg_rs_be32(ix + 8 + 1024 + (size_t) n * 24 + (size_t) lo * 4);
        if (off & 0x80000000u) {
                size_t at = 8 + 1024 + (size_t) n * 28 + (size_t) (off & 0x7fffffffu) * 8;
                if (at + 8 > ilen - 40)
                        goto done;
                off = (uint64_t) pg_rs_be32(ix + at) << 32 | pg_rs_be32(ix + at + 4);
        }
        if (plen_name < 4 || plen_name >= sizeof(pack))
                goto done;
        memcpy(pack, idx, plen_name - 4);
        memcpy(pack + plen_name - 4, ".pack", 6);
        if ((pk = pg_rs_map(packfd, pack, &plen)) == NULL)
                goto done;
        if (off < 12 || off >= plen) {
                munmap((void *) pk, plen);
                goto done;
        }
        {
                /* type (bits 4-6 of the first byte) and size, a varint: only a
                 * whole commit (type 1) is read; a delta means "cannot tell" */
                const unsigned char *p = pk + off, *end = pk + plen;
                unsigned type = (*p >> 4) & 7;
                while (p < end && (*p & 0x80))
                        p++;
                p++;
                if (type == 1 && p < end)
                        found = pg_rs_commit_tree(
                            text, pg_rs_inflate(p, (size_t) (end - p), text, sizeof(text)), tree);
        }
        munmap((void *) pk, plen);
done:
        munmap((void *) ix, ilen);
        return found;
}

/* The tree of commit @hex: a loose object, else a pack. 1 found, 0 cannot tell. */
static int pg_rs_tree_of(int gitfd, const char *hex, char *tree)
{
        char name[64], text[80];
        unsigned char raw[PG_RS_RAW];
        size_t len = 0;
        const unsigned char *obj;
        int packfd, found = 0;
        DIR *d;
        struct dirent *e;

        snprintf(name, sizeof(name), "objects/%.2s/%s", hex, hex + 2);
        if ((obj = pg_rs_map(gitfd, name, &len)) != NULL) {
                ssize_t got = pg_rs_inflate(obj, len, text, sizeof(text));
                const char *nul = got > 0 ? memchr(text, '\0', (size_t) got) : NULL;
                munmap((void *) obj, len);
                if (nul == NULL || strncmp(text, "commit ", 7) != 0)
                        return 0;
                return pg_rs_commit_tree(nul + 1, got - (nul + 1 - text), tree);
        }
        pg_rs_to_raw(hex, raw);
        if ((packfd = openat(gitfd, "objects/pack", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                return 0;
        if ((d = fdopendir(packfd)) == NULL) {
                close(packfd);
                return 0;
        }
        while (!found && (e = readdir(d)) != NULL) {
                size_t n = strlen(e->d_name);
                if (n > 4 && strcmp(e->d_name + n - 4, ".idx") == 0)
                        found = pg_rs_packed_tree(dirfd(d), e->d_name, raw, tree);
        }
        closedir(d);
        return found;
}

/* The config keys this reader does not follow (core.worktree, core.bare
 * true, [extensions], [include]/[includeIf], a repository format other
 * than 0): 1 when @cfg has none of them. Conservative: it looks at the
 * text, so a mention in a comment also means "cannot tell". */
static bool pg_rs_config_plain(char *cfg)
{
        for (char *p = cfg; *p; p++)
                *p = (char) (*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        if (strstr(cfg, "worktree") || strstr(cfg, "extensions") || strstr(cfg, "include") ||
            strstr(cfg, "objectformat"))
                return false;
        for (char *line = cfg; line && *line;) {
                char *eol = strchr(line, '\n'), *k = line;
                if (eol)
                        *eol = '\0';
                while (*k == ' ' || *k == '\t')
                        k++;
                if (strncmp(k, "bare", 4) == 0 || strncmp(k, "repositoryformatversion", 23) == 0) {
                        char *v = strchr(k, '=');
                        if (v == NULL)
                                return false;
                        v += strspn(v + 1, " \t") + 1;
                        if (strncmp(k, "bare", 4) == 0 ? strncmp(v, "false", 5) != 0 : *v != '0')
                                return false;
                }
                line = eol ? eol + 1 : NULL;
        }
        return true;
}

/* SHA-1 (FIPS 180-4, section 6.1): git's object ids here. */
struct pg_rs_sha1 {
        uint32_t h[5];
        uint64_t len;
        unsigned char buf[64];
};

static uint32_t pg_rs_rol(uint32_t x, int n)
{
        return x << n | x >> (32 - n);
}

static void pg_rs_sha1_block(struct pg_rs_sha1 *c, const unsigned char *p)
{
        uint32_t w[80], a = c->h[0], b = c->h[1], d = c->h[3], e = c->h[4], cc = c->h[2];

        for (int i = 0; i < 16; i++)
                w[i] = pg_rs_be32(p + 4 * i);
        for (int i = 16; i < 80; i++)
                w[i] = pg_rs_rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        for (int i = 0; i < 80; i++) {
                uint32_t f, k, t;
                if (i < 20) {
                        f = (b & cc) | (~b & d);
                        k = 0x5a827999u;
                } else if (i < 40) {
                        f = b ^ cc ^ d;
                        k = 0x6ed9eba1u;
                } else if (i < 60) {
                        f = (b & cc) | (b & d) | (cc & d);
                        k = 0x8f1bbcdcu;
                } else {
                        f = b ^ cc ^ d;
                        k = 0xca62c1d6u;
                }
                t = pg_rs_rol(a, 5) + f + e + k + w[i];
                e = d;
                d = cc;
                cc = pg_rs_rol(b, 30);
                b = a;
                a = t;
        }
        c->h[0] += a;
        c->h[1] += b;
        c->h[2] += cc;
        c->h[3] += d;
        c->h[4] += e;
}

static void pg_rs_sha1_init(struct pg_rs_sha1 *c)
{
        static const uint32_t h0[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u,
                                        0xc3d2e1f0u };
        memcpy(c->h, h0, sizeof(h0));
        c->len = 0;
}

static void pg_rs_sha1_add(struct pg_rs_sha1 *c, const void *data, size_t n)
{
        const unsigned char *p = data;

        while (n > 0) {
                size_t used = (size_t) (c->len % 64), take = 64 - used < n ? 64 - used : n;
                memcpy(c->buf + used, p, take);
                c->len += take;
                p += take;
                n -= take;
                if (c->len % 64 == 0)
                        pg_rs_sha1_block(c, c->buf);
        }
}

static void pg_rs_sha1_end(struct pg_rs_sha1 *c, unsigned char out[PG_RS_RAW])
{
        uint64_t bits = c->len * 8;
        unsigned char pad = 0x80, zero = 0, be[8];

        pg_rs_sha1_add(c, &pad, 1);
        while (c->len % 64 != 56)
                pg_rs_sha1_add(c, &zero, 1);
        for (int i = 0; i < 8; i++)
                be[i] = (unsigned char) (bits >> (56 - 8 * i));
        pg_rs_sha1_add(c, be, 8);
        for (int i = 0; i < 5; i++) {
                out[4 * i] = (unsigned char) (c->h[i] >> 24);
                out[4 * i + 1] = (unsigned char) (c->h[i] >> 16);
                out[4 * i + 2] = (unsigned char) (c->h[i] >> 8);
                out[4 * i + 3] = (unsigned char) c->h[i];
        }
}

/* Whether the work tree's @path (stat @st, at @topfd) hashes, as a blob, to
 * @id: what libgit2 does for an entry as new as the index. The content is
 * hashed as it is on disk; the caller makes sure no attributes could
 * filter it (a file git stores converted hashes differently). */
static bool pg_rs_blob_is(int topfd, const char *path, const struct stat *st,
                          const unsigned char *id)
{
        struct pg_rs_sha1 c;
        unsigned char got[PG_RS_RAW];
        char head[64], buf[65536];
        uint64_t total = 0;
        ssize_t n;

        pg_rs_sha1_init(&c);
        pg_rs_sha1_add(
            &c, head,
            (size_t) snprintf(head, sizeof(head), "blob %llu", (unsigned long long) st->st_size) +
                1);
        if (S_ISLNK(st->st_mode)) {
                n = readlinkat(topfd, path, buf, sizeof(buf));
                if (n < 0 || n != st->st_size)
                        return false;
                pg_rs_sha1_add(&c, buf, (size_t) n);
        } else {
                int fd = openat(topfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
                if (fd < 0)
                        return false;
                while ((n = read(fd, buf, sizeof(buf))) > 0) {
                        pg_rs_sha1_add(&c, buf, (size_t) n);
                        total += (uint64_t) n;
                }
                close(fd);
                if (n < 0 || total != (uint64_t) st->st_size)
                        return false;
        }
        pg_rs_sha1_end(&c, got);
        return memcmp(got, id, PG_RS_RAW) == 0;
}

/* Whether the file @name (at @dirfd) may exist: anything but a clean
 * ENOENT (or ENOTDIR: a parent is a file) says it may. */
static bool pg_rs_may_exist(int dirfd, const char *name)
{
        return faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
               (errno != ENOENT && errno != ENOTDIR);
}

/* Whether attributes could filter a racy entry's content on its way to a
 * blob (gitattributes(5): text/eol conversion, ident, filter drivers).
 * Conservative, it never reads an attributes file: any attributes file
 * that git or libgit2 could read (.git/info/attributes,
 * $XDG_CONFIG_HOME/git/attributes or ~/.config/git/attributes,
 * /etc/gitattributes), HOME unset (libgit2 then asks passwd), or a
 * configuration file (system, global, XDG, the repository's) that is
 * unreadable or mentions attributesfile, autocrlf, eol or include means it
 * may. The .gitattributes files of the work tree are the caller's. */
static bool pg_rs_may_filter(int gitfd)
{
        const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
        char cfg[16384], *paths[6] = { NULL };
        int np = 0;
        bool filter = home == NULL || pg_rs_may_exist(gitfd, "info/attributes") ||
                      pg_rs_may_exist(AT_FDCWD, "/etc/gitattributes");

        if (home) {
                paths[np++] = pg_xasprintf("%s/.config/git/attributes", home);
                paths[np++] = pg_xasprintf("%s/.gitconfig", home);
                paths[np++] = pg_xasprintf("%s/.config/git/config", home);
        }
        if (xdg && *xdg) {
                paths[np++] = pg_xasprintf("%s/git/attributes", xdg);
                paths[np++] = pg_xasprintf("%s/git/config", xdg);
        }
        for (int i = 0; !filter && i < np; i++)
                if (strcmp(paths[i] + strlen(paths[i]) - 10, "attributes") == 0)
                        filter = pg_rs_may_exist(AT_FDCWD, paths[i]);
        for (int i = -2; !filter && i < np; i++) {
                const char *p = i == -2 ? "/etc/gitconfig" : i == -1 ? "config" : paths[i];
                ssize_t n;
                if (strcmp(p + strlen(p) - 6, "config") != 0)
                        continue;
                n = pg_rs_small(i == -1 ? gitfd : AT_FDCWD, p, cfg, sizeof(cfg));
                if (n < 0 && errno != ENOENT && errno != ENOTDIR)
                        filter = true; /* unreadable, not a file, too long: cannot tell */
                for (ssize_t k = 0; k < n; k++)
                        cfg[k] = (char) (cfg[k] >= 'A' && cfg[k] <= 'Z' ? cfg[k] + 32 : cfg[k]);
                if (n > 0 && (strstr(cfg, "attributesfile") || strstr(cfg, "autocrlf") ||
                              strstr(cfg, "eol") || strstr(cfg, "include")))
                        filter = true;
        }
        for (int i = 0; i < np; i++)
                free(paths[i]);
        return filter;
}

/* Whether the work tree's attributes file @name (at @dirfd) may filter
 * content: false when it does not exist, or is a regular file that
 * mentions none of the attributes git's conversion reads (convert.c:
 * text, eol, crlf, ident, filter, working-tree-encoding) and defines no
 * macro ("[attr]", gitattributes(5)); so a file holding only, say,
 * export-subst or linguist-generated lines does not make libgit2 decide.
 * Conservative: it looks at the text (case-folded), not at the patterns;
 * unreadable, too long, a symbolic link or a NUL byte means it may. */
static bool pg_rs_attrs_file_filters(int dirfd, const char *name)
{
        static const char *const words[] = { "text",   "eol",      "crlf",  "ident",
                                             "filter", "encoding", "[attr]" };
        char buf[16384];
        struct stat st;
        ssize_t n;

        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno != ENOENT && errno != ENOTDIR;
        if (!S_ISREG(st.st_mode) || (n = pg_rs_small(dirfd, name, buf, sizeof(buf))) < 0 ||
            memchr(buf, '\0', (size_t) n) != NULL)
                return true;
        for (ssize_t k = 0; k < n; k++)
                buf[k] = (char) (buf[k] >= 'A' && buf[k] <= 'Z' ? buf[k] + 32 : buf[k]);
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
                if (strstr(buf, words[i]) != NULL)
                        return true;
        return false;
}

/* Whether a .gitattributes file that may filter content
 * (pg_rs_attrs_file_filters()) may exist in the top directory or in a
 * leading directory of @path (relative to @topfd): those are the files
 * whose attributes apply to it (gitattributes(5)), tracked or not. */
static bool pg_rs_attrs_near(int topfd, const char *path)
{
        char probe[PATH_MAX + 16];
        size_t len = strlen(path);

        if (pg_rs_attrs_file_filters(topfd, ".gitattributes"))
                return true;
        for (size_t k = 0; k < len; k++) {
                if (path[k] != '/')
                        continue;
                if (k + 16 > sizeof(probe))
                        return true;
                memcpy(probe, path, k);
                memcpy(probe + k, "/.gitattributes", 16);
                if (pg_rs_attrs_file_filters(topfd, probe))
                        return true;
        }
        return false;
}

/* Whether every leading directory of the index path @path (relative to
 * @topfd) is a directory and not a symbolic link: git does not look through
 * a symbolic link in a leading component (the entry counts as deleted),
 * while fstatat() follows it. Index entries are sorted, so @ok (PATH_MAX
 * bytes) keeps the directory verified last, @oklen its length, and only
 * the components beyond the part shared with it are checked (lstat each). */
static bool pg_rs_parents_real(int topfd, const char *path, char *ok, size_t *oklen)
{
        const char *slash = strrchr(path, '/');
        size_t plen = slash ? (size_t) (slash - path) : 0, i = 0, common;

        while (i < plen && i < *oklen && path[i] == ok[i])
                i++;
        /* the shared part ends at a component boundary of both */
        if ((i == plen || path[i] == '/') && (i == *oklen || ok[i] == '/'))
                common = i;
        else /* the last '/' before the difference, shared by both */
                for (common = i; common > 0 && path[--common] != '/';)
                        ;
        for (size_t k = common + 1; k <= plen; k++) {
                struct stat st;
                char dir[PATH_MAX];
                if (k != plen && path[k] != '/')
                        continue;
                memcpy(dir, path, k);
                dir[k] = '\0';
                if (fstatat(topfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
                        return false;
        }
        memcpy(ok, path, plen);
        *oklen = plen;
        return true;
}

/* The index (in the work tree's git directory @gitfd) against HEAD's tree
 * @tree and the work tree at @topfd: 1 when the cache tree's root is @tree
 * and every entry's stat data are those the index holds and older than the
 * index, or hashes to its blob (a racy entry, when no attributes or
 * configuration, read in the common directory @commonfd, could filter
 * it); 0 cannot tell. */
/* The largest index read here, in bytes (about 3,000 entries of a typical
 * project's path lengths) */
#define PG_RS_INDEX_MAX (256u << 10)

static int pg_rs_index_clean(int gitfd, int commonfd, int topfd, const char *tree)
{
        size_t len = 0, at = 12;
        const unsigned char *ix = pg_rs_map(gitfd, "index", &len);
        struct stat ist;
        uint32_t version, n;
        int clean = 0;
        bool root_ok = false;
        char okdir[PATH_MAX];
        size_t okdir_len = 0;
        struct pg_rs_sha1 sum;
        unsigned char digest[PG_RS_RAW];
        /* entries as new as the index, hashed once the attributes are known */
        struct {
                const unsigned char *entry;
                struct stat st;
        } racy[256];
        size_t nracy = 0;

        if (ix == NULL)
                return 0;
        if (fstatat(gitfd, "index", &ist, 0) < 0 || len < 12 + 20 || memcmp(ix, "DIRC", 4) != 0)
                goto done;
        version = pg_rs_be32(ix + 4);
        n = pg_rs_be32(ix + 8);
        if (version != 2 && version != 3)
                goto done;
        /* a large index (tens of thousands of files) costs more to verify
         * and walk than loading libgit2 does: that one decides */
        if (len > PG_RS_INDEX_MAX)
                goto done;
        /* the trailing SHA-1 of everything before it (gitformat-index(5));
         * a zero one (index.skipHash) proves nothing: cannot tell */
        pg_rs_sha1_init(&sum);
        pg_rs_sha1_add(&sum, ix, len - PG_RS_RAW);
        pg_rs_sha1_end(&sum, digest);
        if (memcmp(digest, ix + len - PG_RS_RAW, PG_RS_RAW) != 0)
                goto done;
        for (uint32_t i = 0; i < n; i++) {
                const unsigned char *e = ix + at;
                uint16_t flags;
                size_t fixed = 62, namelen;
                uint32_t mode, want;
                char path[PATH_MAX];
                struct stat st;

                if (at + 64 > len - 20)
                        goto done;
                flags = (uint16_t) (e[60] << 8 | e[61]);
                if (flags & 0x4000) { /* extended: skip-worktree, intent-to-add */
                        if (version < 3 || (e[62] | e[63]) != 0)
                                goto done;
                        fixed = 64;
                }
                if ((flags & 0x8000) || (flags & 0x3000)) /* assume-valid; a conflict stage */
                        goto done;
                namelen = flags & 0x0fff;
                if (namelen == 0x0fff || at + fixed + namelen + 1 > len - 20 ||
                    namelen >= sizeof(path) || e[fixed + namelen] != '\0')
                        goto done;
                memcpy(path, e + fixed, namelen);
                path[namelen] = '\0';
                at += (fixed + namelen + 8) & ~(size_t) 7;
                mode = pg_rs_be32(e + 24);
                if (path[0] == '/' || !pg_rs_parents_real(topfd, path, okdir, &okdir_len) ||
                    fstatat(topfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        goto done;
                /* a submodule: status excludes its content, not its type */
                if (mode == 0160000) {
                        if (!S_ISDIR(st.st_mode))
                                goto done;
                        continue;
                }
                if (S_ISREG(st.st_mode))
                        want = (st.st_mode & 0111) ? 0100755 : 0100644;
                else if (S_ISLNK(st.st_mode))
                        want = 0120000;
                else
                        goto done;
                if (mode != want || pg_rs_be32(e + 36) != (uint32_t) st.st_size ||
                    pg_rs_be32(e + 0) != (uint32_t) st.st_ctim.tv_sec ||
                    pg_rs_be32(e + 4) != (uint32_t) st.st_ctim.tv_nsec ||
                    pg_rs_be32(e + 8) != (uint32_t) st.st_mtim.tv_sec ||
                    pg_rs_be32(e + 12) != (uint32_t) st.st_mtim.tv_nsec ||
                    pg_rs_be32(e + 20) != (uint32_t) st.st_ino ||
                    pg_rs_be32(e + 28) != (uint32_t) st.st_uid ||
                    pg_rs_be32(e + 32) != (uint32_t) st.st_gid)
                        goto done;
                /* racy: as new as the index itself, libgit2 hashes it; so
                 * does this reader, once no attributes can filter it */
                if (st.st_mtim.tv_sec > ist.st_mtim.tv_sec ||
                    (st.st_mtim.tv_sec == ist.st_mtim.tv_sec &&
                     st.st_mtim.tv_nsec >= ist.st_mtim.tv_nsec)) {
                        if (nracy == sizeof(racy) / sizeof(racy[0]))
                                goto done;
                        racy[nracy].entry = e;
                        racy[nracy++].st = st;
                }
        }
        /* extensions: "TREE" gives the root's tree; a required one (lower-case
         * signature: split index "link", sparse "sdir") means cannot tell */
        while (at + 8 <= len - 20) {
                const unsigned char *x = ix + at;
                uint32_t xlen = pg_rs_be32(x + 4);
                if (xlen > len - 20 - at - 8)
                        goto done;
                if (memcmp(x, "TREE", 4) == 0) {
                        /* root: "" NUL, "<entries> <subtrees>\n", 20-byte id */
                        const char *t = (const char *) x + 8;
                        const char *nl = memchr(t, '\n', xlen);
                        unsigned char raw[PG_RS_RAW];
                        if (xlen == 0 || t[0] != '\0' || nl == NULL || t[1] == '-' ||
                            (size_t) (nl + 1 - t) + PG_RS_RAW > xlen)
                                goto done;
                        pg_rs_to_raw(tree, raw);
                        root_ok = memcmp(nl + 1, raw, PG_RS_RAW) == 0;
                } else if (x[0] < 'A' || x[0] > 'Z') {
                        goto done;
                }
                at += 8 + xlen;
        }
        if (!root_ok || at != len - 20)
                goto done;
        if (nracy > 0 && pg_rs_may_filter(commonfd))
                goto done;
        for (size_t i = 0; i < nracy; i++) {
                const unsigned char *e = racy[i].entry;
                const char *rpath = (const char *) e + ((e[60] & 0x40) ? 64 : 62);
                if (pg_rs_attrs_near(topfd, rpath) ||
                    !pg_rs_blob_is(topfd, rpath, &racy[i].st, e + 40))
                        goto done;
        }
        clean = 1;
done:
        munmap((void *) ix, len);
        return clean;
}

/* A path held by a git file (the .git file, commondir): "<prefix><path>\n"
 * exactly, the path not empty, without leading or trailing white space,
 * backslashes or another line: what git writes; anything else (which git
 * and libgit2 would trim or convert) is "cannot tell". Returns the path
 * inside @buf, NUL-terminated, or NULL. */
static const char *pg_rs_path_file(int dirfd, const char *name, const char *prefix, char *buf,
                                   size_t cap)
{
        ssize_t n = pg_rs_small(dirfd, name, buf, cap);
        size_t skip = strlen(prefix);
        char *p = buf + skip;

        if (n < (ssize_t) skip + 2 || strncmp(buf, prefix, skip) != 0 || buf[n - 1] != '\n')
                return NULL;
        buf[n - 1] = '\0';
        if (strpbrk(p, "\n\r\\") != NULL || *p == ' ' || *p == '\t' || buf[n - 2] == ' ' ||
            buf[n - 2] == '\t')
                return NULL;
        return p;
}

/* The work tree's git directory, opened, from its top @topfd: .git
 * itself, or (@linked: .git is a file, "gitdir: <path>", a linked work
 * tree or a separate git directory; gitrepository-layout(5), and libgit2's
 * read_gitfile()) the directory it names, relative to the top. -1 when it
 * cannot be opened or the file is not one git wrote. */
static int pg_rs_gitdir(int topfd, bool linked)
{
        char link[PATH_MAX + 16];
        const char *path =
            linked ? pg_rs_path_file(topfd, ".git", "gitdir: ", link, sizeof(link)) : ".git";

        return path ? openat(topfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
}

/* The common directory of the git directory @gitfd: the one its
 * "commondir" file names (relative to it; a linked work tree's, written
 * by `git worktree add`), or @gitfd itself when there is no such file. A
 * commondir beside a .git directory (not @linked) is "cannot tell" (-1),
 * as is one that cannot be read or opened. */
static int pg_rs_commondir(int gitfd, bool linked)
{
        char buf[PATH_MAX + 16];
        const char *path;

        if (faccessat(gitfd, "commondir", F_OK, AT_SYMLINK_NOFOLLOW) != 0)
                return errno == ENOENT ? gitfd : -1;
        if (!linked || (path = pg_rs_path_file(gitfd, "commondir", "", buf, sizeof(buf))) == NULL)
                return -1;
        return openat(gitfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int pg_repo_state_fast(const char *path, struct pg_repo_state *out)
{
        char *dir = realpath(path ? path : ".", NULL), cfg[16384], head[PG_RS_HEX + 1],
             tree[PG_RS_HEX + 1];
        int gitfd = -1, topfd = -1, commonfd = -1, rc = 0;
        struct stat st, sh;
        dev_t dev = 0;
        bool have_dev = false, found = false, linked = false;

        memset(out, 0, sizeof(*out));
        if (dir == NULL)
                return 0;
        /* find_repo() of libgit2 with no flags: <dir>/.git, then <dir> as a
         * git directory itself, then the parent; never past a device change */
        for (;;) {
                char *git = pg_xasprintf("%s%s.git", dir, strcmp(dir, "/") ? "/" : "");
                int isdir = -1;
                if (stat(git, &st) == 0) {
                        if (have_dev && st.st_dev != dev)
                                isdir = 2;
                        else
                                isdir = S_ISDIR(st.st_mode) ? 1 : 0;
                        dev = st.st_dev;
                        have_dev = true;
                }
                free(git);
                if (isdir == 1 || isdir == 0) { /* 0: a .git file (a linked work tree) */
                        found = true;
                        linked = isdir == 0;
                        break;
                }
                if (isdir == 2) /* a mount */
                        goto out;
                if (stat(dir, &st) == 0) {
                        char *h = pg_xasprintf("%s/HEAD", dir);
                        bool headfile = stat(h, &sh) == 0;
                        free(h);
                        if ((have_dev && st.st_dev != dev) || headfile)
                                goto out; /* a mount; perhaps a git directory (bare) */
                        dev = st.st_dev;
                        have_dev = true;
                }
                if (strcmp(dir, "/") == 0)
                        break;
                {
                        char *slash = strrchr(dir, '/');
                        *(slash == dir ? slash + 1 : slash) = '\0';
                }
                if (strcmp(dir, "/") == 0)
                        break; /* libgit2 stops before searching the root */
        }
        if (!found) {
                rc = pg_error_set(PG_ENOTFOUND,
                                  "not a git repository: '%s' (or any of its parents); "
                                  "building a commit needs the project's clone",
                                  path ? path : ".");
                goto out;
        }
        /* everything owned by this user (else pg_store_open() decides by
         * git's rules: safedir.h) */
        topfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (topfd < 0 || fstat(topfd, &st) < 0 || st.st_uid != geteuid() ||
            (gitfd = pg_rs_gitdir(topfd, linked)) < 0 || fstat(gitfd, &sh) < 0 ||
            sh.st_uid != geteuid() || (commonfd = pg_rs_commondir(gitfd, linked)) < 0 ||
            fstat(commonfd, &sh) < 0 || sh.st_uid != geteuid())
                goto out;
        /* HEAD and the index in the git directory; objects, refs, config,
         * info and shallow in the common one (gitrepository-layout(5)) */
        if (faccessat(gitfd, "HEAD", F_OK, 0) != 0 || fstatat(commonfd, "objects", &sh, 0) < 0 ||
            !S_ISDIR(sh.st_mode) || fstatat(commonfd, "refs", &sh, 0) < 0 || !S_ISDIR(sh.st_mode) ||
            faccessat(gitfd, "config.worktree", F_OK, 0) == 0)
                goto out;
        if (pg_rs_small(commonfd, "config", cfg, sizeof(cfg)) < 0 || !pg_rs_config_plain(cfg) ||
            faccessat(commonfd, "objects/info/alternates", F_OK, 0) == 0)
                goto out;
        if (!pg_rs_head(gitfd, commonfd, head) || !pg_rs_tree_of(commonfd, head, tree) ||
            !pg_rs_index_clean(gitfd, commonfd, topfd, tree))
                goto out;
        out->top = pg_xstrdup(dir);
        out->head = pg_xstrdup(head);
        out->shallow =
            fstatat(commonfd, "shallow", &sh, AT_SYMLINK_NOFOLLOW) == 0 && sh.st_size > 0;
        rc = 1;
out:
        if (commonfd >= 0 && commonfd != gitfd)
                close(commonfd);
        if (gitfd >= 0)
                close(gitfd);
        if (topfd >= 0)
                close(topfd);
        free(dir);
        return rc;
}
