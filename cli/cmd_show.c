/*
 * cmd_show.c - `perfgate show` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_show[] = "usage: perfgate show\n\nnot implemented yet\n";

int cmd_show(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_show))
                return 0;
        fprintf(stderr, "perfgate: error: 'show' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
