/*
 * cmd_flamegraph.c - `perfgate flamegraph INPUT [-o OUT.svg]`: draw the flame
 * graph of a result's profile or of folded text; a two-column (difffolded)
 * input is drawn as a differential graph with its counts taken as given.
 * Exit status: 0 drawn, 2 bad option or input (no samples included; nothing
 * is written then), 4 I/O error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/flamegraph.h"
#include "compare/folded.h"

const char pg_usage_flamegraph[] =
    "usage: perfgate flamegraph [options] INPUT\n"
    "\n"
    "Draw a flame graph (standalone SVG 1.1) of INPUT: a perfgate result file\n"
    "(its profile) or folded stacks ('stack count' lines; '-' reads stdin).\n"
    "A two-column input ('stack before after', as difffolded.pl writes) is\n"
    "drawn as a differential flame graph with the counts taken as given.\n"
    "\n"
    "  -o, --output FILE      write the SVG to FILE (atomically) instead of stdout\n"
    "      --title TEXT       title (default \"Flame Graph\", \"Icicle Graph\" inverted)\n"
    "      --subtitle TEXT    subtitle (default for a result: its profile's summary)\n"
    "      --width PX         image width (default 1200)\n"
    "      --height PX        height of one frame (default 16)\n"
    "      --minwidth PX|N%   prune frames narrower than PX pixels or N% of the\n"
    "                         total (default 0.1 px); pruned samples still count\n"
    "                         in their parent\n"
    "      --countname TEXT   unit in tooltips (default \"samples\")\n"
    "      --colors PALETTE   hot (default), mem, io, red, green, blue, aqua,\n"
    "                         yellow, purple, orange; _[k] _[j] _[i] frames are\n"
    "                         always orange, green, aqua\n"
    "      --inverted         icicle graph (root at the top)\n"
    "      --off-cpu          draw a result's off-CPU profile (run --off-cpu): time\n"
    "                         blocked in ns, palette io, title \"Off-CPU Time Flame\n"
    "                         Graph\" unless --colors/--countname/--title say otherwise\n"
    "      --reverse          reverse every stack before merging (callers at the top)\n"
    "      --max-depth N      draw at most N frames above the root, then a\n"
    "                         \"[M more frames]\" marker (default 512)\n"
    "      --negate           two-column input: draw the companion graph (the\n"
    "                         'before' shape; red still means grew)\n"
    "      --noise-floor PP   two-column input: changes below PP percentage\n"
    "                         points stay white\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 drawn; 2 bad option or input (an input without samples\n"
    "included: nothing is written); 4 I/O error. See docs/flamegraph.md.\n";

int cmd_flamegraph(int argc, char **argv)
{
        struct pg_flame_opts o;
        struct pg_folded f;
        struct pg_buf svg = PG_BUF_INIT;
        const char *output = NULL, *input;
        char *info = NULL;
        bool off_cpu;
        int error, status = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_flamegraph))
                return 0;
        pg_folded_init(&f);
        optind = pg_cli_flame_options("flamegraph", argc, argv, &o, &off_cpu, &output);
        if (optind < 0)
                return -optind;
        if (argc - optind != 1)
                return pg_cli_usage_error("flamegraph",
                                          argc - optind == 0 ? "missing INPUT (a result file or "
                                                               "folded stacks, '-' for stdin)"
                                                             : "expected one INPUT, got %d",
                                          argc - optind);
        input = argv[optind];

        if ((error = pg_folded_load_profile(&f, input, off_cpu, &info)) < 0)
                goto fail;
        for (size_t i = 0; i < f.nwarnings; i++)
                pg_cli_warn("%s: %s", strcmp(input, "-") == 0 ? "stdin" : input, f.warnings[i]);
        if (!o.subtitle && info)
                o.subtitle = info;
        if (f.two_column) {
                if (f.total == 0 && f.total_before == 0) {
                        error = pg_error_set(PG_EINPUT, "'%s' holds no samples; nothing to draw",
                                             input);
                        goto fail;
                }
                o.raw_delta = true;
                o.base_name = "before";
                o.head_name = "after";
                error = pg_flamegraph_diff_svg(&svg, f.before, f.nbefore, f.stacks, f.nstacks, &o);
        } else {
                if (f.total == 0) {
                        error = pg_error_set(PG_EINPUT,
                                             "'%s' holds no samples (%zu stack line%s); nothing to "
                                             "draw",
                                             input, f.nlines, f.nlines == 1 ? "" : "s");
                        goto fail;
                }
                if (o.negate || o.noise_floor > 0) {
                        error = pg_error_set(PG_EINPUT,
                                             "--negate and --noise-floor need a two-column input; "
                                             "use 'perfgate diff BASE HEAD'");
                        goto fail;
                }
                error = pg_flamegraph_svg(&svg, f.stacks, f.nstacks, &o);
        }
        if (error < 0) {
                pg_error_prefix(error, "cannot draw '%s'", input);
                goto fail;
        }
        if ((error = pg_cli_write_output(output, &svg)) < 0)
                goto fail;
        goto done;
fail:
        status = pg_cli_fail(error);
done:
        pg_buf_release(&svg);
        pg_folded_release(&f);
        free(info);
        return status;
}
