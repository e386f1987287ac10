#!/bin/bash
# test-union-scopes.sh - a function inlined into a member function of a
# union gets its inlined frame, named with the union: the scope walk enters
# DW_TAG_union_type as it does classes and structures, also when the union
# is local to a function (g++ defines its member functions inside it, inside
# the function's DIE). tests/fixtures/inline/local_union.cpp built by g++
# and by clang++ with lld, measured by `perfgate run`. Oracle:
# llvm-addr2line -i (binutils' names the inlined frame after its caller) on
# every sampled address of the member function: the samples at addresses
# where it lists mixed inlined are those of the stacks ending in
# Word::mixed_[i], the others those ending in Word::spin. A missing
# toolchain skips its compiler (exit 77 when none ran).
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
src=$PG_SOURCE_DIR/tests/fixtures/inline/local_union.cpp
command -v llvm-addr2line >/dev/null || { echo "skipped: no llvm-addr2line (apt-get install llvm)"; exit 77; }
ran=0

# check NAME COMPILER ARGS...: build, run, compare with llvm-addr2line
check() {
        local name=$1 cc=$2 d=$tmp/$1
        shift 2
        mkdir -p "$d"
        "$cc" -O2 -g -fno-omit-frame-pointer "$@" -o "$d/prog" "$src" 2>"$d/build.log" ||
                { err "$name: $(cat "$d/build.log")"; return; }
        printf '{"benchmarks": [{"name": "b", "argv": ["%s"]}]}\n' "$d/prog" >"$d/b.json"
        "$pg" run -q --repeat 1 --warmup 0 --out "$d/r" "$d/b.json" 2>/dev/null || { err "$name: run"; return; }
        python3 - "$d/r/b.json" >"$d/addrs" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))['profile']['addresses']:
    if e['function'].endswith('::Word::spin'):
        print('\n'.join('0x%s %d' % (a, n) for a, n in e['counts'].items()))
PY
        cut -d' ' -f1 "$d/addrs" | llvm-addr2line -a -i -f -C -e "$d/prog" >"$d/a2l"
        python3 - "$d/r/b.json" "$d/addrs" "$d/a2l" "$name" <<'PY' || err "$name: perfgate and llvm-addr2line disagree"
import json, sys
prof = json.load(open(sys.argv[1]))['profile']
counts = dict(l.split() for l in open(sys.argv[2]))
inlined = set()
# per address: its line, then a function and its file:line per frame,
# innermost first (g++: DW_AT_name "mixed"; clang++: the linkage name's)
for group in open(sys.argv[3]).read().split('0x')[1:]:
    lines = group.strip().split('\n')
    names = lines[1::2]
    if len(names) >= 2 and (names[0] == 'mixed' or '::Word::mixed(' in names[0]) \
            and '::Word::spin(' in names[1]:
        inlined.add(int(lines[0], 16))
want_in = sum(int(n) for a, n in counts.items() if int(a, 16) in inlined)
want_out = sum(int(n) for n in counts.values()) - want_in
got_in = sum(n for s, n in prof['stacks'].items() if s.endswith('::Word::spin;Word::mixed_[i]')
             or s.endswith('::Word::spin;run(unsigned long, unsigned long)::Word::mixed_[i]'))
got_out = sum(n for s, n in prof['stacks'].items() if s.endswith('::Word::spin'))
print('%s: samples in mixed inlined into spin: perfgate %d, llvm-addr2line %d; in spin itself: '
      'perfgate %d, llvm-addr2line %d' % (sys.argv[4], got_in, want_in, got_out, want_out))
sys.exit(0 if want_in > 0 and got_in == want_in and got_out == want_out else 1)
PY
        ran=$((ran + 1))
}

if command -v g++ >/dev/null; then check gxx g++; else echo "skipped g++: no g++"; fi
if command -v clang++ >/dev/null && command -v ld.lld >/dev/null; then
        check clangxx clang++ -fuse-ld=lld
else
        echo "skipped clang++: no clang++ or ld.lld (apt-get install clang lld)"
fi
[ "$ran" -eq 0 ] && [ "$fail" -eq 0 ] && exit 77
exit "$fail"
