/*
 * offcpu.c - off-CPU profiles compared per blocking path (see offcpu.h).
 * Invariant: every path of either profile appears once in items, with its
 * figure from each side (0 where absent).
 */
#include "compare/offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "common/buf.h"
#include "common/hashmap.h"

void pg_offcpu_cmp_init(struct pg_offcpu_cmp *c)
{
        memset(c, 0, sizeof(*c));
}

void pg_offcpu_cmp_release(struct pg_offcpu_cmp *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->items[i].path);
        free(c->items);
        free(c->reason);
        pg_offcpu_cmp_init(c);
}

void pg_offcpu_path(struct pg_buf *out, const char *frames)
{
        const char *fr = strchr(frames, ';'); /* the comm is skipped */

        pg_buf_reset(out);
        while (fr) {
                const char *start = fr + 1, *end = strchr(start, ';');
                size_t len = end ? (size_t) (end - start) : strlen(start);
                enum pg_frame_kind kind;

                pg_frame_strip(start, len, &kind);
                if (kind == PG_FRAME_KERNEL)
                        break;
                if (out->len)
                        pg_buf_puts(out, " > ");
                pg_buf_add(out, start, len);
                fr = end;
        }
        if (!out->len)
                pg_buf_puts(out, "[kernel]");
}

/* Add @p's blocked ms per run into items (side 0 base, 1 head). */
static double pg_offcpu_add(struct pg_offcpu_cmp *c, struct pg_strmap *names, size_t *cap,
                            const struct pg_profile *p, int side)
{
        struct pg_buf key = PG_BUF_INIT;
        double runs = p->runs ? (double) p->runs : 1.0, total = 0;

        for (size_t i = 0; i < p->nstacks; i++) {
                double ms = (double) p->stacks[i].count / 1e6 / runs;
                bool added;
                size_t idx;

                pg_offcpu_path(&key, p->stacks[i].frames);
                idx = pg_strmap_intern(names, key.ptr, key.len, &added);
                if (added) {
                        if (c->n == *cap) {
                                *cap = *cap ? 2 * *cap : 16;
                                c->items = pg_xreallocarray(c->items, *cap, sizeof(*c->items));
                        }
                        c->items[c->n++] =
                            (struct pg_offcpu_path){ pg_xstrdup(key.ptr), 0, 0, 0, false };
                }
                if (side == 0)
                        c->items[idx].base_ms += ms;
                else
                        c->items[idx].head_ms += ms;
                total += ms;
        }
        pg_buf_release(&key);
        return total;
}

static int pg_offcpu_item_cmp(const void *a, const void *b)
{
        const struct pg_offcpu_path *x = a, *y = b;

        if (x->regressed != y->regressed)
                return x->regressed ? -1 : 1;
        if (x->delta_ms != y->delta_ms)
                return x->delta_ms > y->delta_ms ? -1 : 1;
        return strcmp(x->path, y->path);
}

void pg_offcpu_compare(const struct pg_profile *base, const struct pg_profile *head,
                       const struct pg_offcpu_rule *rule, struct pg_offcpu_cmp *out)
{
        struct pg_strmap names = { 0 };
        size_t cap = 0;

        if (rule)
                out->rule = *rule;
        else
                pg_offcpu_rule_init(&out->rule);

        if (!base || !base->present || !head || !head->present) {
                out->reason = pg_xstrdup(!head || !head->present
                                             ? "head has no off-CPU profile (run --off-cpu)"
                                             : "the baseline has no off-CPU profile");
                return;
        }
        out->base_total_ms = pg_offcpu_add(out, &names, &cap, base, 0);
        out->head_total_ms = pg_offcpu_add(out, &names, &cap, head, 1);
        pg_strmap_release(&names);
        if (!(out->head_total_ms > 0)) {
                out->reason = pg_xstrdup("no thread of head blocked");
                return;
        }
        out->judged = true;
        for (size_t i = 0; i < out->n; i++) {
                struct pg_offcpu_path *p = &out->items[i];
                p->delta_ms = p->head_ms - p->base_ms;
                p->regressed = p->delta_ms >= out->rule.min_ms &&
                               p->delta_ms >= out->rule.threshold * p->base_ms &&
                               p->head_ms >= out->rule.min_share * out->head_total_ms;
        }
        qsort(out->items, out->n, sizeof(*out->items), pg_offcpu_item_cmp);
}

bool pg_offcpu_path_listed(const struct pg_offcpu_cmp *c, const struct pg_offcpu_path *p)
{
        return p->regressed || p->delta_ms >= c->rule.min_ms || p->delta_ms <= -c->rule.min_ms;
}

void pg_offcpu_rule_init(struct pg_offcpu_rule *r)
{
        r->threshold = PG_OFFCPU_THRESHOLD;
        r->min_ms = PG_OFFCPU_MIN_MS;
        r->min_share = PG_OFFCPU_MIN_SHARE;
}

const struct pg_offcpu_path *pg_offcpu_culprit(const struct pg_offcpu_cmp *c)
{
        return c->judged && c->n && c->items[0].regressed ? &c->items[0] : NULL;
}
