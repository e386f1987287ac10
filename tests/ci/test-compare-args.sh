#!/usr/bin/env bash
# test-compare-args.sh - what ci/perfgate-ci.sh pr gives perfgate compare,
# with real perfgate, a real git repository and the golden results (no PR is
# posted: no token):
#   - the trends site's URL (PERFGATE_HISTORY_URL, the action's history-url
#     input, or --history-url): the comment links each benchmark to its page
#     of the `perfgate history --html` site, named as `perfgate history`
#     names it (docs/history.md); without the URL, no such link;
#   - a custom data branch (--baseline-branch / PERFGATE_BASELINE_BRANCH):
#     the PR's comparison reads the baseline from that branch, the one main's
#     job saves to (here with `baseline save --branch`), instead of finding
#     none on the default branch and passing.
. "$(dirname "$0")/lib.sh"

golden_workdir
git commit -q --allow-empty -m first

run_pr() { # OUT [ARGS...]
        local o=$1
        shift
        "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$golden/head" --out "$o" "$@" \
                >"$o.log" 2>&1
}

# ---- the trends site's URL
PERFGATE_HISTORY_URL=https://octo.github.io/proj run_pr "$scratch/env"
check_eq "with PERFGATE_HISTORY_URL: exit 1 (the golden head regresses)" 1 $?
check_grep "the comment links 'parse' to its history page" \
        '<a href="https://octo.github.io/proj/parse.html">history</a>' "$scratch/env/comment.md"
# a name with markup and spaces: the page name escapes every byte but [A-Za-z0-9.-]
check_grep "a hostile benchmark name becomes a safe page name" \
        'href="https://octo.github.io/proj/pipe_7c_3cimg_20src_3dx_20onerror_3dalert_281_29_3e_60code_60_2aem_2a.html"' \
        "$scratch/env/comment.md"
check_grep "the compare command line shows --history-url" '--history-url https://octo.github.io/proj' "$scratch/env.log"

run_pr "$scratch/opt" --history-url 'https://example.com/perf/'
check_eq "with --history-url: exit 1" 1 $?
check_grep "--history-url: one '/' between the URL and the page" \
        '<a href="https://example.com/perf/parse.html">history</a>' "$scratch/opt/comment.md"

run_pr "$scratch/none"
check_eq "without a URL: exit 1" 1 $?
check "without a URL: a comment" test -s "$scratch/none/comment.md"
check_nogrep "without a URL: no history link" '>history</a>' "$scratch/none/comment.md"

"$SCRIPT" pr --history-url >"$scratch/usage.log" 2>&1
check_eq "--history-url without a value: exit 2" 2 $?
check_grep "... says so" "option '--history-url' needs a value" "$scratch/usage.log"

# ---- a custom data branch
"$PERFGATE_BIN" baseline save --results "$golden/base" --branch perf-data --force >"$scratch/save.log" 2>&1
check_eq "baseline saved on perf-data" 0 $?
git checkout -q -b topic
git commit -q --allow-empty -m "the PR"

PERFGATE_BASELINE_BRANCH=perf-data "$SCRIPT" pr --no-fetch --base main --results "$golden/head" \
        --out "$scratch/br-env" >"$scratch/br-env.log" 2>&1
check_eq "PERFGATE_BASELINE_BRANCH: the regression found (exit 1)" 1 $?
check_grep "compare reads that branch" '--branch perf-data' "$scratch/br-env.log"
check_nogrep "a baseline was found" 'no baseline for' "$scratch/br-env.log"

"$SCRIPT" pr --no-fetch --base main --results "$golden/head" --baseline-branch perf-data \
        --out "$scratch/br-opt" >"$scratch/br-opt.log" 2>&1
check_eq "--baseline-branch: exit 1" 1 $?

"$SCRIPT" pr --no-fetch --base main --results "$golden/head" --out "$scratch/dflt" >"$scratch/dflt.log" 2>&1
check_eq "the default branch (absent here): no baseline, exit 0" 0 $?
check_nogrep "the default is not passed" '--branch' "$scratch/dflt.log"
check_grep "... and the missing branch is named" "the baseline branch 'perfgate-baselines' does not exist" "$scratch/dflt.log"
finish
