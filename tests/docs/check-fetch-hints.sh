#!/usr/bin/env bash
# check-fetch-hints.sh - in the clones CI makes (`git clone --depth 1
# --branch pr`, which is single-branch: its fetch refspec covers `pr` only),
# `perfgate compare BASE` without the base says which `git fetch` to run;
# that command, taken from the message and run literally, must be enough for
# the same compare to find the baseline. Also README step 3, taken from the
# page as it stands, in such a clone. The remote is a real bare repository on
# disk: main = m1 (baseline saved) - m2; pr = m2 - p1.
. "${PG_SOURCE_DIR:-$(dirname "$0")/../..}/tests/ci/lib.sh"

pg=${PERFGATE_BIN:?PERFGATE_BIN is not set (run through ctest)}
seed_project "$scratch/seed" "$pg" m1 && cd "$scratch/seed" || exit 1 # never in the caller's tree
# a "build", as README step 1 shows, for step 3's --confirm; it runs at the
# top of the checkout, where argv[0] is bench/spin
printf '{ "build": "test -x bench/spin", "benchmarks": [ { "name": "spin", "argv": ["./spin"] } ] }\n' \
        >bench/perfgate.json
git add bench/perfgate.json && git commit -q --amend --no-edit
perfgate run --repeat 3 --no-profile -q 2>/dev/null && perfgate baseline save >/dev/null
m1=$(git rev-parse HEAD)
echo 2 >f && git add f && git commit -qm m2
git checkout -qb pr && echo 3 >g && git add g && git commit -qm p1
git clone -q --bare "$scratch/seed" "$scratch/origin.git"
check_eq "the remote has main, pr and the data branch" "main perfgate-baselines pr" \
        "$(git --git-dir="$scratch/origin.git" for-each-ref --format='%(refname:short)' refs/heads | tr '\n' ' ' | sed 's/ $//')"

# ci_clone NAME: a depth-1 clone of pr as CI makes it, detached, with the
# data branch fetched and the head measured
ci_clone() {
        cd "$scratch" || exit 1
        git clone -q --depth 1 --branch pr "file://$scratch/origin.git" "$scratch/$1"
        cd "$scratch/$1" || exit 1
        git checkout -q --detach
        git fetch -q origin perfgate-baselines:perfgate-baselines
        perfgate run --repeat 3 --no-profile -q 2>/dev/null
}

# verdict WHAT STATUS: compare judged (0, or 1 should the machine's load
# make the same program look slower), not refused
verdict() {
        case $2 in
        0 | 1) ok "$1: a verdict (exit $2)" ;;
        *) fail "$1: exit $2, not a verdict" ;;
        esac
}

# follow NAME REV: compare REV fails with a `git fetch` to run; run it as
# written; the same compare then uses the baseline of m1
follow() {
        local name=$1 rev=$2 hint
        perfgate compare "$rev" >"$scratch/$name.1" 2>&1
        check_eq "$name: compare $rev without the base: exit 2" 2 $?
        # shellcheck disable=SC2016 # backquotes, literally
        hint=$(grep -o '`git fetch[^`]*`' "$scratch/$name.1" | head -n 1 | tr -d '`')
        check "$name: the message names a git fetch" test -n "$hint"
        bash -c "$hint" >"$scratch/$name.fetch" 2>&1
        check_eq "$name: \`$hint\` runs" 0 $?
        perfgate compare "$rev" >"$scratch/$name.2" 2>&1
        verdict "$name: then compare $rev" $?
        check_grep "$name: it used the baseline of m1" "@ ${m1:0:12}" "$scratch/$name.2"
}

ci_clone depth1
check_eq "depth1: the clone is shallow" true "$(git rev-parse --is-shallow-repository)"
check_eq "depth1: and single-branch" "+refs/heads/pr:refs/remotes/origin/pr" \
        "$(git config --get-all remote.origin.fetch)"
follow depth1 origin/main

ci_clone bare-name
follow bare-name main

# FETCH_HEAD from a shallow fetch of main: the hint must keep FETCH_HEAD main
ci_clone fetch-head
git fetch -q --depth 1 origin main
follow fetch-head FETCH_HEAD

# FETCH_HEAD fetched by commit id: the hint fetches that id again
ci_clone fetch-id
git fetch -q --depth 1 origin "$(git --git-dir="$scratch/origin.git" rev-parse main)"
follow fetch-id FETCH_HEAD

# FETCH_HEAD is the data branch (the last fetch of ci_clone): said so, with
# what to compare instead, not "no common ancestor"
ci_clone fetch-data
perfgate compare FETCH_HEAD >"$scratch/fetch-data.1" 2>&1
check_eq "fetch-data: compare FETCH_HEAD (the data branch): exit 2" 2 $?
check_grep "fetch-data: says FETCH_HEAD is the data branch" \
        "'FETCH_HEAD' is the tip of the data branch 'perfgate-baselines'" "$scratch/fetch-data.1"
check_grep "fetch-data: and what to compare" "perfgate compare origin/BASE" "$scratch/fetch-data.1"

# origin/main there, but cut before the merge-base
ci_clone cut
git fetch -q --depth 1 origin +refs/heads/main:refs/remotes/origin/main
follow cut origin/main

# unshallowed with the clone's own refspec: complete, still without origin/main
ci_clone unshallowed
git fetch -q --unshallow origin
check_eq "unshallowed: no longer shallow" false "$(git rev-parse --is-shallow-repository)"
follow unshallowed origin/main

# README step 3 as written, in a depth-1 clone of pr
step=$(awk '/^3\. On every pull request/ { on = 1; next }
            on && /^   ```sh$/ { inblock = 1; next }
            inblock && /^   ```$/ { exit }
            inblock { sub(/^   /, ""); print }' "$SRC/README.md")
check "README step 3 is found" grep -q 'perfgate compare origin/main' <<<"$step"
cd "$scratch" && git clone -q --depth 1 --branch pr "file://$scratch/origin.git" readme
cd readme || exit 1
git checkout -q --detach
bash -ec "$step" >"$scratch/readme.log" 2>&1
verdict "README step 3 in a depth-1 single-branch clone" $?
check_grep "README step 3: compare used the baseline of m1" "@ ${m1:0:12}" "$scratch/readme.log"

# README step 2 as written (less the calibration: its pairs take minutes), on
# the first save: the remote has main only. The job log says plainly that
# there is no data branch yet, has no git "fatal:", and the push creates it.
step2=$(awk '/^2\. On the main branch/ { on = 1; next }
             on && /^   ```sh$/ { inblock = 1; next }
             inblock && /^   ```$/ { exit }
             inblock { sub(/^   /, ""); print }' "$SRC/README.md" | grep -v -- '--calibrate')
check "README step 2 is found" grep -q 'perfgate baseline save' <<<"$step2"
git init -q --bare "$scratch/first.git"
git -C "$scratch/seed" push -q "$scratch/first.git" main
cd "$scratch" && git clone -q "file://$scratch/first.git" first
cd first || exit 1
bash -ec "$step2" >"$scratch/first.log" 2>&1
check_eq "README step 2 on the first save: exit 0" 0 "$?"
check_nogrep "README step 2 on the first save: no git fatal" "fatal:" "$scratch/first.log"
check_grep "README step 2 on the first save: says there is none yet" \
        "no perfgate-baselines branch on origin yet" "$scratch/first.log"
check_eq "README step 2 pushed the data branch" "main perfgate-baselines" \
        "$(git --git-dir="$scratch/first.git" for-each-ref --format='%(refname:short)' refs/heads | tr '\n' ' ' | sed 's/ $//')"
# and README step 3 there before any baseline: quiet and clear too
cd "$scratch" && git clone -q "file://$scratch/first.git" -b main nobase
git -C "$scratch/nobase" push -q origin :perfgate-baselines
cd nobase || exit 1
git checkout -q --detach
bash -ec "$step" >"$scratch/nobase.log" 2>&1
check_eq "README step 3 before any baseline: exit 0" 0 "$?"
check_nogrep "README step 3 before any baseline: no git fatal" "fatal:" "$scratch/nobase.log"
check_grep "README step 3 before any baseline: says there is none yet" "no baselines on origin yet" \
        "$scratch/nobase.log"

finish
