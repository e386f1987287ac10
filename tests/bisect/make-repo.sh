#!/bin/sh
# make-repo.sh DIR PCT [BROKEN] - a git repository of 16 commits, each
# building a small C benchmark (bench/spin: two functions, parse and render,
# about half of the time each) with the "build" command of its
# bench/perfgate.json. From commit 11 on, parse does more work, so that the
# whole run takes about PCT percent longer (parse's work x (1 + 2 PCT/100)).
# BROKEN: the number of a commit that does not compile (0 or absent: none).
# Commit k has the message "commit k"; every commit has its own tree.
set -eu
dir=$1; pct=$2; broken=${3:-0}
base_n=6000000
mkdir -p "$dir"
cd "$dir"
git init -q -b main .
git config user.name t
git config user.email t@t
git config commit.gpgsign false
mkdir -p src bench
printf 'bench/spin\n.perfgate/\n' >.gitignore
cat >bench/perfgate.json <<'JSON'
{
  "build": "cc -O1 -g -fno-omit-frame-pointer -o bench/spin src/spin.c",
  "benchmarks": [{"name": "spin", "argv": ["./spin"]}]
}
JSON
cat >src/spin.c <<'C'
#include <stdio.h>
#include "version.h"
/* a multiplicative congruential step the compiler cannot fold */
#define SPIN(seed, n)                                                          \
        ({                                                                     \
                unsigned long long x_ = (seed);                                \
                for (long i_ = 0; i_ < (n); i_++)                              \
                        x_ = x_ * 6364136223846793005ull + 1442695040888963407ull; \
                x_;                                                            \
        })
static unsigned long long __attribute__((noinline)) parse(void) { return SPIN(1, PARSE_N); }
static unsigned long long __attribute__((noinline)) render(void) { return SPIN(3, RENDER_N); }
int main(void)
{
        printf("%llu %d\n", (parse() ^ render()) & 1, VERSION);
        return 0;
}
C
slow_n=$(awk -v n=$base_n -v p="$pct" 'BEGIN { printf "%d", n * (1 + 2 * p / 100) }')
k=1
while [ $k -le 16 ]; do
        n=$base_n
        [ $k -ge 11 ] && n=$slow_n
        {
                printf '#define VERSION %d\n#define PARSE_N %d\n#define RENDER_N %d\n' $k "$n" $base_n
                [ "$k" = "$broken" ] && printf '#error this commit does not build\n'
                :
        } >src/version.h
        git add -A
        git commit -qm "commit $k"
        k=$((k + 1))
done
