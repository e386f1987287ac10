/*
 * cmd_run.c - `perfgate run` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_run[] = "usage: perfgate run\n\nnot implemented yet\n";

int cmd_run(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_run))
                return 0;
        fprintf(stderr, "perfgate: error: 'run' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
