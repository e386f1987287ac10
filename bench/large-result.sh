#!/usr/bin/env bash
# large-result.sh - `perfgate show` and `perfgate compare` on a result with
# a million distinct stacks (docs/limits.md): wall time and max RSS, with a
# second perfgate binary as the anchor, in alternating pairs.
#
#   bench/large-result.sh [-p PERFGATE] [-a ANCHOR] [-s STACKS] [-n PAIRS]
#
# -p  the perfgate to measure (default: build/perfgate)
# -a  the anchor: another perfgate (say, a build of the main branch); without
#     it only PERFGATE is measured
# -s  distinct stacks per result (default 1000000; bench/gen-large-result.sh)
# -n  pairs (default 3); odd pairs run the anchor first, even pairs second;
#     prints each pair, the medians, and the median ratio anchor/perfgate
#     (cpu = user + system time) with the spread of the pairs
# compare runs with --json, --markdown and --flamegraph-dir. The outputs of
# the two binaries must agree, else the script fails: show's text, compare's
# text, JSON and Markdown (the verdicts and every figure) byte for byte; the
# SVGs by their frames (name, figures, x, width, colour, label), which must
# be the same flame graph, while the header above the frames (title, legend)
# and the vertical offset it gives them may differ: a legend's wording is
# changed on purpose between versions. Goal (docs/limits.md):
# compare within 3 s and 300 MB. Figures from a shared VM are noisy; the
# ratios of pairs are the meaningful ones.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
anchor=
stacks=1000000
pairs=3
while getopts "p:a:s:n:h" opt; do
  case $opt in
    p) pg=$OPTARG ;;
    a) anchor=$OPTARG ;;
    s) stacks=$OPTARG ;;
    n) pairs=$OPTARG ;;
    *) sed -n '2,23p' "$0"; exit 2 ;;
  esac
done
for b in "$pg" ${anchor:+"$anchor"}; do
  [ -x "$b" ] || { echo "large-result.sh: no perfgate binary at '$b'" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null || { echo "large-result.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-large.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/base" "$work/head"
"$here/bench/gen-large-result.sh" "$stacks" big 100 0 >"$work/base/big.json"
"$here/bench/gen-large-result.sh" "$stacks" big 120 5 >"$work/head/big.json"
echo "profile: $stacks distinct stacks, result files of $(( $(stat -c %s "$work/head/big.json") / 1048576 )) MB"

# run TAG WHAT BIN: one timed run into $work/TAG-WHAT; prints "wall-seconds
# kb cpu-seconds" (cpu: user + system, the figure a loaded machine does not
# inflate much).
# Every run writes into the same directory, $work/run (compare prints the
# SVGs' paths), then moves it to $work/TAG-WHAT.
run() {
  local out="$work/run" rc=0
  rm -rf "$out" "$work/$1-$2"; mkdir -p "$out/fg"
  if [ "$2" = show ]; then
    /usr/bin/time -f '%e %M %U %S' -o "$out/time" "$3" show "$work/head/big.json" >"$out/stdout" 2>"$out/stderr" || rc=$?
  else
    /usr/bin/time -f '%e %M %U %S' -o "$out/time" "$3" compare "$work/base" --results "$work/head" \
      --json "$out/c.json" --markdown "$out/c.md" --flamegraph-dir "$out/fg" >"$out/stdout" 2>"$out/stderr" || rc=$?
  fi
  if [ "$rc" -gt 1 ]; then
    echo "large-result.sh: '$3 $2' failed ($rc):" >&2; cat "$out/stderr" >&2; exit 1
  fi
  mv "$out" "$work/$1-$2"
  tail -1 "$work/$1-$2/time" | awk '{print $1, $2, $3 + $4}'
}

# frames A.svg: the frames of a flame graph, without their y coordinates
frames() { sed -n '/^<g id="frames">/,$p' "$1" | sed 's/ y="[0-9.-]*"//g'; }

# same A B: whether the output directories A and B agree (see the top)
same() {
  local f
  [ "$(cd "$1" && find . -type f ! -name time ! -name stderr | sort)" = \
    "$(cd "$2" && find . -type f ! -name time ! -name stderr | sort)" ] || return 1
  while IFS= read -r f; do
    case $f in
      *.svg) cmp -s <(frames "$1/$f") <(frames "$2/$f") || return 1 ;;
      *) cmp -s "$1/$f" "$2/$f" || return 1 ;;
    esac
  done < <(cd "$1" && find . -type f ! -name time ! -name stderr)
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for what in show compare; do
  : >"$work/$what.pg"; : >"$work/$what.anchor"; : >"$work/$what.ratio"
  for ((k = 1; k <= pairs; k++)); do
    if [ -z "$anchor" ]; then
      read -r s m c < <(run pg "$what" "$pg")
      echo "$s $m $c" >>"$work/$what.pg"
      printf '%-8s run %d: %6.2f s wall %6.2f s cpu %7.1f MB\n' "$what" "$k" "$s" "$c" "$(awk -v m="$m" 'BEGIN {print m / 1024}')"
      continue
    fi
    if (( k % 2 )); then
      read -r as am ac < <(run anchor "$what" "$anchor")
      read -r s m c < <(run pg "$what" "$pg")
    else
      read -r s m c < <(run pg "$what" "$pg")
      read -r as am ac < <(run anchor "$what" "$anchor")
    fi
    if ! same "$work/pg-$what" "$work/anchor-$what"; then
      echo "large-result.sh: '$what' output differs between $pg and $anchor" >&2
      diff -r "$work/pg-$what" "$work/anchor-$what" -x time -x stderr | head -20 >&2
      exit 1
    fi
    echo "$s $m $c" >>"$work/$what.pg"; echo "$as $am $ac" >>"$work/$what.anchor"
    awk -v a="$ac" -v b="$c" -v x="$as" -v y="$s" 'BEGIN {print (b > 0 ? a / b : 0), (y > 0 ? x / y : 0)}' >>"$work/$what.ratio"
    printf '%-8s pair %d: anchor %6.2f s wall %6.2f s cpu %6.1f MB | perfgate %6.2f s wall %6.2f s cpu %6.1f MB | anchor/perfgate %5.2fx wall %5.2fx cpu %5.2fx memory\n' \
      "$what" "$k" "$as" "$ac" "$(awk -v m="$am" 'BEGIN {print m / 1024}')" "$s" "$c" "$(awk -v m="$m" 'BEGIN {print m / 1024}')" \
      "$(awk -v a="$as" -v b="$s" 'BEGIN {print (b > 0 ? a / b : 0)}')" "$(awk -v a="$ac" -v b="$c" 'BEGIN {print (b > 0 ? a / b : 0)}')" \
      "$(awk -v a="$am" -v b="$m" 'BEGIN {print a / b}')"
  done
  ms=$(cut -d' ' -f1 "$work/$what.pg" | median); mm=$(cut -d' ' -f2 "$work/$what.pg" | median)
  mc=$(cut -d' ' -f3 "$work/$what.pg" | median)
  printf '%-8s median: %.2f s wall, %.2f s cpu, %.1f MB max RSS' "$what" "$ms" "$mc" "$(awk -v m="$mm" 'BEGIN {print m / 1024}')"
  if [ -n "$anchor" ]; then
    as=$(cut -d' ' -f1 "$work/$what.anchor" | median); am=$(cut -d' ' -f2 "$work/$what.anchor" | median)
    ac=$(cut -d' ' -f3 "$work/$what.anchor" | median)
    printf ' (anchor %.2f s wall, %.2f s cpu, %.1f MB; outputs agree)' "$as" "$ac" "$(awk -v m="$am" 'BEGIN {print m / 1024}')"
  fi
  if [ "$what" = compare ]; then
    awk -v s="$mc" -v m="$mm" 'BEGIN {printf "; goal <= 3 s and <= 300 MB: %s (cpu time, %s)", (s <= 3 && m <= 300 * 1024) ? "met" : "NOT met", "a loaded machine inflates wall time"}'
  fi
  if [ -n "$anchor" ]; then
    rc=$(cut -d' ' -f1 "$work/$what.ratio" | median); rw=$(cut -d' ' -f2 "$work/$what.ratio" | median)
    printf '\n%-8s ratio anchor/perfgate, median of %d pairs: %.2fx cpu (pairs %.2f .. %.2f), %.2fx wall' "$what" "$pairs" "$rc" \
      "$(cut -d' ' -f1 "$work/$what.ratio" | sort -g | head -1)" "$(cut -d' ' -f1 "$work/$what.ratio" | sort -g | tail -1)" "$rw"
  fi
  echo
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
