# stall-lib.sh - sourced by the signal tests (after tests/ci/lib.sh): run a
# command held by the stall shim (tests/fixtures/signals/stall.c) and signal
# it there. Needs $shim (the shim's path), $mark (the mark file it creates)
# and $scratch.
# stalled SIG VAR=VALUE -- CMD...: run CMD with the shim (VAR set), its
# stdout to $stalled_out (default /dev/null), wait for the mark, send SIG,
# and leave the exit status in $st, stderr in $scratch/err.
stalled() {
        local sig=$1 var=$2 pid
        shift 3
        rm -f "$mark"
        env LD_PRELOAD="$shim" PG_STALL_MARK="$mark" "$var" "$@" >"${stalled_out:-/dev/null}" 2>"$scratch/err" &
        pid=$!
        for _ in $(seq 600); do
                [ -e "$mark" ] && break
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.05
        done
        [ -e "$mark" ] || fail "$sig $*: the shim never held the process"
        kill -"$sig" "$pid"
        wait "$pid"
        st=$?
}
