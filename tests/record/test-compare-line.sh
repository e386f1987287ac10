#!/bin/bash
# test-compare-line.sh BASE_BIN HEAD_BIN - two builds of regress.c, the head
# one with more work on the line marked GROWN LINE of grow_fn(); both are
# measured by `perfgate run` and compared: the text, Markdown and JSON
# reports must name that line as the one whose samples grew most in the
# regressed function, and a comparison of results without line histograms
# must still work (no line named).
set -u
pg=$PERFGATE_BIN; base_bin=$1; head_bin=$2
src=$PG_SOURCE_DIR/tests/fixtures/record/regress.c
grown=$(grep -n 'GROWN LINE' "$src" | tail -1 | cut -d: -f1)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

mkdir -p "$tmp/b" "$tmp/h"
cp "$base_bin" "$tmp/b/regress"; cp "$head_bin" "$tmp/h/regress"
"$pg" run -q --repeat 5 --warmup 0 --out "$tmp/base" "$tmp/b/regress" 2>/dev/null || err "run base"
"$pg" run -q --repeat 5 --warmup 0 --out "$tmp/head" "$tmp/h/regress" 2>/dev/null || err "run head"
(cd "$tmp" && "$pg" compare --results head --markdown report.md --json report.json ./base >report.txt 2>&1)
st=$?
{ [ $st -eq 0 ] || [ $st -eq 1 ]; } || err "compare: exit $st: $(cat "$tmp/report.txt")"
grep -q 'grow_fn .* regressed' "$tmp/report.txt" || { err "grow_fn not regressed"; cat "$tmp/report.txt" >&2; }
grep -qE "grew most at .*regress\.c:$grown \(\+[0-9.]+ pp\)" "$tmp/report.txt" ||
        { err "text report does not name regress.c:$grown"; cat "$tmp/report.txt" >&2; }
grep -qE "grew most at .*regress\.c:$grown" "$tmp/report.md" || err "Markdown report does not name the line"
grep -qE "\"line\": *\"[^\"]*regress\.c:$grown\"" "$tmp/report.json" || err "JSON report does not name the line"
echo "ok: $(grep 'grew most' "$tmp/report.txt")"

# results without line histograms (an older perfgate): compared, no line named
for d in base head; do
        sed -e '/"lines": {/,/}/d' "$tmp/$d/regress.json" >"$tmp/$d/x" && mv "$tmp/$d/x" "$tmp/$d/regress.json"
done
grep -q '"lines"' "$tmp/base/regress.json" && err "could not strip the line histograms"
(cd "$tmp" && "$pg" compare --results head ./base >old.txt 2>&1)
st=$?
{ [ $st -eq 0 ] || [ $st -eq 1 ]; } || err "compare without lines: exit $st: $(cat "$tmp/old.txt")"
grep -q 'grew most' "$tmp/old.txt" && err "a line named without line histograms"
grep -q 'grow_fn' "$tmp/old.txt" || err "hotspots missing without line histograms"
exit $fail
