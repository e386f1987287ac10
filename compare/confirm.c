/*
 * confirm.c - sequential paired test and paired hotspot test (confirm.h).
 * The signed-rank null distributions are computed exactly by dynamic
 * programming over (doubled) ranks, in doubles: counts of subsets divided
 * by 2^n, which stay finite for the n allowed here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/hashmap.h"
#include "compare/confirm.h"
#include "compare/profile.h"
#include "compare/report.h"
#include "compare/stats.h"

#define PG_SIGNED_RANK_MAX 2000

const char *pg_confirm_outcome_name(enum pg_confirm_outcome o)
{
        switch (o) {
        case PG_CONFIRM_REGRESSION:
                return "regression";
        case PG_CONFIRM_NO_REGRESSION:
                return "no regression";
        case PG_CONFIRM_INCONCLUSIVE:
                return "inconclusive";
        case PG_CONFIRM_NOT_CONFIRMED:
                return "unconfirmed";
        case PG_CONFIRM_UNDECIDED:
        default:
                return "undecided";
        }
}

size_t pg_confirm_look_pairs(unsigned k)
{
        size_t base;
        if (k < 1)
                k = 1;
        if (k > 40)
                k = 40;
        base = (size_t) 8 << ((k - 1) / 2);
        return (k % 2 == 0) ? base + base / 2 : base;
}

double pg_confirm_look_alpha(double alpha, unsigned k)
{
        if (k < 1)
                k = 1;
        return alpha * 6.0 / (M_PI * M_PI * (double) k * (double) k);
}

static int pg_cmp_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

/* P(T+ = t) for t = 0..n(n+1)/2 without ties: the number of subsets of
 * {1..n} summing to t, over 2^n. Returns a new array of M+1 entries. */
static double *pg_signed_rank_pmf(size_t n)
{
        size_t m = n * (n + 1) / 2;
        double *f = pg_xcalloc(m + 1, sizeof(double));

        f[0] = 1.0;
        for (size_t r = 1; r <= n; r++) {
                size_t top = r * (r + 1) / 2;
                for (size_t t = top; t >= r; t--) {
                        f[t] = 0.5 * (f[t] + f[t - r]);
                        if (t == r)
                                break;
                }
                for (size_t t = 0; t < r && t <= top; t++)
                        f[t] *= 0.5;
        }
        return f;
}

int pg_stats_hl_signed_rank(const double *d, size_t n, double conf, struct pg_hl1 *out)
{
        size_t m, k = 1, idx = 0;
        double *w, *pmf, cdf = 0.0, tail;

        if (n == 0 || n > PG_SIGNED_RANK_MAX)
                return pg_error_set(PG_EINPUT, "signed-rank interval needs 1 to %d values, got %zu",
                                    PG_SIGNED_RANK_MAX, n);
        if (!(conf > 0.0 && conf < 1.0))
                return pg_error_set(PG_EINPUT, "confidence level %g is not in (0, 1)", conf);
        m = n * (n + 1) / 2;
        w = pg_xmalloc(m * sizeof(double));
        for (size_t i = 0; i < n; i++)
                for (size_t j = i; j < n; j++)
                        w[idx++] = 0.5 * (d[i] + d[j]);
        qsort(w, m, sizeof(double), pg_cmp_double);
        pmf = pg_signed_rank_pmf(n);
        tail = (1.0 - conf) / 2.0;
        /* largest k with P(T+ <= k - 1) <= tail (k = 1 when even the full
         * range covers less); k <= (m + 1) / 2 */
        for (size_t t = 0; t < m; t++) {
                if (cdf + pmf[t] > tail * (1.0 + 1e-12))
                        break;
                cdf += pmf[t];
                k = t + 1;
        }
        if (k > (m + 1) / 2)
                k = (m + 1) / 2;
        if (k < 1)
                k = 1;
        out->estimate = (m % 2) ? w[m / 2] : 0.5 * (w[m / 2 - 1] + w[m / 2]);
        out->lo = w[k - 1];
        out->hi = w[m - k];
        {
                double below = 0.0;
                for (size_t t = 0; t < k; t++)
                        below += pmf[t];
                out->conf = 1.0 - 2.0 * below;
        }
        free(pmf);
        free(w);
        return 0;
}

struct pg_absval {
        double a;
        bool pos;
};

static int pg_cmp_abs(const void *x, const void *y)
{
        double a = ((const struct pg_absval *) x)->a, b = ((const struct pg_absval *) y)->a;
        return (a > b) - (a < b);
}

double pg_stats_signed_rank_greater(const double *d, size_t n)
{
        struct pg_absval *v;
        unsigned *r2; /* doubled mid-ranks */
        size_t nz = 0, sum2 = 0, obs2 = 0;
        double *f, p = 0.0;

        if (n == 0 || n > PG_SIGNED_RANK_MAX)
                return 1.0;
        v = pg_xmalloc(n * sizeof(*v));
        for (size_t i = 0; i < n; i++)
                if (d[i] != 0.0) {
                        v[nz].a = fabs(d[i]);
                        v[nz].pos = d[i] > 0.0;
                        nz++;
                }
        if (nz == 0) {
                free(v);
                return 1.0;
        }
        qsort(v, nz, sizeof(*v), pg_cmp_abs);
        r2 = pg_xmalloc(nz * sizeof(*r2));
        for (size_t i = 0; i < nz;) {
                size_t j = i;
                while (j + 1 < nz && v[j + 1].a == v[i].a)
                        j++;
                for (size_t t = i; t <= j; t++)
                        r2[t] = (unsigned) (i + j + 2); /* 2 x mid-rank of positions i..j */
                i = j + 1;
        }
        for (size_t i = 0; i < nz; i++) {
                sum2 += r2[i];
                if (v[i].pos)
                        obs2 += r2[i];
        }
        /* exact null: each rank is positive with probability 1/2 */
        f = pg_xcalloc(sum2 + 1, sizeof(double));
        f[0] = 1.0;
        for (size_t i = 0; i < nz; i++) {
                for (size_t t = sum2; t + 1 > r2[i]; t--)
                        f[t] = 0.5 * (f[t] + f[t - r2[i]]);
                for (size_t t = 0; t < r2[i] && t <= sum2; t++)
                        f[t] *= 0.5;
        }
        for (size_t t = obs2; t <= sum2; t++)
                p += f[t];
        free(f);
        free(r2);
        free(v);
        return p > 1.0 ? 1.0 : p;
}

struct pg_pidx {
        double p;
        size_t i;
};

static int pg_cmp_pidx(const void *a, const void *b)
{
        const struct pg_pidx *x = a, *y = b;
        if (x->p != y->p)
                return (x->p > y->p) - (x->p < y->p);
        return (x->i > y->i) - (x->i < y->i);
}

void pg_stats_holm(const double *p, size_t n, double *adj)
{
        struct pg_pidx *s;
        double run = 0.0;

        if (n == 0)
                return;
        s = pg_xmalloc(n * sizeof(*s));
        for (size_t i = 0; i < n; i++)
                s[i] = (struct pg_pidx){ p[i], i };
        qsort(s, n, sizeof(*s), pg_cmp_pidx);
        for (size_t j = 0; j < n; j++) {
                double a = (double) (n - j) * s[j].p;
                if (a > 1.0)
                        a = 1.0;
                if (a > run)
                        run = a;
                adj[s[j].i] = run;
        }
        free(s);
}

int pg_confirm_judge(const double *d, size_t n, unsigned look, const struct pg_confirm_opts *o,
                     struct pg_confirm_look *out)
{
        struct pg_hl1 hl;
        double a, fl;
        int error;

        if (!o || !(o->floor > 0.0) || !(o->alpha > 0.0 && o->alpha < 1.0))
                return pg_error_set(PG_EINPUT,
                                    "confirmation needs a floor > 0 and alpha in (0, 1)");
        a = pg_confirm_look_alpha(o->alpha, look);
        if ((error = pg_stats_hl_signed_rank(d, n, 1.0 - a, &hl)) < 0)
                return error;
        fl = log1p(o->floor);
        memset(out, 0, sizeof(*out));
        out->look = look;
        out->pairs = n;
        out->level = hl.conf;
        out->estimate = expm1(hl.estimate);
        out->lo = expm1(hl.lo);
        out->hi = expm1(hl.hi);
        if (hl.lo > fl)
                out->outcome = PG_CONFIRM_REGRESSION;
        else if (hl.hi < fl)
                out->outcome = PG_CONFIRM_NO_REGRESSION;
        else
                out->outcome = PG_CONFIRM_UNDECIDED;
        return 0;
}

/* ---- hotspots ----------------------------------------------------------- */

void pg_confirm_hotspots_release(struct pg_confirm_hotspots *h)
{
        for (size_t i = 0; i < h->n; i++) {
                free(h->items[i].function);
                free(h->items[i].caller);
                free(h->items[i].caller_module);
        }
        free(h->items);
        memset(h, 0, sizeof(*h));
}

/* Add the frames of the @n sampled runs @p to @pair as side @side. */
static void pg_pairing_add_runs(struct pg_frame_pairing *pair, int side, const struct pg_profile *p,
                                size_t n)
{
        for (size_t r = 0; r < n; r++)
                for (size_t i = 0; p[r].present && i < p[r].nstacks; i++)
                        pg_frame_pairing_add_stack(pair, side, p[r].stacks[i].frames,
                                                   strlen(p[r].stacks[i].frames));
}

/* The self frame of folded key @k as the hotspots of a comparison count
 * it (pg_profile_pair_self(), compare/profile.h; @own: pg_profile_own_calls()
 * of every sampled run of both sides, under @pair); NULL for the comm alone. */
static const char *pg_self_frame(const char *k, const struct pg_frame_pairing *pair,
                                 const struct pg_strmap *own, size_t *len)
{
        size_t at = pg_profile_pair_self(k, strlen(k), pair, own, len);

        return at ? k + at : NULL;
}

/* Self samples of @fn in @p: of the self frames (pg_self_frame()) that are
 * @fn by pg_frame_pair_same() under @pair (a cgo wrapper of a base build is
 * the one of head when the pairing is unambiguous). */
static double pg_self_samples(const struct pg_profile *p, const struct pg_frame_pairing *pair,
                              const struct pg_strmap *own, const char *fn)
{
        size_t fl = strlen(fn), len;
        double s = 0.0;
        for (size_t i = 0; i < p->nstacks; i++) {
                const char *leaf = pg_self_frame(p->stacks[i].frames, pair, own, &len);
                if (leaf && pg_frame_pair_same(pair, leaf, len, fn, fl))
                        s += (double) p->stacks[i].count;
        }
        return s;
}

/* Inclusive samples of @fn in @p: of the stacks with a frame (past the
 * comm) that is @fn by pg_frame_pair_same() under @pair, inlined or not,
 * each stack counted once however often @fn recurs in it. A leaf's inclusive samples are its
 * self samples. */
static double pg_incl_samples(const struct pg_profile *p, const struct pg_frame_pairing *pair,
                              const char *fn)
{
        size_t fl = strlen(fn);
        double s = 0.0;
        for (size_t i = 0; i < p->nstacks; i++) {
                const char *f = strchr(p->stacks[i].frames, ';');
                while (f) {
                        const char *e = strchr(f + 1, ';');
                        size_t len = e ? (size_t) (e - f - 1) : strlen(f + 1);
                        if (pg_frame_pair_same(pair, f + 1, len, fn, fl)) {
                                s += (double) p->stacks[i].count;
                                break;
                        }
                        f = e;
                }
        }
        return s;
}

/* Seconds of run @p: all of it (@fn NULL), or @fn's own time. */
static double pg_run_seconds(const struct pg_profile *p, const struct pg_frame_pairing *pair,
                             const struct pg_strmap *own, const char *fn)
{
        double hz = p->frequency_hz ? (double) p->frequency_hz : 999.0;
        return (fn ? pg_self_samples(p, pair, own, fn) : (double) p->samples) / hz;
}

struct pg_cand {
        char *fn;
        double samples;
};

static int pg_cmp_cand(const void *a, const void *b)
{
        const struct pg_cand *x = a, *y = b;
        if (x->samples != y->samples)
                return x->samples < y->samples ? 1 : -1;
        return strcmp(x->fn, y->fn);
}

static int pg_cmp_hot(const void *a, const void *b)
{
        const struct pg_confirm_hotspot *x = a, *y = b;
        if (x->confirmed != y->confirmed)
                return x->confirmed ? -1 : 1;
        if (x->self_growth_ns != y->self_growth_ns)
                return x->self_growth_ns < y->self_growth_ns ? 1 : -1;
        return strcmp(x->function, y->function);
}

int pg_confirm_hotspots(const struct pg_profile *base, const struct pg_profile *head, size_t npairs,
                        size_t max_candidates, double floor, double alpha,
                        struct pg_confirm_hotspots *out)
{
        struct pg_cand *c = NULL;
        size_t nc = 0, cap = 0;
        double *d, *g, *ig, *tg, *bs, *hs, *p, *adj;
        struct pg_strmap own = PG_STRMAP_INIT;
        struct pg_frame_pairing pair = PG_FRAME_PAIRING_INIT;
        size_t family;

        memset(out, 0, sizeof(*out));
        if (npairs < 2)
                return pg_error_set(PG_EINPUT, "hotspot confirmation needs 2 pairs or more");
        for (size_t i = 0; i < npairs; i++)
                if (!base[i].samples || !head[i].samples)
                        return pg_error_set(PG_EINPUT, "a sampled run of pair %zu has no samples",
                                            i + 1);
        pg_pairing_add_runs(&pair, 0, base, npairs);
        pg_pairing_add_runs(&pair, 1, head, npairs);
        pg_frame_pairing_finish(&pair);
        for (size_t i = 0; i < npairs; i++) {
                pg_profile_own_calls(&own, &pair, &base[i]);
                pg_profile_own_calls(&own, &pair, &head[i]);
        }
        /* candidates: self frames of the head profiles, by pooled self
         * samples; one per function as pg_self_samples() counts them (by
         * pg_frame_pair_same(): two spellings of one key are one candidate,
         * named as head first spells it) */
        for (size_t r = 0; r < npairs; r++)
                for (size_t i = 0; i < head[r].nstacks; i++) {
                        size_t len, k;
                        const char *leaf =
                            pg_self_frame(head[r].stacks[i].frames, &pair, &own, &len);
                        if (!leaf || !len)
                                continue;
                        for (k = 0; k < nc; k++)
                                if (pg_frame_pair_same(&pair, c[k].fn, strlen(c[k].fn), leaf, len))
                                        break;
                        if (k == nc) {
                                if (nc == cap) {
                                        cap = cap ? 2 * cap : 64;
                                        c = pg_xreallocarray(c, cap, sizeof(*c));
                                }
                                c[nc].fn = pg_xstrndup(leaf, len);
                                c[nc].samples = 0.0;
                                nc++;
                        }
                        c[k].samples += (double) head[r].stacks[i].count;
                }
        if (nc)
                qsort(c, nc, sizeof(*c), pg_cmp_cand);
        out->pairs = npairs;
        d = pg_xmalloc(npairs * sizeof(double));
        family = nc;
        if (floor > 0.0) {
                /* keep the candidates that could be a cause or gate (see
                 * confirm.h); by pair means, which swapping a pair's two
                 * runs leaves alone, so that under no change the choice
                 * says nothing about the signs the test then ranks */
                size_t kept = 0;
                double run_s;
                for (size_t r = 0; r < npairs; r++)
                        d[r] = 0.5 * (pg_run_seconds(&base[r], &pair, &own, NULL) +
                                      pg_run_seconds(&head[r], &pair, &own, NULL));
                run_s = pg_stats_median(d, npairs);
                for (size_t k = 0; k < nc; k++) {
                        for (size_t r = 0; r < npairs; r++)
                                d[r] = 0.5 * (pg_run_seconds(&base[r], &pair, &own, c[k].fn) +
                                              pg_run_seconds(&head[r], &pair, &own, c[k].fn));
                        if (pg_stats_median(d, npairs) >= 0.5 * floor * run_s) {
                                struct pg_cand t = c[kept];
                                c[kept++] = c[k];
                                c[k] = t;
                        }
                }
                family = kept;
        }
        out->n = family < max_candidates ? family : max_candidates;
        out->items = pg_xcalloc(out->n ? out->n : 1, sizeof(*out->items));
        g = pg_xmalloc(npairs * sizeof(double));
        ig = pg_xmalloc(npairs * sizeof(double));
        tg = pg_xmalloc(npairs * sizeof(double));
        bs = pg_xmalloc(npairs * sizeof(double));
        hs = pg_xmalloc(npairs * sizeof(double));
        p = pg_xmalloc((out->n ? out->n : 1) * sizeof(double));
        adj = pg_xmalloc((out->n ? out->n : 1) * sizeof(double));
        for (size_t k = 0; k < out->n; k++) {
                struct pg_confirm_hotspot *h = &out->items[k];
                h->function = c[k].fn;
                c[k].fn = NULL;
                for (size_t r = 0; r < npairs; r++) {
                        double fb = base[r].frequency_hz ? (double) base[r].frequency_hz : 999.0;
                        double fh = head[r].frequency_hz ? (double) head[r].frequency_hz : 999.0;
                        double sb = pg_self_samples(&base[r], &pair, &own, h->function);
                        double sh = pg_self_samples(&head[r], &pair, &own, h->function);
                        bs[r] = sb / (double) base[r].samples;
                        hs[r] = sh / (double) head[r].samples;
                        d[r] = hs[r] - bs[r];
                        g[r] = (sh / fh - sb / fb) * 1e9;
                        ig[r] = (pg_incl_samples(&head[r], &pair, h->function) / fh -
                                 pg_incl_samples(&base[r], &pair, h->function) / fb) *
                                1e9;
                        tg[r] =
                            ((double) head[r].samples / fh - (double) base[r].samples / fb) * 1e9;
                }
                h->base_share = pg_stats_median(bs, npairs);
                h->head_share = pg_stats_median(hs, npairs);
                h->p_value = pg_stats_signed_rank_greater(d, npairs);
                h->self_growth_ns = pg_stats_median(g, npairs);
                h->incl_growth_ns = pg_stats_median(ig, npairs);
                h->total_growth_ns = pg_stats_median(tg, npairs);
                p[k] = h->p_value;
        }
        pg_stats_holm(p, out->n, adj);
        for (size_t k = 0; k < out->n; k++) {
                struct pg_confirm_hotspot *h = &out->items[k];
                h->p_holm = adj[k];
                h->confirmed = h->p_holm <= alpha && h->self_growth_ns > 0.0;
                h->cause = h->confirmed && h->total_growth_ns > 0.0 &&
                           h->self_growth_ns > 0.5 * h->total_growth_ns;
        }
        if (out->n)
                qsort(out->items, out->n, sizeof(*out->items), pg_cmp_hot);
        for (size_t k = 0; k < nc; k++)
                free(c[k].fn);
        free(c);
        pg_strmap_release(&own);
        pg_frame_pairing_release(&pair);
        free(d);
        free(g);
        free(ig);
        free(tg);
        free(bs);
        free(hs);
        free(p);
        free(adj);
        return 0;
}

/* Where symbol @name (@len bytes) is by the address histograms of the @n
 * profiles @p: 1 in @exe (one of its entries is), -1 only elsewhere, 0
 * unknown (no samples of its own). */
static int pg_symbol_in(const struct pg_profile *p, size_t n, const char *name, size_t len,
                        const char *exe)
{
        int where = 0;

        for (size_t r = 0; r < n; r++)
                for (size_t i = 0; p[r].present && i < p[r].naddrs; i++) {
                        const struct pg_fn_addrs *f = &p[r].addrs[i];
                        if (!f->module || strlen(f->function) != len ||
                            memcmp(f->function, name, len) != 0)
                                continue;
                        if (strcmp(f->module, exe) == 0)
                                return 1;
                        where = -1;
                }
        return where;
}

/* The nearest caller of @fn in @exe (pg_confirm_hotspots_callers()): a new
 * string, or NULL. */
static char *pg_own_caller(const struct pg_profile *head, size_t n, const char *fn, const char *exe)
{
        static const struct pg_frame_pairing one_build = PG_FRAME_PAIRING_INIT;
        size_t fl = strlen(fn), len, at, best_len = 0;
        const char *best = NULL;
        struct pg_strmap stacks = PG_STRMAP_INIT;
        uint64_t *c = NULL, top = 0;
        size_t cap = 0;
        char *out = NULL;

        if (pg_symbol_in(head, n, fn, fl, exe) >= 0)
                return NULL; /* the executable's own code, or not known */
        /* the heaviest stack of @fn, pooled over the runs (first bytewise on
         * a tie, so that the answer does not depend on the runs' order) */
        for (size_t r = 0; r < n; r++)
                for (size_t i = 0; i < head[r].nstacks; i++) {
                        const char *k = head[r].stacks[i].frames;
                        size_t kl = strlen(k), idx;

                        at = pg_frame_self(k, kl, &len);
                        /* one build: two wrappers of one key are two functions */
                        if (at == 0 || !pg_frame_pair_same(&one_build, k + at, len, fn, fl))
                                continue;
                        idx = pg_strmap_intern(&stacks, k, at + len, NULL);
                        if (idx >= cap) {
                                size_t old = cap;
                                cap = cap ? 2 * cap : 16;
                                while (cap <= idx)
                                        cap *= 2;
                                c = pg_xreallocarray(c, cap, sizeof(*c));
                                memset(c + old, 0, (cap - old) * sizeof(*c));
                        }
                        c[idx] += head[r].stacks[i].count;
                }
        for (size_t i = 0; i < stacks.n; i++)
                if (best == NULL || c[i] > top ||
                    (c[i] == top && strcmp(stacks.keys[i].ptr, best) < 0)) {
                        best = stacks.keys[i].ptr;
                        best_len = stacks.keys[i].len;
                        top = c[i];
                }
        /* from the frame before the self frame toward the root (frame 0 is
         * the comm) */
        for (size_t end = best ? pg_frame_self(best, best_len, &len) : 0; end > 1 && !out;) {
                size_t b = end - 1; /* the ';' before the frame just passed */
                size_t e = b;
                enum pg_frame_kind kind;
                size_t name_len;

                while (b > 0 && best[b - 1] != ';')
                        b--;
                end = b;
                if (b == 0)
                        break; /* the comm */
                name_len = pg_frame_strip(best + b, e - b, &kind);
                if (kind != PG_FRAME_USER)
                        continue;
                if (pg_symbol_in(head, n, best + b, name_len, exe) > 0)
                        out = pg_xstrndup(best + b, name_len);
        }
        free(c);
        pg_strmap_release(&stacks);
        return out;
}

void pg_confirm_hotspots_callers(struct pg_confirm_hotspots *h, const struct pg_profile *head,
                                 size_t n, const char *exe)
{
        if (exe == NULL)
                return;
        for (size_t k = 0; k < h->n; k++)
                if (h->items[k].confirmed && h->items[k].caller == NULL &&
                    (h->items[k].caller = pg_own_caller(head, n, h->items[k].function, exe)))
                        h->items[k].caller_module = pg_xstrdup(exe);
}

/* ---- one benchmark's confirmation --------------------------------------- */

struct pg_bench_confirm *pg_bench_confirm_new(void)
{
        struct pg_bench_confirm *c = pg_xcalloc(1, sizeof(*c));
        c->outcome = PG_CONFIRM_NOT_CONFIRMED;
        return c;
}

void pg_bench_confirm_free(struct pg_bench_confirm *c)
{
        if (!c)
                return;
        free(c->stored);
        free(c->note);
        free(c->cpus);
        pg_confirm_hotspots_release(&c->hotspots);
        free(c);
}

static void pg_esc_or_copy(struct pg_buf *out, const char *s,
                           void (*esc)(struct pg_buf *, const char *))
{
        if (esc)
                esc(out, s);
        else
                pg_buf_puts(out, s);
}

/* A function name in a code span, as report_text.c writes causes: control
 * bytes escaped and backticks made quotes, so it is the same in text and
 * Markdown. */
static void pg_code_span(struct pg_buf *out, const char *name)
{
        struct pg_buf t = PG_BUF_INIT;
        pg_report_escape_ctl(&t, name);
        pg_buf_putc(out, '`');
        for (char *p = t.ptr; p && *p; p++)
                pg_buf_putc(out, *p == '`' ? '\'' : *p);
        pg_buf_putc(out, '`');
        pg_buf_release(&t);
}

/* A confidence level as a percentage with the decimals it needs: 97.7%,
 * 99.9%, 99.98% (look 12), never a rounded "100.0%". */
static void pg_confirm_fmt_level(struct pg_buf *out, double level)
{
        int digits = 1;

        while (digits < 4 && 100 * level < 100 && 100 * level + 0.5 * pow(10, -digits) >= 100)
                digits++;
        pg_buf_printf(out, "%.*f%%", digits, 100 * level);
}

void pg_confirm_levels_note(struct pg_buf *out, double alpha)
{
        pg_buf_printf(out,
                      "Paired runs: an interval's level is that of the sequential test's look "
                      "that decided it (at least 1 - %.3g/k^2 at look k: ",
                      pg_confirm_look_alpha(alpha, 1));
        pg_confirm_fmt_level(out, 1 - pg_confirm_look_alpha(alpha, 1));
        pg_buf_printf(out, " at the first, after %zu pairs, ", pg_confirm_look_pairs(1));
        pg_confirm_fmt_level(out, 1 - pg_confirm_look_alpha(alpha, 5));
        pg_buf_printf(out,
                      " at the fifth, after %zu), so that all looks together err at most %g%%; "
                      "a benchmark that needed more pairs shows a higher level.",
                      pg_confirm_look_pairs(5), 100 * alpha);
}

void pg_cpu_list_format(struct pg_buf *out, const int *cpus, size_t n)
{
        for (size_t i = 0; i < n;) {
                size_t j = i;
                while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
                        j++;
                pg_buf_printf(out, "%s%d", i ? "," : "", cpus[i]);
                if (j > i)
                        pg_buf_printf(out, "-%d", cpus[j]);
                i = j + 1;
        }
}

void pg_pinned_format(struct pg_buf *out, const int *cpus, size_t n)
{
        if (n)
                pg_buf_printf(out, "pinned to CPU%s ", n > 1 ? "s" : "");
        pg_cpu_list_format(out, cpus, n);
}

void pg_bench_confirm_result(struct pg_buf *out, const struct pg_bench_confirm *c)
{
        if (!c || !c->has_interval)
                return;
        pg_buf_printf(out, "paired runs %+.2f%% [%+.2f%%, %+.2f%%]: %s", 100 * c->estimate,
                      100 * c->lo, 100 * c->hi,
                      c->outcome == PG_CONFIRM_NOT_CONFIRMED || c->outcome == PG_CONFIRM_UNDECIDED
                          ? "unconfirmed"
                          : pg_confirm_outcome_name(c->outcome));
}

void pg_bench_confirm_brief(struct pg_buf *out, const struct pg_bench_confirm *c)
{
        if (!c || !c->has_interval)
                return;
        pg_bench_confirm_result(out, c);
        pg_buf_puts(out, "; ");
}

void pg_bench_confirm_describe(struct pg_buf *out, const struct pg_bench_confirm *c,
                               void (*esc)(struct pg_buf *, const char *), const char *newline)
{
        size_t shown = 0;
        const char *rest = NULL; /* the note's lines after its first (a log tail) */

        if (c->outcome == PG_CONFIRM_NOT_CONFIRMED || c->outcome == PG_CONFIRM_UNDECIDED)
                pg_buf_puts(out, "unconfirmed");
        else
                pg_buf_printf(out, "confirmed %s", pg_confirm_outcome_name(c->outcome));
        if (c->outcome == PG_CONFIRM_INCONCLUSIVE)
                pg_buf_puts(out, " at the budget");
        if (c->has_interval) {
                pg_buf_printf(out, ": %+.2f%% [%+.2f%%, %+.2f%%] (", 100 * c->estimate, 100 * c->lo,
                              100 * c->hi);
                pg_confirm_fmt_level(out, c->level);
                if (c->look)
                        pg_buf_printf(out, " interval, look %u), ", c->look);
                else
                        pg_buf_puts(out, " interval), ");
                pg_buf_printf(out, "%zu pairs in %.0f s, floor %+.1f%%", c->pairs, c->seconds,
                              100 * c->floor);
        }
        if (c->has_interval && c->ncpus) {
                pg_buf_puts(out, ", ");
                pg_pinned_format(out, c->cpus, c->ncpus);
        } else if (c->has_interval) {
                pg_buf_puts(out, ", unpinned: pairs kept within one CPU");
        }
        if (c->discarded)
                pg_buf_printf(out, " (%zu pairs dropped: runs on different CPUs)", c->discarded);
        if (c->note) {
                const char *nl = strchr(c->note, '\n');
                char *first = nl ? pg_xstrndup(c->note, (size_t) (nl - c->note)) : NULL;
                pg_buf_puts(out, c->has_interval ? "; " : ": ");
                pg_esc_or_copy(out, first ? first : c->note, esc);
                free(first);
                rest = nl ? nl + 1 : NULL;
        }
        for (size_t k = 0; k < c->hotspots.n && shown < 3; k++) {
                const struct pg_confirm_hotspot *h = &c->hotspots.items[k];
                if (!h->confirmed)
                        continue;
                pg_buf_puts(out, shown++ ? ", " : "; confirmed hotspot ");
                pg_code_span(out, h->function);
                pg_buf_printf(out,
                              " %.2f%% -> %.2f%% (p = %.2g Holm), own time %+.1f ms of "
                              "%+.1f ms%s",
                              100 * h->base_share, 100 * h->head_share, h->p_holm,
                              h->self_growth_ns / 1e6, h->total_growth_ns / 1e6,
                              h->cause ? ": the cause" : "");
                if (h->moved) {
                        pg_buf_puts(out, ", work moved into ");
                        pg_code_span(out, h->function);
                        pg_buf_printf(out,
                                      " from its callees (inclusive time %+.1f ms, within the "
                                      "floor): not gated",
                                      h->incl_growth_ns / 1e6);
                }
                if (h->caller && h->caller_module) {
                        const char *base = strrchr(h->caller_module, '/');
                        pg_buf_puts(out, " (called from ");
                        pg_code_span(out, h->caller);
                        pg_buf_puts(out, " in ");
                        pg_esc_or_copy(out, base ? base + 1 : h->caller_module, esc);
                        pg_buf_putc(out, ')');
                }
        }
        for (size_t k = 0; k < c->hotspots.n && !shown; k++) {
                const struct pg_confirm_hotspot *h = &c->hotspots.items[k];
                if (!h->grew)
                        continue;
                shown++;
                pg_buf_puts(out, "; ");
                pg_code_span(out, h->function);
                pg_buf_printf(out,
                              " grew with the benchmark: own time %+.1f ms of %+.1f ms: the "
                              "cause (self share %.2f%% -> %.2f%%: most of the run keeps its "
                              "share; %zu sampled pairs)",
                              h->self_growth_ns / 1e6, h->total_growth_ns / 1e6,
                              100 * h->base_share, 100 * h->head_share, c->hotspots.pairs);
        }
        if (c->hotspots.pairs && !shown)
                pg_buf_printf(out, "; no hotspot confirmed in %zu sampled pairs (%.0f s)",
                              c->hotspots.pairs, c->hot_seconds);
        /* each further line of the note on a line of its own, escaped alone:
         * escaping the whole note would show its newlines as "\n" */
        while (rest && *rest) {
                const char *nl = strchr(rest, '\n');
                char *line = pg_xstrndup(rest, nl ? (size_t) (nl - rest) : strlen(rest));
                pg_buf_puts(out, newline ? newline : "\n");
                pg_esc_or_copy(out, line, esc);
                free(line);
                rest = nl ? nl + 1 : NULL;
        }
}
