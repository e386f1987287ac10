#!/usr/bin/env bash
# test-push-retry.sh - ci/perfgate-ci.sh main mode against a real bare git
# remote: first push creates the data branch; a push rejected because another
# job pushed between save and push is retried by saving again on the new tip
# (both baselines land); retries are bounded (exit 4); a push refused for
# another reason (a hook) is not retried. `perfgate baseline save` is a stub
# here ($PERFGATE) so that another clone can push between save and push.
. "$(dirname "$0")/lib.sh"

export PERFGATE="$CI_TEST_DIR/stub-baseline-save.sh" PERFGATE_PUSH_BACKOFF=0
origin="$scratch/origin.git"
git init -q --bare "$origin"
git clone -q "$origin" "$scratch/work" 2>/dev/null
git clone -q "$origin" "$scratch/racer" 2>/dev/null
cd "$scratch/work" || exit 1
echo 'int main(void) { return 0; }' >bench.c
git add bench.c && git commit -qm "first" && git push -q origin main
git -C "$scratch/racer" pull -q origin main
mkdir -p "$scratch/results"
printf '{"schema": "perfgate/result/1", "name": "parse"}\n' >"$scratch/results/parse.json"
head=$(git rev-parse HEAD)
ls_origin() { git -C "$origin" ls-tree -r --name-only perfgate-baselines 2>/dev/null | sort; }

# 1. First run: the data branch does not exist anywhere yet.
"$SCRIPT" main --results "$scratch/results" --machine ci-a >"$scratch/log1" 2>&1
check_eq "first save and push: exit 0" 0 $?
check_eq "origin has the first baseline" "ci-a/$head/parse.json" "$(ls_origin)"
check_grep "first run: no data branch yet, said so" "first run" "$scratch/log1"
check_eq "work tree untouched" "" "$(git status --porcelain)"

# 2. Another job pushes between our save and our push: retried, both land.
export STUB_COUNTER="$scratch/counter" STUB_RACE_TIMES=1 STUB_RACER_DIR="$scratch/racer"
rm -f "$STUB_COUNTER"
"$SCRIPT" main --results "$scratch/results" --machine ci-b >"$scratch/log2" 2>&1
check_eq "race: exit 0" 0 $?
check_eq "race: saved twice" 2 "$(cat "$STUB_COUNTER")"
check_grep "race: rejection explained" "push rejected" "$scratch/log2"
check_eq "race: both baselines and the earlier one on origin" \
        "$(printf '%s\n' "ci-a/$head/parse.json" "ci-b/$head/parse.json" "racer-1/$head/parse.json" | sort)" "$(ls_origin)"
check_eq "race: data branch is linear (3 commits)" 3 "$(git -C "$origin" rev-list --count perfgate-baselines)"

# 3. Always raced: gives up after --push-retries attempts with exit 4.
rm -f "$STUB_COUNTER"
STUB_RACE_TIMES=99 "$SCRIPT" main --results "$scratch/results" --machine ci-c --push-retries 3 >"$scratch/log3" 2>&1
check_eq "bounded: exit 4" 4 $?
check_eq "bounded: 3 attempts" 3 "$(cat "$STUB_COUNTER")"
check_grep "bounded: says it gave up" "rejected 3 times" "$scratch/log3"
check_eq "bounded: racers' baselines intact on origin" 3 "$(ls_origin | grep -c '^racer-')"

# 4. A push refused by the server (hook) is not a race: no retry, exit 4.
unset STUB_RACE_TIMES
rm -f "$STUB_COUNTER"
git update-ref -d refs/heads/perfgate-baselines # the given-up save above diverged
printf '#!/bin/sh\necho "pushes to perfgate-baselines are frozen" >&2\nexit 1\n' >"$origin/hooks/pre-receive"
chmod +x "$origin/hooks/pre-receive"
"$SCRIPT" main --results "$scratch/results" --machine ci-d >"$scratch/log4" 2>&1
check_eq "hook refusal: exit 4" 4 $?
check_eq "hook refusal: one attempt" 1 "$(cat "$STUB_COUNTER")"
check_grep "hook refusal: server message shown" "frozen" "$scratch/log4"
check_grep "hook refusal: says what to do" "write access" "$scratch/log4"
# a hook whose words look like a lost race is still a refusal
printf '#!/bin/sh\necho "error: non-fast-forward (fetch first): frozen" >&2\nexit 1\n' >"$origin/hooks/pre-receive"
rm -f "$STUB_COUNTER"
git update-ref -d refs/heads/perfgate-baselines
"$SCRIPT" main --results "$scratch/results" --machine ci-d >"$scratch/log4b" 2>&1
check_eq "hook refusal worded like a race: exit 4" 4 $?
check_eq "hook refusal worded like a race: one attempt" 1 "$(cat "$STUB_COUNTER")"
check_nogrep "hook refusal worded like a race: not called a race" "other jobs pushing" "$scratch/log4b"
rm -f "$origin/hooks/pre-receive"

# 5. A failing save stops the job with save's status, nothing pushed.
before=$(git -C "$origin" rev-parse perfgate-baselines)
PERFGATE=false "$SCRIPT" main --results "$scratch/results" >"$scratch/log5" 2>&1
check_eq "failing save: its status (1)" 1 $?
check_eq "failing save: origin unchanged" "$before" "$(git -C "$origin" rev-parse perfgate-baselines)"

# 6. No results: exit 2 before touching git.
mkdir -p "$scratch/empty"
"$SCRIPT" main --results "$scratch/empty" >"$scratch/log6" 2>&1
check_eq "no results: exit 2" 2 $?
finish
