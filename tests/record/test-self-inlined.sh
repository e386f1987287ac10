#!/bin/bash
# test-self-inlined.sh - a sample's Self goes to the function whose code the
# sampled address lies in, not to the functions inlined there (`_[i]`
# frames), as perf report --no-children --sort sym charges it: a real g++ -O2
# binary whose dedup_count is nearly all std::unordered_map code inlined
# from the C++ library's headers (tests/fixtures/inline/dedup.cpp).
#  - show: dedup_count's Self lies within the range of perf's per-process
#    Self shares (perf script's leaf symbols, process by process), widened
#    by 6 points: as root, `perf record -a` (every CPU) around `perfgate
#    run` samples the very processes perfgate samples (perf 6.1 aborts
#    reporting a recording that follows perfgate's process tree instead:
#    util/build-id.c:1010), and perfgate's share pools four of them, so it
#    lies between their least and greatest; elsewhere perf records four runs
#    of its own. A range and not one figure: the share moves from 28% to
#    44% between runs at different moments of a loaded machine, as cache
#    pressure from other work varies (a pooled 43.9% beside perf's pooled
#    31.8% failed a 12-point margin). No `_[i]` frame has a Self;
#  - compare: with dedup_count's work made six times as large, dedup_count
#    itself regressed (its inlined frames are not listed as regressed);
#    tripled, the share moved by 24 points, and runs that wander between
#    33% and 50% on a loaded machine left that at p = 0.006 against the
#    hotspot alpha of 0.001 (docs/compare.md, the two-proportion test);
#  - top: the symbol is dedup_count, never an `_[i]` frame.
# Exit 77 (skipped) without g++ or perf (ci/install-deps.sh lists them).
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
command -v g++ >/dev/null || { echo "skip: no g++"; exit 77; }
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
bin=$tmp/dedup
g++ -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$bin" \
        "$PG_SOURCE_DIR/tests/fixtures/inline/dedup.cpp" || { err "g++"; exit 1; }

# self_pct FILE: dedup_count's Self from `perfgate show` (columns: Children Self Function)
self_pct() { awk '$1 ~ /%$/ && $3 == "dedup_count" { sub("%", "", $2); print $2; exit }' "$1"; }

# show against perf report
printf '{"benchmarks": [{"name": "b", "argv": ["%s", "20", "6"]}]}\n' "$bin" >"$tmp/m.json"
same_runs=0
[ "$(id -u)" = 0 ] && perf record -q -a -g -F 999 -o "$tmp/perf.data" -- true 2>/dev/null && same_runs=1
if [ $same_runs = 1 ]; then
        perf record -q -a -g -F 999 -o "$tmp/perf.data" -- \
                "$pg" run -q --repeat 3 --warmup 0 --out "$tmp/r" "$tmp/m.json" 2>"$tmp/run.err" ||
                { err "run: $(cat "$tmp/run.err")"; exit 1; }
else
        "$pg" run -q --repeat 3 --warmup 0 --out "$tmp/r" "$tmp/m.json" 2>"$tmp/run.err" || { err "run: $(cat "$tmp/run.err")"; exit 1; }
fi
"$pg" show "$tmp/r/b.json" >"$tmp/show.txt" || err "show"
"$pg" show --stacks "$tmp/r/b.json" >"$tmp/stacks.txt" || err "show --stacks"
grep -q ';dedup_count;[^;]*_\[i\]' "$tmp/stacks.txt" ||
        err "no inlined frame under dedup_count: the fixture no longer tests inlining"
pg_self=$(self_pct "$tmp/show.txt")
# shellcheck disable=SC2016  # $0: the inner sh's, the program
[ $same_runs = 1 ] ||
        perf record -q -F 999 -g -o "$tmp/perf.data" -- sh -c 'for i in 1 2 3 4; do "$0" 20 6 || exit; done' "$bin" \
                >/dev/null 2>"$tmp/perf.err" || err "perf record: $(cat "$tmp/perf.err")"
# per process: samples, and those whose leaf symbol is dedup_count (perf
# script names the function an address lies in, as perf report --no-children
# --sort sym charges Self); processes of fewer than 100 samples are left out
perf script -i "$tmp/perf.data" --comm dedup -F pid,ip,sym -G 2>/dev/null |
        awk 'NF >= 3 { n[$1]++; if ($3 == "dedup_count") d[$1]++ }
             END { for (p in n) if (n[p] >= 100) printf "%d %.2f\n", n[p], 100 * d[p] / n[p] }' \
                >"$tmp/perf-pids.txt"
perf_lo=$(sort -k2,2g "$tmp/perf-pids.txt" | awk 'NR == 1 { print $2 }')
perf_hi=$(sort -k2,2g "$tmp/perf-pids.txt" | awk 'END { print $2 }')
echo "dedup_count Self: perfgate ${pg_self:-none}%, perf per process ${perf_lo:-none}% .. ${perf_hi:-none}% ($(wc -l <"$tmp/perf-pids.txt") processes)"
if [ -z "$pg_self" ] || [ -z "$perf_lo" ]; then
        err "dedup_count missing"; cat "$tmp/show.txt" "$tmp/perf-pids.txt" >&2
else
        awk -v a="$pg_self" -v lo="$perf_lo" -v hi="$perf_hi" 'BEGIN { exit !(lo >= 10 && a > lo - 6 && a < hi + 6) }' ||
                { err "Self outside perf's"; cat "$tmp/show.txt" "$tmp/perf-pids.txt" >&2; }
fi
# no inlined frame has a Self (Children Self Function: Self is column 2)
awk '$1 ~ /%$/ && $3 ~ /_\[i\]$/ && $2 != "0.00%" { bad = 1; print } END { exit bad }' "$tmp/show.txt" ||
        err "an inlined frame has a Self share"

# compare: dedup_count's passes made six times as many. A base recorded under `perf record
# -a` is run again outside it: there its task-clock grows with perf's own
# work (by 40% and more on a loaded 2-CPU runner), head then looks faster,
# and a function whose share grew while the time fell is not a regression.
printf '{"benchmarks": [{"name": "b", "argv": ["%s", "20", "36"]}]}\n' "$bin" >"$tmp/h.json"
base=r
if [ $same_runs = 1 ]; then
        base=rb
        "$pg" run -q --repeat 3 --warmup 0 --out "$tmp/rb" "$tmp/m.json" 2>"$tmp/runb.err" || { err "run base: $(cat "$tmp/runb.err")"; exit 1; }
fi
"$pg" run -q --repeat 3 --warmup 0 --out "$tmp/rh" "$tmp/h.json" 2>"$tmp/runh.err" || { err "run head: $(cat "$tmp/runh.err")"; exit 1; }
(cd "$tmp" && "$pg" compare --results rh --json c.json "./$base" >c.txt 2>&1)
python3 - "$tmp/c.json" <<'PY' || { err "compare: dedup_count is not the regressed function"; cat "$tmp/c.txt" >&2; }
import json, sys
r = json.load(open(sys.argv[1]))
fs = [f for b in r['benchmarks'] for f in (b.get('hotspots') or {}).get('functions', [])]
kinds = {f['function']: f['kind'] for f in fs}
print('hotspots:', {k: v for k, v in kinds.items() if v != 'unchanged'})
bad = [k for k, v in kinds.items() if k.endswith('_[i]') and v in ('regressed', 'improved')]
sys.exit(0 if kinds.get('dedup_count') == 'regressed' and not bad else 1)
PY

# top on the running program
"$bin" 100000 6 >/dev/null &
pids+=($!)
"$pg" top --stdio --interval 1 --iterations 3 -p "$!" >"$tmp/top.txt" 2>"$tmp/top.err" || err "top: $(cat "$tmp/top.err")"
grep -q ' dedup_count$' "$tmp/top.txt" || { err "top does not list dedup_count"; cat "$tmp/top.txt" >&2; }
! grep -q '_\[i\]$' "$tmp/top.txt" || { err "top lists an inlined frame as a symbol"; cat "$tmp/top.txt" >&2; }
exit "$fail"
