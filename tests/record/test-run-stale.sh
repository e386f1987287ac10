#!/bin/bash
# test-run-stale.sh - `perfgate run` frees the names of a benchmark's old
# result and log before the benchmark (no stale result is ever left under
# them), but removes the old files only after the benchmarks ran
# (runner/run.c pg_stale_move: a hidden ".<name>.<ext>.stale" in the output
# directory):
#  - while the benchmark runs, its result name is free and its log is new;
#  - after the run only the new result and log are there, nothing hidden;
#  - a link planted at the result's name is moved, never written through:
#    the file it pointed to is unchanged;
#  - a run killed (SIGKILL) during its benchmark leaves the old files hidden,
#    its .perfgate-run marker (readers refuse the directory),
#    no result, and the next run removes them.
# Waits are bounded, never timed.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
cat >bench.sh <<'EOF'
#!/bin/bash
# what the output directory holds while the benchmark runs
ls -A out >"$STALE_SEEN"
echo "new output"
[ -z "${STALE_HOLD:-}" ] || { echo $$ >"$STALE_HOLD.tmp"; mv "$STALE_HOLD.tmp" "$STALE_HOLD"; exec sleep 60; }
EOF
chmod +x bench.sh
printf '{"benchmarks": [{"name": "b", "argv": ["%s"]}]}\n' "$tmp/bench.sh" >m.json
export STALE_SEEN=$tmp/seen
run() { "$pg" run -q --repeat 1 --warmup 0 --no-profile --out out m.json 2>>run.err; }

run || err "first run: $(cat run.err)"
echo "old log" >out/b.log
run || err "second run: $(cat run.err)"
if grep -qx 'b.json' seen; then err "the old result is still there while the benchmark runs: $(cat seen)"
elif ! grep -qx 'b.log' seen; then err "no log while the benchmark runs: $(cat seen)"
else echo "ok: while the benchmark runs the old result's name is free: $(tr '\n' ' ' <seen)"; fi
[ "$(ls -A out | tr '\n' ' ')" = "b.json b.log " ] && echo "ok: after the run: $(ls -A out | tr '\n' ' ')" ||
        err "after the run the directory holds: $(ls -A out | tr '\n' ' ')"
grep -q 'new output' out/b.log && ! grep -q 'old log' out/b.log && echo "ok: the log is new" ||
        err "log: $(cat out/b.log)"

echo victim >victim
ln -sf "$tmp/victim" out/b.json
run || err "run over a link: $(cat run.err)"
[ "$(cat victim)" = victim ] && [ -f out/b.json ] && [ ! -L out/b.json ] &&
        [ "$(ls -A out | tr '\n' ' ')" = "b.json b.log " ] && echo "ok: a link at the result's name is moved aside, its target unchanged" ||
        err "link: victim '$(cat victim)', $(ls -lA out)"

STALE_HOLD=$tmp/held "$pg" run -q --repeat 1 --warmup 0 --no-profile --out out m.json 2>>run.err &
pgpid=$!
pids+=("$pgpid")
for _ in $(seq 600); do [ -e held ] && break; sleep 0.1; done
[ -e held ] || err "the benchmark did not start"
pids+=("$(cat held 2>/dev/null)")
kill -9 "$pgpid"
wait "$pgpid" 2>/dev/null
kill -9 "$(cat held)" 2>/dev/null # the held benchmark (its own session), by its pid
[ "$(ls -A out | tr '\n' ' ')" = ".b.json.stale .b.log.stale .perfgate-run b.log " ] && echo "ok: killed during the benchmark (its marker left): $(ls -A out | tr '\n' ' ')" ||
        err "after a kill: $(ls -A out | tr '\n' ' ')"
run || err "run after a kill: $(cat run.err)"
[ "$(ls -A out | tr '\n' ' ')" = "b.json b.log " ] && echo "ok: the next run removes them" ||
        err "after the next run: $(ls -A out | tr '\n' ' ')"
exit $fail
