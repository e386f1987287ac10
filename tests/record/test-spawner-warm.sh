#!/bin/bash
# test-spawner-warm.sh - who holds the perf warm-up event of `perfgate run`
# (runner/launch.c, pg_spawner_warm_perf): the spawner, which forks the
# benchmarks, holds perf events of its own while they run (a dummy for the
# scheduler hooks, and one per default software event with a static key:
# context-switches, cpu-migrations, page-faults, so that the counters'
# open and close do not patch kernel text every repetition), and perfgate's
# own process no longer starts a thread for it. Read by the benchmark from
# /proc (its parent is the spawner, the spawner's parent is perfgate).
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
cat >bench.sh <<'EOF'
#!/bin/bash
# the benchmark's parent (the spawner) and grandparent (perfgate)
sp=$PPID
pgpid=$(awk '{ print $4 }' /proc/$sp/stat)
{
        echo "spawner $(cat /proc/$sp/comm)"
        echo "spawner-perf $(find /proc/$sp/fd -lname 'anon_inode:*perf_event*' 2>/dev/null | wc -l)"
        echo "perfgate $(cat /proc/$pgpid/comm)"
        echo "perfgate-threads $(ls /proc/$pgpid/task | wc -l)"
} >"$SEEN"
EOF
chmod +x bench.sh
printf '{"benchmarks": [{"name": "b", "argv": ["%s"]}]}\n' "$tmp/bench.sh" >m.json
export SEEN=$tmp/seen
"$pg" run -q --repeat 1 --warmup 0 --no-profile --out out m.json 2>run.err || err "run: $(cat run.err)"
grep -qx 'spawner perfgate-spawn' seen && grep -qx 'perfgate perfgate' seen ||
        err "the benchmark's parents are not the spawner and perfgate: $(tr '\n' ' ' <seen)"
n=$(awk '$1 == "spawner-perf" { print $2 }' seen)
# the dummy and the three software events open under the same rule
# (exclude_kernel, any paranoid level below 3): all four or none
[ "${n:-0}" -ge 4 ] && echo "ok: the spawner holds $n perf events while the benchmark runs" ||
        err "the spawner holds ${n:-0} perf events, not 4 (dummy, context-switches, cpu-migrations, page-faults): $(tr '\n' ' ' <seen)"
grep -qx 'perfgate-threads 1' seen && echo "ok: perfgate runs one thread" ||
        err "perfgate's threads: $(tr '\n' ' ' <seen)"
exit $fail
