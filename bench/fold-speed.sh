#!/bin/sh
# fold-speed.sh [BUILD_DIR] [MIN_SAMPLES] - how fast `perfgate fold` folds
# `perf script` text, in samples per second (target: >= 300,000/s;
# stackcollapse-perf.pl folds about 10,000/s on this class of machine).
#
# Input: a CPU-bound program with a known call tree, built here with frame
# pointers, recorded with `perf record -F 999 -g -e cpu-clock` for a few
# seconds; its `perf script` text is repeated until it holds MIN_SAMPLES
# (default 50000) call-graph samples. When perf cannot record on this machine
# a synthetic perf script text of the same shape is generated instead (and
# the report says so). Nothing is written outside a temporary directory.
#
# Output: samples, bytes, distinct stacks, the median of 5 timed folds (wall
# clock, and user+sys CPU time, which a busy shared machine disturbs less),
# the rates, and the peak RSS of one fold (memory must not grow with the
# input). The goal is judged on the wall-clock median.
#
# The anchor: with STACKCOLLAPSE=/path/to/stackcollapse-perf.pl (Brendan
# Gregg's FlameGraph, https://github.com/brendangregg/FlameGraph; not
# shipped here) it also runs PAIRS (default 5) pairs of perfgate fold and the
# Perl script on the same text, in alternating order, checks that their
# outputs are byte-identical, and prints each pair's ratio Perl/perfgate in
# wall-clock and in CPU time, and their medians (goal: >= 30x). On a loaded
# machine the paired CPU-time ratio is the steadier figure.
# Build perfgate optimized first:
#   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel
#   bench/fold-speed.sh build-rel
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
min_samples=${2:-50000}
pairs=${PAIRS:-5}
perl_sc=${STACKCOLLAPSE:-}
case $build in /*) ;; *) build="$here/$build" ;; esac
pg="$build/perfgate"
[ -x "$pg" ] || { echo "fold-speed: no perfgate binary at '$pg'; build it first" >&2; exit 2; }
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fold-speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

cat > "$tmp/hot.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long leaf_a(unsigned long n)
{ unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += i * i; return s; }
__attribute__((noinline)) static unsigned long leaf_b(unsigned long n)
{ unsigned long s = 1; for (unsigned long i = 1; i < n; i++) s ^= s * 31 + i; return s; }
__attribute__((noinline)) static unsigned long mid(int d, unsigned long n)
{ if (d == 0) return (n & 1) ? leaf_a(n) : leaf_b(n); return mid(d - 1, n + (unsigned long) d) + 1; }
__attribute__((noinline)) static unsigned long outer(int k)
{ unsigned long s = 0; for (int i = 0; i < 4000; i++) s += mid((i + k) % 12, 20000 + i % 7); return s; }
int main(int argc, char **argv)
{ int r = argc > 1 ? atoi(argv[1]) : 10; for (int k = 0; k < r; k++) sink += outer(k);
  printf("%lu\n", (unsigned long) sink); return 0; }
CEOF

source="perf record -F 999 -g -e cpu-clock (real)"
one="$tmp/one.txt"
if "$cc" -O1 -fno-inline -fno-optimize-sibling-calls -fno-omit-frame-pointer \
        -o "$tmp/hot" "$tmp/hot.c" 2>/dev/null &&
    perf record -q -F 999 -g -e cpu-clock -o "$tmp/x.data" -- "$tmp/hot" 40 \
        >/dev/null 2>"$tmp/perf.err" &&
    perf script -i "$tmp/x.data" > "$one" 2>/dev/null && [ -s "$one" ]; then
    :
else
    source="synthetic (perf could not record here: $(head -c 200 "$tmp/perf.err" 2>/dev/null))"
    awk 'BEGIN {
        srand(7);
        for (s = 0; s < 5000; s++) {
            printf "hot %d [%03d] %d.%06d:    1001001 cpu-clock: \n", 4242, s % 2, 900 + s / 1000, s % 1000000;
            leaf = (rand() < 0.5) ? "leaf_a+0x16" : "leaf_b+0x17";
            printf "\t%16x %s (/opt/bench/hot)\n", 4447, leaf;
            d = int(rand() * 12);
            for (i = 0; i < d; i++) printf "\t%16x mid+0x2f (/opt/bench/hot)\n", 4567;
            printf "\t%16x outer+0x71 (/opt/bench/hot)\n", 4686;
            printf "\t%16x main+0x28 (/opt/bench/hot)\n", 4754;
            printf "\t%16x __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n", 160330;
        }
    }' > "$one"
fi

per=$(grep -c ' cpu-clock: *$' "$one" || true)
[ "$per" -gt 0 ] || { echo "fold-speed: no samples recorded" >&2; exit 3; }
copies=$(( (min_samples + per - 1) / per ))
big="$tmp/big.txt"
i=0
while [ $i -lt $copies ]; do cat "$one"; i=$((i + 1)); done > "$big"
samples=$((per * copies))
bytes=$(wc -c < "$big")

"$pg" fold "$big" > "$tmp/out.folded"
stacks=$(wc -l < "$tmp/out.folded")

times=""
cpus=""
for run in 1 2 3 4 5; do
    t0=$(date +%s%N)
    if [ -x /usr/bin/time ]; then
        cpu=$(/usr/bin/time -f '%U %S' "$pg" fold "$big" 2>&1 >/dev/null | tail -1)
        cpus="$cpus $(echo "$cpu" | awk '{ printf "%d", ($1 + $2) * 1000 }')"
    else
        "$pg" fold "$big" > /dev/null
    fi
    t1=$(date +%s%N)
    times="$times $((t1 - t0))"
done
median_ns=$(printf '%s\n' $times | sort -n | sed -n 3p)
median_cpu_ms=$(printf '%s\n' ${cpus:-0} | sort -n | sed -n 3p)
rss="n/a"
if [ -x /usr/bin/time ]; then
    rss="$(/usr/bin/time -f %M "$pg" fold "$big" 2>&1 >/dev/null | tail -1) KiB"
fi
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")

awk -v s="$samples" -v b="$bytes" -v ns="$median_ns" -v st="$stacks" -v src="$source" \
    -v rss="$rss" -v runs="$times" -v cpu="${median_cpu_ms:-0}" -v load="$load" 'BEGIN {
    sec = ns / 1e9; rate = s / sec;
    printf "input:    %s\n", src;
    printf "samples:  %d call-graph samples, %.1f MB of perf script text, %d distinct stacks\n", s, b / 1e6, st;
    printf "runs(ns):%s\n", runs;
    printf "median:   %.3f s wall  ->  %.0f samples/s, %.0f MB/s (load average %s)\n", sec, rate, b / 1e6 / sec, load;
    if (cpu > 0)
        printf "cpu time: %.3f s user+sys (median, 10 ms resolution)  ->  %.0f samples/s\n", cpu / 1000, s / (cpu / 1000);
    printf "peak RSS: %s (one fold of the whole input)\n", rss;
    printf "goal:     >= 300000 samples/s: %s\n", ((rate >= 300000) ? "met" : "NOT met");
}'

[ -n "$perl_sc" ] || { echo "anchor:   not run (set STACKCOLLAPSE=/path/to/stackcollapse-perf.pl)"; exit 0; }
[ -r "$perl_sc" ] || { echo "fold-speed: cannot read '$perl_sc'" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "fold-speed: the anchor needs /usr/bin/time (Debian package time)" >&2; exit 2; }
perl "$perl_sc" "$big" > "$tmp/perl.folded"
cmp -s "$tmp/perl.folded" "$tmp/out.folded" ||
    { echo "fold-speed: perfgate fold and $perl_sc differ on this input" >&2; exit 1; }
echo "anchor:   $perl_sc, output byte-identical; $pairs pairs in alternating order"
# one_run command... -> "wall_s cpu_s": perf stat's duration_time (the
# command's own wall time, from its fork to its exit, without perf stat's
# start-up, which is longer than a fold) and task-clock; else /usr/bin/time
one_run() {
    if perf stat -x, -e task-clock,duration_time -o "$tmp/stat.txt" -- true >/dev/null 2>&1; then
        perf stat -x, -e task-clock,duration_time -o "$tmp/stat.txt" -- "$@" >/dev/null 2>&1
        awk -F, '$3 == "task-clock" { c = $1 / 1000 } $3 == "duration_time" { w = $1 / 1e9 }
                 END { printf "%.4f %.4f\n", w, c }' "$tmp/stat.txt"
    else
        /usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'
    fi
}
wr=""
cr=""
i=1
while [ $i -le "$pairs" ]; do
    if [ $((i % 2)) -eq 1 ]; then
        a=$(one_run "$pg" fold "$big"); b=$(one_run perl "$perl_sc" "$big")
    else
        b=$(one_run perl "$perl_sc" "$big"); a=$(one_run "$pg" fold "$big")
    fi
    line=$(echo "$a $b" | awk '{ w = ($1 > 0) ? $3 / $1 : 0; c = ($2 > 0) ? $4 / $2 : 0;
        printf "%.1f %.1f perfgate %6.3f s wall %6.3f s cpu   perl %6.2f s wall %5.2f s cpu", w, c, $1, $2, $3, $4 }')
    set -- $line
    wr="$wr $1"
    cr="$cr $2"
    shift 2
    echo "pair $i:   $*   ratio $(echo "$line" | awk '{ printf "%sx wall, %sx cpu", $1, $2 }')"
    i=$((i + 1))
done
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "median ratio perl/perfgate: $(med $wr)x wall, $(med $cr)x cpu (goal >= 30x; load average $(cut -d' ' -f1 /proc/loadavg), a loaded machine)"
