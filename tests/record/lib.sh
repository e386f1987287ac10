# lib.sh - what the record/top test scripts share (sourced; bash): a
# scratch directory, the services they start (killed on exit), failures.
# The sourcing script sets svc (the service program) first.
# shellcheck shell=bash disable=SC2034,SC2154  # pg, fail, svc: shared with the sourcing script
set -u
pg=$PERFGATE_BIN
tmp=$(mktemp -d); chmod 755 "$tmp"
pids=()
fail=0
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
err() { echo "FAIL: $*" >&2; fail=1; }
# start_service ARGS...: run the service, wait (<= 30 s) for "ready"; svc_pid
start_service() {
        local out=$tmp/svc.$RANDOM
        "$svc" "$@" >"$out" 2>&1 &
        svc_pid=$!
        pids+=("$svc_pid")
        for _ in $(seq 300); do grep -q ready "$out" && return 0; sleep 0.1; done
        err "service did not start"; return 1
}
# use_tmux NAME: a private tmux server for this script (tm runs tmux on it),
# killed on exit; without tmux the test is skipped (exit 0)
use_tmux() {
        command -v tmux >/dev/null 2>&1 || { echo "skip: tmux is not installed"; exit 0; }
        sock=pg-$1-$$
        trap 'tm kill-server 2>/dev/null; cleanup' EXIT
}
tm() { tmux -L "$sock" "$@"; }
