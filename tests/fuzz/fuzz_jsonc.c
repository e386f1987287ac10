/*
 * fuzz_jsonc.c - fuzz target: JSON parsing with comments (the perfgate.json
 * path of pg_json_parse) and the deterministic writer on whatever parses.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        cJSON *root = NULL;
        struct pg_buf b = PG_BUF_INIT;

        if (pg_json_parse((const char *) data, size, "fuzz", 1, &root) == 0) {
                (void) pg_json_write(&b, root);
                cJSON_Delete(root);
        }
        pg_buf_release(&b);
        return 0;
}
