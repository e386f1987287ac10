#!/usr/bin/env bash
# check-push-loop.sh - the push-retry loop of docs/baseline.md, taken from
# the page as it stands (the ```sh block after the line naming this script),
# run in the clones CI makes: a `--depth 1` clone and a `--single-branch`
# clone (whose default fetch refspec covers one branch), and a clone whose
# remote is not named origin (the page says to write its name after `git
# push` and `git fetch`). Another clone pushed the data branch first, so the
# first push of each is rejected; the loop must end (bounded here) with both
# baselines on the remote.
. "${PG_SOURCE_DIR:-$(dirname "$0")/../..}/tests/ci/lib.sh"

pg=${PERFGATE_BIN:?PERFGATE_BIN is not set (run through ctest)}
page="$SRC/docs/baseline.md"
loop=$(awk '/check-push-loop.sh runs this block/ { on = 1; next }
            on && /^```sh$/ { inblock = 1; next }
            inblock && /^```$/ { exit }
            inblock' "$page")
check "the loop is in docs/baseline.md" test -n "$loop"
check "the loop pushes the data branch" grep -q 'until git push origin perfgate-baselines' <<<"$loop"
seed_project "$scratch/seed" "$pg" init && cd "$scratch/seed" || exit 1 # never in the caller's tree
git clone -q --bare "$scratch/seed" "$scratch/origin.git"
git clone -q "$scratch/origin.git" "$scratch/first"
(cd "$scratch/first" && perfgate run --repeat 2 --no-profile -q --machine first 2>/dev/null &&
        perfgate baseline save >/dev/null && git push -q origin perfgate-baselines)
check_eq "the remote has the first baseline" 1 \
        "$(git --git-dir="$scratch/origin.git" ls-tree -r --name-only perfgate-baselines | wc -l)"

# run_loop NAME CLONE-OPTIONS... : clone, measure as machine NAME, run the loop
run_loop() {
        local name=$1 remote=origin
        shift
        if [ "$1" = "--remote" ]; then
                remote=$2
                shift 2
        fi
        git clone -q "$@" "file://$scratch/origin.git" "$scratch/$name" 2>/dev/null
        cd "$scratch/$name" || exit 1
        [ "$remote" = origin ] || git remote rename origin "$remote"
        perfgate run --repeat 2 --no-profile -q --machine "$name" 2>/dev/null
        # the page's words; another remote's name where it says to write it
        local script=${loop//git push origin /git push $remote }
        script=${script//git fetch origin /git fetch $remote }
        # bounded: a loop that never ends is the failure
        timeout 120 bash -ec "$script" >"$scratch/$name.log" 2>&1
        check_eq "$name: the loop ends, exit 0" 0 $?
        check_grep "$name: the first push was rejected (the remote was ahead)" "rejected" "$scratch/$name.log"
        check_eq "$name: the remote has both baselines" "first $name" \
                "$(git --git-dir="$scratch/origin.git" ls-tree --name-only perfgate-baselines | sort | tr '\n' ' ' | sed 's/ $//')"
        git --git-dir="$scratch/origin.git" update-ref refs/heads/perfgate-baselines \
                "$(git --git-dir="$scratch/origin.git" rev-parse perfgate-baselines~1)"
        cd "$scratch" || exit 1
}
# (each run leaves the remote as it found it: the first baseline only)
run_loop shallow --depth 1
run_loop single --single-branch
run_loop upstream --remote upstream

finish
