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
#   - a PR number from the event that is not a number is not used in URLs.
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
# the block opens with more tildes than any line holds, so nothing closes it early
open=$(grep -m1 -o '^~*text$' "$md" | sed 's/text$//')
inner=$(awk -v f="$open" '$0 == f "text" { inb = 1; next } inb && $0 == f { exit } inb' "$md" |
        grep -o '~*' | awk '{ if (length > m) m = length } END { print m + 0 }')
check "the fence (${#open} tildes) is longer than any run of tildes inside ($inner)" test "${#open}" -gt "$inner"
check "the payload's indented fence is inside the block" grep -q '^   ~~~~$' "$md"
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
stop_server

finish
