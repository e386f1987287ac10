/*
 * fuzz_result.c - fuzz target: the result/baseline JSON loader
 * (pg_result_from_json). A loaded result must also serialise and load back
 * to the same bytes (the writer's determinism), whatever the input was.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/result.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pg_result r, back;
        struct pg_buf a = PG_BUF_INIT, b = PG_BUF_INIT;

        pg_result_init(&r);
        if (pg_result_from_json(&r, (const char *) data, size, "fuzz") == 0) {
                pg_result_derive(&r);
                if (pg_result_to_json(&r, &a) == 0) {
                        pg_result_init(&back);
                        if (pg_result_from_json(&back, a.ptr, a.len, "again") != 0)
                                abort();
                        if (pg_result_to_json(&back, &b) != 0 || strcmp(a.ptr, b.ptr) != 0)
                                abort();
                        pg_result_release(&back);
                }
        }
        pg_result_release(&r);
        pg_buf_release(&a);
        pg_buf_release(&b);
        return 0;
}
