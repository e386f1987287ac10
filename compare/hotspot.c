/*
 * hotspot.c - per-function self and inclusive shares from folded stacks and
 * their change between baseline and head (hotspot.h).
 *
 * A pg_strmap (common/hashmap.h) maps function names to entries;
 * each entry remembers the last (side, stack) that counted it inclusively,
 * so a recursive function counts once per stack.
 */
#include "compare/hotspot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hashmap.h"
#include "compare/stats.h"

static const char *const pg_kind_names[] = { "regressed",       "new",
                                             "improved",        "vanished",
                                             "not significant", "tiny",
                                             "unchanged",       "shifted (others changed)" };

const char *pg_hotspot_kind_name(enum pg_hotspot_kind k)
{
        if ((size_t) k < sizeof(pg_kind_names) / sizeof(pg_kind_names[0]))
                return pg_kind_names[k];
        return "unknown";
}

void pg_hotspots_init(struct pg_hotspots *h)
{
        memset(h, 0, sizeof(*h));
}

void pg_hotspots_release(struct pg_hotspots *h)
{
        for (size_t i = 0; i < h->n; i++) {
                free(h->items[i].function);
                free(h->items[i].path);
        }
        free(h->items);
        free(h->reason);
        memset(h, 0, sizeof(*h));
}

struct pg_fn_entry {
        uint64_t self[2], incl[2];
        long last_stack[2];         /* stack index that last counted incl, per side */
        uint64_t best_count[2];     /* count of the hottest stack for the path */
        bool best_is_self[2];       /* that stack ends in the function */
        const char *best_frames[2]; /* folded key (borrowed from the profile) */
        size_t best_end[2];         /* bytes of best_frames up to the function's end */
};

/* function name -> index in entries */
struct pg_fn_table {
        struct pg_strmap names;
        struct pg_fn_entry *entries;
        size_t cap;
};

static struct pg_fn_entry *pg_table_get(struct pg_fn_table *t, const char *name, size_t len)
{
        bool added;
        size_t i = pg_strmap_intern(&t->names, name, len, &added);

        if (added) {
                if (i == t->cap) {
                        t->cap = t->cap ? t->cap * 2 : 256;
                        t->entries = pg_xreallocarray(t->entries, t->cap, sizeof(*t->entries));
                }
                memset(&t->entries[i], 0, sizeof(t->entries[i]));
                t->entries[i].last_stack[0] = t->entries[i].last_stack[1] = -1;
        }
        return &t->entries[i];
}

static uint64_t pg_profile_total(const struct pg_profile *p)
{
        uint64_t t = 0;
        for (size_t i = 0; i < p->nstacks; i++)
                t += p->stacks[i].count;
        return t;
}

static void pg_scan_profile(struct pg_fn_table *t, const struct pg_profile *p, int side)
{
        for (size_t si = 0; si < p->nstacks; si++) {
                const char *key = p->stacks[si].frames, *f, *semi;
                uint64_t count = p->stacks[si].count;

                f = strchr(key, ';'); /* skip the comm frame */
                if (!f)
                        continue;
                for (f = f + 1;; f = semi + 1) {
                        size_t len;
                        struct pg_fn_entry *e;
                        bool leaf;

                        semi = strchr(f, ';');
                        len = semi ? (size_t) (semi - f) : strlen(f);
                        leaf = semi == NULL;
                        if (len > 0) {
                                e = pg_table_get(t, f, len);
                                if (e->last_stack[side] != (long) si) {
                                        e->last_stack[side] = (long) si;
                                        e->incl[side] += count;
                                        /* hottest path: prefer stacks where it is the leaf */
                                        if (!e->best_frames[side] ||
                                            (leaf && !e->best_is_self[side]) ||
                                            (leaf == e->best_is_self[side] &&
                                             count > e->best_count[side])) {
                                                e->best_frames[side] = key;
                                                e->best_count[side] = count;
                                                e->best_is_self[side] = leaf;
                                                e->best_end[side] = (size_t) (f + len - key);
                                        }
                                }
                                if (leaf)
                                        e->self[side] += count;
                        }
                        if (!semi)
                                break;
                }
        }
}

static int pg_hotspot_cmp(const void *a, const void *b)
{
        const struct pg_hotspot *x = a, *y = b;
        double dx = fabs(x->delta_self_pp), dy = fabs(y->delta_self_pp);

        if (x->kind != y->kind)
                return (int) x->kind - (int) y->kind;
        if (x->kind == PG_HOTSPOT_NEW || x->kind == PG_HOTSPOT_VANISHED) {
                dx = fmax(dx, fabs(x->delta_incl_pp));
                dy = fmax(dy, fabs(y->delta_incl_pp));
        }
        if (dx != dy)
                return dx > dy ? -1 : 1;
        return strcmp(x->function, y->function);
}

static const char *pg_profile_problem(const struct pg_profile *p, uint64_t total)
{
        if (!p || !p->present)
                return "has no profile (it was run with --no-profile)";
        if (total == 0)
                return "has 0 samples";
        return NULL;
}

void pg_hotspots_compare(const struct pg_profile *base, const struct pg_profile *head,
                         double base_task_clock_ns, double head_task_clock_ns,
                         const struct pg_hotspot_rule *rule, struct pg_hotspots *out)
{
        struct pg_fn_table t = { PG_STRMAP_INIT, NULL, 0 };
        const char *bp, *hp;
        size_t k = 0;

        out->base_total = base && base->present ? pg_profile_total(base) : 0;
        out->head_total = head && head->present ? pg_profile_total(head) : 0;
        bp = pg_profile_problem(base, out->base_total);
        hp = pg_profile_problem(head, out->head_total);
        if ((!base || !base->present) && (!head || !head->present)) {
                out->reason = pg_xstrdup("no profile on either side");
                return;
        }
        if (bp || hp) {
                const struct pg_profile *p = bp ? base : head;
                const char *side = bp ? "baseline" : "head";
                if (!p || !p->present)
                        out->reason = pg_xasprintf("%s %s", side, bp ? bp : hp);
                else
                        out->reason = pg_xasprintf("%s profile %s for event '%s'", side,
                                                   bp ? bp : hp, p->event ? p->event : "?");
                return;
        }
        if (base->event && head->event && strcmp(base->event, head->event) != 0) {
                out->reason = pg_xasprintf("profiles sampled different events ('%s' in the "
                                           "baseline, '%s' in head)",
                                           base->event, head->event);
                return;
        }
        out->judged = true;
        pg_scan_profile(&t, base, 0);
        pg_scan_profile(&t, head, 1);
        out->items = pg_xcalloc(t.names.n ? t.names.n : 1, sizeof(*out->items));
        for (size_t i = 0; i < t.names.n; i++) {
                struct pg_fn_entry *e = &t.entries[i];
                struct pg_hotspot *h;
                struct pg_prop_test pt;
                int side;
                h = &out->items[k++];
                h->function = pg_xstrndup(t.names.keys[i].ptr, t.names.keys[i].len);
                h->base_self = e->self[0];
                h->head_self = e->self[1];
                h->base_incl = e->incl[0];
                h->head_incl = e->incl[1];
                h->base_self_share = (double) e->self[0] / (double) out->base_total;
                h->head_self_share = (double) e->self[1] / (double) out->head_total;
                h->base_incl_share = (double) e->incl[0] / (double) out->base_total;
                h->head_incl_share = (double) e->incl[1] / (double) out->head_total;
                h->delta_self_pp = 100 * (h->head_self_share - h->base_self_share);
                h->delta_incl_pp = 100 * (h->head_incl_share - h->base_incl_share);
                h->p_value = 1;
                if (pg_stats_two_proportion(e->self[0], out->base_total, e->self[1],
                                            out->head_total, &pt) == 0)
                        h->p_value = pt.p_value;
                if (head_task_clock_ns > 0) {
                        h->has_est = true;
                        h->est_ms = h->delta_self_pp / 100 * head_task_clock_ns / 1e6;
                }
                if (head_task_clock_ns > 0 && base_task_clock_ns > 0) {
                        h->has_self_time = true;
                        h->self_time_ms = (h->head_self_share * head_task_clock_ns -
                                           h->base_self_share * base_task_clock_ns) /
                                          1e6;
                }
                side = e->incl[1] ? 1 : 0;
                h->path =
                    pg_xstrndup(strchr(e->best_frames[side], ';') + 1,
                                e->best_end[side] - (size_t) (strchr(e->best_frames[side], ';') +
                                                              1 - e->best_frames[side]));
                if (e->incl[0] == 0 || e->incl[1] == 0) {
                        bool is_new = e->incl[0] == 0;
                        double share = is_new ? h->head_incl_share : h->base_incl_share;
                        if ((is_new ? e->incl[1] : e->incl[0]) < rule->min_samples ||
                            100 * share < rule->new_pp)
                                h->kind = PG_HOTSPOT_TINY;
                        else
                                h->kind = is_new ? PG_HOTSPOT_NEW : PG_HOTSPOT_VANISHED;
                } else if (fabs(h->delta_self_pp) <= rule->threshold_pp) {
                        h->kind = PG_HOTSPOT_UNCHANGED;
                } else if (e->self[0] < rule->min_samples && e->self[1] < rule->min_samples) {
                        h->kind = PG_HOTSPOT_TINY;
                } else if (h->p_value < rule->alpha && h->has_self_time &&
                           (h->delta_self_pp > 0 ? h->self_time_ms : -h->self_time_ms) <
                               rule->threshold_pp / 100 * base_task_clock_ns / 1e6) {
                        /* a share can only grow if others shrink: when the
                         * function's own time stayed put, it is not the cause */
                        h->kind = PG_HOTSPOT_SHIFTED;
                } else if (h->p_value < rule->alpha) {
                        h->kind = h->delta_self_pp > 0 ? PG_HOTSPOT_REGRESSED : PG_HOTSPOT_IMPROVED;
                } else {
                        h->kind = PG_HOTSPOT_NOT_SIGNIFICANT;
                }
        }
        out->n = k;
        qsort(out->items, out->n, sizeof(*out->items), pg_hotspot_cmp);
        pg_strmap_release(&t.names);
        free(t.entries);
}

const char *pg_hotspots_culprit(const struct pg_hotspots *h)
{
        for (size_t i = 0; h->judged && i < h->n; i++)
                if (h->items[i].kind == PG_HOTSPOT_REGRESSED || h->items[i].kind == PG_HOTSPOT_NEW)
                        return h->items[i].function;
        return NULL;
}

bool pg_hotspots_changed(const struct pg_hotspots *h)
{
        for (size_t i = 0; i < h->n; i++)
                if (h->items[i].kind == PG_HOTSPOT_REGRESSED ||
                    h->items[i].kind == PG_HOTSPOT_NEW || h->items[i].kind == PG_HOTSPOT_IMPROVED ||
                    h->items[i].kind == PG_HOTSPOT_VANISHED)
                        return true;
        return false;
}
