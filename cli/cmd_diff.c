/*
 * cmd_diff.c - `perfgate diff` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_diff[] = "usage: perfgate diff\n\nnot implemented yet\n";

int cmd_diff(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_diff))
                return 0;
        fprintf(stderr, "perfgate: error: 'diff' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
