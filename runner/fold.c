/*
 * fold.c - frame-name rules for folded stacks (see fold.h).
 */
#include "runner/fold.h"

#include <string.h>

#include "common/json.h"

static const char *const pg_kind_suffix[] = { "", "_[k]", "_[i]", "_[j]" };

void pg_fold_append_frame(struct pg_buf *out, const char *name, size_t len, enum pg_frame_kind kind)
{
        size_t start = out->len;

        if (len == 0) {
                pg_buf_puts(out, "[unknown]");
        } else {
                pg_utf8_sanitize(out, name, len);
                for (size_t i = start; i < out->len; i++) {
                        if (out->ptr[i] == ';')
                                out->ptr[i] = ':';
                        else if (out->ptr[i] == '\n' || out->ptr[i] == '\r')
                                out->ptr[i] = ' ';
                }
        }
        pg_buf_puts(out, pg_kind_suffix[kind]);
}

void pg_fold_append_comm(struct pg_buf *out, const char *comm, size_t len, enum pg_comm_mode mode)
{
        size_t start = out->len, end;

        if (mode == PG_COMM_NONE)
                return;
        pg_fold_append_frame(out, comm, len, PG_FRAME_USER);
        for (size_t i = start; i < out->len; i++)
                if (out->ptr[i] == ' ')
                        out->ptr[i] = '_';
        if (mode != PG_COMM_NORMALIZE)
                return;
        end = out->len;
        while (end > start && out->ptr[end - 1] >= '0' && out->ptr[end - 1] <= '9')
                end--;
        if (end < out->len && end > start && strchr("-_/# ", out->ptr[end - 1]) != NULL) {
                pg_buf_truncate(out, end);
                pg_buf_putc(out, '*');
        }
}
