#!/usr/bin/env bash
# perfgate-ci.sh - the CI steps of perfgate, shared by the GitHub Action
# (ci/github/action.yml) and the GitLab template (ci/gitlab/), so the logic
# runs and is tested outside either CI system (tests/ci/).
#
#   perfgate-ci.sh pr       fetch base + data branch, run, compare, write the
#                           reports into the output dir, publish the flame
#                           graph images (GitHub: the assets branch; GitLab:
#                           project uploads), job summary, comment
#   perfgate-ci.sh prune    remove a closed PR's images from the assets branch
#   perfgate-ci.sh main     run, `perfgate baseline save`, push the data branch
#                           (a rejected push: fetch, save again on the new tip,
#                           retry, bounded)
#   perfgate-ci.sh run      run only (one shard of a matrix); results in OUT/results
#   perfgate-ci.sh comment  post or update the one comment from a file
#
# Invariants:
# - Exactly one PR/MR comment carries the marker "<!-- perfgate -->" at the
#   very start of its body; it is updated in place, never duplicated.
# - No stale verdicts: a job whose measured head is no longer the PR/MR's
#   head does not touch the comment (a newer job owns it).
# - Images come from the user's own repository and CI platform only, and
#   only from files perfgate drew in this job (never from an artifact).
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
  comment   post or update the comment from --body FILE; with --from DIR
            holding results/ (a fork PR's artifact) and --regenerate, draw the
            report and images again from those results with this perfgate
  prune     remove pull request --pr N's images from the assets branch and
            push it (when the PR closes)

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
                            (default on GitHub: published by --images)
  --history-url URL         link each benchmark of the comment to its chart on the
                            perfgate history site published there [PERFGATE_HISTORY_URL]
  --images auto|off         GitHub: commit the images to the assets branch and
                            show them in the comment; GitLab: upload PNGs of
                            them with the project uploads API [PERFGATE_IMAGES]
                            (auto: on, except GitHub fork PRs, whose images the
                            workflow_run poster draws, and private repositories,
                            which get a link to a single-file artifact)
  --assets-branch NAME      GitHub images branch [PERFGATE_ASSETS_BRANCH] (perfgate-assets)
  --assets-max-history N    squash the images branch into one commit when it
                            has N commits [PERFGATE_ASSETS_MAX_HISTORY] (100)
  --regenerate              comment mode: redraw from --from DIR's results
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
pr | main | run | comment | prune) shift ;;
"") usage_error "a mode is required: pr, main, run, comment or prune" ;;
*) usage_error "unknown mode '$mode' (pr, main, run, comment or prune)" ;;
esac

PERFGATE=${PERFGATE:-perfgate}
benchmarks=${PERFGATE_BENCHMARKS:-bench/}
base=${PERFGATE_BASE:-}
base_label="" # how the comment names base when it is not $base (the fork poster)
machine=${PERFGATE_MACHINE:-}
repeat=${PERFGATE_REPEAT:-}
counters=${PERFGATE_COUNTERS:-}
shard=${PERFGATE_SHARD:-}
run_args=${PERFGATE_RUN_ARGS:-}
comment=${PERFGATE_COMMENT:-on}
fail_on_regression=${PERFGATE_FAIL_ON_REGRESSION:-true}
data_branch=${PERFGATE_BASELINE_BRANCH:-perfgate-baselines}
link_base=${PERFGATE_LINK_BASE:-}
history_url=${PERFGATE_HISTORY_URL:-}
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
cmp_inputs=()
cmp_extra=()
images=${PERFGATE_IMAGES:-auto}
assets_branch=${PERFGATE_ASSETS_BRANCH:-perfgate-assets}
assets_max_history=${PERFGATE_ASSETS_MAX_HISTORY:-100}
regenerate=false
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
        --history-url) need_arg "$@"; history_url=$2; shift 2 ;;
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
        --images) need_arg "$@"; images=$2; shift 2 ;;
        --assets-branch) need_arg "$@"; assets_branch=$2; shift 2 ;;
        --assets-max-history) need_arg "$@"; assets_max_history=$2; shift 2 ;;
        --regenerate) regenerate=true; shift ;;
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
case $images in
auto | off) ;;
*) usage_error "'--images' must be auto or off, not '$images'" ;;
esac
case $assets_max_history in
'' | *[!0-9]*) usage_error "'--assets-max-history' must be a number of commits, not '$assets_max_history'" ;;
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

for tool in curl jq git; do
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
                pr_number_checked "$n" "the event"
                ;;
        gitlab) pr_number_checked "${CI_MERGE_REQUEST_IID:-}" CI_MERGE_REQUEST_IID ;;
        esac
}

# pr_number_checked N SOURCE: N when it is a number; otherwise nothing (a
# warning names SOURCE): it becomes part of API URLs and branch paths.
pr_number_checked() {
        case $1 in
        '') ;;
        *[!0-9]* | 0*) warn "the pull request number from $2 ('$(printf '%s' "$1" | head -c 80 | tr -cd '[:print:]')') is not a number: ignored" ;;
        *) echo "$1" ;;
        esac
}

# A pull_request event from a fork: the token is read-only there.
is_fork_pr() {
        [ "$platform" = github ] || return 1
        [ "${GITHUB_EVENT_NAME:-pull_request}" = pull_request ] || return 1
        # jq 1.6's -e exits 0 on empty input: compare the printed value.
        [ "$(event_json | jq -r '.pull_request != null and
                ((.pull_request.head.repo.full_name // "") != (.pull_request.base.repo.full_name // ""))' 2>/dev/null)" = true ]
}

pr_head_sha() {
        local h=
        if [ -n "$head_sha" ]; then
                h=$head_sha
        elif [ "$platform" = github ]; then
                h=$(event_json | jq -r '.pull_request.head.sha // empty' 2>/dev/null)
        elif [ "$platform" = gitlab ]; then
                h=${CI_COMMIT_SHA:-}
        fi
        # a commit id only: it becomes part of paths and comment text
        [[ $h =~ ^[0-9a-f]{1,64}$ ]] && echo "$h"
        return 0
}

# name_pr_head REPORT: on a GitHub pull_request event, actions/checkout
# checks out (and `run` records) GitHub's merge commit of the PR's head into
# its base (GITHUB_SHA, refs/pull/N/merge), a commit the reviewer never
# sees: the report's "Head: MERGE." becomes the PR's head
# (pull_request.head.sha) with the merge commit measured. Only when the
# commit named is HEAD and HEAD is a merge whose second parent is that head.
name_pr_head() {
        local f=$1 prh merge base
        [ -s "$f" ] && [ "$platform" = github ] || return 0
        prh=$(pr_head_sha)
        merge=$(git rev-parse -q --verify HEAD 2>/dev/null) || return 0
        [ -n "$prh" ] && [ "$prh" != "$merge" ] || return 0
        [ "$(git rev-parse -q --verify HEAD^2 2>/dev/null)" = "$prh" ] || return 0
        base=$(git rev-parse -q --verify HEAD^1 2>/dev/null) || return 0
        grep -qF "Head: $merge" "$f" || return 0
        sed "s/Head: $merge\( (with uncommitted changes)\)\{0,1\}\./Head: $prh (measured at the merge commit $merge of head ${prh:0:12} into base ${base:0:12}\1)./" \
                "$f" >"$tmp/head-named.md" && cat "$tmp/head-named.md" >"$f"
}

# name_flame_dir REPORT: a comment without images names the flame graph
# files "in the flame graph directory", which means nothing to a reviewer:
# when the action uploads the output directory as an artifact
# (PERFGATE_ARTIFACT, its name), name that artifact and the folder in it.
name_flame_dir() {
        local f=$1 a=${PERFGATE_ARTIFACT:-}
        [ -s "$f" ] && [ -n "$a" ] || return 0
        # an artifact name is plain text here (and in the sed expression)
        [[ $a =~ ^[A-Za-z0-9._-]+$ ]] || return 0
        sed "s|Flame graphs (in the flame graph directory): |Flame graphs (folder flamegraphs/ of this run's artifact \"$a\"): |" \
                "$f" >"$tmp/flame-named.md" && cat "$tmp/flame-named.md" >"$f"
}

# write_comment_artifact BODY PR REASON: leave the comment for a privileged job.
write_comment_artifact() {
        local d="$out/comment"
        mkdir -p "$d" || die 4 "cannot create '$d'"
        cp "$1" "$d/body.md" || die 4 "cannot write '$d/body.md'"
        # not on GitHub or GitLab (a local preview): nothing to post, so no
        # advice about posting it
        if [ "$platform" = none ]; then
                log "comment body written to '$d/body.md' (--platform none: not posted)"
                return 0
        fi
        printf '%s\n' "$2" >"$d/pr-number"
        printf '%s\n' "$(pr_head_sha)" >"$d/head-sha"
        printf '%s\n' "${GITHUB_REPOSITORY:-${CI_PROJECT_PATH:-}}" >"$d/repository"
        # The results, so the trusted poster can draw the report and the
        # images again with its own perfgate (never trusting files drawn here),
        # and the baseline it was compared with.
        rm -rf "$d/results"
        if [ "$mode" = pr ] && [ ${#results[@]} -gt 0 ]; then
                mkdir -p "$d/results"
                local r
                for r in "${results[@]}"; do
                        if [ -d "$r" ]; then cp "$r"/*.json "$d/results/" 2>/dev/null; else cp "$r" "$d/results/" 2>/dev/null; fi
                done
                [ -f "$out/report.json" ] && jq -r '.baseline // empty' "$out/report.json" >"$d/baseline" 2>/dev/null
        fi
        log "$3"
        if [ "$platform" = gitlab ]; then
                # GitLab has no read-only fork token to work around: the
                # template's jobs keep the output directory as the artifact
                # "perfgate report", linked from the MR page
                log "comment body written to '$d/body.md' (MR !${2:-unknown}); the template's job keeps it in its artifacts (linked as \"perfgate report\" on the MR page), from where it can be posted as the MR note by hand"
        else
                log "comment body written to '$d/body.md' (PR ${2:-unknown}); upload '$d' as an artifact and post it from a privileged job (ci/github/examples/fork-comment.yml)"
        fi
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
# dedupe_markers LIST_URL ITEM_URL HEADERS UPDATE_METHOD OURS: two jobs
# for one PR/MR can each find no comment and each create one. After creating
# comment OURS, keep the oldest marker comment (the one every later job
# updates; LIST_URL holds '?' and per_page=100), give it this job's body when it is not ours (the payload in
# $tmp/payload.json), and delete the others. Best effort.
dedupe_markers() {
        local list=$1 item=$2 hdr=$3 method=$4 ours=$5 page=1 count keep id
        local -a ids=()
        while [ "$page" -le 50 ]; do
                http GET "$list&page=$page" "$hdr"
                [ "$http_status" = 200 ] || return 0
                mapfile -t -O "${#ids[@]}" ids < <(jq -r --arg m "$MARKER" \
                        '.[] | select((.system // false) == false and ((.body // "") | startswith($m))) | .id' "$tmp/resp" 2>/dev/null)
                count=$(jq -r 'length' "$tmp/resp" 2>/dev/null || echo 0)
                [ "$count" -ge 100 ] || break
                page=$((page + 1))
        done
        [ ${#ids[@]} -gt 1 ] || return 0
        keep=$(printf '%s\n' "${ids[@]}" | sort -n | head -n 1)
        if [ "$keep" != "$ours" ]; then
                http "$method" "$item/$keep" "$hdr" "$tmp/payload.json"
        fi
        for id in "${ids[@]}"; do
                [ "$id" = "$keep" ] || http DELETE "$item/$id" "$hdr"
        done
        log "another job created a comment at the same time: kept the oldest ($keep), removed $((${#ids[@]} - 1))"
}

comment_payload() {
        # cut at a line end (never inside a tag), close the <details> left
        # open, so the note shows below them
        jq -Rs --argjson max "$2" '
                def opened($s): ($s | [match("<details>"; "g")] | length) - ($s | [match("</details>"; "g")] | length);
                if length > $max then
                        .[0:$max - 400] as $s | ($s | rindex("\n")) as $i
                        | (if $i then $s[0:$i] else $s end) as $k
                        | {body: ($k + ([range(opened($k))] | map("\n</details>") | add // "")
                                + "\n\n*(report truncated: the full report is in the job artifacts)*\n")}
                else {body: .} end' <"$1"
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

        # No stale verdicts: only the job that measured the PR's current head
        # writes the comment (an older job, finishing late, leaves it alone).
        local want=${head_sha:-$(pr_head_sha)}
        if [ -n "$want" ]; then
                http GET "$api/repos/$repo/pulls/$n" "$tmp/gh.headers"
                [ "$http_status" = 200 ] ||
                        die 4 "cannot read pull request #$n (HTTP $http_status: $(api_message))"
                local actual
                actual=$(jq -r '.head.sha // empty' "$tmp/resp")
                if [ -n "$head_sha" ] && [ "$actual" != "$head_sha" ]; then
                        die 2 "pull request #$n is at '${actual:-?}', not '$head_sha': the artifact is stale or not from this pull request; not posting"
                fi
                if [ -n "$actual" ] && [ "$actual" != "$want" ]; then
                        log "pull request #$n is now at ${actual:0:12}; this job measured ${want:0:12}: not updating the comment (the newer head's job does)"
                        return 0
                fi
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
                [ "$verb" = created ] && dedupe_markers "$api/repos/$repo/issues/$n/comments?per_page=100" \
                        "$api/repos/$repo/issues/comments" "$tmp/gh.headers" PATCH "$(jq -r '.id // empty' "$tmp/resp")"
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
        local want=${head_sha:-${CI_COMMIT_SHA:-}}
        if [ -n "$want" ]; then
                http GET "$api/projects/$project/merge_requests/$n" "$tmp/gl.headers"
                local actual=""
                [ "$http_status" = 200 ] && actual=$(jq -r '.sha // empty' "$tmp/resp" 2>/dev/null)
                if [ -n "$actual" ] && [ "$actual" != "$want" ]; then
                        log "merge request !$n is now at ${actual:0:12}; this job measured ${want:0:12}: not updating the note (the newer head's pipeline does)"
                        return 0
                fi
        fi
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
        200 | 201)
                log "$verb MR note $(jq -r '.id // empty' "$tmp/resp" 2>/dev/null) on !$n"
                [ "$verb" = created ] && dedupe_markers "$base_url?per_page=100&sort=asc&order_by=created_at" "$base_url" \
                        "$tmp/gl.headers" PUT "$(jq -r '.id // empty' "$tmp/resp")"
                ;;
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
        run_status=$(pg_status "$run_status")
}

# pg_status S: a perfgate exit status as the job's: 0-4 and 130 as they are;
# anything else (127: not found, 128+N: killed by signal N) is 4.
pg_status() {
        case $1 in
        [0-4] | 130) echo "$1" ;;
        *) echo 4 ;;
        esac
}

# need_perfgate: the perfgate binary exists (exit 4 with the fix otherwise)
need_perfgate() {
        command -v "$PERFGATE" >/dev/null 2>&1 ||
                die 4 "perfgate not found ('$PERFGATE'): install it (docs/ci.md), or set PERFGATE to its path"
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

# ---------------------------------------------------------------- images
# compare --flamegraph-dir draws <benchmark>.image.svg (and .focus.svg) for
# each regression: static SVGs that read well with scripts and styles removed.
# GitHub shows SVG files committed to the repository through its image proxy
# (scripts removed), so they are committed to the assets branch and the
# comment names them by a raw URL pinned to that commit. GitLab serves an
# uploaded SVG as a download, not inline, so a PNG drawn from it without a
# browser (rsvg-convert) is uploaded and the returned Markdown goes in the note.

# The placeholder link base of the first compare's linked report, replaced
# by the raw URL of the published images (GitHub) or by upload URLs (GitLab).
UPLOAD_BASE=https://perfgate.invalid/upload

has_images() { compgen -G "$1/*.image.svg" >/dev/null; }

repo_is_private() {
        [ "$platform" = github ] || return 1
        [ "${PERFGATE_PRIVATE:-}" = true ] && return 0
        [ "$(event_json | jq -r '.repository.private == true' 2>/dev/null)" = true ]
}

# The commit the results measured: the PR head (event), else HEAD.
measured_head() {
        local h
        h=$(pr_head_sha)
        [ -n "$h" ] || h=$(git rev-parse -q --verify HEAD 2>/dev/null)
        printf '%s' "$h"
}

# linked_report MD LINKBASE: the report of the comparison with the flame
# graphs shown from LINKBASE. compare wrote it once, with $UPLOAD_BASE as the
# link base (--markdown-plain gave the comment without images), so the
# comparison, and any confirmation runs, happen once and the comment says
# what the exit status says. 0 when MD was written.
linked_report() {
        [ -s "$tmp/report-linked.md" ] || return 1
        case $2 in
        '' | *[!A-Za-z0-9:/._~%+-]*)
                warn "link base '$2' holds characters a Markdown link cannot carry as they are; the comment names the files"
                return 1
                ;;
        esac
        local line
        while IFS= read -r line || [ -n "$line" ]; do
                printf '%s\n' "${line//"$UPLOAD_BASE"/"$2"}"
        done <"$tmp/report-linked.md" >"$1" || die 4 "cannot write '$1'"
}

# fetch_assets_branch: refs/remotes/$remote/$assets_branch as on the remote
# (deleted when the remote has none), also under --no-fetch: the lease and a
# retry after a lost race need the remote's current tip. 1 when the remote
# cannot be read.
fetch_assets_branch() {
        has_remote || return 0
        git ls-remote --exit-code --heads "$remote" "refs/heads/$assets_branch" >/dev/null 2>&1
        case $? in
        0) git fetch --no-tags --quiet "$remote" "+refs/heads/$assets_branch:refs/remotes/$remote/$assets_branch" ;;
        2) git update-ref -d "refs/remotes/$remote/$assets_branch" 2>/dev/null || true ;;
        *) return 1 ;;
        esac
}

# commit_assets PERFGATE-ASSETS-ARGS...: one `perfgate assets` commit built on
# the remote's tip, pushed with a lease on that tip; a lost race is fetched
# and done again (bounded). Prints the commit; 1 (warned) on failure.
commit_assets() {
        local attempt=1 expected st
        while :; do
                fetch_assets_branch || {
                        warn "cannot read '$assets_branch' from '$remote'"
                        return 1
                }
                expected=$(git rev-parse -q --verify "refs/remotes/$remote/$assets_branch" 2>/dev/null) || expected=""
                # Build on what the remote has, never on a local leftover.
                git update-ref -d "refs/heads/$assets_branch" 2>/dev/null || true
                "$PERFGATE" assets "$@" --branch "$assets_branch" --max-history "$assets_max_history" \
                        >"$tmp/assets.out" 2>"$tmp/assets.err" || {
                        warn "perfgate assets $1 failed: $(tail -n 1 "$tmp/assets.err")"
                        return 1
                }
                sed 's/^/perfgate-ci: /' "$tmp/assets.err" >&2
                local commit
                commit=$(sed -n 's/^commit //p' "$tmp/assets.out")
                if [ "$commit" = none ]; then
                        echo none
                        return 0
                fi
                if ! has_remote && [ -z "$push_url" ]; then
                        log "no git remote '$remote': '$assets_branch' committed locally only"
                        echo "$commit"
                        return 0
                fi
                log "+ git push --force-with-lease $remote $assets_branch (attempt $attempt of $push_retries)"
                push_branch "$assets_branch" "$expected"
                st=$?
                if [ $st = 0 ]; then
                        echo "$commit"
                        return 0
                fi
                if [ $st != 1 ]; then
                        warn "cannot push '$assets_branch' to '$remote': $(push_hint)"
                        return 1
                fi
                if [ "$attempt" -ge "$push_retries" ]; then
                        warn "push of '$assets_branch' rejected $attempt times (other jobs pushing)"
                        return 1
                fi
                log "push rejected: another job pushed '$assets_branch' first; committing again on the new tip"
                sleep $((push_backoff * attempt + RANDOM % (push_backoff + 1)))
                attempt=$((attempt + 1))
        done
}

# github_images MD N: publish the images as pr-N/<head>/ on the assets branch
# and write MD again showing them from the raw URL pinned to that commit.
github_images() {
        local md=$1 n=$2 head commit raw
        head=$(measured_head)
        case $head in
        '' | *[!0-9a-f]*)
                warn "no head commit to file the images under; the comment names the files"
                return 1
                ;;
        esac
        # only what the comment shows or links to, not every graph compare drew
        local name
        { rm -rf "$tmp/publish" && mkdir -p "$tmp/publish"; } || die 4 "cannot write a temporary file"
        while IFS= read -r name; do
                cp "$out/flamegraphs/$(urldecode "$name")" "$tmp/publish/" || die 4 "cannot copy a flame graph to publish"
        done < <(linked_names "$tmp/report-linked.md")
        [ -n "$(ls -A "$tmp/publish")" ] || return 1
        commit=$(commit_assets publish "$tmp/publish" --path "pr-$n/$head") || return 1
        raw=${PERFGATE_RAW_URL:-${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/raw}
        local lb="${raw%/}/$commit/pr-$n/$head"
        linked_report "$tmp/report-images.md" "$lb" || return 1
        cp "$tmp/report-images.md" "$md" || die 4 "cannot write '$md'"
        log "images published on '$assets_branch' at ${commit:0:12}: $lb/"
        set_output assets-commit "$commit"
        set_output link-base "$lb"
}

# gitlab_upload FILE: POST FILE to the project uploads API; the response
# ({"url", "markdown", ...}) in $tmp/resp. 0 on HTTP 201. The file goes up
# under a name of safe bytes only (curl -F gives ';' and ',' a meaning).
gitlab_upload() {
        local safe
        safe=$(basename "$1" | LC_ALL=C tr -c 'A-Za-z0-9._\n-' '_')
        { mkdir -p "$tmp/up" && cp "$1" "$tmp/up/$safe"; } || die 4 "cannot write a temporary file"
        http_status=$(curl -sS --retry 2 --retry-delay 1 --connect-timeout 10 --max-time 120 \
                -o "$tmp/resp" -w '%{http_code}' -X POST -H "@$tmp/gl.up.headers" \
                -F "file=@$tmp/up/$safe" "${CI_API_V4_URL%/}/projects/${CI_PROJECT_ID}/uploads" 2>"$tmp/curl.err") || true
        rm -f "$tmp/up/$safe"
        [ "$http_status" = 201 ] || [ "$http_status" = 200 ]
}

# urldecode S (the %XX of compare's file names; S holds no backslash,
# linked_names checked it)
urldecode() { printf '%b' "${1//%/\\x}"; }

# linked_names MD: the flame graph files the linked report MD shows or links
# to: the names in its href="$UPLOAD_BASE/..." and src="..." attributes (not
# text that merely spells the placeholder: a function name can), one per
# line, percent-encoded as compare wrote them. Only names of files compare
# wrote qualify: a plain *.svg file directly in $out/flamegraphs, never a
# path. At most $assets_max_files (0 names and a warning past it).
assets_max_files=${PERFGATE_ASSETS_MAX_FILES:-200}
linked_names() {
        local enc dec n=0
        local -a names=()
        while IFS= read -r enc; do
                [[ $enc =~ ^[A-Za-z0-9._~%-]+$ ]] || continue
                dec=$(urldecode "$enc")
                case $dec in
                */* | .* | *[[:cntrl:]]*) continue ;;
                *.svg) ;;
                *) continue ;;
                esac
                if [ ! -f "$out/flamegraphs/$dec" ] || [ -L "$out/flamegraphs/$dec" ]; then
                        continue
                fi
                names+=("$enc")
                n=$((n + 1))
        done < <(grep -oE "(href|src)=\"$UPLOAD_BASE/[^\"]*\"" "$1" | sed -e 's#^[a-z]*="[^"]*/##' -e 's#"$##' | sort -u)
        if [ "$n" -gt "$assets_max_files" ]; then
                warn "the report links $n flame graph files, more than $assets_max_files (PERFGATE_ASSETS_MAX_FILES): none published; the comment names them"
                return 0
        fi
        [ "$n" = 0 ] || printf '%s\n' "${names[@]}"
}

# gitlab_images MD: upload PNGs of the images (rsvg-convert, no browser) and
# the interactive SVGs, and write MD again with the returned Markdown.
gitlab_images() {
        local md=$1
        if [ -z "${PERFGATE_GITLAB_TOKEN:-}" ] || [ -z "${CI_API_V4_URL:-}" ] || [ -z "${CI_PROJECT_ID:-}" ]; then
                return 1 # gitlab_note says what is missing
        fi
        command -v rsvg-convert >/dev/null 2>&1 || {
                warn "rsvg-convert is not installed (Debian: librsvg2-bin; ci/install-deps.sh ci installs it): the MR note names the flame graph files instead of showing them"
                return 1
        }
        linked_report "$tmp/report-upload.md" "$UPLOAD_BASE" || return 1
        (umask 077 && printf 'PRIVATE-TOKEN: %s\nUser-Agent: perfgate-ci\n' "$PERFGATE_GITLAB_TOKEN" >"$tmp/gl.up.headers") ||
                die 4 "cannot write a temporary file"
        local names name file png
        declare -A url=() mdimg=()
        mapfile -t names < <(linked_names "$tmp/report-upload.md")
        [ ${#names[@]} -gt 0 ] || return 1
        mkdir -p "$tmp/png"
        for name in "${names[@]}"; do
                file=$out/flamegraphs/$(urldecode "$name")
                [ -f "$file" ] || { warn "no file '$file' for the MR note"; return 1; }
                case $name in
                *.image.svg | *.focus.svg)
                        png=$tmp/png/$(basename "${file%.svg}").png
                        rsvg-convert -f png -o "$png" "$file" 2>"$tmp/rsvg.err" || {
                                warn "rsvg-convert failed on '$file': $(head -c 200 "$tmp/rsvg.err")"
                                return 1
                        }
                        gitlab_upload "$png" || {
                                warn "cannot upload '$png' (HTTP $http_status: $(api_message)); the MR note names the files"
                                return 1
                        }
                        mdimg[$name]=$(jq -r '.markdown // empty' "$tmp/resp")
                        ;;
                *)
                        gitlab_upload "$file" || {
                                warn "cannot upload '$file' (HTTP $http_status: $(api_message)); the MR note names the files"
                                return 1
                        }
                        url[$name]=$(jq -r '.url // empty' "$tmp/resp")
                        ;;
                esac
        done
        # An image line of compare's Markdown becomes [returned Markdown](SVG
        # upload): the PNG shown, the click opening the interactive SVG.
        local line re="^<a href=\"$UPLOAD_BASE/([^\"]+)\"><img src=\"$UPLOAD_BASE/([^\"]+)\" alt=\"[^\"]*\"></a>$"
        : >"$tmp/report-gl.md"
        while IFS= read -r line || [ -n "$line" ]; do
                if [[ $line =~ $re ]] && [ -n "${mdimg[${BASH_REMATCH[2]}]:-}" ]; then
                        line="[${mdimg[${BASH_REMATCH[2]}]}](${url[${BASH_REMATCH[1]}]:-})"
                else
                        for name in "${!url[@]}"; do
                                line=${line//"$UPLOAD_BASE/$name"/"${url[$name]}"}
                        done
                fi
                printf '%s\n' "$line" >>"$tmp/report-gl.md"
        done <"$tmp/report-upload.md"
        cp "$tmp/report-gl.md" "$md" || die 4 "cannot write '$md'"
        log "uploaded ${#names[@]} files for the MR note"
}

# show_images MD: put the regressions' flame graphs into the comment where
# this platform can show them; otherwise leave MD as compare wrote it.
show_images() {
        local md=$1 n
        [ "$images" = auto ] && [ -z "$link_base" ] || return 0
        has_images "$out/flamegraphs" || return 0
        n=$(detect_pr)
        case $platform in
        github)
                if is_fork_pr; then
                        log "fork pull request: the trusted workflow_run poster draws and publishes the images (ci/github/examples/fork-comment.yml)"
                elif repo_is_private; then
                        # Images of a private repository may not render in
                        # comments: a one-click link to a single-file artifact
                        # instead (the action uploads it, unzipped).
                        local f
                        f=$(jq -r '[.benchmarks[] | select(.verdict == "regression" and (.flamegraphs.diff // null) != null)][0].flamegraphs.diff // empty' \
                                "$out/report.json" 2>/dev/null)
                        [ -n "$f" ] && set_output flamegraph "$out/flamegraphs/$f"
                        log "private repository: no images in the comment; the action links the flame graph as a single-file artifact"
                elif [ -n "$n" ]; then
                        github_images "$md" "$n" || true
                fi
                ;;
        gitlab) gitlab_images "$md" || true ;;
        esac
        return 0
}

set_output() {
        [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
        return 0
}

# fenced LOG N: the last N lines of LOG as a Markdown code block. Its fence
# is longer than any run of '~' in them, so no line can close it (CommonMark
# closes a fence with as many tildes, indented up to 3 spaces): text from
# results a fork PR made stays text.
fenced() {
        local n fence
        n=$(tail -n "$2" "$1" 2>/dev/null | grep -o '~*' | awk '{ if (length > m) m = length } END { print (m < 4 ? 4 : m + 1) }')
        fence=$(printf '%*s' "$n" '' | tr ' ' '~')
        printf '%stext\n' "$fence"
        tail -n "$2" "$1" 2>/dev/null
        printf '%s\n' "$fence"
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
                        "$(printf '%s' "${base_label:-$base}" | tr -d '`')" "$3"
                fenced "$4" 40
                if [ "$first_run" = true ]; then
                        # shellcheck disable=SC2016
                        printf '\nNo baselines are recorded yet (no `%s` branch): the first perfgate run on the default branch records them, and pull requests are compared from then on.\n' "$data_branch"
                fi
        } >"$1"
}

# note_run_failure MD: say at the top of the comment that `perfgate run`
# failed, so that a verdict on the benchmarks it measured does not read as a
# pass of them all (the job's status is run's).
note_run_failure() {
        {
                head -n 1 "$1"
                # shellcheck disable=SC2016
                printf '\n**:warning: `perfgate run` exited with status %s**: not every benchmark could be measured, so the comparison below covers only the results it wrote (one it could not measure shows as missing). The end of its output:\n\n' "$run_status"
                fenced "$out/run.txt" 20
                tail -n +2 "$1"
        } >"$tmp/report-run.md" || die 4 "cannot write a temporary file"
        mv "$tmp/report-run.md" "$1" || die 4 "cannot write '$1'"
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
        # The job summary gets the same report, images included.
        if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
                cat "$1" >>"$GITHUB_STEP_SUMMARY" || warn "cannot append to \$GITHUB_STEP_SUMMARY"
        fi
        [ "$comment" = true ] && post_comment "$out/comment.md"
        return 0
}

# Whether perfgate.json or bench/perfgate.json has a "build" command: then
# compare can build any commit (--confirm in pr, --calibrate in main).
has_build_cmd() {
        local cfg
        for cfg in perfgate.json bench/perfgate.json; do
                [ -f "$cfg" ] && grep -Eq '"build"[[:space:]]*:' "$cfg" && return 0
        done
        return 1
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
        cmp_inputs=("$base_arg")
        # the data branch the baselines are saved to (baseline save --branch, below)
        [ "$data_branch" != perfgate-baselines ] && cmp_inputs+=(--branch "$data_branch")
        local d
        for d in "${results[@]}"; do cmp_inputs+=(--results "$d"); done
        local args=(compare "${cmp_inputs[@]}" --json "$out/report.json" --junit "$out/junit.xml"
                --openmetrics "$out/metrics.txt" --flamegraph-dir "$out/flamegraphs")
        rm -f "$tmp/report-linked.md"
        if [ -n "$link_base" ]; then
                args+=(--markdown "$md" --link-base "$link_base")
        elif [ "$images" = auto ]; then
                # both comments from one comparison: with the images (links
                # to $UPLOAD_BASE, replaced once they are published, see
                # show_images) and without (when they cannot be)
                args+=(--markdown "$tmp/report-linked.md" --markdown-plain "$md" --link-base "$UPLOAD_BASE")
        else
                args+=(--markdown "$md")
        fi
        # a "build" command in perfgate.json lets compare confirm each suspect by
        # interleaved runs of base and head (docs/compare.md, "--confirm");
        # PERFGATE_CONFIRM=0 turns it off. Not in the trusted poster of a fork
        # PR: its head is the artifact's results, not this work tree's build.
        # A results path as the base has no commit to build.
        cmp_extra=()
        if [ "${PERFGATE_CONFIRM:-1}" != 0 ] && [ "$regenerate" != true ] && has_build_cmd; then
                if [ -e "$base" ]; then
                        log "base '$base' is a results path: no commit to build, so no --confirm"
                else
                        cmp_extra+=(--confirm)
                fi
        fi
        # each benchmark of the comment links to its chart on the trends site
        # (perfgate history --html, docs/history.md) published at this URL
        [ -n "$history_url" ] && cmp_extra+=(--history-url "$history_url")
        args+=(${cmp_extra[@]+"${cmp_extra[@]}"})
        log "+ perfgate ${args[*]}"
        [ -z "$link_base" ] && [ "$images" = auto ] &&
                log "  ($UPLOAD_BASE is a placeholder: the comment's image links are rewritten to the published images' URLs once they are uploaded)"
        "$PERFGATE" "${args[@]}" 2>&1 | tee "$out/compare.txt"
        local cmp_status=${PIPESTATUS[0]}
        cmp_status=$(pg_status "$cmp_status")
        name_pr_head "$md"
        [ -s "$tmp/report-linked.md" ] && name_pr_head "$tmp/report-linked.md"
        name_flame_dir "$md"
        log "perfgate compare exited with status $cmp_status"

        # compare's report, when it finished it: 0 and 1, and 3 (a
        # confirmation that could not run leaves the report, marked
        # unconfirmed); with 2 or 4 a report may be partial
        if [ -s "$md" ] && { [ "$cmp_status" = 0 ] || [ "$cmp_status" = 1 ]; }; then
                show_images "$md"
        elif ! { [ -s "$md" ] && [ "$cmp_status" = 3 ]; }; then
                fallback_report "$md" "$cmp_status" compare "$out/compare.txt"
        fi
        [ "$run_status" != 0 ] && note_run_failure "$md"
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

# push_branch BRANCH [LEASE]: push BRANCH; with a second argument, with
# --force-with-lease on that remote tip (empty: the branch must not exist
# yet), so a squashed (root) commit replaces exactly the tip it was built on.
# 0 pushed, 1 rejected (someone else pushed first), 2 other failure (git's
# error lines printed, URLs masked).
push_branch() {
        local target=${push_url:-$remote} outp st
        local args=(--porcelain)
        [ $# -ge 2 ] && args+=("--force-with-lease=refs/heads/$1:$2")
        outp=$(git push "${args[@]}" "$target" "refs/heads/$1:refs/heads/$1" 2>&1)
        st=$?
        [ $st = 0 ] && return 0
        # A lost race is git's own status line for the ref (--porcelain: "!",
        # tab, ref, tab, flag and reason), never text a hook printed. A
        # here-string, not a pipe: under pipefail, grep -q quitting at the
        # match can kill printf with SIGPIPE (status 141), about once in 700.
        if grep -qE $'^!\t[^\t]*\t\\[(rejected\\] \\((fetch first|non-fast-forward|stale info)\\)|remote rejected\\] \\((failed to update ref|cannot lock ref))' <<<"$outp"; then
                return 1
        fi
        # Never print a push URL or a token: only git's status lines, masked.
        local tok
        for tok in "${PERFGATE_GITLAB_TOKEN:-}" "${PERFGATE_GITHUB_TOKEN:-}" "${GITHUB_TOKEN:-}" "${CI_JOB_TOKEN:-}"; do
                [ -n "$tok" ] && outp=${outp//"$tok"/***}
        done
        printf '%s\n' "$outp" | grep -E '^(!|error|fatal|remote:)' | sed -e 's#://[^[:space:]'"'"'"]*@#://***@#g' >&2
        return 2
}

push_hint() {
        case $platform in
        github) echo "give the job 'permissions: contents: write' and keep actions/checkout's persist-credentials" ;;
        gitlab) echo "set PERFGATE_GITLAB_TOKEN (project access token, scopes api + write_repository, role Developer or Maintainer) so the job can push" ;;
        *) echo "give the job write access to the repository" ;;
        esac
}

# push_data_branch: 0 pushed, 1 rejected (someone else pushed first), else dies.
push_data_branch() {
        push_branch "$data_branch"
        case $? in
        0) return 0 ;;
        1) return 1 ;;
        esac
        die 4 "cannot push '$data_branch' to '$remote': $(push_hint)"
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
                # each benchmark's paired A/A noise, saved with the baseline:
                # the floor of --confirm on later PRs (docs/compare.md, "Floor
                # and noise calibration"); PERFGATE_CALIBRATE=0 turns it off.
                # Only results run here: calibration runs this work tree's build.
                if [ "${PERFGATE_CALIBRATE:-1}" != 0 ] && has_build_cmd; then
                        log "+ perfgate compare --calibrate --results $out/results"
                        "$PERFGATE" compare --calibrate --results "$out/results" 2>&1 | tee "$out/calibrate.txt"
                        local cal=${PIPESTATUS[0]}
                        [ "$cal" = 130 ] && die 130 "interrupted while calibrating"
                        [ "$cal" = 0 ] || log "perfgate compare --calibrate exited with status $cal: the baseline is saved without noise figures"
                fi
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
                        [ $st = 0 ] || die "$(pg_status "$st")" "perfgate baseline save failed (status $st)"
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

# regenerate_from_artifact: the trusted poster of a fork PR draws the report
# and the images again from the artifact's results/ with its own perfgate,
# against the baseline read from this repository's own data branch (the one
# the fork's job named), then publishes and posts as the PR job would.
regenerate_from_artifact() {
        if [ -z "$from_dir" ] || [ ! -d "$from_dir/results" ]; then
                usage_error "'--regenerate' needs '--from DIR' holding the results/ of the PR's job"
        fi
        in_git || die 2 "not a git repository: '$(pwd)'; run the poster in a checkout of the base repository"
        local first machine c12 ref dir f
        first=$(compgen -G "$from_dir/results/*.json" | head -n 1)
        [ -n "$first" ] || die 2 "no result files in '$from_dir/results'"
        machine=$(jq -r '.machine // "default"' "$first" 2>/dev/null)
        [[ $machine =~ ^[A-Za-z0-9._-]+$ ]] || die 2 "bad machine name in '$first'"
        c12=$(head -c 300 "$from_dir/baseline" 2>/dev/null | grep -oE '@ [0-9a-f]{12}' | head -n 1 | cut -c3-)
        [ -n "$c12" ] || die 2 "'$from_dir/baseline' names no baseline commit; nothing to compare"
        prepare_out
        fetch_data_branch >/dev/null || true
        ref=refs/remotes/$remote/$data_branch
        git rev-parse -q --verify "$ref" >/dev/null || ref=refs/heads/$data_branch
        dir=$(git ls-tree --name-only "$ref:$machine/" 2>/dev/null | grep "^$c12" | head -n 1)
        [ -n "$dir" ] || die 2 "no baseline $c12 for machine '$machine' on '$data_branch'"
        mkdir -p "$tmp/base"
        while IFS= read -r f; do
                case $f in *.json) git show "$ref:$machine/$dir/$f" >"$tmp/base/$f" || die 4 "cannot read '$machine/$dir/$f'" ;; esac
        done < <(git ls-tree --name-only "$ref:$machine/$dir/")
        base=$tmp/base
        base_label="$(head -c 300 "$from_dir/baseline" | head -n 1 | tr -cd 'A-Za-z0-9@ ._/-')"
        results=("$from_dir/results")
        local st=0 stop=
        # the artifact's results are the fork's: nothing perfgate prints about
        # them may act as a workflow command in this trusted job's log
        if [ "${GITHUB_ACTIONS:-}" = true ]; then
                stop=perfgate-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
                printf '::stop-commands::%s\n' "$stop"
        fi
        mode_pr || st=$?
        [ -n "$stop" ] && printf '::%s::\n' "$stop"
        [ "$st" = 1 ] && st=0 # the PR's verdict, not the poster's failure
        return "$st"
}

# mode_prune: remove pull request N's images from the assets branch.
mode_prune() {
        in_git || die 2 "not a git repository: '$(pwd)'"
        local n commit
        n=$(detect_pr)
        [ -n "$n" ] || usage_error "prune needs the pull request: pass '--pr N' (or PERFGATE_PR)"
        commit=$(commit_assets prune --path "pr-$n") || die 4 "cannot remove pr-$n from '$assets_branch'"
        if [ "$commit" = none ]; then
                log "'$assets_branch' holds nothing for pull request #$n"
        else
                log "removed pr-$n from '$assets_branch' (${commit:0:12})"
        fi
}

mode_comment() {
        if [ "$regenerate" = true ]; then
                regenerate_from_artifact
                return
        fi
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
pr | main | run | prune) need_perfgate ;;
comment) [ "$regenerate" = true ] && need_perfgate ;;
esac
case $mode in
pr) mode_pr ;;
main) mode_main ;;
run) mode_run ;;
comment) mode_comment ;;
prune) mode_prune ;;
esac
