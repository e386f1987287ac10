#!/usr/bin/env bash
# overhead.sh - counting overhead of `perfgate run` against the bare benchmark.
#
#   bench/overhead.sh [-n PAIRS] [-p PERFGATE] [-r R] BENCHMARK [ARGS...]
#
# Runs PAIRS (default 11) pairs: the bare benchmark, and the whole
#   perfgate run --repeat 1 --warmup 0 --no-profile -q
# on the same command (through a one-benchmark manifest), in alternating
# order so drift hits both sides alike. Wall time of each side comes from
# bash's $EPOCHREALTIME (no fork of its own). Prints each pair's ratio and
# the median ratio perfgate/bare (goal: <= 1.01x), and the median extra
# milliseconds (the fixed cost of one invocation: process start-up, libgit2,
# the atomic result write; counting adds next to nothing per run). Both
# sides send the benchmark's output to a file, so terminal speed does not
# count.
# With -r R (>= 2) it also times `--repeat R` runs and reports the cost of
# one more counted repetition, (t(R) - t(1)) / (R - 1), against the bare
# run: the per-repetition overhead without the fixed start-up cost.
# Figures on shared VMs are noisy: use enough pairs and report the median.
set -euo pipefail

pairs=11
reps=0
here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
while getopts "n:p:r:h" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    r) reps=$OPTARG ;;
    p) pg=$OPTARG ;;
    h) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [-n PAIRS] [-p PERFGATE] [-r R] BENCHMARK [ARGS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
  echo "usage: $0 [-n PAIRS] [-p PERFGATE] [-r R] BENCHMARK [ARGS...]" >&2
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
    || { echo "overhead.sh: perfgate run failed" >&2; exit 3; }
  t1=$(now_ns)
  echo $((t1 - t0))
}

# one untimed round of each, so caches and page cache are warm for both
bare "$@" >/dev/null
counted >/dev/null

ratios=()
extras=()
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then b=$(bare "$@"); c=$(counted); else c=$(counted); b=$(bare "$@"); fi
  r=$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.4f", c / b }')
  ratios+=("$r")
  extras+=("$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.2f", (c - b) / 1e6 }')")
  printf 'pair %2d: bare %8.2f ms  perfgate %8.2f ms  ratio %s\n' "$i" \
    "$(awk -v v="$b" 'BEGIN { print v / 1e6 }')" "$(awk -v v="$c" 'BEGIN { print v / 1e6 }')" "$r"
done
median() {
  sort -n | awk '{ v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "median extra time of perfgate: $(printf '%s\n' "${extras[@]}" | median) ms per invocation"
echo "median ratio perfgate/bare over $pairs pairs: $(printf '%s\n' "${ratios[@]}" | median)x" \
  "(goal <= 1.01x)"

if ((reps >= 2)); then
  per=()
  for ((i = 1; i <= pairs; i++)); do
    b=$(bare "$@"); c1=$(counted 1); cr=$(counted "$reps")
    per+=("$(awk -v b="$b" -v c1="$c1" -v cr="$cr" -v r="$reps" \
      'BEGIN { printf "%.4f", (cr - c1) / (r - 1) / b }')")
  done
  echo "median cost of one more counted repetition / bare run: $(printf '%s\n' "${per[@]}" | median)x"
fi
