#!/bin/bash
# test-top-tmux.sh SERVICE - `perfgate top` (the terminal view) driven in a
# real terminal: a private tmux server runs it on the service; the screen is
# read with capture-pane and keys are sent with send-keys: the hot function
# appears, p pauses (and resumes), c shows the hottest callers of the
# selected function, q quits with exit 0. Waits are bounded, never timed.
svc=$1
. "$(dirname "$0")/lib.sh"
use_tmux top
# wait_screen REGEX: until the pane shows it (<= 60 s)
wait_screen() {
        for _ in $(seq 600); do
                tm capture-pane -p -t top >"$tmp/screen" 2>/dev/null
                grep -qE "$1" "$tmp/screen" && return 0
                sleep 0.1
        done
        err "the screen never showed '$1':"; cat "$tmp/screen" >&2; return 1
}

start_service 0
tm new-session -d -s top -x 160 -y 40 \
        "TERM=xterm '$pg' top --interval 0.5 -p $svc_pid; echo \"exit=\$?\" >'$tmp/exit'; sleep 60"
wait_screen 'record_main_hot' && echo "ok: the hot function is shown"
wait_screen '^ +[0-9.]+% +[0-9]+ +record_service +record_service +record_main_hot' ||
        err "record_main_hot is not the first row"
tm send-keys -t top p
wait_screen '\[paused\]' && echo "ok: p pauses"
tm send-keys -t top p
for _ in $(seq 600); do
        tm capture-pane -p -t top >"$tmp/screen"; grep -q '\[paused\]' "$tmp/screen" || break; sleep 0.1
done
grep -q '\[paused\]' "$tmp/screen" && err "p did not resume"
tm send-keys -t top c
wait_screen 'hottest callers of record_main_hot:' && wait_screen '^ +[0-9]+  main$' &&
        echo "ok: c shows the callers (main)"
tm send-keys -t top q
for _ in $(seq 600); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = "exit=0" ] || err "q: $(cat "$tmp/exit" 2>/dev/null || echo 'did not quit')"
echo "ok: q quits ($(cat "$tmp/exit" 2>/dev/null))"

# not a terminal: exit 2 pointing at --stdio
"$pg" top -p "$svc_pid" </dev/null >"$tmp/out" 2>&1
st=$?
[ $st -eq 2 ] && grep -q -- '--stdio' "$tmp/out" || err "no terminal: exit $st: $(cat "$tmp/out")"
exit $fail
