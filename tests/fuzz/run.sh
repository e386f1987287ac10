#!/bin/sh
# run.sh [SECONDS] [TARGET...] - fuzz perfgate's parsers with libFuzzer.
# Builds build-fuzz/ with clang (-fsanitize=fuzzer-no-link,address,undefined),
# then runs each target (default: all) for SECONDS (default 600) on a copy of
# its corpus, prints the figures (executions, coverage, crashes) and leaves
# crash inputs in build-fuzz/crashes/<target>/. Add each crash input to
# tests/fuzz/corpus/<target>/ once fixed, so CTest replays it forever.
set -eu
secs=${1:-600}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/../.." && pwd)
bd="$top/build-fuzz"
CC=clang cmake -S "$top" -B "$bd" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFGATE_FUZZ=ON \
  -DPERFGATE_SANITIZE=address,undefined -DPERFGATE_WERROR=OFF >/dev/null
cmake --build "$bd" -j"$(nproc)" >/dev/null
targets="$*"
if [ -z "$targets" ]; then
  targets=$(ls "$top"/tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||')
fi
for t in $targets; do
  work="$bd/corpus/$t"; crashes="$bd/crashes/$t"
  rm -rf "$crashes"; mkdir -p "$work" "$crashes"
  cp "$top/tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  log="$bd/fuzz-$t.log"
  ASAN_OPTIONS=detect_leaks=1 "$bd/tests/fuzz_$t" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1 "$work" >"$log" 2>&1 || true
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  ncrash=$(ls "$crashes" | wc -l)
  printf '%-12s %10s execs  cov %6s  crashes %s  (log %s)\n' "$t" "${execs:-?}" "${cov:-?}" "$ncrash" "$log"
done
