/*
 * kallsyms.c - /proc/kallsyms parsing and lookup (see kallsyms.h).
 * Invariant: syms is sorted by address and every name_off points at a
 * NUL-terminated name inside names.
 */
#include "runner/kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/interrupt.h"

/* Hex digit values, -1 for other bytes. */
static int pg_hexval(unsigned char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        c |= 0x20;
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Merge sorted @a[0..na) and @b[0..nb) into @out; on equal addresses @a's
 * entries (earlier in the file) come first, as a stable sort keeps them. */
static void pg_ksym_merge(const struct pg_ksym *a, size_t na, const struct pg_ksym *b, size_t nb,
                          struct pg_ksym *out)
{
        size_t i = 0, j = 0, k = 0;

        while (i < na && j < nb)
                out[k++] = b[j].addr < a[i].addr ? b[j++] : a[i++];
        while (i < na)
                out[k++] = a[i++];
        while (j < nb)
                out[k++] = b[j++];
}

/* Stable merge sort of @v[0..n) by address, @tmp: n entries of scratch. */
static void pg_ksym_sort(struct pg_ksym *v, size_t n, struct pg_ksym *tmp)
{
        size_t h = n / 2;

        if (n < 2)
                return;
        pg_ksym_sort(v, h, tmp);
        pg_ksym_sort(v + h, n - h, tmp);
        if (v[h - 1].addr <= v[h].addr)
                return; /* already in order (the usual case: the kernel lists its own
                           symbols by address, then each module's) */
        memcpy(tmp, v, n * sizeof(*v));
        pg_ksym_merge(tmp, h, tmp + h, n - h, v);
}

/*
 * Parse the kallsyms text @text (@len bytes, NUL-terminated, modified in
 * place: names are cut at their end) into @k, keeping text symbols.
 * Lines are "ADDR TYPE NAME[\t[MODULE]]" (kernel/kallsyms.c s_show).
 */
static void pg_kallsyms_parse(struct pg_kallsyms *k, char *text, size_t len)
{
        char *p = text, *end = text + len;
        size_t scap = 0;

        while (p < end) {
                uint64_t addr = 0;
                char *q = p, *name, *ne, c;
                int d;

                while ((d = pg_hexval((unsigned char) *q)) >= 0 && q - p < 16)
                        addr = addr << 4 | (uint64_t) d, q++;
                if (q != p && q[0] == ' ' && q[1] != '\0' && strchr("tTwW", q[1]) && q[2] == ' ') {
                        name = q + 3;
                        for (ne = name; *ne != ' ' && *ne != '\t' && *ne != '\n' && *ne != '\0';
                             ne++)
                                ;
                        if (ne > name) {
                                if (k->n == scap) {
                                        scap = scap ? scap * 2 : 4096;
                                        k->syms = pg_xreallocarray(k->syms, scap, sizeof(*k->syms));
                                }
                                k->syms[k->n++] =
                                    (struct pg_ksym){ addr, (uint32_t) (name - text) };
                                c = *ne;
                                *ne = '\0';
                                if (c == '\0')
                                        break;
                                q = ne + 1;
                                if (c == '\n') {
                                        p = q;
                                        continue;
                                }
                        }
                }
                q = memchr(q, '\n', (size_t) (end - q));
                p = q ? q + 1 : end;
        }
}

/* The whole of @path, NUL-terminated, its length in *@len; NULL when it cannot be opened. */
static char *pg_read_whole(const char *path, size_t *len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        char *text = NULL;
        size_t cap = 0;
        ssize_t n;

        *len = 0;
        if (fd < 0)
                return NULL;
        /* /proc files report size 0: read in large chunks until EOF */
        do {
                if (cap - *len < (1 << 20)) {
                        cap = cap ? cap * 2 : 8 << 20;
                        text = pg_xrealloc(text, cap + 1);
                }
                /* at most 64 KiB a call: sysctl files (boot_id) refuse a
                 * count they cannot allocate (ENOMEM), and seq_file gives a
                 * page a call anyway */
                n = read(fd, text + *len, cap - *len < (1 << 16) ? cap - *len : (1 << 16));
                if (n > 0)
                        *len += (size_t) n;
        } while (n > 0);
        close(fd);
        text[*len] = '\0';
        return text;
}

void pg_kallsyms_load(struct pg_kallsyms *k, const char *path)
{
        size_t len;
        char *text = pg_read_whole(path, &len);

        memset(k, 0, sizeof(*k));
        if (text == NULL)
                return;
        pg_kallsyms_parse(k, text, len);
        /* the names stay in the text they were read in */
        k->names = text;
        k->names_len = len + 1;
        if (k->n > 1) {
                struct pg_ksym *tmp = pg_xreallocarray(NULL, k->n, sizeof(*tmp));

                pg_ksym_sort(k->syms, k->n, tmp);
                free(tmp);
        }
}

/*
 * The cache's key into @key: the boot_id, then "NAME SIZE ADDRESS" of every
 * loaded module (/proc/modules lines are "NAME SIZE REFS DEPS STATE
 * ADDRESS", kernel/module/procfs.c m_show; the reference counts change
 * without the symbols changing). False when the boot_id cannot be read.
 */
static bool pg_ksym_key(const struct pg_kallsyms_src *src, struct pg_buf *key)
{
        size_t len;
        char *id = pg_read_whole(src->boot_id, &len), *mods, *line, *save = NULL;

        if (id == NULL || len == 0) {
                free(id);
                return false;
        }
        pg_buf_add(key, id, len);
        free(id);
        if ((mods = pg_read_whole(src->modules, &len)) == NULL)
                return errno == ENOENT; /* a kernel without modules */
        for (line = strtok_r(mods, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
                char name[256], state[32], deps[4096];
                unsigned long long size, addr;
                int refs;

                if (sscanf(line, "%255s %llu %d %4095s %31s %llx", name, &size, &refs, deps, state,
                           &addr) == 6)
                        pg_buf_printf(key, "%s %llu %llx\n", name, size, addr);
                else
                        pg_buf_printf(key, "%s\n", line);
        }
        free(mods);
        return true;
}

/* The module named after @name's terminating NUL ("[mod]", the line's next field), or NULL. */
static const char *pg_ksym_module(const struct pg_kallsyms *k, uint32_t name_off, size_t *len)
{
        const char *p = k->names + name_off, *e;

        p += strlen(p) + 1;
        if (p >= k->names + k->names_len || *p != '[' || (e = strchr(p, ']')) == NULL)
                return NULL;
        *len = (size_t) (e - p - 1);
        return p + 1;
}

/*
 * The address ranges in which a table read now stays exact while the key
 * holds (see pg_kallsyms_load_cached), appended to @ranges as inclusive
 * pairs: _stext to _etext, _sinittext to _einittext (the init text, where
 * start_kernel stays on the boot CPU's idle stack; fixed for the boot), and
 * the first to the last text symbol of each
 * module that /proc/modules lists (BPF's and ftrace's pseudo-modules are
 * not listed there).
 */
static size_t pg_ksym_ranges(const struct pg_kallsyms *k, const struct pg_kallsyms_src *src,
                             uint64_t (**ranges)[2])
{
        /* _stext, _etext, _sinittext, _einittext of the kernel proper */
        static const char *const bound[4] = { "_stext", "_etext", "_sinittext", "_einittext" };
        uint64_t at[4] = { 0 };
        size_t n = 0, mlen, len;
        bool run = false; /* the last range is the previous symbol's module's */
        char *mods = pg_read_whole(src->modules, &len);

        *ranges = NULL;
        for (size_t i = 0; i < k->n; i++) {
                const char *name = k->names + k->syms[i].name_off;

                for (int b = 0; b < 4; b++)
                        if (strcmp(name, bound[b]) == 0 &&
                            pg_ksym_module(k, k->syms[i].name_off, &mlen) == NULL)
                                at[b] = k->syms[i].addr;
        }
        for (int b = 0; b < 4; b += 2) {
                if (at[b] == 0 || at[b + 1] <= at[b])
                        continue;
                *ranges = pg_xreallocarray(*ranges, n + 1, sizeof(**ranges));
                (*ranges)[n][0] = at[b];
                (*ranges)[n++][1] = at[b + 1];
        }
        /* the table is sorted by address and a module's text is one
         * allocation: a run of one module's symbols is one range */
        for (size_t i = 0, plen = 0; mods != NULL && i < k->n; i++) {
                const char *m = pg_ksym_module(k, k->syms[i].name_off, &mlen);
                const char *pm = i > 0 ? pg_ksym_module(k, k->syms[i - 1].name_off, &plen) : NULL;
                char *hit;

                if (m == NULL || mlen == 0) {
                        run = false;
                        continue;
                }
                if (pm != NULL && plen == mlen && memcmp(pm, m, mlen) == 0) {
                        if (run)
                                (*ranges)[n - 1][1] = k->syms[i].addr;
                        continue;
                }
                run = false;
                /* a listed module: its name opens a line of /proc/modules */
                for (hit = mods; (hit = memmem(hit, len - (size_t) (hit - mods), m, mlen)) != NULL;
                     hit++)
                        if ((hit == mods || hit[-1] == '\n') && hit[mlen] == ' ')
                                break;
                if (hit == NULL)
                        continue;
                *ranges = pg_xreallocarray(*ranges, n + 1, sizeof(**ranges));
                (*ranges)[n][0] = (*ranges)[n][1] = k->syms[i].addr;
                n++;
                run = true;
        }
        free(mods);
        return n;
}

/*
 * The cache file: this header, the key (padded to 8 bytes), the ranges
 * (pairs of uint64_t), the symbols (struct pg_ksym), then the names, each
 * NUL-terminated; host byte order (a per-user, per-machine file).
 */
struct pg_ksym_hdr {
        char magic[8];
        uint64_t keylen, nranges, nsyms, names_len;
};

static const char pg_ksym_magic[8] = "PGKSYM\0\1";

/* Offsets of the parts of a cache file with @h's sizes; false when they overflow @size. */
static bool pg_ksym_layout(const struct pg_ksym_hdr *h, uint64_t size, uint64_t off[4])
{
        off[0] = sizeof(*h); /* key */
        if (h->keylen > size || h->nranges > size || h->nsyms > size || h->names_len > size)
                return false;
        off[1] = off[0] + (h->keylen + 7) / 8 * 8;           /* ranges */
        off[2] = off[1] + h->nranges * 16;                   /* syms */
        off[3] = off[2] + h->nsyms * sizeof(struct pg_ksym); /* names */
        return off[3] + h->names_len == size;
}

/*
 * The table of the cache file @path into @k when the file is usable and its
 * key is @key: 1; 0 when it is usable but of another key (written again
 * after the full read); -1 when it is missing or must not be used (then it
 * is removed, unless it is a symlink or missing).
 */
static int pg_ksym_cache_read(struct pg_kallsyms *k, const char *path, const struct pg_buf *key)
{
        /* O_NONBLOCK: a FIFO at the path never blocks the open */
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct pg_ksym_hdr h;
        struct stat st;
        uint64_t off[4];
        char *blob = NULL;
        bool ok;

        if (fd < 0)
                return -1;
        ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
             (st.st_mode & 022) == 0 && (size_t) st.st_size >= sizeof(h);
        if (ok) {
                /* mapped, not read: most of the names are never touched */
                blob = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
                if (blob == MAP_FAILED)
                        blob = NULL;
                ok = blob != NULL;
        }
        close(fd);
        if (ok) {
                memcpy(&h, blob, sizeof(h));
                ok = memcmp(h.magic, pg_ksym_magic, sizeof(h.magic)) == 0 &&
                     pg_ksym_layout(&h, (uint64_t) st.st_size, off) && h.nsyms > 0 &&
                     h.names_len > 0 && blob[off[3] + h.names_len - 1] == '\0';
        }
        if (ok && (h.keylen != key->len || memcmp(blob + off[0], key->ptr, key->len) != 0)) {
                munmap(blob, (size_t) st.st_size);
                return 0;
        }
        if (ok) {
                k->ranges = (uint64_t(*)[2])(void *) (blob + off[1]);
                k->nranges = (size_t) h.nranges;
                k->syms = (struct pg_ksym *) (void *) (blob + off[2]);
                k->n = (size_t) h.nsyms;
                k->names = blob + off[3];
                k->names_len = (size_t) h.names_len;
                for (size_t i = 0; ok && i < k->n; i++)
                        ok = k->syms[i].name_off < k->names_len &&
                             (i == 0 || k->syms[i - 1].addr <= k->syms[i].addr);
                for (size_t i = 0; ok && i < k->nranges; i++)
                        ok = k->ranges[i][0] <= k->ranges[i][1];
                ok = ok && pg_kallsyms_visible(k);
        }
        if (!ok) {
                if (blob != NULL)
                        munmap(blob, (size_t) st.st_size);
                memset(k, 0, sizeof(*k));
                (void) unlink(path); /* in the user's own directory: written again */
                return -1;
        }
        k->blob = blob;
        k->blob_len = (size_t) st.st_size;
        k->cached = true;
        return 1;
}

/* Write the full table @k with @key and its ranges to the cache file @path (temp + rename). */
static void pg_ksym_cache_write(const struct pg_kallsyms *k, const struct pg_kallsyms_src *src,
                                const char *path, const struct pg_buf *key)
{
        struct pg_buf out = PG_BUF_INIT, names = PG_BUF_INIT;
        struct pg_ksym_hdr h = { { 0 }, key->len, 0, k->n, 0 };
        struct pg_ksym *syms = pg_xcalloc(k->n, sizeof(*syms)); /* padding written as zeros */
        uint64_t(*ranges)[2];
        char tmp[4096];
        int fd;

        h.nranges = pg_ksym_ranges(k, src, &ranges);
        for (size_t i = 0; i < k->n; i++) {
                const char *name = k->names + k->syms[i].name_off;

                syms[i].addr = k->syms[i].addr;
                syms[i].name_off = (uint32_t) names.len;
                pg_buf_add(&names, name, strlen(name) + 1);
        }
        memcpy(h.magic, pg_ksym_magic, sizeof(h.magic));
        h.names_len = names.len;
        pg_buf_add(&out, &h, sizeof(h));
        pg_buf_add(&out, key->ptr, key->len);
        pg_buf_add(&out, "\0\0\0\0\0\0\0", (8 - key->len % 8) % 8);
        pg_buf_add(&out, ranges, h.nranges * sizeof(*ranges));
        pg_buf_add(&out, syms, k->n * sizeof(*syms));
        pg_buf_add(&out, names.ptr, names.len);
        if ((size_t) snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) < sizeof(tmp) &&
            (fd = pg_mkstemp_tracked(tmp)) >= 0) {
                bool ok = write(fd, out.ptr, out.len) == (ssize_t) out.len;

                if (close(fd) != 0 || !ok || rename(tmp, path) != 0)
                        (void) unlink(tmp);
                pg_interrupt_untrack(tmp);
        }
        free(ranges);
        free(syms);
        pg_buf_release(&names);
        pg_buf_release(&out);
}

void pg_kallsyms_load_cached(struct pg_kallsyms *k, const struct pg_kallsyms_src *src)
{
        struct pg_buf key = PG_BUF_INIT;

        memset(k, 0, sizeof(*k));
        if (src->cache != NULL && pg_ksym_key(src, &key) &&
            pg_ksym_cache_read(k, src->cache, &key) == 1) {
                k->reload_path = pg_xstrdup(src->kallsyms);
                pg_buf_release(&key);
                return;
        }
        pg_kallsyms_load(k, src->kallsyms);
        if (src->cache != NULL && key.len > 0 && pg_kallsyms_visible(k))
                pg_ksym_cache_write(k, src, src->cache, &key);
        pg_buf_release(&key);
}

const char *pg_kallsyms_find(struct pg_kallsyms *k, uint64_t addr)
{
        if (k->cached) {
                size_t i = 0;

                while (i < k->nranges && !(k->ranges[i][0] <= addr && addr <= k->ranges[i][1]))
                        i++;
                if (i == k->nranges) { /* a symbol that may have come since */
                        char *path = k->reload_path;

                        k->reload_path = NULL;
                        pg_kallsyms_release(k);
                        pg_kallsyms_load(k, path);
                        free(path);
                }
        }
        return pg_kallsyms_lookup(k, addr);
}

void pg_kallsyms_release(struct pg_kallsyms *k)
{
        if (k->blob != NULL) {
                munmap(k->blob, k->blob_len);
        } else {
                free(k->syms);
                free(k->names);
        }
        free(k->reload_path);
        memset(k, 0, sizeof(*k));
}

bool pg_kallsyms_shown(const char *path)
{
        FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
        char line[256];
        bool shown = false;

        if (f == NULL)
                return false;
        while (fgets(line, sizeof(line), f)) {
                if (strtoull(line, NULL, 16) != 0) {
                        shown = true;
                        break;
                }
                if (ftell(f) > 1 << 16)
                        break;
        }
        fclose(f);
        return shown;
}

bool pg_kallsyms_visible(const struct pg_kallsyms *k)
{
        return k->n > 0 && k->syms[k->n - 1].addr != 0;
}

const char *pg_kallsyms_lookup(const struct pg_kallsyms *k, uint64_t addr)
{
        size_t lo = 0, hi = k->n;

        if (!pg_kallsyms_visible(k) || addr < k->syms[0].addr)
                return NULL;
        while (hi - lo > 1) { /* invariant: syms[lo].addr <= addr */
                size_t mid = lo + (hi - lo) / 2;

                if (k->syms[mid].addr <= addr)
                        lo = mid;
                else
                        hi = mid;
        }
        return k->names + k->syms[lo].name_off;
}
