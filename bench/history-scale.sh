#!/bin/sh
# history-scale.sh - how long `perfgate history --html` takes on a history of
# COMMITS first-parent commits x BENCHMARKS benchmarks (default 1000 x 20:
# target < 2 s), against an anchor measured in alternating pairs: `git
# cat-file --batch` reading the same baseline blobs (what reading the data
# costs git itself). Also the text-only run and the site's size.
# Usage: bench/history-scale.sh [PERFGATE_BIN] [COMMITS] [BENCHMARKS] [PAIRS]
# Each run rebuilds the site over the previous one, as a rerun does.
# Prints the median and best of the runs; exits 1 when the median wall time
# misses the target. Wall times on a shared machine are noisy: the load
# average before and after is printed, with the median user+system CPU
# seconds, which suffer less from other load.
set -eu
bin=$(realpath "${1:-build/perfgate}")
commits=${2:-1000}
benches=${3:-20}
pairs=${4:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sh "$here/tests/util/history-repo.sh" "$tmp/repo" "$commits" "$benches" $((commits / 2)) 4 1 1
cd "$tmp/repo"
git ls-tree -r --format='%(objectname)' perfgate-baselines >"$tmp/blobs" 2>/dev/null ||
        git ls-tree -r perfgate-baselines | awk '{ print $3 }' >"$tmp/blobs"

now() { date +%s.%N; }
cpu() { # user+sys seconds of one run
        /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.2f", $1 + $2 }'
}
anchor() { git cat-file --batch <"$tmp/blobs" >/dev/null; }
cpus=''
subject() {
        /usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" history --html "$tmp/site" >/dev/null 2>&1
        cpus="$cpus $(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")"
}

subject # warm the page cache and create the site once
cpus='' ratios='' walls=''
load0=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ $i -lt "$pairs" ]; do
        # alternate which goes first, so drift in the machine's load hits both
        if [ $((i % 2)) -eq 0 ]; then
                s=$(now); anchor; a=$(echo "$(now) - $s" | bc)
                s=$(now); subject; w=$(echo "$(now) - $s" | bc)
        else
                s=$(now); subject; w=$(echo "$(now) - $s" | bc)
                s=$(now); anchor; a=$(echo "$(now) - $s" | bc)
        fi
        ratios="$ratios $(echo "scale=3; $w / $a" | bc)"
        walls="$walls $w"
        i=$((i + 1))
done
median() { echo "$@" | tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { echo "$@" | tr ' ' '\n' | grep . | sort -n | head -1; }
s=$(now); "$bin" history >/dev/null 2>&1; text=$(echo "$(now) - $s" | bc)

printf 'history: %s commits x %s benchmarks (%s baselines)\n' "$commits" "$benches" "$(wc -l <"$tmp/blobs")"
printf 'history --html: median %.3f s, best %.3f s wall over %s runs; median %s s cpu (target: median < 2 s)\n' \
        "$(median "$walls")" "$(best "$walls")" "$pairs" "$(median "$cpus")"
printf 'history (text only): %.3f s wall, %s s cpu\n' "$text" "$(cpu "$bin" history)"
printf 'ratio to the anchor (git cat-file --batch of the same blobs), median of pairs: %.2f\n' "$(median "$ratios")"
printf 'site: %s files, %s\n' "$(find "$tmp/site" -type f | wc -l)" "$(du -sh "$tmp/site" | cut -f1)"
printf 'load average (1, 5, 15 min): %s before, %s after, on %s CPUs\n' "$load0" \
        "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
[ "$(echo "$(median "$walls") < 2" | bc)" = 1 ] || { echo "MISSED: history --html time"; exit 1; }
