/*
 * cachegrind.c - cachegrind output parser (see cachegrind.h). One pass over
 * the text, no allocation per cost line; functions are merged by name in a
 * sorted array at the end.
 */
#include "runner/cachegrind.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"

static const char *const pg_cg_names[PG_CG_NCOUNTERS] = {
        "instructions",          "branches",  "branch-misses",   "L1-dcache-loads",
        "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses", "cycles"
};

const char *pg_cg_counter_name(enum pg_cg_counter c)
{
        return (size_t) c < PG_CG_NCOUNTERS ? pg_cg_names[c] : "unknown";
}

void pg_cg_release(struct pg_cg *cg)
{
        for (size_t i = 0; i < cg->nevents; i++)
                free(cg->events[i]);
        free(cg->events);
        free(cg->totals);
        free(cg->cmd);
        for (size_t i = 0; i < cg->nfuncs; i++) {
                free(cg->funcs[i].name);
                free(cg->funcs[i].file);
                free(cg->funcs[i].costs);
        }
        free(cg->funcs);
        memset(cg, 0, sizeof(*cg));
}

/* Parse unsigned decimal numbers separated by spaces from [p, end): up to
 * max of them into v; returns how many, or -1 on a malformed token. */
static int pg_cg_numbers(const char *p, const char *end, uint64_t *v, size_t max)
{
        size_t n = 0;

        for (;;) {
                uint64_t x = 0;
                const char *start;
                while (p < end && (*p == ' ' || *p == '\t'))
                        p++;
                if (p >= end)
                        break;
                start = p;
                while (p < end && *p >= '0' && *p <= '9') {
                        if (x > (UINT64_MAX - 9) / 10)
                                return -1;
                        x = x * 10 + (uint64_t) (*p - '0');
                        p++;
                }
                if (p == start || (p < end && *p != ' ' && *p != '\t') || n >= max)
                        return -1;
                v[n++] = x;
        }
        return (int) n;
}

static int pg_fn_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pg_cg_func *) a)->name, ((const struct pg_cg_func *) b)->name);
}

int pg_cg_parse(struct pg_cg *cg, const char *text, size_t len, const char *origin)
{
        const char *p = text, *end = text + len;
        char *file = NULL;
        uint64_t *line_costs = NULL, *sum = NULL;
        size_t lineno = 0, cur = (size_t) -1, cap = 0;
        int error = 0, have_summary = 0;

        memset(cg, 0, sizeof(*cg));
        while (p < end && !error) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                const char *le = nl ? nl : end;
                size_t n = (size_t) (le - p);
                lineno++;
                if (n == 0) {
                        /* blank lines are allowed */
                } else if (have_summary) {
                        error =
                            pg_error_set(PG_EINPUT, "'%s' line %zu: text after the summary line",
                                         origin, lineno);
                } else if (n >= 5 && memcmp(p, "desc:", 5) == 0) {
                        /* cache geometry; not needed */
                } else if (n >= 4 && memcmp(p, "cmd:", 4) == 0) {
                        free(cg->cmd);
                        cg->cmd = pg_xstrndup(p + 4 + (n > 4 && p[4] == ' '),
                                              n - 4 - (n > 4 && p[4] == ' '));
                } else if (n >= 7 && memcmp(p, "events:", 7) == 0) {
                        const char *q = p + 7;
                        if (cg->nevents) {
                                error = pg_error_set(PG_EINPUT, "'%s' line %zu: second events line",
                                                     origin, lineno);
                                break;
                        }
                        while (q < le) {
                                const char *s;
                                while (q < le && *q == ' ')
                                        q++;
                                s = q;
                                while (q < le && *q != ' ')
                                        q++;
                                if (q > s) {
                                        cg->events = pg_xreallocarray(cg->events, cg->nevents + 1,
                                                                      sizeof(char *));
                                        cg->events[cg->nevents++] =
                                            pg_xstrndup(s, (size_t) (q - s));
                                }
                        }
                        if (!cg->nevents || cg->nevents > 64) {
                                error = pg_error_set(PG_EINPUT, "'%s' line %zu: bad events line",
                                                     origin, lineno);
                                break;
                        }
                        line_costs = pg_xcalloc(cg->nevents, sizeof(uint64_t));
                        sum = pg_xcalloc(cg->nevents, sizeof(uint64_t));
                } else if (n >= 3 && memcmp(p, "fl=", 3) == 0) {
                        free(file);
                        file = pg_xstrndup(p + 3, n - 3);
                        cur = (size_t) -1;
                } else if (n >= 3 && memcmp(p, "fn=", 3) == 0) {
                        size_t i;
                        if (!cg->nevents) {
                                error = pg_error_set(
                                    PG_EINPUT, "'%s' line %zu: fn= before events:", origin, lineno);
                                break;
                        }
                        /* appended as a block; merged by name after parsing */
                        if (cg->nfuncs == cap) {
                                cap = cap ? cap * 2 : 64;
                                cg->funcs = pg_xreallocarray(cg->funcs, cap, sizeof(*cg->funcs));
                        }
                        i = cg->nfuncs++;
                        memset(&cg->funcs[i], 0, sizeof(cg->funcs[i]));
                        cg->funcs[i].name = pg_xstrndup(p + 3, n - 3);
                        cg->funcs[i].file = pg_xstrdup(file ? file : "???");
                        cg->funcs[i].costs = pg_xcalloc(cg->nevents, sizeof(uint64_t));
                        cur = i;
                } else if (n >= 8 && memcmp(p, "summary:", 8) == 0) {
                        if (!cg->nevents) {
                                error = pg_error_set(
                                    PG_EINPUT, "'%s' line %zu: summary before events:", origin,
                                    lineno);
                                break;
                        }
                        cg->totals = pg_xcalloc(cg->nevents, sizeof(uint64_t));
                        if (pg_cg_numbers(p + 8, le, cg->totals, cg->nevents) < 0) {
                                error = pg_error_set(PG_EINPUT, "'%s' line %zu: malformed summary",
                                                     origin, lineno);
                                break;
                        }
                        have_summary = 1;
                } else if (*p >= '0' && *p <= '9') {
                        int k;
                        if (cur == (size_t) -1) {
                                error = pg_error_set(PG_EINPUT,
                                                     "'%s' line %zu: cost line outside a function",
                                                     origin, lineno);
                                break;
                        }
                        /* first number is the source line, the rest are costs */
                        uint64_t tmp[65];
                        k = pg_cg_numbers(p, le, tmp, cg->nevents + 1);
                        if (k < 1) {
                                error =
                                    pg_error_set(PG_EINPUT, "'%s' line %zu: malformed cost line",
                                                 origin, lineno);
                                break;
                        }
                        memset(line_costs, 0, cg->nevents * sizeof(uint64_t));
                        for (int j = 1; j < k; j++)
                                line_costs[j - 1] = tmp[j];
                        for (size_t j = 0; j < cg->nevents; j++) {
                                cg->funcs[cur].costs[j] += line_costs[j];
                                sum[j] += line_costs[j];
                        }
                        if (line_costs[0] > cg->funcs[cur].hot_line_ir) {
                                cg->funcs[cur].hot_line_ir = line_costs[0];
                                cg->funcs[cur].hot_line = tmp[0];
                        }
                } else {
                        error = pg_error_set(PG_EINPUT, "'%s' line %zu: unrecognised line", origin,
                                             lineno);
                }
                p = nl ? nl + 1 : end;
        }
        if (!error && !cg->nevents)
                error = pg_error_set(PG_EINPUT, "'%s': no 'events:' line (not a cachegrind file?)",
                                     origin);
        if (!error && !have_summary)
                error = pg_error_set(PG_EINPUT, "'%s': no 'summary:' line (the file is truncated)",
                                     origin);
        for (size_t j = 0; !error && j < cg->nevents; j++)
                if (sum[j] != cg->totals[j])
                        error = pg_error_set(PG_EINPUT,
                                             "'%s': costs of event %s add up to %llu, the summary "
                                             "says %llu (the file is truncated or corrupt)",
                                             origin, cg->events[j], (unsigned long long) sum[j],
                                             (unsigned long long) cg->totals[j]);
        if (!error && cg->nfuncs) {
                /* merge blocks of the same function; keep the costliest block's file */
                size_t out = 0;
                qsort(cg->funcs, cg->nfuncs, sizeof(*cg->funcs), pg_fn_cmp);
                for (size_t i = 0; i < cg->nfuncs; i++) {
                        struct pg_cg_func *f = &cg->funcs[i];
                        if (out && strcmp(cg->funcs[out - 1].name, f->name) == 0) {
                                struct pg_cg_func *g = &cg->funcs[out - 1];
                                if (f->costs[0] > g->costs[0]) {
                                        free(g->file);
                                        g->file = f->file;
                                        f->file = NULL;
                                }
                                if (f->hot_line_ir > g->hot_line_ir) {
                                        g->hot_line_ir = f->hot_line_ir;
                                        g->hot_line = f->hot_line;
                                }
                                for (size_t j = 0; j < cg->nevents; j++)
                                        g->costs[j] += f->costs[j];
                                free(f->name);
                                free(f->file);
                                free(f->costs);
                        } else {
                                cg->funcs[out++] = *f;
                        }
                }
                cg->nfuncs = out;
        }
        free(file);
        free(line_costs);
        free(sum);
        if (error)
                pg_cg_release(cg);
        return error;
}

static uint64_t pg_cg_event(const struct pg_cg *cg, const uint64_t *costs, const char *name)
{
        for (size_t i = 0; i < cg->nevents; i++)
                if (strcmp(cg->events[i], name) == 0)
                        return costs[i];
        return 0;
}

void pg_cg_counters(const struct pg_cg *cg, const uint64_t *costs, double out[PG_CG_NCOUNTERS])
{
        double ir = (double) pg_cg_event(cg, costs, "Ir");
        double dr = (double) pg_cg_event(cg, costs, "Dr");
        double dw = (double) pg_cg_event(cg, costs, "Dw");
        double i1 = (double) pg_cg_event(cg, costs, "I1mr");
        double d1r = (double) pg_cg_event(cg, costs, "D1mr");
        double d1w = (double) pg_cg_event(cg, costs, "D1mw");
        double ilr = (double) pg_cg_event(cg, costs, "ILmr");
        double dlr = (double) pg_cg_event(cg, costs, "DLmr");
        double dlw = (double) pg_cg_event(cg, costs, "DLmw");
        double ram = ilr + dlr + dlw;
        double ll = i1 + d1r + d1w - ram;
        double l1 = ir + dr + dw - (ll + ram);

        out[PG_CG_INSTRUCTIONS] = ir;
        out[PG_CG_BRANCHES] =
            (double) (pg_cg_event(cg, costs, "Bc") + pg_cg_event(cg, costs, "Bi"));
        out[PG_CG_BRANCH_MISSES] =
            (double) (pg_cg_event(cg, costs, "Bcm") + pg_cg_event(cg, costs, "Bim"));
        out[PG_CG_L1D_LOADS] = dr;
        out[PG_CG_L1D_LOAD_MISSES] = d1r;
        out[PG_CG_LLC_LOADS] = d1r;
        out[PG_CG_LLC_LOAD_MISSES] = dlr;
        out[PG_CG_CYCLES] = l1 + 5 * ll + 35 * ram;
}
