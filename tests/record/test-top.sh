#!/bin/bash
# test-top.sh SERVICE - `perfgate top --stdio` on a real running process:
# the first snapshot (one 1 s interval of sampling) ranks the service's hot
# function first; a thread started later shows up in later snapshots with
# its own function; --sort changes the columns; the process exiting ends top
# (exit 0, said on stderr); bad input exits 2, another user's process as
# nobody exits 3. Snapshots are judged by content, never by time taken.
svc=$1
. "$(dirname "$0")/lib.sh"
# snapshot N FILE: the table of the N-th snapshot
snapshot() { awk -v n="$1" '/^perfgate top:/{k++} k==n' "$2"; }

start_service 0 "$tmp/trigger"
"$pg" top --stdio --interval 1 --iterations 3 -p "$svc_pid" >"$tmp/top.txt" 2>"$tmp/top.err" &
top_pid=$!
# the second thread starts once the first snapshot is out
for _ in $(seq 600); do grep -q '^perfgate top:' "$tmp/top.txt" && break; sleep 0.1; done
touch "$tmp/trigger"
wait "$top_pid"; st=$?
[ $st -eq 0 ] || err "top: exit $st: $(cat "$tmp/top.err")"
[ "$(grep -c '^perfgate top:' "$tmp/top.txt")" -eq 3 ] || err "top: not 3 snapshots"
first=$(snapshot 1 "$tmp/top.txt" | sed -n 3p)
case $first in
*record_main_hot*) echo "ok: first snapshot: $first" ;;
*) err "first snapshot does not rank record_main_hot first:"; snapshot 1 "$tmp/top.txt" >&2 ;;
esac
echo "$first" | grep -qE '^ +[0-9.]+% +[0-9]+ +record_service +record_service +record_main_hot$' ||
        err "first row's columns (share, interval, comm, dso, symbol): '$first'"
snapshot 3 "$tmp/top.txt" | grep -q record_late_hot ||
        { err "the thread started during top is missing from the last snapshot"; cat "$tmp/top.txt" >&2; }

# --sort sym: one column
"$pg" top --stdio --interval 0.5 --iterations 1 --sort sym --lines 3 -p "$svc_pid" >"$tmp/sym.txt" 2>&1 ||
        err "top --sort sym"
sed -n 2p "$tmp/sym.txt" | grep -qE '^ +share +interval +symbol$' || err "--sort sym header: $(sed -n 2p "$tmp/sym.txt")"
[ "$(snapshot 1 "$tmp/sym.txt" | grep -c '%')" -le 3 ] || err "--lines 3 printed more"
# standard output that fails (a full disk): exit 4 at the first snapshot,
# not after sampling on to the end (no --iterations: it would never end)
if [ -c /dev/full ]; then
        timeout 60 "$pg" top --stdio --interval 0.5 -p "$svc_pid" >/dev/full 2>"$tmp/full.err"
        st=$?
        [ $st -eq 4 ] && grep -q "cannot write to standard output" "$tmp/full.err" ||
                err "top > /dev/full: exit $st (want 4 at once): $(cat "$tmp/full.err")"
fi
kill -9 "$svc_pid"

# the process exits: top ends, exit 0, says so
start_service 1.5
"$pg" top --stdio --interval 0.5 -p "$svc_pid" >"$tmp/exit.txt" 2>"$tmp/exit.err"
st=$?
[ $st -eq 0 ] && grep -q "exited" "$tmp/exit.err" || err "process exit: exit $st: $(cat "$tmp/exit.err")"
echo "ok: $(cat "$tmp/exit.err")"

# bad input
"$pg" top --stdio -p 99999999 --iterations 1 >/dev/null 2>"$tmp/none.err"
st=$?; [ $st -eq 2 ] && grep -q "no process 99999999" "$tmp/none.err" || err "no such pid: exit $st"
"$pg" top -p 1 --iterations 1 </dev/null >/dev/null 2>&1; [ $? -eq 2 ] || err "without --stdio and no terminal must exit 2"
"$pg" top --stdio --sort sym,bogus -a >/dev/null 2>&1; [ $? -eq 2 ] || err "bad --sort must exit 2"
"$pg" top --stdio --sort sym,sym -a >/dev/null 2>&1; [ $? -eq 2 ] || err "repeated --sort key must exit 2"
"$pg" top --stdio >/dev/null 2>&1; [ $? -eq 2 ] || err "no target must exit 2"
"$pg" top --stdio --interval 0 -a >/dev/null 2>&1; [ $? -eq 2 ] || err "--interval 0 must exit 2"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
        start_service 0
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
                "$pg" top --stdio --iterations 1 -p "$svc_pid" >/dev/null 2>"$tmp/nobody.err"
        st=$?
        [ $st -eq 3 ] && grep -q CAP_PERFMON "$tmp/nobody.err" || err "another user's process: exit $st: $(cat "$tmp/nobody.err")"
        kill -9 "$svc_pid"
fi
exit $fail
