#!/bin/bash
# test-annotate-rebuilt.sh CC - `perfgate annotate` of a binary rebuilt in
# place since the recording (same path, same function address, other code)
# must not attribute the old samples to the new instructions: the result
# stores the module's build-id (profile.addresses[].build_id) and annotate
# refuses a file whose NT_GNU_BUILD_ID differs (exit 2, both ids named). A
# result without build-ids (older perfgate) is annotated with a warning when
# the binary's line table disagrees with the recorded lines. Also: a
# stripped binary is called stripped, not rebuilt, and its debuginfo is
# found under a relative --debug-dir; a kernel function is said to be one;
# the samples of another C++ overload of the same name are said to be in
# that symbol (by its mangled name), not blamed on a rebuild.
# shellcheck disable=SC2015  # A && B || err: err only reports
cc=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
src=$PG_SOURCE_DIR/tests/fixtures/record/hotline.c
build() { (cd "$tmp/b" && "$cc" -O1 -g -fno-omit-frame-pointer "$1" -o hotline); }

mkdir -p "$tmp/b"
cp "$src" "$tmp/b/hotline.c"
build hotline.c || { err "cannot build"; exit 1; }
"$pg" record -q -o "$tmp/r.json" -- "$tmp/b/hotline" 1 || { err "record"; exit 1; }
bid=$(readelf -n "$tmp/b/hotline" | awk '/Build ID/{print $3}')
python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['profile']['addresses']
assert any(e.get('build_id')==sys.argv[2] for e in a), [e.get('build_id') for e in a]" "$tmp/r.json" "$bid" ||
        err "the result does not store the build-id $bid"
"$pg" annotate "$tmp/r.json" annotate_hot >"$tmp/same.out" 2>"$tmp/same.err" && ! grep -q warning "$tmp/same.err" ||
        err "the same build: $(cat "$tmp/same.err")"

# a malformed build_id is refused when the result is loaded
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))
for e in r['profile']['addresses']: e['build_id'] = 'ABC'
json.dump(r, open(sys.argv[2], 'w'))" "$tmp/r.json" "$tmp/badbid.json"
"$pg" show "$tmp/badbid.json" >/dev/null 2>"$tmp/badbid.err"
st=$?
[ $st -eq 2 ] && grep -q "build_id" "$tmp/badbid.err" || err "malformed build_id: exit $st: $(cat "$tmp/badbid.err")"

# rebuilt in place from another file: refused, naming both build-ids
cp "$tmp/b/hotline" "$tmp/hotline.orig"
sed 's/i \& 3;/i \& 7;/' "$tmp/b/hotline.c" >"$tmp/b/hotline2.c"
build hotline2.c || err "cannot rebuild"
nbid=$(readelf -n "$tmp/b/hotline" | awk '/Build ID/{print $3}')
"$pg" annotate "$tmp/r.json" annotate_hot >"$tmp/re.out" 2>"$tmp/re.err"
st=$?
[ $st -eq 2 ] && grep -q "$nbid" "$tmp/re.err" && grep -q "$bid" "$tmp/re.err" ||
        err "rebuilt binary: exit $st: $(cat "$tmp/re.err")"
echo "ok: $(cat "$tmp/re.err")"

# a result without build-ids: the line table no longer matches: a warning
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))
for e in r['profile']['addresses']: e.pop('build_id', None)
json.dump(r, open(sys.argv[2], 'w'))" "$tmp/r.json" "$tmp/old.json"
"$pg" annotate "$tmp/old.json" annotate_hot >"$tmp/old.out" 2>"$tmp/old.err"
st=$?
[ $st -eq 0 ] && grep -q "hotline2.c" "$tmp/old.err" && grep -q "rebuilt" "$tmp/old.err" ||
        err "rebuilt binary, result without build-id: exit $st: $(cat "$tmp/old.err")"
echo "ok: $(cat "$tmp/old.err")"

# the recorded build, stripped: called stripped (exit 4), not rebuilt
cp "$tmp/hotline.orig" "$tmp/b/hotline"
mkdir -p "$tmp/dd/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$tmp/b/hotline" "$tmp/dd/.build-id/${bid:0:2}/${bid:2}.debug"
strip "$tmp/b/hotline"
"$pg" annotate "$tmp/r.json" annotate_hot >/dev/null 2>"$tmp/strip.err"
st=$?
[ $st -eq 4 ] && grep -q "stripped" "$tmp/strip.err" && ! grep -q "rebuilt" "$tmp/strip.err" ||
        err "stripped binary: exit $st: $(cat "$tmp/strip.err")"
echo "ok: $(cat "$tmp/strip.err")"
# its debuginfo under a relative --debug-dir is found
(cd "$tmp" && "$pg" annotate --debug-dir dd r.json annotate_hot >"$tmp/dd.out" 2>"$tmp/dd.err")
st=$?
[ $st -eq 0 ] && grep -q 'HOT LINE' "$tmp/dd.out" || err "relative --debug-dir: exit $st: $(cat "$tmp/dd.err")"
echo "ok: relative --debug-dir: $(sed -n 3p "$tmp/dd.out")"
"$pg" annotate --debug-dir "$tmp/no-such-dir" "$tmp/r.json" annotate_hot >/dev/null 2>"$tmp/nodd.err"
st=$?
[ $st -eq 2 ] && grep -q "no-such-dir" "$tmp/nodd.err" || err "missing --debug-dir: exit $st: $(cat "$tmp/nodd.err")"

# a kernel function: said to be one, not "no samples of its own"
"$pg" annotate "$tmp/r.json" 'irqentry_exit_to_user_mode_[k]' >/dev/null 2>"$tmp/k.err"
st=$?
[ $st -eq 2 ] && grep -q "is a kernel function" "$tmp/k.err" || err "kernel function: exit $st: $(cat "$tmp/k.err")"
echo "ok: $(cat "$tmp/k.err")"

# two C++ overloads of one name, both hot: the other one's samples are named
if command -v g++ >/dev/null; then
        cat >"$tmp/ov.cc" <<'EOC'
#include <ctime>
volatile double sink;
__attribute__((noinline)) double f(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i * i; return x; }
__attribute__((noinline)) double f(double n) { volatile double x = 0; for (double i = 0; i < n; i++) x += i * i; return x; }
int main() { time_t t0 = time(0); while (time(0) - t0 < 1) { sink += f(3000000L); sink += f(3000000.0); } }
EOC
        g++ -O1 -g -fno-omit-frame-pointer -o "$tmp/ov" "$tmp/ov.cc" || err "cannot build ov.cc"
        "$pg" record -q -o "$tmp/ov.json" -- "$tmp/ov" || err "record ov"
        "$pg" annotate "$tmp/ov.json" f >"$tmp/ov.out" 2>"$tmp/ov.err"
        st=$?
        [ $st -eq 0 ] && grep -qE 'in another symbol of this name, not shown: _Z1f[ld]' "$tmp/ov.out" &&
                ! grep -q rebuilt "$tmp/ov.out" || err "overloads: exit $st: $(head -6 "$tmp/ov.out") $(cat "$tmp/ov.err")"
        echo "ok: overloads: $(grep 'another symbol' "$tmp/ov.out")"
fi
exit $fail
