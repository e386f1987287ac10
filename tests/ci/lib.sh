# lib.sh - helpers for the shell tests of ci/ (sourced): a scratch dir removed
# on exit, the fake REST server (fake-api.js) on a free 127.0.0.1 port,
# assertions that print what differed. Every test script sources this first.
set -u
set -o pipefail

CI_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=${PG_SOURCE_DIR:-$(cd "$CI_TEST_DIR/../.." && pwd)}
export SRC
# shellcheck disable=SC2034 # used by the test scripts that source this
SCRIPT="$SRC/ci/perfgate-ci.sh"
failures=0
server_pid=""

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pg-ci-test.XXXXXX")
cleanup() {
        stop_server
        rm -rf "$scratch"
}
trap cleanup EXIT

# Keep the CI environment of whoever runs the tests out of the script.
unset GITHUB_ACTIONS GITLAB_CI GITHUB_TOKEN PERFGATE_GITHUB_TOKEN PERFGATE_GITLAB_TOKEN \
        GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_REPOSITORY GITHUB_API_URL GITHUB_STEP_SUMMARY \
        GITHUB_OUTPUT GITHUB_REF GITHUB_RUN_ID GITHUB_BASE_REF CI_API_V4_URL CI_PROJECT_ID \
        CI_MERGE_REQUEST_IID CI_JOB_URL PERFGATE_PR PERFGATE_RESULTS PERFGATE_BASE PERFGATE_OUT
export GIT_AUTHOR_NAME=perfgate-test GIT_AUTHOR_EMAIL=test@perfgate.invalid
export GIT_COMMITTER_NAME=perfgate-test GIT_COMMITTER_EMAIL=test@perfgate.invalid
export GIT_CONFIG_NOSYSTEM=1 HOME="$scratch"
git config --global init.defaultBranch main
git config --global advice.detachedHead false

ok() { printf 'ok - %s\n' "$*"; }
fail() {
        printf 'FAIL - %s\n' "$*"
        failures=$((failures + 1))
}
# check DESCRIPTION COMMAND...: pass when the command succeeds.
check() {
        local d=$1
        shift
        if "$@"; then ok "$d"; else fail "$d"; fi
}
# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
        if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: expected '$2', got '$3'"; fi
}
# check_grep DESCRIPTION PATTERN FILE (fixed string)
check_grep() {
        if grep -qF -- "$2" "$3"; then ok "$1"; else
                fail "$1: '$2' not in $3:"
                sed 's/^/    /' "$3" | tail -n 20
        fi
}
check_nogrep() {
        if grep -qF -- "$2" "$3"; then
                fail "$1: '$2' unexpectedly in $3"
        else ok "$1"; fi
}
finish() {
        if [ "$failures" -gt 0 ]; then
                echo "$failures check(s) failed"
                exit 1
        fi
        echo "all checks passed"
        exit 0
}

# start_server [fake-api options]: sets PORT, API, REQLOG.
start_server() {
        stop_server
        REQLOG="$scratch/requests.$RANDOM.jsonl"
        : >"$REQLOG"
        rm -f "$scratch/port"
        node "$CI_TEST_DIR/fake-api.js" --port-file "$scratch/port" --log "$REQLOG" "$@" &
        server_pid=$!
        for _ in $(seq 1 100); do
                [ -s "$scratch/port" ] && break
                sleep 0.05
        done
        [ -s "$scratch/port" ] || {
                echo "fake-api did not start"
                exit 1
        }
        PORT=$(cat "$scratch/port")
        API="http://127.0.0.1:$PORT"
}
stop_server() {
        if [ -n "$server_pid" ]; then
                kill "$server_pid" 2>/dev/null
                wait "$server_pid" 2>/dev/null
                server_pid=""
        fi
}
# requests METHOD: how many requests with that method the server saw.
requests() { jq -s --arg m "$1" 'map(select(.method == $m)) | length' "$REQLOG"; }
state() { curl -sS "$API/_state"; }
# seed_project DIR PERFGATE MESSAGE: `perfgate` on PATH (a link to PERFGATE
# in $scratch/bin), and in DIR a new repository on main whose first commit
# MESSAGE holds bench/spin (a short shell loop) and a .gitignore of
# .perfgate/; the shell stays in DIR.
seed_project() {
        mkdir -p "$scratch/bin" && ln -sf "$2" "$scratch/bin/perfgate"
        export PATH="$scratch/bin:$PATH"
        mkdir -p "$1/bench" && cd "$1" || exit 1
        git init -q -b main .
        # shellcheck disable=SC2016 # the benchmark's own shell expands these
        printf '#!/bin/sh\ni=0; while [ $i -lt 200 ]; do i=$((i+1)); done\n' >bench/spin
        chmod +x bench/spin
        printf '.perfgate/\n' >.gitignore
        git add -A && git commit -qm "$3"
}

# golden_workdir: the CI script runs $PERFGATE_BIN (PERFGATE, with images
# and --confirm off), $golden names the golden compare results, and the
# shell is in $scratch/work, a new empty repository.
golden_workdir() {
        PERFGATE_BIN=${PERFGATE_BIN:?set PERFGATE_BIN to the perfgate binary}
        export PERFGATE="$PERFGATE_BIN" PERFGATE_IMAGES=off PERFGATE_CONFIRM=0
        # shellcheck disable=SC2034 # used by the scripts that source this
        golden="$SRC/tests/golden/compare"
        git init -q "$scratch/work"
        cd "$scratch/work" || exit 1
}
