#!/usr/bin/env bash
# exec-to-exec.sh - time from the exec of perfgate to the exec of its first
# benchmark, beside the same interval of `perf stat -d -d`.
#
#   bench/exec-to-exec.sh [-n PAIRS] [-p PERFGATE] [-b OTHER] [BENCHMARK [ARGS...]]
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
# over perf stat's. With -b OTHER a second perfgate build (say, before a
# change) is a third side of every round, and its median is printed beside.
# The load average is printed too: on a loaded machine the interval includes
# time spent waiting for a CPU.
# Needs perf and the right to trace system-wide: root, CAP_PERFMON, or
# kernel.perf_event_paranoid -1 (exit 3 otherwise).
set -euo pipefail

pairs=21
here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
other=""
while getopts "n:p:b:h" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    p) pg=$OPTARG ;;
    b) other=$OPTARG ;;
    h) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n PAIRS] [-p PERFGATE] [-b OTHER] [BENCHMARK [ARGS...]]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
case $pairs in ''|*[!0-9]*|0) echo "exec-to-exec.sh: -n needs a positive number" >&2; exit 2 ;; esac
[ -x "$pg" ] || { echo "exec-to-exec.sh: '$pg' is not built (cmake --build build)" >&2; exit 2; }
command -v perf >/dev/null || { echo "exec-to-exec.sh: perf is not installed (Debian: linux-perf)" >&2; exit 3; }
pg=$(cd "$(dirname "$pg")" && pwd)/$(basename "$pg")
if [ -n "$other" ]; then
  [ -x "$other" ] || { echo "exec-to-exec.sh: '$other' is not an executable file" >&2; exit 2; }
  other=$(cd "$(dirname "$other")" && pwd)/$(basename "$other")
fi
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
mkdir "$tmp/pg" "$tmp/ps" "$tmp/ob"
ln -s "$pg" "$tmp/pg/perfgate"
ln -s "$(command -v perf)" "$tmp/ps/perf"
ln -s "$bench" "$tmp/pg/benchmark"
ln -s "$bench" "$tmp/ps/benchmark"
ln -s "$bench" "$tmp/ob/benchmark"
[ -z "$other" ] || ln -s "$other" "$tmp/ob/perfgate"

json_str() { # JSON string literal of $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}
for side in pg ob; do
  {
    printf '{"benchmarks": [{"name": "exec", "argv": [%s' "$(json_str "$tmp/$side/benchmark")"
    for a in "$@"; do printf ', %s' "$(json_str "$a")"; done
    printf ']}]}\n'
  } >"$tmp/$side/manifest.json"
done

# the rounds, run under the system-wide recording
cat >"$tmp/rounds.sh" <<'EOF'
#!/usr/bin/env bash
tmp=$1 pairs=$2 other=$3
shift 3
pgrun() { "$tmp/$1/perfgate" run --repeat 1 --warmup 0 --no-profile -q --out "$tmp/out" \
            "$tmp/$1/manifest.json" >/dev/null 2>"$tmp/pg.err" || { cat "$tmp/pg.err" >&2; exit 3; }; }
side_pg() { pgrun pg; }
side_ob() { [ -z "$other" ] || pgrun ob; }
side_ps() { "$tmp/ps/perf" stat -d -d -o /dev/null -- "$tmp/ps/benchmark" "$@" >/dev/null 2>&1 || exit 3; }
side_pg "$@"; side_ps "$@"; side_ob # warm the page cache
sleep 0.2
for ((i = 1; i <= pairs; i++)); do
  case $((i % 3)) in
    1) side_pg; side_ps "$@"; side_ob ;;
    2) side_ps "$@"; side_ob; side_pg ;;
    0) side_ob; side_pg; side_ps "$@" ;;
  esac
done
EOF
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if ! perf record -q -a -e sched:sched_process_exec -o "$tmp/exec.data" -- \
     bash "$tmp/rounds.sh" "$tmp" "$pairs" "$other" "$@" 2>"$tmp/record.err"; then
  sed 's/^/  /' "$tmp/record.err" >&2
  echo "exec-to-exec.sh: perf record -a failed (root, CAP_PERFMON or kernel.perf_event_paranoid -1 needed)" >&2
  exit 3
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# "<seconds>: sched:sched_process_exec: filename=<path> pid=..." in time order
perf script -i "$tmp/exec.data" -F time,trace 2>/dev/null | awk -v d="$tmp" -v n="$pairs" -v other="$other" '
  function med(a, k,    i, j, t) {
    for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  {
    t = $1 + 0; f = ""
    for (i = 2; i <= NF; i++) if ($i ~ /^filename=/) f = substr($i, 10)
    for (s = 1; s <= 3; s++) {
      if (f == d "/" side[s] "/" launcher[s]) start[s] = t
      else if (f == d "/" side[s] "/benchmark" && start[s]) { v[s, ++cnt[s]] = (t - start[s]) * 1000; start[s] = 0 }
    }
  }
  BEGIN { side[1] = "pg"; launcher[1] = "perfgate"; side[2] = "ps"; launcher[2] = "perf"; side[3] = "ob"; launcher[3] = "perfgate"
          name[1] = "perfgate"; name[2] = "perf stat -d -d"; name[3] = "other perfgate (-b)" }
  END {
    k = other == "" ? 2 : 3
    for (s = 1; s <= k; s++) if (cnt[s] < n + 1) { printf "exec-to-exec.sh: %d of %d rounds of %s traced\n", cnt[s] - 1, n, name[s] > "/dev/stderr"; exit 3 }
    # the first of each side warmed the page cache
    for (i = 1; i <= n; i++) {
      printf "round %2d: exec to benchmark exec (ms):", i
      for (s = 1; s <= k; s++) { printf "  %s %7.3f", name[s], v[s, i + 1]; x[s, i] = v[s, i + 1] }
      printf "\n"
    }
    for (s = 1; s <= k; s++) { delete a; for (i = 1; i <= n; i++) a[i] = x[s, i]; m[s] = med(a, n) }
    printf "median exec of the launcher to exec of the benchmark (%d rounds): perfgate %.3f ms, perf stat -d -d %.3f ms, ratio %.2f\n", n, m[1], m[2], m[1] / m[2]
    if (k == 3) printf "other perfgate (-b): %.3f ms (perfgate %+.3f ms against it)\n", m[3], m[1] - m[3]
  }'
echo "load average: $load0 before, $load1 after"
