#!/bin/bash
# concurrent-runs.sh - run JOBS `perfgate run` of one bundled benchmark at the
# same time in one directory, ROUNDS times, and report every round in which
# a run failed or a benchmark-side task lived longer than BOUND seconds.
# A manual stress script (minutes per round on a busy 2-core machine), not a
# CTest test. On the first long-lived task of a round it saves, for that
# perfgate, its spawner and the task: /proc/PID/{stat,status,wchan,stack},
# the open descriptors, the spawner's children and a one-second strace(1) of
# the spawner and of perfgate (run as root to read kernel stacks).
#
# usage: tests/stress/concurrent-runs.sh [-p PERFGATE] [-r ROUNDS] [-j JOBS]
#            [-b BOUND] [-o DIR] [-u] [-- RUN-OPTIONS...]
#   -p  the perfgate binary (default build/perfgate)
#   -r  rounds (default 40); -j  concurrent runs per round (default 2)
#   -b  seconds a benchmark task may live before it counts as stalled (12)
#   -o  where rounds keep their output (default: a new temporary directory)
#   -u  run perfgate as uid/gid 65534 (setpriv), the output directory opened up
#   RUN-OPTIONS replace the default: --repeat 5 --filter '^wordfreq$'
# Run from the source tree after the bundled benchmarks are built (bench/bin).
# Exit status: 0 no round failed or stalled, 1 some did, 2 usage.
set -u
pg=build/perfgate rounds=40 jobs=2 bound=12 out= unpriv=0
while getopts p:r:j:b:o:u opt; do
        case $opt in
        p) pg=$OPTARG ;; r) rounds=$OPTARG ;; j) jobs=$OPTARG ;;
        b) bound=$OPTARG ;; o) out=$OPTARG ;; u) unpriv=1 ;;
        *) sed -n '2,21p' "$0" >&2; exit 2 ;;
        esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
if [ $# -gt 0 ]; then runopts=("$@"); else runopts=(--repeat 5 --filter '^wordfreq$'); fi
[ -x "$pg" ] || { echo "concurrent-runs.sh: no perfgate at '$pg' (-p)" >&2; exit 2; }
pg=$(cd "$(dirname "$pg")" && pwd)/$(basename "$pg")
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-concurrent.XXXXXX")
mkdir -p "$out"
pre=()
if [ "$unpriv" = 1 ]; then
        pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        chmod 1777 "$out"
fi

descendants() {
        local p
        for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
                echo "$p"
                descendants "$p"
        done
}

snapshot() { # perfgate spawner task
        local q
        for q in "$@"; do
                echo "=== $q $(cat /proc/"$q"/comm 2>/dev/null)"
                cat /proc/"$q"/stat 2>/dev/null
                grep -E 'State|PPid|Threads|Sig' /proc/"$q"/status 2>/dev/null
                echo "wchan: $(cat /proc/"$q"/wchan 2>/dev/null)"
                cat /proc/"$q"/stack 2>/dev/null
                ls -l /proc/"$q"/fd 2>/dev/null
                echo "children: $(cat /proc/"$q"/task/*/children 2>/dev/null)"
        done
        if command -v strace >/dev/null; then
                echo "--- strace of the spawner $2"
                timeout 1 strace -tt -p "$2" 2>&1 | head -16
                echo "--- strace of perfgate $1"
                timeout 1 strace -tt -p "$1" 2>&1 | head -24
        fi
        echo "--- the task again"
        cat /proc/"$3"/stat /proc/"$3"/stack 2>/dev/null
}

bad=0
for r in $(seq 1 "$rounds"); do
        d=$out/round-$r
        mkdir -p "$d"
        [ "$unpriv" = 1 ] && chmod 1777 "$d"
        pids=()
        t0=$(date +%s)
        for j in $(seq 1 "$jobs"); do
                "${pre[@]}" "$pg" run -q --out "$d/out-$j" "${runopts[@]}" -- bench/ \
                        >"$d/err-$j" 2>&1 &
                pids+=($!)
        done
        stalled=
        while :; do
                alive=0
                for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
                [ $alive = 0 ] && break
                sleep 0.5
                [ -n "$stalled" ] && continue
                for p in "${pids[@]}"; do
                        for s in $(cat /proc/"$p"/task/*/children 2>/dev/null); do
                                for t in $(descendants "$s"); do
                                        age=$(ps -o etimes= -p "$t" 2>/dev/null | tr -d ' ')
                                        if [ -n "$age" ] && [ "$age" -ge "$bound" ] && [ -z "$stalled" ]; then
                                                stalled=$t
                                                snapshot "$p" "$s" "$t" >"$d/stall.txt" 2>&1
                                        fi
                                done
                        done
                done
        done
        codes=
        for p in "${pids[@]}"; do
                wait "$p"
                codes="$codes $?"
        done
        secs=$(($(date +%s) - t0))
        if [ -n "$stalled" ] || [ -n "$(echo "$codes" | tr -d ' 0')" ]; then
                bad=$((bad + 1))
                echo "round $r: exit statuses$codes, ${secs} s${stalled:+, task $stalled outlived ${bound} s (see $d/stall.txt)}"
                cat "$d"/err-* | grep -v '^perfgate: error: [0-9]* of [0-9]* benchmarks failed' | sed 's/^/  /'
        else
                echo "round $r: ok, ${secs} s"
                rm -rf "$d"
        fi
done
echo "rounds $rounds, stalled or failed $bad (output in $out)"
[ $bad = 0 ]
