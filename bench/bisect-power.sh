#!/bin/sh
# bisect-power.sh - how often `perfgate bisect` names the right commit for a
# small slowdown on this machine (docs/bisect.md).
#
#   bench/bisect-power.sh [-n TRIALS] [-e PCT] [-b PAIRS] [-p PERFGATE] [-o WORKDIR]
#
# Makes the scripted repository of tests/bisect/make-repo.sh: 16 commits,
# each building a small C benchmark whose function parse does more work from
# commit 11 on, so that a run takes about PCT percent longer (default 5).
# Each trial empties the build cache and runs
# `perfgate bisect --budget PAIRS main~15 main` (default budget: perfgate's),
# and records the commit named (or "none"), the builds used and the wall
# time. Prints one line per trial, then how often commit 11 was named and the
# builds used by the trials that named a commit (median, largest). A trial
# that exits 3 could not tell within the budget whether the range got slower.
# Exit status: 0 done, 2 bad usage.
set -eu

trials=10
pct=5
budget=""
pg=""
work=""
here=$(cd "$(dirname "$0")/.." && pwd)

usage() {
        sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
}
while getopts n:e:b:p:o:h o; do
        case $o in
        n) trials=$OPTARG ;;
        e) pct=$OPTARG ;;
        b) budget=$OPTARG ;;
        p) pg=$OPTARG ;;
        o) work=$OPTARG ;;
        *) usage ;;
        esac
done
[ -n "$pg" ] || pg=$here/build/perfgate
[ -x "$pg" ] || { echo "bisect-power: no perfgate at '$pg' (give -p)" >&2; exit 2; }
if [ -z "$work" ]; then
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
fi
repo=$work/repo
rm -rf "$repo"
"$here/tests/bisect/make-repo.sh" "$repo" "$pct" >/dev/null
cd "$repo"
c11=$(git rev-parse main~5)
echo "bisect-power: $trials trials, +$pct% at commit 11 ($(echo "$c11" | cut -c1-12)), budget ${budget:-default}"
hits=0
: >"$work/builds"
i=1
while [ "$i" -le "$trials" ]; do
        rm -rf .perfgate
        t0=$(date +%s.%N)
        rc=0
        "$pg" bisect ${budget:+--budget "$budget"} main~15 main >"$work/out" 2>"$work/err" || rc=$?
        t1=$(date +%s.%N)
        named=$(sed -n 's/^first bad commit: \([0-9a-f]*\) \(.*\)$/\2/p' "$work/out")
        builds=$(sed -n 's/^builds: \([0-9]*\) .*/\1/p' "$work/out")
        guesses=$(grep -c "a guess" "$work/err" || true)
        [ "$named" = "commit 11" ] && hits=$((hits + 1))
        [ -n "$builds" ] && echo "$builds" >>"$work/builds"
        printf 'trial %2d: exit %d, named %-10s builds %-2s guessed steps %s, %.0f s\n' "$i" "$rc" \
                "${named:-none}" "${builds:-?}" "$guesses" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
        i=$((i + 1))
done
med=$(sort -n "$work/builds" | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : "-" }')
max=$(sort -n "$work/builds" | tail -1)
echo "bisect-power: commit 11 named in $hits of $trials trials; builds (of the trials that named a commit) median $med, largest ${max:--}"
