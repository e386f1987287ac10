/*
 * fuzz_jitdump.c - fuzz target: the jitdump parser (pg_jitdump_parse).
 * Whatever it returns, the map must be sorted by start, every symbol named,
 * and every lookup inside a symbol must find a symbol that covers it.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/error.h"
#include "runner/jitdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pg_jitmap m = { 0 };

        (void) pg_jitdump_parse(&m, data, size);
        for (size_t i = 0; i < m.n; i++) {
                const struct pg_jitsym *s;

                if (m.syms[i].name == NULL || (i > 0 && m.syms[i - 1].start > m.syms[i].start))
                        abort();
                if (m.syms[i].size == 0)
                        continue;
                s = pg_jitmap_lookup(&m, m.syms[i].start);
                if (s != NULL && m.syms[i].start - s->start >= s->size)
                        abort();
        }
        pg_jitmap_release(&m);
        pg_error_clear();
        return 0;
}
