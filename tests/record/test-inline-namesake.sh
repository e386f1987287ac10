#!/bin/bash
# test-inline-namesake.sh BIN - an inlined function is not merged with
# another function of the same name: BIN (tests/fixtures/record/namesake.c)
# has hot() with a static inline helper() inlined into it ("hot;helper_[i]")
# and cold() calling an unrelated static helper() of another file, a
# function of its own ("cold;helper"). Base runs hot 20M steps and cold
# 160M; two heads double hot's work: one cuts cold's to keep the total
# (140M), one keeps it (160M). No inlining decision flipped, so the rule
# for a flip (docs/compare.md, Hotspots) must not count hot's inlined
# helper for cold's helper: with compare.hotspots.gate on, hot must be
# listed regressed and compare exit 1, both ways.
set -u
pg=$PERFGATE_BIN; bin=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

echo '{"compare": {"hotspots": {"gate": true}}}' >"$tmp/cfg.json"
for v in "base 20 160" "shift 40 140" "more 40 160"; do
        set -- $v
        printf '{"benchmarks": [{"name": "w", "argv": ["%s", "%s", "%s"]}]}\n' \
                "$bin" "$2" "$3" >"$tmp/$1.json"
        "$pg" run -q --repeat 5 --warmup 0 --out "$tmp/r$1" "$tmp/$1.json" 2>/dev/null ||
                { err "run $1"; exit 1; }
done
grep -q 'hot;helper_\[i\]' "$tmp/rbase/w.json" && grep -q 'cold;helper[";]' "$tmp/rbase/w.json" ||
        { err "no 'hot;helper_[i]' and 'cold;helper' in base's profile: nothing tested"; exit 1; }
for head in shift more; do
        (cd "$tmp" && "$pg" compare --config cfg.json --results "r$head" --json r.json ./rbase \
                >r.txt 2>&1)
        st=$?
        [ $st -eq 1 ] || err "head $head (hot's work doubled): compare exit $st, not 1"
        grep -Eq '^    hot  .* regressed$' "$tmp/r.txt" ||
                err "head $head: hot is not listed regressed"
        python3 - "$tmp/r.json" <<'PY' || err "head $head: JSON"
import json, sys
rep = json.load(open(sys.argv[1]))
kinds = {h['function']: h['kind'] for b in rep['benchmarks']
         for h in (b['hotspots'] or {}).get('functions', [])}
if kinds.get('hot') != 'regressed':
    sys.exit('FAIL: hot is %r in the JSON report, not regressed' % kinds.get('hot'))
PY
        [ $fail -eq 0 ] || cat "$tmp/r.txt" >&2
done
exit $fail
