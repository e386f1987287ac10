#!/bin/sh
# flamegraph-speed.sh - speed and size of `perfgate flamegraph` and
# `perfgate diff` on folded profiles of 100,000 distinct stacks (targets:
# flamegraph < 1 s and SVG < 2 MB at the default width; diff < 1.5 s).
# Usage: bench/flamegraph-speed.sh [PERFGATE_BIN] [STACKS]
# Prints the figures; exits 1 when a target is missed. Timings on shared
# machines are noisy: the best of 3 runs is reported.
set -eu
bin=${1:-build/perfgate}
stacks=${2:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Deterministic synthetic profiles: 8-20 frames per stack drawn from a skewed
# vocabulary (so callers share prefixes, as in real code), a unique leaf per
# stack, heavy-tailed counts; HEAD perturbs every count and drops some stacks.
gen() {
        awk -v n="$stacks" -v seed="$1" 'BEGIN {
                srand(7);
                for (i = 0; i < n; i++) {
                        d = 8 + int(rand() * 13);
                        s = "app;main";
                        for (j = 0; j < d; j++)
                                s = s ";mod" int(rand() ^ 2 * 30) "::fn" int(rand() ^ 3 * 200);
                        c = 1 + int(1000 * rand() ^ 4);
                        if (seed == 2) { c = int(c * (0.5 + rand())); if (c == 0) continue }
                        print s ";leaf_" i " " c
                }
        }'
}
gen 1 >"$tmp/base.folded"
gen 2 >"$tmp/head.folded"

best() { # best wall time in seconds of 3 runs of "$@"
        b=
        for r in 1 2 3; do
                s=$(date +%s.%N)
                "$@" >/dev/null
                e=$(date +%s.%N)
                t=$(echo "$e - $s" | bc)
                if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
        done
        echo "$b"
}

cpu() { # user+sys seconds of one run (the wall time suffers from other load)
        if [ -x /usr/bin/time ]; then
                /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.2f", $1 + $2 }'
        else
                echo "?"
        fi
}

t_fg=$(best "$bin" flamegraph "$tmp/base.folded" -o "$tmp/fg.svg")
c_fg=$(cpu "$bin" flamegraph "$tmp/base.folded" -o "$tmp/fg.svg")
c_diff=$(cpu "$bin" diff "$tmp/base.folded" "$tmp/head.folded" -o "$tmp/diff.svg")
t_diff=$(best "$bin" diff "$tmp/base.folded" "$tmp/head.folded" -o "$tmp/diff.svg")
size=$(wc -c <"$tmp/fg.svg")
dsize=$(wc -c <"$tmp/diff.svg")
frames=$(grep -c '^<g ' "$tmp/fg.svg" || true)
printf 'input: %s distinct stacks, %s bytes\n' "$(wc -l <"$tmp/base.folded")" "$(wc -c <"$tmp/base.folded")"
printf 'flamegraph: %.3f s wall (%s s cpu), SVG %s bytes, %s frames drawn (targets: < 1 s, < 2000000 bytes)\n' "$t_fg" "$c_fg" "$size" "$frames"
printf 'diff:       %.3f s wall (%s s cpu), SVG %s bytes (target: < 1.5 s)\n' "$t_diff" "$c_diff" "$dsize"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
ok=0
[ "$(echo "$t_fg < 1" | bc)" = 1 ] || { echo "MISSED: flamegraph time"; ok=1; }
[ "$size" -lt 2000000 ] || { echo "MISSED: flamegraph size"; ok=1; }
[ "$(echo "$t_diff < 1.5" | bc)" = 1 ] || { echo "MISSED: diff time"; ok=1; }
exit $ok
