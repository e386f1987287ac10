#!/bin/bash
# test-annotate-near.sh HOTLINE - `perfgate annotate RESULT FUNCTION` with a
# function that has no samples of its own exits 2 and lists functions that
# can be annotated instead: for a caller (main), the functions below it that
# hold its samples; for a misspelling, the names near it; for a name like
# nothing in the profile, a pointer to `perfgate show`. The failed name is
# never among those listed, for every frame name of a real recording.
# shellcheck disable=SC2015  # A && B || err: err only reports
bin=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
# listed ERRFILE: the names the message lists, one per line
listed() { sed -n "s/.*\(near names: \|annotate one of \)//p" "$1" | tr -d "'" | tr ',' '\n' | sed 's/^ *//'; }

"$pg" record -q -o "$tmp/r.json" -- "$bin" 1 || { echo "FAIL: record"; exit 1; }

# a caller: its callees with samples of their own. main's own loop is a few
# instructions between 3 ms calls, yet a sample lands in it now and then (more
# often in a sanitizer build): then main can be annotated, and must be.
own=$("$pg" show --stacks "$tmp/r.json" | awk '{n=split($1,a,";"); if (a[n]=="main") s+=$2} END{print s+0}')
"$pg" annotate "$tmp/r.json" main >/dev/null 2>"$tmp/main.err"
st=$?
if [ "$own" -gt 0 ]; then
        [ $st -eq 0 ] || err "annotate main with $own samples of its own: exit $st: $(cat "$tmp/main.err")"
        echo "ok: main has $own samples of its own this time: annotated (the caller case not exercised)"
else
        [ $st -eq 2 ] && grep -q "it is a caller" "$tmp/main.err" && [ "$(listed "$tmp/main.err" | head -1)" = annotate_hot ] ||
                err "annotate main: exit $st: $(cat "$tmp/main.err")"
        echo "ok: $(cat "$tmp/main.err")"
fi

# a misspelling: the near name, not itself
"$pg" annotate "$tmp/r.json" annotate_ho >/dev/null 2>"$tmp/ho.err"
st=$?
[ $st -eq 2 ] && [ "$(listed "$tmp/ho.err" | head -1)" = annotate_hot ] ||
        err "annotate annotate_ho: exit $st: $(cat "$tmp/ho.err")"
echo "ok: $(cat "$tmp/ho.err")"

# nothing like it
"$pg" annotate "$tmp/r.json" qqqqzzzzxxxx >/dev/null 2>"$tmp/none.err"
st=$?
[ $st -eq 2 ] && grep -q "'perfgate show RESULT' lists its functions" "$tmp/none.err" ||
        err "annotate qqqqzzzzxxxx: exit $st: $(cat "$tmp/none.err")"
echo "ok: $(cat "$tmp/none.err")"

# every frame name of the recording that cannot be annotated: exit 2, and
# the failed name is not among those listed
"$pg" show --stacks "$tmp/r.json" | awk '{print $1}' | tr ';' '\n' | sort -u | head -40 >"$tmp/frames"
n=0
while IFS= read -r f; do
        "$pg" annotate "$tmp/r.json" "$f" >/dev/null 2>"$tmp/f.err"
        st=$?
        [ $st -eq 0 ] && continue
        n=$((n + 1))
        [ $st -eq 2 ] || err "annotate '$f': exit $st: $(cat "$tmp/f.err")"
        if listed "$tmp/f.err" | grep -qxF -- "$f"; then
                err "annotate '$f' lists itself: $(cat "$tmp/f.err")"
        fi
done <"$tmp/frames"
[ $n -gt 0 ] || err "no frame name without samples of its own was tried"
echo "ok: $n frame names without samples of their own: none lists itself"
exit "$fail"
