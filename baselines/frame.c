/*
 * frame.c - folded-frame annotations (frame.h).
 */
#include "baselines/frame.h"

#include <string.h>

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
