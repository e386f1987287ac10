#!/usr/bin/env bash
# sample-overhead.sh [BUILD_DIR] [REPS] [-- CMD...]
# Whole sampling-only run (launch, per-CPU ring buffers at 999 Hz, sort,
# symbolize, fold) versus the bare benchmark, paired: each repetition runs
# bare, perfgate sampling and `perf record -F 999 -g` back to back, and the
# median of the per-pair ratios is printed, of wall time and of CPU time
# (user + system of the process and everything it waited for: the
# benchmark, perfgate's threads, perf). Default workload: the
# sample_callpath fixture burning about 1 s.
# Timing on a shared 2-CPU VM is noisy: read the ratios, not single runs;
# on a loaded machine the CPU ratio is the steadier one.
set -eu
build=${1:-build}
reps=${2:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
case $build in
/*) fix="$build/tests/fixtures" ;;
*) fix="$here/$build/tests/fixtures" ;;
esac
[ -x "$fix/pg-sample-bench" ] || {
        echo "sample-overhead.sh: no $fix/pg-sample-bench (configure BUILD with -DPERFGATE_TESTS=ON and build it)" >&2
        exit 2
}
shift 2 2>/dev/null || shift $#
[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then set -- "$fix/sample_callpath" 1200000000; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "wall_ns cpu_ns" of one command (bash's time: real, user + sys of children)
TIMEFORMAT='%3R %3U %3S'
timed() {
        local t
        t=$({ time "$@" >/dev/null 2>&1; } 2>&1 | tail -n 1)
        awk -v t="$t" 'BEGIN { split(t, v, " "); printf "%.0f %.0f", v[1] * 1e9, (v[2] + v[3]) * 1e9 }'
}
for i in $(seq "$reps"); do
        b=$(timed "$@")
        p=$(timed "$fix/pg-sample-bench" run -- "$@")
        f=$(timed perf record -q -F 999 -g -o "$tmp/perf.data" -- "$@")
        echo "$b $p $f"
done >"$tmp/times"
# columns: bare wall, bare cpu, perfgate wall, perfgate cpu, perf wall, perf cpu
awk '{ printf "%.4f %.4f %.4f %.4f\n", $3 / $1, $5 / $1, $4 / $2, $6 / $2 }' "$tmp/times" >"$tmp/ratios"
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bare=$(awk '{ print $1 / 1e9 }' "$tmp/times" | med)
barecpu=$(awk '{ print $2 / 1e9 }' "$tmp/times" | med)
echo "workload: $* ($reps paired repetitions, median bare ${bare}s wall, ${barecpu}s CPU)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "perfgate sampling (fp, 999 Hz, incl. symbolize+fold): median ratio $(cut -d' ' -f1 "$tmp/ratios" | med)x wall, $(cut -d' ' -f3 "$tmp/ratios" | med)x CPU"
echo "perf record -F 999 -g:                               median ratio $(cut -d' ' -f2 "$tmp/ratios" | med)x wall, $(cut -d' ' -f4 "$tmp/ratios" | med)x CPU"
