#!/bin/bash
# test-line-inlined-side.sh BASE_BIN HEAD_BIN - "grew most at" for a
# function inlined in one build and not in the other: two gcc -O2 builds of
# tests/fixtures/record/inline_side.c, base with mix() always_inline (its
# samples are main's, at mix's lines inlined from inline_side.h), head with
# mix() noinline and twice the rounds on its second loop. Both measured by
# `perfgate run` and compared: mix is one hotspot (regressed, not new), and
# the line named is compared with base's samples at that line, not with
# none: its "+N pp" is head's share of the line minus base's, both read here
# from the results' address histograms (base: main's inlined entries of
# mix; head: mix's own lines), and base holds a share of its own there.
set -u
pg=$PERFGATE_BIN; base_bin=$1; head_bin=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

printf '{"benchmarks": [{"name": "b", "argv": ["%s", "64"]}]}\n' "$base_bin" >"$tmp/base.json"
printf '{"benchmarks": [{"name": "b", "argv": ["%s", "128"]}]}\n' "$head_bin" >"$tmp/head.json"
"$pg" run -q --repeat 3 --warmup 0 --out "$tmp/rb" "$tmp/base.json" 2>/dev/null || err "run base"
"$pg" run -q --repeat 3 --warmup 0 --out "$tmp/rh" "$tmp/head.json" 2>/dev/null || err "run head"
(cd "$tmp" && "$pg" compare --results rh --json r.json ./rb >r.txt 2>&1)
st=$?
{ [ $st -eq 0 ] || [ $st -eq 1 ]; } || { err "compare: exit $st"; cat "$tmp/r.txt" >&2; exit 1; }
grep -qE '^    mix  .* regressed$' "$tmp/r.txt" || { err "mix is not one regressed hotspot"; cat "$tmp/r.txt" >&2; }
python3 - "$tmp/rb/b.json" "$tmp/rh/b.json" "$tmp/r.json" <<'PY' || fail=1
import json, sys
base, head, rep = (json.load(open(p)) for p in sys.argv[1:])
hot = [h for b in rep['benchmarks'] for h in (b['hotspots'] or {}).get('functions', [])
       if h['function'] == 'mix']
if not hot or not hot[0].get('line'):
    sys.exit('FAIL: no line named for mix: %s' % hot)
line, pp = hot[0]['line'], hot[0]['line_delta_pp']
def share(r, own):
    n = 0
    for e in r['profile']['addresses']:
        if own and e['function'] == 'mix':
            n += e.get('lines', {}).get(line, 0)
        if not own:
            n += sum(i['samples'] for i in e.get('inlined') or []
                     if i['function'] == 'mix' and i['line'] == line)
    return 100.0 * n / r['profile']['samples']
b, h = share(base, False), share(head, True)
print('mix grew most at %s: report %+.2f pp; base %.2f%% (inlined), head %.2f%%' % (line, pp, b, h))
if 'inline_side.h:' not in line:
    sys.exit('FAIL: the line is not in inline_side.h')
# The grown loop spans lines 15 (its test and increment) and 16 (its body),
# and the two builds lay them out differently: on a loaded machine line 15
# grew most, base 5.77% (inlined) against head 26.88%, while an idle run
# names line 16 at 22% against 43%. Base's share need only be well above
# none for the check below to tell a base line found from one missed.
if b < 2.0:
    sys.exit('FAIL: base holds too few samples at %s for the check to mean anything' % line)
if abs(pp - (h - b)) > 0.02:
    sys.exit('FAIL: the report says %+.2f pp, head - base is %+.2f pp (base lines not found)'
             % (pp, h - b))
PY
exit $fail
