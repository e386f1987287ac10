#!/usr/bin/env bash
# test-comment.sh - ci/perfgate-ci.sh comment mode against the fake REST
# server (fake-api.js): GitHub create then update of the one marked comment
# (pagination past unrelated comments, exact auth header, body byte for
# byte), 403 and fork PRs falling back to an artifact, the head-sha guard,
# GitLab notes with and without a token, and usage errors.
. "$(dirname "$0")/lib.sh"

cd "$scratch" || exit 1
TOKEN='ghs_test-token-Zx9'
GLTOKEN='glpat-test-Qq7'
body1="$scratch/body1.md"
body2="$scratch/body2.md"
# Unicode, backticks, shell and printf metacharacters, CRLF, tabs, quotes.
# shellcheck disable=SC2016 # literal $ and backticks are the point
printf '%s\n' '<!-- perfgate -->' '### perfgate: 1 regression in 3 benchmarks' '' \
        '| benchmark | task-clock |' '|---|---|' '| `parse` 🔥 | +12.5 % (日本語, é, ü) |' \
        'code: `$(rm -rf /)` and ``double`` and $HOME %s %n \\ "q" '"'s'" >"$body1"
printf 'tab\there\r\nend without newline ✓' >>"$body1"
# shellcheck disable=SC2016
printf '%s\n' '<!-- perfgate -->' '### perfgate: no regression ✅' '`fixed` — all good' >"$body2"

gh_env() {
        env GITHUB_ACTIONS=true GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj \
                GITHUB_TOKEN="$TOKEN" PERFGATE_OUT="$scratch/out" "$@"
}

# ---- GitHub: create, then update the same comment
start_server --token "$TOKEN" --seed 150 --head-sha abc123
gh_env "$SCRIPT" comment --body "$body1" --pr 7 >"$scratch/log1" 2>&1
check_eq "first run exits 0" 0 $?
check_eq "first run: one POST" 1 "$(requests POST)"
check_eq "first run: no PATCH" 0 "$(requests PATCH)"
# two pages before creating, two after (a concurrent job's duplicate?)
check_eq "listing paged past 150 unrelated comments" 4 "$(jq -s 'map(select(.method=="GET")) | length' "$REQLOG")"
check_eq "Authorization header" "Bearer $TOKEN" "$(jq -rs 'map(select(.method=="POST"))[0].headers.authorization' "$REQLOG")"
check_eq "API version header" "2022-11-28" "$(jq -rs '.[0].headers["x-github-api-version"]' "$REQLOG")"
check_eq "Accept header" "application/vnd.github+json" "$(jq -rs '.[0].headers.accept' "$REQLOG")"
state >"$scratch/state1.json"
jq -j '.comments[] | select(.body | startswith("<!-- perfgate -->")) | .body' "$scratch/state1.json" >"$scratch/posted1"
check "body stored byte for byte" cmp "$body1" "$scratch/posted1"
id1=$(jq '[.comments[] | select(.body | startswith("<!-- perfgate -->"))][0].id' "$scratch/state1.json")
check_nogrep "token not in the log" "$TOKEN" "$scratch/log1"
check_grep "log says created" "created comment" "$scratch/log1"

: >"$REQLOG"
gh_env "$SCRIPT" comment --body "$body2" --pr 7 >"$scratch/log2" 2>&1
check_eq "second run exits 0" 0 $?
check_eq "second run: no POST" 0 "$(requests POST)"
check_eq "second run: one PATCH" 1 "$(requests PATCH)"
check_eq "PATCH targets the same comment" "/repos/octo/proj/issues/comments/$id1" \
        "$(jq -rs 'map(select(.method=="PATCH"))[0].path' "$REQLOG")"
state >"$scratch/state2.json"
check_eq "still exactly one marked comment" 1 \
        "$(jq '[.comments[] | select(.body | startswith("<!-- perfgate -->"))] | length' "$scratch/state2.json")"
check_eq "the quoted marker comment is untouched" '> <!-- perfgate -->
> quoted by a human' "$(jq -r '.comments[3].body' "$scratch/state2.json")"
jq -j ".comments[] | select(.id == $id1) | .body" "$scratch/state2.json" >"$scratch/posted2"
check "updated body byte for byte" cmp "$body2" "$scratch/posted2"

# A body without the marker gets it prepended (so the next run finds it).
printf 'plain body\n' >"$scratch/plain.md"
gh_env "$SCRIPT" comment --body "$scratch/plain.md" --pr 8 >"$scratch/log3" 2>&1
check_eq "unmarked body: exits 0" 0 $?
check_eq "unmarked body: marker prepended" '<!-- perfgate -->
plain body' "$(state | jq -r '.comments[] | select(.pr == 8) | .body')"

# --head-sha: the workflow_run poster refuses a stale or foreign artifact.
: >"$REQLOG"
gh_env "$SCRIPT" comment --body "$body2" --pr 7 --head-sha 0def >"$scratch/log4" 2>&1
check_eq "head-sha mismatch exits 2" 2 $?
check_eq "head-sha mismatch: nothing written" 0 "$(( $(requests POST) + $(requests PATCH) ))"
check_grep "head-sha mismatch explained" "not '0def'" "$scratch/log4"
gh_env "$SCRIPT" comment --body "$body2" --pr 7 --head-sha abc123 >"$scratch/log5" 2>&1
check_eq "head-sha match exits 0" 0 $?
check_eq "head-sha match: updated" 1 "$(requests PATCH)"

# Wrong token: 401 -> artifact, exit 0 (the verdict is not the comment's).
rm -rf "$scratch/out"
env GITHUB_ACTIONS=true GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN=wrong \
        PERFGATE_OUT="$scratch/out" "$SCRIPT" comment --body "$body1" --pr 7 >"$scratch/log6" 2>&1
check_eq "bad token exits 0" 0 $?
check "bad token: body left as artifact" cmp "$body1" "$scratch/out/comment/body.md"

# ---- 403 Resource not accessible by integration -> artifact
start_server --token "$TOKEN" --readonly
rm -rf "$scratch/out"
gh_env "$SCRIPT" comment --body "$body1" --pr 12 >"$scratch/log7" 2>&1
check_eq "403: exits 0" 0 $?
check_eq "403: one POST tried" 1 "$(requests POST)"
check "403: body artifact byte for byte" cmp "$body1" "$scratch/out/comment/body.md"
check_eq "403: PR number artifact" 12 "$(cat "$scratch/out/comment/pr-number")"
check_eq "403: repository artifact" octo/proj "$(cat "$scratch/out/comment/repository")"
check_grep "403: reason in the log" "Resource not accessible by integration" "$scratch/log7"
check_grep "403: GitHub warning annotation" "::warning" "$scratch/log7"

# ---- fork PR (from the event payload): no write attempted, artifact
start_server --token "$TOKEN"
cat >"$scratch/event-fork.json" <<'JSON'
{"number": 21, "pull_request": {"number": 21,
  "head": {"sha": "f00d", "repo": {"full_name": "mallory/proj", "fork": true}},
  "base": {"ref": "main", "repo": {"full_name": "octo/proj"}}}}
JSON
rm -rf "$scratch/out"
gh_env GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$scratch/event-fork.json" \
        "$SCRIPT" comment --body "$body1" >"$scratch/log8" 2>&1
check_eq "fork: exits 0" 0 $?
check_eq "fork: no request to the API" 0 "$(wc -l <"$REQLOG" | tr -d ' ')"
check "fork: body artifact" cmp "$body1" "$scratch/out/comment/body.md"
check_eq "fork: PR number from the payload" 21 "$(cat "$scratch/out/comment/pr-number")"
check_eq "fork: head sha from the payload" f00d "$(cat "$scratch/out/comment/head-sha")"
check_grep "fork: reason in the log" "from a fork" "$scratch/log8"

# The workflow_run poster takes that artifact (--from) and the trusted
# head sha of the run; it posts on the fork's PR only if the PR is at that sha.
cp -r "$scratch/out/comment" "$scratch/artifact"
start_server --token "$TOKEN" --head-sha f00d
gh_env GITHUB_EVENT_NAME=workflow_run "$SCRIPT" comment --from "$scratch/artifact" --head-sha f00d >"$scratch/log8b" 2>&1
check_eq "poster: exits 0" 0 $?
check_eq "poster: created on the fork's PR" /repos/octo/proj/issues/21/comments \
        "$(jq -rs 'map(select(.method=="POST"))[0].path' "$REQLOG")"
check "poster: body byte for byte" cmp "$body1" <(state | jq -j '.comments[0].body')
: >"$REQLOG"
gh_env GITHUB_EVENT_NAME=workflow_run "$SCRIPT" comment --from "$scratch/artifact" --head-sha beef >"$scratch/log8c" 2>&1
check_eq "poster: PR not at the run's sha -> exit 2" 2 $?
check_eq "poster: PR not at the run's sha -> nothing written" 0 "$(( $(requests POST) + $(requests PATCH) ))"
printf '21; curl evil\n' >"$scratch/artifact/pr-number"
gh_env GITHUB_EVENT_NAME=workflow_run "$SCRIPT" comment --from "$scratch/artifact" --head-sha f00d >"$scratch/log8d" 2>&1
check_eq "poster: hostile pr-number -> exit 2" 2 $?
check_grep "poster: hostile pr-number explained" "must be a PR number" "$scratch/log8d"

start_server --token "$TOKEN"
# The same payload under workflow_run (the privileged poster) does post.
sed 's/mallory/octo/' "$scratch/event-fork.json" >"$scratch/event-same.json"
gh_env GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$scratch/event-same.json" \
        "$SCRIPT" comment --body "$body1" >"$scratch/log9" 2>&1
check_eq "same-repo PR from the payload: posted" 1 "$(requests POST)"
check_eq "same-repo PR: number from the payload" /repos/octo/proj/issues/21/comments \
        "$(jq -rs 'map(select(.method=="POST"))[0].path' "$REQLOG")"
: >"$REQLOG"
gh_env GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH="$scratch/event-fork.json" \
        "$SCRIPT" comment --body "$body2" --pr 21 >"$scratch/log10" 2>&1
check_eq "workflow_run poster: updates the fork PR's comment" 1 "$(requests PATCH)"

# ---- GitLab notes
start_server --gitlab-token "$GLTOKEN" --seed 120
gl_env() {
        env GITLAB_CI=true CI_API_V4_URL="$API/api/v4" CI_PROJECT_ID=42 CI_MERGE_REQUEST_IID=7 \
                PERFGATE_OUT="$scratch/out" "$@"
}
rm -rf "$scratch/out"
gl_env "$SCRIPT" comment --body "$body1" >"$scratch/log11" 2>&1
check_eq "gitlab without token: exits 0" 0 $?
check_eq "gitlab without token: no request" 0 "$(wc -l <"$REQLOG" | tr -d ' ')"
check_grep "gitlab without token: says how to enable notes" "PERFGATE_GITLAB_TOKEN" "$scratch/log11"
check "gitlab without token: artifact" cmp "$body1" "$scratch/out/comment/body.md"
check_grep "gitlab without token: names the MR and the job's artifact" \
        "(MR !7); the template's job keeps it in its artifacts" "$scratch/log11"
check_nogrep "gitlab without token: no GitHub workflow" "fork-comment.yml" "$scratch/log11"
check_nogrep "gitlab without token: no privileged job" "privileged job" "$scratch/log11"

gl_env PERFGATE_GITLAB_TOKEN="$GLTOKEN" "$SCRIPT" comment --body "$body1" >"$scratch/log12" 2>&1
check_eq "gitlab: first run exits 0" 0 $?
check_eq "gitlab: one POST" 1 "$(requests POST)"
check_eq "gitlab: PRIVATE-TOKEN header" "$GLTOKEN" "$(jq -rs 'map(select(.method=="POST"))[0].headers["private-token"]' "$REQLOG")"
check_eq "gitlab: POST path" /api/v4/projects/42/merge_requests/7/notes "$(jq -rs 'map(select(.method=="POST"))[0].path' "$REQLOG")"
: >"$REQLOG"
gl_env PERFGATE_GITLAB_TOKEN="$GLTOKEN" "$SCRIPT" comment --body "$body2" >"$scratch/log13" 2>&1
check_eq "gitlab: second run PUT, no POST" "1 0" "$(requests PUT) $(requests POST)"
state >"$scratch/state3.json"
jq -j '.notes[] | select(.body | startswith("<!-- perfgate -->")) | .body' "$scratch/state3.json" >"$scratch/posted3"
check "gitlab: note updated byte for byte" cmp "$body2" "$scratch/posted3"
check_nogrep "gitlab: token not in the log" "$GLTOKEN" "$scratch/log13"

# ---- usage errors (exit 2, message names the problem)
"$SCRIPT" comment --pr 7 >"$scratch/log14" 2>&1
check_eq "no --body: exit 2" 2 $?
check_grep "no --body: says so" "needs '--body FILE'" "$scratch/log14"
"$SCRIPT" comment --body "$scratch/missing.md" --pr 7 >"$scratch/log15" 2>&1
check_eq "missing body file: exit 2" 2 $?
"$SCRIPT" comment --body "$body1" --pr 7x >"$scratch/log16" 2>&1
check_eq "bad --pr: exit 2" 2 $?
"$SCRIPT" comment --body "$body1" >"$scratch/log17" 2>&1
check_eq "no PR number: exit 2" 2 $?
"$SCRIPT" bogus >"$scratch/log18" 2>&1
check_eq "unknown mode: exit 2" 2 $?
"$SCRIPT" pr --fail-on-regression maybe >"$scratch/log19" 2>&1
check_eq "bad boolean: exit 2" 2 $?
check_grep "bad boolean: names the option" "'fail-on-regression' must be true or false" "$scratch/log19"
"$SCRIPT" --help >"$scratch/log20" 2>&1
check_eq "--help: exit 0" 0 $?
finish
