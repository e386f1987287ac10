/*
 * print_result.c - placeholder printer until `perfgate show` lands.
 */
#include "baselines/result.h"
#include "cli/cli.h"

void pg_cli_print_result(FILE *f, const struct pg_result *r, bool color)
{
        (void) color;
        fprintf(f, "%s: %zu metrics\n", r->name, r->nmetrics);
}
