/*
 * cmd_diff.c - `perfgate diff BASE HEAD [-o OUT.svg] [--negate]`: the
 * differential flame graph of two profiles (results or folded text): HEAD's
 * shape, colour = change of each frame's self share (red grew from BASE to
 * HEAD); --negate draws the companion graph in BASE's shape so vanished
 * paths show. Exit status: 0 drawn, 2 bad option or input (either profile
 * without samples included; nothing is written then), 4 I/O error.
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

const char pg_usage_diff[] =
    "usage: perfgate diff [options] BASE HEAD\n"
    "\n"
    "Draw the differential flame graph of two profiles (standalone SVG 1.1).\n"
    "BASE and HEAD: perfgate result files or folded stacks ('-' reads stdin).\n"
    "Widths are HEAD's; colour is the change of each frame's self share of\n"
    "samples, delta = h/T_HEAD - b/T_BASE: red = grew from BASE to HEAD, blue =\n"
    "shrank, white = unchanged, intensity relative to the largest change.\n"
    "Frames new in HEAD have a dashed outline.\n"
    "\n"
    "  -o, --output FILE      write the SVG to FILE (atomically) instead of stdout\n"
    "      --negate           the companion graph: BASE's shape, same colours, so\n"
    "                         paths that vanished in HEAD are seen (dashed)\n"
    "      --noise-floor PP   changes smaller than PP percentage points stay white\n"
    "      --off-cpu          compare the results' off-CPU profiles (run --off-cpu)\n"
    "      --title TEXT  --subtitle TEXT  --width PX  --height PX  --minwidth PX|N%\n"
    "      --countname TEXT  --colors PALETTE  --inverted  --reverse  --max-depth N\n"
    "                         as for 'perfgate flamegraph'\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 drawn; 2 bad option or input (a profile without samples\n"
    "included: nothing is written); 4 I/O error. See docs/diff.md.\n";

/* Load one side; a two-column file is refused (it already is a diff). */
static int pg_diff_load(struct pg_folded *f, const char *path, const char *side, bool off_cpu)
{
        const char *origin = strcmp(path, "-") == 0 ? "stdin" : path;
        int error = pg_folded_load_profile(f, path, off_cpu, NULL);
        if (error < 0)
                return pg_error_prefix(error, "cannot read %s profile", side);
        for (size_t i = 0; i < f->nwarnings; i++)
                pg_cli_warn("%s: %s", origin, f->warnings[i]);
        if (f->two_column)
                return pg_error_set(PG_EINPUT,
                                    "%s '%s' is a two-column (difffolded) file; draw it with "
                                    "'perfgate flamegraph %s'",
                                    side, origin, path);
        if (f->total == 0)
                return pg_error_set(PG_EINPUT,
                                    "%s profile '%s' has 0 samples (%zu stack line%s); nothing "
                                    "to compare",
                                    side, origin, f->nlines, f->nlines == 1 ? "" : "s");
        return 0;
}

int cmd_diff(int argc, char **argv)
{
        struct pg_flame_opts o;
        struct pg_folded base, head;
        struct pg_buf svg = PG_BUF_INIT;
        const char *output = NULL;
        bool off_cpu;
        int error, status = 0;

        if (pg_cli_wants_help(argc, argv, pg_usage_diff))
                return 0;
        pg_folded_init(&base);
        pg_folded_init(&head);
        optind = pg_cli_flame_options("diff", argc, argv, &o, &off_cpu, &output);
        if (optind < 0)
                return -optind;
        if (argc - optind != 2)
                return pg_cli_usage_error("diff",
                                          "expected BASE and HEAD (result files or folded "
                                          "stacks), got %d argument%s",
                                          argc - optind, argc - optind == 1 ? "" : "s");
        if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
                return pg_cli_usage_error("diff", "BASE and HEAD cannot both be stdin");
        if ((error = pg_diff_load(&base, argv[optind], "base", off_cpu)) < 0 ||
            (error = pg_diff_load(&head, argv[optind + 1], "head", off_cpu)) < 0)
                goto fail;
        o.base_name = strcmp(argv[optind], "-") == 0 ? "stdin" : pg_basename(argv[optind]);
        o.head_name = strcmp(argv[optind + 1], "-") == 0 ? "stdin" : pg_basename(argv[optind + 1]);
        if ((error = pg_flamegraph_diff_svg(&svg, base.stacks, base.nstacks, head.stacks,
                                            head.nstacks, &o)) < 0) {
                pg_error_prefix(error, "cannot draw the diff of '%s' and '%s'", argv[optind],
                                argv[optind + 1]);
                goto fail;
        }
        if ((error = pg_cli_write_output(output, &svg)) < 0)
                goto fail;
        goto done;
fail:
        status = pg_cli_fail(error);
done:
        pg_buf_release(&svg);
        pg_folded_release(&base);
        pg_folded_release(&head);
        return status;
}
