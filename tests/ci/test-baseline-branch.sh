#!/usr/bin/env bash
# test-baseline-branch.sh - ci/perfgate-ci.sh pr with a custom data branch
# (--baseline-branch / PERFGATE_BASELINE_BRANCH): the PR's comparison reads
# the baseline from that branch, the one main's job saves to, instead of
# finding none on the default branch and passing. Real perfgate, a real
# repository whose baseline for main was saved with `baseline save --branch`.
. "$(dirname "$0")/lib.sh"

PERFGATE_BIN=${PERFGATE_BIN:?set PERFGATE_BIN to the perfgate binary}
export PERFGATE="$PERFGATE_BIN" PERFGATE_IMAGES=off PERFGATE_CONFIRM=0
golden="$SRC/tests/golden/compare"
git init -q "$scratch/work"
cd "$scratch/work" || exit 1
git commit -q --allow-empty -m first
"$PERFGATE_BIN" baseline save --results "$golden/base" --branch perf-data --force >"$scratch/save.log" 2>&1
check_eq "baseline saved on perf-data" 0 $?
git checkout -q -b topic
git commit -q --allow-empty -m "the PR"

PERFGATE_BASELINE_BRANCH=perf-data "$SCRIPT" pr --no-fetch --base main --results "$golden/head" \
        --out "$scratch/env" >"$scratch/env.log" 2>&1
check_eq "PERFGATE_BASELINE_BRANCH: the regression found (exit 1)" 1 $?
check_grep "compare reads that branch" '--branch perf-data' "$scratch/env.log"
check_nogrep "a baseline was found" 'no baseline for' "$scratch/env.log"

"$SCRIPT" pr --no-fetch --base main --results "$golden/head" --baseline-branch perf-data \
        --out "$scratch/opt" >"$scratch/opt.log" 2>&1
check_eq "--baseline-branch: exit 1" 1 $?

"$SCRIPT" pr --no-fetch --base main --results "$golden/head" --out "$scratch/dflt" >"$scratch/dflt.log" 2>&1
check_eq "the default branch (absent here): no baseline, exit 0" 0 $?
check_nogrep "the default is not passed" '--branch' "$scratch/dflt.log"
check_grep "... and the missing branch is named" "the baseline branch 'perfgate-baselines' does not exist" "$scratch/dflt.log"
finish
