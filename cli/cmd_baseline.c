/*
 * cmd_baseline.c - `perfgate baseline` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_baseline[] = "usage: perfgate baseline\n\nnot implemented yet\n";

int cmd_baseline(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_baseline))
                return 0;
        fprintf(stderr, "perfgate: error: 'baseline' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
