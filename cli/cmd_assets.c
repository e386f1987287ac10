/*
 * cmd_assets.c - `perfgate assets publish|prune`: commit the flame graph
 * files of a PR/MR comment to a data branch of the project's own repository
 * (default "perfgate-assets"), so the comment can show them as images from a
 * URL pinned to that commit, and remove a pull request's files when it
 * closes. baselines/store.h does the git work (the same commit machinery as
 * `baseline save`: no checkout, compare-and-swap ref update); this file
 * parses options and prints.
 *
 * stdout is for scripts: `publish` prints exactly "commit <hex>" then
 * "squashed yes|no"; everything else goes to stderr.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/store.h"
#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_assets[] =
    "usage: perfgate assets publish DIR --path PATH [--branch NAME] [--max-history N]\n"
    "       perfgate assets prune --path PATH [--branch NAME] [--max-history N]\n"
    "\n"
    "Files shown in PR/MR comments (flame graph images), kept on a data-only\n"
    "branch of this repository (default '" PG_ASSETS_DEFAULT_BRANCH "').\n"
    "\n"
    "publish  commit every regular file directly in DIR as PATH/<name>, in one\n"
    "         new commit; the work tree, the index and HEAD are not touched.\n"
    "         Builds on origin/<branch> when that is ahead or the local branch\n"
    "         diverged, retries when another writer moves the branch meanwhile.\n"
    "         Prints 'commit <hex>' and 'squashed yes|no' on stdout.\n"
    "prune    remove PATH (a file or a directory, e.g. pr-12) in one commit;\n"
    "         nothing to remove is not an error (prints 'commit none').\n"
    "\n"
    "options:\n"
    "  --path PATH        where on the branch: components of letters, digits,\n"
    "                     '.', '_' and '-' separated by '/' (e.g. pr-12/1a2b3c)\n"
    "  --branch NAME      assets branch (default " PG_ASSETS_DEFAULT_BRANCH ")\n"
    "  --max-history N    when the branch already has N commits, make the new\n"
    "                     commit a root commit holding the whole tree (squash),\n"
    "                     so the history stays bounded; publishing it then needs\n"
    "                     git push --force-with-lease (default 0: never)\n"
    "\n"
    "exit status: 0 done; 2 bad input (bad path or branch name, no files in DIR,\n"
    "not a git repository); 4 internal or I/O error\n";

enum { OPT_PATH = 256, OPT_BRANCH, OPT_MAX_HISTORY };

static const struct option pg_assets_longopts[] = {
        { "path", required_argument, NULL, OPT_PATH },
        { "branch", required_argument, NULL, OPT_BRANCH },
        { "max-history", required_argument, NULL, OPT_MAX_HISTORY },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

int cmd_assets(int argc, char **argv)
{
        struct pg_assets_opts o = { NULL, NULL, 0 };
        struct pg_assets_info info;
        const char *sub, *path = NULL;
        bool publish;
        int c, error;

        if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
                if (argc < 2)
                        return pg_cli_usage_error("assets", "missing subcommand: publish or prune");
                fputs(pg_usage_assets, stdout);
                return 0;
        }
        sub = argv[1];
        publish = strcmp(sub, "publish") == 0;
        if (!publish && strcmp(sub, "prune") != 0)
                return pg_cli_usage_error("assets", "unknown subcommand '%s'; use publish or prune",
                                          sub);
        argc--;
        argv++;
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", pg_assets_longopts, NULL)) != -1) {
                switch (c) {
                case OPT_PATH:
                        path = optarg;
                        break;
                case OPT_BRANCH:
                        o.branch = optarg;
                        break;
                case OPT_MAX_HISTORY: {
                        char *end;
                        unsigned long long v = strtoull(optarg, &end, 10);
                        if (!*optarg || *end || optarg[0] == '-' || v > 1000000)
                                return pg_cli_usage_error("assets",
                                                          "'--max-history' must be a number of "
                                                          "commits from 0 to 1000000, not '%s'",
                                                          optarg);
                        o.max_history = (size_t) v;
                        break;
                }
                case 'h':
                        fputs(pg_usage_assets, stdout);
                        return 0;
                case ':':
                        return pg_cli_usage_error("assets", "option '%s' needs a value",
                                                  argv[optind - 1]);
                default:
                        return pg_cli_usage_error("assets", "unknown option '%s'",
                                                  argv[optind - 1]);
                }
        }
        if (!path)
                return pg_cli_usage_error("assets", "'assets %s' needs --path PATH", sub);
        if (publish && argc - optind != 1)
                return pg_cli_usage_error("assets", "'assets publish' takes one directory");
        if (!publish && argc - optind != 0)
                return pg_cli_usage_error("assets", "'assets prune' takes no argument ('%s')",
                                          argv[optind]);
        error = publish ? pg_assets_publish(&o, argv[optind], path, &info)
                        : pg_assets_prune(&o, path, &info);
        if (error < 0)
                return pg_cli_fail(error);
        const char *branch = o.branch ? o.branch : PG_ASSETS_DEFAULT_BRANCH;
        if (publish)
                fprintf(stderr, "perfgate: published %zu file%s as %s/ on '%s'%s%s%s\n", info.files,
                        info.files == 1 ? "" : "s", path, branch,
                        info.created_branch ? " (created the branch)" : "",
                        info.squashed ? " (history squashed: a root commit)" : "",
                        info.retries ? " (retried: another writer moved the branch)" : "");
        else if (info.commit)
                fprintf(stderr, "perfgate: removed %s from '%s'%s\n", path, branch,
                        info.squashed ? " (history squashed: a root commit)" : "");
        else
                fprintf(stderr, "perfgate: nothing to remove: '%s' has no %s\n", branch, path);
        printf("commit %s\nsquashed %s\n", info.commit ? info.commit : "none",
               info.squashed ? "yes" : "no");
        pg_assets_info_release(&info);
        if (fflush(stdout) != 0)
                return pg_cli_fail(pg_error_set(PG_EIO, "cannot write to stdout"));
        return 0;
}
