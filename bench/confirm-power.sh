#!/bin/sh
# confirm-power.sh - how well `perfgate compare --confirm` separates real
# small regressions from noise on this machine (docs/compare.md, "Confirming
# by paired runs").
#
#   bench/confirm-power.sh [-n TRIALS] [-p PERFGATE] [-o WORKDIR] [-b BUDGET]
#                          [-s 'aa p3 p2 f2']
#
# Builds a scratch git repository holding bench/confirm/work.c (three
# functions iterating an LCG for about 0.3 s of CPU) with a "build" command
# in its perfgate.json, records the baseline of its first commit, and makes
# one branch per scenario:
#   aa   the same code (a comment changed): every confirmed regression is a
#        false alarm;
#   p3   every function does 3% more iterations (+3%);
#   p2   every function does 2% more iterations (+2%);
#   f2   stage2() alone does 2% of the program's iterations more (+2%
#        confined to one function; the hotspot test should name it first).
# Each trial checks out a scenario, builds it in the work tree, runs
# `perfgate run bench/`, then `perfgate compare main --confirm=all` (the
# base commit is built once in perfgate's build cache), and reads the
# outcome from the JSON verdict. Trials of the scenarios are interleaved.
#
# Prints, per scenario, the outcomes (regression / no regression /
# inconclusive), the rates the gate promises, and the median time spent
# confirming. -s runs only the scenarios listed (e.g. -s aa for more A/A
# trials). Exit status: 0 done, 2 bad usage, 4 perfgate failed.
set -eu

trials=10
pg=""
work=""
budget=120s
scenarios="aa p3 p2 f2"
here=$(cd "$(dirname "$0")/.." && pwd)

usage() {
        sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
}

while [ $# -gt 0 ]; do
        case $1 in
        -n) [ $# -ge 2 ] || usage; trials=$2; shift 2 ;;
        -p) [ $# -ge 2 ] || usage; pg=$2; shift 2 ;;
        -o) [ $# -ge 2 ] || usage; work=$2; shift 2 ;;
        -b) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
        -s) [ $# -ge 2 ] || usage; scenarios=$2; shift 2 ;;
        -h | --help) usage ;;
        *) echo "confirm-power.sh: unknown argument '$1'" >&2; usage ;;
        esac
done
[ -n "$pg" ] || pg="$here/build/perfgate"
[ -x "$pg" ] || { echo "confirm-power.sh: no perfgate at '$pg' (make build, or -p)" >&2; exit 2; }
command -v jq >/dev/null || { echo "confirm-power.sh: needs jq (apt-get install jq)" >&2; exit 2; }
pg=$(cd "$(dirname "$pg")" && pwd)/$(basename "$pg")
[ -n "$work" ] || work=$(mktemp -d "${TMPDIR:-/tmp}/confirm-power.XXXXXX")
mkdir -p "$work"
repo="$work/repo"
rm -rf "$repo"
mkdir -p "$repo/src" "$repo/bench"
cd "$repo"

git init -q -b main .
git config user.name perfgate-bench
git config user.email bench@localhost
cp "$here/bench/confirm/work.c" src/work.c
cat >bench/perfgate.json <<'EOF'
{
  "build": "cc -O2 -g -fno-omit-frame-pointer -o bench/work src/work.c",
  "defaults": { "repeat": 3, "warmup": 1 },
  "benchmarks": [ { "name": "work", "argv": ["./work"] } ]
}
EOF
printf 'bench/work\n.perfgate/\n' >.gitignore
git add -A
git commit -qm "workload"
build() { cc -O2 -g -fno-omit-frame-pointer -o bench/work src/work.c; }
build
"$pg" run bench/ -q
"$pg" baseline save >/dev/null

variant() { # name sed-expression
        git checkout -q -b "$1" main
        sed -i "$2" src/work.c
        git commit -qam "$1"
        git checkout -q main
}
variant aa 's|^ \* work.c - |& (A/A) |'
variant p3 's/#define SCALE_PERMILLE 1000/#define SCALE_PERMILLE 1030/'
variant p2 's/#define SCALE_PERMILLE 1000/#define SCALE_PERMILLE 1020/'
variant f2 's/#define EXTRA_PERMILLE 0/#define EXTRA_PERMILLE 20/'

: >"$work/trials.tsv"
i=1
while [ "$i" -le "$trials" ]; do
        for s in $scenarios; do
                git checkout -q "$s"
                build
                # a profile only where the hotspot test needs one (saves time)
                if [ "$s" = f2 ]; then "$pg" run bench/ -q; else "$pg" run bench/ -q --no-profile; fi
                rc=0
                "$pg" compare main --confirm=all --confirm-budget "$budget" \
                        --json "$work/$s-$i.json" >"$work/$s-$i.txt" 2>"$work/$s-$i.err" || rc=$?
                if [ "$rc" -ge 2 ]; then
                        echo "confirm-power.sh: perfgate compare failed ($rc):" >&2
                        cat "$work/$s-$i.err" >&2
                        exit 4
                fi
                jq -r --arg s "$s" '.benchmarks[] | select(.name == "work") | .confirm |
                        [$s, .outcome, .pairs, .seconds, .estimate, .lo, .hi,
                         ((.hotspots | map(select(.confirmed)) | .[0].function) // "-"),
                         (.hotspot_seconds // 0)] | @tsv' \
                        "$work/$s-$i.json" >>"$work/trials.tsv"
                tail -n 1 "$work/trials.tsv" | sed 's/^/  /' >&2
        done
        i=$((i + 1))
done
git checkout -q main

echo "confirm-power: $trials trials per scenario, budget $budget per confirmation"
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F'\t' -v n="$trials" '
function median(a, k,   i, j, t) {
        for (i = 1; i <= k; i++)
                for (j = i + 1; j <= k; j++)
                        if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{
        s = $1; tot[s]++; out[s, $2]++
        secs[s, tot[s]] = $4; pairs[s, tot[s]] = $3; est[s, tot[s]] = $5; hot[s, tot[s]] = $9
        if ($8 ~ /^stage2/) named[s]++
        all_secs[++nall] = $4
}
END {
        printf "%-4s %-52s %10s %10s %10s %12s\n", "", "scenario", "regression", "no-regr.", "inconcl.", "median time"
        split("aa p3 p2 f2", order, " ")
        label["aa"] = "A/A (same code)"
        label["p3"] = "+3% everywhere"
        label["p2"] = "+2% everywhere"
        label["f2"] = "+2% in stage2() only"
        for (o = 1; o <= 4; o++) {
                s = order[o]; k = tot[s]
                if (!k) continue
                for (i = 1; i <= k; i++) { t[i] = secs[s, i]; e[i] = est[s, i] }
                for (i = 1; i <= k; i++) h[i] = hot[s, i]
                printf "%-4s %-52s %10d %10d %10d %10.1f s   (median estimate %+.2f%%", s, label[s],
                        out[s, "regression"], out[s, "no regression"], out[s, "inconclusive"],
                        median(t, k), 100 * median(e, k)
                if (median(h, k) > 0) printf "; hotspot test %.1f s of it", median(h, k)
                printf ")\n"
        }
        printf "\nA/A false alarms:                 %d of %d   (goal: 0 of 50)\n", out["aa", "regression"], tot["aa"]
        printf "+3%% caught:                       %d of %d   (goal: >= 95%%)\n", out["p3", "regression"], tot["p3"]
        printf "+2%% caught:                       %d of %d   (goal: >= 80%%)\n", out["p2", "regression"], tot["p2"]
        printf "+2%% in stage2 caught, named first: %d of %d   (goal: >= 80%%)\n", named["f2"] + 0, tot["f2"]
        printf "median confirmation time:         %.1f s (all scenarios; goal: < 60 s for a 0.3 s benchmark)\n", median(all_secs, nall)
}' "$work/trials.tsv"
echo "raw trials: $work/trials.tsv"
