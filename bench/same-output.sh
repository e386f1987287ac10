#!/usr/bin/env bash
# same-output.sh - check that two perfgate binaries (a change and its anchor,
# say a build of the main branch) write the same bytes for the same inputs:
# `compare` (text, JSON, Markdown, every flame graph SVG), `show`, `diff`
# (and --negate, --reverse) and `flamegraph` (plain, --reverse, --inverted).
#
#   bench/same-output.sh -p PERFGATE -a ANCHOR [-s STACKS]
#
# Inputs: the result pairs under tests/golden/compare (the golden compare
# directories and cases/*), the collapsed reference stacks under
# tests/data/conformance/flamegraph/expected, and a generated pair with
# STACKS distinct stacks per result (bench/gen-large-result.sh; default
# 1000000, 0 skips it). Exit status: 0 all identical, 1 a difference (the
# files are named), 2 usage.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
pg=
anchor=
stacks=1000000
while getopts "p:a:s:h" opt; do
  case $opt in
    p) pg=$OPTARG ;;
    a) anchor=$OPTARG ;;
    s) stacks=$OPTARG ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
for b in "$pg" "$anchor"; do
  [ -n "$b" ] && [ -x "$b" ] || { echo "same-output.sh: needs -p PERFGATE and -a ANCHOR (executables)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-same.XXXXXX")
trap 'rm -rf "$work"' EXIT
checked=0
differ=0

# each TAG ARGS...: run ARGS with both binaries (stdout, exit status and
# every file written under the run's out/ directory) and compare.
each() {
  local tag=$1 side bin
  shift
  for side in pg anchor; do
    bin=$pg
    [ "$side" = anchor ] && bin=$anchor
    mkdir -p "$work/$side/$tag/out"
    (cd "$work/$side/$tag" && { "$bin" "$@" >stdout 2>/dev/null; echo "exit $?" >status; } || true)
  done
  checked=$((checked + 1))
  if ! diff -r "$work/pg/$tag" "$work/anchor/$tag" >/dev/null; then
    differ=$((differ + 1))
    echo "DIFFERENT: $tag ($*)"
    diff -rq "$work/pg/$tag" "$work/anchor/$tag" | sed 's/^/  /' || true
  fi
}

pairs=()
g="$here/tests/golden/compare"
pairs+=("$g/base:$g/head")
for c in "$g"/cases/*/; do
  [ -d "$c/base" ] && [ -d "$c/head" ] && pairs+=("${c%/}/base:${c%/}/head")
done
if [ "$stacks" -gt 0 ]; then
  mkdir -p "$work/large/base" "$work/large/head"
  "$here/bench/gen-large-result.sh" "$stacks" big 100 0 >"$work/large/base/big.json"
  "$here/bench/gen-large-result.sh" "$stacks" big 120 5 >"$work/large/head/big.json"
  pairs+=("$work/large/base:$work/large/head")
fi

k=0
for p in "${pairs[@]}"; do
  base=${p%%:*} head=${p#*:}
  k=$((k + 1))
  each "compare-$k" compare "$base" --results "$head" --json out/c.json --markdown out/c.md \
    --flamegraph-dir out/fg
  for f in "$head"/*.json; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .json)
    each "show-$k-$n" show "$f"
    if [ -e "$base/$n.json" ]; then
      each "diff-$k-$n" diff "$base/$n.json" "$f"
      each "diff-negate-$k-$n" diff --negate "$base/$n.json" "$f"
      each "diff-reverse-$k-$n" diff --reverse "$base/$n.json" "$f"
    fi
  done
done
prev=
for f in "$here"/tests/data/conformance/flamegraph/expected/*-collapsed-all.txt; do
  n=$(basename "$f" .txt)
  each "flamegraph-$n" flamegraph "$f"
  each "flamegraph-reverse-$n" flamegraph --reverse "$f"
  each "flamegraph-inverted-$n" flamegraph --inverted "$f"
  [ -n "$prev" ] && each "diff-$n" diff "$prev" "$f"
  prev=$f
done
echo "same-output.sh: $checked runs, $differ different"
[ "$differ" -eq 0 ]
