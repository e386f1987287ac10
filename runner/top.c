/*
 * top.c - live snapshots of where a process or the system spends its time
 * (see top.h). Each refresh folds the interval's samples with the session's
 * symbolizer, takes the difference of every folded stack's count since the
 * previous refresh, and adds it to the entry of its (comm, dso, symbol)
 * after the decay; the symbol is the sampled leaf's function, an inlined
 * frame's ("_[i]") caller (baselines/frame.h, pg_frame_self()).
 */
#include "runner/top.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "baselines/frame.h"
#include "common/error.h"
#include "runner/symbolize.h"

static const char *const pg_top_key_names[] = { "comm", "dso", "sym" };

size_t pg_top_parse_sort(const char *s, enum pg_top_key keys[PG_TOP_MAX_KEYS])
{
        size_t n = 0;

        while (*s) {
                size_t len = strcspn(s, ",");
                int k = -1;

                for (int i = 0; i < 3; i++)
                        if (strlen(pg_top_key_names[i]) == len &&
                            strncmp(s, pg_top_key_names[i], len) == 0)
                                k = i;
                if (len == 6 && strncmp(s, "symbol", 6) == 0)
                        k = PG_TOP_SYM;
                if (k < 0 || n == PG_TOP_MAX_KEYS)
                        return 0;
                for (size_t i = 0; i < n; i++)
                        if (keys[i] == (enum pg_top_key) k)
                                return 0;
                keys[n++] = (enum pg_top_key) k;
                s += len;
                if (*s == ',') {
                        s++;
                        if (!*s)
                                return 0;
                }
        }
        return n;
}

int pg_top_open(struct pg_top *t, const struct pg_record_opts *o, const enum pg_top_key *keys,
                size_t nkeys, struct pg_record_info *info)
{
        memset(t, 0, sizeof(*t));
        t->live.pidfd = -1;
        if (nkeys == 0 || nkeys > PG_TOP_MAX_KEYS)
                return pg_error_set(PG_EINPUT, "give 1 to 3 sort keys (comm, dso, sym)");
        memcpy(t->keys, keys, nkeys * sizeof(*keys));
        t->nkeys = nkeys;
        return pg_live_open(&t->live, o, info);
}

static bool pg_ends_with(const char *s, size_t len, const char *suffix)
{
        size_t n = strlen(suffix);

        return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* The dso of the self frame (pg_frame_self()) @self (@len bytes) of a folded
 * stack: perf's names for the kernel and JIT code, the module of an
 * unresolved frame, else the module the symbol's samples were taken in. */
static void pg_self_dso(const struct pg_profile *p, const char *self, size_t len,
                        struct pg_buf *out)
{
        pg_buf_reset(out);
        if (pg_ends_with(self, len, "_[k]")) {
                pg_buf_puts(out, "[kernel.kallsyms]");
                return;
        }
        if (pg_ends_with(self, len, "_[j]")) {
                pg_buf_puts(out, "[JIT]");
                return;
        }
        if (len >= 2 && self[0] == '[' && self[len - 1] == ']') {
                pg_buf_add(out, self + 1, len - 2);
                return;
        }
        pg_buf_add(out, self, len);
        {
                const struct pg_fn_addrs *f = pg_profile_find_addrs(p, out->ptr);
                const char *slash = f ? strrchr(f->module, '/') : NULL;

                pg_buf_reset(out);
                pg_buf_puts(out, f ? (slash ? slash + 1 : f->module) : "[unknown]");
        }
}

static int pg_entry_cmp(const void *x, const void *y)
{
        const struct pg_top_entry *a = *(const struct pg_top_entry *const *) x;
        const struct pg_top_entry *b = *(const struct pg_top_entry *const *) y;

        if (a->weight != b->weight)
                return a->weight > b->weight ? -1 : 1;
        for (size_t i = 0; i < PG_TOP_MAX_KEYS && a->fields[i]; i++) {
                int c = strcmp(a->fields[i], b->fields[i]);

                if (c)
                        return c;
        }
        return 0;
}

/* Add @delta samples of @stack to its entry. */
static void pg_top_add(struct pg_top *t, const struct pg_profile *p, const char *stack,
                       uint64_t delta, struct pg_buf *key, struct pg_buf *dso)
{
        const char *semi = strchr(stack, ';'), *self;
        size_t comm_len = semi ? (size_t) (semi - stack) : strlen(stack), idx, self_len;
        size_t starts[PG_TOP_MAX_KEYS], lens[PG_TOP_MAX_KEYS];
        bool added;

        /* the symbol is the function the sampled code lies in, an inlined
         * frame's caller (as perf top --sort sym) */
        self = stack + pg_frame_self(stack, strlen(stack), &self_len);
        pg_self_dso(p, self, self_len, dso);
        pg_buf_reset(key);
        for (size_t i = 0; i < t->nkeys; i++) {
                if (i)
                        pg_buf_putc(key, '\x1f');
                starts[i] = key->len;
                if (t->keys[i] == PG_TOP_COMM)
                        pg_buf_add(key, stack, comm_len);
                else if (t->keys[i] == PG_TOP_DSO)
                        pg_buf_add(key, dso->ptr, dso->len);
                else
                        pg_buf_add(key, self, self_len);
                lens[i] = key->len - starts[i];
        }
        idx = pg_strmap_intern(&t->entries, key->ptr, key->len, &added);
        if (added) {
                struct pg_top_entry *e;

                if (idx >= t->cap_ents) {
                        size_t old = t->cap_ents;

                        t->cap_ents = t->cap_ents ? t->cap_ents * 2 : 64;
                        t->ents = pg_xreallocarray(t->ents, t->cap_ents, sizeof(*t->ents));
                        memset(t->ents + old, 0, (t->cap_ents - old) * sizeof(*t->ents));
                }
                e = &t->ents[idx];
                for (size_t i = 0; i < t->nkeys; i++)
                        e->fields[i] = pg_xstrndup(key->ptr + starts[i], lens[i]);
        }
        t->ents[idx].weight += (double) delta;
        t->ents[idx].interval += delta;
}

void pg_top_refresh(struct pg_top *t, uint64_t interval_ns, struct pg_record_info *info,
                    const struct pg_top_entry ***out, size_t *n)
{
        pg_live_wait(&t->live, interval_ns, info);
        pg_top_update(t, out, n);
}

void pg_top_update(struct pg_top *t, const struct pg_top_entry ***out, size_t *n)
{
        struct pg_profile *pp = &t->profile, p;
        struct pg_buf key = PG_BUF_INIT, dso = PG_BUF_INIT;
        double total = 0;
        size_t k = 0;

        pg_live_fold(&t->live);
        pg_profile_release(pp);
        pg_symbolizer_export(t->live.sym, pp);
        p = *pp; /* a shallow view: t->profile owns it until the next update */
        t->lost = pg_symbolizer_stats(t->live.sym)->lost;
        for (size_t i = 0; i < t->entries.n; i++) {
                t->ents[i].weight *= PG_TOP_DECAY;
                t->ents[i].interval = 0;
        }
        t->samples = 0;
        for (size_t i = 0; i < p.nstacks; i++) {
                bool added;
                size_t idx = pg_strmap_intern(&t->last, p.stacks[i].frames,
                                              strlen(p.stacks[i].frames), &added);
                uint64_t delta;

                if (idx >= t->cap_last) {
                        size_t old = t->cap_last;

                        t->cap_last = t->cap_last ? t->cap_last * 2 : 256;
                        t->last_count =
                            pg_xreallocarray(t->last_count, t->cap_last, sizeof(*t->last_count));
                        memset(t->last_count + old, 0, (t->cap_last - old) * sizeof(uint64_t));
                }
                delta = p.stacks[i].count - t->last_count[idx];
                t->last_count[idx] = p.stacks[i].count;
                if (delta == 0)
                        continue;
                t->samples += delta;
                pg_top_add(t, &p, p.stacks[i].frames, delta, &key, &dso);
        }
        t->refreshes++;
        free(t->ranked);
        t->ranked = pg_xcalloc(t->entries.n ? t->entries.n : 1, sizeof(*t->ranked));
        for (size_t i = 0; i < t->entries.n; i++) {
                total += t->ents[i].weight;
                if (t->ents[i].weight >= 0.5)
                        t->ranked[k++] = &t->ents[i];
        }
        for (size_t i = 0; i < t->entries.n; i++)
                t->ents[i].share = total > 0 ? t->ents[i].weight / total : 0;
        qsort(t->ranked, k, sizeof(*t->ranked), pg_entry_cmp);
        *out = t->ranked;
        *n = k;
        pg_buf_release(&key);
        pg_buf_release(&dso);
}

size_t pg_top_callers(const struct pg_top *t, const char *sym, struct pg_top_caller *out,
                      size_t max)
{
        struct pg_strmap names = PG_STRMAP_INIT;
        uint64_t *counts = NULL;
        size_t cap = 0, n = 0, *best;

        for (size_t i = 0; i < t->profile.nstacks; i++) {
                const char *st = t->profile.stacks[i].frames, *c, *b;
                size_t idx, self_len, self = pg_frame_self(st, strlen(st), &self_len);

                if (self == 0 || self_len != strlen(sym) || memcmp(st + self, sym, self_len) != 0)
                        continue;
                c = st + self - 1; /* the caller: the frame before the self frame, or "[root]" */
                for (b = c; b > st && b[-1] != ';'; b--)
                        ;
                if (b == st) /* only the comm before it */
                        idx = pg_strmap_intern(&names, "[root]", 6, NULL);
                else
                        idx = pg_strmap_intern(&names, b, (size_t) (c - b), NULL);
                if (idx >= cap) {
                        size_t old = cap;

                        cap = cap ? cap * 2 : 16;
                        counts = pg_xreallocarray(counts, cap, sizeof(*counts));
                        memset(counts + old, 0, (cap - old) * sizeof(*counts));
                }
                counts[idx] += t->profile.stacks[i].count;
        }
        /* the @max largest, by count then name */
        best = pg_xcalloc(max ? max : 1, sizeof(*best));
        n = pg_strmap_top(&names, counts, max, best);
        for (size_t k = 0; k < n; k++) {
                out[k].name = pg_xstrdup(names.keys[best[k]].ptr);
                out[k].count = counts[best[k]];
        }
        free(best);
        free(counts);
        pg_strmap_release(&names);
        return n;
}

void pg_top_close(struct pg_top *t)
{
        pg_live_close(&t->live);
        for (size_t i = 0; i < t->entries.n; i++)
                for (size_t j = 0; j < PG_TOP_MAX_KEYS; j++)
                        free((char *) t->ents[i].fields[j]);
        free(t->ents);
        free(t->ranked);
        pg_profile_release(&t->profile);
        free(t->last_count);
        pg_strmap_release(&t->entries);
        pg_strmap_release(&t->last);
        memset(t, 0, sizeof(*t));
}
