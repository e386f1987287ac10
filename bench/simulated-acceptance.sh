#!/bin/sh
# simulated-acceptance.sh - acceptance figures for `perfgate run --counters
# simulated` on the bundled benchmarks:
#
#   bench/simulated-acceptance.sh [-p PERFGATE] [-b BUILD_DIR] [-t TRIALS] [-o WORKDIR]
#
#   1. A/A: the same binaries twice -> 0 regressions, identical simulated counts.
#   2. wordclass with its injected regression (more branch mispredictions,
#      same instructions) -> a regression on branch-miss-rate whose first
#      named function is classify_word.
#   3. gridscan with its injected regression (column-wise walk) -> a
#      regression on L1-dcache-miss-rate whose first named function is
#      grid_scan.
#   4. wordclass with 1% more rounds (-n 100 vs -n 101), TRIALS times
#      (default 3) -> an instructions regression every time.
#   5. The slowdown of a run under valgrind (the options perfgate uses) over
#      the native run, per benchmark (best of 3 native runs; wall time, so
#      noisy on a shared machine).
#
# Uses the two variants of each benchmark that CMake builds side by side in
# BUILD_DIR/bench (default build/bench) and jq. Prints one line per check;
# exit status 0 when every check passed, 1 when one failed, 2 on bad usage.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
pg=""
build=""
trials=3
work=""

usage() {
        sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
}

while [ $# -gt 0 ]; do
        case $1 in
        -p) [ $# -ge 2 ] || usage; pg=$2; shift 2 ;;
        -b) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
        -t) [ $# -ge 2 ] || usage; trials=$2; shift 2 ;;
        -o) [ $# -ge 2 ] || usage; work=$2; shift 2 ;;
        -h | --help) usage ;;
        *) echo "simulated-acceptance.sh: unknown argument '$1'" >&2; usage ;;
        esac
done
[ -n "$build" ] || build=$here/build
[ -n "$pg" ] || pg=$build/perfgate
bin=$build/bench
for f in "$pg" "$bin/wordclass-inject0" "$bin/wordclass-inject1" "$bin/gridscan-inject0" \
        "$bin/gridscan-inject1"; do
        [ -x "$f" ] || { echo "simulated-acceptance.sh: '$f' is missing; build first" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "simulated-acceptance.sh: needs jq" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "simulated-acceptance.sh: needs valgrind" >&2; exit 2; }
if [ -z "$work" ]; then
        work=$(mktemp -d "${TMPDIR:-/tmp}/pg-simacc-XXXXXX")
        trap 'rm -rf "$work"' EXIT INT TERM
fi
mkdir -p "$work"
cd "$work"
failed=0

# manifest FILE WORDCLASS_VARIANT GRIDSCAN_VARIANT [WORDCLASS_ROUNDS]
manifest() {
        cat >"$1" <<EOF
{"benchmarks": [
  {"name": "wordclass", "argv": ["$bin/wordclass-inject$2", "-n", "${4:-60}"]},
  {"name": "gridscan", "argv": ["$bin/gridscan-inject$3"]}
]}
EOF
}

run() { # run MANIFEST OUTDIR
        "$pg" run -q --counters simulated --repeat 3 --warmup 1 --no-profile --out "$2" "$1"
}

compare() { # compare BASE HEAD JSON -> exit status of perfgate compare
        s=0
        "$pg" compare "$1" --results "$2" --json "$3" >"$3.txt" || s=$?
        echo "$s"
}

check() { # check NAME CONDITION-RESULT DETAIL
        if [ "$2" = ok ]; then
                echo "ok    $1: $3"
        else
                echo "FAIL  $1: $3"
                failed=1
        fi
}

manifest base.json 0 0
manifest branch.json 1 0
manifest cache.json 0 1
run base.json a
run base.json b
run branch.json branch
run cache.json cache

# 1. A/A
s=$(compare a b aa.json)
regs=$(jq '.counts.regression' aa.json)
diffs=$(jq '[.benchmarks[].metrics[] | select(.metric | IN("instructions", "branches",
        "branch-misses", "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads",
        "LLC-load-misses", "cycles")) | select(.base.median != .head.median)] | length' aa.json)
[ "$s" = 0 ] && [ "$regs" = 0 ] && [ "$diffs" = 0 ] && r=ok || r=no
check "A/A" $r "exit $s, $regs regressions, $diffs simulated metrics differ"

# 2. and 3. the injected regressions: metric, then the first function named
injected() { # injected NAME DIR BENCH METRIC FUNCTION-PREFIX
        s=$(compare a "$2" "$1.json")
        verdict=$(jq -r ".benchmarks[] | select(.name == \"$3\") | .verdict" "$1.json")
        outcome=$(jq -r ".benchmarks[] | select(.name == \"$3\") | .metrics[]
                | select(.metric == \"$4\") | .outcome" "$1.json")
        change=$(jq -r ".benchmarks[] | select(.name == \"$3\") | .metrics[]
                | select(.metric == \"$4\") | \"\\(.base.median * 10000 | round / 100)% -> \\(.head.median * 10000 | round / 100)%\"" "$1.json")
        fn=$(jq -r ".benchmarks[] | select(.name == \"$3\") | .metrics[]
                | select(.metric == \"$4\") | .causes[0].function // \"none\"" "$1.json")
        instr=$(jq -r ".benchmarks[] | select(.name == \"$3\") | .metrics[]
                | select(.metric == \"instructions\") | \"\\(.change.relative * 10000 | round / 100)%\"" "$1.json")
        case $fn in "$5"*) f=ok ;; *) f=no ;; esac
        [ "$s" = 1 ] && [ "$verdict" = regression ] && [ "$outcome" = regression ] && [ $f = ok ] &&
                r=ok || r=no
        check "$1" $r "$3 $verdict, $4 $change ($outcome), first function $fn, instructions $instr"
        grep -m1 "where: $4" "$1.json.txt" | sed 's/^ */      /' || true
}
injected branch branch wordclass branch-miss-rate classify_word
injected cache cache gridscan L1-dcache-miss-rate grid_scan

# 4. +1% rounds of wordclass, TRIALS times
caught=0
manifest one-base.json 0 0 100
manifest one-head.json 0 0 101
i=1
while [ "$i" -le "$trials" ]; do
        run one-base.json "ob$i"
        run one-head.json "oh$i"
        compare "ob$i" "oh$i" "one$i.json" >/dev/null
        o=$(jq -r '.benchmarks[] | select(.name == "wordclass") | .metrics[]
                | select(.metric == "instructions") | .outcome' "one$i.json")
        rel=$(jq -r '.benchmarks[] | select(.name == "wordclass") | .metrics[]
                | select(.metric == "instructions") | (.change.relative * 10000 | round / 100)' "one$i.json")
        [ "$o" = regression ] && caught=$((caught + 1))
        i=$((i + 1))
done
[ "$caught" = "$trials" ] && r=ok || r=no
check "+1% rounds" $r "instructions +$rel% caught $caught of $trials times"

# 5. slowdown under valgrind (wall time, best of 3 native runs)
now_ms() { date +%s%3N; }
for b in wordclass gridscan; do
        best=""
        for k in 1 2 3; do
                t0=$(now_ms)
                "$bin/$b-inject0" >/dev/null
                t=$(($(now_ms) - t0))
                if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
        done
        t0=$(now_ms)
        valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --trace-children=yes \
                --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
                --cachegrind-out-file=/dev/null --log-file=/dev/null "$bin/$b-inject0" >/dev/null
        sim=$(($(now_ms) - t0))
        [ "$best" -gt 0 ] || best=1
        echo "info  slowdown $b: native $best ms, under valgrind $sim ms, x$((sim / best))"
done

exit $failed
