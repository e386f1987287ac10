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

uint64_t pg_profile_total(const struct pg_profile *p)
{
        uint64_t t = 0;
        for (size_t i = 0; p && i < p->nstacks; i++)
                t += p->stacks[i].count;
        return t;
}

static struct pg_profile_func *pg_func_get(struct pg_profile_funcs *pf, const char *name,
                                           size_t len)
{
        bool added;
        size_t i = pg_strmap_intern(&pf->names, name, len, &added);

        if (added) {
                if (i == pf->cap) {
                        pf->cap = pf->cap ? pf->cap * 2 : 256;
                        pf->funcs = pg_xreallocarray(pf->funcs, pf->cap, sizeof(*pf->funcs));
                }
                memset(&pf->funcs[i], 0, sizeof(pf->funcs[i]));
        }
        return &pf->funcs[i];
}

void pg_profile_funcs_scan(struct pg_profile_funcs *out, const struct pg_profile *p)
{
        memset(out, 0, sizeof(*out));
        if (!p || !p->present)
                return;
        out->total = pg_profile_total(p);
        for (size_t si = 0; si < p->nstacks; si++) {
                const char *key = p->stacks[si].frames, *f, *semi;
                uint64_t count = p->stacks[si].count;

                f = strchr(key, ';'); /* skip the comm frame */
                if (!f)
                        continue;
                for (f = f + 1;; f = semi + 1) {
                        size_t len;
                        struct pg_profile_func *e;
                        bool leaf;

                        semi = strchr(f, ';');
                        len = semi ? (size_t) (semi - f) : strlen(f);
                        leaf = semi == NULL;
                        e = pg_func_get(out, f, len);
                        if (e->last_stack != si + 1) {
                                e->last_stack = si + 1;
                                e->incl += count;
                                /* hottest stack: prefer stacks where it is the leaf */
                                if (!e->hot_count || (leaf && !e->hot_is_self) ||
                                    (leaf == e->hot_is_self && count > e->hot_count)) {
                                        e->hot_stack = si;
                                        e->hot_count = count;
                                        e->hot_is_self = leaf;
                                        e->hot_end = (size_t) (f + len - key);
                                }
                        }
                        if (leaf)
                                e->self += count;
                        if (!semi)
                                break;
                }
        }
}

void pg_profile_funcs_release(struct pg_profile_funcs *pf)
{
        pg_strmap_release(&pf->names);
        free(pf->funcs);
        memset(pf, 0, sizeof(*pf));
}

/* Function index of the frame at @f (up to ';' or the end). */
static size_t pg_frame_id(const struct pg_profile_funcs *pf, const char *f, const char **next)
{
        const char *semi = strchr(f, ';');
        size_t len = semi ? (size_t) (semi - f) : strlen(f), id = SIZE_MAX;

        (void) pg_strmap_find(&pf->names, f, len, &id);
        *next = semi ? semi + 1 : NULL;
        return id;
}

size_t pg_profile_callee_path(const struct pg_profile_funcs *pf, const struct pg_profile *p,
                              size_t fn, size_t max_depth, size_t *path, bool *cut,
                              uint64_t *weight)
{
        size_t n = p->nstacks ? p->nstacks : 1, depth = 0;
        const char **pos = pg_xcalloc(n, sizeof(*pos)); /* next frame; NULL: off the path */
        uint64_t *w = pg_xcalloc(pf->names.n ? pf->names.n : 1, sizeof(*w));
        size_t *touched = pg_xcalloc(n, sizeof(*touched));

        *weight = 0;
        *cut = false;
        for (size_t i = 0; i < p->nstacks; i++) {
                const char *f = strchr(p->stacks[i].frames, ';');
                while (f) {
                        if (pg_frame_id(pf, f + 1, &f) == fn) {
                                pos[i] = f ? f : ""; /* "": the function is the leaf */
                                break;
                        }
                        f = f ? f - 1 : NULL;
                }
        }
        for (;;) {
                size_t best = SIZE_MAX, nt = 0;
                uint64_t best_w = 0;

                /* heaviest next frame among the stacks still on the path */
                for (size_t i = 0; i < p->nstacks; i++) {
                        const char *next;
                        size_t id;
                        if (!pos[i] || !*pos[i])
                                continue;
                        id = pg_frame_id(pf, pos[i], &next);
                        if (!w[id])
                                touched[nt++] = id;
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
                for (size_t i = 0; i < p->nstacks; i++) {
                        const char *next;
                        if (!pos[i])
                                continue;
                        if (*pos[i] && pg_frame_id(pf, pos[i], &next) == best)
                                pos[i] = next ? next : "";
                        else
                                pos[i] = NULL;
                }
                path[depth++] = best;
                *weight = best_w;
        }
        free(pos);
        free(w);
        free(touched);
        return depth;
}
