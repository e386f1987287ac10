#!/bin/bash
# test-jitdump.sh JITGEN - JIT frames named from jitdump files: a program
# that generates machine code at run time and describes it in jit-PID.dump
# (tests/fixtures/jit/jitgen.c) is measured by `perfgate run`, `record --`,
# `record -p` and `top --stdio`, and each names the generated function
# "jit_hot_loop" as a JIT frame. When perf is installed, `perf record -k 1`
# + `perf inject --jit` + `perf report` is the oracle: it must name the same
# hottest function. A dump cut short and a file of garbage give a warning
# and exit 0 (frames before the cut still named), never a crash. Nothing is
# timed.
svc=$1
# shellcheck source=tests/record/lib.sh disable=SC2154  # pg, tmp, fail, svc_pid: set by lib.sh
. "$(dirname "$0")/lib.sh"
ok() { echo "ok: $*"; }
"$svc" 0 "$tmp" >/dev/null 2>&1
[ $? -eq 77 ] && { echo "skip: the JIT fixture generates x86-64 code only"; exit 77; }

# hottest_leaf RESULT: the leaf function with the most samples
hottest_leaf() {
        "$pg" show --stacks "$1" | awk '{n=split($1,a,";"); s[a[n]]+=$2} END{for (f in s) print s[f], f}' |
                sort -rn | head -1 | awk '{print $2}'
}
# jit_share RESULT: percent of the samples whose leaf is jit_hot_loop_[j]
jit_share() {
        "$pg" show --stacks "$1" |
                awk '{n=split($1,a,";"); t+=$2; if (a[n]=="jit_hot_loop_[j]") j+=$2} END{print t ? int(100*j/t) : 0}'
}
mkdir -p "$tmp/dumps"

# 1. perfgate run
cat >"$tmp/perfgate.json" <<JSON
{"benchmarks": [{"name": "jit", "argv": ["$svc", "0.3", "$tmp/dumps"]},
                {"name": "trunc", "argv": ["$svc", "0.3", "$tmp/dumps", "truncated"]},
                {"name": "garbage", "argv": ["$svc", "0.3", "$tmp/dumps", "garbage"]}]}
JSON
"$pg" run -q --repeat 1 --warmup 0 --out "$tmp/out" "$tmp/perfgate.json" 2>"$tmp/run.err"
st=$?
[ $st -eq 0 ] || err "run: exit $st: $(cat "$tmp/run.err")"
leaf=$(hottest_leaf "$tmp/out/jit.json"); share=$(jit_share "$tmp/out/jit.json")
if [ "$leaf" != "jit_hot_loop_[j]" ] || [ "$share" -lt 50 ]; then
        err "run: hottest leaf '$leaf', jit_hot_loop_[j] holds $share%"
fi
ok "run: hottest leaf $leaf ($share% of the samples)"

# 2. a dump cut short: the function before the cut is named, with a warning
leaf=$(hottest_leaf "$tmp/out/trunc.json")
[ "$leaf" = "jit_hot_loop_[j]" ] || err "truncated dump: hottest leaf '$leaf'"
grep -q "warning: .*jitdump '.*jit-[0-9]*\.dump'.*truncated" "$tmp/run.err" ||
        err "truncated dump: no warning: $(cat "$tmp/run.err")"
# 3. garbage: no names from it, a warning, no crash
leaf=$(hottest_leaf "$tmp/out/garbage.json")
[ "$leaf" = "[unknown]" ] || err "garbage dump: hottest leaf '$leaf' (expected [unknown])"
grep -q "warning: .*not a jitdump" "$tmp/run.err" ||
        err "garbage dump: no warning: $(cat "$tmp/run.err")"
ok "truncated and garbage dumps: warned, exit 0"

# 4. perf itself: record with CLOCK_MONOTONIC (the dump's clock), inject, report
if command -v perf >/dev/null 2>&1 &&
        perf record -q -k 1 -F 499 -g -o "$tmp/perf.data" "$svc" 0.3 "$tmp/dumps" >/dev/null 2>&1 &&
        perf inject --jit -i "$tmp/perf.data" -o "$tmp/perf.jit.data" 2>/dev/null; then
        pleaf=$(perf report -i "$tmp/perf.jit.data" --stdio --no-children --sort sym -q -g none 2>/dev/null |
                awk '$1 ~ /%/ {print $NF; exit}')
        [ "$pleaf" = jit_hot_loop ] || err "perf inject --jit names '$pleaf' hottest, not jit_hot_loop"
        ok "perf record -k 1 + perf inject --jit: hottest $pleaf, as perfgate"
else
        echo "note: perf record/inject unavailable: perf comparison skipped"
fi

# 5. perfgate record -- COMMAND
"$pg" record -q -o "$tmp/cmd.json" -- "$svc" 0.3 "$tmp/dumps" 2>"$tmp/cmd.err" ||
        err "record --: $(cat "$tmp/cmd.err")"
leaf=$(hottest_leaf "$tmp/cmd.json")
[ "$leaf" = "jit_hot_loop_[j]" ] || err "record --: hottest leaf '$leaf'"
ok "record --: hottest leaf $leaf"

# 6. perfgate record -p and top --stdio -p on a running JIT: the dump was
# mapped before the events existed, so it comes from /proc/PID/maps
start_service 60 "$tmp/dumps"
"$pg" record -q -p "$svc_pid" --duration 1 -o "$tmp/p.json" 2>"$tmp/p.err" ||
        err "record -p: $(cat "$tmp/p.err")"
leaf=$(hottest_leaf "$tmp/p.json")
[ "$leaf" = "jit_hot_loop_[j]" ] || err "record -p: hottest leaf '$leaf'"
ok "record -p: hottest leaf $leaf"
"$pg" top --stdio --interval 1 --iterations 2 --sort sym -p "$svc_pid" >"$tmp/top.out" 2>&1 ||
        err "top: $(cat "$tmp/top.out")"
grep -q 'jit_hot_loop' "$tmp/top.out" || err "top --stdio: no jit_hot_loop: $(cat "$tmp/top.out")"
ok "top --stdio shows jit_hot_loop"
exit "$fail"
