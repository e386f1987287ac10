#!/bin/bash
# test-inline-flip.sh BASE_BIN HEAD_BIN - an inlining decision that flipped
# and nothing else is no hotspot regression: the two gcc -O2 builds of
# tests/fixtures/record/inline_side.c (base: mix() always_inline, its
# samples main's at mix's inlined lines; head: mix() noinline) run the same
# work (64 rounds), each measured by `perfgate run` under perf and compared
# both ways. Neither mix nor main may be listed regressed or new: mix's
# samples count for mix on both sides (docs/compare.md, Hotspots), so main's
# own time does not fall on one side and grow on the other.
set -u
pg=$PERFGATE_BIN; inl_bin=$1; own_bin=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

printf '{"benchmarks": [{"name": "b", "argv": ["%s", "64"]}]}\n' "$inl_bin" >"$tmp/inl.json"
printf '{"benchmarks": [{"name": "b", "argv": ["%s", "64"]}]}\n' "$own_bin" >"$tmp/own.json"
"$pg" run -q --repeat 3 --warmup 0 --out "$tmp/ri" "$tmp/inl.json" 2>/dev/null || err "run inlined"
"$pg" run -q --repeat 3 --warmup 0 --out "$tmp/ro" "$tmp/own.json" 2>/dev/null || err "run noinline"
grep -q '"x*[^"]*mix_\[i\]' "$tmp/ri/b.json" ||
        { err "the always_inline build shows no inlined mix frame: nothing tested"; exit 1; }
for dir in "ro ./ri" "ri ./ro"; do
        set -- $dir
        (cd "$tmp" && "$pg" compare --results "$1" --json r.json "$2" >r.txt 2>&1)
        st=$?
        { [ $st -eq 0 ] || [ $st -eq 1 ]; } || { err "compare $dir: exit $st"; cat "$tmp/r.txt" >&2; continue; }
        if grep -E '^    (mix|main)  .* (regressed|new)$' "$tmp/r.txt"; then
                err "head $1 vs base $2: an inlining flip reads as a hotspot regression"
                cat "$tmp/r.txt" >&2
        fi
        python3 - "$tmp/r.json" <<'PY' || fail=1
import json, sys
rep = json.load(open(sys.argv[1]))
for b in rep['benchmarks']:
    for h in (b['hotspots'] or {}).get('functions', []):
        if h['function'] in ('mix', 'main') and h['kind'] in ('regressed', 'grew (own time)', 'new'):
            sys.exit('FAIL: %s %s' % (h['function'], h['kind']))
PY
done
exit $fail
