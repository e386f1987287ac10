#!/bin/bash
# test-annotate-nodebuginfod.sh CC - `perfgate annotate` of a binary with no
# local debug file searches this machine's files only, and so never loads
# the debuginfod client (libdebuginfod, and with it libcurl and GnuTLS),
# when DEBUGINFOD_URLS is unset or empty; when it names a server, libdw's
# own search (which asks it) is kept (docs/bare-metal.md). The libraries a
# process maps are read from the dynamic loader's LD_DEBUG=files trace
# (ld.so(8)). A debug file under --debug-dir is still found; a FIFO in its
# place is passed by, with or without a server named.
# shellcheck disable=SC2015  # A && B || err: err only reports
cc=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
src=$PG_SOURCE_DIR/tests/fixtures/record/hotline.c

mkdir -p "$tmp/b" "$tmp/cache"
cp "$src" "$tmp/b/hotline.c"
(cd "$tmp/b" && "$cc" -O1 -g -fno-omit-frame-pointer hotline.c -o hotline) || { err "cannot build"; exit 1; }
"$pg" record -q -o "$tmp/r.json" -- "$tmp/b/hotline" 1 || { err "record"; exit 1; }
bid=$(readelf -n "$tmp/b/hotline" | awk '/Build ID/{print $3}')
mkdir -p "$tmp/dd/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$tmp/b/hotline" "$tmp/dd/.build-id/${bid:0:2}/${bid:2}.debug"
strip "$tmp/b/hotline"

# annotate NAME ENV...: annotate the stripped binary (no debug file found:
# exit 4) with the environment ENV, the loader's trace in $tmp/NAME.ld
annotate() {
        local name=$1
        shift
        env -u DEBUGINFOD_URLS "$@" DEBUGINFOD_CACHE_PATH="$tmp/cache" DEBUGINFOD_TIMEOUT=5 \
                LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/$name.ld" \
                "$pg" annotate "$tmp/r.json" annotate_hot >/dev/null 2>"$tmp/$name.err"
        st=$?
        cat "$tmp/$name.ld".* >"$tmp/$name.ld" 2>/dev/null
}
for case in unset empty; do
        if [ $case = unset ]; then annotate $case; else annotate $case DEBUGINFOD_URLS=; fi
        [ $st -eq 4 ] && grep -q stripped "$tmp/$case.err" || err "DEBUGINFOD_URLS $case: exit $st: $(cat "$tmp/$case.err")"
        grep -q 'file=libdw\.so' "$tmp/$case.ld" || err "DEBUGINFOD_URLS $case: the trace shows no libdw: is LD_DEBUG honoured?"
        if grep -qE 'file=libdebuginfod|file=libcurl' "$tmp/$case.ld"; then
                err "DEBUGINFOD_URLS $case: the debuginfod client was loaded: $(grep -E 'file=lib(debuginfod|curl)' "$tmp/$case.ld" | head -2)"
        else
                echo "ok: DEBUGINFOD_URLS $case: exit $st, $(grep -c 'file=.*;  \(needed\|dynamically loaded\) by' "$tmp/$case.ld") libraries mapped, no libdebuginfod"
        fi
done

# a server named (a closed port on this machine: refused at once): libdw's
# search asks it, so the client is loaded, when it is installed
if ldconfig -p | grep -q 'libdebuginfod\.so\.1 '; then
        annotate set DEBUGINFOD_URLS=http://127.0.0.1:9/
        [ $st -eq 4 ] && grep -q stripped "$tmp/set.err" || err "DEBUGINFOD_URLS set: exit $st: $(cat "$tmp/set.err")"
        grep -q 'file=libdebuginfod' "$tmp/set.ld" ||
                err "DEBUGINFOD_URLS set: libdw's search (with debuginfod) was not used"
        echo "ok: DEBUGINFOD_URLS set: $(grep -c 'file=.*;  \(needed\|dynamically loaded\) by' "$tmp/set.ld") libraries mapped, libdebuginfod among them"
else
        echo "skip: DEBUGINFOD_URLS set: libdebuginfod is not installed"
fi

# a FIFO where the build-id names the debug file under --debug-dir: the
# search passes it by, whether or not DEBUGINFOD_URLS names a server,
# instead of blocking in open(2) on it (a run bounded by timeout(1))
mkdir -p "$tmp/fifo/.build-id/${bid:0:2}"
mkfifo "$tmp/fifo/.build-id/${bid:0:2}/${bid:2}.debug"
for urls in '' http://127.0.0.1:9/; do
        DEBUGINFOD_URLS=$urls DEBUGINFOD_CACHE_PATH="$tmp/cache" DEBUGINFOD_TIMEOUT=5 \
                timeout -s KILL 60 "$pg" annotate --debug-dir "$tmp/fifo" "$tmp/r.json" annotate_hot \
                >/dev/null 2>"$tmp/fifo.err"
        st=$?
        if [ $st -eq 4 ] && grep -q stripped "$tmp/fifo.err"; then
                echo "ok: a FIFO as the build-id debug file, DEBUGINFOD_URLS='$urls': exit 4, no debug file"
        else
                err "a FIFO as the build-id debug file, DEBUGINFOD_URLS='$urls': exit $st (137: killed by the timeout, perfgate hung): $(cat "$tmp/fifo.err")"
        fi
done

# the local search finds the debug file by build-id under --debug-dir
env -u DEBUGINFOD_URLS "$pg" annotate --debug-dir "$tmp/dd" "$tmp/r.json" annotate_hot >"$tmp/dd.out" 2>"$tmp/dd.err"
st=$?
[ $st -eq 0 ] && grep -q 'HOT LINE' "$tmp/dd.out" || err "--debug-dir: exit $st: $(cat "$tmp/dd.err")"
echo "ok: --debug-dir: $(sed -n 3p "$tmp/dd.out")"
exit $fail
