/*
 * cmd_flamegraph.c - `perfgate flamegraph` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_flamegraph[] = "usage: perfgate flamegraph\n\nnot implemented yet\n";

int cmd_flamegraph(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_flamegraph))
                return 0;
        fprintf(stderr, "perfgate: error: 'flamegraph' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
