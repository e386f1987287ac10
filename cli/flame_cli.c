/*
 * flame_cli.c - the drawing options `perfgate flamegraph` and `perfgate diff`
 * share (one getopt table, one parser), so the two commands never drift.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "compare/flamegraph.h"

static const struct option pg_flame_options[] = {
        { "output", required_argument, NULL, 'o' },
        { "title", required_argument, NULL, 0 },
        { "subtitle", required_argument, NULL, 0 },
        { "width", required_argument, NULL, 0 },
        { "height", required_argument, NULL, 0 },
        { "minwidth", required_argument, NULL, 0 },
        { "countname", required_argument, NULL, 0 },
        { "colors", required_argument, NULL, 0 },
        { "color", required_argument, NULL, 0 },
        { "max-depth", required_argument, NULL, 0 },
        { "noise-floor", required_argument, NULL, 0 },
        { "inverted", no_argument, NULL, 0 },
        { "reverse", no_argument, NULL, 0 },
        { "negate", no_argument, NULL, 0 },
        { "off-cpu", no_argument, NULL, 0 },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

int pg_cli_flame_options(const char *cmd, int argc, char **argv, struct pg_flame_opts *o,
                         bool *off_cpu, const char **output)
{
        int c, idx;

        pg_flame_opts_init(o);
        *output = NULL;
        *off_cpu = false;
        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":o:h", pg_flame_options, &idx)) != -1) {
                const char *name;
                switch (c) {
                case 'o':
                        *output = optarg;
                        continue;
                case 0:
                        break;
                case ':':
                        return -pg_cli_usage_error(cmd, "option '%s' needs a value",
                                                   argv[optind - 1]);
                default:
                        return -pg_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
                }
                name = pg_flame_options[idx].name;
                if (strcmp(name, "inverted") == 0)
                        o->inverted = true;
                else if (strcmp(name, "reverse") == 0)
                        o->reverse = true;
                else if (strcmp(name, "negate") == 0)
                        o->negate = true;
                else if (strcmp(name, "off-cpu") == 0)
                        *off_cpu = true;
                else if (pg_flame_opts_set(o, strcmp(name, "color") == 0 ? "colors" : name,
                                           optarg) < 0)
                        return -pg_cli_usage_error(cmd, "%s", pg_error_last());
        }
        if (*off_cpu) {
                if (!o->colors)
                        o->colors = "io";
                if (!o->countname)
                        o->countname = "ns";
                if (!o->title)
                        o->title = strcmp(cmd, "diff") == 0
                                       ? "Differential Off-CPU Time Flame Graph"
                                       : "Off-CPU Time Flame Graph";
        }
        return optind;
}

int pg_cli_write_output(const char *path, const struct pg_buf *data)
{
        if (path && strcmp(path, "-") == 0)
                path = NULL;
        if (path)
                return pg_write_file_atomic(path, data->ptr, data->len);
        if (isatty(STDOUT_FILENO))
                return pg_error_set(PG_EINPUT, "not writing an SVG to the terminal; give -o "
                                               "FILE.svg, or redirect the output");
        if (fwrite(data->ptr, 1, data->len, stdout) != data->len || fflush(stdout) != 0)
                return pg_error_set(PG_EIO, "cannot write to stdout");
        return 0;
}
