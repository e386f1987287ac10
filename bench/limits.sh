#!/usr/bin/env bash
# limits.sh - perfgate's size limits, measured (docs/limits.md).
#
#   bench/limits.sh [-p PERFGATE] [-g FOLD_MB] [-d DISTINCT] [-s STACKS] [-k DEEP] [-c]
#
# 1. `perfgate fold` streams: FOLD_MB (default 4096) of `perf script` text
#    with DISTINCT (default 20000) distinct stacks is generated on the fly
#    into a pipe (nothing stored on disk but one ~1 MB chunk) and folded,
#    twice: once with 1/8 of the bytes, once with all of them. Max RSS
#    (getrusage via /usr/bin/time) must not grow with the input, only with
#    the distinct stacks.
# 2. A profile with STACKS (default 1000000) distinct stacks: a base and a
#    head result file; `perfgate show` (the result loader), `perfgate compare`
#    (--json, --markdown, --flamegraph-dir) and `perfgate diff` on them, each
#    with its wall time and max RSS.
# 3. One stack of DEEP (default 80000) distinct frames, about 550 KB of
#    result: `perfgate compare` (--json, --markdown, --flamegraph-dir) must
#    take seconds and megabytes (memory linear in the stack's depth).
# -c (check): fail (exit 1) when fold's RSS grew by more than 16 MB between
#    the two sizes, when the deep-stack compare used more than 256 MB, or
#    when a command fails. tests/cmake/robust.cmake runs a
#    small version of this as a test. Figures on shared VMs are noisy.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
pg="$here/build/perfgate"
fold_mb=4096
distinct=20000
stacks=1000000
deep=80000
check=0
while getopts "p:g:d:s:k:ch" opt; do
  case $opt in
    p) pg=$OPTARG ;;
    g) fold_mb=$OPTARG ;;
    d) distinct=$OPTARG ;;
    s) stacks=$OPTARG ;;
    k) deep=$OPTARG ;;
    c) check=1 ;;
    *) sed -n '2,23p' "$0"; exit 2 ;;
  esac
done
[ -x "$pg" ] || { echo "limits.sh: no perfgate binary at '$pg'; build it or pass -p" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "limits.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-limits.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure LABEL CMD...: run CMD under /usr/bin/time -v, print seconds and max RSS.
measure() {
  local label=$1; shift
  if ! /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt"; then
    echo "limits.sh: '$label' failed:" >&2; cat "$work/err.txt" >&2; cat "$work/time.txt" >&2
    exit 1
  fi
  local rss wall
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
  printf '%-44s %12s wall  %8.1f MB max RSS\n' "$label" "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
  last_rss_kb=$rss
}

# ---- 1. fold over a multi-gigabyte pipe -----------------------------------
# One chunk of samples cycling through the distinct stacks (5 frames each);
# repeating it keeps the stack set fixed however many bytes flow.
awk -v n="$distinct" 'BEGIN {
  for (i = 0; i < n; i++) {
    printf "prog %d %d.%06d: 1001001 cpu-clock:\n", 1000 + i % 7, 100 + i, i % 1000000
    printf "\tffffffff81%06x leaf_%d+0x1f (/usr/bin/prog)\n", i, i
    printf "\t55555555%04x mid_%d+0x10 (/usr/bin/prog)\n", i % 65536, i % 997
    printf "\t55555555%04x outer_%d+0x8 (/usr/bin/prog)\n", i % 65536, i % 31
    printf "\t5555555500aa main+0x20 (/usr/bin/prog)\n"
    printf "\t7ffff7829d8f __libc_start_call_main+0x7f (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n"
  }
}' >"$work/chunk.txt"
chunk_bytes=$(stat -c %s "$work/chunk.txt")
# feed BYTES: the chunk repeated, cut to whole chunks (so every sample is complete)
feed() {
  local n=$(( ($1 + chunk_bytes - 1) / chunk_bytes ))
  for ((k = 0; k < n; k++)); do cat "$work/chunk.txt"; done
}
export -f feed
export work chunk_bytes
echo "fold: $distinct distinct stacks, chunk of $chunk_bytes bytes"
small=$(( fold_mb * 1048576 / 8 ))
big=$(( fold_mb * 1048576 ))
# shellcheck disable=SC2016 # $0 expands in the inner bash
measure "fold $(( small / 1048576 )) MB of perf script (pipe)" \
  bash -c 'feed '"$small"' | "$0" fold' "$pg"
rss_small=$last_rss_kb
lines_small=$(wc -l <"$work/out.txt")
# shellcheck disable=SC2016
measure "fold $(( big / 1048576 )) MB of perf script (pipe)" \
  bash -c 'feed '"$big"' | "$0" fold' "$pg"
rss_big=$last_rss_kb
lines_big=$(wc -l <"$work/out.txt")
echo "  folded stacks out: $lines_small and $lines_big (distinct stacks: $distinct)"
if [ "$lines_small" -ne "$distinct" ] || [ "$lines_big" -ne "$distinct" ]; then
  echo "limits.sh: fold printed the wrong number of stacks" >&2
  exit 1
fi
growth=$(( (rss_big - rss_small) / 1024 ))
echo "  RSS growth for 8x the input: ${growth} MB"
if [ "$check" = 1 ] && [ "$growth" -gt 16 ]; then
  echo "limits.sh: fold's memory grew with the input (${growth} MB)" >&2
  exit 1
fi

# ---- 2. a million distinct stacks ------------------------------------------
# result NAME MS SHIFT > FILE: STACKS distinct stacks; SHIFT moves weight.
result() { "$here/bench/gen-large-result.sh" "$stacks" "$@"; }
mkdir -p "$work/base" "$work/head" "$work/fg"
result big 100 0 >"$work/base/big.json"
result big 120 5 >"$work/head/big.json"
echo "profile: $stacks distinct stacks, result file of $(( $(stat -c %s "$work/head/big.json") / 1048576 )) MB"
measure "show (load $stacks stacks)" "$pg" show "$work/head/big.json"
set +e
/usr/bin/time -v -o "$work/time.txt" "$pg" compare "$work/base" --results "$work/head" \
  --json "$work/c.json" --markdown "$work/c.md" --flamegraph-dir "$work/fg" >"$work/out.txt" 2>"$work/err.txt"
rc=$?
set -e
if [ "$rc" -gt 1 ]; then echo "limits.sh: compare failed ($rc):" >&2; cat "$work/err.txt" >&2; exit 1; fi
printf '%-44s %12s wall  %8.1f MB max RSS\n' "compare (json, markdown, flame graphs)" \
  "$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")" \
  "$(awk -F': ' '/Maximum resident set size/ {print $2 / 1024}' "$work/time.txt")"
measure "diff (differential flame graph)" "$pg" diff "$work/base/big.json" "$work/head/big.json" -o "$work/d.svg"
echo "  diff SVG: $(( $(stat -c %s "$work/d.svg") / 1024 )) KB"
if command -v xmllint >/dev/null; then
  xmllint --noout "$work/d.svg" && echo "  diff SVG well formed (xmllint)"
fi

# ---- 3. one very deep stack -------------------------------------------------
# deep_result NAME COUNT > FILE: one stack of DEEP distinct frames plus one
# short stack; the hotspot analysis sees DEEP functions on one path.
deep_result() {
  awk -v n="$deep" -v name="$1" -v c="$2" 'BEGIN {
    printf "{\"schema\": \"perfgate/result/1\", \"name\": \"%s\", \"command\": [\"x\"],\n", name
    printf " \"created\": \"2026-11-29T10:00:00Z\", \"machine\": \"default\", \"counters\": \"software\",\n"
    printf " \"repeat\": 5, \"warmup\": 1, \"metrics\": {\"task-clock\": {\"unit\": \"ns\", \"values\": ["
    for (i = 0; i < 5; i++) printf "%s%d", i ? ", " : "", (100 + i * 0.1) * 1000000
    printf "]}},\n \"profile\": {\"event\": \"cpu-clock\", \"frequency_hz\": 999, \"call_graph\": \"fp\",\n"
    printf "  \"lost\": 0, \"truncated\": 0, \"samples\": %d, \"stacks\": {\n   \"x", c + 100
    for (i = 0; i < n; i++) printf ";f%06d", i
    printf "\": %d,\n   \"x;main;other\": 100\n  }}}\n", c
  }'
}
mkdir -p "$work/deep-base" "$work/deep-head" "$work/deep-fg"
deep_result deep 900 >"$work/deep-base/deep.json"
deep_result deep 1200 >"$work/deep-head/deep.json"
echo "one stack of $deep distinct frames, result file of $(( $(stat -c %s "$work/deep-head/deep.json") / 1024 )) KB"
measure "compare (json, markdown, flame graphs)" "$pg" compare "$work/deep-base" \
  --results "$work/deep-head" --json "$work/deep.json" --markdown "$work/deep.md" \
  --flamegraph-dir "$work/deep-fg"
if [ "$check" = 1 ] && [ "$last_rss_kb" -gt 262144 ]; then
  echo "limits.sh: compare of one $deep-frame stack used $((last_rss_kb / 1024)) MB (limit 256 MB): memory is not linear in the stack's depth" >&2
  exit 1
fi
