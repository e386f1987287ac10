/*
 * fuzz_config.c - fuzz target: the perfgate.json config loader at text level
 * (pg_config_parse). Whatever loads must satisfy the header's invariants:
 * every benchmark has a valid, unique name and a non-empty argv ending in
 * NULL, and pg_config_find() finds each one by its name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/config.h"
#include "baselines/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pg_config c;

        pg_config_init(&c);
        if (pg_config_parse(&c, (const char *) data, size, "fuzz/perfgate.json") == 0) {
                for (size_t i = 0; i < c.nbench; i++) {
                        const struct pg_config_bench *b = &c.bench[i];
                        if (!b->name || !pg_result_name_valid(b->name) || b->argc < 1 || !b->argv ||
                            b->argv[b->argc] != NULL)
                                abort();
                        for (size_t k = 0; k < b->argc; k++)
                                if (!b->argv[k])
                                        abort();
                        if (pg_config_find(&c, b->name) != b)
                                abort();
                }
                (void) pg_config_compare(&c);
        }
        pg_config_release(&c);
        return 0;
}
