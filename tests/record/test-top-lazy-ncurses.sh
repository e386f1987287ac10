#!/bin/bash
# test-top-lazy-ncurses.sh SERVICE - ncurses is loaded only when top's
# terminal view starts (cli/cmd_top.c). With an empty file named as the
# ncursesw soname first on LD_LIBRARY_PATH (dlopen(3) fails "file too
# short"): `perfgate --version` and `top --stdio` work (nothing loads it);
# the terminal view, in a real terminal (tmux), exits 2 naming the library,
# the Debian package and --stdio. Waits are bounded, never timed.
svc=$1
. "$(dirname "$0")/lib.sh"
use_tmux topnc
soname=$(ldd "$(command -v tmux)" 2>/dev/null | grep -o 'libncursesw\.so\.[0-9]*' | head -n 1)
[ -n "$soname" ] || soname=libncursesw.so.6
mkdir "$tmp/broken" && : >"$tmp/broken/$soname"

LD_LIBRARY_PATH=$tmp/broken "$pg" --version >"$tmp/v" 2>&1 || err "--version with a broken $soname: $(cat "$tmp/v")"
echo "ok: --version does not load $soname"
start_service 0
LD_LIBRARY_PATH=$tmp/broken "$pg" top --stdio --interval 0.2 --iterations 1 -p "$svc_pid" >"$tmp/stdio" 2>&1 ||
        err "top --stdio with a broken $soname: $(cat "$tmp/stdio")"
grep -q 'record_main_hot' "$tmp/stdio" && echo "ok: top --stdio works without $soname" ||
        err "top --stdio shows no record_main_hot: $(cat "$tmp/stdio")"

# tmux itself needs ncurses: only the command in its pane gets the broken path
tm -f /dev/null new-session -d -s top -x 160 -y 40 \
        "TERM=xterm LD_LIBRARY_PATH='$tmp/broken' '$pg' top -p $svc_pid 2>'$tmp/err'; echo \"exit=\$?\" >'$tmp/exit'; sleep 60"
for _ in $(seq 600); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = "exit=2" ] || err "terminal view: $(cat "$tmp/exit" 2>/dev/null || echo 'did not exit')"
grep -q "cannot load $soname" "$tmp/err" && grep -q 'apt-get install libncursesw' "$tmp/err" &&
        grep -q -- '--stdio' "$tmp/err" && echo "ok: the terminal view says what to install: $(cat "$tmp/err")" ||
        err "the terminal view's message: $(cat "$tmp/err")"
exit $fail
