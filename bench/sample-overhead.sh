#!/bin/sh
# sample-overhead.sh [BUILD_DIR] [REPS] [-- CMD...]
# Whole sampling-only run (launch, per-CPU ring buffers at 999 Hz, sort,
# symbolize, fold) versus the bare benchmark, paired: each repetition runs
# bare, perfgate sampling and `perf record -F 999 -g` back to back, and the
# median of the per-pair ratios is printed. Default workload: the
# sample_callpath fixture burning about 1 s.
# Timing on a shared 2-CPU VM is noisy: read the ratios, not single runs.
set -eu
build=${1:-build}
reps=${2:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
fix="$here/$build/tests/fixtures"
shift 2 2>/dev/null || shift $#
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then set -- "$fix/sample_callpath" 1200000000; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
for i in $(seq "$reps"); do
        t0=$(now); "$@" >/dev/null; t1=$(now)
        "$fix/pg-sample-bench" run -- "$@" >/dev/null 2>&1; t2=$(now)
        perf record -q -F 999 -g -o "$tmp/perf.data" -- "$@" >/dev/null 2>&1; t3=$(now)
        echo "$((t1 - t0)) $((t2 - t1)) $((t3 - t2))"
done >"$tmp/times"
awk '{ b = $1; printf "%.4f %.4f\n", $2 / b, $3 / b; s += $1 } END { }' "$tmp/times" >"$tmp/ratios"
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bare=$(awk '{ print $1 / 1e9 }' "$tmp/times" | med)
pg=$(cut -d' ' -f1 "$tmp/ratios" | med)
pf=$(cut -d' ' -f2 "$tmp/ratios" | med)
echo "workload: $* ($reps paired repetitions, median bare ${bare}s)"
echo "perfgate sampling (fp, 999 Hz, incl. symbolize+fold): median ratio ${pg}x"
echo "perf record -F 999 -g:                               median ratio ${pf}x"
