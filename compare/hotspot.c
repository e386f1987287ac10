/*
 * hotspot.c - per-function self and inclusive shares from folded stacks and
 * their change between baseline and head (hotspot.h).
 *
 * The figures of each side come from compare/profile.h; this file joins the
 * two sides by function name and judges the change.
 */
#include "compare/hotspot.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/frame.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hashmap.h"
#include "compare/profile.h"
#include "compare/stats.h"

static const char *const pg_kind_names[] = { "regressed",       "new",
                                             "improved",        "vanished",
                                             "not significant", "tiny",
                                             "unchanged",       "shifted (others changed)",
                                             "grew (own time)", "interrupt (not gating)" };

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
                free(h->items[i].line);
                free(h->items[i].line_callee);
                free(h->items[i].line_callee_at);
        }
        free(h->items);
        free(h->reason);
        memset(h, 0, sizeof(*h));
}

/* Listing order: the functions that grew on their own come right after the
 * regressed ones (largest own-time growth first), then the enum's order. */
static int pg_kind_rank(enum pg_hotspot_kind k)
{
        if (k == PG_HOTSPOT_GREW)
                return 1;
        return 2 * (int) k;
}

static int pg_hotspot_cmp(const void *a, const void *b)
{
        const struct pg_hotspot *x = a, *y = b;
        double dx = fabs(x->delta_self_pp), dy = fabs(y->delta_self_pp);

        if (x->kind != y->kind)
                return pg_kind_rank(x->kind) - pg_kind_rank(y->kind);
        if (x->kind == PG_HOTSPOT_GREW && x->self_time_ms != y->self_time_ms)
                return x->self_time_ms > y->self_time_ms ? -1 : 1; /* own-time growth */
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
                return p && p->missing ? "has no profile: the run could not sample it"
                                       : "has no profile (it was run with --no-profile)";
        if (total == 0)
                return "has 0 samples";
        return NULL;
}

/* Whether @p's address histograms say where inlined code was called:
 * profile.inline_sites, or (results of versions before that field) an
 * inlined entry anywhere. An older result without entries cannot be told
 * from one without samples in inlined code; a new one can: a base in which
 * no inlined code ran is compared by call sites with a head in which it
 * runs. */
static bool pg_profile_has_inlined(const struct pg_profile *p)
{
        if (p != NULL && p->present && p->inline_sites)
                return true;
        for (size_t i = 0; p != NULL && p->present && i < p->naddrs; i++)
                if (p->addrs[i].ninlined)
                        return true;
        return false;
}

/* The counts of key @k (@len bytes) in @keys, @c[2 * i + side]: its index,
 * added (with zero counts) when new. */
static size_t pg_count_slot(struct pg_strmap *keys, const char *k, size_t len, uint64_t **c,
                            size_t *cap)
{
        size_t idx = pg_strmap_intern(keys, k, len, NULL);

        if (2 * idx + 2 > *cap) {
                size_t old = *cap;

                *cap = *cap ? *cap * 2 : 32;
                while (*cap < 2 * idx + 2)
                        *cap *= 2;
                *c = pg_xreallocarray(*c, *cap, sizeof(**c));
                memset(*c + old, 0, (*cap - old) * sizeof(**c));
        }
        return idx;
}

/* Whether symbol @sym of the address histograms is function @fn of a
 * hotspot (whose name may carry "_[i]", or another cgo hash): the one key
 * the rest of compare matches base and head on (pg_frame_pair_same() under
 * the pairing @pair of the compared profiles). */
static bool pg_addrs_is(const struct pg_frame_pairing *pair, const char *sym, const char *fn)
{
        return pg_frame_pair_same(pair, sym, strlen(sym), fn, strlen(fn));
}

/* Add @f's samples by line (every module of that name, matched by
 * pg_addrs_is()) to @lines, counts in @c[2 * i + side]; @sites: a line
 * inlined from another file counts for its call site in the function's own
 * file (the loader checked that no line gives away more samples than it
 * has). A side where @fn has no code of its own (inlined into every
 * caller, in the build where it was small) has its samples only as lines
 * inlined elsewhere (addrs[].inlined of its callers, when it lives in
 * another file than they do): those count at their own lines, so that a
 * function inlined in base and not in head is compared line for line
 * rather than as new. */
static void pg_lines_add(const struct pg_frame_pairing *pair, const struct pg_profile *p,
                         const char *fn, int side, bool sites, struct pg_strmap *lines,
                         uint64_t **c, size_t *cap)
{
        bool own = false;

        if (p == NULL || !p->present)
                return;
        for (size_t i = 0; i < p->naddrs && !own; i++)
                own = pg_addrs_is(pair, p->addrs[i].function, fn);
        for (size_t i = 0; i < p->naddrs && !own; i++) {
                const struct pg_fn_addrs *f = &p->addrs[i];

                for (size_t j = 0; j < f->ninlined; j++) {
                        const struct pg_inline_count *e = &f->inlined[j];
                        size_t idx;

                        if (!pg_addrs_is(pair, e->function, fn))
                                continue;
                        idx = pg_count_slot(lines, e->line, strlen(e->line), c, cap);
                        (*c)[2 * idx + (size_t) side] += e->count;
                }
        }
        for (size_t i = 0; i < p->naddrs; i++) {
                const struct pg_fn_addrs *f = &p->addrs[i];

                if (!pg_addrs_is(pair, f->function, fn))
                        continue;
                for (size_t j = 0; j < f->nlines; j++) {
                        const char *w = f->lines[j].where;
                        size_t idx = pg_count_slot(lines, w, strlen(w), c, cap);

                        (*c)[2 * idx + (size_t) side] += f->lines[j].count;
                }
                for (size_t j = 0; sites && j < f->ninlined; j++) {
                        const struct pg_inline_count *e = &f->inlined[j];
                        size_t from = pg_count_slot(lines, e->line, strlen(e->line), c, cap);
                        size_t to = pg_count_slot(lines, e->site, strlen(e->site), c, cap);

                        (*c)[2 * from + (size_t) side] -= e->count;
                        (*c)[2 * to + (size_t) side] += e->count;
                }
        }
}

/* A result written before line keys were stored relative to the project's
 * root keys its files by the absolute path of its checkout: such a key
 * counts for the relative key of the other side that it ends in
 * (pg_source_key_same()), so an older baseline still meets a newer head
 * line for line. Two older results built in different directories cannot
 * be matched (neither knows its root; docs/compare.md). */
static void pg_lines_merge_checkouts(const struct pg_strmap *lines, uint64_t *c)
{
        for (size_t i = 0; i < lines->n; i++) {
                if (lines->keys[i].ptr[0] != '/')
                        continue;
                for (size_t j = 0; j < lines->n; j++)
                        if (lines->keys[j].ptr[0] != '/' &&
                            pg_source_key_same(lines->keys[i].ptr, lines->keys[j].ptr)) {
                                c[2 * j] += c[2 * i];
                                c[2 * j + 1] += c[2 * i + 1];
                                c[2 * i] = c[2 * i + 1] = 0;
                                break;
                        }
        }
}

/* Of the lines inlined at call site @site of hotspot @h, the one whose
 * share grew most, with the function inlined there: into h->line_callee
 * and h->line_callee_at; left NULL when none grew, or when all the code
 * inlined there grew by less than half of the line (h->line_delta_pp,
 * percentage points of all samples either): the line's own code
 * then holds most of it, and naming the inlined function would send the
 * reader to the wrong code (a CPU's skid can put the samples of an inlined
 * instruction on the line's own next one). */
static void pg_hotspot_callee(const struct pg_frame_pairing *pair, const struct pg_profile *base,
                              const struct pg_profile *head, const struct pg_hotspots *hs,
                              struct pg_hotspot *h, const char *site)
{
        const struct pg_profile *side[2] = { base, head };
        struct pg_strmap keys = PG_STRMAP_INIT;
        struct pg_buf k = PG_BUF_INIT;
        uint64_t *c = NULL;
        size_t cap = 0, best = SIZE_MAX;
        double best_pp = 0, inlined_pp = 0;

        for (int s = 0; s < 2; s++)
                for (size_t i = 0; side[s] != NULL && side[s]->present && i < side[s]->naddrs;
                     i++) {
                        const struct pg_fn_addrs *f = &side[s]->addrs[i];

                        if (!pg_addrs_is(pair, f->function, h->function))
                                continue;
                        for (size_t j = 0; j < f->ninlined; j++) {
                                const struct pg_inline_count *e = &f->inlined[j];
                                size_t idx;

                                if (!pg_source_key_same(e->site, site))
                                        continue;
                                /* "function\0line": neither holds a NUL */
                                pg_buf_reset(&k);
                                pg_buf_puts(&k, e->function);
                                pg_buf_putc(&k, '\0');
                                pg_buf_puts(&k, e->line);
                                idx = pg_count_slot(&keys, k.ptr, k.len, &c, &cap);
                                c[2 * idx + (size_t) s] += e->count;
                        }
                }
        for (size_t i = 0; i < keys.n; i++) {
                double pp =
                    100.0 * ((double) c[2 * i + 1] / (double) hs->head_total -
                             (hs->base_total ? (double) c[2 * i] / (double) hs->base_total : 0));

                inlined_pp += pp;
                if (pp > 0 && (best == SIZE_MAX || pp > best_pp)) {
                        best = i;
                        best_pp = pp;
                }
        }
        if (best != SIZE_MAX && 2 * inlined_pp >= h->line_delta_pp) {
                const char *fn = keys.keys[best].ptr;

                h->line_callee = pg_xstrdup(fn);
                h->line_callee_at = pg_xstrdup(fn + strlen(fn) + 1);
        }
        free(c);
        pg_buf_release(&k);
        pg_strmap_release(&keys);
}

/* The line of hotspot @h whose self share grew most (the first by name on
 * a tie), when the profiles have line histograms for it. Lines inlined
 * from another file count for their call site in the function's own file
 * when both profiles say where inlined code was called (else neither does,
 * so that an older baseline compares like with like). */
static void pg_hotspot_line(const struct pg_frame_pairing *pair, const struct pg_profile *base,
                            const struct pg_profile *head, const struct pg_hotspots *hs,
                            struct pg_hotspot *h)
{
        struct pg_strmap lines = PG_STRMAP_INIT;
        uint64_t *c = NULL;
        size_t cap = 0, best = SIZE_MAX;
        double best_pp = 0;
        bool sites = pg_profile_has_inlined(base) && pg_profile_has_inlined(head);

        pg_lines_add(pair, base, h->function, 0, sites, &lines, &c, &cap);
        pg_lines_add(pair, head, h->function, 1, sites, &lines, &c, &cap);
        pg_lines_merge_checkouts(&lines, c);
        for (size_t i = 0; i < lines.n && hs->head_total > 0; i++) {
                double pp =
                    100.0 * ((double) c[2 * i + 1] / (double) hs->head_total -
                             (hs->base_total ? (double) c[2 * i] / (double) hs->base_total : 0));

                if (pp > 0 &&
                    (best == SIZE_MAX || pp > best_pp ||
                     (pp == best_pp && strcmp(lines.keys[i].ptr, lines.keys[best].ptr) < 0))) {
                        best = i;
                        best_pp = pp;
                }
        }
        if (best != SIZE_MAX) {
                h->line = pg_xstrdup(lines.keys[best].ptr);
                h->line_delta_pp = best_pp;
                if (sites)
                        pg_hotspot_callee(pair, base, head, hs, h, h->line);
        }
        free(c);
        pg_strmap_release(&lines);
}

/*
 * How far a function's own time (self share x median task-clock, ms) must
 * move before its share change counts as its own: more than @rule's
 * threshold of the base task-clock, and more than PG_OWN_TIME_DRIFT of the
 * function's own base time. The second part is the drift of task-clock
 * between batches measured minutes apart, up to 15% on a shared VM
 * (docs/compare.md, "Confirming by paired runs"): every function's own time
 * moves with it, so an untouched function whose share fell while another's
 * grew is not "improved" by that drift alone.
 */
#define PG_OWN_TIME_DRIFT 0.15

static double pg_own_time_floor_ms(const struct pg_hotspot *h, const struct pg_hotspot_rule *rule,
                                   double base_task_clock_ns)
{
        double abs_ms = rule->threshold_pp / 100 * base_task_clock_ns / 1e6;
        double rel_ms = PG_OWN_TIME_DRIFT * h->base_self_share * base_task_clock_ns / 1e6;

        return abs_ms > rel_ms ? abs_ms : rel_ms;
}

/* A kernel frame's name: "name_[k]" (pg_frame_strip(), docs/result-format.md). */
static bool pg_is_kernel_frame(const char *name, size_t len)
{
        enum pg_frame_kind kind;

        return pg_frame_strip(name, len, &kind) > 0 && kind == PG_FRAME_KERNEL;
}

/* Interrupt entry frames, without their "_[k]" suffix (pg_stack_in_interrupt());
 * a trailing '*' matches any rest. */
static const char *const pg_irq_entries[] = { "asm_common_interrupt",
                                              "asm_spurious_interrupt",
                                              "asm_sysvec_*",
                                              "common_interrupt",
                                              "spurious_interrupt",
                                              "do_IRQ",
                                              "irq_exit",
                                              "irq_exit_rcu",
                                              "__irq_exit_rcu",
                                              "el0_interrupt",
                                              "el1_interrupt",
                                              "el0t_64_irq*",
                                              "el0t_32_irq*",
                                              "el1h_64_irq*",
                                              "__el0_irq",
                                              "__el1_irq",
                                              "*_interrupt" };

static bool pg_irq_entry(const char *name, size_t len)
{
        for (size_t i = 0; i < sizeof(pg_irq_entries) / sizeof(pg_irq_entries[0]); i++) {
                const char *e = pg_irq_entries[i];
                size_t n = strlen(e);
                if (e[0] == '*') {
                        if (len >= n - 1 && memcmp(name + len - (n - 1), e + 1, n - 1) == 0)
                                return true;
                } else if (e[n - 1] == '*') {
                        if (len >= n - 1 && memcmp(name, e, n - 1) == 0)
                                return true;
                } else if (len == n && memcmp(name, e, n) == 0) {
                        return true;
                }
        }
        return false;
}

bool pg_stack_in_interrupt(const char *frames, size_t len)
{
        const char *p = frames, *end = frames + len;

        while (p < end) {
                const char *semi = memchr(p, ';', (size_t) (end - p));
                size_t n = (size_t) ((semi ? semi : end) - p), base;
                enum pg_frame_kind kind;
                base = pg_frame_strip(p, n, &kind);
                if (kind == PG_FRAME_KERNEL && pg_irq_entry(p, base))
                        return true;
                p += n + 1;
        }
        return false;
}

/* Whether function @name (@len bytes) is a kernel frame that runs in
 * interrupt context on stack @stack of @p, whose key holds it up to @end
 * (pg_profile_func's hot_stack/hot_end or heavy_stack/heavy_end). */
static bool pg_irq_frame(const char *name, size_t len, const struct pg_profile *p, size_t stack,
                         size_t end)
{
        return pg_is_kernel_frame(name, len) && pg_stack_in_interrupt(p->stacks[stack].frames, end);
}

/* The frame of stack @stack of @p that ends at byte @end of its key (a
 * pg_profile_func's hot_stack/hot_end): a function's real name, where the
 * compared table holds its pg_frame_key(). A new string. */
static char *pg_hotspot_name(const struct pg_profile *p, size_t stack, size_t end)
{
        const char *key = p->stacks[stack].frames;
        size_t b = end;

        while (b > 0 && key[b - 1] != ';')
                b--;
        return pg_xstrndup(key + b, end - b);
}

/* The per-run self counts of @p (run_self, baselines/result.h) by the
 * function of compared table @names (pg_frame_pair_key() under @pair, as
 * pg_profile_funcs_scan_pair() keys it): @p->runs counts per
 * name, name after name; NULL when @p has none (older results) or a key is
 * not in @names. */
static uint64_t *pg_hotspot_runs(const struct pg_profile *p, const struct pg_strmap *names,
                                 const struct pg_frame_pairing *pair)
{
        uint64_t *c;
        char *buf = NULL;
        size_t cap = 0;

        if (!p->run_samples || p->runs == 0)
                return NULL;
        c = pg_xcalloc(names->n ? names->n * p->runs : 1, sizeof(*c));
        for (size_t i = 0; i < p->nrun_self; i++) {
                const char *f = p->run_self[i].function, *k;
                size_t len = strlen(f), klen, at;

                if (len > cap) {
                        cap = len;
                        buf = pg_xrealloc(buf, cap);
                }
                k = pg_frame_pair_key(pair, f, len, buf, &klen);
                if (!pg_strmap_find(names, k, klen, &at)) {
                        free(c);
                        free(buf);
                        return NULL;
                }
                for (uint64_t r = 0; r < p->runs; r++)
                        c[at * p->runs + r] += p->run_self[i].counts[r];
        }
        free(buf);
        return c;
}

/* The sum of the @n per-run counts @c. */
static uint64_t pg_hotspot_runs_sum(const uint64_t *c, uint64_t n)
{
        uint64_t s = 0;

        for (uint64_t r = 0; r < n; r++)
                s += c[r];
        return s;
}

/* pg_hotspots_compare(); !all: only the items pg_hotspots_compare_verdict()
 * keeps. */
static void pg_hotspots_join(const struct pg_profile *base, const struct pg_profile *head,
                             double base_task_clock_ns, double head_task_clock_ns,
                             const struct pg_hotspot_rule *rule, bool all, struct pg_hotspots *out)
{
        struct pg_profile_funcs sides[2]; /* one name table: sides[0].names */
        const struct pg_strmap *names = &sides[0].names;
        const char *bp, *hp;
        size_t k = 0, cap = 0;
        uint64_t *runs[2] = { NULL, NULL };

        out->base_total = base && base->present ? pg_profile_total(base) : 0;
        out->head_total = head && head->present ? pg_profile_total(head) : 0;
        out->base_task_clock_ns = base_task_clock_ns > 0 ? base_task_clock_ns : 0;
        out->head_task_clock_ns = head_task_clock_ns > 0 ? head_task_clock_ns : 0;
        out->rule = *rule;
        bp = pg_profile_problem(base, out->base_total);
        hp = pg_profile_problem(head, out->head_total);
        if ((!base || !base->present) && (!head || !head->present)) {
                out->reason = pg_xstrdup("no profile on either side");
                return;
        }
        if (bp || hp) {
                const struct pg_profile *p = bp ? base : head;
                const char *side = bp ? "baseline" : "head";
                /* a gate on hotspots cannot pass what head lost by accident */
                out->head_lost = !bp && head && (head->present || head->missing);
                if (p && !p->present && p->missing)
                        out->reason = pg_xasprintf("%s %s: %s", side, bp ? bp : hp, p->missing);
                else if (!p || !p->present)
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
        if (base->kernel != head->kernel)
                out->kernel_side = base->kernel ? 1 : 2;
        pg_profile_funcs_scan_pair(sides, base, head);
        /* the runs' own variation, when both sides stored it */
        runs[0] = pg_hotspot_runs(base, names, sides[0].pairing);
        runs[1] = runs[0] ? pg_hotspot_runs(head, names, sides[0].pairing) : NULL;
        if (all) {
                cap = names->n ? names->n : 1;
                out->items = pg_xcalloc(cap, sizeof(*out->items));
        }
        for (size_t i = 0; i < names->n; i++) {
                const struct pg_profile_func *e[2] = { &sides[0].funcs[i], &sides[1].funcs[i] };
                struct pg_hotspot item = { 0 }, *h = &item;
                struct pg_prop_test pt;
                bool use_runs;
                int sd;
                h->base_self = e[0]->self;
                h->head_self = e[1]->self;
                h->base_incl = e[0]->incl;
                h->head_incl = e[1]->incl;
                h->base_self_share = (double) h->base_self / (double) out->base_total;
                h->head_self_share = (double) h->head_self / (double) out->head_total;
                h->base_incl_share = (double) h->base_incl / (double) out->base_total;
                h->head_incl_share = (double) h->head_incl / (double) out->head_total;
                h->delta_self_pp = 100 * (h->head_self_share - h->base_self_share);
                h->delta_incl_pp = 100 * (h->head_incl_share - h->base_incl_share);
                h->p_value = 1;
                /* the per-run test only where the runs count what the
                 * pooled table counts: a sample the inlining-flip rule moved
                 * (profile.h, pg_profile_pair_self()) is in its run's
                 * run_self under the frame it was taken in, so the runs of a
                 * function it moved to or from do not sum to its self */
                if (runs[1] &&
                    (pg_hotspot_runs_sum(runs[0] + i * base->runs, base->runs) != h->base_self ||
                     pg_hotspot_runs_sum(runs[1] + i * head->runs, head->runs) != h->head_self))
                        use_runs = false;
                else
                        use_runs = runs[1] != NULL;
                if (use_runs
                        ? pg_stats_two_proportion_runs(runs[0] + i * base->runs, base->run_samples,
                                                       base->runs, runs[1] + i * head->runs,
                                                       head->run_samples, head->runs, &pt) == 0
                        : pg_stats_two_proportion(h->base_self, out->base_total, h->head_self,
                                                  out->head_total, &pt) == 0) {
                        h->p_value = pt.p_value;
                        h->phi = pt.phi;
                        h->df = pt.df;
                }
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
                if ((h->base_incl == 0 || h->head_incl == 0) && out->kernel_side &&
                    pg_is_kernel_frame(names->keys[i].ptr, names->keys[i].len))
                        continue;
                if (h->base_incl == 0 || h->head_incl == 0) {
                        bool is_new = h->base_incl == 0;
                        double share = is_new ? h->head_incl_share : h->base_incl_share;
                        if ((is_new ? h->head_incl : h->base_incl) < rule->min_samples ||
                            100 * share < rule->new_pp)
                                h->kind = PG_HOTSPOT_TINY;
                        else
                                h->kind = is_new ? PG_HOTSPOT_NEW : PG_HOTSPOT_VANISHED;
                } else if (fabs(h->delta_self_pp) <= rule->threshold_pp) {
                        h->kind = PG_HOTSPOT_UNCHANGED;
                } else if (h->base_self < rule->min_samples && h->head_self < rule->min_samples) {
                        h->kind = PG_HOTSPOT_TINY;
                } else if (h->p_value < rule->alpha && h->has_self_time &&
                           (h->delta_self_pp > 0 ? h->self_time_ms : -h->self_time_ms) <
                               pg_own_time_floor_ms(h, rule, base_task_clock_ns)) {
                        /* a share can only grow if others shrink: when the
                         * function's own time stayed put, it is not the cause */
                        h->kind = PG_HOTSPOT_SHIFTED;
                } else if (h->p_value < rule->alpha) {
                        h->kind = h->delta_self_pp > 0 ? PG_HOTSPOT_REGRESSED : PG_HOTSPOT_IMPROVED;
                } else {
                        h->kind = PG_HOTSPOT_NOT_SIGNIFICANT;
                }
                if ((h->kind == PG_HOTSPOT_REGRESSED || h->kind == PG_HOTSPOT_NEW) &&
                    pg_irq_frame(names->keys[i].ptr, names->keys[i].len, head, e[1]->hot_stack,
                                 e[1]->hot_end))
                        h->kind = PG_HOTSPOT_INTERRUPT;
                if (!all && (h->kind == PG_HOTSPOT_TINY ||
                             ((h->kind == PG_HOTSPOT_UNCHANGED || h->kind == PG_HOTSPOT_SHIFTED) &&
                              h->head_self < rule->min_samples)))
                        continue;
                /* the function's name as its hottest stack spells it, head's
                 * if head has it: the table holds comparison keys */
                sd = h->head_incl ? 1 : 0;
                h->function = pg_hotspot_name(sd ? head : base, e[sd]->hot_stack, e[sd]->hot_end);
                /* the hottest stack of head, or of the baseline if it vanished;
                 * copied only for the functions reports list: a copy for
                 * every function of an N-frame stack would be O(N^2) memory */
                if (pg_hotspot_kind_listed(h->kind)) {
                        sd = h->head_incl ? 1 : 0;
                        h->path =
                            pg_profile_path_to(sd ? head : base, e[sd]->hot_stack, e[sd]->hot_end);
                }
                h->heavy_stack = e[1]->heavy_stack;
                h->heavy_end = e[1]->heavy_end;
                if (k == cap) {
                        cap = cap ? 2 * cap : 64;
                        out->items = pg_xreallocarray(out->items, cap, sizeof(*out->items));
                }
                out->items[k++] = item;
        }
        out->n = k;
        for (size_t i = 0; i < k; i++)
                if (out->items[i].kind == PG_HOTSPOT_REGRESSED ||
                    out->items[i].kind == PG_HOTSPOT_NEW)
                        pg_hotspot_line(sides[0].pairing, base, head, out, &out->items[i]);
        if (out->n)
                qsort(out->items, out->n, sizeof(*out->items), pg_hotspot_cmp);
        pg_profile_funcs_release(&sides[0]);
        pg_profile_funcs_release(&sides[1]);
        free(runs[0]);
        free(runs[1]);
}

void pg_hotspots_compare(const struct pg_profile *base, const struct pg_profile *head,
                         double base_task_clock_ns, double head_task_clock_ns,
                         const struct pg_hotspot_rule *rule, struct pg_hotspots *out)
{
        pg_hotspots_join(base, head, base_task_clock_ns, head_task_clock_ns, rule, true, out);
}

void pg_hotspots_compare_verdict(const struct pg_profile *base, const struct pg_profile *head,
                                 double base_task_clock_ns, double head_task_clock_ns,
                                 const struct pg_hotspot_rule *rule, struct pg_hotspots *out)
{
        pg_hotspots_join(base, head, base_task_clock_ns, head_task_clock_ns, rule, false, out);
}

/* Candidates of pg_hotspots_mark_grew(): own-time growth first, then by name. */
static int pg_grew_cmp(const void *a, const void *b)
{
        const struct pg_hotspot *x = *(const struct pg_hotspot *const *) a;
        const struct pg_hotspot *y = *(const struct pg_hotspot *const *) b;

        if (x->self_time_ms != y->self_time_ms)
                return x->self_time_ms > y->self_time_ms ? -1 : 1;
        return strcmp(x->function, y->function);
}

void pg_hotspots_mark_grew(struct pg_hotspots *h, const struct pg_profile *head,
                           double base_task_clock_ns, double head_task_clock_ns,
                           const struct pg_hotspot_rule *rule)
{
        struct pg_hotspot *top[PG_HOTSPOT_GREW_MAX + 1];
        size_t n = 0, named = 0;
        double growth_ms = (head_task_clock_ns - base_task_clock_ns) / 1e6, sum = 0;

        if (!h->judged || pg_hotspots_culprit(h) || !(growth_ms > 0))
                return;
        /* the PG_HOTSPOT_GREW_MAX + 1 largest growths above the floor, largest first */
        for (size_t i = 0; i < h->n; i++) {
                struct pg_hotspot *x = &h->items[i];
                if (!x->has_self_time || x->head_self < rule->min_samples ||
                    (x->kind != PG_HOTSPOT_UNCHANGED && x->kind != PG_HOTSPOT_NOT_SIGNIFICANT &&
                     x->kind != PG_HOTSPOT_SHIFTED) ||
                    !(x->self_time_ms > pg_own_time_floor_ms(x, rule, base_task_clock_ns)))
                        continue;
                if (x->head_incl && pg_irq_frame(x->function, strlen(x->function), head,
                                                 x->heavy_stack, x->heavy_end))
                        continue;
                if (n == sizeof(top) / sizeof(top[0]) && pg_grew_cmp(&x, &top[n - 1]) > 0)
                        continue;
                if (n < sizeof(top) / sizeof(top[0]))
                        n++;
                top[n - 1] = x;
                qsort(top, n, sizeof(*top), pg_grew_cmp);
        }
        /* the fewest of them that hold more than half of the growth */
        while (named < n && named < PG_HOTSPOT_GREW_MAX && !(sum > 0.5 * growth_ms))
                sum += top[named++]->self_time_ms;
        if (!(sum > 0.5 * growth_ms))
                return;
        for (size_t k = 0; k < named; k++) {
                struct pg_hotspot *g = top[k];

                g->grew_from = g->kind;
                g->kind = PG_HOTSPOT_GREW;
                if (!g->path && g->head_incl)
                        g->path = pg_profile_path_to(head, g->heavy_stack, g->heavy_end);
        }
        qsort(h->items, h->n, sizeof(*h->items), pg_hotspot_cmp);
}

void pg_hotspots_unmark_grew(struct pg_hotspots *h)
{
        bool any = false;

        for (size_t i = 0; i < h->n; i++)
                if (h->items[i].kind == PG_HOTSPOT_GREW) {
                        h->items[i].kind = h->items[i].grew_from;
                        any = true;
                }
        if (any)
                qsort(h->items, h->n, sizeof(*h->items), pg_hotspot_cmp);
}

bool pg_hotspot_kind_listed(enum pg_hotspot_kind kind)
{
        return kind == PG_HOTSPOT_REGRESSED || kind == PG_HOTSPOT_NEW || kind == PG_HOTSPOT_GREW ||
               kind == PG_HOTSPOT_IMPROVED || kind == PG_HOTSPOT_VANISHED ||
               kind == PG_HOTSPOT_NOT_SIGNIFICANT || kind == PG_HOTSPOT_INTERRUPT;
}

const char *pg_hotspots_culprit(const struct pg_hotspots *h)
{
        for (size_t i = 0; h->judged && i < h->n; i++)
                if (h->items[i].kind == PG_HOTSPOT_REGRESSED ||
                    h->items[i].kind == PG_HOTSPOT_NEW || h->items[i].kind == PG_HOTSPOT_GREW)
                        return h->items[i].function;
        return NULL;
}

bool pg_hotspots_changed(const struct pg_hotspots *h)
{
        for (size_t i = 0; i < h->n; i++)
                if (h->items[i].kind == PG_HOTSPOT_REGRESSED ||
                    h->items[i].kind == PG_HOTSPOT_GREW || h->items[i].kind == PG_HOTSPOT_NEW ||
                    h->items[i].kind == PG_HOTSPOT_IMPROVED ||
                    h->items[i].kind == PG_HOTSPOT_VANISHED)
                        return true;
        return false;
}
