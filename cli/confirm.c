/*
 * confirm.c - `perfgate compare --confirm`: build the baseline's commit
 * (baselines/worktree.h + runner/build.h), run base and head of each
 * suspect benchmark in interleaved pairs (runner/paired.h) until the
 * sequential test (compare/confirm.h) decides or the budget is spent, test
 * the hotspots of confirmed regressions the same way, and rewrite the
 * benchmarks' verdicts. Progress goes to stderr.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baselines/worktree.h"
#include "cli/cli.h"
#include "cli/confirm.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/width.h"
#include "compare/confirm.h"
#include "compare/stats.h"
#include "runner/build.h"
#include "runner/paired.h"
#include "runner/run.h"

/* Sampled blocks for the hotspot test (two pairs each), and how many
 * functions it tests. With 8 functions, Holm needs a p-value of 0.05/8;
 * the exact signed-rank p of n pairs is at least 2^-n, so 8 pairs pass only
 * when every pair agrees (measured: +2% in one function named in 2 of 4
 * trials); 10 pairs pass with one of the three smallest of the wrong sign
 * (docs/compare.md). */
#define PG_CONFIRM_HOT_BLOCKS     5
#define PG_CONFIRM_HOT_CANDIDATES 8

int pg_confirm_parse_budget(const char *s, struct pg_confirm_budget *b)
{
        char *end;
        double v;

        errno = 0;
        v = strtod(s, &end);
        if (errno || end == s || !(v > 0) || v > 1e6)
                goto bad;
        memset(b, 0, sizeof(*b));
        if (*end == '\0') {
                if (v != floor(v) || v < 8)
                        goto bad;
                b->pairs = (size_t) v;
        } else if (strcmp(end, "s") == 0) {
                b->seconds = v;
        } else if (strcmp(end, "m") == 0) {
                b->seconds = 60 * v;
        } else {
                goto bad;
        }
        return 0;
bad:
        return pg_error_set(PG_EINPUT,
                            "--confirm-budget '%s' is not a number of pairs (8 or more) or a "
                            "time per benchmark (90s, 2m)",
                            s);
}

int pg_confirm_build_cb(void *ctx, const char *dir)
{
        struct pg_build_ctx *b = ctx;
        if (b->announce)
                fprintf(stderr, "%s\n", b->announce);
        return pg_build_run(b->command, dir, b->timeout_sec, b->log_path, b->what);
}

/* @path under @top moved under @dir; other paths as they are. */
static char *pg_remap(const char *path, const char *top, const char *dir)
{
        size_t n = strlen(top);
        if (!path)
                return NULL;
        if (strncmp(path, top, n) == 0 && (path[n] == '/' || path[n] == '\0'))
                return pg_xasprintf("%s%s", dir, path + n);
        return pg_xstrdup(path);
}

void pg_confirm_twin_bench(struct pg_bench *out, const struct pg_bench *h, const char *top,
                           const char *dir, const char *cwd)
{
        memset(out, 0, sizeof(*out));
        *out = *h;
        out->exec_path = pg_remap(h->exec_path, top, dir);
        out->cwd = pg_remap(h->cwd ? h->cwd : cwd, top, dir);
}

/* A suspect: regression or inconclusive, a regressed hotspot, or a stored
 * task-clock median that rose by more than the confirmation floor @floor
 * (fraction): the stored comparison's threshold (10% by default) is set for
 * batches minutes apart, so a 2-5% change passes it as unchanged, and only
 * the paired runs can tell it from noise. */
/* Whether a hotspot of @b regressed in the stored comparison. */
static bool pg_hotspot_regressed(const struct pg_bench_cmp *b)
{
        for (size_t k = 0; k < b->hotspots.n; k++)
                if (b->hotspots.items[k].kind == PG_HOTSPOT_REGRESSED)
                        return true;
        return false;
}

static bool pg_in_scope(const struct pg_bench_cmp *b, bool all, double floor)
{
        if (!b->base || !b->head)
                return false;
        if (all)
                return b->verdict != PG_VERDICT_FAILED;
        if (b->verdict == PG_VERDICT_REGRESSION || b->verdict == PG_VERDICT_INCONCLUSIVE)
                return true;
        if (b->verdict == PG_VERDICT_FAILED)
                return false;
        for (size_t k = 0; k < b->njudgements; k++)
                if (strcmp(b->judgements[k].metric, "task-clock") == 0 &&
                    b->judgements[k].has_rel && b->judgements[k].rel_change > floor)
                        return true;
        return pg_hotspot_regressed(b);
}

/* Run pairs until a look decides or the budget is spent. */
static int pg_confirm_timing(struct pg_paired *p, const struct pg_confirm_opts *co,
                             const struct pg_confirm_budget *budget, struct pg_bench_confirm *c,
                             const char *name)
{
        unsigned look = 1;
        double *d = NULL;
        size_t cap_pairs = budget->pairs ? budget->pairs : 2000;
        int error = 0;

        for (;;) {
                size_t next = pg_confirm_look_pairs(look);
                bool out_of_budget;
                struct pg_confirm_look lk;
                double per_block_s =
                    p->n ? (double) p->elapsed_ns / 1e9 / ((double) p->n / 2.0) : 0.0;

                out_of_budget = p->n + 2 > cap_pairs ||
                                (budget->seconds > 0 && p->n &&
                                 (double) p->elapsed_ns / 1e9 + per_block_s > budget->seconds);
                if (p->n < next && !out_of_budget) {
                        if ((error = pg_paired_block(p)) < 0)
                                break;
                        continue;
                }
                if (p->n == 0)
                        break;
                d = pg_xreallocarray(d, p->n, sizeof(double));
                for (size_t i = 0; i < p->n; i++)
                        d[i] = log(p->pairs[i].head_ns / p->pairs[i].base_ns);
                if ((error = pg_confirm_judge(d, p->n, look, co, &lk)) < 0)
                        break;
                c->has_interval = true;
                c->estimate = lk.estimate;
                c->lo = lk.lo;
                c->hi = lk.hi;
                c->level = lk.level;
                c->look = look;
                c->pairs = p->n;
                c->outcome = lk.outcome;
                fprintf(
                    stderr,
                    "perfgate: confirm '%s': look %u, %zu pairs: %+.2f%% [%+.2f%%, %+.2f%%]%s\n",
                    name, look, p->n, 100 * lk.estimate, 100 * lk.lo, 100 * lk.hi,
                    lk.outcome == PG_CONFIRM_UNDECIDED ? "" : " - decided");
                look++;
                if (lk.outcome != PG_CONFIRM_UNDECIDED)
                        break;
                if (out_of_budget) {
                        c->outcome = PG_CONFIRM_INCONCLUSIVE;
                        break;
                }
        }
        free(d);
        c->discarded = p->ndiscarded;
        c->seconds = (double) p->elapsed_ns / 1e9;
        return error;
}

/* Sampled pairs and the paired hotspot test. */
static int pg_confirm_hot(struct pg_paired *p, const struct pg_confirm_opts *co,
                          struct pg_bench_confirm *c)
{
        struct pg_profile base[2 * PG_CONFIRM_HOT_BLOCKS], head[2 * PG_CONFIRM_HOT_BLOCKS];
        struct pg_buf warnings = PG_BUF_INIT;
        size_t n = 0;
        uint64_t t0 = p->elapsed_ns;
        int error = 0;

        for (int k = 0; k < PG_CONFIRM_HOT_BLOCKS; k++) {
                if ((error = pg_paired_profile_block(p, &base[n], &head[n], &warnings)) < 0)
                        break;
                n += 2;
        }
        if (error == 0)
                error = pg_confirm_hotspots(base, head, n, PG_CONFIRM_HOT_CANDIDATES, c->floor,
                                            co->alpha, &c->hotspots);
        if (error == 0) {
                /* a confirmed libc function is named with its caller in the
                 * benchmark: the kernel names mapped files by their real path */
                char *exe = p->o.head->exec_path ? realpath(p->o.head->exec_path, NULL) : NULL;
                pg_confirm_hotspots_callers(&c->hotspots, head, n, exe);
                free(exe);
        }
        if (error < 0 && error != PG_EINTR) {
                pg_cli_warn("hotspots not confirmed: %s", pg_error_last());
                error = 0;
        }
        for (size_t i = 0; i < n; i++) {
                pg_profile_release(&base[i]);
                pg_profile_release(&head[i]);
        }
        pg_buf_release(&warnings);
        c->hot_seconds = (double) (p->elapsed_ns - t0) / 1e9;
        c->seconds += c->hot_seconds;
        return error;
}

/* Whether a gating metric of @b is not comparable by the order-of-magnitude
 * rule: the paired runs run the same (empty) head and cannot tell other
 * work from faster code either, so @b stays inconclusive, never an
 * improvement (docs/compare.md, "A benchmark that measured nothing"). */
static bool pg_confirm_too_fast(const struct pg_bench_cmp *b)
{
        for (size_t i = 0; i < b->njudgements; i++) {
                const struct pg_judgement *j = &b->judgements[i];
                if (j->rule.gate && j->outcome == PG_OUTCOME_NOT_COMPARABLE && pg_judge_too_fast(j))
                        return true;
        }
        return false;
}

/* The verdict that follows from the confirmation. */
static void pg_confirm_apply(struct pg_bench_cmp *b, struct pg_bench_confirm *c, double base_ns)
{
        const struct pg_confirm_hotspot *hot = NULL;
        double floor_ns = c->floor * base_ns;

        for (size_t k = 0; k < c->hotspots.n; k++) {
                struct pg_confirm_hotspot *h = &c->hotspots.items[k];
                if (!h->confirmed || h->self_growth_ns <= floor_ns)
                        continue;
                /* a confirmed hotspot gates when its own time and its
                 * inclusive time grew beyond the floor: own time alone grows
                 * when its callees' work moved into it (hand- or compiler-
                 * inlined), which costs nothing; the items are sorted by own
                 * time, so the first that gates is the largest */
                if (h->incl_growth_ns <= floor_ns)
                        h->moved = true;
                else if (!hot)
                        hot = h;
        }
        c->hotspot_gated = hot && c->outcome != PG_CONFIRM_REGRESSION;
        if (c->hotspot_gated &&
            (c->outcome == PG_CONFIRM_NO_REGRESSION || c->outcome == PG_CONFIRM_INCONCLUSIVE)) {
                /* the verdict is the hotspot's: every report says so (the
                 * JUnit failure message, the JSON reason), not the stored
                 * comparison's reason */
                free(b->reason);
                b->reason = pg_xasprintf(
                    "hotspot '%s' grew, confirmed by paired runs (%zu sampled pairs): self "
                    "share %.2f%% -> %.2f%% (p = %.2g Holm), own time "
                    "%+.1f ms and inclusive time %+.1f ms per run, beyond the floor of %.1f ms",
                    hot->function, c->hotspots.pairs, 100 * hot->base_share, 100 * hot->head_share,
                    hot->p_holm, hot->self_growth_ns / 1e6, hot->incl_growth_ns / 1e6,
                    floor_ns / 1e6);
        }
        switch (c->outcome) {
        case PG_CONFIRM_REGRESSION:
                b->verdict = PG_VERDICT_REGRESSION;
                /* a function that is most of the run keeps its share when
                 * it gets slower, so the share test cannot confirm it: the
                 * pairs confirmed the run's growth, and the function whose
                 * own time holds most of it is its cause (docs/compare.md,
                 * Confirming by paired runs) */
                for (size_t k = 0; k < c->hotspots.n; k++) {
                        struct pg_confirm_hotspot *h = &c->hotspots.items[k];
                        if (h->confirmed)
                                break;
                        if (h->total_growth_ns > 0.0 && h->self_growth_ns > floor_ns &&
                            h->self_growth_ns > 0.5 * h->total_growth_ns) {
                                h->grew = true;
                                break;
                        }
                }
                /* and the stored comparison names it too, when it did not
                 * already (its task-clock was inconclusive, or within the
                 * threshold) */
                if (b->head && b->hotspots.base_task_clock_ns > 0 &&
                    b->hotspots.head_task_clock_ns > 0)
                        pg_hotspots_mark_grew(&b->hotspots, &b->head->profile,
                                              b->hotspots.base_task_clock_ns,
                                              b->hotspots.head_task_clock_ns, &b->hotspots.rule);
                break;
        case PG_CONFIRM_NO_REGRESSION:
                /* what the stored comparison held against it is not confirmed */
                for (size_t i = 0; i < b->njudgements; i++) {
                        struct pg_judgement *j = &b->judgements[i];
                        if (j->rule.gate && (j->outcome == PG_OUTCOME_REGRESSION ||
                                             j->outcome == PG_OUTCOME_INCONCLUSIVE))
                                j->unconfirmed = true;
                }
                /* nor the growth the functions "grew (own time)" were named for */
                pg_hotspots_unmark_grew(&b->hotspots);
                b->verdict = hot                      ? PG_VERDICT_REGRESSION
                             : pg_confirm_too_fast(b) ? PG_VERDICT_INCONCLUSIVE
                             : c->hi < -c->floor      ? PG_VERDICT_IMPROVEMENT
                                                      : PG_VERDICT_UNCHANGED;
                break;
        case PG_CONFIRM_INCONCLUSIVE:
                for (size_t i = 0; i < b->njudgements; i++) {
                        struct pg_judgement *j = &b->judgements[i];
                        if (j->rule.gate && j->outcome == PG_OUTCOME_REGRESSION)
                                j->pairs_undecided = true;
                }
                b->verdict = hot ? PG_VERDICT_REGRESSION : PG_VERDICT_INCONCLUSIVE;
                break;
        default:
                break;
        }
}

static void pg_mark_unconfirmed(struct pg_comparison *cmp, bool all, double floor, const char *why)
{
        for (size_t i = 0; i < cmp->n; i++) {
                struct pg_bench_cmp *b = &cmp->benches[i];
                if (!pg_in_scope(b, all, floor) || b->confirm)
                        continue;
                b->confirm = pg_bench_confirm_new();
                b->confirm->stored = pg_xstrdup(pg_verdict_name(b->verdict));
                b->confirm->note = pg_xstrdup(why);
        }
}

/* What both modes need: the repository, the benchmarks of the config, the
 * base commit built, and whether benchmarks can be pinned to CPUs. */
struct pg_confirm_env {
        struct pg_repo_state rs;
        struct pg_built built;
        struct pg_bench_list benches;
        char *cwd;
        bool can_pin; /* sched_setaffinity(2) allowed */
        size_t avail; /* CPUs in perfgate's affinity mask (0: unknown) */
        int lock_fd;  /* flock(2) on .perfgate/confirm: one confirmation per checkout */
};

static void pg_confirm_env_release(struct pg_confirm_env *e)
{
        if (e->lock_fd >= 0)
                close(e->lock_fd);
        e->lock_fd = -1;
        pg_bench_list_release(&e->benches);
        pg_built_release(&e->built);
        pg_repo_state_release(&e->rs);
        free(e->cwd);
}

static int pg_confirm_env_init(struct pg_confirm_env *e, const struct pg_confirm_cli *o)
{
        struct pg_build_opts bo = { NULL, NULL, o->build_command };
        struct pg_build_ctx bctx;
        char *log_dir = NULL, *log_path = NULL, *what = NULL, *announce = NULL;
        const char *cfg = o->config_path;
        int error;

        memset(e, 0, sizeof(*e));
        e->lock_fd = -1;
        if ((error = pg_repo_state_get(NULL, &e->rs)) < 0)
                goto done;
        /* A second confirmation in the same checkout would remove this one's
         * live logs (the build log and .perfgate/confirm/<name>.*.log) and
         * share the CPUs its paired runs are timed on: refused, as a second
         * run into one --out is. */
        if ((error = pg_mkdir_under(e->rs.top, ".perfgate/confirm")) < 0)
                goto done;
        log_dir = pg_xasprintf("%s/.perfgate/confirm", e->rs.top);
        error = pg_dir_lock(log_dir, &e->lock_fd);
        free(log_dir);
        log_dir = NULL;
        if (error == PG_EINPUT)
                error = pg_error_set(PG_EINPUT,
                                     "another 'perfgate compare --confirm' is running in '%s' now "
                                     "(it would lose its logs, and both would time their paired "
                                     "runs on shared CPUs); wait for it to end",
                                     e->rs.top);
        if (error < 0)
                goto done;
        if (e->rs.dirty)
                fprintf(stderr,
                        "perfgate: note: tracked files have uncommitted changes (%s); head is "
                        "measured as built in the work tree, with them, and base is commit "
                        "%.12s as committed\n",
                        e->rs.changed ? e->rs.changed : "?", o->base_commit);
        if ((error = pg_run_discover(&e->benches, &cfg, 1)) < 0)
                goto done;
        log_dir = pg_path_join(e->rs.top, PG_BUILD_CACHE_DIR);
        if ((error = pg_mkdir_under(e->rs.top, PG_BUILD_CACHE_DIR)) < 0)
                goto done;
        log_path = pg_xasprintf("%s/%.12s.log", log_dir, o->base_commit);
        what = pg_xasprintf("the build of base commit %.12s", o->base_commit);
        (void) unlink(log_path);
        if (!o->quiet)
                announce = pg_xasprintf("perfgate: building base %.12s with '%s' (log: %s)",
                                        o->base_commit, o->build_command, log_path);
        bctx = (struct pg_build_ctx){ o->build_command, o->build_timeout_sec, log_path, what,
                                      announce };
        pg_launch_install_signal_handlers();
        if ((error = pg_build_commit(&bo, o->base_commit, pg_confirm_build_cb, &bctx, &e->built)) <
            0)
                goto done;
        if (e->built.cached && !o->quiet)
                fprintf(stderr, "perfgate: base %.12s: using the cached build %s\n", o->base_commit,
                        e->built.dir);
        e->cwd = getcwd(NULL, 0);
        {
                int cpu;
                size_t n;
                cpu_set_t mask;
                e->can_pin = pg_paired_pick_cpus(1, &cpu, &n) == 0;
                if (sched_getaffinity(0, sizeof(mask), &mask) == 0)
                        e->avail = (size_t) CPU_COUNT(&mask);
        }
        if (!e->can_pin)
                pg_cli_warn("cannot pin benchmarks to a CPU here (sched_setaffinity refused); "
                            "pairs are kept only when both runs were on the same CPU");
done:
        free(log_dir);
        free(log_path);
        free(what);
        free(announce);
        return error;
}

/* Head benchmark @name of the config and its base twin in @bb (free
 * bb->exec_path and bb->cwd). *why: NULL, or why it cannot be paired. */
static const struct pg_bench *pg_confirm_pair_of(const struct pg_confirm_env *e,
                                                 const struct pg_confirm_cli *o, const char *name,
                                                 struct pg_bench *bb, char **why, bool *new_at_base)
{
        const struct pg_bench *h = NULL;

        *why = NULL;
        *new_at_base = false;
        memset(bb, 0, sizeof(*bb));
        for (size_t k = 0; k < e->benches.n; k++)
                if (strcmp(e->benches.items[k].name, name) == 0)
                        h = &e->benches.items[k];
        if (!h) {
                *why = pg_xasprintf("'%s' is not in '%s'", name, o->config_path);
                return NULL;
        }
        pg_confirm_twin_bench(bb, h, e->rs.top, e->built.dir, e->cwd);
        if (strchr(h->argv[0], '/') && access(bb->exec_path, X_OK) != 0) {
                *why = pg_xasprintf("'%s' does not exist in the build of base %.12s: new at base",
                                    h->argv[0], o->base_commit);
                *new_at_base = true;
                free(bb->exec_path);
                free(bb->cwd);
                memset(bb, 0, sizeof(*bb));
                return NULL;
        }
        return h;
}

/* The two sides' output logs of one benchmark: .perfgate/confirm/<name>.
 * {base,head}.log under the work tree's top. */
struct pg_pair_logs {
        char *path[2];
        struct pg_bench_log log[2];
};

static int pg_pair_logs_open(struct pg_pair_logs *l, const struct pg_confirm_env *e,
                             const char *name)
{
        char *dir = pg_xasprintf("%s/.perfgate/confirm", e->rs.top);
        int error;

        memset(l, 0, sizeof(*l));
        l->log[0].fd = l->log[1].fd = -1;
        if ((error = pg_mkdir_under(e->rs.top, ".perfgate/confirm")) < 0)
                goto done;
        for (int k = 0; k < 2; k++) {
                l->path[k] = pg_xasprintf("%s/%s.%s.log", dir, name, k ? "head" : "base");
                l->log[k].path = l->path[k];
                if ((error = pg_bench_log_open(&l->log[k])) < 0)
                        goto done;
        }
done:
        free(dir);
        return error;
}

static void pg_pair_logs_close(struct pg_pair_logs *l)
{
        for (int k = 0; k < 2; k++) {
                if (l->log[k].fd >= 0)
                        close(l->log[k].fd);
                free(l->path[k]);
        }
        memset(l, 0, sizeof(*l));
}

/* Slack below a whole CPU in the CPUs a benchmark utilized: perf's
 * task-clock and duration_time are read a little apart, so a
 * single-threaded program can read slightly above 1. */
#define PG_CONFIRM_CPU_SLACK 0.05

/* How many CPUs to pin a benchmark to (at least 1): @fixed when not 0
 * (--confirm-cpus, else the benchmark's "confirm_cpus"), else the most CPUs any stored run of @base or @head (either may be NULL)
 * kept busy, "cpus-utilized" (task-clock / duration_time per run; that
 * most in *@utilized, 0 with o->cpus or none), rounded up; 1 when neither
 * has it. The most, not the median: other work on the
 * machine only lowers a run's value (its threads wait for a CPU while the
 * wall clock runs), never raises it beyond the threads it runs at once. */
static size_t pg_confirm_cpus_wanted(size_t fixed, const struct pg_result *base,
                                     const struct pg_result *head, double *utilized)
{
        const struct pg_result *rs[2] = { base, head };
        double most = 0;

        *utilized = 0;
        if (fixed)
                return fixed;
        for (int k = 0; k < 2; k++) {
                const struct pg_metric *m =
                    rs[k] ? pg_result_find_metric(rs[k], "cpus-utilized") : NULL;
                if (!m || m->status != PG_METRIC_OK)
                        continue;
                for (size_t i = 0; i < m->nvalues; i++)
                        most = fmax(most, m->values[i]);
        }
        *utilized = most;
        most = ceil(most - PG_CONFIRM_CPU_SLACK);
        return most < 1 ? 1 : most > CPU_SETSIZE ? CPU_SETSIZE : (size_t) most;
}

/* The CPUs to pin a benchmark to (owned, ascending) in *@cpus, their count
 * in *@n: pg_confirm_cpus_wanted() of them (*@utilized as there), at most
 * the CPUs perfgate may use; none when pinning is refused. */
static void pg_confirm_pick(const struct pg_confirm_env *e, size_t fixed,
                            const struct pg_result *base, const struct pg_result *head, int **cpus,
                            size_t *n, double *utilized)
{
        size_t want = pg_confirm_cpus_wanted(fixed, base, head, utilized);

        *n = 0;
        *cpus = NULL;
        if (!e->can_pin)
                return;
        if (want > CPU_SETSIZE)
                want = CPU_SETSIZE; /* --confirm-cpus beyond the machine */
        *cpus = pg_xcalloc(want, sizeof(int));
        if (pg_paired_pick_cpus(want, *cpus, n) < 0 || *n == 0) {
                free(*cpus);
                *cpus = NULL;
                *n = 0;
        }
}

/* When a count of CPUs was given (@from_cli: --confirm-cpus, else the
 * benchmark's "confirm_cpus" in perfgate.json) and fewer are allowed
 * (sched_getaffinity(2): the @n CPUs pg_confirm_pick() took are then all
 * of them), say so (owned): "--confirm-cpus 99: only 2 CPUs are allowed
 * here (CPUs 0-1); pinned to those"; NULL otherwise. */
static char *pg_confirm_clamped(size_t fixed, bool from_cli, const int *cpus, size_t n)
{
        struct pg_buf list = PG_BUF_INIT;
        char *msg;

        if (!fixed || !n || n >= fixed)
                return NULL;
        pg_cpu_list_format(&list, cpus, n);
        msg = pg_xasprintf("%s%zu%s: only %zu CPU%s allowed here (CPU%s %s); pinned to %s",
                           from_cli ? "--confirm-cpus " : "\"confirm_cpus\": ", fixed,
                           from_cli ? "" : " in perfgate.json", n, n > 1 ? "s are" : " is",
                           n > 1 ? "s" : "", list.ptr, n > 1 ? "those" : "it");
        pg_buf_release(&list);
        return msg;
}

static void pg_confirm_paired_opts(struct pg_paired_opts *po, const struct pg_confirm_cli *o,
                                   const struct pg_bench *bb, const struct pg_bench *h,
                                   const int *cpus, size_t ncpus, bool exclude_kernel,
                                   const struct pg_pair_logs *logs)
{
        memset(po, 0, sizeof(*po));
        po->base_log = &logs->log[0];
        po->head_log = &logs->log[1];
        po->base = bb;
        po->head = h;
        po->cpus = cpus;
        po->ncpus = ncpus;
        po->timeout_ns = h->timeout_sec > 0 ? (uint64_t) (h->timeout_sec * 1e9) : 0;
        po->seed = o->seed ? o->seed : ((uint64_t) time(NULL) << 20) ^ (uint64_t) getpid();
        po->exclude_kernel = exclude_kernel;
}

int pg_confirm_run(struct pg_comparison *cmp, const struct pg_confirm_cli *o)
{
        struct pg_confirm_env e;
        struct pg_confirm_opts co = { PG_CONFIRM_DEFAULT_FLOOR, PG_CONFIRM_DEFAULT_ALPHA };
        int error;

        if (o->floor > 0)
                co.floor = o->floor;
        if ((error = pg_confirm_env_init(&e, o)) < 0)
                goto fail;
        for (size_t i = 0; i < cmp->n; i++) {
                struct pg_bench_cmp *b = &cmp->benches[i];
                const struct pg_bench *h;
                const struct pg_metric *tc;
                struct pg_bench bb;
                struct pg_paired p;
                struct pg_paired_opts po;
                struct pg_confirm_opts bco = co;
                struct pg_bench_confirm *c;
                struct pg_pair_logs logs;
                double base_ns, utilized;
                size_t fixed;
                bool new_at_base;

                if (!pg_in_scope(b, o->all, co.floor))
                        continue;
                c = b->confirm = pg_bench_confirm_new();
                c->stored = pg_xstrdup(pg_verdict_name(b->verdict));
                if (!(h = pg_confirm_pair_of(&e, o, b->name, &bb, &c->note, &new_at_base))) {
                        if (new_at_base)
                                b->verdict = PG_VERDICT_NEW;
                        continue;
                }
                c->floor = co.floor;
                if (b->base->noise.present &&
                    PG_CONFIRM_NOISE_K * b->base->noise.paired_sd > c->floor)
                        c->floor = PG_CONFIRM_NOISE_K * b->base->noise.paired_sd;
                bco.floor = c->floor;
                if ((error = pg_pair_logs_open(&logs, &e, b->name)) < 0) {
                        free(bb.exec_path);
                        free(bb.cwd);
                        pg_pair_logs_close(&logs);
                        goto fail;
                }
                fixed = o->cpus ? o->cpus : h->confirm_cpus;
                pg_confirm_pick(&e, fixed, b->base, b->head, &c->cpus, &c->ncpus, &utilized);
                if ((c->note = pg_confirm_clamped(fixed, o->cpus != 0, c->cpus, c->ncpus)))
                        pg_cli_warn("'%s': %s", b->name, c->note);
                /* other work stretches the wall time a benchmark's threads
                 * wait through, so its cpus-utilized reads low; a count
                 * given says how many it needs (1 for a single thread) */
                if (!fixed && c->ncpus && c->ncpus < e.avail && pg_bench_saturated(b))
                        pg_cli_warn("'%s': its stored runs were on a saturated runner, where a "
                                    "benchmark keeps fewer CPUs busy than it can use "
                                    "(cpus-utilized %.2f at most): pinned to %zu CPU%s; set its "
                                    "\"confirm_cpus\" in perfgate.json (or give --confirm-cpus N) "
                                    "to the threads it runs at once, 1 if it runs one",
                                    b->name, utilized, c->ncpus, c->ncpus > 1 ? "s" : "");
                pg_confirm_paired_opts(&po, o, &bb, h, c->cpus, c->ncpus,
                                       b->head->host.exclude_kernel, &logs);
                /* the hotspot test's sampled runs unwind as head's stored
                 * profile did: a run made with --call-graph dwarf reaches
                 * callers that frame pointers lose (pg_confirm_hotspots_callers()) */
                if (b->head->profile.call_graph &&
                    strcmp(b->head->profile.call_graph, "dwarf") == 0)
                        po.call_graph = PG_CALL_GRAPH_DWARF;
                pg_paired_init(&p, &po);
                {
                        struct pg_buf pin = PG_BUF_INIT;
                        pg_pinned_format(&pin, c->cpus, c->ncpus);
                        fprintf(stderr,
                                "perfgate: confirming '%s' (%s against the stored baseline): base "
                                "and head in interleaved pairs%s%s\n",
                                b->name, c->stored, pin.len ? " " : "", pin.ptr);
                        pg_buf_release(&pin);
                }
                error = pg_confirm_timing(&p, &bco, &o->budget, c, b->name);
                tc = pg_result_find_metric(b->base, "task-clock");
                base_ns = p.n ? p.pairs[0].base_ns : 0.0;
                if (tc && tc->nvalues)
                        base_ns = pg_stats_median(tc->values, tc->nvalues);
                /* sampled pairs name the cause of a confirmed regression, and
                 * test the hotspots of a suspect the stored verdict let pass
                 * (a task-clock rise under the threshold). A hotspot that
                 * regressed in the stored comparison is tested whatever the
                 * stored verdict and with =all too: hotspots.gate makes that
                 * verdict "regression", and the paired task-clock alone
                 * cannot clear it (work moved from g to f leaves the total as
                 * it was); --confirm=all never decides less than --confirm */
                if (error == 0 && b->head->profile.present &&
                    (c->outcome == PG_CONFIRM_REGRESSION || pg_hotspot_regressed(b) ||
                     (pg_in_scope(b, false, co.floor) && b->verdict != PG_VERDICT_REGRESSION &&
                      b->verdict != PG_VERDICT_INCONCLUSIVE)))
                        error = pg_confirm_hot(&p, &bco, c);
                pg_paired_release(&p);
                pg_pair_logs_close(&logs);
                free(bb.exec_path);
                free(bb.cwd);
                if (error < 0) {
                        char *clamped = c->note;
                        c->outcome = PG_CONFIRM_NOT_CONFIRMED;
                        c->note = clamped ? pg_xasprintf("%s; %s", clamped, pg_error_last())
                                          : pg_xstrdup(pg_error_last());
                        free(clamped);
                        if (error == PG_EINTR)
                                goto fail;
                        pg_cli_warn("'%s' not confirmed: %s", b->name, pg_error_last());
                        error = 0;
                        continue;
                }
                pg_confirm_apply(b, c, base_ns);
        }
        pg_comparison_resort(cmp);
        goto done;
fail:
        if (error != PG_EINTR) {
                char *why = pg_xstrdup(pg_error_last());
                pg_mark_unconfirmed(cmp, o->all, co.floor, why);
                pg_error_set(error, "%s", why);
                free(why);
        } else {
                pg_mark_unconfirmed(cmp, o->all, co.floor, "interrupted");
        }
done:
        /* what the pairs found replaces the advice to run them */
        for (size_t i = 0; i < cmp->n; i++)
                pg_bench_confirm_reword(&cmp->benches[i]);
        pg_confirm_env_release(&e);
        return error;
}

/* The calibration's progress line on stderr, as `perfgate run` prints its
 * own: redrawn in place on a terminal (*@line_open while one is shown),
 * one line per call otherwise; nothing when @quiet. */
static void pg_calibrate_progress(bool *line_open, bool quiet, size_t index, size_t total,
                                  const char *name, size_t done, size_t pairs, double elapsed_s)
{
        bool tty = isatty(STDERR_FILENO);

        if (quiet)
                return;
        pg_cli_end_line(line_open);
        fprintf(stderr, "benchmark %zu/%zu %s, calibration pairs %zu/%zu, elapsed %.1f s%s",
                index + 1, total, name, done, pairs, elapsed_s, tty ? "" : "\n");
        *line_open = tty;
}

int pg_confirm_calibrate(struct pg_result_set *head, const char *results_dir,
                         const struct pg_confirm_cli *o)
{
        struct pg_confirm_env e;
        size_t pairs = o->budget.pairs ? o->budget.pairs : PG_CALIBRATE_DEFAULT_PAIRS;
        bool line = false;
        int error;

        if ((error = pg_confirm_env_init(&e, o)) < 0)
                goto done;
        for (size_t i = 0; i < head->n; i++) {
                struct pg_result *r = &head->items[i];
                const struct pg_bench *h;
                struct pg_bench bb;
                struct pg_paired p;
                struct pg_paired_opts po;
                struct pg_pair_logs logs;
                char *why = NULL, *path;
                bool new_at_base;
                double *d, sd;
                int *cpus;
                size_t ncpus;
                double utilized;
                uint64_t t0;

                if (!(h = pg_confirm_pair_of(&e, o, r->name, &bb, &why, &new_at_base))) {
                        pg_cli_warn("'%s' not calibrated: %s", r->name, why);
                        free(why);
                        continue;
                }
                if ((error = pg_pair_logs_open(&logs, &e, r->name)) < 0) {
                        free(bb.exec_path);
                        free(bb.cwd);
                        pg_pair_logs_close(&logs);
                        goto done;
                }
                pg_confirm_pick(&e, o->cpus ? o->cpus : h->confirm_cpus, NULL, r, &cpus, &ncpus,
                                &utilized);
                if ((why = pg_confirm_clamped(o->cpus ? o->cpus : h->confirm_cpus, o->cpus != 0,
                                              cpus, ncpus))) {
                        pg_cli_warn("'%s': %s", r->name, why);
                        free(why);
                        why = NULL;
                }
                pg_confirm_paired_opts(&po, o, &bb, h, cpus, ncpus, r->host.exclude_kernel, &logs);
                pg_paired_init(&p, &po);
                t0 = pg_now_ns();
                for (;;) {
                        pg_calibrate_progress(&line, o->quiet, i, head->n, r->name, p.n, pairs,
                                              (double) (pg_now_ns() - t0) / 1e9);
                        if (error < 0 || p.n >= pairs)
                                break;
                        error = pg_paired_block(&p);
                }
                pg_cli_end_line(&line);
                free(cpus);
                pg_pair_logs_close(&logs);
                free(bb.exec_path);
                free(bb.cwd);
                if (error < 0 || p.n < 2) {
                        pg_paired_release(&p);
                        if (error == 0)
                                error = pg_error_set(
                                    PG_EMEASURE, "'%s': fewer than 2 pairs on one CPU", r->name);
                        goto done;
                }
                d = pg_xmalloc(p.n * sizeof(double));
                for (size_t k = 0; k < p.n; k++)
                        d[k] = log(p.pairs[k].head_ns / p.pairs[k].base_ns);
                /* 1.4826 x MAD: the standard deviation of a normal sample,
                 * robust to the odd disturbed pair (Hampel 1974) */
                sd = 1.4826 * pg_stats_mad(d, p.n);
                free(r->noise.metric);
                r->noise.present = true;
                r->noise.metric = pg_xstrdup("task-clock");
                r->noise.pairs = p.n;
                r->noise.paired_sd = sd;
                path = pg_xasprintf("%s/%s.json", results_dir, r->name);
                error = pg_result_save(r, path);
                fputs("calibrated ", stdout);
                pg_fput_pad(stdout, r->name, 24);
                printf(" paired noise %.2f%% (%zu pairs, median A/A %+.2f%%, "
                       "%.0f s); --confirm floor max(%.1f%%, %.1f x noise) = %.2f%%\n",
                       100 * sd, p.n, 100 * expm1(pg_stats_median(d, p.n)),
                       (double) p.elapsed_ns / 1e9, 100 * PG_CONFIRM_DEFAULT_FLOOR,
                       PG_CONFIRM_NOISE_K,
                       100 * fmax(PG_CONFIRM_DEFAULT_FLOOR, PG_CONFIRM_NOISE_K * sd));
                free(path);
                free(d);
                pg_paired_release(&p);
                if (error < 0)
                        goto done;
        }
done:
        pg_confirm_env_release(&e);
        return error;
}
