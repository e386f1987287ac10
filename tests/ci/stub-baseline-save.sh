#!/usr/bin/env bash
# stub-baseline-save.sh - stands in for `perfgate baseline save` in
# test-push-retry.sh ONLY (it can simulate a race, the real one cannot): adds
# RESULTS/*.json as <machine>/<HEAD>/<name>.json in one commit on the data
# branch with git plumbing (no checkout, index untouched), on top of the local
# branch or origin/<branch> when that is ahead, like the real store
# (docs/baseline.md, THE STORE).
# Race simulation: while the call counter (STUB_COUNTER file) is at most
# STUB_RACE_TIMES, another clone (STUB_RACER_DIR) pushes its own baseline to
# origin right after this save, so the caller's push is rejected.
set -eu
[ "${1:-} ${2:-}" = "baseline save" ] || {
        echo "stub: only 'baseline save' is implemented" >&2
        exit 4
}
shift 2
results=.perfgate/results machine=default branch=perfgate-baselines
while [ $# -gt 0 ]; do
        case $1 in
        --results) results=$2; shift 2 ;;
        --machine) machine=$2; shift 2 ;;
        --branch) branch=$2; shift 2 ;;
        *) echo "stub: unknown option $1" >&2; exit 2 ;;
        esac
done
head=$(git rev-parse HEAD)
local_ref=refs/heads/$branch remote_ref=refs/remotes/origin/$branch
parent=""
old=$(git rev-parse -q --verify "$local_ref" || true)
if git rev-parse -q --verify "$local_ref" >/dev/null; then
        parent=$(git rev-parse "$local_ref")
        if git rev-parse -q --verify "$remote_ref" >/dev/null &&
                git merge-base --is-ancestor "$parent" "$remote_ref"; then
                parent=$(git rev-parse "$remote_ref")
        fi
elif git rev-parse -q --verify "$remote_ref" >/dev/null; then
        parent=$(git rev-parse "$remote_ref")
fi
idx=$(mktemp)
rm -f "$idx"
export GIT_INDEX_FILE=$idx
if [ -n "$parent" ]; then git read-tree "$parent"; fi
for f in "$results"/*.json; do
        blob=$(git hash-object -w "$f")
        git update-index --add --cacheinfo "100644,$blob,$machine/$head/$(basename "$f")"
done
tree=$(git write-tree)
rm -f "$idx"
unset GIT_INDEX_FILE
commit=$(git commit-tree "$tree" ${parent:+-p "$parent"} -m "perfgate: baseline for $machine/$head")
git update-ref "$local_ref" "$commit" "$old"
echo "stub: saved $commit ($machine/$head)"

if [ -n "${STUB_COUNTER:-}" ]; then
        n=$(($(cat "$STUB_COUNTER" 2>/dev/null || echo 0) + 1))
        echo "$n" >"$STUB_COUNTER"
        if [ "$n" -le "${STUB_RACE_TIMES:-0}" ]; then
                (
                        cd "$STUB_RACER_DIR"
                        git fetch -q origin "+refs/heads/$branch:$remote_ref" 2>/dev/null || true
                        STUB_COUNTER="" "$0" baseline save --results "$results" --machine "racer-$n" --branch "$branch" >/dev/null
                        git push -q origin "$local_ref:$local_ref"
                )
                echo "stub: a concurrent job pushed racer-$n"
        fi
fi
