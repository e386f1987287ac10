/*
 * cmd_compare.c - `perfgate compare` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_compare[] = "usage: perfgate compare\n\nnot implemented yet\n";

int cmd_compare(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_compare))
                return 0;
        fprintf(stderr, "perfgate: error: 'compare' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
