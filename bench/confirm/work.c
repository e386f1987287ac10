/*
 * work.c - the workload of bench/confirm-power.sh: three functions that
 * each iterate a 64-bit LCG, with iteration counts set at build time so a
 * commit can make the whole program, or one function, slower by a chosen
 * amount. Built with -O2 -g -fno-omit-frame-pointer so profiles name them.
 *   -DSCALE_PERMILLE=N  every stage runs N/1000 of its iterations (1000)
 *   -DEXTRA_PERMILLE=N  stage2 runs N/1000 of the whole program's
 *                       iterations more (0): a change confined to stage2
 */
#include <stdint.h>
#include <stdio.h>

#ifndef SCALE_PERMILLE
#define SCALE_PERMILLE 1000
#endif
#ifndef EXTRA_PERMILLE
#define EXTRA_PERMILLE 0
#endif
#ifndef ITERS
#define ITERS 150000000ull
#endif

static uint64_t __attribute__((noinline)) lcg(uint64_t x, uint64_t n)
{
        for (uint64_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                x ^= x >> 29;
        }
        return x;
}

static uint64_t __attribute__((noinline)) stage1(uint64_t x, uint64_t n)
{
        for (uint64_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                x ^= x >> 29;
        }
        return x;
}

static uint64_t __attribute__((noinline)) stage2(uint64_t x, uint64_t n)
{
        for (uint64_t i = 0; i < n; i++) {
                x = x * 2862933555777941757ull + 3037000493ull;
                x ^= x >> 31;
        }
        return x;
}

int main(void)
{
        uint64_t total = ITERS * SCALE_PERMILLE / 1000;
        uint64_t x = 1;

        x = stage1(x, total / 2);
        x = stage2(x, total / 4 + ITERS * EXTRA_PERMILLE / 1000);
        x = lcg(x, total / 4);
        printf("%llu\n", (unsigned long long) (x & 0xff));
        return 0;
}
