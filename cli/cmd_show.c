/*
 * cmd_show.c - `perfgate show [--stacks] RESULT...`: print result files (or
 * every result in a results directory) as a perf stat -d -d-like counter
 * table and a perf report --children-like hotspot list
 * (pg_cli_print_result()), or with --stacks only their folded stacks, one
 * "frames count" line each, ready for flamegraph.pl or `perfgate flamegraph`.
 *
 * Every input is loaded and validated before anything is printed, so a bad
 * file never leaves half an output behind. Exit: 0, or 2 when an input is
 * missing, not a valid result (corrupt JSON is reported with line and
 * column), or --stacks is asked of a result without a profile; 4 on I/O
 * errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "baselines/result.h"
#include "cli/cli.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/report.h"

const char pg_usage_show[] =
    "usage: perfgate show [--stacks] RESULT...\n"
    "\n"
    "Print perfgate results (RESULT: a result file written by 'perfgate run',\n"
    "or a directory of them such as .perfgate/results) as a perf stat -d -d\n"
    "style counter table followed, when the result has a profile, by a perf\n"
    "report --children style list of the hottest functions.\n"
    "\n"
    "Figures are medians over the measured repetitions; ( +- x% ) is the\n"
    "relative median absolute deviation; (63.2%) is the share of the run the\n"
    "counter was scheduled when counters were multiplexed. Counters this host\n"
    "cannot count read <not supported>, <not counted> or <kernel only>.\n"
    "Hotspots: Children is the share of samples whose stack contains the\n"
    "function, Self the share where it is the function executing (perf's Self:\n"
    "code inlined into a function, _[i] frames, counts for that function);\n"
    "under each function, its hottest call path.\n"
    "\n"
    "options:\n"
    "  --stacks    print only the folded stacks (\"frame;frame;... count\")\n"
    "  -h, --help  show this help\n"
    "\n"
    "exit status: 0 printed; 2 missing or invalid result file, or --stacks on a\n"
    "result without a profile; 4 I/O error\n"
    "\n"
    "examples:\n"
    "  perfgate show .perfgate/results/wordfreq.json\n"
    "  perfgate show .perfgate/results\n"
    "  perfgate show --stacks .perfgate/results/wordfreq.json > wordfreq.folded\n";

/* Load @path (a result file or a directory of them) into @set. */
static int pg_show_load(struct pg_result_set *set, const char *path)
{
        struct pg_result r;
        int error;

        if (pg_is_dir(path)) {
                struct pg_result_set dir;
                size_t before = set->n;

                pg_result_set_init(&dir);
                error = pg_result_set_load_dir(&dir, path);
                for (size_t i = 0; !error && i < dir.n; i++)
                        error = pg_result_set_add(set, &dir.items[i]);
                pg_result_set_release(&dir);
                if (!error && set->n == before)
                        error = pg_error_set(PG_ENOTFOUND,
                                             "no result files (*.json) in '%s'; run 'perfgate "
                                             "run' first",
                                             path);
                return error;
        }
        pg_result_init(&r);
        if ((error = pg_result_load(&r, path)) < 0)
                return error;
        error = pg_result_set_add(set, &r);
        pg_result_release(&r);
        return error;
}

int cmd_show(int argc, char **argv)
{
        static const struct option opts[] = { { "stacks", no_argument, NULL, 's' },
                                              { "help", no_argument, NULL, 'h' },
                                              { NULL, 0, NULL, 0 } };
        struct pg_result_set set;
        bool stacks = false, color;
        int opt, error = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_show))
                return 0;
        opterr = 0;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
                switch (opt) {
                case 's':
                        stacks = true;
                        break;
                default:
                        return pg_cli_usage_error("show", "unknown option '%s'", argv[optind - 1]);
                }
        }
        if (optind >= argc)
                return pg_cli_usage_error("show", "name a result file to show, e.g. "
                                                  "'perfgate show .perfgate/results/NAME.json'");

        pg_result_set_init(&set);
        for (int i = optind; i < argc; i++)
                if ((error = pg_show_load(&set, argv[i])) < 0)
                        goto done;
        if (stacks)
                for (size_t i = 0; i < set.n; i++)
                        if (!set.items[i].profile.present) {
                                error = pg_error_set(PG_EINPUT,
                                                     "result '%s' has no profile (it was "
                                                     "measured with --no-profile); run "
                                                     "'perfgate run' without --no-profile",
                                                     set.items[i].name);
                                goto done;
                        }

        color = pg_cli_color(STDOUT_FILENO);
        for (size_t i = 0; i < set.n; i++) {
                const struct pg_result *r = &set.items[i];
                if (stacks) {
                        /* whole lines in blocks of 64 KiB: line-buffered stdout
                         * (cli/main.c) then writes once per block, not per line */
                        struct pg_buf lines = PG_BUF_INIT;
                        for (size_t k = 0; k < r->profile.nstacks; k++) {
                                /* a control byte (a newline!) would break the line format */
                                pg_report_escape_ctl(&lines, r->profile.stacks[k].frames);
                                pg_buf_printf(&lines, " %llu\n",
                                              (unsigned long long) r->profile.stacks[k].count);
                                if (lines.len >= (64u << 10) || k + 1 == r->profile.nstacks) {
                                        fwrite(lines.ptr, 1, lines.len, stdout);
                                        pg_buf_reset(&lines);
                                }
                        }
                        pg_buf_release(&lines);
                        continue;
                }
                if (i)
                        putchar('\n');
                pg_cli_print_result(stdout, r, color);
        }
        if (fflush(stdout) != 0 || ferror(stdout))
                error = pg_error_set(PG_EIO, "cannot write to standard output");
done:
        pg_result_set_release(&set);
        return error < 0 ? pg_cli_fail(error) : 0;
}
