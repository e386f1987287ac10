#!/usr/bin/env bash
# test-stdout-signal.sh PERFGATE STALL_SO - what a command printed to a pipe
# before a signal ended it reaches the reader, whole lines only, and the
# file it was writing is neither left torn nor half-replaced (README, "Exit
# status"; docs/limits.md, "Interrupted runs and partial files").
# `perfgate history --json FILE` prints its header line to standard output,
# then writes FILE (temporary, fsync, rename): the shim
# (tests/fixtures/signals/stall.c) holds it at that fsync, the test sends
# the signal there, and judges what the pipe's reader got (exit 130, the
# header line complete) and what is left in the report directory (the old
# file untouched, no temporary).
. "${PG_SOURCE_DIR:-$(dirname "$0")/../..}/tests/ci/lib.sh"

pg=${1:?usage: test-stdout-signal.sh PERFGATE STALL_SO}
shim=${2:?usage: test-stdout-signal.sh PERFGATE STALL_SO}
export PERFGATE_NO_UPDATE_CHECK=1
mark=$scratch/mark
. "$(dirname "${BASH_SOURCE[0]}")/stall-lib.sh"

cd "$scratch" || exit 1
mkdir -p p/rep && cd p || exit 1
git init -q -b main .
printf 'rep/\n' >.gitignore
git add -A && git commit -qm one

# what the command prints without a signal: the line the reader must get
"$pg" history >"$scratch/whole.out" 2>"$scratch/whole.err"
check_eq "history without a signal: exit 0" 0 "$?"
head=$(head -n 1 "$scratch/whole.out")
check_grep "history prints its header line" "history of main (" "$scratch/whole.out"

for sig in TERM INT HUP; do
        rm -f "$scratch/got" "$scratch/out.fifo"
        echo old >rep/h.json
        mkfifo "$scratch/out.fifo"
        cat "$scratch/out.fifo" >"$scratch/got" &
        reader=$!
        stalled_out=$scratch/out.fifo stalled "$sig" PG_STALL_FSYNC=1 -- \
                "$pg" history --json rep/h.json
        wait "$reader"
        check_eq "SIG$sig: exit 130" 130 "$st"
        check_grep "SIG$sig: says interrupted" "interrupted (SIG$sig)" "$scratch/err"
        check_eq "SIG$sig: the reader got the line printed before the signal" \
                "$head" "$(head -n 1 "$scratch/got")"
        # nothing torn: the output ends at the end of a line
        check_eq "SIG$sig: the output ends with a newline" "0a" \
                "$(tail -c 1 "$scratch/got" | od -An -tx1 | tr -d ' ')"
        check_eq "SIG$sig: the old report untouched" old "$(cat rep/h.json)"
        check_eq "SIG$sig: no temporary left" "" "$(find rep -name '*.tmp.*')"
done
finish
