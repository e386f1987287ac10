#!/bin/bash
# test-annotate.sh CC HOTLINE_GCC [HOTLINE_CLANG] - `perfgate annotate` on real
# recordings of a function whose hot source line is known (the line marked
# HOT LINE in tests/fixtures/record/hotline.c): it must come first, for gcc
# and clang builds (clang emits no .debug_aranges); the source is found under
# --source-dir once it moved; instructions are listed with their shares; a
# function without samples of its own exits 2 naming near functions; a
# result without address histograms exits 2. No timing is judged.
set -u
pg=$PERFGATE_BIN; cc=$1; shift
src=$PG_SOURCE_DIR/tests/fixtures/record/hotline.c
hot=$(grep -n 'HOT LINE' "$src" | tail -1 | cut -d: -f1)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

# first_line OUTPUT: "file:line" of the first (hottest) source line
first_line() { awk '/^ Percent \| Source lines/{on=1; next} on && /%/ {print $3; exit}' "$1"; }

for bin in "$@"; do
        name=$(basename "$bin")
        "$pg" record -q -o "$tmp/$name.json" -- "$bin" 1 || { err "record $name"; continue; }
        "$pg" annotate "$tmp/$name.json" annotate_hot >"$tmp/$name.txt" 2>&1 ||
                { err "annotate $name: $(cat "$tmp/$name.txt")"; continue; }
        got=$(first_line "$tmp/$name.txt")
        [ "$got" = "hotline.c:$hot" ] || err "$name: hottest line is '$got', not hotline.c:$hot"
        grep -q 'HOT LINE' "$tmp/$name.txt" || err "$name: the source text is not shown"
        # every instruction of the function is listed; the shares add up to ~100%
        grep -qE '^ +[0-9.]+% \| +[0-9a-f]+:  (div|idiv)' "$tmp/$name.txt" ||
                grep -qE '^ +\| +[0-9a-f]+:  (div|idiv)' "$tmp/$name.txt" || err "$name: no div instruction listed"
        sum=$(awk '/^ Percent \| Instructions/{on=1; next} on && /%/ {gsub("%","",$1); s+=$1} END{printf "%d", s+0.5}' "$tmp/$name.txt")
        [ "$sum" -ge 99 ] && [ "$sum" -le 101 ] || err "$name: instruction shares sum to $sum%"
        echo "ok: $name: $(sed -n 3p "$tmp/$name.txt")"
done

# the source moved: found with --source-dir
mkdir -p "$tmp/build" "$tmp/elsewhere/src"
cp "$src" "$tmp/build/hotline.c"
(cd "$tmp/build" && "$cc" -O1 -g -fno-omit-frame-pointer hotline.c -o hotline) || err "cannot build"
"$pg" record -q -o "$tmp/moved.json" -- "$tmp/build/hotline" 1 || err "record moved"
mv "$tmp/build/hotline.c" "$tmp/elsewhere/src/hotline.c"
"$pg" annotate "$tmp/moved.json" annotate_hot >"$tmp/moved1.txt" 2>&1
grep -q 'HOT LINE' "$tmp/moved1.txt" && err "source text shown although the file moved"
grep -q 'source-dir' "$tmp/moved1.txt" || err "no hint to use --source-dir"
"$pg" annotate --source-dir "$tmp/elsewhere/src" "$tmp/moved.json" annotate_hot >"$tmp/moved2.txt" 2>&1
grep -q 'HOT LINE' "$tmp/moved2.txt" || err "--source-dir: source not found: $(head -5 "$tmp/moved2.txt")"
[ "$(first_line "$tmp/moved2.txt")" = "hotline.c:$hot" ] || err "--source-dir: hottest line"
echo "ok: --source-dir"

# a function without samples of its own: exit 2, near names listed
"$pg" annotate "$tmp/moved.json" annotate_ho >/dev/null 2>"$tmp/near.err"
st=$?
[ $st -eq 2 ] && grep -q "near names: 'annotate_hot'" "$tmp/near.err" || err "near names: exit $st: $(cat "$tmp/near.err")"
"$pg" annotate "$tmp/moved.json" no_such_function_at_all >/dev/null 2>"$tmp/none.err"
[ $? -eq 2 ] || err "unknown function must exit 2"
echo "ok: $(cat "$tmp/near.err")"

# a result written before address histograms existed: exit 2, says why
"$pg" annotate "$PG_SOURCE_DIR/tests/golden/result-sample.json" count_words >/dev/null 2>"$tmp/old.err"
st=$?
[ $st -eq 2 ] && grep -q "record it again" "$tmp/old.err" || err "old result: exit $st: $(cat "$tmp/old.err")"
"$pg" annotate >/dev/null 2>&1; [ $? -eq 2 ] || err "no operands must exit 2"
"$pg" annotate "$tmp/missing.json" f >/dev/null 2>&1; [ $? -eq 2 ] || err "missing result must exit 2"
exit $fail
