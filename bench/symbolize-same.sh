#!/usr/bin/env bash
# symbolize-same.sh - whether two builds symbolize and fold the same perf
# records into the same text: the folded stacks, and per sampled function its
# addresses, source lines and inlined call sites (what `perfgate annotate`
# reads). For changes that must not change the output (a faster symbolizer).
#
#   bench/symbolize-same.sh -p BUILD -a ANCHOR_BUILD [-- CMD...]
#
# BUILD and ANCHOR_BUILD are build directories (tests on: their
# tests/fixtures/pg-sample-bench, which has `save` and `replay`). Records
# with BUILD's driver, once each: bench/bin/wordfreq with frame pointers and
# with DWARF call chains, the C++ sampling fixture, and CMD when given; then
# replays every recording with both drivers and compares. The recordings name
# this machine's files: replay them here. Exit 0 when all agree, 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
new=''
anchor=''
while getopts "p:a:h" opt; do
  case $opt in
    p) new=$OPTARG ;;
    a) anchor=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
for b in "$new" "$anchor"; do
  if [ -z "$b" ] || [ ! -x "$b/tests/fixtures/pg-sample-bench" ]; then
    echo "symbolize-same.sh: no tests/fixtures/pg-sample-bench under '$b' (-p and -a)" >&2
    exit 2
  fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-symsame.XXXXXX")
trap 'rm -rf "$work"' EXIT

# flags MODE: the driver's options for call-graph MODE (fp or dwarf)
flags() { if [ "$1" = dwarf ]; then echo --dwarf; fi; }

# NAME MODE CMD...: record CMD into $work/NAME.rec
rec() {
  local name=$1 mode=$2
  shift 2
  # shellcheck disable=SC2046 # flags: none or one word
  "$new/tests/fixtures/pg-sample-bench" save "$work/$name.rec" $(flags "$mode") -- "$@" >/dev/null
  echo "$name $mode" >>"$work/list"
}
rec wordfreq fp "$here/bench/bin/wordfreq"
rec wordfreq-dwarf dwarf "$here/bench/bin/wordfreq"
[ -x "$new/tests/fixtures/sample_cxx" ] && rec cxx fp "$new/tests/fixtures/sample_cxx"
[ $# -gt 0 ] && rec cmd fp "$@"

bad=0
while read -r name mode; do
  for who in new anchor; do
    dir=$new; [ "$who" = anchor ] && dir=$anchor
    # shellcheck disable=SC2046
    "$dir/tests/fixtures/pg-sample-bench" replay "$work/$name.rec" $(flags "$mode") >"$work/$name.$who"
  done
  if cmp -s "$work/$name.new" "$work/$name.anchor"; then
    printf '%-16s same: %d stacks, %d source lines, %d inlined call sites\n' "$name" \
      "$(grep -vc '^function \|^  ' "$work/$name.new" || true)" "$(grep -c '^  line ' "$work/$name.new" || true)" \
      "$(grep -c '^  inlined at ' "$work/$name.new" || true)"
  else
    echo "$name: DIFFERENT"; diff "$work/$name.anchor" "$work/$name.new" | head -10; bad=1
  fi
done <"$work/list"
exit $bad
