/*
 * flamegraph.c - placeholder until the flame graph issue lands.
 */
#include "compare/flamegraph.h"

#include <string.h>

#include "common/error.h"

void pg_flame_opts_init(struct pg_flame_opts *o)
{
        memset(o, 0, sizeof(*o));
        o->minwidth_px = -1;
}

int pg_flamegraph_svg(struct pg_buf *out, const struct pg_stack *stacks, size_t n,
                      const struct pg_flame_opts *o)
{
        (void) out;
        (void) stacks;
        (void) n;
        (void) o;
        return pg_error_set(PG_ERROR, "flame graphs are not built into this perfgate yet");
}

int pg_flamegraph_diff_svg(struct pg_buf *out, const struct pg_stack *base, size_t nbase,
                           const struct pg_stack *head, size_t nhead, const struct pg_flame_opts *o)
{
        (void) out;
        (void) base;
        (void) nbase;
        (void) head;
        (void) nhead;
        (void) o;
        return pg_error_set(PG_ERROR, "flame graphs are not built into this perfgate yet");
}
