#!/bin/bash
# test-compare-inlined-line.sh - "grew most at" names a line of the user's
# own file when the samples that grew are in code inlined from another file
# (Rust's core, the C++ library's headers, Go's math/bits): the call site
# there, with the function inlined at it and that function's line. Real
# binaries built here by Debian's rustc (/usr/bin/rustc, never ~/.cargo),
# g++ (bfd), clang++ with lld (no .debug_aranges), go (no .debug_aranges)
# and go with cgo (aranges of the C objects only) from
# tests/fixtures/inline/, each run with an argument that adds work on the
# line marked GROWN LINE (base 0, head 1), measured by `perfgate run` and
# compared. Oracles (tests/record/inline_oracle.py): addr2line -i on the
# function's sampled addresses of both sides tells how much of the grown
# line's growth is in the inlined function; the report must name it when
# that is most (>= 60%), and must not when it is little (<= 40%: a CPU's
# skid can put an inlined instruction's samples on the line's own next
# instruction); a named function's line holds a sampled address in that
# function inlined at the grown line; `perf record --call-graph dwarf` +
# `perf script -F ip,sym,srcline` has samples of the function at the
# grown line (or, where its addr2line finds no inlined frames, at the
# inlined function's line the report names). A missing toolchain skips its
# language (exit 77 when all are missing: ci/install-deps.sh lists them).
# shellcheck disable=SC2015  # A && B || err: err only reports
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
fix=$PG_SOURCE_DIR/tests/fixtures/inline
oracle=$PG_SOURCE_DIR/tests/record/inline_oracle.py
export GOCACHE=$tmp/gocache GO111MODULE=off
ran=0

# check LANG SRC BIN FUNCTION CALLEE A2L [SHIFT]: run, compare, assert; A2L:
# the addr2line that reads the toolchain's DWARF whole (binutils 2.40 finds
# no inlined frames at some of clang's addresses and renames Go's); SHIFT:
# how many lines below the marked one the DWARF puts its call (default 0)
check() {
        local lang=$1 src=$2 bin=$3 fn=$4 callee=$5 a2l=$6 d=$tmp/$1 grown rep at
        grown=$(($(grep -n 'GROWN LINE' "$src" | cut -d: -f1) + ${7:-0}))
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
        # oracle 1: addr2line -i on the function's sampled addresses of both
        # sides: how much of the line's growth is in the inlined callee (a
        # CPU's skid can put the samples of an inlined instruction on the
        # line's own next one); the report names the callee when most is
        local side at=
        for side in rb rh; do
                python3 - "$d/$side/b.json" "$fn" >"$d/$side.counts" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in r['profile']['addresses']:
    if e['function'] == sys.argv[2]:
        for a, n in e['counts'].items():
            print('0x%s %d' % (a, n))
PY
                cut -d' ' -f1 "$d/$side.counts" | "$a2l" -a -i -f -C -e "$bin" >"$d/$side.a2l"
        done
        total() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profile"]["samples"])' "$1"; }
        verdict=$(python3 "$oracle" share "$d/rb.a2l" "$d/rb.counts" "$(total "$d/rb/b.json")" \
                "$d/rh.a2l" "$d/rh.counts" "$(total "$d/rh/b.json")" "$callee" "$(basename "$src"):$grown")
        echo "$verdict"
        case "$verdict" in
        *': named') echo "$rep" | grep -qF "in inlined $callee" ||
                err "$lang: most of the growth is in the inlined $callee, which the report does not name" ;;
        *': unnamed') echo "$rep" | grep -qF "in inlined" &&
                err "$lang: the report names an inlined function that holds little of the growth" ;;
        esac
        if echo "$rep" | grep -qF "in inlined"; then
                echo "$rep" | grep -qF "in inlined $callee" || { err "$lang: the inlined $callee is not named"; return; }
                # the inlined function's line, as the report names it (basename:line)
                at=$(echo "$rep" | sed -n 's/.* at \([^ ]*:[0-9]*\))$/\1/p')
                [ -n "$at" ] || { err "$lang: no line of the inlined function"; return; }
                python3 - "$d/r.json" "$callee" "$at" <<'PY' || err "$lang: JSON report: no line_inlined"
import json, os, sys
r = json.load(open(sys.argv[1]))
ok = [f for b in r['benchmarks'] for f in (b['hotspots'] or {}).get('functions', [])
      if f.get('line_inlined', {}).get('function', '').startswith(sys.argv[2])
      and os.path.basename(f['line_inlined']['line']) == sys.argv[3]]
sys.exit(0 if ok else 1)
PY
                python3 "$oracle" a2l "$d/rh.a2l" "$at" "$callee" "$(basename "$src"):$grown" ||
                        err "$lang: $a2l -i has no sampled address at $at in $callee inlined at line $grown"
        fi
        # oracle 2: perf's own samples of the head binary are at the grown line
        if perf record -q -F 999 --call-graph dwarf -o "$d/perf.data" -- "$bin" 1 >/dev/null 2>&1; then
                perf script -F ip,sym,srcline -i "$d/perf.data" >"$d/perf.txt" 2>/dev/null
                python3 "$oracle" perf "$d/perf.txt" "$(basename "$src"):$grown" "$callee" "$fn" ${at:+"$at"} ||
                        err "$lang: perf shows no sample of $fn at $(basename "$src"):$grown"
        else
                echo "$lang: perf record --call-graph dwarf failed here: perf not asked"
        fi
        ran=$((ran + 1))
}

llvm=addr2line
command -v llvm-addr2line >/dev/null && llvm="llvm-addr2line"
if [ -x /usr/bin/rustc ]; then
        mkdir -p "$tmp/rust"
        /usr/bin/rustc -O -g -C force-frame-pointers=yes -o "$tmp/rust/hash" "$fix/hash.rs" 2>"$tmp/rust/build.log" ||
                err "rustc: $(cat "$tmp/rust/build.log")"
        check rust "$fix/hash.rs" "$tmp/rust/hash" 'hash::fnv_hash' \
                'core::num::<impl u64>::rotate_left' addr2line
else
        echo "skipped Rust: no /usr/bin/rustc (apt-get install rustc)"
fi
if command -v g++ >/dev/null; then
        mkdir -p "$tmp/gxx"
        g++ -O2 -g -fno-omit-frame-pointer -o "$tmp/gxx/words" "$fix/words.cpp" 2>"$tmp/gxx/build.log" ||
                err "g++: $(cat "$tmp/gxx/build.log")"
        check gxx "$fix/words.cpp" "$tmp/gxx/words" 'count_words' 'std::count<' addr2line
else
        echo "skipped g++: no g++ (apt-get install g++)"
fi
if command -v clang++ >/dev/null && command -v ld.lld >/dev/null; then
        mkdir -p "$tmp/cxx"
        clang++ -O2 -g -fno-omit-frame-pointer -fuse-ld=lld -o "$tmp/cxx/words" "$fix/words.cpp" \
                2>"$tmp/cxx/build.log" || err "clang++: $(cat "$tmp/cxx/build.log")"
        check cxx "$fix/words.cpp" "$tmp/cxx/words" 'count_words' 'std::count<' "$llvm"
else
        echo "skipped clang++: no clang++ or ld.lld (apt-get install clang lld)"
fi
if command -v go >/dev/null; then
        mkdir -p "$tmp/go"
        cp "$fix/sum.go" "$tmp/go/main.go"
        (cd "$tmp/go" && go build -o sum main.go) 2>"$tmp/go/build.log" || err "go: $(cat "$tmp/go/build.log")"
        check go "$tmp/go/main.go" "$tmp/go/sum" 'main.sumSquares' 'math/bits.Reverse64' "$llvm"
        # the same with cgo: the binary's .debug_aranges cover its C objects
        # only, and libdwfl answers a Go address with the C CU before it.
        # The C preamble and import take the blank line and the import line,
        # the call goes below the marked line: the lines above it stay put.
        # Go 1.19 puts the DW_AT_call_line of code inlined in a cgo file 3
        # lines low (the lines cgo writes above the source; its //line
        # directive is not applied there); perf and addr2line -i report
        # that line, so it is the one asked for
        if command -v gcc >/dev/null; then
                mkdir -p "$tmp/cgo"
                sed -e '/^package main$/{n;s|^$|// static int twice(int x) { return 2 * x; }|}' \
                        -e 's|^import (|import "C"; import (|' \
                        -e 's|rounds, _ = strconv.Atoi(os.Args\[1\])|&\n\t\trounds = int(C.twice(C.int(rounds))) / 2|' \
                        "$fix/sum.go" >"$tmp/cgo/main.go"
                grep -q 'C.twice' "$tmp/cgo/main.go" || err "cgo: the fixture was not made a cgo program"
                (cd "$tmp/cgo" && go build -o sum main.go) 2>"$tmp/cgo/build.log" || err "cgo: $(cat "$tmp/cgo/build.log")"
                check cgo "$tmp/cgo/main.go" "$tmp/cgo/sum" 'main.sumSquares' 'math/bits.Reverse64' "$llvm" 3
        fi
else
        echo "skipped Go: no go (apt-get install golang-go)"
fi
[ $ran -eq 0 ] && [ $fail -eq 0 ] && exit 77
exit $fail
