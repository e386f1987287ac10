/*
 * frame.c - folded-frame annotations (frame.h).
 */
#include "baselines/frame.h"

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
