/*
 * cmd_bisect.c - `perfgate bisect GOOD BAD`: find the first commit between
 * GOOD and BAD that made a benchmark slower. Each commit is built in a
 * cached checkout with perfgate.json's "build" (baselines/worktree.h) and
 * compared with GOOD (and, when that is undecided, with BAD) in
 * interleaved pairs (runner/paired.h) judged by the sequential paired test
 * of `compare --confirm` (compare/confirm.h); the search itself is
 * compare/bisect.h. `--run` is one step of `git bisect run`. Progress goes
 * to stderr, the answer to stdout (docs/bisect.md).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baselines/config.h"
#include "baselines/history.h"
#include "baselines/revrange.h"
#include "baselines/store.h"
#include "baselines/worktree.h"
#include "cli/cli.h"
#include "cli/confirm.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/bisect.h"
#include "compare/confirm.h"
#include "compare/flamegraph.h"
#include "compare/rules.h"
#include "compare/stats.h"
#include "runner/build.h"
#include "runner/discover.h"
#include "runner/launch.h"
#include "runner/paired.h"

/* Default pairs per comparison, and the sampled blocks of the final report. */
#define PG_BISECT_DEFAULT_PAIRS 48
#define PG_BISECT_HOT_BLOCKS    4
#define PG_BISECT_HOT_SHOWN     5
#define PG_BISECT_CONFIG_MAX    (16u << 20) /* perfgate.json read from BAD */
#define PG_BISECT_SUBJECT_SHOWN 200         /* bytes of the first bad commit's subject shown */
/* git bisect run's exit statuses (git-bisect(1), "Bisect run") */
#define PG_BISECT_RUN_SKIP  125
#define PG_BISECT_RUN_ABORT 128

const char pg_usage_bisect[] =
    "usage: perfgate bisect [options] GOOD BAD\n"
    "       perfgate bisect --run [--good REV] [--bad REV] [options]\n"
    "\n"
    "Find the first commit between GOOD and BAD (revisions; BAD's first-parent\n"
    "line) that made a benchmark slower. Each commit tested is built in a cached\n"
    "checkout with perfgate.json's \"build\" command and run in interleaved pairs\n"
    "against GOOD's build (and BAD's when undecided); the paired test of\n"
    "'compare --confirm' decides \"like GOOD\" or \"like BAD\". A commit that does\n"
    "not build or run is skipped, as 'git bisect skip' does. One progress line\n"
    "per step goes to stderr; the first bad commit, its effect with interval,\n"
    "the functions whose self time grew most and the differential flame graph\n"
    "across it go to stdout.\n"
    "\n"
    "  --benchmark NAME     the benchmark (default: the only one of perfgate.json)\n"
    "  --metric METRIC      task-clock (default), or a function name: that\n"
    "                       function's self share of the samples\n"
    "  --budget PAIRS       pairs per comparison, 8 or more (default 48)\n"
    "  --floor PCT          smallest GOOD..BAD slowdown bisected (default 1%)\n"
    "  --config FILE        perfgate.json (default ./perfgate.json, bench/perfgate.json)\n"
    "  --build-timeout SEC  stop a build that runs longer (default 600)\n"
    "  --machine NAME       whose stored baselines order the first tests (default\n"
    "                       default); they never decide a commit\n"
    "  -o, --output FILE    the differential flame graph (default\n"
    "                       .perfgate/bisect/<benchmark>-<commit>.svg)\n"
    "  --run                one step of 'git bisect run': compare HEAD with the\n"
    "                       good and bad refs of the bisection in progress\n"
    "  --good REV           with --run: GOOD instead of refs/bisect/good-*\n"
    "  --bad REV            with --run: BAD instead of refs/bisect/bad\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: 0 no slowdown from GOOD to BAD (nothing blamed); 1 the first\n"
    "bad commit is named; 2 usage error or bad input; 3 cannot measure (GOOD or\n"
    "BAD does not build or run, or the budget cannot tell whether BAD is slower);\n"
    "4 internal or I/O error; 130 interrupted. With --run: 0 HEAD is like GOOD,\n"
    "1 like BAD, 125 skip (HEAD does not build or run), 128 any error (git bisect\n"
    "run then stops). See docs/bisect.md.\n";

struct pg_bisect_args {
        const char *good, *bad, *benchmark, *metric, *config, *output, *machine;
        size_t budget;
        double floor, build_timeout_sec;
        bool run;
};

/* One built commit and the benchmark in its checkout. */
struct pg_bx_side {
        char *commit; /* 40 hex, owned */
        struct pg_built built;
        struct pg_bench bench; /* twin of the prototype: exec_path, cwd owned */
        bool ready;
};

/* The session: what every comparison needs. */
struct pg_bx {
        const struct pg_bisect_args *a;
        char *build, *cfg_rel, *top;
        struct pg_bench_list benches; /* discovered in the first build */
        char *bench_dir;              /* that build's directory */
        const struct pg_bench *proto;
        int cpu;
        uint64_t seed;
        size_t nbuilds, ncached;
};

enum {
        OPT_BENCHMARK = 256,
        OPT_METRIC,
        OPT_BUDGET,
        OPT_FLOOR,
        OPT_CONFIG,
        OPT_TIMEOUT,
        OPT_RUN,
        OPT_GOOD,
        OPT_BAD,
        OPT_MACHINE
};

static int pg_bisect_parse(struct pg_bisect_args *a, int argc, char **argv)
{
        static const struct option opts[] = {
                { "benchmark", required_argument, NULL, OPT_BENCHMARK },
                { "metric", required_argument, NULL, OPT_METRIC },
                { "budget", required_argument, NULL, OPT_BUDGET },
                { "floor", required_argument, NULL, OPT_FLOOR },
                { "config", required_argument, NULL, OPT_CONFIG },
                { "build-timeout", required_argument, NULL, OPT_TIMEOUT },
                { "output", required_argument, NULL, 'o' },
                { "run", no_argument, NULL, OPT_RUN },
                { "good", required_argument, NULL, OPT_GOOD },
                { "bad", required_argument, NULL, OPT_BAD },
                { "machine", required_argument, NULL, OPT_MACHINE },
                { NULL, 0, NULL, 0 },
        };
        int c;

        memset(a, 0, sizeof(*a));
        a->budget = PG_BISECT_DEFAULT_PAIRS;
        a->floor = PG_CONFIRM_DEFAULT_FLOOR;
        a->build_timeout_sec = PG_BUILD_DEFAULT_TIMEOUT_SEC;
        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
                char *end;
                double v;
                switch (c) {
                case OPT_BENCHMARK:
                        a->benchmark = optarg;
                        break;
                case OPT_METRIC:
                        if (!*optarg)
                                return pg_cli_usage_error("bisect", "--metric is empty");
                        a->metric = optarg;
                        break;
                case OPT_CONFIG:
                        a->config = optarg;
                        break;
                case 'o':
                        a->output = optarg;
                        break;
                case OPT_RUN:
                        a->run = true;
                        break;
                case OPT_GOOD:
                        a->good = optarg;
                        break;
                case OPT_BAD:
                        a->bad = optarg;
                        break;
                case OPT_MACHINE:
                        /* the rule every other command applies to --machine */
                        if (pg_store_check_machine(optarg) < 0)
                                return pg_cli_usage_error("bisect", "--machine '%s': %s", optarg,
                                                          pg_error_last());
                        a->machine = optarg;
                        break;
                case OPT_BUDGET:
                case OPT_FLOOR:
                case OPT_TIMEOUT:
                        errno = 0;
                        v = strtod(optarg, &end);
                        if (c == OPT_FLOOR && *end == '%')
                                end++;
                        if (errno || end == optarg || *end || !(v > 0) || v > 1e6 ||
                            (c == OPT_BUDGET && (v != floor(v) || v < 8)))
                                /* named here: argv[optind - 1] is the value
                                 * itself when it came as a separate argument */
                                return pg_cli_usage_error(
                                    "bisect", "%s '%s' is not %s",
                                    c == OPT_BUDGET  ? "--budget"
                                    : c == OPT_FLOOR ? "--floor"
                                                     : "--build-timeout",
                                    optarg,
                                    c == OPT_BUDGET  ? "a number of pairs, 8 or more"
                                    : c == OPT_FLOOR ? "a positive percentage (like 1 or 2.5%)"
                                                     : "a positive number of seconds");
                        if (c == OPT_BUDGET)
                                a->budget = (size_t) v;
                        else if (c == OPT_FLOOR)
                                a->floor = v / 100.0;
                        else
                                a->build_timeout_sec = v;
                        break;
                case ':':
                        return pg_cli_usage_error("bisect", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("bisect", "unknown option '%s'",
                                                  argv[optind - 1]);
                }
        }
        if (a->run) {
                if (optind < argc)
                        return pg_cli_usage_error("bisect",
                                                  "--run takes no GOOD and BAD operands (it "
                                                  "reads the bisection's refs; --good, --bad "
                                                  "override them), got '%s'",
                                                  argv[optind]);
                return 0;
        }
        if (a->good || a->bad)
                return pg_cli_usage_error("bisect", "--good and --bad go with --run; without "
                                                    "it give GOOD and BAD as operands");
        if (argc - optind != 2)
                return pg_cli_usage_error("bisect",
                                          "expected GOOD and BAD revisions, got %d "
                                          "argument%s",
                                          argc - optind, argc - optind == 1 ? "" : "s");
        a->good = argv[optind];
        a->bad = argv[optind + 1];
        return 0;
}

static bool pg_bx_function_metric(const struct pg_bx *x)
{
        return x->a->metric && strcmp(x->a->metric, "task-clock") != 0;
}

static const char *pg_bx_metric(const struct pg_bx *x)
{
        return x->a->metric ? x->a->metric : "task-clock";
}

static void pg_bx_side_release(struct pg_bx_side *s)
{
        free(s->commit);
        free(s->bench.exec_path);
        free(s->bench.cwd);
        pg_built_release(&s->built);
        memset(s, 0, sizeof(*s));
}

/* The benchmark to bisect, from the config as committed in the first
 * build: the work tree need not be built. */
static int pg_bx_discover(struct pg_bx *x, const char *dir)
{
        char *path = pg_path_join(dir, x->cfg_rel);
        const char *p = path;
        int error;

        if ((error = pg_run_discover(&x->benches, &p, 1)) < 0)
                goto done;
        for (size_t i = 0; i < x->benches.n; i++)
                if (x->a->benchmark ? strcmp(x->benches.items[i].name, x->a->benchmark) == 0
                                    : x->benches.n == 1)
                        x->proto = &x->benches.items[i];
        if (!x->proto) {
                struct pg_buf names = PG_BUF_INIT;
                for (size_t i = 0; i < x->benches.n; i++)
                        pg_buf_printf(&names, "%s%s", i ? ", " : "", x->benches.items[i].name);
                error = pg_error_set(PG_EINPUT,
                                     x->a->benchmark ? "no benchmark '%s' in '%s' (it has: %s)"
                                                     : "%s'%s' has several benchmarks (%s); "
                                                       "choose one with --benchmark",
                                     x->a->benchmark ? x->a->benchmark : "", x->cfg_rel,
                                     names.ptr ? names.ptr : "none");
                pg_buf_release(&names);
                goto done;
        }
        x->bench_dir = pg_xstrdup(dir);
done:
        free(path);
        return error;
}

/*
 * Build @commit into @s (cached per tree). PG_EMEASURE: it does not build,
 * or its build has no benchmark program - the caller skips it; other
 * errors stop the bisection.
 */
static int pg_bx_build(struct pg_bx *x, const char *commit, struct pg_bx_side *s)
{
        struct pg_build_opts bo = { NULL, NULL, x->build };
        struct pg_build_ctx bctx;
        char *log_dir = pg_path_join(x->top, PG_BUILD_CACHE_DIR);
        char *log_path = pg_xasprintf("%s/%.12s.log", log_dir, commit);
        char *what = pg_xasprintf("the build of %.12s", commit);
        int error;

        if (s->ready)
                goto done_ok;
        if ((error = pg_mkdir_under(x->top, PG_BUILD_CACHE_DIR)) < 0)
                goto done;
        (void) unlink(log_path);
        bctx = (struct pg_build_ctx){ x->build, x->a->build_timeout_sec, log_path, what, NULL };
        if ((error = pg_build_commit(&bo, commit, pg_confirm_build_cb, &bctx, &s->built)) < 0)
                goto done;
        x->nbuilds++;
        x->ncached += s->built.cached;
        s->commit = pg_xstrdup(commit);
        if (!x->proto && (error = pg_bx_discover(x, s->built.dir)) < 0)
                goto done;
        pg_confirm_twin_bench(&s->bench, x->proto, x->bench_dir, s->built.dir, x->bench_dir);
        if (strchr(x->proto->argv[0], '/') && access(s->bench.exec_path, X_OK) != 0) {
                error = pg_error_set(PG_EMEASURE, "its build has no '%s' (benchmark '%s')",
                                     x->proto->argv[0], x->proto->name);
                goto done;
        }
        s->ready = true;
done_ok:
        error = 0;
done:
        free(log_dir);
        free(log_path);
        free(what);
        return error;
}

/* Samples of @p whose leaf frame is @fn, and all samples. */
static void pg_bx_self(const struct pg_profile *p, const char *fn, double *self, double *total)
{
        *self = *total = 0;
        for (size_t i = 0; i < p->nstacks; i++) {
                const char *leaf = strrchr(p->stacks[i].frames, ';');
                leaf = leaf ? leaf + 1 : p->stacks[i].frames;
                *total += (double) p->stacks[i].count;
                if (strcmp(leaf, fn) == 0)
                        *self += (double) p->stacks[i].count;
        }
}

static void pg_bx_paired_opts(struct pg_paired_opts *po, struct pg_bx *x,
                              const struct pg_bx_side *base, const struct pg_bx_side *head)
{
        memset(po, 0, sizeof(*po));
        po->base = &base->bench;
        po->head = &head->bench;
        po->cpus = &x->cpu;
        po->ncpus = x->cpu >= 0 ? 1 : 0;
        po->timeout_ns = x->proto->timeout_sec > 0 ? (uint64_t) (x->proto->timeout_sec * 1e9) : 0;
        po->seed = x->seed++;
        po->call_graph = PG_CALL_GRAPH_FP;
}

/*
 * Run @base and @head in pairs until the paired test against @floor_frac (a fraction) decides
 * or the budget is spent (then out->outcome is INCONCLUSIVE). Per pair:
 * d = log(head / base) of task-clock, or of the function's self share
 * (samples + 1/2 over samples + 1/2, so a share of 0 stays finite).
 */
static int pg_bx_compare(struct pg_bx *x, const struct pg_bx_side *base,
                         const struct pg_bx_side *head, double floor_frac,
                         struct pg_confirm_look *out)
{
        struct pg_confirm_opts co = { floor_frac, PG_CONFIRM_DEFAULT_ALPHA };
        struct pg_paired_opts po;
        struct pg_paired p;
        struct pg_buf warnings = PG_BUF_INIT;
        bool fn = pg_bx_function_metric(x);
        double *d = NULL;
        size_t n = 0;
        unsigned look = 1;
        int error = 0;

        pg_bx_paired_opts(&po, x, base, head);
        pg_paired_init(&p, &po);
        memset(out, 0, sizeof(*out));
        for (;;) {
                size_t next = pg_confirm_look_pairs(look);
                bool out_of_budget = n + 2 > x->a->budget;

                if (n < next && !out_of_budget) {
                        d = pg_xreallocarray(d, n + 2, sizeof(double));
                        if (fn) {
                                struct pg_profile pb[2], ph[2];
                                double sb, tb, sh, th;
                                if ((error = pg_paired_profile_block(&p, pb, ph, &warnings)) < 0)
                                        break;
                                for (int k = 0; k < 2; k++) {
                                        pg_bx_self(&pb[k], x->a->metric, &sb, &tb);
                                        pg_bx_self(&ph[k], x->a->metric, &sh, &th);
                                        d[n++] = log((sh + 0.5) / (th + 0.5)) -
                                                 log((sb + 0.5) / (tb + 0.5));
                                        pg_profile_release(&pb[k]);
                                        pg_profile_release(&ph[k]);
                                }
                        } else {
                                size_t before = p.n;
                                if ((error = pg_paired_block(&p)) < 0)
                                        break;
                                for (size_t k = before; k < p.n; k++)
                                        d[n++] = log(p.pairs[k].head_ns / p.pairs[k].base_ns);
                                if (p.n == before && p.ndiscarded > 64) {
                                        error = pg_error_set(
                                            PG_EMEASURE,
                                            "pairs keep running on different CPUs (%zu "
                                            "discarded); pinning is refused here",
                                            p.ndiscarded);
                                        break;
                                }
                        }
                        continue;
                }
                if (n == 0) {
                        error = pg_error_set(PG_EMEASURE, "no pair could be measured");
                        break;
                }
                if ((error = pg_confirm_judge(d, n, look, &co, out)) < 0)
                        break;
                look++;
                if (out->outcome != PG_CONFIRM_UNDECIDED)
                        break;
                if (out_of_budget) {
                        out->outcome = PG_CONFIRM_INCONCLUSIVE;
                        break;
                }
        }
        free(d);
        pg_buf_release(&warnings);
        pg_paired_release(&p);
        return error;
}

static void pg_bx_describe(struct pg_buf *b, const struct pg_confirm_look *l)
{
        pg_buf_printf(b, "%+.2f%% [%+.2f%%, %+.2f%%] (%.1f%% interval, %zu pairs)",
                      100 * l->estimate, 100 * l->lo, 100 * l->hi, 100 * l->level, l->pairs);
}

/* What GOOD..BAD changed: 0 and *half_log set when BAD is slower by more
 * than the floor; otherwise the exit status, the reason printed. */
static int pg_bx_range_effect(struct pg_bx *x, struct pg_bx_side *good, struct pg_bx_side *bad,
                              double *half_log, struct pg_confirm_look *lk)
{
        struct pg_buf b = PG_BUF_INIT;
        int error;

        if ((error = pg_bx_compare(x, good, bad, x->a->floor, lk)) < 0)
                return error;
        pg_bx_describe(&b, lk);
        fprintf(stderr, "perfgate: bisect: %s of '%s', BAD %.12s against GOOD %.12s: %s\n",
                pg_bx_metric(x), x->proto->name, bad->commit, good->commit, b.ptr);
        pg_buf_release(&b);
        *half_log = log1p(lk->estimate) / 2;
        return 0;
}

/* Class commit @m by its comparisons with the ends; prints the step line. */
static int pg_bx_classify(struct pg_bx *x, struct pg_bx_side *good, struct pg_bx_side *bad,
                          struct pg_bx_side *m, double half_log, const char *step,
                          enum pg_bisect_mark *mark, bool *guessed)
{
        struct pg_confirm_look vg, vb;
        struct pg_buf b = PG_BUF_INIT;
        double fl = expm1(half_log);
        bool used_bad = false;
        int error;

        if ((error = pg_bx_compare(x, good, m, fl, &vg)) < 0)
                return error;
        if (vg.outcome != PG_CONFIRM_REGRESSION && vg.outcome != PG_CONFIRM_NO_REGRESSION) {
                if ((error = pg_bx_compare(x, m, bad, fl, &vb)) < 0)
                        return error;
                used_bad = true;
        }
        *mark = pg_bisect_classify(&vg, used_bad ? &vb : NULL, half_log, guessed);
        pg_bx_describe(&b, &vg);
        fprintf(stderr, "perfgate: bisect: %s %.12s: %zu pairs vs GOOD %s%s -> %s%s\n", step,
                m->commit, vg.pairs + (used_bad ? vb.pairs : 0), b.ptr,
                used_bad ? ", then vs BAD" : "", *mark == PG_BISECT_BAD ? "like BAD" : "like GOOD",
                *guessed ? " (a guess: undecided within --budget, nearer that end)" : "");
        pg_buf_release(&b);
        return 0;
}

static int pg_bx_init(struct pg_bx *x, const struct pg_bisect_args *a)
{
        struct pg_rules rules;
        size_t ncpu;
        struct pg_repo_state rs;
        char *cfg_base = NULL, *used = NULL, *real = NULL;
        int error;

        memset(x, 0, sizeof(*x));
        memset(&rs, 0, sizeof(rs));
        x->a = a;
        x->cpu = -1;
        pg_rules_init(&rules);
        if ((error = pg_cli_load_rules(a->config, &rules, &cfg_base, &x->build, &used)) < 0)
                goto done;
        if (!used) {
                error = pg_error_set(PG_EINPUT, "no perfgate.json here (nor bench/perfgate.json); "
                                                "give --config FILE");
                goto done;
        }
        if (!x->build) {
                error = pg_error_set(PG_EINPUT,
                                     "bisect needs a \"build\" command in perfgate.json (%s) to "
                                     "build each commit (docs/bisect.md)",
                                     used);
                goto done;
        }
        if ((error = pg_repo_state_get(NULL, &rs)) < 0)
                goto done;
        real = realpath(used, NULL);
        if (!real || strncmp(real, rs.top, strlen(rs.top)) != 0 || real[strlen(rs.top)] != '/') {
                error =
                    pg_error_set(PG_EINPUT, "'%s' is not inside the repository '%s'", used, rs.top);
                goto done;
        }
        x->cfg_rel = pg_xstrdup(real + strlen(rs.top) + 1);
        x->top = pg_xstrdup(rs.top);
        if (pg_paired_pick_cpus(1, &x->cpu, &ncpu) < 0)
                x->cpu = -1;
        x->seed = ((uint64_t) time(NULL) << 20) ^ (uint64_t) getpid();
        if (x->cpu < 0)
                pg_cli_warn("cannot pin benchmarks to a CPU here (sched_setaffinity refused); "
                            "pairs are kept only when both runs were on the same CPU");
        pg_launch_install_signal_handlers();
done:
        pg_rules_release(&rules);
        pg_repo_state_release(&rs);
        free(cfg_base);
        free(used);
        free(real);
        return error;
}

static void pg_bx_release(struct pg_bx *x)
{
        pg_bench_list_release(&x->benches);
        free(x->build);
        free(x->cfg_rel);
        free(x->top);
        free(x->bench_dir);
}

/* Build an end of the range; failing is fatal (exit 3). */
static int pg_bx_build_end(struct pg_bx *x, const char *commit, const char *which,
                           struct pg_bx_side *s)
{
        int error = pg_bx_build(x, commit, s);
        if (error == PG_EMEASURE)
                pg_error_prefix(error, "%s %.12s cannot be measured", which, commit);
        return error;
}

/* The final report across @prev -> @first: effect, self-time growth, and
 * the differential flame graph. */
static int pg_bx_report(struct pg_bx *x, struct pg_bx_side *prev, struct pg_bx_side *first,
                        const char *subject)
{
        struct pg_confirm_look lk;
        struct pg_paired_opts po;
        struct pg_paired p;
        struct pg_profile base[2 * PG_BISECT_HOT_BLOCKS], head[2 * PG_BISECT_HOT_BLOCKS];
        struct pg_confirm_hotspots hs;
        struct pg_buf warnings = PG_BUF_INIT, svg = PG_BUF_INIT, desc = PG_BUF_INIT;
        struct pg_buf shown_subject = PG_BUF_INIT;
        struct pg_stack *sb = NULL, *sh = NULL;
        size_t nb = 0, nh = 0, n = 0, shown = 0;
        char *path = NULL, *dir = NULL;
        int error;

        memset(&hs, 0, sizeof(hs));
        if ((error = pg_bx_compare(x, prev, first, x->a->floor, &lk)) < 0)
                return error;
        pg_bx_describe(&desc, &lk);
        /* the subject is a commit message's: shown escaped (docs/limits.md, "Names") */
        pg_cli_text(&shown_subject, subject, PG_BISECT_SUBJECT_SHOWN);
        printf("first bad commit: %s %s\n", first->commit, shown_subject.ptr);
        printf("  %s of '%s' against %.12s: %s\n", pg_bx_metric(x), x->proto->name, prev->commit,
               desc.ptr);
        pg_bx_paired_opts(&po, x, prev, first);
        pg_paired_init(&p, &po);
        for (int k = 0; k < PG_BISECT_HOT_BLOCKS; k++) {
                if ((error = pg_paired_profile_block(&p, &base[n], &head[n], &warnings)) < 0)
                        break;
                n += 2;
        }
        pg_paired_release(&p);
        if (error == PG_EINTR)
                goto done;
        if (error == 0)
                error = pg_confirm_hotspots(base, head, n, 8, 0.0, PG_CONFIRM_DEFAULT_ALPHA, &hs);
        if (error < 0) {
                pg_cli_warn("no profile across %.12s: %s", first->commit, pg_error_last());
                error = 0;
                goto done;
        }
        printf("  self time grew most in:");
        for (size_t i = 0; i < hs.n && shown < PG_BISECT_HOT_SHOWN; i++) {
                const struct pg_confirm_hotspot *h = &hs.items[i];
                if (!(h->self_growth_ns > 0))
                        continue;
                pg_buf_reset(&shown_subject);
                pg_cli_text(&shown_subject, h->function, SIZE_MAX);
                printf("%s %s %+.2f ms (self share %.1f%% -> %.1f%%%s)", shown ? "," : "",
                       shown_subject.ptr, h->self_growth_ns / 1e6, 100 * h->base_share,
                       100 * h->head_share, h->confirmed ? ", confirmed" : "");
                shown++;
        }
        printf("%s\n", shown ? "" : " none measurably");
        for (size_t i = 0; i < n; i++) {
                sb = pg_xreallocarray(sb, nb + base[i].nstacks + 1, sizeof(*sb));
                sh = pg_xreallocarray(sh, nh + head[i].nstacks + 1, sizeof(*sh));
                for (size_t k = 0; k < base[i].nstacks; k++)
                        sb[nb++] = base[i].stacks[k];
                for (size_t k = 0; k < head[i].nstacks; k++)
                        sh[nh++] = head[i].stacks[k];
        }
        {
                struct pg_flame_opts fo;
                char *title =
                    pg_xasprintf("%s: %.12s -> %.12s", x->proto->name, prev->commit, first->commit);
                pg_flame_opts_init(&fo);
                fo.title = title;
                fo.base_name = "parent";
                fo.head_name = "first bad";
                error = pg_flamegraph_diff_svg(&svg, sb, nb, sh, nh, &fo);
                free(title);
        }
        if (error < 0) {
                pg_cli_warn("no differential flame graph: %s", pg_error_last());
                error = 0;
                goto done;
        }
        if (x->a->output) {
                path = pg_xstrdup(x->a->output);
        } else {
                dir = pg_path_join(x->top, ".perfgate/bisect");
                if ((error = pg_mkdir_under(x->top, ".perfgate/bisect")) < 0)
                        goto done;
                path = pg_xasprintf("%s/%s-%.12s.svg", dir, x->proto->name, first->commit);
        }
        /* -o is the user's path (written as cp(1) writes); the default one
         * is perfgate's own name: whatever is planted there is replaced,
         * never written through */
        if ((error = x->a->output ? pg_cli_write_output(path, &svg)
                                  : pg_write_file_own(path, svg.ptr, svg.len)) < 0)
                goto done;
        printf("  differential flame graph: %s\n", path);
done:
        for (size_t i = 0; i < n; i++) {
                pg_profile_release(&base[i]);
                pg_profile_release(&head[i]);
        }
        pg_confirm_hotspots_release(&hs);
        free(sb);
        free(sh);
        free(path);
        free(dir);
        pg_buf_release(&warnings);
        pg_buf_release(&svg);
        pg_buf_release(&desc);
        pg_buf_release(&shown_subject);
        return error;
}

/* Why @s was skipped, for the step line: the first line of the message. */
static void pg_bx_warn_skip(const char *step, const char *commit)
{
        const char *m = pg_error_last();
        const char *nl = strchr(m, '\n');
        fprintf(stderr, "perfgate: bisect: %s %.12s: skipped: %.*s\n", step, commit,
                nl ? (int) (nl - m) : (int) strlen(m), m);
}

/* The range is not slower: say so (exit 0), or that it cannot tell (3). */
static int pg_bx_no_change(const struct pg_bx *x, const struct pg_confirm_look *lk,
                           const char *good, const char *bad)
{
        struct pg_buf b = PG_BUF_INIT;
        int status = PG_EXIT_OK;

        pg_bx_describe(&b, lk);
        if (lk->outcome == PG_CONFIRM_NO_REGRESSION) {
                printf("no change in this range: %s of '%s' at %.12s against %.12s is %s, "
                       "%s the floor of %+.1f%%; no commit is blamed\n",
                       pg_bx_metric(x), x->proto->name, bad, good, b.ptr,
                       lk->hi < -x->a->floor ? "faster, not slower: below" : "within",
                       100 * x->a->floor);
        } else {
                pg_cli_error("cannot tell whether %.12s is slower than %.12s within --budget %zu "
                             "pairs: %s of '%s' %s; raise --budget or --floor",
                             bad, good, x->a->budget, pg_bx_metric(x), x->proto->name, b.ptr);
                status = PG_EXIT_MEASURE;
        }
        pg_buf_release(&b);
        return status;
}

/*
 * The stored baselines of the range (machine --machine) as a hint: the two
 * stored commits between which the stored median task-clock rose most, by
 * at least half the measured change. Only orders the tests: a wrong hint
 * costs at most two builds, and each commit is still classed by paired
 * runs. Unreadable baselines only warn.
 */
static bool pg_bx_hint(struct pg_bx *x, const struct pg_rev_range *r, double half_log, size_t *lo,
                       size_t *hi)
{
        struct pg_store_opts so = { NULL, NULL, x->a->machine };
        struct pg_history h;
        size_t *idx = NULL, n = 0, k = 0;
        double *v = NULL;
        bool found = false;

        if (pg_bx_function_metric(x))
                return false;
        pg_history_init(&h);
        if (pg_history_load(&so, r->commits[r->n - 1], r->n + 1, &h) < 0) {
                pg_cli_warn("stored baselines not read: %s", pg_error_last());
                goto done;
        }
        idx = pg_xcalloc(h.n + 1, sizeof(*idx));
        v = pg_xcalloc(h.n + 1, sizeof(*v));
        for (size_t i = 0; i < h.n; i++) {
                const struct pg_history_point *p = &h.points[i];
                const struct pg_metric *tc = NULL;
                /* both lists are oldest first along the same line */
                while (k <= r->n && strcmp(k ? r->commits[k - 1] : r->good, p->commit) != 0)
                        k++;
                if (k > r->n)
                        break;
                for (size_t j = 0; j < p->results.n && !tc; j++)
                        if (strcmp(p->results.items[j].name, x->proto->name) == 0)
                                tc = pg_result_find_metric(&p->results.items[j], "task-clock");
                if (tc && tc->nvalues) {
                        idx[n] = k;
                        v[n++] = pg_stats_median(tc->values, tc->nvalues);
                }
        }
        found = pg_bisect_hint(idx, v, n, half_log, lo, hi);
        if (found)
                fprintf(stderr,
                        "perfgate: bisect: stored baselines (%zu of these commits, machine "
                        "'%s') rise most between %.12s and %.12s: testing those first\n",
                        n, x->a->machine ? x->a->machine : "default",
                        *lo ? r->commits[*lo - 1] : r->good, r->commits[*hi - 1]);
done:
        free(idx);
        free(v);
        pg_history_release(&h);
        return found;
}

/* Before any build: --benchmark NAME must be in BAD's perfgate.json as
 * committed (the list the bisection will read after building BAD). A
 * config BAD lacks or that does not parse is left to the build to report. */
static int pg_bx_check_benchmark(struct pg_bx *x, const char *bad)
{
        struct pg_buf text = PG_BUF_INIT, names = PG_BUF_INIT;
        struct pg_config c;
        int error = 0;

        if (!x->a->benchmark ||
            pg_rev_read_file(NULL, bad, x->cfg_rel, PG_BISECT_CONFIG_MAX, &text) < 0) {
                pg_error_clear();
                goto done;
        }
        if (pg_config_parse_for(&c, text.ptr, text.len, x->cfg_rel, PG_CONFIG_NEED_BENCHMARKS) <
            0) {
                pg_error_clear();
                goto done;
        }
        if (!pg_config_find(&c, x->a->benchmark)) {
                for (size_t i = 0; i < c.nbench; i++)
                        pg_buf_printf(&names, "%s%s", i ? ", " : "", c.bench[i].name);
                error =
                    pg_error_set(PG_EINPUT, "no benchmark '%s' in '%s' at BAD %.12s (it has: %s)",
                                 x->a->benchmark, x->cfg_rel, bad, names.len ? names.ptr : "none");
        }
        pg_config_release(&c);
done:
        pg_buf_release(&text);
        pg_buf_release(&names);
        return error;
}

static int pg_bisect_range(struct pg_bx *x)
{
        struct pg_rev_range r;
        struct pg_bisect bs;
        struct pg_bx_side *sides = NULL;
        struct pg_confirm_look lk;
        double half_log;
        size_t first, nskipped, step = 0, skipped = 0, hint[2], nhint = 0, khint = 0;
        int error, status = PG_EXIT_OK;

        memset(&bs, 0, sizeof(bs));
        if ((error = pg_rev_range_get(NULL, x->a->good, x->a->bad, &r)) < 0)
                return pg_cli_fail(error);
        if ((error = pg_bx_check_benchmark(x, r.commits[r.n - 1])) < 0) {
                pg_rev_range_release(&r);
                return pg_cli_fail(error);
        }
        sides = pg_xcalloc(r.n + 1, sizeof(*sides));
        fprintf(stderr,
                "perfgate: bisect: %zu commit%s after GOOD %.12s up to BAD %.12s; "
                "building both ends with '%s'\n",
                r.n, r.n == 1 ? "" : "s", r.good, r.commits[r.n - 1], x->build);
        if ((error = pg_bx_build_end(x, r.commits[r.n - 1], "BAD", &sides[r.n])) < 0 ||
            (error = pg_bx_build_end(x, r.good, "GOOD", &sides[0])) < 0)
                goto fail;
        if ((error = pg_bx_range_effect(x, &sides[0], &sides[r.n], &half_log, &lk)) < 0)
                goto fail;
        if (lk.outcome != PG_CONFIRM_REGRESSION) {
                status = pg_bx_no_change(x, &lk, r.good, r.commits[r.n - 1]);
                goto done;
        }
        pg_bisect_init(&bs, r.n);
        if (pg_bx_hint(x, &r, half_log, &hint[0], &hint[1]))
                nhint = 2;
        for (;;) {
                char label[64];
                enum pg_bisect_mark mark;
                bool guessed;
                size_t lo, hi, m = 0;

                /* the hinted commits first, while they are inside the bounds */
                pg_bisect_bounds(&bs, &lo, &hi);
                while (!m && khint < nhint) {
                        size_t c = hint[khint++];
                        if (c > lo && c < hi && bs.marks[c] == PG_BISECT_UNTESTED)
                                m = c;
                }
                if (!m && (m = pg_bisect_next(&bs)) == 0)
                        break;

                snprintf(label, sizeof(label), "step %zu (%zu left)", ++step, pg_bisect_left(&bs));
                /* not built, or its benchmark fails: skipped */
                error = pg_bx_build(x, r.commits[m - 1], &sides[m]);
                if (error == 0)
                        error = pg_bx_classify(x, &sides[0], &sides[r.n], &sides[m], half_log,
                                               label, &mark, &guessed);
                if (error == PG_EMEASURE) {
                        pg_bx_warn_skip(label, r.commits[m - 1]);
                        bs.marks[m] = PG_BISECT_SKIP;
                        skipped++;
                        continue;
                }
                if (error < 0)
                        goto fail;
                bs.marks[m] = mark;
                pg_bisect_bounds(&bs, &lo, &hi);
                fprintf(stderr,
                        "perfgate: bisect: first bad commit now in %.12s..%.12s (%zu "
                        "untested between)\n",
                        lo ? r.commits[lo - 1] : r.good, r.commits[hi - 1], pg_bisect_left(&bs));
        }
        pg_bisect_result(&bs, &first, &nskipped);
        {
                size_t lo, hi;
                pg_bisect_bounds(&bs, &lo, &hi);
                if ((error = pg_bx_report(x, &sides[lo], &sides[first], r.subjects[first - 1])) < 0)
                        goto fail;
                if (nskipped) {
                        printf("  could also be any of the %zu skipped commit%s before it:",
                               nskipped, nskipped == 1 ? "" : "s");
                        for (size_t i = lo + 1; i < hi; i++)
                                if (bs.marks[i] == PG_BISECT_SKIP)
                                        printf(" %.12s", r.commits[i - 1]);
                        printf("\n");
                }
        }
        printf("builds: %zu (%zu from the cache), %zu skipped; %zu step%s\n", x->nbuilds,
               x->ncached, skipped, step, step == 1 ? "" : "s");
        status = PG_EXIT_REGRESSION;
        goto done;
fail:
        status = pg_cli_fail(error);
done:
        for (size_t i = 0; sides && i <= r.n; i++)
                pg_bx_side_release(&sides[i]);
        free(sides);
        pg_bisect_release(&bs);
        pg_rev_range_release(&r);
        return status;
}

/* One step of `git bisect run`: HEAD against the bisection's ends. */
static int pg_bisect_run_step(struct pg_bx *x)
{
        struct pg_bx_side good, bad, head;
        struct pg_confirm_look lk;
        char *g = NULL, *b = NULL, *h = NULL;
        double half_log;
        enum pg_bisect_mark mark;
        bool guessed;
        int error, status;

        memset(&good, 0, sizeof(good));
        memset(&bad, 0, sizeof(bad));
        memset(&head, 0, sizeof(head));
        if ((error = pg_rev_bisect_refs(NULL, NULL, &g, &b, &h)) < 0 && !(x->a->good && x->a->bad))
                goto fail;
        if (x->a->good || x->a->bad) {
                /* explicit ends: resolve them as the range does */
                struct pg_rev_range r;
                if ((error = pg_rev_range_get(NULL, x->a->good ? x->a->good : g,
                                              x->a->bad ? x->a->bad : b, &r)) < 0)
                        goto fail;
                free(g);
                free(b);
                g = pg_xstrdup(r.good);
                b = pg_xstrdup(r.commits[r.n - 1]);
                pg_rev_range_release(&r);
                if (!h) {
                        struct pg_repo_state rs;
                        if ((error = pg_repo_state_get(NULL, &rs)) < 0)
                                goto fail;
                        h = rs.head ? pg_xstrdup(rs.head) : NULL;
                        pg_repo_state_release(&rs);
                }
        }
        if (!h) {
                error = pg_error_set(PG_ENOTFOUND, "HEAD is not a commit");
                goto fail;
        }
        if (strcmp(h, g) == 0 || strcmp(h, b) == 0) {
                status = strcmp(h, b) == 0 ? 1 : 0;
                fprintf(stderr, "perfgate: bisect --run: HEAD %.12s is %s itself\n", h,
                        status ? "BAD" : "GOOD");
                goto done;
        }
        /* BAD first: the benchmark is the one of its perfgate.json */
        if ((error = pg_bx_build_end(x, b, "BAD", &bad)) < 0 ||
            (error = pg_bx_build_end(x, g, "GOOD", &good)) < 0)
                goto fail;
        if ((error = pg_bx_build(x, h, &head)) < 0 && error != PG_EMEASURE)
                goto fail;
        if (error == PG_EMEASURE) {
                pg_bx_warn_skip("HEAD", h);
                status = PG_BISECT_RUN_SKIP;
                goto done;
        }
        if ((error = pg_bx_range_effect(x, &good, &bad, &half_log, &lk)) < 0)
                goto fail;
        if (lk.outcome != PG_CONFIRM_REGRESSION) {
                (void) pg_bx_no_change(x, &lk, g, b);
                fprintf(stderr, "perfgate: bisect --run: nothing to bisect; stopping (exit %d)\n",
                        PG_BISECT_RUN_ABORT);
                status = PG_BISECT_RUN_ABORT;
                goto done;
        }
        error = pg_bx_classify(x, &good, &bad, &head, half_log, "HEAD", &mark, &guessed);
        if (error == PG_EMEASURE) {
                pg_bx_warn_skip("HEAD", h);
                status = PG_BISECT_RUN_SKIP;
                goto done;
        }
        if (error < 0)
                goto fail;
        status = mark == PG_BISECT_BAD ? 1 : 0;
        goto done;
fail:
        (void) pg_cli_fail(error);
        status = error == PG_EINTR ? PG_EXIT_INTERRUPTED : PG_BISECT_RUN_ABORT;
done:
        pg_bx_side_release(&good);
        pg_bx_side_release(&bad);
        pg_bx_side_release(&head);
        free(g);
        free(b);
        free(h);
        return status;
}

int cmd_bisect(int argc, char **argv)
{
        struct pg_bisect_args a;
        struct pg_bx x;
        int status, error;
        bool run = false;

        if (pg_cli_wants_help(argc, argv, pg_usage_bisect))
                return 0;
        for (int i = 1; i < argc; i++)
                if (strcmp(argv[i], "--run") == 0)
                        run = true;
        if ((status = pg_bisect_parse(&a, argc, argv)) != 0)
                return run ? PG_BISECT_RUN_ABORT : status;
        if ((error = pg_bx_init(&x, &a)) < 0) {
                status = pg_cli_fail(error);
                if (a.run && status != PG_EXIT_INTERRUPTED)
                        status = PG_BISECT_RUN_ABORT;
        } else {
                status = a.run ? pg_bisect_run_step(&x) : pg_bisect_range(&x);
        }
        pg_bx_release(&x);
        return status;
}
