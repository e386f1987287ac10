/*
 * cmd_baseline.c - `perfgate baseline save|list|show`: record the results of
 * a run as the baseline of HEAD on the data branch, and inspect what the
 * data branch holds (baselines/store.h does the git work; this file only
 * parses options and prints).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baselines/result.h"
#include "baselines/store.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/width.h"

const char pg_usage_baseline[] =
    "usage: perfgate baseline save [--results DIR] [--machine NAME] [--branch NAME] [--force]\n"
    "       perfgate baseline list [--branch NAME] [--machine NAME]\n"
    "       perfgate baseline show REV [--machine NAME] [--benchmark NAME] [--branch NAME]\n"
    "\n"
    "Baselines live in this git repository on a data-only branch (default\n"
    "'" PG_STORE_DEFAULT_BRANCH "'), as <machine>/<commit>/<benchmark>.json.\n"
    "\n"
    "save   record the results in DIR (default .perfgate/results) as the baseline\n"
    "       of the HEAD commit, in one new commit on the data branch. The work\n"
    "       tree, the index and HEAD are not touched. Creates the branch when it\n"
    "       does not exist, builds on origin/<branch> when that is ahead, and\n"
    "       retries when another save moves the branch at the same time. Saving\n"
    "       again for the same commit and machine replaces those files.\n"
    "       Prints the commit made and the `git push` that publishes it.\n"
    "list   every commit x machine x benchmark on the data branch, newest first\n"
    "show   print the baseline stored for exactly commit REV (a revision, or a\n"
    "       hex prefix of a stored commit), like `perfgate show`\n"
    "\n"
    "options:\n"
    "  --results DIR     results directory to save (default .perfgate/results)\n"
    "  --machine NAME    machine the baseline is filed under (save: the results'\n"
    "                    own 'machine', else 'default'; show: 'default')\n"
    "  --branch NAME     data branch (default " PG_STORE_DEFAULT_BRANCH ")\n"
    "  --force           save results measured at another commit or on a dirty\n"
    "                    work tree anyway\n"
    "  --benchmark NAME  show only this benchmark\n"
    "\n"
    "exit status: 0 done; 2 bad input (no results, not a git repository, unknown\n"
    "revision, results not from a clean HEAD without --force, corrupt or newer\n"
    "baseline, no baseline for REV); 4 internal or I/O error\n";

enum { OPT_RESULTS = 256, OPT_MACHINE, OPT_BRANCH, OPT_FORCE, OPT_BENCHMARK };

static const struct option pg_baseline_longopts[] = {
        { "results", required_argument, NULL, OPT_RESULTS },
        { "machine", required_argument, NULL, OPT_MACHINE },
        { "branch", required_argument, NULL, OPT_BRANCH },
        { "force", no_argument, NULL, OPT_FORCE },
        { "benchmark", required_argument, NULL, OPT_BENCHMARK },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

struct pg_baseline_args {
        const char *sub;
        const char *results;
        const char *benchmark;
        bool force;
        struct pg_store_opts store;
        int nargs;
        char **args;
};

/* Parse the options of `baseline <sub>`; returns -1 on success, else the
 * exit status to return. Options are accepted only by the subcommands that
 * use them. */
static int pg_baseline_parse(int argc, char **argv, struct pg_baseline_args *a)
{
        int c;

        optind = 0; /* glibc: full re-initialisation */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", pg_baseline_longopts, NULL)) != -1) {
                bool ok = true;
                switch (c) {
                case OPT_RESULTS:
                        a->results = optarg;
                        ok = strcmp(a->sub, "save") == 0;
                        break;
                case OPT_MACHINE:
                        a->store.machine = optarg;
                        break;
                case OPT_BRANCH:
                        a->store.branch = optarg;
                        break;
                case OPT_FORCE:
                        a->force = true;
                        ok = strcmp(a->sub, "save") == 0;
                        break;
                case OPT_BENCHMARK:
                        a->benchmark = optarg;
                        ok = strcmp(a->sub, "show") == 0;
                        break;
                case 'h':
                        fputs(pg_usage_baseline, stdout);
                        return 0;
                case ':':
                        return pg_cli_usage_error("baseline", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("baseline", "unknown option '%s'",
                                                  argv[optind - 1]);
                }
                if (!ok)
                        return pg_cli_usage_error("baseline",
                                                  "'baseline %s' does not take option '%s'", a->sub,
                                                  argv[optind - 1]);
        }
        a->args = argv + optind;
        a->nargs = argc - optind;
        return -1;
}

static int pg_baseline_save(struct pg_baseline_args *a)
{
        const char *dir = a->results ? a->results : ".perfgate/results";
        struct pg_result_set set;
        struct pg_store_save_info info;
        int error, status = 0;

        if (a->nargs > 0)
                return pg_cli_usage_error("baseline", "'baseline save' takes no argument ('%s')",
                                          a->args[0]);
        pg_result_set_init(&set);
        if ((error = pg_result_set_load_dir(&set, dir)) < 0) {
                if (error == PG_ENOTFOUND)
                        pg_error_prefix(error,
                                        "no results to save (run `perfgate run --out %s` "
                                        "first, or pass --results DIR)",
                                        dir);
                status = pg_cli_fail(error);
                goto done;
        }
        if (set.n == 0) {
                pg_error_set(PG_EINPUT,
                             "no results in '%s'; run `perfgate run --out %s` first, or pass "
                             "--results DIR",
                             dir, dir);
                status = pg_cli_fail(PG_EINPUT);
                goto done;
        }
        if ((error = pg_store_save(&a->store, &set, a->force, &info)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        if (info.created_branch)
                /* a shallow or single-branch clone has no origin/<branch> even
                 * when the remote has one: say how to build on it */
                printf("created branch '%s' (an orphan branch holding only baselines); if the "
                       "remote already has one, fetch it with `git fetch origin "
                       "+refs/heads/%s:refs/remotes/origin/%s` and save again\n",
                       info.branch, info.branch, info.branch);
        else if (info.merged_local)
                printf("built on origin/%s and merged the local baselines it lacked\n",
                       info.branch);
        else if (info.from_remote && info.no_local)
                printf("built on origin/%s (there was no local branch; it is created now)\n",
                       info.branch);
        else if (info.from_remote)
                printf("built on origin/%s, which was ahead of the local branch\n", info.branch);
        printf("saved %zu baseline%s for commit %s on machine '%s'\n", info.saved,
               info.saved == 1 ? "" : "s", info.head, info.machine);
        if (info.replaced)
                printf("replaced %zu baseline%s already saved for this commit and machine\n",
                       info.nreplaced, info.nreplaced == 1 ? "" : "s");
        if (info.retries)
                printf("retried %u time%s: another save moved the branch meanwhile\n", info.retries,
                       info.retries == 1 ? "" : "s");
        printf("commit %s on branch '%s'\n", info.commit, info.branch);
        printf("publish it with: git push origin %s\n", info.branch);
        pg_store_save_info_release(&info);
done:
        pg_result_set_release(&set);
        return status;
}

/* Bytes of a data-branch name and of a commit subject shown by 'list' (a
 * name perfgate writes is at most 200 bytes; git shows subjects whole, but
 * one line of megabytes helps nobody). */
#define PG_BASELINE_NAME_SHOWN    256
#define PG_BASELINE_SUBJECT_SHOWN 200

static int pg_baseline_list(struct pg_baseline_args *a)
{
        const char *branch = a->store.branch ? a->store.branch : PG_STORE_DEFAULT_BRANCH;
        struct pg_store_list l;
        int error;

        if (a->nargs > 0)
                return pg_cli_usage_error("baseline", "'baseline list' takes no argument ('%s')",
                                          a->args[0]);
        if ((error = pg_store_list_load(&a->store, &l)) < 0)
                return pg_cli_fail(error);
        if (!l.source_ref) {
                printf("no branch '%s' (nor origin/%s): no baselines saved yet; record some with "
                       "`perfgate baseline save`, or fetch them with `git fetch origin "
                       "+refs/heads/%s:refs/remotes/origin/%s`\n",
                       branch, branch, branch, branch);
        } else if (l.n == 0) {
                printf("no baselines on '%s'%s%s%s\n", l.source_ref,
                       a->store.machine ? " for machine '" : "",
                       a->store.machine ? a->store.machine : "", a->store.machine ? "'" : "");
        } else {
                printf("# %s at %.12s: %zu baseline%s, newest first\n", l.source_ref, l.tip, l.n,
                       l.n == 1 ? "" : "s");
                for (size_t i = 0; i < l.n; i++) {
                        const struct pg_store_entry *e = &l.items[i];
                        char when[32] = "unknown date";
                        if (e->summary) {
                                time_t t = (time_t) e->time_s;
                                struct tm tm;
                                gmtime_r(&t, &tm);
                                strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
                        }
                        /* every name here comes from the data branch (any pusher) and
                         * the subject from a commit message: shown escaped, the
                         * subject cut to one terminal-sized line */
                        struct pg_buf line = PG_BUF_INIT, machine = PG_BUF_INIT;
                        pg_cli_text(&line, e->commit, PG_BASELINE_NAME_SHOWN);
                        pg_cli_text(&machine, e->machine, PG_BASELINE_NAME_SHOWN);
                        pg_buf_printf(&line, "  %-16s  ", when);
                        pg_buf_pad(&line, machine.ptr, 12);
                        pg_buf_putc(&line, ' ');
                        for (size_t j = 0; j < e->nbenchmarks; j++) {
                                pg_buf_puts(&line, j ? "," : " ");
                                pg_cli_text(&line, e->benchmarks[j], PG_BASELINE_NAME_SHOWN);
                        }
                        pg_buf_puts(&line, "  # ");
                        if (e->summary)
                                pg_cli_text(&line, e->summary, PG_BASELINE_SUBJECT_SHOWN);
                        else
                                pg_buf_puts(&line, "(commit not in this clone)");
                        puts(line.ptr);
                        pg_buf_release(&line);
                        pg_buf_release(&machine);
                }
        }
        pg_store_list_release(&l);
        return 0;
}

/* The machines that have a baseline for @commit, quoted and comma-separated
 * (free() it), or NULL when none does. */
static char *pg_baseline_machines_of(const struct pg_store_opts *o, const char *commit)
{
        struct pg_store_opts all = *o;
        struct pg_store_list l;
        struct pg_buf b = PG_BUF_INIT;

        all.machine = NULL;
        if (pg_store_list_load(&all, &l) < 0)
                return NULL;
        for (size_t i = 0; i < l.n; i++)
                if (strcmp(l.items[i].commit, commit) == 0)
                        pg_buf_printf(&b, "%s'%s'", b.len ? ", " : "", l.items[i].machine);
        pg_store_list_release(&l);
        if (b.len == 0)
                return NULL;
        return pg_buf_detach(&b, NULL);
}

static int pg_baseline_show(struct pg_baseline_args *a)
{
        const char *machine = a->store.machine ? a->store.machine : "default";
        const char *branch = a->store.branch ? a->store.branch : PG_STORE_DEFAULT_BRANCH;
        struct pg_result_set set;
        struct pg_store_lookup info;
        bool color = pg_cli_color(1);
        size_t shown = 0;
        int error, status = 0;

        if (a->nargs != 1)
                return pg_cli_usage_error("baseline", "'baseline show' takes one revision");
        pg_result_set_init(&set);
        if ((error = pg_store_load_commit(&a->store, a->args[0], &set, &info)) < 0) {
                status = pg_cli_fail(error);
                goto done;
        }
        pg_cli_warn_lines(info.warnings);
        if (!info.source_ref) {
                pg_error_set(PG_ENOTFOUND,
                             "no branch '%s' (nor origin/%s): no baselines saved yet; fetch them "
                             "with `git fetch origin +refs/heads/%s:refs/remotes/origin/%s`",
                             branch, branch, branch, branch);
                status = pg_cli_fail(PG_ENOTFOUND);
        } else if (!info.found) {
                char *others = pg_baseline_machines_of(&a->store, info.base_commit);
                if (others)
                        pg_error_set(PG_ENOTFOUND,
                                     "no baseline for '%s' (%.12s) on machine '%s' in '%s'; it "
                                     "has baselines for machine %s (pass --machine)",
                                     a->args[0], info.base_commit, machine, info.source_ref,
                                     others);
                else
                        pg_error_set(PG_ENOTFOUND,
                                     "no baseline for '%s' (%.12s) on machine '%s' in '%s'; "
                                     "`perfgate baseline list` shows what is stored",
                                     a->args[0], info.base_commit, machine, info.source_ref);
                free(others);
                status = pg_cli_fail(PG_ENOTFOUND);
        } else {
                for (size_t i = 0; i < set.n; i++) {
                        const struct pg_result *r = &set.items[i];
                        if (a->benchmark && strcmp(a->benchmark, r->name) != 0)
                                continue;
                        printf("%s# %s:%s/%s/%s.json\n", shown ? "\n" : "", info.source_ref,
                               machine, info.used_commit, r->name);
                        pg_cli_print_result(stdout, r, color);
                        shown++;
                }
                if (a->benchmark && shown == 0) {
                        pg_error_set(PG_ENOTFOUND,
                                     "no benchmark '%s' in the baseline of %.12s on machine "
                                     "'%s'; `perfgate baseline list` shows what is stored",
                                     a->benchmark, info.used_commit, machine);
                        status = pg_cli_fail(PG_ENOTFOUND);
                }
        }
        pg_store_lookup_release(&info);
done:
        pg_result_set_release(&set);
        return status;
}

int cmd_baseline(int argc, char **argv)
{
        struct pg_baseline_args a;
        int status;

        memset(&a, 0, sizeof(a));
        if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
                if (argc < 2)
                        return pg_cli_usage_error("baseline",
                                                  "missing subcommand: save, list or show");
                fputs(pg_usage_baseline, stdout);
                return 0;
        }
        a.sub = argv[1];
        if (strcmp(a.sub, "save") != 0 && strcmp(a.sub, "list") != 0 && strcmp(a.sub, "show") != 0)
                return pg_cli_usage_error("baseline",
                                          "unknown subcommand '%s'; use save, list or show", a.sub);
        if ((status = pg_baseline_parse(argc - 1, argv + 1, &a)) >= 0)
                return status;
        if (strcmp(a.sub, "save") == 0)
                return pg_baseline_save(&a);
        if (strcmp(a.sub, "list") == 0)
                return pg_baseline_list(&a);
        return pg_baseline_show(&a);
}
