#!/bin/bash
# test-compare-inlined-line.sh - "grew most at" names a line of the user's
# own file when the samples that grew are in code inlined from another file
# (Rust's core, the C++ library's headers): the call site there, with the
# function inlined at it. Real binaries built here by Debian's rustc
# (/usr/bin/rustc, never ~/.cargo), clang++ and go from
# tests/fixtures/inline/, each run with an argument that adds work on the
# line marked GROWN LINE (base 0, head 3), measured by `perfgate run` and
# compared. Oracle: addr2line -i puts a sampled address of the function in
# the inlined callee's file, called from that line. A missing toolchain
# skips its language (exit 77 when all are missing: ci/install-deps.sh
# lists them).
# shellcheck disable=SC2015  # A && B || err: err only reports
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
fix=$PG_SOURCE_DIR/tests/fixtures/inline
export GOCACHE=$tmp/gocache GO111MODULE=off
ran=0

# check LANG SRC BIN FUNCTION CALLEE INNER_FILE: run, compare, assert
check() {
        local lang=$1 src=$2 bin=$3 fn=$4 callee=$5 inner=$6 d=$tmp/$1 grown rep
        grown=$(grep -n 'GROWN LINE' "$src" | cut -d: -f1)
        printf '{"benchmarks": [{"name": "b", "argv": ["%s", "%s"]}]}\n' "$bin" 0 >"$d/base.json"
        printf '{"benchmarks": [{"name": "b", "argv": ["%s", "%s"]}]}\n' "$bin" 1 >"$d/head.json"
        "$pg" run -q --repeat 3 --warmup 0 --out "$d/rb" "$d/base.json" 2>/dev/null || { err "$lang: run base"; return; }
        "$pg" run -q --repeat 3 --warmup 0 --out "$d/rh" "$d/head.json" 2>/dev/null || { err "$lang: run head"; return; }
        (cd "$d" && "$pg" compare --results rh --markdown r.md --json r.json ./rb >r.txt 2>&1)
        grep " $fn  " "$d/r.txt"
        rep=$(grep -A3 " $fn  " "$d/r.txt" | grep 'grew most at')
        echo "$lang: $rep"
        echo "$rep" | grep -qF "/$(basename "$src"):$grown (" ||
                { err "$lang: the line named is not $(basename "$src"):$grown"; cat "$d/r.txt" >&2; }
        grep -qF "$(basename "$src"):$grown" "$d/r.md" || err "$lang: Markdown does not name the line"
        if [ -n "$callee" ]; then
                echo "$rep" | grep -qF "in inlined $callee at $inner:" || err "$lang: the inlined callee is not named"
                python3 - "$d/r.json" "$callee" "$inner" <<'PY' || err "$lang: JSON report: no line_inlined"
import json, sys
r = json.load(open(sys.argv[1]))
ok = [f for b in r['benchmarks'] for f in (b['hotspots'] or {}).get('functions', [])
      if f.get('line_inlined', {}).get('function') == sys.argv[2]
      and sys.argv[3] in f['line_inlined']['line']]
sys.exit(0 if ok else 1)
PY
                # oracle: a sampled address of the function is in the callee's
                # file, inlined at the grown line
                python3 - "$d/rh/b.json" "$fn" >"$d/addrs" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))['profile']['addresses']:
    if e['function'] == sys.argv[2]:
        print(' '.join('0x' + a for a in e['counts']))
PY
                # shellcheck disable=SC2046  # one argument per address
                addr2line -i -e "$bin" $(cat "$d/addrs") >"$d/a2l"
                grep -A1 "/$inner:" "$d/a2l" | grep -qF "$(basename "$src"):$grown" ||
                        err "$lang: addr2line does not put $inner inlined at line $grown"
        fi
        ran=$((ran + 1))
}

if [ -x /usr/bin/rustc ]; then
        mkdir -p "$tmp/rust"
        /usr/bin/rustc -O -g -C force-frame-pointers=yes -o "$tmp/rust/hash" "$fix/hash.rs" 2>"$tmp/rust/build.log" ||
                err "rustc: $(cat "$tmp/rust/build.log")"
        check rust "$fix/hash.rs" "$tmp/rust/hash" 'hash::fnv_hash' \
                'core::num::<impl u64>::rotate_left' uint_macros.rs
else
        echo "skipped Rust: no /usr/bin/rustc (apt-get install rustc)"
fi
if command -v clang++ >/dev/null; then
        mkdir -p "$tmp/cxx"
        clang++ -O2 -g -fno-omit-frame-pointer -o "$tmp/cxx/words" "$fix/words.cpp" 2>"$tmp/cxx/build.log" ||
                err "clang++: $(cat "$tmp/cxx/build.log")"
        check cxx "$fix/words.cpp" "$tmp/cxx/words" 'count_words' '' ''
else
        echo "skipped C++: no clang++ (apt-get install clang)"
fi
if command -v go >/dev/null; then
        mkdir -p "$tmp/go"
        cp "$fix/sum.go" "$tmp/go/main.go"
        (cd "$tmp/go" && go build -o sum main.go) 2>"$tmp/go/build.log" || err "go: $(cat "$tmp/go/build.log")"
        check go "$tmp/go/main.go" "$tmp/go/sum" 'main.sumSquares' '' ''
else
        echo "skipped Go: no go (apt-get install golang-go)"
fi
[ $ran -eq 0 ] && [ $fail -eq 0 ] && exit 77
exit $fail
