/*
 * cmd_fold.c - `perfgate fold` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_fold[] = "usage: perfgate fold\n\nnot implemented yet\n";

int cmd_fold(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_fold))
                return 0;
        fprintf(stderr, "perfgate: error: 'fold' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
