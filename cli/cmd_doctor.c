/*
 * cmd_doctor.c - `perfgate doctor` (placeholder until its issue lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "common/error.h"

const char pg_usage_doctor[] = "usage: perfgate doctor\n\nnot implemented yet\n";

int cmd_doctor(int argc, char **argv)
{
        if (pg_cli_wants_help(argc, argv, pg_usage_doctor))
                return 0;
        fprintf(stderr, "perfgate: error: 'doctor' is not implemented yet\n");
        return PG_EXIT_INTERNAL;
}
