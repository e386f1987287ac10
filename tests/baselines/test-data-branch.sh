#!/usr/bin/env bash
# test-data-branch.sh - what `perfgate baseline save`, `compare` and `run`
# do with hostile names and hostile data-branch contents, on real git
# repositories (bare remotes, clones, trees planted with git mktree):
#   1. --branch names git's branch rule refuses (HEAD, @, -x, refs/...,
#      origin/...) and existing project branches: exit 2, no ref written;
#   2. machine names git or git fsck refuse in a tree (.gitmodules, git~1,
#      '.git ', HFS-ignorable code points...): exit 2 at `run --machine`,
#      and a name that passes is pushed to a remote with receive.fsckObjects;
#   3. a benchmark named '.hidden' in perfgate.json: exit 2 naming the rule;
#   4. stored files that contradict their path (another benchmark, machine,
#      commit, a dirty tree) and symbolic links: warned about, never silent;
#   9. a local data branch holding '..' (git refuses it): exit 2 with the
#      repair, and the repair works; a blob over the size cap is not loaded;
#   9b. a SHA-256 repository and another owner's: run says why it records
#      no commit, baseline/compare exit 2;
#   13. a data branch checked out in another worktree is not moved.
# docs/baseline.md and docs/limits.md state these rules.
. "${PG_SOURCE_DIR:-$(dirname "$0")/../..}/tests/ci/lib.sh"

pg=${PERFGATE_BIN:?PERFGATE_BIN is not set (run through ctest)}
export PERFGATE_NO_UPDATE_CHECK=1

# mkproj DIR: a project with one benchmark (bench/spin) and one commit
mkproj() {
        rm -rf "$1" && mkdir -p "$1/bench" && (
                cd "$1" || exit 1
                git init -q -b main .
                printf '#!/bin/sh\ni=0; while [ $i -lt 200 ]; do i=$((i+1)); done\n' >bench/spin
                chmod +x bench/spin
                printf '.perfgate/\nout/\n' >.gitignore
                git add -A && git commit -qm init
        )
}
measure() { "$pg" run --repeat 2 --no-profile -q "$@" 2>/dev/null; }
# tree ENTRY...: a tree object from "MODE TYPE SHA<TAB>NAME" lines, names git refuses too
tree() { printf '%s\n' "$@" | git mktree; }

# ---- 1. branch names and project branches -------------------------------
mkproj "$scratch/p1"
git clone -q --bare "$scratch/p1" "$scratch/p1.git"
git clone -q "$scratch/p1.git" "$scratch/w1"
cd "$scratch/w1" || exit 1
git checkout -q -b feat
measure
refs_before=$(git for-each-ref --format='%(refname) %(objectname)')
for b in HEAD @ -x refs/heads/x origin/perfgate-baselines 'a..b'; do
        "$pg" baseline save --branch "$b" >"$scratch/out1" 2>&1
        check_eq "1. --branch '$b': exit 2" 2 $?
        check_grep "1. --branch '$b': says it is not a valid branch name" "is not a valid branch name" "$scratch/out1"
done
"$pg" baseline save --branch main >"$scratch/out1" 2>&1
check_eq "1. --branch main (a project branch, not checked out): exit 2" 2 $?
check_grep "1. project branch: names the file that does not belong" "'.gitignore' on branch 'main' is a file where machine directories belong" "$scratch/out1"
check_eq "1. no ref was created or moved" "$refs_before" "$(git for-each-ref --format='%(refname) %(objectname)')"
"$pg" baseline save >"$scratch/out1" 2>&1
check_eq "1. the default branch: exit 0" 0 $?
check_grep "1. push hint names the data branch" "publish it with: git push origin perfgate-baselines" "$scratch/out1"
git push -q origin perfgate-baselines
check_eq "1. the hint's push published the data branch" "$(git rev-parse perfgate-baselines)" "$(git --git-dir="$scratch/p1.git" rev-parse perfgate-baselines)"

# ---- 2. machine names ---------------------------------------------------
for m in .gitmodules .gitattributes .gitignore .git '.git ' .GIT 'git~1' 'GIT~1' 'gitmod~1' 'a.' 'a ' \
        "$(printf '.g\xe2\x80\x8cit')" "$(printf 'x\xef\xbb\xbf')" 'a\.git' 'a\git~1'; do
        rm -rf out
        "$pg" run --repeat 2 --no-profile -q --out out --machine "$m" >"$scratch/out2" 2>&1
        check_eq "2. run --machine '$m': exit 2" 2 $?
        check_grep "2. run --machine '$m': names the rule" "is not a valid machine name: it " "$scratch/out2"
        check "2. run --machine '$m': nothing written" test ! -e out
        "$pg" compare --machine "$m" main >"$scratch/out2" 2>&1
        check_eq "2. compare --machine '$m': exit 2" 2 $?
done
# a result file naming such a machine itself: refused at save
measure --out out
sed -i 's/"machine": *"[^"]*"/"machine": "git~1"/' out/spin.json
"$pg" baseline save --results out >"$scratch/out2" 2>&1
check_eq "2. a result whose machine is 'git~1': save exits 2" 2 $?
check_grep "2. ... and says why" "looks like an NTFS short name" "$scratch/out2"
# names that pass are accepted by a remote that runs fsck on every push
git init -q --bare "$scratch/fsck.git"
git -C "$scratch/fsck.git" config receive.fsckObjects true
git remote add fsck "$scratch/fsck.git"
for m in 'a\b' 'ci x86_64' 'x~y' 'gitx'; do
        measure --machine "$m"
        "$pg" baseline save >/dev/null 2>&1
        check_eq "2. machine '$m' saved" 0 $?
done
git push -q fsck perfgate-baselines 2>"$scratch/out2"
check_eq "2. a remote with receive.fsckObjects takes the data branch" 0 $?
check_eq "2. git fsck finds nothing" "" "$(git fsck --no-dangling 2>&1)"

# ---- 3. a dot-leading benchmark name ------------------------------------
mkproj "$scratch/p3"
cd "$scratch/p3" || exit 1
printf '{"benchmarks":[{"argv":["./spin"],"name":".hidden"},{"argv":["./spin"],"name":"vis"}]}' >bench/perfgate.json
"$pg" run --repeat 2 --no-profile -q --out out bench/ >"$scratch/out3" 2>&1
check_eq "3. benchmark '.hidden': exit 2" 2 $?
check_grep "3. names the rule" "does not start with '.', and is no name git refuses in a tree (see docs/limits.md); it starts with '.'" "$scratch/out3"
check "3. nothing measured or written" test ! -e out

# ---- 4. stored files that contradict their path -------------------------
mkproj "$scratch/p4"
cd "$scratch/p4" || exit 1
measure
"$pg" baseline save >/dev/null 2>&1
H=$(git rev-parse HEAD)
good=$(git rev-parse "perfgate-baselines:default/$H/spin.json")
git show "$good" | sed -e 's/"machine": *"[^"]*"/"machine": "ci-arm64"/' \
        -e 's/"dirty": *false/"dirty": true/' -e "s/$H/1111111111111111111111111111111111111111/" >"$scratch/spin.json"
odd=$(git hash-object -w "$scratch/spin.json")
link=$(printf 'other.json' | git hash-object -w --stdin)
ct=$(tree "100644 blob $odd	spin.json" "100644 blob $good	other.json" "120000 blob $link	link.json")
dt=$(tree "040000 tree $(tree "040000 tree $ct	$H")	default")
git update-ref refs/heads/perfgate-baselines "$(git commit-tree "$dt" -p perfgate-baselines -m hand-edit)"
"$pg" compare main >"$scratch/out4" 2>&1
check_eq "4. compare still runs: exit 0" 0 $?
check_grep "4. machine mismatch warned" "spin.json' was measured on machine 'ci-arm64', not 'default'" "$scratch/out4"
check_grep "4. commit mismatch warned" "spin.json' was measured at commit 111111111111, not ${H:0:12}" "$scratch/out4"
check_grep "4. dirty tree warned" "spin.json' was measured on a dirty work tree" "$scratch/out4"
check_grep "4. a file holding another benchmark is skipped" "other.json' holds benchmark 'spin', not 'other': skipped" "$scratch/out4"
check_grep "4. a symbolic link is skipped" "link.json' is a symbolic link, not a result: skipped" "$scratch/out4"
"$pg" baseline show HEAD >"$scratch/out4" 2>&1
check_eq "4. show: exit 0" 0 $?
check_grep "4. show warns too" "link.json' is a symbolic link, not a result: skipped" "$scratch/out4"
check_nogrep "4. show does not print the link as a result" "link.json" <(grep '^#' "$scratch/out4")
# save --machine files the result under that machine, and the file says so
measure
"$pg" baseline save --machine ci-x86 >/dev/null 2>&1
check_grep "4. save --machine: the stored file names its machine" '"machine": "ci-x86"' \
        <(git show "perfgate-baselines:ci-x86/$H/spin.json")
"$pg" compare --machine ci-x86 main >"$scratch/out4" 2>&1
check_nogrep "4. ... so compare has nothing to warn about" "warning: 'perfgate-baselines" "$scratch/out4"

# ---- 9. data-branch contents git refuses, huge blobs -------------------
mkproj "$scratch/p9"
git clone -q --bare "$scratch/p9" "$scratch/p9.git"
for c in a b; do
        git clone -q "$scratch/p9.git" "$scratch/$c"
        (cd "$scratch/$c" && measure)
done
(cd "$scratch/a" && "$pg" baseline save --machine ma >/dev/null 2>&1 && git push -q origin perfgate-baselines)
cd "$scratch/b" || exit 1
git fetch -q origin +refs/heads/perfgate-baselines:refs/remotes/origin/perfgate-baselines
git branch -q --no-track perfgate-baselines origin/perfgate-baselines
H=$(git rev-parse HEAD)
good=$(git rev-parse "perfgate-baselines:ma/$H/spin.json")
dt=$(tree "040000 tree $(tree "040000 tree $(tree "100644 blob $good	..")	..")	evil" \
        "040000 tree $(git rev-parse perfgate-baselines:ma)	ma")
git update-ref refs/heads/perfgate-baselines "$(git commit-tree "$dt" -p perfgate-baselines -m localhostile)"
(cd "$scratch/a" && measure && "$pg" baseline save --machine ma2 >/dev/null 2>&1 && git push -q origin perfgate-baselines)
git fetch -q origin +refs/heads/perfgate-baselines:refs/remotes/origin/perfgate-baselines
"$pg" baseline save --machine mb >"$scratch/out9" 2>&1
check_eq "9. local branch holding 'evil/..': exit 2, not 4" 2 $?
check_grep "9. names the entry and the rule" "'evil/..' on the local branch starts with '.'" "$scratch/out9"
check_grep "9. says how to repair it" "git branch -f perfgate-baselines origin/perfgate-baselines" "$scratch/out9"
git branch -q -f perfgate-baselines origin/perfgate-baselines
"$pg" baseline save --machine mb >"$scratch/out9" 2>&1
check_eq "9. after the repair the save works" 0 $?
git init -q --bare "$scratch/fsck9.git"
git -C "$scratch/fsck9.git" config receive.fsckObjects true
git push -q "$scratch/fsck9.git" perfgate-baselines 2>"$scratch/out9"
check_eq "9. and a remote that runs fsck takes the branch" 0 $?
# a blob over the cap is refused before it is loaded
big=$(head -c 270000000 /dev/zero | git hash-object -w --stdin)
dt=$(tree "040000 tree $(tree "040000 tree $(tree "100644 blob $big	spin.json")	$H")	mb")
git update-ref refs/heads/perfgate-baselines "$(git commit-tree "$dt" -p perfgate-baselines -m big)"
"$pg" compare --machine mb main >"$scratch/out9" 2>&1
check_eq "9. a 257 MiB stored result: exit 2" 2 $?
check_grep "9. ... with the cap named" "is 257 MiB, over the 256 MiB a stored result may hold" "$scratch/out9"

# ---- 9b. repositories perfgate cannot read ------------------------------
mkdir -p "$scratch/s256/bench" && cd "$scratch/s256" || exit 1
git init -q --object-format=sha256 -b main .
cp "$scratch/p1/bench/spin" bench/ && printf '.perfgate/\n' >.gitignore && git add -A && git commit -qm init
"$pg" run --repeat 2 --no-profile -q >"$scratch/out9b" 2>&1
check_eq "9b. SHA-256: run exit 0" 0 $?
check_eq "9b. SHA-256: run says once why it records no commit" 1 "$(grep -c 'the results record no git commit: .*SHA-256' "$scratch/out9b")"
for cmd in "baseline save" "baseline list" "compare main"; do
        # shellcheck disable=SC2086 # the command's words
        "$pg" $cmd >"$scratch/out9b" 2>&1
        check_eq "9b. SHA-256: $cmd: exit 2" 2 $?
        check_grep "9b. SHA-256: $cmd: says why" "uses SHA-256 object names" "$scratch/out9b"
done
if [ "$(id -u)" = 0 ]; then
        cp -a "$scratch/p4" "$scratch/own" && chown -R nobody "$scratch/own"
        cd "$scratch/own" || exit 1
        "$pg" run --repeat 2 --no-profile -q --out "$scratch/ownout" >"$scratch/out9b" 2>&1
        check_grep "9b. another owner's repository: run says why" "safe.directory" "$scratch/out9b"
        cd "$scratch" || exit 1
else
        ok "9b. another owner's repository: skipped (needs root)"
fi

# ---- 13. a data branch checked out in another worktree ------------------
mkproj "$scratch/p13"
cd "$scratch/p13" || exit 1
measure
"$pg" baseline save >/dev/null 2>&1
git worktree add -q "$scratch/p13data" perfgate-baselines
tip=$(git rev-parse perfgate-baselines)
"$pg" baseline save --machine wt-test >"$scratch/out13" 2>&1
check_eq "13. save onto a branch checked out elsewhere: exit 2" 2 $?
check_grep "13. says so" "is checked out in another worktree" "$scratch/out13"
check_eq "13. the branch did not move" "$tip" "$(git rev-parse perfgate-baselines)"
check_eq "13. that worktree stays clean" "" "$(git -C "$scratch/p13data" status --porcelain)"

finish
