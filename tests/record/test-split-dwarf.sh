#!/bin/bash
# test-split-dwarf.sh - split DWARF (-gsplit-dwarf: the functions and their
# inlined subroutines only in .dwo files) and compressed debug sections.
# tests/fixtures/inline/split_dwarf.c is compiled to an object and its .dwo,
# then linked, by gcc (DWARF 5 and 4) with ld.bfd and ld.lld and by clang
# with ld.lld, and recorded by `perfgate record`. Oracle: llvm-addr2line -i
# (it reads the .dwo as perfgate should; binutils' addr2line 2.40 does
# not), on the binary and on its twin built without -gsplit-dwarf, at
# every sampled address of spin: the samples at the addresses where
# it lists step and mix inlined must be those of perfgate's stacks ending in
# spin;step_[i];mix_[i], and so on for each chain, and the source line of
# each address (the innermost one) that of perfgate's lines. Then, what
# cannot be read must be said: the same program without its .dwo (a
# warning of record naming the .dwo; doctor warns), for clang a .dwp
# package in its place (read, or a warning naming it: libdw reads them from
# elfutils 0.190 on), and, when ld writes zstd-compressed debug sections,
# either their inlined frames or a warning naming zstd (in the binary, and
# in a separate debug file of a stripped binary). A .dwo or .dwp path that
# is not a regular file (a FIFO, /dev/zero, a directory; beside the binary
# or in DW_AT_comp_dir) is refused with a warning naming it, by record and
# doctor, within 60 s (a FIFO hung them forever). A missing toolchain skips its variant (exit 77 when none
# ran).
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
src=$PG_SOURCE_DIR/tests/fixtures/inline/split_dwarf.c
command -v llvm-addr2line >/dev/null || { echo "skipped: no llvm-addr2line (apt-get install llvm)"; exit 77; }
ran=0
iters=150000000

# record NAME: perfgate record $tmp/NAME/prog into $tmp/NAME/r.json,
# its messages in $tmp/NAME/err
record() {
        local d=$tmp/$1
        "$pg" record -F 499 -o "$d/r.json" -- "$d/prog" "$iters" >/dev/null 2>"$d/err" ||
                { err "$1: record: $(cat "$d/err")"; return 1; }
}

# compare NAME ORACLE: perfgate's inlined chains and lines of spin in
# $tmp/NAME/r.json against llvm-addr2line's on binary $tmp/NAME/ORACLE
compare() {
        local d=$tmp/$1 oracle=$2
        python3 - "$d/r.json" >"$d/addrs" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1]))['profile']['addresses']:
    if e['function'] == 'spin':
        print('\n'.join('0x%s %d' % (a, n) for a, n in e['counts'].items()))
PY
        cut -d' ' -f1 "$d/addrs" | llvm-addr2line -a -i -f -e "$d/$oracle" >"$d/a2l"
        python3 - "$d/r.json" "$d/addrs" "$d/a2l" "$1 ($oracle)" <<'PY' || err "$1: perfgate and llvm-addr2line on $oracle disagree"
import collections, json, os, re, sys
prof = json.load(open(sys.argv[1]))['profile']
counts = {int(a, 16): int(n) for a, n in (l.split() for l in open(sys.argv[2]))}
want_chain, want_line = collections.Counter(), collections.Counter()
# per address: the address, then a function and its file:line:column per
# frame, innermost first
for group in open(sys.argv[3]).read().split('0x')[1:]:
    lines = group.strip().split('\n')
    addr, names, where = int(lines[0], 16), lines[1::2], lines[2::2]
    if not names or names[-1] != 'spin':
        sys.exit('%s: llvm-addr2line puts 0x%x outside spin: %s' % (sys.argv[4], addr, names))
    want_chain[';'.join([names[-1]] + [n + '_[i]' for n in reversed(names[:-1])])] += counts[addr]
    f, l = where[0].rsplit(':', 2)[:2]
    want_line['%s:%s' % (os.path.basename(f), l)] += counts[addr]
got_chain, got_line = collections.Counter(), collections.Counter()
for s, n in prof['stacks'].items():
    frames = s.split(';')
    # a sample in the kernel has no address of spin in the counts
    if 'spin' in frames and not any(f.endswith('_[k]') for f in frames):
        got_chain[';'.join(frames[frames.index('spin'):])] += n
for e in prof['addresses']:
    if e['function'] == 'spin':
        for k, n in e.get('lines', {}).items():
            got_line[os.path.basename(k)] += n
print('%s: inlined chains in spin: perfgate %s, llvm-addr2line %s' %
      (sys.argv[4], dict(got_chain), dict(want_chain)))
print('%s: lines of spin: perfgate %s, llvm-addr2line %s' % (sys.argv[4], dict(got_line), dict(want_line)))
sys.exit(0 if want_chain.get('spin;step_[i];mix_[i]', 0) > 0 and got_chain == want_chain
         and got_line == want_line else 1)
PY
}

# check NAME COMPILER LINKFLAGS ORACLES COMPILEFLAGS...: compile to an
# object and its .dwo, link, record, compare with llvm-addr2line on each of
# ORACLES: prog itself (reading the .dwo), plain (the same program built
# without -gsplit-dwarf, its .text checked to be the same bytes: LLVM 14's
# llvm-addr2line misreads clang's split range lists, DW_RLE_offset_pair
# taken without the skeleton's base address); then without the .dwo
check() {
        local name=$1 cc=$2 ldflags=$3 oracles=$4 d=$tmp/$1 o
        shift 4
        mkdir -p "$d"
        # shellcheck disable=SC2086  # ldflags: words
        (cd "$d" && "$cc" -O2 -g -gsplit-dwarf -fno-omit-frame-pointer "$@" -c "$src" -o prog.o &&
                "$cc" $ldflags prog.o -o prog &&
                "$cc" -O2 -g -fno-omit-frame-pointer "$@" -c "$src" -o plain.o &&
                "$cc" $ldflags plain.o -o plain &&
                objcopy -O binary --only-section=.text prog prog.text &&
                objcopy -O binary --only-section=.text plain plain.text) >"$d/build.log" 2>&1 ||
                { err "$name: $(cat "$d/build.log")"; return; }
        [ -f "$d/prog.dwo" ] || { err "$name: no $d/prog.dwo was written"; return; }
        cmp -s "$d/prog.text" "$d/plain.text" || { err "$name: -gsplit-dwarf changed the code"; return; }
        if record "$name"; then
                for o in $oracles; do compare "$name" "$o"; done
        fi
        if grep -q 'dwo' "$d/err"; then err "$name: a warning about .dwo files that are there: $(cat "$d/err")"; fi
        "$pg" doctor "$d/prog" >"$d/doctor" 2>&1
        grep -q "^ok .*debuginfo: DWARF in the file, split into 1 .dwo file, all found" "$d/doctor" ||
                err "$name: doctor: $(grep debuginfo "$d/doctor")"
        # the .dwo gone: said once, naming it; doctor warns
        mv "$d/prog.dwo" "$d/prog.dwo.away"
        record "$name" || return
        [ "$(grep -c "split into .dwo files (-gsplit-dwarf) and '$d/prog.dwo' was not found" "$d/err")" = 1 ] ||
                err "$name: without prog.dwo, record says: $(cat "$d/err")"
        if python3 -c 'import json,sys; sys.exit(not any(s.endswith("_[i]") and "spin" in s
                for s in json.load(open(sys.argv[1]))["profile"]["stacks"]))' "$d/r.json"; then
                err "$name: inlined frames in spin without the .dwo"
        fi
        "$pg" doctor "$d/prog" >"$d/doctor" 2>&1
        grep -q "^warn .*debuginfo: .*1 not read (the first: '$d/prog.dwo' was not found or belongs to another build)" "$d/doctor" ||
                err "$name: doctor without the .dwo: $(grep debuginfo "$d/doctor")"
        # a .dwp package beside the binary (llvm-dwp; it loops on GCC's
        # DWARF 5 .dwo and binutils' dwp 2.40 crashes on it): read, or said
        if [ "$cc" = clang ] && command -v llvm-dwp >/dev/null; then
                (cd "$d" && cp prog.dwo.away prog.dwo && timeout 120 llvm-dwp -e prog -o prog.dwp &&
                        rm prog.dwo) >"$d/dwp.log" 2>&1 || { err "$name: llvm-dwp: $(cat "$d/dwp.log")"; return; }
                record "$name" || return
                if ! python3 -c 'import json,sys; sys.exit(not any(s.endswith("mix_[i]")
                        for s in json.load(open(sys.argv[1]))["profile"]["stacks"]))' "$d/r.json"; then
                        grep -q "this libdw does not read the package '$d/prog.dwp'" "$d/err" ||
                                err "$name: with prog.dwp, no inlined frames and record says: $(cat "$d/err")"
                fi
        fi
        ran=$((ran + 1))
}

# refused NAME PATH WHAT: $tmp/NAME/prog recorded (and doctored, and
# annotated) while PATH, where libdw looks for a .dwo or .dwp, is WHAT (a
# FIFO, a character device, ...): a warning names PATH and says what it
# is, once, and exit 0. libdw's open(2) of a FIFO blocks forever and no
# signal ends it: SIGKILL after 60 s makes a regression fail, not hang.
refused() {
        local d=$tmp/$1 path=$2 what=$3 rc=0
        timeout -s KILL 60 "$pg" record -F 499 -o "$d/r.json" -- "$d/prog" 2000000 >/dev/null 2>"$d/err" ||
                rc=$?
        [ "$rc" = 0 ] || { err "$1: $path $what: record exit $rc: $(cat "$d/err")"; return; }
        [ "$(grep -c "and '$path' is $what, not a regular file, so perfgate did not open it: the inlined frames" "$d/err")" = 1 ] ||
                err "$1: $path $what: record says: $(cat "$d/err")"
        rc=0
        timeout -s KILL 60 "$pg" doctor "$d/prog" >"$d/doctor" 2>&1 || rc=$?
        [ "$rc" -le 1 ] && grep -q "^warn .*debuginfo: .*1 not read (the first: '$path' is $what, not a regular file, so perfgate did not open it)" "$d/doctor" ||
                err "$1: $path $what: doctor exit $rc: $(grep debuginfo "$d/doctor")"
        rc=0
        timeout -s KILL 60 "$pg" annotate "$d/r.json" spin >/dev/null 2>"$d/aerr" || rc=$?
        [ "$rc" = 0 ] || err "$1: $path $what: annotate exit $rc: $(cat "$d/aerr")"
}

# non_regular NAME: after check NAME (prog.dwo moved to prog.dwo.away)
non_regular() {
        local d=$tmp/$1
        mkfifo "$d/prog.dwo" && refused "$1" "$d/prog.dwo" "a FIFO"
        rm -f "$d/prog.dwo"
        ln -s /dev/zero "$d/prog.dwo" && refused "$1" "$d/prog.dwo" "a character device"
        rm -f "$d/prog.dwo"
        mkdir "$d/prog.dwo" && refused "$1" "$d/prog.dwo" "a directory"
        rmdir "$d/prog.dwo"
        # libdw looks beside the file it read first, then in DW_AT_comp_dir:
        # a FIFO beside a copy of the binary, the good .dwo in comp_dir
        cp "$d/prog.dwo.away" "$d/prog.dwo"
        mkdir -p "$d/copy" && cp "$d/prog" "$d/copy/prog" && mkfifo "$d/copy/prog.dwo"
        refused "$1/copy" "$d/copy/prog.dwo" "a FIFO"
        rm "$d/copy/prog.dwo"
        # a .dwp package beside the binary (libdw opens it first from 0.191 on)
        mkfifo "$d/prog.dwp" && refused "$1" "$d/prog.dwp" "a FIFO"
        rm -f "$d/prog.dwp"
}

if command -v gcc >/dev/null; then
        check gcc-bfd gcc -fuse-ld=bfd "prog plain"
        check gcc-dwarf4 gcc -fuse-ld=bfd "prog plain" -gdwarf-4
        non_regular gcc-bfd
        non_regular gcc-dwarf4
        if command -v ld.lld >/dev/null; then check gcc-lld gcc -fuse-ld=lld "prog plain"; else echo "skipped gcc-lld: no ld.lld"; fi
else
        echo "skipped gcc: no gcc"
fi
if command -v clang >/dev/null && command -v ld.lld >/dev/null; then
        check clang-lld clang -fuse-ld=lld plain
else
        echo "skipped clang: no clang or ld.lld (apt-get install clang lld)"
fi

# zstd-compressed debug sections (ld.bfd 2.40 writes them; libelf reads
# them from elfutils 0.189 on): inlined frames, or a warning naming zstd
z=$tmp/zstd
mkdir -p "$z"
if command -v gcc >/dev/null &&
        gcc -O2 -g -fno-omit-frame-pointer -fuse-ld=bfd -Wl,--compress-debug-sections=zstd \
                "$src" -o "$z/prog" >"$z/build.log" 2>&1 &&
        readelf -t "$z/prog" 2>/dev/null | grep -qi zstd; then
        if record zstd; then
                if python3 -c 'import json,sys; sys.exit(not any(s.endswith("mix_[i]")
                        for s in json.load(open(sys.argv[1]))["profile"]["stacks"]))' "$z/r.json"; then
                        echo "zstd: this libelf reads zstd sections: inlined frames present"
                else
                        grep -q "the debug sections of '$z/prog' are zstd-compressed" "$z/err" ||
                                err "zstd: no inlined frames and no warning: $(cat "$z/err")"
                        "$pg" doctor "$z/prog" 2>&1 | grep -q "^warn .*debuginfo: DWARF in the file, zstd-compressed" ||
                                err "zstd: doctor does not warn"
                fi
                ran=$((ran + 1))
        fi
        # the same sections in a separate debug file (.gnu_debuglink), the binary stripped
        if (cd "$z" && cp prog sprog && objcopy --only-keep-debug sprog sprog.debug &&
                objcopy --compress-debug-sections=zstd sprog.debug &&
                strip -g sprog && objcopy --add-gnu-debuglink=sprog.debug sprog) >"$z/strip.log" 2>&1; then
                mv "$z/sprog" "$z/prog"
                if record zstd && ! python3 -c 'import json,sys; sys.exit(not any(s.endswith("mix_[i]")
                        for s in json.load(open(sys.argv[1]))["profile"]["stacks"]))' "$z/r.json"; then
                        grep -q "the debug sections of '$z/sprog.debug' are zstd-compressed.*of '$z/prog' are missing" "$z/err" ||
                                err "zstd debug file: no inlined frames and no warning: $(cat "$z/err")"
                fi
        else
                err "zstd: $(cat "$z/strip.log")"
        fi
else
        echo "skipped zstd: the linker does not write zstd-compressed sections"
fi
[ "$ran" -eq 0 ] && [ "$fail" -eq 0 ] && exit 77
exit "$fail"
