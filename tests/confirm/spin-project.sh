#!/bin/sh
# spin-project.sh [N] - write, into the current directory, a small perfgate
# project with a "build" command: src/spin.c (a loop of N multiplicative
# congruential steps, 20000000 by default: about 20 ms), bench/perfgate.json
# building it to bench/spin, and a .gitignore. Used by the tests of
# `compare --confirm` and of the CI scripts that run it; build with
# `spin-project.sh --build` (the "build" command of bench/perfgate.json).
set -eu
build_cmd="cc -O1 -g -fno-omit-frame-pointer -o bench/spin src/spin.c"
if [ "${1:-}" = --build ]; then
        exec sh -c "$build_cmd"
fi
n=${1:-20000000}
mkdir -p src bench
printf 'bench/spin\n.perfgate/\n' >.gitignore
cat >bench/perfgate.json <<JSON
{
  "build": "$build_cmd",
  "defaults": { "repeat": 5, "warmup": 0 },
  "benchmarks": [{"name": "spin", "argv": ["./spin"]}]
}
JSON
cat >src/spin.c <<C
#include <stdio.h>
static unsigned long long __attribute__((noinline)) spin(unsigned long long n)
{
        unsigned long long x = 1;
        for (unsigned long long i = 0; i < n; i++)
                x = x * 6364136223846793005ull + 1;
        return x;
}
int main(void)
{
        printf("%llu\n", spin(${n}ull) & 1);
        return 0;
}
C
