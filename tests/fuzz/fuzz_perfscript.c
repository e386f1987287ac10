/*
 * fuzz_perfscript.c - fuzz target of the perf script importer
 * (runner/perfscript.h): any bytes, split at an arbitrary point, under flags
 * taken from the first byte. Invariants checked (abort on violation): no
 * folded stack is empty or holds '\n'; the counts written add up to the
 * total in the stats; the output is strictly sorted.
 *
 * Built two ways by tests/cmake/fold.cmake: with -fsanitize=fuzzer when
 * PERFGATE_FUZZ is on (clang), and always as a replay program
 * (tests/fuzz/driver.c) that runs every file of the given corpus directories
 * plus deterministic mutations of each, so CTest exercises the parser under
 * the sanitizer build on every run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "runner/perfscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pg_perfscript_options o = { 0 };
        struct pg_perfscript *ps;
        struct pg_folded *v;
        size_t n, split;
        uint64_t sum = 0;
        uint8_t f = size ? data[0] : 0;

        o.include_pid = f & 1;
        o.include_tid = f & 2;
        o.annotate_kernel = o.annotate_jit = f & 4;
        o.annotate_inlined = f & 8;
        o.include_addrs = f & 16;
        o.comm = (f >> 5) % 3;
        o.weight = (f & 0x80) ? PG_WEIGHT_SAMPLES : PG_WEIGHT_PERIOD;
        o.max_stack = 4;
        o.mark_truncated = f & 64;
        if (pg_perfscript_new(&ps, &o) < 0)
                abort();
        pg_perfscript_begin(ps, "fuzz");
        split = size > 1 ? data[size / 2] % size : 0;
        if (pg_perfscript_feed(ps, (const char *) data, split) == 0 &&
            pg_perfscript_feed(ps, (const char *) data + split, size - split) == 0)
                (void) pg_perfscript_end(ps);
        pg_perfscript_sorted(ps, &v, &n);
        for (size_t i = 0; i < n; i++) {
                if (v[i].len == 0 || memchr(v[i].stack, '\n', v[i].len) ||
                    strlen(v[i].stack) != v[i].len)
                        abort();
                if (i > 0) {
                        size_t m = v[i].len < v[i - 1].len ? v[i].len : v[i - 1].len;
                        int c = memcmp(v[i - 1].stack, v[i].stack, m);
                        if (c > 0 || (c == 0 && v[i - 1].len >= v[i].len))
                                abort();
                }
                sum += v[i].count;
        }
        if (sum != pg_perfscript_stats(ps)->weight_total)
                abort();
        free(v);
        pg_perfscript_free(ps);
        return 0;
}
