#!/usr/bin/env bash
# test-images.sh - the flame graph images of ci/perfgate-ci.sh pr on GitHub,
# with the real perfgate, a real bare "origin" on disk and the fake REST
# server (which serves origin's raw files as GitHub does):
#   - a race: another job pushes perfgate-assets between our commit and our
#     push; the push (with a lease) is rejected, committed again on the new
#     tip, and both jobs' images land;
#   - a bounded history: with --assets-max-history 2 the branch is squashed
#     into a root commit and the forced push (lease on the tip it was built
#     on) replaces it on origin;
#   - a private repository: no images published, the first regression's
#     interactive SVG (report order) named as the `flamegraph` output (a single-file artifact
#     for the action to link);
#   - a fork PR: nothing published by the fork's job; the comment artifact
#     holds the results and the baseline's name; the trusted poster
#     (comment --from DIR --regenerate) draws the images again from those
#     results against the baseline of its own data branch and publishes them,
#     never a file the fork's job drew;
#   - one comparison per job: the comment with the images comes from the
#     same compare as the exit status (its links filled in afterwards).
. "$(dirname "$0")/lib.sh"

PERFGATE_BIN=${PERFGATE_BIN:?set PERFGATE_BIN to the perfgate binary}
export PERFGATE="$PERFGATE_BIN" PERFGATE_PUSH_BACKOFF=0 PERFGATE_PLATFORM=github
golden="$SRC/tests/golden/compare"
origin="$scratch/origin.git"
git init -q --bare "$origin"
git clone -q "$origin" "$scratch/work" 2>/dev/null
git clone -q "$origin" "$scratch/racer" 2>/dev/null
cd "$scratch/work" || exit 1
echo 'int main(void) { return 0; }' >bench.c
git add bench.c && git commit -qm "first" && git push -q origin main 2>/dev/null
head=$(git rev-parse HEAD)
TOKEN=ghs_img
event() { # event SHA PRIVATE HEADREPO
        jq -n --arg sha "$1" --argjson priv "$2" --arg hr "$3" '{pull_request: {number: 7, head: {sha: $sha,
                repo: {full_name: $hr}}, base: {repo: {full_name: "octo/proj"}}}, repository: {private: $priv}}' \
                >"$scratch/event.json"
}
start_server --token "$TOKEN" --git-dir "$origin" --head-sha "$head"
gh=(env GITHUB_API_URL="$API" GITHUB_SERVER_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN="$TOKEN"
        GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$scratch/event.json")

# ---- race on the assets branch
event "$head" false octo/proj
# The racer publishes first, so our lease (taken at our fetch) is stale: a
# pre-push hook in our clone lands the racer's commit just before our push.
mkdir -p "$scratch/racer-fg" && echo '<svg xmlns="http://www.w3.org/2000/svg"/>' >"$scratch/racer-fg/r.image.svg"
cat >.git/hooks/pre-push <<HOOK
#!/bin/sh
[ -e "$scratch/raced" ] && exit 0
touch "$scratch/raced"
cd "$scratch/racer" && git fetch -q origin && { git update-ref refs/remotes/origin/perfgate-assets origin/perfgate-assets 2>/dev/null; true; } &&
        "$PERFGATE_BIN" assets publish "$scratch/racer-fg" --path pr-9/racer >/dev/null 2>&1 &&
        git push -q origin perfgate-assets 2>/dev/null
exit 0
HOOK
chmod +x .git/hooks/pre-push
"${gh[@]}" "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$golden/head" --out "$scratch/out1" >"$scratch/log1" 2>&1
check_eq "regression: exit 1" 1 $?
rm -f .git/hooks/pre-push
check "the racer's push happened" test -e "$scratch/raced"
check_grep "race: our lease was rejected and we committed again" "push rejected" "$scratch/log1"
check "race: the racer's image is on origin" bash -c "git -C '$origin' ls-tree -r --name-only perfgate-assets | grep -qx pr-9/racer/r.image.svg"
check "race: our image is on origin" bash -c "git -C '$origin' ls-tree -r --name-only perfgate-assets | grep -qx pr-7/$head/parse.image.svg"
tip=$(git -C "$origin" rev-parse perfgate-assets)
check_grep "comment shows our image pinned to origin's tip" "<img src=\"$API/octo/proj/raw/$tip/pr-7/$head/parse.image.svg\"" \
        "$scratch/out1/comment.md"
check_eq "the pinned address serves it" 200 "$(curl -s -o /dev/null -w '%{http_code}' "$API/octo/proj/raw/$tip/pr-7/$head/parse.image.svg")"
check_eq "one comparison: the comment with images is not a second compare" 1 \
        "$(grep -c '+ perfgate compare' "$scratch/log1")"
check "no placeholder link is left in the comment" bash -c "! grep -q perfgate.invalid '$scratch/out1/comment.md'"

# ---- bounded history: squash into a root commit, forced with a lease
"${gh[@]}" "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$golden/head" --out "$scratch/out-s1" \
        --assets-max-history 2 >"$scratch/log-s1" 2>&1
check_grep "squash: said so" "history squashed" "$scratch/log-s1"
check_eq "squash: origin's assets branch is one root commit" 1 "$(git -C "$origin" rev-list --count perfgate-assets)"
"${gh[@]}" "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$golden/head" --out "$scratch/out-s2" \
        --assets-max-history 2 >"$scratch/log-s2" 2>&1
check_eq "squash: then it grows from that root again" 2 "$(git -C "$origin" rev-list --count perfgate-assets)"
check "squash: it still holds every folder" bash -c "git -C '$origin' ls-tree -r --name-only perfgate-assets | grep -q '^pr-9/racer/'"

# ---- private repository: a single-file artifact, no images committed
before=$(git -C "$origin" rev-parse perfgate-assets)
event "$head" true octo/proj
export GITHUB_OUTPUT="$scratch/gh-out"
: >"$GITHUB_OUTPUT"
"${gh[@]}" "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$golden/head" --out "$scratch/out-p" >"$scratch/log-p" 2>&1
check_eq "private: exit 1" 1 $?
check_eq "private: nothing published" "$before" "$(git -C "$origin" rev-parse perfgate-assets)"
check_nogrep "private: no image in the comment" "<img" "$scratch/out-p/comment.md"
check_grep "private: the first regression's interactive SVG is the flamegraph output" \
        "flamegraph=$scratch/out-p/flamegraphs/parse.diff.svg" "$GITHUB_OUTPUT"
unset GITHUB_OUTPUT

# ---- fork PR: the fork's job publishes nothing; the poster redraws
"$PERFGATE_BIN" baseline save --results "$golden/base" --force >/dev/null 2>&1 &&
        git push -q origin perfgate-baselines 2>/dev/null
check "a baseline of main on origin" git -C "$origin" rev-parse -q --verify perfgate-baselines
git checkout -q -b topic && echo x >>bench.c && git commit -qam topic
fork_head=$(git rev-parse HEAD)
event "$fork_head" false someone/fork
curl -sS -X POST -d "{\"sha\":\"$fork_head\"}" "$API/_head" >/dev/null
before=$(git -C "$origin" rev-parse perfgate-assets)
"${gh[@]}" "$SCRIPT" pr --base main --results "$golden/head" --out "$scratch/out-f" >"$scratch/log-f" 2>&1
check_eq "fork: exit 1" 1 $?
check_eq "fork: the fork's job publishes nothing" "$before" "$(git -C "$origin" rev-parse perfgate-assets)"
check "fork: the artifact holds the results" test -s "$scratch/out-f/comment/results/parse.json"
check_grep "fork: the artifact names the baseline" "main @ ${head:0:12}" "$scratch/out-f/comment/baseline"
# The fork's job could have drawn anything: plant a file the poster must not publish.
echo '<svg><script>alert(1)</script></svg>' >"$scratch/out-f/flamegraphs/planted.image.svg"
echo '<svg><script>alert(1)</script></svg>' >"$scratch/out-f/comment/planted.image.svg"
# The poster: a clone of the base repository on main (trusted), no fork code.
git clone -q "$origin" "$scratch/poster" 2>/dev/null
cd "$scratch/poster" || exit 1
env GITHUB_API_URL="$API" GITHUB_SERVER_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN="$TOKEN" \
        GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH=/dev/null \
        "$SCRIPT" comment --from "$scratch/out-f/comment" --regenerate --head-sha "$fork_head" \
        --out "$scratch/out-poster" >"$scratch/log-poster" 2>&1
check_eq "poster: exit 0 (the regression is the PR's verdict)" 0 $?
check "poster: published the images it drew under pr-7/<fork head>/" \
        bash -c "git -C '$origin' ls-tree -r --name-only perfgate-assets | grep -qx 'pr-7/$fork_head/parse.image.svg'"
check "poster: never published the planted file" \
        bash -c "! git -C '$origin' ls-tree -r --name-only perfgate-assets | grep -q planted"
ptip=$(git -C "$origin" rev-parse perfgate-assets)
body=$(state | jq -r '.comments[] | select(.body | startswith("<!-- perfgate -->")) | .body' | tail -n +1)
printf '%s' "$body" >"$scratch/poster-comment.md"
check_grep "poster: the comment shows its image" "<img src=\"$API/octo/proj/raw/$ptip/pr-7/$fork_head/parse.image.svg\"" \
        "$scratch/poster-comment.md"
cmp -s "$(git -C "$origin" show "$ptip:pr-7/$fork_head/parse.image.svg" >"$scratch/pub.svg"; echo "$scratch/pub.svg")" \
        "$scratch/out-poster/flamegraphs/parse.image.svg"
check_eq "poster: the published image is the one it drew" 0 $?
finish
