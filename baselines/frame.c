/*
 * frame.c - folded-frame annotations (frame.h).
 */
#include "baselines/frame.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static const char *const pg_frame_suffixes[] = { "", "_[k]", "_[i]", "_[j]" };

const char *pg_frame_suffix(enum pg_frame_kind kind)
{
        return pg_frame_suffixes[kind];
}

size_t pg_frame_strip(const char *s, size_t len, enum pg_frame_kind *kind)
{
        *kind = PG_FRAME_USER;
        if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']') {
                switch (s[len - 2]) {
                case 'k':
                        *kind = PG_FRAME_KERNEL;
                        return len - 4;
                case 'j':
                        *kind = PG_FRAME_JIT;
                        return len - 4;
                case 'i':
                        *kind = PG_FRAME_INLINED;
                        return len - 4;
                default:
                        break;
                }
        }
        return len;
}

bool pg_frame_is_inlined(const char *s, size_t len)
{
        return len >= 4 && memcmp(s + len - 4, "_[i]", 4) == 0;
}

size_t pg_frame_self(const char *stack, size_t len, size_t *frame_len)
{
        const char *first = memchr(stack, ';', len);
        size_t end = len, leaf = 0, leaf_len = 0;

        if (!first) {
                *frame_len = len;
                return 0;
        }
        for (;;) {
                size_t b = end;

                while (b > 0 && stack[b - 1] != ';')
                        b--;
                if (end == len) {
                        leaf = b;
                        leaf_len = len - b;
                }
                if (!pg_frame_is_inlined(stack + b, end - b)) {
                        *frame_len = end - b;
                        return b;
                }
                if (stack + b - 1 == first) /* only the comm is left above it */
                        break;
                end = b - 1;
        }
        *frame_len = leaf_len;
        return leaf;
}

/* Whether @name starts with "_cgo_", 12 lowercase hex digits and "_". */
static bool pg_frame_is_cgo(const char *name, size_t len)
{
        if (len <= 5 + PG_FRAME_CGO_HASH - 1 || memcmp(name, "_cgo_", 5) != 0 ||
            name[5 + PG_FRAME_CGO_HASH - 1] != '_')
                return false;
        for (size_t i = 5; i < 5 + PG_FRAME_CGO_HASH - 1; i++)
                if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
                        return false;
        return true;
}

/* pg_frame_key() of @name in two pieces, without copying: the first
 * *head bytes of @name, then *tail_len bytes at *tail. */
static void pg_frame_key_parts(const char *name, size_t len, size_t *head, const char **tail,
                               size_t *tail_len)
{
        if (pg_frame_is_inlined(name, len))
                len -= 4;
        if (pg_frame_is_cgo(name, len)) {
                *head = 5;
                *tail = name + 5 + PG_FRAME_CGO_HASH;
                *tail_len = len - 5 - PG_FRAME_CGO_HASH;
        } else {
                *head = len;
                *tail = name + len;
                *tail_len = 0;
        }
}

const char *pg_frame_key(const char *name, size_t len, char *buf, size_t *key_len)
{
        size_t head, tail_len;
        const char *tail;

        pg_frame_key_parts(name, len, &head, &tail, &tail_len);
        *key_len = head + tail_len;
        if (!tail_len)
                return name;
        memcpy(buf, name, head);
        memcpy(buf + head, tail, tail_len);
        return buf;
}

bool pg_frame_same(const char *a, size_t alen, const char *b, size_t blen)
{
        size_t ha, hb, ta, tb;
        const char *xa, *xb;

        pg_frame_key_parts(a, alen, &ha, &xa, &ta);
        pg_frame_key_parts(b, blen, &hb, &xb, &tb);
        if (ha + ta != hb + tb)
                return false;
        for (size_t i = 0; i < ha + ta; i++)
                if ((i < ha ? a[i] : xa[i - ha]) != (i < hb ? b[i] : xb[i - hb]))
                        return false;
        return true;
}

/* The length of @name without "_[i]" when it is a cgo wrapper, else 0. */
static size_t pg_frame_cgo_len(const char *name, size_t len)
{
        if (pg_frame_is_inlined(name, len))
                len -= 4;
        return pg_frame_is_cgo(name, len) ? len : 0;
}

void pg_frame_pairing_add(struct pg_frame_pairing *fp, int side, const char *name, size_t len)
{
        size_t n = pg_frame_cgo_len(name, len), i;

        if (!n)
                return;
        i = pg_strmap_intern(&fp->names, name, n, NULL);
        if (i >= fp->cap) {
                size_t old = fp->cap;

                fp->cap = fp->cap ? 2 * fp->cap : 16;
                while (fp->cap <= i)
                        fp->cap *= 2;
                fp->flags = pg_xrealloc(fp->flags, fp->cap);
                memset(fp->flags + old, 0, fp->cap - old);
        }
        fp->flags[i] |= (uint8_t) (side ? 2 : 1);
}

void pg_frame_pairing_add_stack(struct pg_frame_pairing *fp, int side, const char *stack,
                                size_t len)
{
        const char *end = stack + len, *f = stack;

        /* only frames starting "_cgo_" can be wrappers: find those */
        while (f < end) {
                const char *semi = memchr(f, ';', (size_t) (end - f));
                const char *fe = semi ? semi : end;

                if (fe - f > 5 && memcmp(f, "_cgo_", 5) == 0)
                        pg_frame_pairing_add(fp, side, f, (size_t) (fe - f));
                if (!semi)
                        break;
                f = semi + 1;
                /* skip to the next frame that may be a wrapper */
                while (f < end && *f != '_') {
                        semi = memchr(f, ';', (size_t) (end - f));
                        if (!semi) {
                                f = end;
                                break;
                        }
                        f = semi + 1;
                }
        }
}

void pg_frame_pairing_finish(struct pg_frame_pairing *fp)
{
        struct pg_strmap keys = PG_STRMAP_INIT;
        uint32_t *counts = NULL; /* per key: names on base only, names on head only */
        size_t *key_of = pg_xcalloc(fp->names.n ? fp->names.n : 1, sizeof(*key_of));
        char *buf = NULL;
        size_t bufcap = 0, capc = 0;

        for (size_t i = 0; i < fp->names.n; i++) {
                const char *name = fp->names.keys[i].ptr, *k;
                size_t len = fp->names.keys[i].len, klen, ki;

                fp->flags[i] &= 3;
                if (fp->flags[i] == 3)
                        continue; /* on both sides: by itself */
                if (len > bufcap) {
                        bufcap = len;
                        buf = pg_xrealloc(buf, bufcap);
                }
                k = pg_frame_key(name, len, buf, &klen);
                ki = pg_strmap_intern(&keys, k, klen, NULL);
                if (2 * ki + 2 > capc) {
                        size_t old = capc;

                        capc = capc ? 2 * capc : 16;
                        while (capc < 2 * ki + 2)
                                capc *= 2;
                        counts = pg_xreallocarray(counts, capc, sizeof(*counts));
                        memset(counts + old, 0, (capc - old) * sizeof(*counts));
                }
                counts[2 * ki + (fp->flags[i] == 2)]++;
                key_of[i] = ki;
        }
        for (size_t i = 0; i < fp->names.n; i++)
                if (fp->flags[i] != 3 && counts[2 * key_of[i]] == 1 &&
                    counts[2 * key_of[i] + 1] == 1)
                        fp->flags[i] |= 4;
        free(buf);
        free(counts);
        free(key_of);
        pg_strmap_release(&keys);
}

/* Whether cgo wrapper @name (@n bytes, without "_[i]") pairs by key. */
static bool pg_frame_pairs(const struct pg_frame_pairing *fp, const char *name, size_t n)
{
        size_t i;

        return pg_strmap_find(&fp->names, name, n, &i) && (fp->flags[i] & 4);
}

const char *pg_frame_pair_key(const struct pg_frame_pairing *fp, const char *name, size_t len,
                              char *buf, size_t *key_len)
{
        size_t n = fp ? pg_frame_cgo_len(name, len) : 0;

        if (!n || pg_frame_pairs(fp, name, n))
                return pg_frame_key(name, len, buf, key_len);
        *key_len = n;
        return name;
}

bool pg_frame_pair_same(const struct pg_frame_pairing *fp, const char *a, size_t alen,
                        const char *b, size_t blen)
{
        size_t na = fp ? pg_frame_cgo_len(a, alen) : 0, nb = fp ? pg_frame_cgo_len(b, blen) : 0;
        bool ka = !na || pg_frame_pairs(fp, a, na), kb = !nb || pg_frame_pairs(fp, b, nb);

        if (ka && kb)
                return pg_frame_same(a, alen, b, blen);
        if (ka || kb) /* a wrapper by itself is no other frame */
                return false;
        return na == nb && memcmp(a, b, na) == 0;
}

void pg_frame_pairing_release(struct pg_frame_pairing *fp)
{
        pg_strmap_release(&fp->names);
        free(fp->flags);
        memset(fp, 0, sizeof(*fp));
}
