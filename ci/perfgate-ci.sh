#!/usr/bin/env bash
# perfgate-ci.sh - the CI steps of perfgate, shared by the GitHub Action
# (ci/github/action.yml) and the GitLab template (ci/gitlab/), so the logic
# runs and is tested outside either CI system (tests/ci/).
#
#   perfgate-ci.sh pr       fetch base + data branch, run, compare, write the
#                           reports into the output dir, job summary, comment
#   perfgate-ci.sh main     run, `perfgate baseline save`, push the data branch
#                           (a rejected push: fetch, save again on the new tip,
#                           retry, bounded)
#   perfgate-ci.sh run      run only (one shard of a matrix); results in OUT/results
#   perfgate-ci.sh comment  post or update the one comment from a file
#
# Invariants:
# - Exactly one PR/MR comment carries the marker "<!-- perfgate -->" at the
#   very start of its body; it is updated in place, never duplicated.
# - The exit status is perfgate's (README.md, Exit status): 0 pass, 1 regression,
#   2 usage/bad input, 3 cannot measure, 4 internal/I-O. A regression exits 0
#   only with --fail-on-regression false. A comment that cannot be posted never
#   changes the verdict: the body is written as an artifact instead.
# - Tokens never appear on a command line or in the log (curl reads headers
#   from a mode-600 file).
# - Everything it writes goes under the output dir (default .perfgate/ci).
#
# Every option has an environment variable (the CI files pass inputs that
# way); options win. Requires bash, git, curl, jq.
set -u
set -o pipefail

MARKER='<!-- perfgate -->'
PROG=perfgate-ci

usage() {
        cat <<'EOF'
usage: perfgate-ci.sh MODE [options]

modes:
  pr        fetch the base branch and the data branch, perfgate run, perfgate
            compare, write reports to OUT, append the Markdown to
            $GITHUB_STEP_SUMMARY, post or update the one PR/MR comment
  main      perfgate run, perfgate baseline save, push the data branch
            (rejected push: fetch, save again on the new tip, retry)
  run       perfgate run only (a shard of a matrix), results in OUT/results
  comment   post or update the comment from --body FILE

options (environment variable in brackets):
  --benchmarks "P..."       benchmark paths, blank-separated [PERFGATE_BENCHMARKS] (bench/)
  --base REV|DIR            base branch, or a results dir [PERFGATE_BASE]
                            (default: $GITHUB_BASE_REF, $CI_MERGE_REQUEST_TARGET_BRANCH_NAME, main)
  --machine NAME            machine name of the results [PERFGATE_MACHINE]
  --repeat N                measured repetitions [PERFGATE_REPEAT]
  --counters MODE           auto|hardware|software|simulated [PERFGATE_COUNTERS]
  --shard I/N               run one shard [PERFGATE_SHARD]
  --run-args "ARGS"         extra arguments for perfgate run [PERFGATE_RUN_ARGS]
  --results DIR             use these results instead of running (repeatable)
                            [PERFGATE_RESULTS, blank-separated]
  --comment on|off          post the PR/MR comment [PERFGATE_COMMENT] (on)
  --fail-on-regression B    true: a regression fails the job [PERFGATE_FAIL_ON_REGRESSION] (true)
  --baseline-branch NAME    data branch [PERFGATE_BASELINE_BRANCH] (perfgate-baselines)
  --link-base URL           where the flame graph SVGs will be served [PERFGATE_LINK_BASE]
  --out DIR                 output dir [PERFGATE_OUT] (.perfgate/ci)
  --remote NAME             git remote [PERFGATE_REMOTE] (origin)
  --push-url URL            push the data branch here instead [PERFGATE_PUSH_URL]
  --push-retries N          attempts at pushing the data branch [PERFGATE_PUSH_RETRIES] (5)
  --no-fetch                do not fetch (the refs are already there) [PERFGATE_FETCH=false]
  --platform P              github|gitlab|none [PERFGATE_PLATFORM] (detected)
  --body FILE               comment mode: the comment body
  --from DIR                comment mode: DIR/body.md and DIR/pr-number, as written
                            by a job whose token could not post (the artifact)
  --pr N                    PR number / MR iid [PERFGATE_PR] (detected)
  --head-sha SHA            comment mode: refuse unless the PR's head is SHA
  -h, --help

The perfgate binary is $PERFGATE (default: perfgate in PATH).
GitHub: GITHUB_TOKEN (or PERFGATE_GITHUB_TOKEN), GITHUB_API_URL,
GITHUB_REPOSITORY, GITHUB_EVENT_PATH. GitLab: PERFGATE_GITLAB_TOKEN (project
or group access token, scope api), CI_API_V4_URL, CI_PROJECT_ID,
CI_MERGE_REQUEST_IID.

exit status: perfgate compare's (0 pass, 1 regression, 2 bad input,
3 cannot measure, 4 internal or I/O error).
EOF
}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }

warn() {
        if [ "$platform" = github ]; then
                printf '::warning title=perfgate::%s\n' "$*" >&2
        else
                printf '%s: warning: %s\n' "$PROG" "$*" >&2
        fi
}

# die STATUS MESSAGE...
die() {
        local st=$1
        shift
        if [ "${platform:-none}" = github ]; then
                printf '::error title=perfgate::%s\n' "$*" >&2
        else
                printf '%s: error: %s\n' "$PROG" "$*" >&2
        fi
        exit "$st"
}

usage_error() {
        printf '%s: error: %s\n' "$PROG" "$*" >&2
        printf "see '%s --help'\n" "$0" >&2
        exit 2
}

# bool NAME VALUE -> prints true|false, or exits 2
bool() {
        case $(printf '%s' "$2" | tr '[:upper:]' '[:lower:]') in
        true | on | yes | 1) echo true ;;
        false | off | no | 0) echo false ;;
        *) usage_error "'$1' must be true or false (on/off), not '$2'" ;;
        esac
}

# ---------------------------------------------------------------- options
mode=${1:-}
case $mode in
-h | --help | help)
        usage
        exit 0
        ;;
pr | main | run | comment) shift ;;
"") usage_error "a mode is required: pr, main, run or comment" ;;
*) usage_error "unknown mode '$mode' (pr, main, run or comment)" ;;
esac

PERFGATE=${PERFGATE:-perfgate}
benchmarks=${PERFGATE_BENCHMARKS:-bench/}
base=${PERFGATE_BASE:-}
machine=${PERFGATE_MACHINE:-}
repeat=${PERFGATE_REPEAT:-}
counters=${PERFGATE_COUNTERS:-}
shard=${PERFGATE_SHARD:-}
run_args=${PERFGATE_RUN_ARGS:-}
comment=${PERFGATE_COMMENT:-on}
fail_on_regression=${PERFGATE_FAIL_ON_REGRESSION:-true}
data_branch=${PERFGATE_BASELINE_BRANCH:-perfgate-baselines}
link_base=${PERFGATE_LINK_BASE:-}
out=${PERFGATE_OUT:-.perfgate/ci}
remote=${PERFGATE_REMOTE:-origin}
push_url=${PERFGATE_PUSH_URL:-}
push_retries=${PERFGATE_PUSH_RETRIES:-5}
push_backoff=${PERFGATE_PUSH_BACKOFF:-2}
fetch=${PERFGATE_FETCH:-true}
platform=${PERFGATE_PLATFORM:-}
body_file=""
from_dir=""
pr=${PERFGATE_PR:-}
head_sha=""
results=()
set -f
# shellcheck disable=SC2206
[ -n "${PERFGATE_RESULTS:-}" ] && results=(${PERFGATE_RESULTS})
set +f

need_arg() { [ $# -ge 2 ] || usage_error "option '$1' needs a value"; }

while [ $# -gt 0 ]; do
        case $1 in
        --benchmarks) need_arg "$@"; benchmarks=$2; shift 2 ;;
        --base) need_arg "$@"; base=$2; shift 2 ;;
        --machine) need_arg "$@"; machine=$2; shift 2 ;;
        --repeat) need_arg "$@"; repeat=$2; shift 2 ;;
        --counters) need_arg "$@"; counters=$2; shift 2 ;;
        --shard) need_arg "$@"; shard=$2; shift 2 ;;
        --run-args) need_arg "$@"; run_args=$2; shift 2 ;;
        --results) need_arg "$@"; results+=("$2"); shift 2 ;;
        --comment) need_arg "$@"; comment=$2; shift 2 ;;
        --fail-on-regression) need_arg "$@"; fail_on_regression=$2; shift 2 ;;
        --baseline-branch) need_arg "$@"; data_branch=$2; shift 2 ;;
        --link-base) need_arg "$@"; link_base=$2; shift 2 ;;
        --out) need_arg "$@"; out=$2; shift 2 ;;
        --remote) need_arg "$@"; remote=$2; shift 2 ;;
        --push-url) need_arg "$@"; push_url=$2; shift 2 ;;
        --push-retries) need_arg "$@"; push_retries=$2; shift 2 ;;
        --no-fetch) fetch=false; shift ;;
        --platform) need_arg "$@"; platform=$2; shift 2 ;;
        --body) need_arg "$@"; body_file=$2; shift 2 ;;
        --from) need_arg "$@"; from_dir=$2; shift 2 ;;
        --pr) need_arg "$@"; pr=$2; shift 2 ;;
        --head-sha) need_arg "$@"; head_sha=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) usage_error "unknown option '$1'" ;;
        esac
done

if [ -n "$from_dir" ]; then
        # An artifact from an untrusted (fork) run: take the number only if it
        # is digits, and the body only from the expected file name.
        [ -d "$from_dir" ] || usage_error "'--from' needs the comment artifact directory; '$from_dir' is not one"
        [ -n "$body_file" ] || body_file=$from_dir/body.md
        if [ -z "$pr" ] && [ -f "$from_dir/pr-number" ]; then
                pr=$(head -c 32 "$from_dir/pr-number" | tr -d ' \n\r')
        fi
fi
comment=$(bool comment "$comment") || exit 2
fail_on_regression=$(bool fail-on-regression "$fail_on_regression") || exit 2
fetch=$(bool fetch "$fetch") || exit 2
case $push_retries in
'' | *[!0-9]* | 0) usage_error "'--push-retries' must be a positive integer, not '$push_retries'" ;;
esac
case $push_backoff in
'' | *[!0-9]*) usage_error "'PERFGATE_PUSH_BACKOFF' must be a number of seconds, not '$push_backoff'" ;;
esac
case $repeat in
*[!0-9]*) usage_error "'--repeat' must be a positive integer, not '$repeat'" ;;
esac
case $pr in
*[!0-9]*) usage_error "'--pr' must be a PR number or MR iid (digits), not '$pr'" ;;
esac
case $head_sha in
*[!0-9a-f]*) usage_error "'--head-sha' must be a hex commit id, not '$head_sha'" ;;
esac
# --results may be globs (shards/*/results): expand them here.
expanded=()
for r in ${results[@]+"${results[@]}"}; do
        case $r in
        *[*?[]*)
                mapfile -t matches < <(compgen -G "$r" | LC_ALL=C sort)
                [ ${#matches[@]} -gt 0 ] || usage_error "no results directory matches '$r'"
                expanded+=("${matches[@]}")
                ;;
        *) expanded+=("$r") ;;
        esac
done
results=(${expanded[@]+"${expanded[@]}"})
if [ -z "$platform" ]; then
        if [ "${GITHUB_ACTIONS:-}" = true ]; then
                platform=github
        elif [ "${GITLAB_CI:-}" = true ]; then
                platform=gitlab
        else
                platform=none
        fi
fi
case $platform in
github | gitlab | none) ;;
*) platform=none; usage_error "'--platform' must be github, gitlab or none, not '$platform'" ;;
esac

for tool in curl jq; do
        command -v "$tool" >/dev/null 2>&1 ||
                die 4 "'$tool' is not installed; run ci/install-deps.sh ci (or apt-get install $tool)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfgate-ci.XXXXXX") || die 4 "cannot create a temporary directory"
chmod 700 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- helpers
first_run=false
in_git() { git rev-parse --git-dir >/dev/null 2>&1; }

has_remote() { git remote get-url "$remote" >/dev/null 2>&1; }

# The GitHub event payload (pull_request events), or nothing.
event_json() {
        if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -r "${GITHUB_EVENT_PATH}" ]; then
                cat "$GITHUB_EVENT_PATH"
        else
                echo '{}'
        fi
}

# PR number / MR iid of this pipeline, or empty.
detect_pr() {
        if [ -n "$pr" ]; then
                echo "$pr"
                return
        fi
        case $platform in
        github)
                local n
                n=$(event_json | jq -r '.pull_request.number // .number // empty' 2>/dev/null)
                if [ -z "$n" ]; then
                        case ${GITHUB_REF:-} in
                        refs/pull/*/merge) n=${GITHUB_REF#refs/pull/}; n=${n%/merge} ;;
                        esac
                fi
                echo "$n"
                ;;
        gitlab) echo "${CI_MERGE_REQUEST_IID:-}" ;;
        esac
}

# A pull_request event from a fork: the token is read-only there.
is_fork_pr() {
        [ "$platform" = github ] || return 1
        [ "${GITHUB_EVENT_NAME:-pull_request}" = pull_request ] || return 1
        event_json | jq -e '.pull_request != null and
                ((.pull_request.head.repo.full_name // "") != (.pull_request.base.repo.full_name // ""))' \
                >/dev/null 2>&1
}

pr_head_sha() {
        if [ -n "$head_sha" ]; then
                echo "$head_sha"
        elif [ "$platform" = github ]; then
                event_json | jq -r '.pull_request.head.sha // empty' 2>/dev/null
        elif [ "$platform" = gitlab ]; then
                echo "${CI_COMMIT_SHA:-}"
        fi
}

# write_comment_artifact BODY PR REASON: leave the comment for a privileged job.
write_comment_artifact() {
        local d="$out/comment"
        mkdir -p "$d" || die 4 "cannot create '$d'"
        cp "$1" "$d/body.md" || die 4 "cannot write '$d/body.md'"
        printf '%s\n' "$2" >"$d/pr-number"
        printf '%s\n' "$(pr_head_sha)" >"$d/head-sha"
        printf '%s\n' "${GITHUB_REPOSITORY:-${CI_PROJECT_PATH:-}}" >"$d/repository"
        log "$3"
        log "comment body written to '$d/body.md' (PR/MR ${2:-unknown}); upload '$d' as an artifact and post it from a privileged job (ci/github/examples/fork-comment.yml)"
}

# http METHOD URL HEADERFILE [DATAFILE]: response body in $tmp/resp,
# status code in $http_status ("000": no connection).
http_status=000
http() {
        local args=(-sS --retry 2 --retry-delay 1 --connect-timeout 10 --max-time 60
                -o "$tmp/resp" -w '%{http_code}' -X "$1" -H "@$3")
        [ $# -ge 4 ] && args+=(--data-binary "@$4")
        http_status=$(curl "${args[@]}" "$2" 2>"$tmp/curl.err") || true
        [ -n "$http_status" ] || http_status=000
        [ -f "$tmp/resp" ] || : >"$tmp/resp"
}

# A short reason from an API error response.
api_message() {
        local m
        m=$(jq -r '.message // .error // empty' "$tmp/resp" 2>/dev/null | head -c 300)
        [ -n "$m" ] || m=$(head -c 300 "$tmp/curl.err" 2>/dev/null)
        printf '%s' "$m"
}

# comment_payload BODY > json: {"body": <BODY, byte for byte>}; GitHub caps
# comments at 65536 characters, so a longer body is cut with a note.
comment_payload() {
        jq -Rs --argjson max "$2" \
                'if length > $max then {body: (.[0:$max - 200] + "\n\n*(report truncated: the full report is in the job artifacts)*\n")} else {body: .} end' \
                <"$1"
}

# ---------------------------------------------------------------- GitHub
github_comment() {
        local body=$1 n=$2
        local token=${PERFGATE_GITHUB_TOKEN:-${GITHUB_TOKEN:-}}
        local api=${GITHUB_API_URL:-https://api.github.com}
        local repo=${GITHUB_REPOSITORY:-}
        api=${api%/}
        if [ -z "$repo" ]; then
                warn "GITHUB_REPOSITORY is not set; cannot post the comment"
                write_comment_artifact "$body" "$n" "no repository to post to"
                return 0
        fi
        if [ -z "$token" ]; then
                write_comment_artifact "$body" "$n" "no GITHUB_TOKEN: not posting the comment (pass 'github-token' to the action, or set GITHUB_TOKEN)"
                return 0
        fi
        if is_fork_pr; then
                write_comment_artifact "$body" "$n" "pull request from a fork: its token is read-only, so the comment goes to an artifact"
                return 0
        fi
        (umask 077 && printf 'Authorization: Bearer %s\nAccept: application/vnd.github+json\nX-GitHub-Api-Version: 2022-11-28\nContent-Type: application/json\nUser-Agent: perfgate-ci\n' \
                "$token" >"$tmp/gh.headers") || die 4 "cannot write a temporary file"

        if [ -n "$head_sha" ]; then
                http GET "$api/repos/$repo/pulls/$n" "$tmp/gh.headers"
                [ "$http_status" = 200 ] ||
                        die 4 "cannot read pull request #$n (HTTP $http_status: $(api_message))"
                local actual
                actual=$(jq -r '.head.sha // empty' "$tmp/resp")
                [ "$actual" = "$head_sha" ] ||
                        die 2 "pull request #$n is at '${actual:-?}', not '$head_sha': the artifact is stale or not from this pull request; not posting"
        fi

        local page=1 id="" count
        while :; do
                http GET "$api/repos/$repo/issues/$n/comments?per_page=100&page=$page" "$tmp/gh.headers"
                case $http_status in
                200) ;;
                401 | 403)
                        warn "the token cannot read the comments of #$n (HTTP $http_status: $(api_message))"
                        write_comment_artifact "$body" "$n" "comment not posted"
                        return 0
                        ;;
                *)
                        warn "cannot list the comments of #$n (HTTP $http_status: $(api_message)); the report is in the artifacts"
                        write_comment_artifact "$body" "$n" "comment not posted"
                        return 0
                        ;;
                esac
                id=$(jq -r --arg m "$MARKER" \
                        'map(select((.body // "") | startswith($m))) | (.[0].id // empty)' "$tmp/resp" 2>/dev/null)
                [ -n "$id" ] && break
                count=$(jq -r 'length' "$tmp/resp" 2>/dev/null || echo 0)
                [ "$count" -ge 100 ] || break
                page=$((page + 1))
                [ "$page" -le 50 ] || break
        done

        comment_payload "$body" 65536 >"$tmp/payload.json" || die 4 "cannot encode the comment body as JSON"
        local verb
        if [ -n "$id" ]; then
                http PATCH "$api/repos/$repo/issues/comments/$id" "$tmp/gh.headers" "$tmp/payload.json"
                verb=updated
        else
                http POST "$api/repos/$repo/issues/$n/comments" "$tmp/gh.headers" "$tmp/payload.json"
                verb=created
        fi
        case $http_status in
        200 | 201)
                log "$verb comment $(jq -r '.html_url // .id // empty' "$tmp/resp" 2>/dev/null) on #$n"
                ;;
        401 | 403 | 404)
                # 403 "Resource not accessible by integration": a read-only
                # token (fork PR, or permissions: pull-requests: read).
                warn "the token cannot write comments on #$n (HTTP $http_status: $(api_message)); give the job 'permissions: pull-requests: write', or for fork PRs use the workflow_run poster"
                write_comment_artifact "$body" "$n" "comment not posted"
                ;;
        *)
                warn "cannot post the comment on #$n (HTTP $http_status: $(api_message)); the report is in the artifacts"
                write_comment_artifact "$body" "$n" "comment not posted"
                ;;
        esac
        return 0
}

# ---------------------------------------------------------------- GitLab
gitlab_note() {
        local body=$1 n=$2
        local token=${PERFGATE_GITLAB_TOKEN:-}
        local api=${CI_API_V4_URL:-}
        local project=${CI_PROJECT_ID:-}
        api=${api%/}
        if [ -z "$token" ]; then
                write_comment_artifact "$body" "$n" "no PERFGATE_GITLAB_TOKEN: the report stays an artifact. To get the MR note: Settings > Access tokens, add a project (or group) access token with role Reporter and scope 'api', then Settings > CI/CD > Variables: PERFGATE_GITLAB_TOKEN = that token (masked)"
                return 0
        fi
        if [ -z "$api" ] || [ -z "$project" ]; then
                write_comment_artifact "$body" "$n" "CI_API_V4_URL or CI_PROJECT_ID is not set; cannot post the MR note"
                return 0
        fi
        (umask 077 && printf 'PRIVATE-TOKEN: %s\nContent-Type: application/json\nUser-Agent: perfgate-ci\n' \
                "$token" >"$tmp/gl.headers") || die 4 "cannot write a temporary file"
        local base_url="$api/projects/$project/merge_requests/$n/notes"
        local page=1 id="" count
        while :; do
                http GET "$base_url?per_page=100&page=$page&sort=asc&order_by=created_at" "$tmp/gl.headers"
                if [ "$http_status" != 200 ]; then
                        warn "cannot list the notes of !$n (HTTP $http_status: $(api_message)); check that PERFGATE_GITLAB_TOKEN has scope 'api' and at least Reporter role"
                        write_comment_artifact "$body" "$n" "MR note not posted"
                        return 0
                fi
                id=$(jq -r --arg m "$MARKER" \
                        'map(select((.system // false) == false and ((.body // "") | startswith($m)))) | (.[0].id // empty)' \
                        "$tmp/resp" 2>/dev/null)
                [ -n "$id" ] && break
                count=$(jq -r 'length' "$tmp/resp" 2>/dev/null || echo 0)
                [ "$count" -ge 100 ] || break
                page=$((page + 1))
                [ "$page" -le 50 ] || break
        done
        comment_payload "$body" 1000000 >"$tmp/payload.json" || die 4 "cannot encode the note body as JSON"
        local verb
        if [ -n "$id" ]; then
                http PUT "$base_url/$id" "$tmp/gl.headers" "$tmp/payload.json"
                verb=updated
        else
                http POST "$base_url" "$tmp/gl.headers" "$tmp/payload.json"
                verb=created
        fi
        case $http_status in
        200 | 201) log "$verb MR note $(jq -r '.id // empty' "$tmp/resp" 2>/dev/null) on !$n" ;;
        *)
                warn "cannot post the MR note on !$n (HTTP $http_status: $(api_message))"
                write_comment_artifact "$body" "$n" "MR note not posted"
                ;;
        esac
        return 0
}

# post_comment BODY: to the PR/MR of this pipeline, or an artifact.
post_comment() {
        local body=$1 n
        n=$(detect_pr)
        if [ -z "$n" ]; then
                write_comment_artifact "$body" "" "no pull request number (not a PR/MR pipeline?); pass --pr N to post"
                return 0
        fi
        case $platform in
        github) github_comment "$body" "$n" ;;
        gitlab) gitlab_note "$body" "$n" ;;
        *) write_comment_artifact "$body" "$n" "not on GitHub or GitLab (--platform none): the comment stays a file" ;;
        esac
}

# ---------------------------------------------------------------- steps
prepare_out() {
        mkdir -p "$out" || die 4 "cannot create the output dir '$out'"
        # Keep perfgate's own output from counting as a dirty work tree.
        if in_git; then
                local ex
                ex=$(git rev-parse --git-path info/exclude 2>/dev/null) || return 0
                mkdir -p "$(dirname "$ex")" 2>/dev/null
                grep -qx '/.perfgate/' "$ex" 2>/dev/null || echo '/.perfgate/' >>"$ex" 2>/dev/null || true
        fi
}

# perfgate run into $out/results; sets run_status and results=(dir).
do_run() {
        local args=(run --out "$out/results")
        [ -n "$machine" ] && args+=(--machine "$machine")
        [ -n "$repeat" ] && args+=(--repeat "$repeat")
        [ -n "$counters" ] && args+=(--counters "$counters")
        [ -n "$shard" ] && args+=(--shard "$shard")
        local extra=() paths=()
        set -f
        # shellcheck disable=SC2206
        extra=($run_args)
        # shellcheck disable=SC2206
        paths=($benchmarks)
        set +f
        args+=(${extra[@]+"${extra[@]}"} -- ${paths[@]+"${paths[@]}"})
        rm -rf "$out/results"
        log "+ perfgate ${args[*]}"
        "$PERFGATE" "${args[@]}" 2>&1 | tee "$out/run.txt"
        run_status=${PIPESTATUS[0]}
        results=("$out/results")
        [ "$run_status" = 0 ] || log "perfgate run exited with status $run_status"
}

has_results() {
        local d
        for d in "${results[@]}"; do
                compgen -G "$d/*.json" >/dev/null && return 0
                [ -f "$d" ] && return 0
        done
        return 1
}

resolve_base() {
        if [ -z "$base" ]; then
                case $platform in
                github) base=${GITHUB_BASE_REF:-} ;;
                gitlab) base=${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:-${CI_DEFAULT_BRANCH:-}} ;;
                esac
                [ -n "$base" ] || base=main
        fi
}

# fetch_pr_refs: the base branch and the data branch into refs/remotes/$remote/.
fetch_pr_refs() {
        [ "$fetch" = true ] || return 0
        in_git || die 2 "not a git repository: '$(pwd)'; run the job in the project's checkout"
        has_remote || {
                log "no git remote '$remote': using the local refs"
                return 0
        }
        local unshallow=()
        if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
                log "shallow clone: fetching the full history so the merge-base is found (use fetch-depth: 0 / GIT_DEPTH: 0 to skip this)"
                unshallow=(--unshallow)
        fi
        log "+ git fetch $remote $base $data_branch"
        git fetch --no-tags --quiet ${unshallow[@]+"${unshallow[@]}"} "$remote" \
                "+refs/heads/$base:refs/remotes/$remote/$base" ||
                die 2 "cannot fetch the base branch '$base' from '$remote'; is '--base' right?"
        fetch_data_branch
}

# fetch_data_branch: 0 when the remote has it (now in refs/remotes), 1 when not.
fetch_data_branch() {
        has_remote || return 1
        git ls-remote --exit-code --heads "$remote" "refs/heads/$data_branch" >/dev/null 2>&1
        case $? in
        0) ;;
        2)
                first_run=true
                log "no data branch '$data_branch' on '$remote' yet (first run): the default branch's pipeline records the first baseline"
                return 1
                ;;
        *) die 4 "cannot reach the git remote '$remote'" ;;
        esac
        git fetch --no-tags --quiet "$remote" "+refs/heads/$data_branch:refs/remotes/$remote/$data_branch" ||
                die 4 "cannot fetch the data branch '$data_branch' from '$remote'"
        return 0
}

# Link to this pipeline, for the comment footer.
run_url() {
        case $platform in
        github)
                [ -n "${GITHUB_RUN_ID:-}" ] &&
                        printf '%s/%s/actions/runs/%s' "${GITHUB_SERVER_URL:-https://github.com}" "${GITHUB_REPOSITORY:-}" "$GITHUB_RUN_ID"
                ;;
        gitlab) printf '%s' "${CI_JOB_URL:-}" ;;
        esac
}

set_output() {
        [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
        return 0
}

# fallback_report FILE STATUS STEP LOG: a comment body saying why there is no
# report (no baseline yet, or a failed step), with the end of the step's output.
fallback_report() {
        {
                printf '%s\n' "$MARKER"
                if [ "$2" = 0 ]; then
                        printf '### perfgate: nothing compared\n\n'
                else
                        printf '### perfgate: %s failed (exit status %s)\n\n' "$3" "$2"
                fi
                # shellcheck disable=SC2016
                printf 'Base: `%s`. `perfgate %s` wrote no report; the end of its output:\n\n' \
                        "$(printf '%s' "$base" | tr -d '`')" "$3"
                printf '~~~~text\n'
                grep -v '^~~~' "$4" 2>/dev/null | tail -n 40
                printf '~~~~\n'
                if [ "$first_run" = true ]; then
                        # shellcheck disable=SC2016
                        printf '\nNo baselines are recorded yet (no `%s` branch): the first perfgate run on the default branch records them, and pull requests are compared from then on.\n' "$data_branch"
                fi
        } >"$1"
}

# publish_report MD: the comment body (MD + a link to this run), the job
# summary, and the PR/MR comment.
publish_report() {
        cp "$1" "$out/comment.md" || die 4 "cannot write '$out/comment.md'"
        local url
        url=$(run_url)
        if [ -n "$url" ]; then
                printf '\n<sub>perfgate · reports, results and flame graphs: [%s](%s)</sub>\n' "artifacts of this run" "$url" >>"$out/comment.md"
        fi
        if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
                cat "$1" >>"$GITHUB_STEP_SUMMARY" || warn "cannot append to \$GITHUB_STEP_SUMMARY"
        fi
        [ "$comment" = true ] && post_comment "$out/comment.md"
        return 0
}

mode_pr() {
        prepare_out
        resolve_base
        local base_arg=$base
        if [ -e "$base" ]; then
                log "base '$base' is a results path: no git lookup"
        else
                fetch_pr_refs
                if git rev-parse -q --verify "refs/remotes/$remote/$base^{commit}" >/dev/null 2>&1; then
                        base_arg=$remote/$base
                fi
        fi

        run_status=0
        if [ ${#results[@]} -eq 0 ]; then
                do_run
                if [ "$run_status" != 0 ] && [ "$run_status" != 3 ] || ! has_results; then
                        # Say so in the comment too, or it would keep an old verdict.
                        rm -rf "$out/comment"
                        fallback_report "$out/report.md" "$run_status" run "$out/run.txt"
                        publish_report "$out/report.md"
                        if [ "$run_status" = 0 ]; then
                                set_output status 2
                                die 2 "perfgate run wrote no results in '$out/results'; check --benchmarks"
                        fi
                        set_output status "$run_status"
                        die "$run_status" "perfgate run failed (status $run_status); nothing to compare"
                fi
        fi
        has_results || die 2 "no results in: ${results[*]}"

        local md="$out/report.md"
        rm -f "$md" "$out/report.json" "$out/junit.xml" "$out/metrics.txt"
        rm -rf "$out/flamegraphs" "$out/comment"
        local args=(compare "$base_arg" --markdown "$md" --json "$out/report.json" --junit "$out/junit.xml"
                --openmetrics "$out/metrics.txt" --flamegraph-dir "$out/flamegraphs")
        [ -n "$link_base" ] && args+=(--link-base "$link_base")
        # a "build" command in perfgate.json lets compare confirm each suspect by
        # interleaved runs of base and head (docs/compare.md, "--confirm");
        # PERFGATE_CONFIRM=0 turns it off
        local cfg
        for cfg in perfgate.json bench/perfgate.json; do
                if [ "${PERFGATE_CONFIRM:-1}" != 0 ] && [ -f "$cfg" ] &&
                        grep -Eq '"build"[[:space:]]*:' "$cfg"; then
                        args+=(--confirm)
                        break
                fi
        done
        local d
        for d in "${results[@]}"; do args+=(--results "$d"); done
        log "+ perfgate ${args[*]}"
        "$PERFGATE" "${args[@]}" 2>&1 | tee "$out/compare.txt"
        local cmp_status=${PIPESTATUS[0]}
        log "perfgate compare exited with status $cmp_status"

        [ -s "$md" ] || fallback_report "$md" "$cmp_status" compare "$out/compare.txt"
        publish_report "$md"

        local final=$cmp_status
        if [ "$run_status" = 3 ] && { [ "$final" = 0 ] || [ "$final" = 1 ]; }; then
                final=3
        fi
        set_output status "$final"
        set_output report "$md"
        if [ "$final" = 1 ] && [ "$fail_on_regression" = false ]; then
                log "regression found; not failing the job (fail-on-regression: false)"
                final=0
        fi
        return "$final"
}

mode_run() {
        prepare_out
        do_run
        set_output status "$run_status"
        set_output results "$out/results"
        return "$run_status"
}

# push_data_branch: 0 pushed, 1 rejected (someone else pushed first), else dies.
push_data_branch() {
        local target=${push_url:-$remote}
        local outp
        outp=$(git push --porcelain "$target" "refs/heads/$data_branch:refs/heads/$data_branch" 2>&1)
        local st=$?
        if [ $st = 0 ]; then
                return 0
        fi
        # Never print a push URL (it may carry a token): only git's status lines.
        if printf '%s' "$outp" | grep -qE '\[rejected\]|\[remote rejected\].*(fetch first|non-fast-forward|stale|failed to update ref|cannot lock ref)|non-fast-forward|fetch first'; then
                return 1
        fi
        printf '%s\n' "$outp" | grep -E '^(!|error|fatal|remote:)' | sed -e 's#://[^@/]*@#://***@#g' >&2
        local hint="give the job write access to the repository"
        case $platform in
        github) hint="give the job 'permissions: contents: write' and keep actions/checkout's persist-credentials" ;;
        gitlab) hint="set PERFGATE_GITLAB_TOKEN (project access token, scopes api + write_repository, role Developer or Maintainer) so the job can push" ;;
        esac
        die 4 "cannot push '$data_branch' to '$remote': $hint"
}

mode_main() {
        prepare_out
        in_git || die 2 "not a git repository: '$(pwd)'; baselines are stored in the project's repository"
        if [ -z "$push_url" ] && [ "$platform" = gitlab ] && [ -n "${PERFGATE_GITLAB_TOKEN:-}" ] && [ -n "${CI_SERVER_HOST:-}" ]; then
                local port=""
                [ -n "${CI_SERVER_PORT:-}" ] && [ "${CI_SERVER_PORT}" != 443 ] && [ "${CI_SERVER_PORT}" != 80 ] && port=":$CI_SERVER_PORT"
                push_url="${CI_SERVER_PROTOCOL:-https}://oauth2:${PERFGATE_GITLAB_TOKEN}@${CI_SERVER_HOST}${port}/${CI_PROJECT_PATH}.git"
        fi
        run_status=0
        if [ ${#results[@]} -eq 0 ]; then
                do_run
                [ "$run_status" = 0 ] || die "$run_status" "perfgate run failed (status $run_status): not recording a baseline"
        fi
        has_results || die 2 "no results in: ${results[*]}"

        local attempt=1 ours="" d st
        while :; do
                if [ "$fetch" = true ] && fetch_data_branch; then
                        if [ -n "$ours" ]; then
                                # Drop our rejected commit (only if it is still the tip)
                                # and save again on the remote's new tip.
                                git update-ref "refs/heads/$data_branch" "refs/remotes/$remote/$data_branch" "$ours" ||
                                        die 4 "cannot move '$data_branch' to the remote's tip"
                        fi
                fi
                for d in "${results[@]}"; do
                        local args=(baseline save --results "$d")
                        [ -n "$machine" ] && args+=(--machine "$machine")
                        [ "$data_branch" != perfgate-baselines ] && args+=(--branch "$data_branch")
                        log "+ perfgate ${args[*]}"
                        "$PERFGATE" "${args[@]}"
                        st=$?
                        [ $st = 0 ] || die "$st" "perfgate baseline save failed (status $st)"
                done
                ours=$(git rev-parse -q --verify "refs/heads/$data_branch") ||
                        die 4 "perfgate baseline save made no branch '$data_branch'"
                has_remote || [ -n "$push_url" ] || {
                        log "no git remote '$remote': baseline saved locally only"
                        return 0
                }
                log "+ git push $remote $data_branch (attempt $attempt of $push_retries)"
                if push_data_branch; then
                        log "pushed baseline $(git rev-parse --short "$ours") to '$remote' '$data_branch'"
                        set_output baseline-commit "$ours"
                        return 0
                fi
                [ "$attempt" -lt "$push_retries" ] ||
                        die 4 "push of '$data_branch' rejected $attempt times (other jobs pushing); giving up. Rerun the job, or push the results once from a single job"
                log "push rejected: another job pushed '$data_branch' first; saving again on the new tip"
                sleep $((push_backoff * attempt + RANDOM % (push_backoff + 1)))
                attempt=$((attempt + 1))
        done
}

mode_comment() {
        [ -n "$body_file" ] || usage_error "comment mode needs '--body FILE' or '--from DIR'"
        { [ -f "$body_file" ] && [ -r "$body_file" ]; } || usage_error "cannot read the comment body '$body_file'"
        prepare_out
        local body=$body_file
        if [ "$(head -c ${#MARKER} "$body_file")" != "$MARKER" ]; then
                { printf '%s\n' "$MARKER"; cat "$body_file"; } >"$tmp/body.md"
                body=$tmp/body.md
        fi
        if [ -z "$(detect_pr)" ]; then
                usage_error "no pull request number: pass '--pr N' (or PERFGATE_PR)"
        fi
        post_comment "$body"
}

case $mode in
pr) mode_pr ;;
main) mode_main ;;
run) mode_run ;;
comment) mode_comment ;;
esac
