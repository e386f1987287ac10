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
