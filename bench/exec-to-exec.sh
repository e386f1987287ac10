#!/usr/bin/env bash
# exec-to-exec.sh - time from the exec of perfgate to the exec of its first
# benchmark, beside the same interval of `perf stat -d -d`.
#
#   bench/exec-to-exec.sh [-n PAIRS] [-p PERFGATE] [BENCHMARK [ARGS...]]
#
# The kernel's sched:sched_process_exec tracepoint (recorded system-wide by
# `perf record -a`, so nothing is added to the traced processes) stamps every
# successful execve(2). PAIRS rounds (default 21) alternate, in an order
# that swaps every round:
#   perfgate run --repeat 1 --warmup 0 --no-profile -q  (one-benchmark manifest)
#   perf stat -d -d -- BENCHMARK                        (the anchor)
# Each side is started through a symbolic link of its own in a temporary
# directory and runs the benchmark (default /bin/true: the interval does not
# depend on it) through another, so the exec events of the two sides and of
# the benchmark are told apart by file name, not by timing. The interval of
# a round is the benchmark's exec stamp minus its launcher's; the script
# prints each round and the medians, and the median of perfgate's interval
# over perf stat's. The load average is printed too: on a loaded machine the
# interval includes time spent waiting for a CPU.
# Needs perf and the right to trace system-wide: root, CAP_PERFMON, or
# kernel.perf_event_paranoid -1 (exit 3 otherwise).
set -euo pipefail

pairs=21
here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
while getopts "n:p:h" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    p) pg=$OPTARG ;;
    h) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n PAIRS] [-p PERFGATE] [BENCHMARK [ARGS...]]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
case $pairs in ''|*[!0-9]*|0) echo "exec-to-exec.sh: -n needs a positive number" >&2; exit 2 ;; esac
[ -x "$pg" ] || { echo "exec-to-exec.sh: '$pg' is not built (cmake --build build)" >&2; exit 2; }
command -v perf >/dev/null || { echo "exec-to-exec.sh: perf is not installed (Debian: linux-perf)" >&2; exit 3; }
pg=$(cd "$(dirname "$pg")" && pwd)/$(basename "$pg")
[ $# -gt 0 ] || set -- /bin/true
bench=$1
shift
case $bench in
  */*) [ -x "$bench" ] || { echo "exec-to-exec.sh: '$bench' is not an executable file" >&2; exit 2; }
       bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench") ;;
  *) bench=$(command -v "$bench") || { echo "exec-to-exec.sh: '$1' not found" >&2; exit 2; } ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pg" "$tmp/ps"
ln -s "$pg" "$tmp/pg/perfgate"
ln -s "$(command -v perf)" "$tmp/ps/perf"
ln -s "$bench" "$tmp/pg/benchmark"
ln -s "$bench" "$tmp/ps/benchmark"

json_str() { # JSON string literal of $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}
{
  printf '{"benchmarks": [{"name": "exec", "argv": [%s' "$(json_str "$tmp/pg/benchmark")"
  for a in "$@"; do printf ', %s' "$(json_str "$a")"; done
  printf ']}]}\n'
} >"$tmp/manifest.json"

# the rounds, run under the system-wide recording
cat >"$tmp/rounds.sh" <<'EOF'
#!/usr/bin/env bash
tmp=$1 pairs=$2
shift 2
side_pg() { "$tmp/pg/perfgate" run --repeat 1 --warmup 0 --no-profile -q --out "$tmp/out" \
              "$tmp/manifest.json" >/dev/null 2>"$tmp/pg.err" || { cat "$tmp/pg.err" >&2; exit 3; }; }
side_ps() { "$tmp/ps/perf" stat -d -d -o /dev/null -- "$tmp/ps/benchmark" "$@" >/dev/null 2>&1 || exit 3; }
side_pg "$@"; side_ps "$@" # warm the page cache
sleep 0.2
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then side_pg "$@"; side_ps "$@"; else side_ps "$@"; side_pg "$@"; fi
done
EOF
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if ! perf record -q -a -e sched:sched_process_exec -o "$tmp/exec.data" -- \
     bash "$tmp/rounds.sh" "$tmp" "$pairs" "$@" 2>"$tmp/record.err"; then
  sed 's/^/  /' "$tmp/record.err" >&2
  echo "exec-to-exec.sh: perf record -a failed (root, CAP_PERFMON or kernel.perf_event_paranoid -1 needed)" >&2
  exit 3
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# "<seconds>: sched:sched_process_exec: filename=<path> pid=..." in time order
perf script -i "$tmp/exec.data" -F time,trace 2>/dev/null | awk -v d="$tmp" -v n="$pairs" '
  function med(a, k,    i, j, t) {
    for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  {
    t = $1 + 0; f = ""
    for (i = 2; i <= NF; i++) if ($i ~ /^filename=/) f = substr($i, 10)
    if (f == d "/pg/perfgate") spg = t
    else if (f == d "/ps/perf") sps = t
    else if (f == d "/pg/benchmark" && spg) { pgv[++np] = (t - spg) * 1000; spg = 0 }
    else if (f == d "/ps/benchmark" && sps) { psv[++nps] = (t - sps) * 1000; sps = 0 }
  }
  END {
    if (np < n + 1 || nps < n + 1) { printf "exec-to-exec.sh: %d/%d rounds traced\n", np, nps > "/dev/stderr"; exit 3 }
    # the first of each side warmed the page cache
    for (i = 2; i <= np; i++) { a[i - 1] = pgv[i]; printf "round %2d: exec to benchmark exec: perfgate %7.3f ms  perf stat -d -d %7.3f ms\n", i - 1, pgv[i], psv[i] }
    for (i = 2; i <= nps; i++) b[i - 1] = psv[i]
    mp = med(a, np - 1); ms = med(b, nps - 1)
    printf "median exec of the launcher to exec of the benchmark (%d rounds): perfgate %.3f ms, perf stat -d -d %.3f ms, ratio %.2f\n", n, mp, ms, mp / ms
  }'
echo "load average: $load0 before, $load1 after"
