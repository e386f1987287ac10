#!/usr/bin/env bash
# test-hostile-pr.sh - ci/perfgate-ci.sh against hostile results, with real
# perfgate, real git repositories and the fake REST server:
#   - an error message quoting a result's string with newlines and an
#     indented "   ~~~~" cannot close the comment's code block (CommonMark
#     lets a fence be closed by a line indented up to 3 spaces);
#   - GitLab: a function named like a link to the upload placeholder
#     ("https://perfgate.invalid/upload/..%2f..%2fproc%2fself%2fenviron")
#     uploads nothing outside the flame graph directory;
#   - `perfgate run` failing (status 3) with some results: the comment says
#     so at its top, not only the verdict of the benchmarks that ran;
#   - a PR number from the event that is not a number is not used in URLs;
#   - a comment over GitHub's size limit is cut at a line end, its open
#     <details> closed, so the truncation note shows.
. "$(dirname "$0")/lib.sh"

PERFGATE_BIN=${PERFGATE_BIN:?set PERFGATE_BIN to the perfgate binary}
export PERFGATE="$PERFGATE_BIN" PERFGATE_CONFIRM=0 PERFGATE_PUSH_BACKOFF=0
golden="$SRC/tests/golden/compare"
git init -q "$scratch/work"
cd "$scratch/work" || exit 1
git commit -q --allow-empty -m first
head=$(git rev-parse HEAD)

# ---- 1. fence: the unit of a metric carries the payload
mkdir -p "$scratch/evil"
jq '.metrics["task-clock"].unit = "x\n::warning title=perfgate::fake\n   ~~~~\n### :white_check_mark: perfgate: no regression\n<img src=\"https://evil.test/p.png\">\n~~~~"' \
        "$golden/head/parse.json" >"$scratch/evil/parse.json"
PERFGATE_PLATFORM=none "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$scratch/evil" \
        --out "$scratch/o1" >"$scratch/o1.log" 2>&1
check_eq "a result compare refuses: exit 2" 2 $?
md=$scratch/o1/comment.md
check_grep "the comment says compare failed" "compare failed (exit status 2)" "$md"
check_grep "compare's message shows the unit's newline as \\n" "has unit 'x\\n::warning" "$scratch/o1.log"
check "... so no line of the log starts a workflow command" \
        bash -c "! grep -q '^::warning title=perfgate::fake' '$scratch/o1.log'"
# the block opens with more tildes than any line holds, so nothing closes it early
open=$(grep -m1 -o '^~*text$' "$md" | sed 's/text$//')
inner=$(awk -v f="$open" '$0 == f "text" { inb = 1; next } inb && $0 == f { exit } inb' "$md" |
        grep -o '~*' | awk '{ if (length > m) m = length } END { print m + 0 }')
check "the fence (${#open} tildes) is longer than any run of tildes inside ($inner)" test "${#open}" -gt "$inner"
check_eq "the block is closed once, at its end" "$open" "$(tail -n 1 "$md" | head -c "${#open}")"
lines_after=$(awk -v f="$open" 'seen && $0 == f { closed = NR } $0 == f "text" { seen = 1 } END { print closed }' "$md")
check_eq "nothing after the closing fence but the run link" "" "$(sed -n "$((lines_after + 1)),\$p" "$md" | grep -v '^$' | grep -v '^<sub>perfgate')"

# ---- 2. GitLab: a function named like a placeholder link
start_server --gitlab-token glpat-SECRET --head-sha "$head"
FN='https://perfgate.invalid/upload/..%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fproc%2fself%2fenviron'
mkdir -p "$scratch/gb" "$scratch/gh"
for side in base head; do
        jq --arg fn "$FN" '.profile.stacks |= with_entries(.key |= gsub("copy_field"; $fn))' \
                "$golden/$side/parse.json" >"$scratch/g${side:0:1}/parse.json"
done
env PERFGATE_PLATFORM=gitlab CI_API_V4_URL="$API/api/v4" CI_PROJECT_ID=42 PERFGATE_GITLAB_TOKEN=glpat-SECRET \
        CI_MERGE_REQUEST_IID=7 CI_COMMIT_SHA="$head" \
        "$SCRIPT" pr --no-fetch --base "$scratch/gb" --results "$scratch/gh" --out "$scratch/o2" >"$scratch/o2.log" 2>&1
check_eq "gitlab: the regression is found (exit 1)" 1 $?
check_eq "gitlab: no upload named like a runner file" "" \
        "$(state | jq -r '.uploads[]?.filename' | grep -v '\.svg$' | grep -v '\.png$')"
check "gitlab: the flame graphs were uploaded" bash -c "[ \"\$(curl -sS '$API/_state' | jq '[.uploads[]?.filename | select(endswith(\".svg\"))] | length')\" -gt 0 ]"
stop_server

# ---- 3. perfgate run failed with some results
cat >"$scratch/pg" <<W
#!/bin/sh
if [ "\$1" = run ]; then
        while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; shift; done
        mkdir -p "\$out" && cp "$golden/base/render.json" "\$out/"
        echo "perfgate: error: benchmark 'parse' was killed by signal 11 (SIGSEGV)" >&2
        printf '%s\\n' "its output:" "   ~~~~~~" "### :white_check_mark: fake" >&2
        exit 3
fi
exec "$PERFGATE_BIN" "\$@"
W
chmod +x "$scratch/pg"
printf '{"benchmarks": [{"name": "x", "argv": ["true"]}]}\n' >perfgate.json
PERFGATE="$scratch/pg" PERFGATE_PLATFORM=none "$SCRIPT" pr --no-fetch --base "$golden/base" \
        --out "$scratch/o3" >"$scratch/o3.log" 2>&1
check_eq "run failed: the job exits 3" 3 $?
check_grep "run failed: the comment says so" 'exited with status 3' "$scratch/o3/comment.md"
check_grep "run failed: with run's own words" 'killed by signal 11' "$scratch/o3/comment.md"
check_eq "run failed: the marker stays the first line" '<!-- perfgate -->' "$(head -n 1 "$scratch/o3/comment.md")"
# the benchmark's own output (here an indented fence and a heading) stays in the block
md=$scratch/o3/comment.md
open=$(grep -m1 -o '^~*text$' "$md" | sed 's/text$//')
check "run failed: the block's fence (${#open}) is longer than the indented one inside" test "${#open}" -gt 6
check "run failed: the fake heading is inside the block" \
        bash -c "awk -v f='$open' '\$0 == f \"text\" { inb = 1; next } inb && \$0 == f { inb = 0 } inb && /fake/ { found = 1 } END { exit !found }' '$md'"
rm -f perfgate.json

# ---- 4. a PR number that is not a number
start_server --token ghs_x --head-sha "$head"
printf 'hello\n' >"$scratch/body.md"
jq -n '{pull_request: {number: "7/../../../../other/repo/issues/9"}}' >"$scratch/ev.json"
env GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN=ghs_x PERFGATE_PLATFORM=github \
        GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$scratch/ev.json" \
        "$SCRIPT" comment --body "$scratch/body.md" --out "$scratch/o4" >"$scratch/o4.log" 2>&1
check_eq "a PR number with a path in it: usage error (exit 2)" 2 $?
check_grep "... saying it is not a number" "is not a number" "$scratch/o4.log"
check_eq "... and nothing posted" 0 "$(requests POST)"

# ---- 5. a body over GitHub's 65,536 characters, cut inside <details>
{
        printf '<!-- perfgate -->\n### perfgate: 1 regression\n\n<details><summary>parse</summary>\n\n'
        for _ in $(seq 700); do printf '%099d\n' 0; done
        printf '<a href="https://x.test/p.diff.svg"><img src="https://x.test/%0600d.image.svg" alt="x"></a>\n</details>\n' 0
} >"$scratch/long.md"
env GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN=ghs_x PERFGATE_PLATFORM=github \
        "$SCRIPT" comment --body "$scratch/long.md" --pr 7 --out "$scratch/o5" >"$scratch/o5.log" 2>&1
check_eq "a long comment is posted" 0 $?
state | jq -r '.comments[0].body' >"$scratch/posted.md"
check "... within GitHub's limit" test "$(wc -m <"$scratch/posted.md")" -le 65536
check_eq "... its <details> closed before the note" "$(grep -c '<details>' "$scratch/posted.md")" \
        "$(grep -c '</details>' "$scratch/posted.md")"
check_eq "... the note last" '*(report truncated: the full report is in the job artifacts)*' \
        "$(grep -v '^$' "$scratch/posted.md" | tail -n 1)"
check_nogrep "... no line cut inside a tag" '<img s$' "$scratch/posted.md"

# ---- 6. three jobs posting on one PR at once: one comment remains
printf 'report\n' >"$scratch/short.md"
for n in 21 22 23 24 25; do
        for j in 1 2 3; do
                env GITHUB_API_URL="$API" GITHUB_REPOSITORY=octo/proj GITHUB_TOKEN=ghs_x PERFGATE_PLATFORM=github \
                        "$SCRIPT" comment --body "$scratch/short.md" --pr "$n" --out "$scratch/o6-$n-$j" \
                        >"$scratch/o6-$n-$j.log" 2>&1 &
        done
done
for p in $(jobs -p); do [ "$p" = "$server_pid" ] || wait "$p"; done
check_eq "concurrent jobs: one marker comment per PR" '[1,1,1,1,1]' \
        "$(state | jq -c '[.comments[] | select(.pr >= 21)] | group_by(.pr) | map(length)')"
stop_server

# ---- the same on GitLab
start_server --gitlab-token glpat-x --head-sha "$head"
for j in 1 2 3; do
        env PERFGATE_PLATFORM=gitlab CI_API_V4_URL="$API/api/v4" CI_PROJECT_ID=42 PERFGATE_GITLAB_TOKEN=glpat-x \
                "$SCRIPT" comment --body "$scratch/short.md" --pr 7 --out "$scratch/o7-$j" >"$scratch/o7-$j.log" 2>&1 &
done
for p in $(jobs -p); do [ "$p" = "$server_pid" ] || wait "$p"; done
check_eq "concurrent GitLab jobs: one marker note" 1 \
        "$(state | jq '[.notes[] | select(.body | startswith("<!-- perfgate -->"))] | length')"
stop_server

finish
