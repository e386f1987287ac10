#!/bin/bash
# test-annotate-overloads.sh - `perfgate annotate` of a name shared by two
# C++ overloads (a real g++ build): by the name, the symbol with the most
# samples is annotated and a warning lists both (mangled name, signature,
# share); each mangled name annotates that overload alone, its own line
# first; a mangled name without samples is refused (exit 2) with the list.
# Oracle: nm gives the mangled names and their demangled signatures.
# shellcheck disable=SC2015  # A && B || err: err only reports
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
command -v g++ >/dev/null || { echo "skipped: no g++ (apt-get install g++)"; exit 77; }
cat >"$tmp/ov.cc" <<'EOC'
volatile double sink;
__attribute__((noinline)) double f(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i * i; return x; } // LONG
__attribute__((noinline)) double f(double n) { volatile double x = 0; for (double i = 0; i < n; i++) x += i * i; return x; } // DOUBLE
int main() { for (int k = 0; k < 8; k++) { sink += f(30000000L); sink += f(3000000.0); } }
EOC
g++ -O1 -g -fno-omit-frame-pointer -o "$tmp/ov" "$tmp/ov.cc" || { err "cannot build ov.cc"; exit 1; }
nm "$tmp/ov" | grep -q ' _Z1fl$' && nm "$tmp/ov" | grep -q ' _Z1fd$' || { err "nm: no _Z1fl/_Z1fd"; exit 1; }
nm -C "$tmp/ov" | grep -q ' f(long)$' && nm -C "$tmp/ov" | grep -q ' f(double)$' || err "nm -C: no f(long)/f(double)"
"$pg" record -q -o "$tmp/ov.json" -- "$tmp/ov" || { err "record"; exit 1; }

# by the shared name: the hottest (f(long), 10x the work), both listed
"$pg" annotate "$tmp/ov.json" f >"$tmp/name.out" 2>"$tmp/name.err"
st=$?
[ $st -eq 0 ] || err "by name: exit $st: $(cat "$tmp/name.err")"
grep -q "'f' is 2 symbols with samples" "$tmp/name.err" &&
        grep -qE '^  _Z1fl  f\(long\)  [0-9.]+%  \(shown\)$' "$tmp/name.err" &&
        grep -qE '^  _Z1fd  f\(double\)  [0-9.]+%$' "$tmp/name.err" || err "by name: no list: $(cat "$tmp/name.err")"
grep -q 'Source lines of f(long) ' "$tmp/name.out" || err "by name: not f(long): $(head -3 "$tmp/name.out")"
echo "ok: by name: $(cat "$tmp/name.err")"

# by each mangled name: that overload, its own line hottest, no list
for m in _Z1fl:LONG _Z1fd:DOUBLE; do
        sym=${m%%:*} tag=${m#*:}
        line=$(grep -n "// $tag" "$tmp/ov.cc" | cut -d: -f1)
        "$pg" annotate "$tmp/ov.json" "$sym" >"$tmp/$sym.out" 2>"$tmp/$sym.err"
        st=$?
        [ $st -eq 0 ] && [ ! -s "$tmp/$sym.err" ] || err "$sym: exit $st: $(cat "$tmp/$sym.err")"
        sed -n 3p "$tmp/$sym.out" | grep -qF "ov.cc:$line " || err "$sym: first line is not ov.cc:$line: $(head -4 "$tmp/$sym.out")"
        other=_Z1fd; [ "$sym" = _Z1fd ] && other=_Z1fl
        grep -q "in another symbol of this name, not shown: $other" "$tmp/$sym.out" || err "$sym: the other overload is not named"
        echo "ok: $sym: $(sed -n 1p "$tmp/$sym.out")"
done

# a mangled name of this function without samples: refused, with the list
"$pg" annotate "$tmp/ov.json" _Z1fi >/dev/null 2>"$tmp/none.err"
st=$?
[ $st -eq 2 ] && grep -q "symbol '_Z1fi' has no samples" "$tmp/none.err" && grep -q '_Z1fd  f(double)' "$tmp/none.err" ||
        err "_Z1fi: exit $st: $(cat "$tmp/none.err")"
exit $fail
