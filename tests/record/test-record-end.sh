#!/bin/bash
# test-record-end.sh SERVICE - a recording's result says how it ended
# ("recording", docs/result-format.md): a process that exits before
# --duration ("target-exited", with the duration asked for), a --duration
# that passes ("duration"), SIGINT ("interrupted"); `show` prints it; and an
# output directory of another user refused before anything is recorded.
# Nothing is timed: the early refusal is bounded by a generous timeout only.
# shellcheck disable=SC2015  # A && B || err: err only reports
svc=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail, svc_pid: set by lib.sh
. "$(dirname "$0")/lib.sh"
ok() { echo "ok: $*"; }
# field FILE KEY: the value of "KEY" in FILE's "recording" object
field() {
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])).get("recording", {}); print(r.get(sys.argv[2], "-"))' "$1" "$2"
}

# 1. the process exits before --duration 60
start_service 1.5
"$pg" record -q -p "$svc_pid" --duration 60 -o "$tmp/exit.json" 2>"$tmp/exit.err"
st=$?
[ $st -eq 0 ] || err "exit mid-recording: exit $st: $(cat "$tmp/exit.err")"
[ "$(field "$tmp/exit.json" ended)" = target-exited ] &&
        [ "$(field "$tmp/exit.json" requested_ns)" = 60000000000 ] &&
        [ "$(field "$tmp/exit.json" elapsed_ns)" -lt 60000000000 ] ||
        err "exit mid-recording: recording $(grep -A4 '"recording"' "$tmp/exit.json")"
"$pg" show "$tmp/exit.json" | grep -q "ended when the target exited (60.0 s requested)" ||
        err "show does not say the target exited: $("$pg" show "$tmp/exit.json" | head -8)"
ok "process exited mid-recording: ended target-exited, elapsed $(field "$tmp/exit.json" elapsed_ns) ns"

# 2. --duration passes
start_service 0
"$pg" record -q -p "$svc_pid" --duration 0.5 -o "$tmp/dur.json" 2>"$tmp/dur.err" ||
        err "--duration: $(cat "$tmp/dur.err")"
[ "$(field "$tmp/dur.json" ended)" = duration ] && [ "$(field "$tmp/dur.json" requested_ns)" = 500000000 ] ||
        err "--duration: recording $(grep -A4 '"recording"' "$tmp/dur.json")"
ok "--duration: ended duration"

# 3. SIGINT, no --duration: no requested_ns
"$pg" record -q -p "$svc_pid" -o "$tmp/int.json" 2>"$tmp/int.err" &
rec=$!
for _ in $(seq 100); do [ -e "/proc/$rec" ] && grep -q perfgate "/proc/$rec/comm" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -INT "$rec"
wait "$rec" || err "SIGINT: exit $?: $(cat "$tmp/int.err")"
[ "$(field "$tmp/int.json" ended)" = interrupted ] && [ "$(field "$tmp/int.json" requested_ns)" = - ] ||
        err "SIGINT: recording $(grep -A4 '"recording"' "$tmp/int.json")"
ok "SIGINT: ended interrupted"

# 4. --out DIR of another user: refused (exit 2) before recording, not after
# 600 s of it
if [ "$(id -u)" = 0 ]; then
        mkdir "$tmp/theirs" && chown 65534 "$tmp/theirs"
        timeout 120 "$pg" record -q -p "$svc_pid" --duration 600 --out "$tmp/theirs" 2>"$tmp/own.err"
        st=$?
        [ $st -eq 2 ] && grep -q "refusing to write into" "$tmp/own.err" &&
                [ -z "$(ls "$tmp/theirs")" ] || err "--out of another user: exit $st: $(cat "$tmp/own.err")"
        ok "--out of another user refused first: $(cat "$tmp/own.err")"
else
        echo "note: not root: the other user's --out directory is not checked"
fi
exit "$fail"
