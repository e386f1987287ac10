/*
 * profile.c - per-function figures of a folded-stack profile (profile.h).
 *
 * One pass over the stacks: each frame's name is interned in a pg_strmap;
 * a function remembers the last stack that counted it inclusively, so a
 * recursive function counts once per stack.
 */
#include "compare/profile.h"

#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"

uint64_t pg_profile_total(const struct pg_profile *p)
{
        uint64_t t = 0;
        for (size_t i = 0; p && i < p->nstacks; i++)
                t += p->stacks[i].count;
        return t;
}

char *pg_profile_path_to(const struct pg_profile *p, size_t stack, size_t end)
{
        const char *frames = p->stacks[stack].frames, *from = strchr(frames, ';') + 1;

        return pg_xstrndup(from, end - (size_t) (from - frames));
}

/* Make funcs[0 .. n) valid: entries not counted yet are zero. */
static void pg_funcs_extend(struct pg_profile_funcs *pf, size_t n)
{
        if (n <= pf->n)
                return;
        if (n > pf->cap) {
                while (pf->cap < n)
                        pf->cap = pf->cap ? pf->cap * 2 : 256;
                pf->funcs = pg_xreallocarray(pf->funcs, pf->cap, sizeof(*pf->funcs));
        }
        memset(&pf->funcs[pf->n], 0, (n - pf->n) * sizeof(*pf->funcs));
        pf->n = n;
}

/* The entry of @name, interned in @names (@pf's own map or a shared one). */
static size_t pg_func_get(struct pg_profile_funcs *pf, struct pg_strmap *names, const char *name,
                          size_t len)
{
        size_t i = pg_strmap_intern(names, name, len, NULL);

        pg_funcs_extend(pf, i + 1);
        return i;
}

/* @count in 15 bits, PG_COUNT15_MAX for that many or more. */
static uint16_t pg_count15(uint64_t count)
{
        return (uint16_t) (count < PG_COUNT15_MAX ? count : PG_COUNT15_MAX);
}

/* Stacks pg_funcs_scan() looks ahead: the name slots of the stack this far
 * on are loaded while the stacks before it are counted. */
#define PG_SCAN_AHEAD 8

/* pg_strmap_prefetch() of the frames of @key that pg_funcs_scan() will hash:
 * all but the comm frame and those it shares (with their ';') with @prev. */
static void pg_funcs_prefetch(const struct pg_strmap *names, const char *key, const char *prev)
{
        size_t common = 0;
        const char *f = strchr(key, ';');

        while (key[common] && key[common] == prev[common])
                common++;
        for (f = f ? f + 1 : NULL; f;) {
                const char *semi = strchr(f, ';');
                if (!semi || (size_t) (semi - key) >= common)
                        pg_strmap_prefetch(names, f, semi ? (size_t) (semi - f) : strlen(f));
                f = semi ? semi + 1 : NULL;
        }
}

/* @by_key: the functions are keyed by pg_frame_pair_key() under @pair (two
 * profiles compared), else by their exact frame names. */
static void pg_funcs_scan(struct pg_profile_funcs *out, const struct pg_profile *p, bool keep_ids,
                          struct pg_strmap *names, bool by_key, const struct pg_frame_pairing *pair)
{
        char *keybuf = NULL;
        size_t keycap = 0;
        size_t nids = 0, capids = 0;
        /* the previous stack's function ids by depth: stacks are sorted, so
         * the frames a stack shares with the one before (same bytes up to
         * and including the ';' after them) are not hashed again */
        uint32_t *prev_ids = NULL, *ends = NULL;
        size_t capprev = 0;
        const char *prev = NULL;

        if (!p || !p->present)
                return;
        out->total = pg_profile_total(p);
        if (keep_ids)
                out->starts = pg_xmalloc((p->nstacks + 1) * sizeof(*out->starts));
        for (size_t si = 0; si < p->nstacks; si++) {
                const char *key = p->stacks[si].frames, *f, *semi;
                uint64_t count = p->stacks[si].count;

                if (keep_ids)
                        out->starts[si] = nids;
                if (si + PG_SCAN_AHEAD < p->nstacks)
                        pg_funcs_prefetch(names, p->stacks[si + PG_SCAN_AHEAD].frames,
                                          p->stacks[si + PG_SCAN_AHEAD - 1].frames);
                size_t common = 0, depth = 0;

                while (prev && key[common] && key[common] == prev[common])
                        common++;
                prev = key;
                const char *comm_end = strchr(key, ';'); /* skip the comm frame */

                if (!comm_end)
                        continue;
                /* where each frame ends (the last one at the key's end) */
                size_t nframes = 0, self_depth;

                for (f = comm_end + 1;; f = semi + 1) {
                        if (nframes == capprev) {
                                capprev = capprev ? 2 * capprev : 64;
                                prev_ids = pg_xreallocarray(prev_ids, capprev, sizeof(*prev_ids));
                                ends = pg_xreallocarray(ends, capprev, sizeof(*ends));
                        }
                        semi = strchr(f, ';');
                        ends[nframes++] = (uint32_t) (semi ? semi - key : f + strlen(f) - key);
                        if (!semi)
                                break;
                }
                /* the frame the stack's self samples count for: its innermost
                 * frame not inlined, else the leaf (pg_frame_self() in
                 * baselines/frame.h, found from the ends already known) */
                for (self_depth = nframes; self_depth-- > 0;) {
                        size_t b =
                            self_depth ? ends[self_depth - 1] + 1 : (size_t) (comm_end + 1 - key);

                        if (!pg_frame_is_inlined(key + b, ends[self_depth] - b))
                                break;
                }
                if (self_depth == SIZE_MAX)
                        self_depth = nframes - 1;
                for (f = comm_end + 1;; f = key + ends[depth] + 1, depth++) {
                        size_t len, id;
                        struct pg_profile_func *e;
                        bool self = depth == self_depth;

                        semi = depth + 1 < nframes ? key + ends[depth] : NULL;
                        len = (size_t) (key + ends[depth] - f);
                        if (semi && (size_t) (semi - key) < common) {
                                id = prev_ids[depth];
                        } else if (by_key) {
                                const char *k;
                                size_t klen;

                                if (len > keycap) {
                                        keycap = len > 2 * keycap ? len : 2 * keycap;
                                        keybuf = pg_xrealloc(keybuf, keycap);
                                }
                                k = pg_frame_pair_key(pair, f, len, keybuf, &klen);
                                id = pg_func_get(out, names, k, klen);
                                prev_ids[depth] = (uint32_t) id;
                        } else {
                                id = pg_func_get(out, names, f, len);
                                prev_ids[depth] = (uint32_t) id;
                        }
                        e = &out->funcs[id];
                        if (keep_ids) {
                                if (nids == capids) {
                                        capids = capids ? 2 * capids : 1024;
                                        out->ids =
                                            pg_xreallocarray(out->ids, capids, sizeof(*out->ids));
                                }
                                out->ids[nids++] = (uint32_t) id;
                        }
                        if (e->last_stack != si + 1) {
                                uint32_t end = (uint32_t) (f + len - key);
                                bool first = e->last_stack == 0;
                                uint64_t hot = 0, heavy = 0;

                                if (!first) { /* the stacks' counts, read only when they do not fit */
                                        hot = e->hot_count < PG_COUNT15_MAX
                                                  ? e->hot_count
                                                  : p->stacks[e->hot_stack].count;
                                        heavy = e->heavy_count < PG_COUNT15_MAX
                                                    ? e->heavy_count
                                                    : p->stacks[e->heavy_stack].count;
                                }
                                e->last_stack = (uint32_t) si + 1;
                                /* hottest stack: prefer stacks it holds the self of */
                                if (first || !hot || (self && !e->hot_is_self) ||
                                    (self == e->hot_is_self && count > hot)) {
                                        e->hot_stack = (uint32_t) si;
                                        e->hot_count = pg_count15(count);
                                        e->hot_is_self = self;
                                        e->hot_end = end;
                                }
                                if (first || count > heavy) {
                                        e->heavy_stack = (uint32_t) si;
                                        e->heavy_count = pg_count15(count);
                                        e->heavy_end = end;
                                }
                                e->incl += count;
                        }
                        if (self)
                                e->self += count;
                        if (!semi)
                                break;
                }
        }
        if (keep_ids)
                out->starts[p->nstacks] = nids;
        free(prev_ids);
        free(ends);
        free(keybuf);
}

void pg_profile_funcs_scan(struct pg_profile_funcs *out, const struct pg_profile *p)
{
        memset(out, 0, sizeof(*out));
        pg_funcs_scan(out, p, false, &out->names, false, NULL);
}

void pg_profile_funcs_scan_paths(struct pg_profile_funcs *out, const struct pg_profile *p)
{
        memset(out, 0, sizeof(*out));
        pg_funcs_scan(out, p, true, &out->names, false, NULL);
}

/* The call key "X;f" of caller frame @x (@xl bytes) and callee frame @f
 * (@fl bytes): pg_frame_pair_key() under @pair of both joined by ';', in
 * *@buf (grown). */
static const char *pg_call_key(const struct pg_frame_pairing *pair, const char *x, size_t xl,
                               const char *f, size_t fl, char **buf, size_t *cap, size_t *len)
{
        const char *k;
        size_t a, b;

        if (xl + fl + 1 > *cap) {
                *cap = xl + fl + 1 > 2 * *cap ? xl + fl + 1 : 2 * *cap;
                *buf = pg_xrealloc(*buf, *cap);
        }
        k = pg_frame_pair_key(pair, x, xl, *buf, &a);
        if (k != *buf)
                memcpy(*buf, k, a);
        (*buf)[a] = ';';
        k = pg_frame_pair_key(pair, f, fl, *buf + a + 1, &b);
        if (k != *buf + a + 1)
                memcpy(*buf + a + 1, k, b);
        *len = a + 1 + b;
        return *buf;
}

void pg_profile_own_calls(struct pg_strmap *own, const struct pg_frame_pairing *pair,
                          const struct pg_profile *p)
{
        char *buf = NULL;
        size_t cap = 0;

        for (size_t si = 0; p && p->present && si < p->nstacks; si++) {
                const char *f = strchr(p->stacks[si].frames, ';'), *x = NULL;
                size_t xl = 0;

                while (f) {
                        const char *e = strchr(++f, ';');
                        size_t fl = e ? (size_t) (e - f) : strlen(f), kl;

                        if (x && !pg_frame_is_inlined(f, fl)) {
                                const char *call = pg_call_key(pair, x, xl, f, fl, &buf, &cap, &kl);

                                pg_strmap_intern(own, call, kl, NULL);
                        }
                        x = f;
                        xl = fl;
                        f = e;
                }
        }
        free(buf);
}

size_t pg_profile_pair_self(const char *k, size_t kl, const struct pg_frame_pairing *pair,
                            const struct pg_strmap *own, size_t *len)
{
        size_t at = pg_frame_self(k, kl, len), end = kl, ckl;
        char *buf = NULL;
        size_t cap = 0;

        if (at == 0 || at + *len == kl)
                return at;        /* the comm alone, or a leaf not inlined */
        while (end > at + *len) { /* the inlined frames, leaf first */
                size_t b = end, x, idx;

                while (k[b - 1] != ';')
                        b--;
                for (x = b - 1; k[x - 1] != ';'; x--) /* its caller: at or below self */
                        ;
                const char *call =
                    pg_call_key(pair, k + x, b - 1 - x, k + b, end - b, &buf, &cap, &ckl);

                if (pg_strmap_find(own, call, ckl, &idx)) {
                        *len = end - b;
                        at = b;
                        break;
                }
                end = b - 1;
        }
        free(buf);
        return at;
}

/* pg_profile_funcs_scan_pair()'s self of the stacks of @p (side @side of
 * @out) whose leaf is inlined: moved from the frame it was inlined into to
 * the frame pg_profile_pair_self() counts it for (profile.h). */
static void pg_funcs_self_inlined(struct pg_profile_funcs out[2], int side,
                                  const struct pg_profile *p, const struct pg_strmap *own)
{
        char *keybuf = NULL;
        size_t keycap = 0;

        for (size_t si = 0; p && p->present && si < p->nstacks; si++) {
                const char *key = p->stacks[si].frames, *k;
                size_t klen = strlen(key), flen, at = pg_frame_self(key, klen, &flen);
                size_t to, tolen, len, self_id, id;

                if (at == 0 || at + flen == klen)
                        continue; /* the comm alone, or a leaf not inlined */
                to = pg_profile_pair_self(key, klen, out[0].pairing, own, &tolen);
                if (to == at)
                        continue;
                if ((flen > tolen ? flen : tolen) > keycap) {
                        keycap = flen > tolen ? flen : tolen;
                        keybuf = pg_xrealloc(keybuf, keycap);
                }
                k = pg_frame_pair_key(out[0].pairing, key + at, flen, keybuf, &len);
                if (!pg_strmap_find(&out[0].names, k, len, &self_id))
                        continue; /* cannot be: the scan interned it */
                k = pg_frame_pair_key(out[0].pairing, key + to, tolen, keybuf, &len);
                if (pg_strmap_find(&out[0].names, k, len, &id) && id != self_id) {
                        out[side].funcs[self_id].self -= p->stacks[si].count;
                        out[side].funcs[id].self += p->stacks[si].count;
                }
        }
        free(keybuf);
}

/* Whether a stack of @p has an inlined leaf (a frame "_[i]" last). */
static bool pg_has_inlined_leaf(const struct pg_profile *p)
{
        for (size_t si = 0; p && p->present && si < p->nstacks; si++) {
                const char *key = p->stacks[si].frames, *semi = strrchr(key, ';');

                if (semi && pg_frame_is_inlined(semi + 1, strlen(semi + 1)))
                        return true;
        }
        return false;
}

void pg_profile_funcs_scan_pair(struct pg_profile_funcs out[2], const struct pg_profile *a,
                                const struct pg_profile *b)
{
        const struct pg_profile *side[2] = { a, b };
        struct pg_strmap own = PG_STRMAP_INIT;

        memset(out, 0, 2 * sizeof(*out));
        out[0].pairing = pg_xcalloc(1, sizeof(*out[0].pairing));
        for (int s = 0; s < 2; s++)
                for (size_t i = 0; side[s] && side[s]->present && i < side[s]->nstacks; i++)
                        pg_frame_pairing_add_stack(out[0].pairing, s, side[s]->stacks[i].frames,
                                                   strlen(side[s]->stacks[i].frames));
        pg_frame_pairing_finish(out[0].pairing);
        pg_funcs_scan(&out[0], a, false, &out[0].names, true, out[0].pairing);
        pg_funcs_scan(&out[1], b, false, &out[0].names, true, out[0].pairing);
        pg_funcs_extend(&out[0], out[0].names.n);
        pg_funcs_extend(&out[1], out[0].names.n);
        if (!pg_has_inlined_leaf(a) && !pg_has_inlined_leaf(b))
                return; /* no sample is in inlined code: nothing to move */
        pg_profile_own_calls(&own, out[0].pairing, a);
        pg_profile_own_calls(&own, out[0].pairing, b);
        pg_funcs_self_inlined(out, 0, a, &own);
        pg_funcs_self_inlined(out, 1, b, &own);
        pg_strmap_release(&own);
}

void pg_profile_funcs_release(struct pg_profile_funcs *pf)
{
        pg_strmap_release(&pf->names);
        free(pf->funcs);
        free(pf->ids);
        free(pf->starts);
        if (pf->pairing)
                pg_frame_pairing_release(pf->pairing);
        free(pf->pairing);
        memset(pf, 0, sizeof(*pf));
}

size_t pg_profile_callee_path(const struct pg_profile_funcs *pf, const struct pg_profile *p,
                              size_t fn, size_t max_depth, size_t *path, bool *cut,
                              uint64_t *weight)
{
        size_t n = p->nstacks, depth = 0, nactive = 0;
        size_t *active, *pos; /* stacks still on the path; the ids index of each one's next frame */
        uint64_t *w;
        uint32_t *touched;

        *weight = 0;
        *cut = false;
        if (!pf->starts || !n)
                return 0;
        active = pg_xmalloc(n * sizeof(*active));
        pos = pg_xmalloc(n * sizeof(*pos));
        w = pg_xcalloc(pf->names.n ? pf->names.n : 1, sizeof(*w));
        touched = pg_xmalloc(n * sizeof(*touched));
        /* each stack from the function's outermost frame */
        for (size_t i = 0; i < n; i++)
                for (size_t j = pf->starts[i]; j < pf->starts[i + 1]; j++)
                        if (pf->ids[j] == fn) {
                                active[nactive] = i;
                                pos[nactive++] = j + 1;
                                break;
                        }
        for (;;) {
                size_t best = SIZE_MAX, nt = 0, kept = 0;
                uint64_t best_w = 0;

                /* heaviest next frame among the stacks still on the path */
                for (size_t a = 0; a < nactive; a++) {
                        size_t i = active[a], id;
                        if (pos[a] == pf->starts[i + 1])
                                continue; /* the function path ends here: its leaf */
                        id = pf->ids[pos[a]];
                        if (!w[id])
                                touched[nt++] = (uint32_t) id;
                        w[id] += p->stacks[i].count;
                }
                for (size_t k = 0; k < nt; k++) {
                        size_t id = touched[k];
                        int c = best == SIZE_MAX
                                    ? -1
                                    : strcmp(pf->names.keys[id].ptr, pf->names.keys[best].ptr);
                        if (w[id] > best_w || (w[id] == best_w && c < 0)) {
                                best = id;
                                best_w = w[id];
                        }
                }
                for (size_t k = 0; k < nt; k++)
                        w[touched[k]] = 0;
                /* a callee with under a tenth of the function's samples is not
                 * where its time goes (a timer interrupt, a rare page fault) */
                if (best == SIZE_MAX || best_w * 10 < pf->funcs[fn].incl)
                        break;
                if (depth == max_depth) {
                        *cut = true;
                        break;
                }
                for (size_t a = 0; a < nactive; a++) {
                        size_t i = active[a];
                        if (pos[a] < pf->starts[i + 1] && pf->ids[pos[a]] == best) {
                                active[kept] = i;
                                pos[kept++] = pos[a] + 1;
                        }
                }
                nactive = kept;
                path[depth++] = best;
                *weight = best_w;
        }
        free(active);
        free(pos);
        free(w);
        free(touched);
        return depth;
}
