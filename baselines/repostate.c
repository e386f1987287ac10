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
 * entry as new as the index is racy and hashed). Whatever is not covered
 * (a .git file, a separate common dir, index version 4, a split or sparse
 * index, an invalid cache tree, a deltified commit, an alternate object
 * store, SHA-256, core.worktree, extensions, includes, a directory of
 * another user, any stat difference, a racy entry when attributes could
 * filter content) returns "cannot tell" and the caller asks libgit2.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "common/error.h"

#define PG_RS_HEX 40 /* SHA-1 object ids only */
#define PG_RS_RAW 20

/* A small file (HEAD, a ref, config): at most @cap - 1 bytes, NUL-terminated.
 * Returns its length, or -1 (missing, unreadable or larger). */
static ssize_t pg_rs_small(int dirfd, const char *name, char *buf, size_t cap)
{
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t n, len = 0;

        if (fd < 0)
                return -1;
        while ((n = read(fd, buf + len, cap - 1 - (size_t) len)) > 0)
                len += n;
        close(fd);
        if (n < 0 || (size_t) len >= cap - 1)
                return -1;
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

/* HEAD's commit into @hex (41 bytes): HEAD and the refs it names (loose, or
 * in packed-refs), at most 5 symbolic hops. 1 resolved, 0 cannot tell. */
static int pg_rs_head(int gitfd, char *hex)
{
        char buf[512], name[256];
        ssize_t n = pg_rs_small(gitfd, "HEAD", buf, sizeof(buf));

        for (int hop = 0; hop < 5 && n > 0; hop++) {
                char *packed;
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
                if ((n = pg_rs_small(gitfd, name, buf, sizeof(buf))) >= 0)
                        continue;
                if (errno != ENOENT)
                        return 0;
                /* packed-refs: "<hex> <name>\n" lines; '#' header, '^' peeled */
                {
                        struct pg_buf pr = PG_BUF_INIT;
                        int fd = openat(gitfd, "packed-refs", O_RDONLY | O_CLOEXEC), found = 0;
                        char chunk[65536];
                        ssize_t r;
                        size_t want = strlen(name);

                        if (fd < 0)
                                return 0; /* an unborn branch: libgit2 says it */
                        while ((r = read(fd, chunk, sizeof(chunk))) > 0)
                                pg_buf_add(&pr, chunk, (size_t) r);
                        close(fd);
                        for (packed = pr.ptr; packed && r == 0 && *packed;) {
                                char *eol = strchr(packed, '\n');
                                size_t len = eol ? (size_t) (eol - packed) : strlen(packed);
                                if (len == PG_RS_HEX + 1 + want && pg_rs_is_hex(packed, ' ') &&
                                    memcmp(packed + PG_RS_HEX + 1, name, want) == 0) {
                                        memcpy(hex, packed, PG_RS_HEX);
                                        hex[PG_RS_HEX] = '\0';
                                        found = 1;
                                        break;
                                }
                                packed = eol ? eol + 1 : NULL;
                        }
                        pg_buf_release(&pr);
                        return found;
                }
        }
        return 0;
}

/* The first bytes of a zlib stream at @in: inflate into @out (@cap bytes).
 * Returns the bytes produced, or -1. */
static ssize_t pg_rs_inflate(const unsigned char *in, size_t len, char *out, size_t cap)
{
        z_stream z;
        int rc;
        ssize_t got;

        memset(&z, 0, sizeof(z));
        if (inflateInit(&z) != Z_OK)
                return -1;
        z.next_in = (unsigned char *) in;
        z.avail_in = (uInt) (len > UINT_MAX ? UINT_MAX : len);
        z.next_out = (unsigned char *) out;
        z.avail_out = (uInt) cap;
        rc = inflate(&z, Z_SYNC_FLUSH);
        got = (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR)
                  ? (ssize_t) (cap - z.avail_out)
                  : -1;
        inflateEnd(&z);
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

static void *pg_rs_map(int dirfd, const char *name, size_t *len)
{
        int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
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
        n = pg_rs_be32(ix + 8 + 255 * 4);
        if (ilen < 8 + 256 * 4 + (size_t) n * 28 + 40)
                goto done;
        lo = raw[0] ? pg_rs_be32(ix + 8 + (raw[0] - 1) * 4) : 0;
        hi = pg_rs_be32(ix + 8 + raw[0] * 4);
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

/* Whether the tracked attributes file @path (at @topfd) may set an
 * attribute that filters content (gitattributes(5): text, eol, crlf,
 * ident, filter, working-tree-encoding); conservative: it looks at the
 * text. */
static bool pg_rs_attrs_filter(int topfd, const char *path)
{
        char text[16384];
        ssize_t n = pg_rs_small(topfd, path, text, sizeof(text));

        if (n < 0)
                return errno != ENOENT;
        for (ssize_t k = 0; k < n; k++)
                text[k] = (char) (text[k] >= 'A' && text[k] <= 'Z' ? text[k] + 32 : text[k]);
        return strstr(text, "text") || strstr(text, "eol") || strstr(text, "crlf") ||
               strstr(text, "ident") || strstr(text, "filter") || strstr(text, "encoding");
}

/* Whether attributes could filter a file's content on its way to a blob
 * (gitattributes(5): text/eol conversion, ident, filter drivers): a
 * tracked .gitattributes that may (@any_attrs), .git/info/attributes, or
 * an attributes file or CRLF setting named in a configuration file. */
static bool pg_rs_may_filter(int gitfd, bool any_attrs)
{
        static const char *const global[] = { "/etc/gitconfig", NULL, NULL };
        const char *home = getenv("HOME");
        char cfg[16384], *paths[2] = { NULL, NULL };
        bool filter = any_attrs || faccessat(gitfd, "info/attributes", F_OK, 0) == 0;

        if (home) {
                paths[0] = pg_xasprintf("%s/.gitconfig", home);
                paths[1] = pg_xasprintf("%s/.config/git/attributes", home);
                if (access(paths[1], F_OK) == 0)
                        filter = true;
        }
        for (int i = 0; !filter && i < 3; i++) {
                const char *p = i == 0 ? global[0] : i == 1 ? paths[0] : "config";
                ssize_t n = p ? pg_rs_small(i == 2 ? gitfd : AT_FDCWD, p, cfg, sizeof(cfg)) : -1;
                if (n < 0 && p && errno != ENOENT)
                        filter = true; /* unreadable or too long: cannot tell */
                for (ssize_t k = 0; k < n; k++)
                        cfg[k] = (char) (cfg[k] >= 'A' && cfg[k] <= 'Z' ? cfg[k] + 32 : cfg[k]);
                if (n > 0 && (strstr(cfg, "attributesfile") || strstr(cfg, "autocrlf") ||
                              strstr(cfg, "eol")))
                        filter = true;
        }
        free(paths[0]);
        free(paths[1]);
        return filter;
}

/* The index at .git/index against HEAD's tree @tree and the work tree at
 * @topfd: 1 when the cache tree's root is @tree and every entry's stat data
 * are those the index holds and older than the index; 0 cannot tell. */
static int pg_rs_index_clean(int gitfd, int topfd, const char *tree)
{
        size_t len = 0, at = 12;
        const unsigned char *ix = pg_rs_map(gitfd, "index", &len);
        struct stat ist;
        uint32_t version, n;
        int clean = 0;
        bool root_ok = false, any_attrs = false;
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
                if (mode == 0160000) /* a submodule: status excludes them */
                        continue;
                if (fstatat(topfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        goto done;
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
                if (strcmp(path + (namelen >= 14 ? namelen - 14 : 0), ".gitattributes") == 0 &&
                    (namelen == 14 || path[namelen - 15] == '/'))
                        any_attrs |= pg_rs_attrs_filter(topfd, path);
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
        if (nracy > 0 && pg_rs_may_filter(gitfd, any_attrs))
                goto done;
        for (size_t i = 0; i < nracy; i++) {
                const unsigned char *e = racy[i].entry;
                size_t fixed = (e[60] & 0x40) ? 64 : 62;
                if (!pg_rs_blob_is(topfd, (const char *) e + fixed, &racy[i].st, e + 40))
                        goto done;
        }
        clean = 1;
done:
        munmap((void *) ix, len);
        return clean;
}

int pg_repo_state_fast(const char *path, struct pg_repo_state *out)
{
        char *dir = realpath(path ? path : ".", NULL), cfg[16384], head[PG_RS_HEX + 1],
             tree[PG_RS_HEX + 1];
        int gitfd = -1, topfd = -1, rc = 0;
        struct stat st, sh;
        dev_t dev = 0;
        bool have_dev = false, found = false;

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
                if (isdir == 1) {
                        found = true;
                        break;
                }
                if (isdir == 0 || isdir == 2) /* a .git file (a linked work tree); a mount */
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
        /* <dir>/.git is a directory: a plain clone, owned by this user (else
         * libgit2's ownership rules decide), with no separate common dir */
        topfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        gitfd = openat(topfd, ".git", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (topfd < 0 || gitfd < 0 || fstat(topfd, &st) < 0 || fstat(gitfd, &sh) < 0 ||
            st.st_uid != geteuid() || sh.st_uid != geteuid() ||
            faccessat(gitfd, "commondir", F_OK, 0) == 0 || faccessat(gitfd, "HEAD", F_OK, 0) != 0 ||
            fstatat(gitfd, "objects", &sh, 0) < 0 || !S_ISDIR(sh.st_mode) ||
            fstatat(gitfd, "refs", &sh, 0) < 0 || !S_ISDIR(sh.st_mode))
                goto out;
        if (pg_rs_small(gitfd, "config", cfg, sizeof(cfg)) < 0 || !pg_rs_config_plain(cfg) ||
            faccessat(gitfd, "objects/info/alternates", F_OK, 0) == 0)
                goto out;
        if (!pg_rs_head(gitfd, head) || !pg_rs_tree_of(gitfd, head, tree) ||
            !pg_rs_index_clean(gitfd, topfd, tree))
                goto out;
        out->top = pg_xstrdup(dir);
        out->head = pg_xstrdup(head);
        out->shallow = fstatat(gitfd, "shallow", &sh, AT_SYMLINK_NOFOLLOW) == 0 && sh.st_size > 0;
        rc = 1;
out:
        if (gitfd >= 0)
                close(gitfd);
        if (topfd >= 0)
                close(topfd);
        free(dir);
        return rc;
}
