/*
 * gridscan.c - benchmark: data cache behaviour on real text. The license
 * corpus, repeated, fills a grid of GRIDSCAN_ROWS rows of GRIDSCAN_WIDTH
 * bytes (2 MiB); each round grid_scan() adds a weight per byte into a
 * checksum per column. Walking the grid row by row reads memory
 * sequentially, so one L1 miss brings in 64 bytes that the next 63 reads
 * use; the checksums printed at the end are the same for every run on the
 * same corpus, in either variant.
 *
 * usage: gridscan [-n ROUNDS] [-d CORPUS_DIR]   (default 6 rounds, ~0.05 s)
 *        gridscan --variant   says whether the injected regression is compiled in
 *
 * The injected regression (bench/regression.h, PERFGATE_INJECT_CACHE_REGRESSION,
 * or -DGRIDSCAN_VARIANT=1): grid_scan() walks the grid column by column. The
 * index arithmetic is the same (one division and one remainder per byte
 * either way), so the instruction count stays; but consecutive reads are
 * GRIDSCAN_WIDTH bytes apart, all in the same L1 set, and nearly every read
 * misses: L1-dcache-miss-rate goes up, in grid_scan().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "regression.h"

#ifdef GRIDSCAN_VARIANT
#define GRIDSCAN_REGRESSED GRIDSCAN_VARIANT
#else
#define GRIDSCAN_REGRESSED PERFGATE_INJECT_CACHE_REGRESSION
#endif

#define GRIDSCAN_WIDTH 4096
#define GRIDSCAN_ROWS  512

/*
 * Add weight[byte] into colsum[column] for every byte of the grid.
 * noinline: the cache misses are attributed to this function by name.
 * @width and @rows come in as variables so both walks divide the same way,
 * and @stride (== @width) keeps the compiler from folding r * width + c
 * back into k in the row walk only.
 */
static __attribute__((noinline)) void grid_scan(const unsigned char *grid, size_t rows,
                                                size_t width, size_t stride, const uint32_t *weight,
                                                uint32_t *colsum)
{
        size_t n = rows * width;

        for (size_t k = 0; k < n; k++) {
#if GRIDSCAN_REGRESSED
                size_t r = k % rows, c = k / rows; /* column by column */
#else
                size_t r = k / width, c = k % width; /* row by row */
#endif
                colsum[c] += weight[grid[r * stride + c]];
        }
}

int main(int argc, char **argv)
{
        struct bench_corpus corpus;
        unsigned rounds = 6;
        const char *dir = NULL;
        size_t size = (size_t) GRIDSCAN_WIDTH * GRIDSCAN_ROWS;
        volatile size_t width = GRIDSCAN_WIDTH, rows = GRIDSCAN_ROWS, stride = GRIDSCAN_WIDTH;
        unsigned char *grid;
        uint32_t weight[256], *colsum;
        uint64_t check = 0;

        if (argc == 2 && strcmp(argv[1], "--variant") == 0) {
                printf("gridscan: injected regression %s\n", GRIDSCAN_REGRESSED ? "on" : "off");
                return 0;
        }
        bench_parse_args(argc, argv, &rounds, &dir);
        bench_corpus_load(&corpus, dir);
        grid = malloc(size);
        colsum = calloc(GRIDSCAN_WIDTH, sizeof(*colsum));
        if (!grid || !colsum)
                bench_die("out of memory");
        for (size_t off = 0; off < size; off += corpus.len)
                memcpy(grid + off, corpus.text, size - off < corpus.len ? size - off : corpus.len);
        for (unsigned b = 0; b < 256; b++)
                weight[b] = b * 2654435761u >> 16;
        for (unsigned r = 0; r < rounds; r++)
                grid_scan(grid, rows, width, stride, weight, colsum);
        for (size_t c = 0; c < GRIDSCAN_WIDTH; c++)
                check = check * 31 + colsum[c];
        printf("gridscan: %zu files, %zu bytes, %u rounds, checksum %016llx\n", corpus.nfiles,
               corpus.len, rounds, (unsigned long long) check);
        free(grid);
        free(colsum);
        bench_corpus_free(&corpus);
        return 0;
}
