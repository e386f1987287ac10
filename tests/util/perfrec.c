/*
 * perfrec.c - hand-built perf records for tests (see perfrec.h).
 */
#include "tests/util/perfrec.h"

#include <string.h>

void pg_rec_begin(struct pg_rec *r, uint32_t type, uint16_t misc)
{
        struct perf_event_header h = { type, misc, 0 };

        memcpy(r->b, &h, sizeof(h));
        r->n = sizeof(h);
}

void pg_rec_put64(struct pg_rec *r, uint64_t v)
{
        memcpy(r->b + r->n, &v, 8);
        r->n += 8;
}

void pg_rec_put32x2(struct pg_rec *r, uint32_t a, uint32_t b)
{
        memcpy(r->b + r->n, &a, 4);
        memcpy(r->b + r->n + 4, &b, 4);
        r->n += 8;
}

void pg_rec_putstr(struct pg_rec *r, const char *s)
{
        size_t len = strlen(s) + 1, pad = (len + 7) & ~(size_t) 7;

        memset(r->b + r->n, 0, pad);
        memcpy(r->b + r->n, s, len);
        r->n += pad;
}

void pg_rec_finish(struct pg_rec *r)
{
        uint16_t size = (uint16_t) r->n;

        memcpy(r->b + 6, &size, 2);
}
