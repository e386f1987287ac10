#!/usr/bin/env bash
# test-pr-head.sh - the comment's "Head:" on a GitHub pull_request event.
# actions/checkout checks out GitHub's merge commit of the PR's head into
# its base (refs/pull/N/merge, GITHUB_SHA): the results record that commit,
# which the reviewer never sees in the PR. The comment names the PR's head
# (the event's pull_request.head.sha) and the merge commit measured, with
# its two parents. A real git repository with a real merge commit, real
# perfgate and the golden results stamped with that commit; no token, so
# nothing is posted.
. "$(dirname "$0")/lib.sh"

golden_workdir
echo a >f && git add f && git commit -q -m base
git checkout -q -b topic && echo b >g && git add g && git commit -q -m "the PR"
prh=$(git rev-parse HEAD)
git checkout -q main && echo c >h && git add h && git commit -q -m "main moved on"
base=$(git rev-parse HEAD)
# what actions/checkout does on pull_request: a detached merge commit
git checkout -q --detach && git merge -q --no-ff -m "Merge $prh into $base" "$prh"
merge=$(git rev-parse HEAD)

# the head results as `perfgate run` wrote them in that checkout
mkdir -p "$scratch/head"
for f in "$golden"/head/*.json; do
        python3 - "$f" "$merge" >"$scratch/head/$(basename "$f")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r['git'] = {'commit': sys.argv[2], 'dirty': False}
json.dump(r, sys.stdout)
PY
done
printf '{"number": 7, "pull_request": {"number": 7, "head": {"sha": "%s", "repo": {"full_name": "o/r"}}, "base": {"sha": "%s", "repo": {"full_name": "o/r"}}}}\n' \
        "$prh" "$base" >"$scratch/event.json"

GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$scratch/event.json" GITHUB_SHA=$merge \
        GITHUB_REF=refs/pull/7/merge GITHUB_REPOSITORY=o/r \
        "$SCRIPT" pr --platform github --no-fetch --base "$golden/base" --results "$scratch/head" \
        --out "$scratch/out" >"$scratch/pr.log" 2>&1
check_eq "pr: exit 1 (the golden head regresses)" 1 $?
check_grep "the comment names the PR's head" "Head: $prh (" "$scratch/out/comment.md"
check_grep "... and the merge commit measured, with its parents" \
        "(measured at the merge commit $merge of head ${prh:0:12} into base ${base:0:12})." \
        "$scratch/out/comment.md"
check_nogrep "the merge commit is not named as the head" "Head: $merge" "$scratch/out/comment.md"

# a push (no merge commit): the head is the commit measured, as before
git checkout -q topic
for f in "$scratch"/head/*.json; do
        python3 - "$f" "$prh" >"$f.new" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r['git']['commit'] = sys.argv[2]
json.dump(r, sys.stdout)
PY
        mv "$f.new" "$f"
done
GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$scratch/event.json" GITHUB_SHA=$prh \
        GITHUB_REPOSITORY=o/r "$SCRIPT" pr --platform github --no-fetch --pr 7 --base "$golden/base" \
        --results "$scratch/head" --out "$scratch/out2" >"$scratch/pr2.log" 2>&1
check_grep "the head checked out itself: named as it is" "Head: $prh. " "$scratch/out2/comment.md"
check_nogrep "... with no merge commit" "measured at the merge commit" "$scratch/out2/comment.md"
finish
