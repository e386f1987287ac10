#!/usr/bin/env bash
# test-action-steps.sh - runs the shell of ci/github/action.yml's steps the
# way a GitHub runner does (bash --noprofile --norc -eo pipefail, inputs as
# env, $GITHUB_OUTPUT file) outside GitHub: mode resolution, the gate step in
# comment mode against the fake API and in pr mode with the real perfgate
# (its status reaches the outputs, the step itself never fails so the
# uploads run), and the final verdict step's exit status.
. "$(dirname "$0")/lib.sh"

PERFGATE_BIN=${PERFGATE_BIN:?set PERFGATE_BIN to the perfgate binary}
action="$SRC/ci/github/action.yml"
step() { # step ID|NAME -> the step's run script in $scratch/step-ID.sh
        node -e '
const yaml = require(process.env.SRC + "/tests/node/node_modules/js-yaml");
const a = yaml.load(require("fs").readFileSync(process.argv[1], "utf8"));
const s = a.runs.steps.find((x) => x.id === process.argv[2] || x.name === process.argv[2]);
if (!s || !s.run) process.exit(1);
process.stdout.write(s.run);' "$action" "$1" >"$scratch/step-$2.sh"
}
# The runner's shell for `shell: bash` steps; usable after env(1).
RUNSTEP=(bash --noprofile --norc -eo pipefail)
export GITHUB_ACTION_PATH="$SRC/ci/github"

step mode mode
check "mode step extracted" test -s "$scratch/step-mode.sh"
for c in "auto pull_request pr" "auto push main" "auto workflow_dispatch main" "comment pull_request comment" "run push run"; do
        read -r m ev want <<<"$c"
        set -- "$m" "$ev" "$want"
        export GITHUB_OUTPUT="$scratch/out-mode"
        : >"$GITHUB_OUTPUT"
        INPUT_MODE=$1 EVENT=$2 "${RUNSTEP[@]}" "$scratch/step-mode.sh" >/dev/null 2>&1
        check_eq "mode '$1' on '$2' -> $3" "mode=$3" "$(cat "$GITHUB_OUTPUT")"
done
INPUT_MODE=bogus EVENT=push "${RUNSTEP[@]}" "$scratch/step-mode.sh" >"$scratch/mode-bad.log" 2>&1
check_eq "bad mode: step fails with 2" 2 $?
check_grep "bad mode: error annotation" "::error title=perfgate::input 'mode'" "$scratch/mode-bad.log"

# ---- Debian packages: an installed perfgate needs only the CI script's tools
step "Install Debian packages" deps
mkdir -p "$scratch/fakeaction/github"
printf '#!/bin/sh\necho "install-deps.sh $*"\n' >"$scratch/fakeaction/install-deps.sh"
chmod +x "$scratch/fakeaction/install-deps.sh"
INSTALLED=/usr/bin/perfgate GITHUB_ACTION_PATH="$scratch/fakeaction/github" \
        "${RUNSTEP[@]}" "$scratch/step-deps.sh" >"$scratch/deps.out" 2>&1
check_eq "deps: input perfgate set -> only the CI tools" "install-deps.sh ci-tools" "$(cat "$scratch/deps.out")"
INSTALLED='' GITHUB_ACTION_PATH="$scratch/fakeaction/github" \
        "${RUNSTEP[@]}" "$scratch/step-deps.sh" >"$scratch/deps.out" 2>&1
check_eq "deps: building from source -> the build toolchain" "install-deps.sh ci" "$(cat "$scratch/deps.out")"

# ---- debug-file cache key: the cache directory perfgate uses, a key per debug-package set
step debuginfo debuginfo
export GITHUB_OUTPUT="$scratch/out-debuginfo"
: >"$GITHUB_OUTPUT"
env -u XDG_CACHE_HOME HOME=/home/runner RUNNER_OS=Linux RUNNER_ARCH=X64 ImageOS=ubuntu24 \
        "${RUNSTEP[@]}" "$scratch/step-debuginfo.sh" >/dev/null 2>&1
check "debuginfo: the cache dir under HOME" grep -qx "dir=/home/runner/.cache/perfgate/debuginfo" "$GITHUB_OUTPUT"
check "debuginfo: key under the restore prefix" grep -qx "key=perfgate-debuginfo-Linux-X64-ubuntu24-[0-9a-f]\{16\}" "$GITHUB_OUTPUT"
check "debuginfo: restore prefix" grep -qx "restore=perfgate-debuginfo-Linux-X64-ubuntu24-" "$GITHUB_OUTPUT"
: >"$GITHUB_OUTPUT"
XDG_CACHE_HOME=/xdg HOME=/home/runner RUNNER_OS=Linux RUNNER_ARCH=X64 "${RUNSTEP[@]}" "$scratch/step-debuginfo.sh" >/dev/null 2>&1
check "debuginfo: XDG_CACHE_HOME honoured" grep -qx "dir=/xdg/perfgate/debuginfo" "$GITHUB_OUTPUT"

# ---- gate step, comment mode (the workflow_run poster), fake API
step gate gate
mkdir -p "$scratch/ws/perfgate-comment"
# shellcheck disable=SC2016
printf '<!-- perfgate -->\nfrom the fork run `x`\n' >"$scratch/ws/perfgate-comment/body.md"
echo 9 >"$scratch/ws/perfgate-comment/pr-number"
start_server --token t0k --head-sha cafe
cd "$scratch/ws" || exit 1
export GITHUB_OUTPUT="$scratch/out-gate"
: >"$GITHUB_OUTPUT"
env GITHUB_ACTIONS=true GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_EVENT_NAME=workflow_run \
        PERFGATE="" PERFGATE_MODE=comment PERFGATE_COMMENT_DIR=perfgate-comment PERFGATE_HEAD_SHA=cafe \
        PERFGATE_OUT=.perfgate/ci PERFGATE_COMMENT=on PERFGATE_FAIL_ON_REGRESSION=true \
        PERFGATE_BASELINE_BRANCH=perfgate-baselines GITHUB_TOKEN=t0k "${RUNSTEP[@]}" "$scratch/step-gate.sh" >"$scratch/gate1.log" 2>&1
check_eq "comment mode: step exits 0" 0 $?
check_grep "comment mode: exit-status output" "exit-status=0" "$GITHUB_OUTPUT"
check_eq "comment mode: posted on PR 9" /repos/octo/proj/issues/9/comments "$(jq -rs 'map(select(.method=="POST"))[0].path' "$REQLOG")"
check_nogrep "comment mode: no comment artifact re-upload" "comment-artifact=true" "$GITHUB_OUTPUT"

# ---- gate step, pr mode with the real perfgate over a results dir
git init -q "$scratch/ws/repo" && cd "$scratch/ws/repo" && git commit -q --allow-empty -m base
mkdir -p "$scratch/res" && cp "$SRC/tests/golden/result-sample.json" "$scratch/res/parse.json"
: >"$GITHUB_OUTPUT"
export GITHUB_STEP_SUMMARY="$scratch/summary.md"
: >"$GITHUB_STEP_SUMMARY"
env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request PERFGATE="$PERFGATE_BIN" PERFGATE_MODE=pr \
        PERFGATE_BASE="$scratch/res" PERFGATE_RESULTS="$scratch/res" PERFGATE_OUT=.perfgate/ci \
        PERFGATE_COMMENT=on PERFGATE_FAIL_ON_REGRESSION=true PERFGATE_BASELINE_BRANCH=perfgate-baselines \
        PERFGATE_PR=3 GITHUB_TOKEN="" "${RUNSTEP[@]}" "$scratch/step-gate.sh" >"$scratch/gate2.log" 2>&1
check_eq "pr mode: the step itself exits 0 (uploads still run)" 0 $?
"$PERFGATE_BIN" compare "$scratch/res" --results "$scratch/res" >/dev/null 2>&1
want=$?
check_grep "pr mode: exit-status output is compare's ($want)" "exit-status=$want" "$GITHUB_OUTPUT"
check_grep "pr mode: out dir output is absolute" "out=$scratch/ws/repo/.perfgate/ci" "$GITHUB_OUTPUT"
check_grep "pr mode: no token -> comment artifact for upload" "comment-artifact=true" "$GITHUB_OUTPUT"
check_grep "pr mode: job summary written" "<!-- perfgate -->" "$GITHUB_STEP_SUMMARY"
check "pr mode: comment body starts with the marker" test "$(head -n 1 .perfgate/ci/comment/body.md)" = "<!-- perfgate -->"

# ---- pr mode when perfgate run fails: the comment says so (no stale verdict)
start_server --token t0k
"$PERFGATE_BIN" run --out "$scratch/direct" "$scratch/no-such-bench" >/dev/null 2>&1
want=$?
env GITHUB_ACTIONS=true GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN=t0k PERFGATE="$PERFGATE_BIN" \
        "$SCRIPT" pr --base main --no-fetch --benchmarks "$scratch/no-such-bench" --pr 4 --out "$scratch/out-fail" \
        >"$scratch/runfail.log" 2>&1
check_eq "run fails: the job exits with run's status ($want)" "$want" $?
check_eq "run fails: comment posted" 1 "$(requests POST)"
check_eq "run fails: the comment says so" "### perfgate: run failed (exit status $want)" \
        "$(state | jq -r '.comments[0].body' | sed -n 2p)"

# ---- verdict step
step Verdict verdict
for st in 0 1 3; do
        ST=$st "${RUNSTEP[@]}" "$scratch/step-verdict.sh" >"$scratch/verdict.log" 2>&1
        check_eq "verdict step exits $st" "$st" $?
done
ST=1 "${RUNSTEP[@]}" "$scratch/step-verdict.sh" >"$scratch/verdict.log" 2>&1
check_grep "verdict 1: regression annotation" "::error title=perfgate::performance regression" "$scratch/verdict.log"
ST='' "${RUNSTEP[@]}" "$scratch/step-verdict.sh" >/dev/null 2>&1
check_eq "verdict without a status (gate step died): 4" 4 $?
finish
