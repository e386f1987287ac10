#!/bin/bash
# test-run-progress.sh HOTLINE - `perfgate run` on a terminal: after each
# sampling run, the progress line shows the hottest functions of the
# profile so far (the known hot function first); without a terminal, or
# with -q, no such line. The terminal is a real pseudo-terminal from
# script(1). Nothing is timed.
# shellcheck disable=SC2015  # A && B || err: err only reports
bin=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail: set by lib.sh
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "skip: script(1) (util-linux) is not installed"; exit 77; }
cat >"$tmp/perfgate.json" <<JSON
{"benchmarks": [{"name": "hot", "argv": ["$bin", "0.5"]}]}
JSON
run="'$pg' run --repeat 1 --warmup 0 --out '$tmp/out' '$tmp/perfgate.json'"

# on a terminal (wide enough for the whole line)
script -q -e -c "stty cols 200; $run" "$tmp/tty.txt" >/dev/null 2>&1 ||
        err "run under script: exit $?: $(cat "$tmp/tty.txt")"
tr '\r' '\n' <"$tmp/tty.txt" | grep 'sampling run' >"$tmp/lines"
[ -s "$tmp/lines" ] && grep -q '^\(.\[K\)\?benchmark 1/1 hot, sampling run 1: annotate_hot [0-9]*%' "$tmp/lines" ||
        err "no progress line naming annotate_hot first: $(cat -v "$tmp/tty.txt")"
echo "ok: $(head -1 "$tmp/lines" | cat -v)"

# without a terminal, and with -q on one: no progress lines
"$pg" run --repeat 1 --warmup 0 --out "$tmp/out" "$tmp/perfgate.json" 2>"$tmp/notty.err" ||
        err "run without a terminal: $(cat "$tmp/notty.err")"
# the progress line's own form ("sampling run N:"), not a warning that
# mentions sampling runs (a slow build takes more of them)
grep -q 'sampling run [0-9][0-9]*:' "$tmp/notty.err" && err "a progress line without a terminal: $(cat "$tmp/notty.err")"
script -q -e -c "stty cols 200; $run -q" "$tmp/q.txt" >/dev/null 2>&1 || err "run -q under script: exit $?"
grep -q 'sampling run [0-9][0-9]*:' "$tmp/q.txt" && err "a progress line with -q: $(cat -v "$tmp/q.txt")"
echo "ok: no progress line without a terminal or with -q"
exit "$fail"
