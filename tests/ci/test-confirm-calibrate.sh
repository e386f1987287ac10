#!/usr/bin/env bash
# test-confirm-calibrate.sh - ci/perfgate-ci.sh with a project whose
# perfgate.json has a "build" command, with the real perfgate and a bare git
# remote on disk: the main job runs `compare --calibrate` before saving, so
# the baseline on the data branch carries each benchmark's paired noise; the
# PR job adds --confirm and a 3x slower head is a confirmed regression
# (exit 1); with a results path as the base (no commit to build) and with
# PERFGATE_CONFIRM=0 it does not; PERFGATE_CALIBRATE=0 skips calibration.
. "$(dirname "$0")/lib.sh"

export PERFGATE="$PERFGATE_BIN" PERFGATE_PUSH_BACKOFF=0
origin="$scratch/origin.git"
git init -q --bare "$origin"
git clone -q "$origin" "$scratch/work" 2>/dev/null
cd "$scratch/work" || exit 1
spin="$SRC/tests/confirm/spin-project.sh"
sh "$spin"
build() { sh "$spin" --build; }
git add -A && git commit -qm base && git push -q origin main 2>/dev/null
build
common=(--benchmarks bench/ --machine ci --comment off --images off)

# 1. main: calibrated, and the noise is saved with the baseline
"$SCRIPT" main "${common[@]}" --out "$scratch/out-main" >"$scratch/main.log" 2>&1
check_eq "main job exits 0" 0 $?
check_grep "main job calibrates" "+ perfgate compare --calibrate --results $scratch/out-main/results" "$scratch/main.log"
check_grep "calibration measured the benchmark" "calibrated spin" "$scratch/main.log"
saved=$(git -C "$origin" show "perfgate-baselines:ci/$(git rev-parse HEAD)/spin.json" 2>/dev/null)
check "the saved baseline has the paired noise" jq -e '.noise.metric == "task-clock" and .noise.pairs >= 8 and .noise.paired_sd > 0' <<<"$saved"
[ -n "$saved" ] && jq -c .noise <<<"$saved" | sed 's/^/    noise: /'

# 2. PERFGATE_CALIBRATE=0: no calibration
PERFGATE_CALIBRATE=0 "$SCRIPT" main "${common[@]}" --out "$scratch/out-main2" >"$scratch/main2.log" 2>&1
check_eq "main job without calibration exits 0" 0 $?
check_eq "PERFGATE_CALIBRATE=0: not calibrated" 0 \
        "$(grep -F '+ perfgate compare' "$scratch/main2.log" | grep -cF -- '--calibrate')"

# 3. PR with a 3x slower head: --confirm, confirmed regression
git checkout -q -b head
sh "$spin" 60000000
git commit -qam head && build
"$SCRIPT" pr "${common[@]}" --base main --out "$scratch/out-pr" >"$scratch/pr.log" 2>&1
check_eq "PR job with the regression exits 1" 1 $?
check_eq "PR job compares with --confirm" 1 \
        "$(grep -F '+ perfgate compare' "$scratch/pr.log" | grep -cF -- '--confirm')"
check "the report says the regression was confirmed" \
        jq -e '.benchmarks[] | select(.name == "spin") | .confirm.outcome == "regression"' \
        "$scratch/out-pr/report.json"

# 4. a results path as the base has no commit to build: no --confirm
cp -r "$scratch/out-main/results" "$scratch/base-results"
"$SCRIPT" pr "${common[@]}" --base "$scratch/base-results" --out "$scratch/out-pr2" >"$scratch/pr2.log" 2>&1
check_grep "results base: says why there is no --confirm" "no commit to build, so no --confirm" "$scratch/pr2.log"
check_eq "results base: compare without --confirm" 0 \
        "$(grep -F '+ perfgate compare' "$scratch/pr2.log" | grep -cF -- '--confirm')"
check "results base: compare ran (a report)" test -s "$scratch/out-pr2/report.json"

# 5. PERFGATE_CONFIRM=0: no --confirm
PERFGATE_CONFIRM=0 "$SCRIPT" pr "${common[@]}" --base main --out "$scratch/out-pr3" >"$scratch/pr3.log" 2>&1
# (the command lines the script logs: perfgate's own messages may mention
# --confirm, e.g. its short-benchmark warning or the runner-load note)
check_grep "PERFGATE_CONFIRM=0: the compare command is logged" "+ perfgate compare" "$scratch/pr3.log"
check_eq "PERFGATE_CONFIRM=0: no --confirm" 0 \
        "$(grep -F '+ perfgate compare' "$scratch/pr3.log" | grep -cF -- '--confirm')"
check "PERFGATE_CONFIRM=0: compare ran (a report)" test -s "$scratch/out-pr3/report.json"
finish
