#!/usr/bin/env bash
# overhead.sh - counting overhead of `perfgate run` against the bare benchmark.
#
#   bench/overhead.sh [-n PAIRS] [-p PERFGATE] [-r R] [-c] BENCHMARK [ARGS...]
#
# Runs PAIRS (default 11) rounds: the bare benchmark, the whole
#   perfgate run --repeat 1 --warmup 0 --no-profile -q
# on the same command (through a one-benchmark manifest), and the anchor
#   perf stat -d -d -- BENCHMARK
# (when perf is installed), in an order that rotates every round so drift
# hits every side alike; each side's ratio is taken against the bare run of
# its own round. Wall time of each side comes from
# bash's $EPOCHREALTIME (no fork of its own). Prints each pair's ratio and
# the median ratio perfgate/bare (goal: <= 1.01x), and the median extra
# milliseconds (the fixed cost of one invocation: process start-up, the git
# commit probe, the atomic result write; counting adds next to nothing per
# run), and the same two figures for `perf stat -d -d`. Both
# sides send the benchmark's output to a file, so terminal speed does not
# count. perfgate's stderr goes to a file too, shown only when the run
# fails: `-q` keeps warnings (docs/run.md), and --repeat 1 always warns that
# one repetition cannot gate.
# With -r R (>= 2) it also times `--repeat R` runs and reports the cost of
# one more counted repetition, (t(R) - t(1)) / (R - 1), against the bare
# run: the per-repetition overhead without the fixed start-up cost.
# With -c it also measures CPU time, which other load disturbs far less than
# wall time: PAIRS more rotating rounds with each side run under
# `perf stat -e task-clock` (the CPU of the whole process tree: perfgate,
# its spawner and the benchmark; perf stat's and the benchmark's for the
# anchor), and prints the median CPU ratios and extra CPU milliseconds.
# Figures on shared VMs are noisy: use enough pairs and report the median.
set -euo pipefail

pairs=11
reps=0
cpu=0
here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
while getopts "n:p:r:ch" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    r) reps=$OPTARG ;;
    p) pg=$OPTARG ;;
    c) cpu=1 ;;
    h) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n PAIRS] [-p PERFGATE] [-r R] [-c] BENCHMARK [ARGS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
  echo "usage: $0 [-n PAIRS] [-p PERFGATE] [-r R] [-c] BENCHMARK [ARGS...]" >&2
  exit 2
fi
case $pairs in ''|*[!0-9]*|0) echo "overhead.sh: -n needs a positive number" >&2; exit 2 ;; esac
case $reps in ''|*[!0-9]*|1) echo "overhead.sh: -r needs a number >= 2" >&2; exit 2 ;; esac
[ -x "$pg" ] || { echo "overhead.sh: '$pg' is not built (cmake --build build)" >&2; exit 2; }
bench=$1
shift
case $bench in
  */*) [ -x "$bench" ] || { echo "overhead.sh: '$bench' is not an executable file" >&2; exit 2; }
       bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench") ;;
  *) command -v "$bench" >/dev/null || { echo "overhead.sh: '$bench' not found" >&2; exit 2; } ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

json_str() { # JSON string literal of $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}
{
  printf '{"benchmarks": [{"name": "overhead", "argv": [%s' "$(json_str "$bench")"
  for a in "$@"; do printf ', %s' "$(json_str "$a")"; done
  printf ']}]}\n'
} >"$tmp/manifest.json"

now_ns() { # $EPOCHREALTIME is "seconds.microseconds"
  local t=$EPOCHREALTIME
  echo $(( ${t%[.,]*} * 1000000000 + 10#${t#*[.,]} * 1000 ))
}

bare() {
  local t0 t1
  t0=$(now_ns)
  "$bench" "$@" >"$tmp/bare.log" 2>&1 || { echo "overhead.sh: the benchmark failed" >&2; exit 3; }
  t1=$(now_ns)
  echo $((t1 - t0))
}

counted() { # [REPEAT]
  local t0 t1
  t0=$(now_ns)
  "$pg" run --repeat "${1:-1}" --warmup 0 --no-profile -q --out "$tmp/out" "$tmp/manifest.json" \
    2>"$tmp/pg.err" || { cat "$tmp/pg.err" >&2; echo "overhead.sh: perfgate run failed" >&2; exit 3; }
  t1=$(now_ns)
  echo $((t1 - t0))
}

anchored() { # perf stat -d -d on the same command, its report to a file
  local t0 t1
  t0=$(now_ns)
  perf stat -d -d -o "$tmp/stat.txt" -- "$bench" "$@" >"$tmp/stat.log" 2>&1 \
    || { echo "overhead.sh: perf stat failed" >&2; exit 3; }
  t1=$(now_ns)
  echo $((t1 - t0))
}
have_perf=0
command -v perf >/dev/null && perf stat -o /dev/null -- true >/dev/null 2>&1 && have_perf=1

# one untimed round of each, so caches and page cache are warm for all
bare "$@" >/dev/null
counted >/dev/null
((have_perf)) && anchored "$@" >/dev/null

ratios=()
extras=()
aratios=()
aextras=()
ms() { awk -v v="$1" 'BEGIN { printf "%8.2f", v / 1e6 }'; }
for ((i = 1; i <= pairs; i++)); do
  a=0
  case $(( i % 3 )) in
    1) b=$(bare "$@"); c=$(counted); ((have_perf)) && a=$(anchored "$@") ;;
    2) c=$(counted); ((have_perf)) && a=$(anchored "$@"); b=$(bare "$@") ;;
    0) ((have_perf)) && a=$(anchored "$@"); b=$(bare "$@"); c=$(counted) ;;
  esac
  r=$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.4f", c / b }')
  ratios+=("$r")
  extras+=("$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.2f", (c - b) / 1e6 }')")
  line=$(printf 'round %2d: bare %s ms  perfgate %s ms  ratio %s' "$i" "$(ms "$b")" "$(ms "$c")" "$r")
  if ((have_perf)); then
    ar=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')
    aratios+=("$ar")
    aextras+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (a - b) / 1e6 }')")
    line="$line  perf-stat $(ms "$a") ms  ratio $ar"
  fi
  echo "$line"
done
median() {
  sort -n | awk '{ v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (figures from a loaded machine are noisy; the ratios are paired)"
echo "median extra time of perfgate: $(printf '%s\n' "${extras[@]}" | median) ms per invocation"
echo "median ratio perfgate/bare over $pairs rounds: $(printf '%s\n' "${ratios[@]}" | median)x" \
  "(goal <= 1.01x)"
if ((have_perf)); then
  echo "median extra time of perf stat -d -d: $(printf '%s\n' "${aextras[@]}" | median) ms per invocation"
  echo "median ratio perf-stat/bare over $pairs rounds: $(printf '%s\n' "${aratios[@]}" | median)x (the anchor)"
else
  echo "perf stat: not available here, no anchor measured"
fi

if ((cpu)); then
  if ((!have_perf)); then
    echo "overhead.sh: -c needs perf (perf stat -e task-clock)" >&2
    exit 2
  fi
  # CPU milliseconds of the command after --, from perf stat's task-clock
  cpu_ms() {
    perf stat -x, -e task-clock -o "$tmp/cpu.txt" -- "$@" >"$tmp/cpu.log" 2>&1 \
      || { echo "overhead.sh: '$1' failed under perf stat" >&2; exit 3; }
    awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { print $1; exit }' "$tmp/cpu.txt"
  }
  cratios=()
  cextras=()
  acratios=()
  acextras=()
  for ((i = 1; i <= pairs; i++)); do
    pgcmd=("$pg" run --repeat 1 --warmup 0 --no-profile -q --out "$tmp/out" "$tmp/manifest.json")
    stcmd=(perf stat -d -d -o "$tmp/stat.txt" -- "$bench" "$@")
    case $(( i % 3 )) in
      1) b=$(cpu_ms "$bench" "$@"); c=$(cpu_ms "${pgcmd[@]}"); a=$(cpu_ms "${stcmd[@]}") ;;
      2) c=$(cpu_ms "${pgcmd[@]}"); a=$(cpu_ms "${stcmd[@]}"); b=$(cpu_ms "$bench" "$@") ;;
      0) a=$(cpu_ms "${stcmd[@]}"); b=$(cpu_ms "$bench" "$@"); c=$(cpu_ms "${pgcmd[@]}") ;;
    esac
    cratios+=("$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.4f", c / b }')")
    cextras+=("$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.2f", c - b }')")
    acratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", a / b }')")
    acextras+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a - b }')")
    printf 'cpu round %2d: bare %8.2f ms  perfgate %8.2f ms  perf-stat %8.2f ms\n' "$i" "$b" "$c" "$a"
  done
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "median extra CPU of perfgate: $(printf '%s\n' "${cextras[@]}" | median) ms per invocation" \
    "(ratio $(printf '%s\n' "${cratios[@]}" | median)x)"
  echo "median extra CPU of perf stat -d -d: $(printf '%s\n' "${acextras[@]}" | median) ms per invocation" \
    "(ratio $(printf '%s\n' "${acratios[@]}" | median)x)"
fi

if ((reps >= 2)); then
  per=()
  for ((i = 1; i <= pairs; i++)); do
    b=$(bare "$@"); c1=$(counted 1); cr=$(counted "$reps")
    per+=("$(awk -v b="$b" -v c1="$c1" -v cr="$cr" -v r="$reps" \
      'BEGIN { printf "%.4f", (cr - c1) / (r - 1) / b }')")
  done
  echo "median cost of one more counted repetition / bare run: $(printf '%s\n' "${per[@]}" | median)x"
fi
