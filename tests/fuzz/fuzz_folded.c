/*
 * fuzz_folded.c - fuzz target: the folded-text parser (pg_folded_parse).
 * Whatever parses must satisfy the header's invariants: stacks strictly
 * sorted by pg_folded_key_cmp (merged, so no duplicates), no zero counts,
 * total equal to the sum of the counts, and the same for the "before"
 * column of two-column input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void pg_check_column(const struct pg_stack *s, size_t n, uint64_t total)
{
        uint64_t sum = 0;

        for (size_t i = 0; i < n; i++) {
                if (s[i].count == 0)
                        abort();
                sum += s[i].count;
                if (i > 0 && pg_folded_key_cmp(s[i - 1].frames, strlen(s[i - 1].frames),
                                               s[i].frames, strlen(s[i].frames)) >= 0)
                        abort();
        }
        if (sum != total)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pg_folded f;

        pg_folded_init(&f);
        if (pg_folded_parse(&f, (const char *) data, size, "fuzz") == 0) {
                pg_check_column(f.stacks, f.nstacks, f.total);
                if (f.two_column)
                        pg_check_column(f.before, f.nbefore, f.total_before);
                for (size_t i = 0; i < f.nwarnings; i++)
                        if (!f.warnings[i])
                                abort();
        }
        pg_folded_release(&f);
        return 0;
}
