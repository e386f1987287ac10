#!/bin/bash
# test-fp-stop.sh CXX SOURCE - a std::thread program built with frame
# pointers: its threads' chains stop in libstdc++ (a system library built
# without frame pointers), so `perfgate record` names that library and
# --call-graph dwarf, and does not tell the user to rebuild with
# -fno-omit-frame-pointer; with --call-graph dwarf the stacks reach the
# thread entry and nothing is said.
set -u
cxx=$1 src=$2 pg=$PERFGATE_BIN
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
"$cxx" -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread -o "$tmp/thr" "$src" ||
        { echo "FAIL: cannot build $src" >&2; exit 1; }
lib=$(ldd "$tmp/thr" | awk '/libstdc\+\+/ {print $3}')
case $lib in
/lib/* | /usr/lib/*) ;;
*) echo "SKIP: libstdc++ is not a system library here ($lib)"; exit 77 ;;
esac
"$pg" record -o "$tmp/fp.json" -- "$tmp/thr" 2>"$tmp/fp.err" || err "record: exit $?: $(cat "$tmp/fp.err")"
cat "$tmp/fp.err"
"$pg" show --stacks "$tmp/fp.json" | grep -q 'worker;spin' || err "no worker;spin stack"
if "$pg" show --stacks "$tmp/fp.json" | grep -q 'start_thread'; then
        echo "SKIP: this libstdc++ keeps frame pointers (the chains reach start_thread)"
        [ $fail = 0 ] && exit 77
        exit $fail
fi
grep -q "most chains stop in libstdc++" "$tmp/fp.err" || err "the warning does not name libstdc++"
grep -q -- "--call-graph dwarf" "$tmp/fp.err" || err "the warning does not suggest --call-graph dwarf"
grep -q -- "-fno-omit-frame-pointer" "$tmp/fp.err" && err "the warning tells the user to rebuild"
"$pg" record --call-graph dwarf -o "$tmp/dw.json" -- "$tmp/thr" 2>"$tmp/dw.err" ||
        err "record --call-graph dwarf: exit $?: $(cat "$tmp/dw.err")"
grep -q "reach main or a thread entry" "$tmp/dw.err" && err "dwarf: $(cat "$tmp/dw.err")"
[ $fail = 0 ] && echo "ok: $(grep 'stop in' "$tmp/fp.err")"
exit $fail
