/*
 * cmd_compare.c - `perfgate compare [BASE]`: load head results (one or more
 * result directories, e.g. one per CI shard), load the baseline (a results
 * directory or file, or a git revision looked up in the baseline store),
 * judge every benchmark (compare/verdict.h), write the reports asked for
 * atomically, print the text report, and exit 0 (no regression), 1
 * (regression), 2 (bad input), 4 (internal or I/O error).
 *
 * Nothing is written before all inputs are loaded and valid, so bad input
 * never leaves half the reports behind.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baselines/config.h"
#include "baselines/result.h"
#include "baselines/store.h"
#include "baselines/worktree.h"
#include "cli/cli.h"
#include "cli/confirm.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/flamegraph.h"
#include "compare/report.h"
#include "compare/rules.h"
#include "compare/verdict.h"
#include "runner/build.h"

const char pg_usage_compare[] =
    "usage: perfgate compare [BASE] [options]\n"
    "\n"
    "Judge the results of `perfgate run` against a baseline and report what\n"
    "changed, whether it matters, and where in the code it happened.\n"
    "\n"
    "BASE is a results directory or a result file, or else a git revision\n"
    "(main, origin/main, a tag, a SHA, HEAD~3) whose baseline is looked up in\n"
    "the baseline store (merge-base with HEAD, then first parents). A bare\n"
    "word that names a revision is the revision even if a directory has that\n"
    "name; write ./DIR for the directory. Default: perfgate.json's \"base\",\n"
    "else main.\n"
    "\n"
    "options:\n"
    "  --results DIR        head results (default .perfgate/results); repeat it\n"
    "                       to combine the directories of sharded runs\n"
    "  --machine NAME       baseline machine name (default: the results' machine)\n"
    "  --branch NAME        baseline store branch (default perfgate-baselines)\n"
    "  --max-walk N         first-parent commits to search for a baseline (default 50)\n"
    "  --require-baseline   no baseline found is an error (exit 2), not a pass\n"
    "  --strict             inconclusive results fail too (exit 1)\n"
    "  --markdown FILE      write the PR/MR comment body (Markdown)\n"
    "  --json FILE          write the verdict as JSON (schema perfgate/compare/1)\n"
    "  --junit FILE         write JUnit XML (one testcase per benchmark)\n"
    "  --openmetrics FILE   write OpenMetrics text (GitLab metrics report)\n"
    "  --flamegraph-dir DIR write <benchmark>.diff.svg and <benchmark>.base.svg for\n"
    "                       each benchmark with a regression or hotspot change, and\n"
    "                       for regressions <benchmark>.image.svg (and .focus.svg)\n"
    "                       to show in the PR/MR comment\n"
    "  --link-base URL      the URL where DIR will be published: the Markdown shows\n"
    "                       the regressions' flame graphs as images from there\n"
    "  --markdown-plain FILE  also write the Markdown as without --link-base (the\n"
    "                       comment for when the flame graphs cannot be published)\n"
    "  --history-url URL    link each benchmark in the Markdown to its page of the\n"
    "                       `perfgate history --html` site published at URL\n"
    "  --config FILE        rules from FILE's \"compare\" section (default\n"
    "                       ./perfgate.json, else bench/perfgate.json, if present)\n"
    "  --confirm[=all]      confirm each regression or inconclusive result (all:\n"
    "                       every benchmark) by interleaved pairs of runs of the\n"
    "                       baseline's commit, built with perfgate.json's \"build\"\n"
    "                       in a cached checkout, and of the work tree's build\n"
    "  --confirm-budget B   per benchmark: B pairs (8 or more), or a time (90s, 2m);\n"
    "                       default 120s\n"
    "  --confirm-floor PCT  smallest change confirmed as a regression (default 1%)\n"
    "  --confirm-cpus N     pin both sides of the pairs to N CPUs (default: as many\n"
    "                       as the stored runs kept busy, cpus-utilized rounded up)\n"
    "  --build-timeout SEC  stop a build that runs longer (default 600)\n"
    "  --calibrate          instead of comparing: measure each benchmark's paired\n"
    "                       A/A noise (HEAD's cached build against the work tree,\n"
    "                       --confirm-budget pairs, default 24) and store it in the\n"
    "                       results for 'perfgate baseline save'\n"
    "  -q, --quiet          no progress output (the base build's, --calibrate's)\n"
    "\n"
    "A change is a regression only when it is beyond the metric's threshold,\n"
    "beyond 3x the noise (relative MAD) and significant (two-sided Mann-Whitney\n"
    "U, p < 0.05); beyond the threshold but not significant is inconclusive.\n"
    "Rules, defaults and the JSON schema: docs/compare.md.\n"
    "\n"
    "exit status: 0 no regression (improvements, new, missing and, without\n"
    "--strict, inconclusive included), 1 regression or failed benchmark,\n"
    "2 usage error or bad input, 3 the base build failed or timed out (--confirm;\n"
    "the stored verdicts are reported, marked unconfirmed), 4 internal or I/O error\n";

enum {
        OPT_RESULTS = 256,
        OPT_MACHINE,
        OPT_BRANCH,
        OPT_MAX_WALK,
        OPT_REQUIRE,
        OPT_STRICT,
        OPT_MARKDOWN,
        OPT_JSON,
        OPT_JUNIT,
        OPT_OPENMETRICS,
        OPT_FLAMEDIR,
        OPT_LINKBASE,
        OPT_HISTORY_URL,
        OPT_CONFIG,
        OPT_CONFIRM,
        OPT_CONFIRM_BUDGET,
        OPT_CONFIRM_FLOOR,
        OPT_CONFIRM_CPUS,
        OPT_BUILD_TIMEOUT,
        OPT_CALIBRATE,
        OPT_MARKDOWN_PLAIN
};

struct pg_compare_args {
        const char *base;
        size_t nresults;
        const char **results;
        const char *markdown_plain;
        const char *machine, *branch, *markdown, *json, *junit, *openmetrics, *flamedir, *link_base,
            *config, *history_url;
        unsigned max_walk;
        bool require_baseline, strict;
        bool confirm, confirm_all, calibrate, quiet;
        struct pg_confirm_budget budget;
        double build_timeout_sec, floor;
        size_t confirm_cpus; /* 0: from each benchmark's cpus-utilized */
};

/* @p made absolute through its directory (the file need not exist yet);
 * NULL when the directory cannot be resolved. Owned. */
static char *pg_abs_path(const char *p)
{
        const char *slash = strrchr(p, '/');
        char *dir = slash ? pg_xstrndup(p, (size_t) (slash - p) + (slash == p)) : pg_xstrdup(".");
        char *real = realpath(dir, NULL), *out = NULL;

        if (real)
                out = pg_xasprintf("%s/%s", real, slash ? slash + 1 : p);
        free(real);
        free(dir);
        return out;
}

/* @a and @b name one file: the same path through their directories, or the
 * same existing inode */
static bool pg_same_file(const char *a, const char *b)
{
        struct stat sa, sb;
        char *x, *y;
        bool same;

        if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
                return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
        x = pg_abs_path(a);
        y = pg_abs_path(b);
        same = strcmp(a, b) == 0 || (x && y && strcmp(x, y) == 0);
        free(x);
        free(y);
        return same;
}

/* @arg as a whole decimal number in [@lo, @hi] in *@v: 0, or -1 when it is
 * not one (the caller says what the option wants). */
static int pg_parse_count(const char *arg, long lo, long hi, long *v)
{
        char *end;

        errno = 0;
        *v = strtol(arg, &end, 10);
        return errno || end == arg || *end || *v < lo || *v > hi ? -1 : 0;
}

static int pg_parse_args(struct pg_compare_args *a, int argc, char **argv)
{
        static const struct option opts[] = {
                { "results", required_argument, NULL, OPT_RESULTS },
                { "machine", required_argument, NULL, OPT_MACHINE },
                { "branch", required_argument, NULL, OPT_BRANCH },
                { "max-walk", required_argument, NULL, OPT_MAX_WALK },
                { "require-baseline", no_argument, NULL, OPT_REQUIRE },
                { "strict", no_argument, NULL, OPT_STRICT },
                { "markdown", required_argument, NULL, OPT_MARKDOWN },
                { "json", required_argument, NULL, OPT_JSON },
                { "junit", required_argument, NULL, OPT_JUNIT },
                { "openmetrics", required_argument, NULL, OPT_OPENMETRICS },
                { "flamegraph-dir", required_argument, NULL, OPT_FLAMEDIR },
                { "link-base", required_argument, NULL, OPT_LINKBASE },
                { "markdown-plain", required_argument, NULL, OPT_MARKDOWN_PLAIN },
                { "history-url", required_argument, NULL, OPT_HISTORY_URL },
                { "config", required_argument, NULL, OPT_CONFIG },
                { "confirm", optional_argument, NULL, OPT_CONFIRM },
                { "confirm-budget", required_argument, NULL, OPT_CONFIRM_BUDGET },
                { "confirm-floor", required_argument, NULL, OPT_CONFIRM_FLOOR },
                { "confirm-cpus", required_argument, NULL, OPT_CONFIRM_CPUS },
                { "build-timeout", required_argument, NULL, OPT_BUILD_TIMEOUT },
                { "calibrate", no_argument, NULL, OPT_CALIBRATE },
                { "quiet", no_argument, NULL, 'q' },
                { NULL, 0, NULL, 0 },
        };
        int c;

        a->max_walk = PG_STORE_DEFAULT_MAX_WALK;
        a->budget.seconds = PG_CONFIRM_DEFAULT_BUDGET_SEC;
        a->build_timeout_sec = PG_BUILD_DEFAULT_TIMEOUT_SEC;
        a->results = pg_xcalloc((size_t) argc + 1, sizeof(char *));
        opterr = 0;
        optind = 1;
        while ((c = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
                switch (c) {
                case 'q':
                        a->quiet = true;
                        break;
                case OPT_RESULTS:
                        a->results[a->nresults++] = optarg;
                        break;
                case OPT_MACHINE:
                        a->machine = optarg;
                        break;
                case OPT_BRANCH:
                        a->branch = optarg;
                        break;
                case OPT_MAX_WALK: {
                        long v;
                        if (pg_parse_count(optarg, 0, 100000, &v) < 0)
                                return pg_cli_usage_error("compare",
                                                          "--max-walk '%s' is not a number of "
                                                          "commits (0 to 100000)",
                                                          optarg);
                        a->max_walk = (unsigned) v;
                        break;
                }
                case OPT_REQUIRE:
                        a->require_baseline = true;
                        break;
                case OPT_STRICT:
                        a->strict = true;
                        break;
                case OPT_MARKDOWN_PLAIN:
                        a->markdown_plain = optarg;
                        break;
                case OPT_MARKDOWN:
                        a->markdown = optarg;
                        break;
                case OPT_JSON:
                        a->json = optarg;
                        break;
                case OPT_JUNIT:
                        a->junit = optarg;
                        break;
                case OPT_OPENMETRICS:
                        a->openmetrics = optarg;
                        break;
                case OPT_FLAMEDIR:
                        a->flamedir = optarg;
                        break;
                case OPT_LINKBASE:
                        a->link_base = optarg;
                        break;
                case OPT_HISTORY_URL:
                        a->history_url = optarg;
                        break;
                case OPT_CONFIG:
                        a->config = optarg;
                        break;
                case OPT_CONFIRM:
                        if (optarg && strcmp(optarg, "all") != 0)
                                return pg_cli_usage_error("compare",
                                                          "--confirm='%s': the only value is "
                                                          "'all'",
                                                          optarg);
                        a->confirm = true;
                        a->confirm_all = optarg != NULL;
                        break;
                case OPT_CALIBRATE:
                        a->calibrate = true;
                        break;
                case OPT_CONFIRM_BUDGET:
                        if (pg_confirm_parse_budget(optarg, &a->budget) < 0)
                                return pg_cli_usage_error("compare", "%s", pg_error_last());
                        break;
                case OPT_CONFIRM_CPUS: {
                        long v;
                        if (pg_parse_count(optarg, 1, PG_CONFIRM_CPUS_MAX, &v) < 0)
                                return pg_cli_usage_error("compare",
                                                          "--confirm-cpus '%s' is not a number "
                                                          "of CPUs (1 to 4096)",
                                                          optarg);
                        a->confirm_cpus = (size_t) v;
                        break;
                }
                case OPT_CONFIRM_FLOOR:
                case OPT_BUILD_TIMEOUT: {
                        char *end;
                        double v;
                        errno = 0;
                        v = strtod(optarg, &end);
                        if (c == OPT_CONFIRM_FLOOR && *end == '%')
                                end++;
                        if (errno || end == optarg || *end || !(v > 0) || v > 1e6)
                                return pg_cli_usage_error(
                                    "compare", "%s '%s' is not a positive number%s",
                                    c == OPT_CONFIRM_FLOOR ? "--confirm-floor" : "--build-timeout",
                                    optarg, c == OPT_CONFIRM_FLOOR ? " (percent)" : " of seconds");
                        if (c == OPT_CONFIRM_FLOOR)
                                a->floor = v / 100.0;
                        else
                                a->build_timeout_sec = v;
                        break;
                }
                case ':':
                        return pg_cli_usage_error("compare", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("compare", "unknown option '%s'",
                                                  argv[optind - 1]);
                }
        }
        if (optind < argc)
                a->base = argv[optind++];
        if (optind < argc)
                return pg_cli_usage_error("compare", "unexpected argument '%s' (one BASE at most)",
                                          argv[optind]);
        if (a->link_base && !a->flamedir)
                return pg_cli_usage_error("compare", "--link-base needs --flamegraph-dir (the "
                                                     "files it links to)");
        if (a->markdown_plain && a->markdown && pg_same_file(a->markdown, a->markdown_plain))
                return pg_cli_usage_error("compare",
                                          "'--markdown' and '--markdown-plain' name "
                                          "the same file '%s'",
                                          a->markdown_plain);
        if (a->markdown_plain && (!a->markdown || !a->link_base))
                return pg_cli_usage_error("compare", "--markdown-plain needs --markdown and "
                                                     "--link-base (it is --markdown's report "
                                                     "without the links)");
        if (a->calibrate && (a->confirm || a->base || a->nresults > 1))
                return pg_cli_usage_error("compare", "--calibrate takes no BASE, no --confirm "
                                                     "and one --results directory");
        if (!a->nresults)
                a->results[a->nresults++] = ".perfgate/results";
        return 0;
}

static int pg_is_file(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Move every result of @from into @to (sharded runs: one benchmark once). */
static int pg_merge_sets(struct pg_result_set *to, struct pg_result_set *from, const char *origin)
{
        int error = 0;

        for (size_t i = 0; i < from->n; i++) {
                char *name = pg_xstrdup(from->items[i].name);
                if (pg_result_set_add(to, &from->items[i]) < 0) {
                        error = pg_error_set(PG_EINPUT,
                                             "benchmark '%s' appears in more than one results "
                                             "directory ('%s' and another); give each shard its "
                                             "own benchmarks",
                                             name, origin);
                        free(name);
                        return error;
                }
                free(name);
        }
        return 0;
}

/* Warn when the results of @head were measured at more than one commit
 * (or one commit both clean and dirty): they are not one run's, e.g. the
 * results a run into a reused --out did not remeasure, or shards of
 * different pushes. Results without git information are not counted. */
static void pg_warn_mixed_commits(const struct pg_result_set *head)
{
        struct pg_buf b = PG_BUF_INIT;
        size_t kinds = 0;

        for (size_t i = 0; i < head->n; i++) {
                const struct pg_result *r = &head->items[i];
                size_t same = 0;
                bool seen = false;
                if (!r->has_git || !r->git_commit)
                        continue;
                for (size_t j = 0; j < head->n && !seen; j++) {
                        const struct pg_result *q = &head->items[j];
                        if (!q->has_git || !q->git_commit ||
                            strcmp(q->git_commit, r->git_commit) != 0 ||
                            q->git_dirty != r->git_dirty)
                                continue;
                        if (j < i)
                                seen = true; /* counted at its first result */
                        else
                                same++;
                }
                if (seen)
                        continue;
                kinds++;
                pg_buf_printf(&b, "%s%zu from %.12s%s", b.len ? ", " : "", same, r->git_commit,
                              r->git_dirty ? " (dirty)" : "");
        }
        if (kinds > 1)
                pg_cli_warn("the head results come from %zu commits (%s): not all from one run? "
                            "run the benchmarks again into an empty --out",
                            kinds, b.ptr);
        pg_buf_release(&b);
}

/* A results directory or a single result file into @set. */
static int pg_load_path(struct pg_result_set *set, const char *path)
{
        struct pg_result_set tmp;
        int error;

        pg_result_set_init(&tmp);
        if (pg_is_dir(path)) {
                error = pg_result_set_load_dir(&tmp, path);
        } else {
                struct pg_result r;
                pg_result_init(&r);
                error = pg_result_load(&r, path);
                if (error == 0)
                        error = pg_result_set_add(&tmp, &r);
                pg_result_release(&r);
        }
        if (error == 0)
                error = pg_merge_sets(set, &tmp, path);
        pg_result_set_release(&tmp);
        return error;
}

static bool pg_looks_like_path(const char *s)
{
        size_t n = strlen(s);
        return s[0] == '/' || strncmp(s, "./", 2) == 0 || strncmp(s, "../", 3) == 0 ||
               strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || (n > 1 && s[n - 1] == '/') ||
               (n > 5 && strcmp(s + n - 5, ".json") == 0);
}

/* A report the user named: its error (pg_write_file_atomic()) names the
 * file once, and what became of it. */
static int pg_write_report(const char *path, const struct pg_buf *b)
{
        return pg_write_file_atomic(path, b->ptr, b->len);
}

/* The PR comment when there is nothing to compare yet (the first run), so a
 * CI step that posts the --markdown file always has one: a failed write is
 * an error (exit 4), as for any report, not a comment silently missing. */
static int pg_write_no_baseline_comment(const char *path, const char *rev, const char *machine,
                                        const char *others)
{
        struct pg_buf b = PG_BUF_INIT;
        int error;

        pg_report_markdown_no_baseline(&b, rev, machine, others);
        error = pg_write_report(path, &b);
        pg_buf_release(&b);
        return error;
}

/* The flame graph files of one benchmark, in the order they are drawn. */
enum pg_fg_view { PG_FG_DIFF, PG_FG_BASE, PG_FG_IMAGE, PG_FG_FOCUS, PG_FG_NVIEWS };

/* Width of the static images: the width of a PR/MR comment's text column, so
 * that their 12 px labels are shown at their size, not scaled down. */
#define PG_COMMENT_IMAGE_PX 880

/*
 * Differential flame graphs for benchmarks that regressed or whose hotspots
 * moved: <name>.diff.svg (interactive, head shape) and <name>.base.svg
 * (baseline shape); for regressions also <name>.image.svg, a static image
 * for the PR/MR comment, and <name>.focus.svg, the same rooted near the
 * culprit when it would be a sliver of the whole graph. The culprit's path is
 * outlined in red in all of them. Returns PG_EIO when the directory or a
 * file cannot be written and PG_EINPUT for a directory of another user (the
 * first such error stops); drawing errors (no samples) are warnings.
 */
static int pg_write_flamegraphs(struct pg_comparison *c, const char *dir, double noise_floor)
{
        static const char *const suffix[PG_FG_NVIEWS] = { "diff", "base", "image", "focus" };
        int error = 0;

        if ((error = pg_mkdir_own(dir)) < 0)
                return error;
        for (size_t i = 0; i < c->n; i++) {
                struct pg_bench_cmp *b = &c->benches[i];
                char **slot[PG_FG_NVIEWS] = { &b->flamegraph_diff, &b->flamegraph_base,
                                              &b->flamegraph_image, &b->flamegraph_focus };
                struct pg_buf svg = PG_BUF_INIT;
                struct pg_flame_tree *tree = NULL;
                const char *culprit;

                if (!b->base || !b->head || !b->base->profile.present || !b->head->profile.present)
                        continue;
                if (b->verdict != PG_VERDICT_REGRESSION && !pg_hotspots_changed(&b->hotspots))
                        continue;
                culprit = pg_hotspots_culprit(&b->hotspots);
                /* the views differ in drawing only: merge the stacks once */
                if ((error = pg_flame_tree_new(&tree, b->base->profile.stacks,
                                               b->base->profile.nstacks, b->head->profile.stacks,
                                               b->head->profile.nstacks, false)) < 0) {
                        pg_cli_warn("no flame graph for '%s': %s", b->name, pg_error_last());
                        continue;
                }
                for (int v = 0; v < PG_FG_NVIEWS; v++) {
                        struct pg_flame_opts fo;
                        char *title, *file, *path;

                        if (v >= PG_FG_IMAGE && b->verdict != PG_VERDICT_REGRESSION)
                                break;
                        if (v == PG_FG_FOCUS && !culprit)
                                break;
                        pg_flame_opts_init(&fo);
                        if (v == PG_FG_FOCUS)
                                title = pg_xasprintf("%s: focus on %s", b->name, culprit);
                        else if (v == PG_FG_BASE)
                                title = pg_xasprintf("%s: baseline shape (paths that vanished)",
                                                     b->name);
                        else
                                title = pg_xasprintf("%s: differential flame graph (head shape)",
                                                     b->name);
                        fo.title = title;
                        fo.base_name = c->base_label ? c->base_label : "base";
                        fo.head_name = "head";
                        fo.negate = v == PG_FG_BASE;
                        fo.highlight = culprit;
                        fo.image = v >= PG_FG_IMAGE;
                        fo.focus = v == PG_FG_FOCUS;
                        /* colour by own time, as the report's "own time" column:
                         * a share that fell only because another grew is white */
                        fo.base_time = b->hotspots.base_task_clock_ns;
                        fo.head_time = b->hotspots.head_task_clock_ns;
                        fo.noise_floor = noise_floor > 0 && noise_floor < 1 ? noise_floor : 0;
                        if (fo.image) { /* frames under 2 px are only noise in a picture */
                                fo.width_px = PG_COMMENT_IMAGE_PX;
                                fo.minwidth_px = 2.0;
                        }
                        pg_buf_reset(&svg);
                        error = pg_flamegraph_diff_svg_tree(&svg, tree, &fo);
                        free(title);
                        if (error < 0) {
                                pg_cli_warn("no flame graph for '%s': %s", b->name,
                                            pg_error_last());
                                break;
                        }
                        if (svg.len == 0) /* focus: the culprit is wide enough already */
                                continue;
                        file = pg_xasprintf("%s.%s.svg", b->name, suffix[v]);
                        path = pg_path_join(dir, file);
                        if ((error = pg_write_file_own(path, svg.ptr, svg.len)) < 0) {
                                free(file);
                                free(path);
                                pg_buf_release(&svg);
                                pg_flame_tree_free(tree);
                                return error;
                        } else {
                                *slot[v] = file;
                        }
                        free(path);
                        if (error < 0)
                                break;
                }
                pg_buf_release(&svg);
                pg_flame_tree_free(tree);
        }
        return 0;
}

/* Metric and benchmark names of the config against the loaded results. */
static int pg_check_rules(const struct pg_rules *rules, const struct pg_result_set *base,
                          const struct pg_result_set *head)
{
        char *warnings = NULL;
        int error = pg_rules_check(rules, base, head, &warnings);
        if (error == 0 && warnings) {
                char *line = warnings, *nl;
                for (; line; line = nl ? nl + 1 : NULL) {
                        nl = strchr(line, '\n');
                        if (nl)
                                *nl = '\0';
                        pg_cli_warn("%s", line);
                }
        }
        free(warnings);
        return error;
}

/* With @could_confirm (a "build" in perfgate.json, a revision as the base,
 * no --confirm), one line on stderr when there are regressions: the stored
 * baseline was measured in another job, whose drift on a shared runner can
 * look like one, and paired runs (--confirm) would tell. */
static void pg_hint_confirm(const struct pg_comparison *cmp, bool could_confirm)
{
        size_t n = 0;

        if (!could_confirm)
                return;
        for (size_t i = 0; i < cmp->n; i++)
                n += cmp->benches[i].verdict == PG_VERDICT_REGRESSION;
        if (n)
                fprintf(stderr,
                        "perfgate: %zu regression%s not confirmed: rerun with --confirm to take "
                        "paired runs (perfgate.json has a \"build\"; docs/compare.md)\n",
                        n, n == 1 ? "" : "s");
}

int cmd_compare(int argc, char **argv)
{
        struct pg_compare_args a;
        struct pg_rules rules;
        struct pg_result_set head, base;
        struct pg_store_lookup info;
        struct pg_comparison cmp;
        struct pg_report_opts ro;
        struct pg_buf out = PG_BUF_INIT, md = PG_BUF_INIT, js = PG_BUF_INIT, ju = PG_BUF_INIT,
                      om = PG_BUF_INIT, mdp = PG_BUF_INIT;
        char *cfg_base = NULL, *label = NULL, *build = NULL, *cfg_path = NULL;
        const char *rev;
        bool path_like, exists;
        int error = 0, status = PG_EXIT_OK, confirm_status = PG_EXIT_OK;

        if (pg_cli_wants_help(argc, argv, pg_usage_compare))
                return 0;
        /* two large results are loaded, scanned and drawn one pass after
         * the other: what one pass frees, the next reuses (common/buf.h) */
        pg_malloc_keep_freed();
        memset(&a, 0, sizeof(a));
        memset(&info, 0, sizeof(info));
        pg_rules_init(&rules);
        pg_result_set_init(&head);
        pg_result_set_init(&base);
        pg_comparison_init(&cmp);
        if ((status = pg_parse_args(&a, argc, argv)) != 0)
                goto out;
        if ((error = pg_cli_load_rules(a.config, &rules, &cfg_base, &build, &cfg_path)) < 0)
                goto fail;
        if ((a.confirm || a.calibrate) && !build) {
                error = pg_error_set(PG_EINPUT,
                                     "--%s needs a \"build\" command in perfgate.json (%s) "
                                     "to build the baseline's commit (docs/compare.md)",
                                     a.confirm ? "confirm" : "calibrate",
                                     cfg_path ? cfg_path : "none found");
                goto fail;
        }
        /* every report's path is checked (its missing directories made)
         * before any work and before any report is written: one that cannot
         * be written (a directory in the way, a parent that is a file) must
         * not leave the others behind as a verdict, nor come after minutes
         * of building and measuring */
        {
                const char *reports[] = { a.markdown, a.markdown_plain, a.json, a.junit,
                                          a.openmetrics };
                for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
                        if (reports[i] && pg_output_file_prepare(reports[i]) < 0) {
                                /* exit 4, as for a report that fails later
                                 * (docs/compare.md, EXIT STATUS) */
                                char *why = strdup(pg_error_last());
                                error = pg_error_set(PG_EIO, "%s (no report written)",
                                                     why ? why : "cannot write a report");
                                free(why);
                                goto fail;
                        }
                }
        }
        for (size_t i = 0; i < a.nresults; i++) {
                if (!pg_is_dir(a.results[i]) && !pg_is_file(a.results[i])) {
                        error = pg_error_set(PG_ENOTFOUND,
                                             "no results in '%s'; run 'perfgate run' first (or "
                                             "pass --results DIR)",
                                             a.results[i]);
                        goto fail;
                }
                if ((error = pg_load_path(&head, a.results[i])) < 0)
                        goto fail;
        }
        if (head.n == 0) {
                error = pg_error_set(PG_EINPUT, "no result files in '%s'; run 'perfgate run' first",
                                     a.results[0]);
                goto fail;
        }
        pg_warn_mixed_commits(&head);
        if (a.calibrate) {
                struct pg_repo_state rs;
                struct pg_confirm_cli cc = {
                        false, NULL,     build, cfg_path,       a.build_timeout_sec,
                        0,     a.budget, 0,     a.confirm_cpus, a.quiet
                };
                if (!pg_is_dir(a.results[0])) {
                        error = pg_error_set(PG_EINPUT,
                                             "--calibrate needs a results directory, "
                                             "not the file '%s'",
                                             a.results[0]);
                        goto fail;
                }
                if ((error = pg_repo_state_get(NULL, &rs)) < 0)
                        goto fail;
                if (!rs.head) {
                        pg_repo_state_release(&rs);
                        error = pg_error_set(PG_EINPUT, "HEAD has no commit yet; commit first");
                        goto fail;
                }
                cc.base_commit = rs.head;
                if (a.budget.seconds > 0)
                        cc.budget.pairs = 0;
                error = pg_confirm_calibrate(&head, a.results[0], &cc);
                pg_repo_state_release(&rs);
                if (error < 0)
                        goto fail;
                goto out;
        }
        rev = a.base ? a.base : cfg_base ? cfg_base : "main";
        /* BASE is a path when written as one (./main, /x, dir/, x.json); a
         * bare word is the git revision when it names one, even if a
         * directory has that name (a checkout's main/ source folder), and a
         * directory of results only otherwise */
        path_like = pg_looks_like_path(rev);
        exists = pg_is_dir(rev) || pg_is_file(rev);
        if (exists && !path_like && pg_store_is_revision(NULL, rev)) {
                fprintf(stderr,
                        "perfgate: '%s' is both a directory and a git revision: comparing with "
                        "the revision; write './%s' for the directory\n",
                        rev, rev);
                exists = false;
        }
        if (exists) {
                if ((error = pg_load_path(&base, rev)) < 0)
                        goto fail;
                if (base.n == 0 && !path_like) {
                        error = pg_error_set(PG_EINPUT,
                                             "no result files in '%s' (a directory, not a git "
                                             "revision); name a results directory, as './%s' "
                                             "when it is meant to be empty, or a revision",
                                             rev, rev);
                        goto fail;
                }
                label = pg_xstrdup(rev);
        } else if (path_like) {
                error = pg_error_set(PG_ENOTFOUND,
                                     "baseline '%s' does not exist; create it with 'perfgate run "
                                     "--out DIR' on the base commit, or name a git revision",
                                     rev);
                goto fail;
        } else {
                struct pg_store_opts so = { NULL, a.branch, a.machine };
                if (!so.machine)
                        so.machine = head.items[0].machine ? head.items[0].machine : "default";
                if ((error = pg_store_find_baseline(&so, rev, a.max_walk, &base, &info)) < 0)
                        goto fail;
                pg_cli_warn_lines(info.warnings);
                if (!info.found) {
                        if ((error = pg_check_rules(&rules, NULL, &head)) < 0)
                                goto fail;
                        const char *comments[2] = { a.markdown, a.markdown_plain };
                        for (int k = 0; k < 2 && !a.require_baseline; k++)
                                if (comments[k] &&
                                    (error = pg_write_no_baseline_comment(
                                         comments[k], rev, so.machine, info.other_machines)) < 0)
                                        goto fail;
                        if (!info.source_ref) {
                                /* no data branch at all: before the first baseline
                                 * save, or a wrong --branch, or not fetched */
                                const char *db = a.branch ? a.branch : PG_STORE_DEFAULT_BRANCH;
                                fprintf(a.require_baseline ? stderr : stdout,
                                        "perfgate: %sno baseline for '%s': the baseline branch "
                                        "'%s' does not exist (neither a local branch nor "
                                        "origin/%s); nothing to compare. %s it with 'git "
                                        "fetch origin %s:%s', or record the first baseline with "
                                        "'perfgate baseline save%s%s' on %s.\n",
                                        a.require_baseline ? "error: " : "", rev, db, db,
                                        a.branch ? "Check the name given to --branch, or fetch"
                                                 : "Fetch",
                                        db, db, a.branch ? " --branch " : "", a.branch ? db : "",
                                        rev);
                        } else if (info.other_machines) {
                                /* docs/baseline.md, "How compare finds a baseline" */
                                fprintf(a.require_baseline ? stderr : stdout,
                                        "perfgate: %sno baseline for '%s' on machine '%s' "
                                        "(searched %u commits from the merge-base); nothing to "
                                        "compare. Baselines there exist for machine(s) %s: pass "
                                        "--machine NAME, or give the baseline job and this job "
                                        "the same machine name (the CI's machine input).\n",
                                        a.require_baseline ? "error: " : "", rev, so.machine,
                                        a.max_walk, info.other_machines);
                        } else {
                                fprintf(a.require_baseline ? stderr : stdout,
                                        "perfgate: %sno baseline for '%s' on machine '%s' "
                                        "(searched %u commits from the merge-base); nothing to "
                                        "compare. Record one with 'perfgate baseline save' on "
                                        "%s.\n",
                                        a.require_baseline ? "error: " : "", rev, so.machine,
                                        a.max_walk, rev);
                        }
                        status = a.require_baseline ? PG_EXIT_USAGE : PG_EXIT_OK;
                        goto out;
                }
                label = pg_xasprintf("%s @ %.12s%s", rev, info.used_commit ? info.used_commit : "?",
                                     info.distance ? " (nearest ancestor with a baseline)" : "");
                if (info.distance)
                        fprintf(stderr,
                                "perfgate: using the baseline of %.12s, %u first-parent commits "
                                "before the merge-base %.12s\n",
                                info.used_commit ? info.used_commit : "?", info.distance,
                                info.merge_base ? info.merge_base : "?");
        }
        if ((error = pg_check_rules(&rules, &base, &head)) < 0)
                goto fail;
        if (base.n == 0) {
                fprintf(a.require_baseline ? stderr : stdout,
                        "perfgate: %sno baseline results in '%s'; nothing to compare.\n",
                        a.require_baseline ? "error: " : "", rev);
                status = a.require_baseline ? PG_EXIT_USAGE : PG_EXIT_OK;
                goto out;
        }

        pg_compare_sets(&base, &head, &rules, &cmp);
        if (a.confirm) {
                struct pg_confirm_cli cc = {
                        a.confirm_all, info.used_commit, build, cfg_path,       a.build_timeout_sec,
                        a.floor,       a.budget,         0,     a.confirm_cpus, a.quiet
                };
                if (!info.used_commit) {
                        error = pg_error_set(PG_EINPUT,
                                             "--confirm needs BASE to be a git revision (the "
                                             "commit to build), not the results path '%s'",
                                             rev);
                        goto fail;
                }
                if ((error = pg_confirm_run(&cmp, &cc)) < 0) {
                        if (error == PG_EINTR)
                                goto fail;
                        fprintf(stderr, "perfgate: error: %s\n", pg_error_last());
                        confirm_status = pg_exit_status(error);
                        /* the reports carry it: none reads "no regression" with
                         * exit status 0 while perfgate exits 2 or 3 */
                        cmp.failed_status = confirm_status;
                        cmp.failed = pg_xstrdup(pg_error_last());
                }
        }
        cmp.strict = a.strict;
        cmp.base_label = label;
        label = NULL;
        memset(&ro, 0, sizeof(ro));
        ro.link_base = a.link_base;
        ro.history_url = a.history_url;
        ro.flamegraph_dir = a.flamedir;
        ro.color = pg_cli_color(STDOUT_FILENO);
        /* frames that moved by less than half the hotspot threshold are
         * white: the report calls no such change, and a pale blue for a
         * function nobody touched reads as "got faster" */
        if (a.flamedir &&
            (error = pg_write_flamegraphs(&cmp, a.flamedir, rules.hotspots.threshold_pp / 200)) < 0)
                goto fail;
        /* every report is built before any is written: one that cannot be
         * built leaves none behind */
        if (a.markdown)
                pg_report_markdown(&md, &cmp, &ro);
        if (a.markdown_plain) { /* the same comparison, without the links */
                struct pg_report_opts plain = ro;
                plain.link_base = NULL;
                pg_report_markdown(&mdp, &cmp, &plain);
        }
        if (a.json && (error = pg_report_json(&js, &cmp, &ro)) < 0)
                goto fail;
        if (a.junit)
                pg_report_junit(&ju, &cmp, &ro);
        if (a.openmetrics)
                pg_report_openmetrics(&om, &cmp, &ro);
        if ((a.markdown && (error = pg_write_report(a.markdown, &md)) < 0) ||
            (a.markdown_plain && (error = pg_write_report(a.markdown_plain, &mdp)) < 0) ||
            (a.json && (error = pg_write_report(a.json, &js)) < 0) ||
            (a.junit && (error = pg_write_report(a.junit, &ju)) < 0) ||
            (a.openmetrics && (error = pg_write_report(a.openmetrics, &om)) < 0))
                goto fail;
        pg_buf_reset(&out);
        pg_report_text(&out, &cmp, &ro);
        fwrite(out.ptr, 1, out.len, stdout);
        if (fflush(stdout) != 0) {
                error =
                    pg_error_set(PG_EIO, "cannot write the report to stdout: %s", strerror(errno));
                goto fail;
        }
        pg_hint_confirm(&cmp, !a.confirm && build && info.used_commit);
        if (status == PG_EXIT_OK)
                status =
                    confirm_status != PG_EXIT_OK ? confirm_status : pg_comparison_exit_status(&cmp);
        goto out;
fail:
        status = pg_cli_fail(error);
out:
        pg_buf_release(&out);
        pg_buf_release(&md);
        pg_buf_release(&mdp);
        pg_buf_release(&js);
        pg_buf_release(&ju);
        pg_buf_release(&om);
        pg_comparison_release(&cmp);
        pg_result_set_release(&head);
        pg_result_set_release(&base);
        pg_store_lookup_release(&info);
        pg_rules_release(&rules);
        free(cfg_base);
        free(build);
        free(cfg_path);
        free(label);
        free(a.results);
        return status;
}
