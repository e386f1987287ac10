/*
 * fuzz_cachegrind.c - fuzz target: the cachegrind output parser.
 */
#include <stdint.h>

#include "runner/cachegrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pg_cg cg;
        double c[PG_CG_NCOUNTERS];

        if (pg_cg_parse(&cg, (const char *) data, size, "fuzz") == 0) {
                pg_cg_counters(&cg, cg.totals, c);
                for (size_t i = 0; i < cg.nfuncs; i++)
                        pg_cg_counters(&cg, cg.funcs[i].costs, c);
                pg_cg_release(&cg);
        }
        return 0;
}
