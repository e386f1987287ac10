#!/usr/bin/env bash
# test-gitlab.sh - the GitLab template (ci/gitlab/perfgate.gitlab-ci.yml) and
# its example, run by gitlab-ci-local in shell mode in a project whose origin
# is a bare repository on disk: rules select the right job per pipeline, the
# expanded pipeline carries the reports (check-gitlab-yaml.js), the MR job
# fetches from origin, runs the real perfgate (compare over a results dir) and
# posts its MR note to the fake API; the default-branch job saves and pushes.
# gitlab-ci-local is the version pinned in tests/node/package.json (one that
# runs on Debian 12's Node.js 18).
. "$(dirname "$0")/lib.sh"

PERFGATE_BIN=${PERFGATE_BIN:?set PERFGATE_BIN to the perfgate binary}
GCL="$SRC/tests/node/node_modules/.bin/gitlab-ci-local"
[ -x "$GCL" ] || { echo "gitlab-ci-local missing: run tests/node/install.sh"; exit 1; }
command -v rsync >/dev/null || { echo "rsync missing (gitlab-ci-local needs it): ci/install-deps.sh test"; exit 1; }
gcl() {
        "$GCL" --force-shell-executor --no-color \
                --ignore-predefined-vars CI_PIPELINE_SOURCE,CI_MERGE_REQUEST_IID,CI_MERGE_REQUEST_TARGET_BRANCH_NAME,CI_API_V4_URL,CI_PROJECT_ID,CI_COMMIT_BRANCH,CI_DEFAULT_BRANCH \
                "$@"
}
not_implemented() { "$PERFGATE_BIN" "$1" --help 2>&1 | grep -q "not implemented yet"; }

origin="$scratch/origin.git"
git init -q --bare "$origin"
git clone -q "$origin" "$scratch/proj" 2>/dev/null
cd "$scratch/proj" || exit 1
mkdir -p ci/gitlab
cp "$SRC/ci/gitlab/perfgate.gitlab-ci.yml" ci/gitlab/
# The example as users write it, with the remote include made local (offline).
sed -e 's#^  - remote: .*perfgate.gitlab-ci.yml#  - local: ci/gitlab/perfgate.gitlab-ci.yml#' \
        "$SRC/ci/gitlab/example.gitlab-ci.yml" >.gitlab-ci.yml
check_grep "example rewritten to a local include" "local: ci/gitlab/perfgate.gitlab-ci.yml" .gitlab-ci.yml
printf '.gitlab-ci-local/\n' >.gitignore
git add -A && git commit -qm "project" && git push -q origin HEAD:main 2>/dev/null
git remote set-head origin main >/dev/null 2>&1

# ---- rules: which job runs in which pipeline
gcl --list --variable CI_PIPELINE_SOURCE=merge_request_event >"$scratch/list-mr" 2>&1
check_grep "MR pipeline lists perfgate-mr" "perfgate-mr" "$scratch/list-mr"
check_nogrep "MR pipeline has no perfgate-baseline" "perfgate-baseline" "$scratch/list-mr"
check_grep "schema validated" "json schema validated" "$scratch/list-mr"
gcl --list --variable CI_PIPELINE_SOURCE=push --variable CI_COMMIT_BRANCH=main --variable CI_DEFAULT_BRANCH=main >"$scratch/list-main" 2>&1
check_grep "default branch lists perfgate-baseline" "perfgate-baseline" "$scratch/list-main"
check_nogrep "default branch has no perfgate-mr" "perfgate-mr" "$scratch/list-main"
gcl --list --variable CI_PIPELINE_SOURCE=push --variable CI_COMMIT_BRANCH=topic --variable CI_DEFAULT_BRANCH=main >"$scratch/list-topic" 2>&1
check_nogrep "other branches: no perfgate job" "perfgate-" "$scratch/list-topic"

# ---- the expanded pipeline (includes and extends resolved)
gcl --preview >"$scratch/expanded.yml" 2>"$scratch/preview.err"
check "expanded pipeline has the reports, rules and modes" node "$CI_TEST_DIR/check-gitlab-yaml.js" "$scratch/expanded.yml"
# A broken template is caught by the same check (the check can fail).
sed -e 's#junit: .perfgate/ci/junit.xml#junit: report.xml#' "$SRC/ci/gitlab/perfgate.gitlab-ci.yml" >ci/gitlab/perfgate.gitlab-ci.yml
gcl --preview >"$scratch/expanded-bad.yml" 2>/dev/null
if node "$CI_TEST_DIR/check-gitlab-yaml.js" "$scratch/expanded-bad.yml" >/dev/null; then
        fail "a template without the junit report passes the check"
else ok "a template without the junit report fails the check"; fi
cp "$SRC/ci/gitlab/perfgate.gitlab-ci.yml" ci/gitlab/

# ---- docs/ci.md's override that installs a toolchain keeps the template's
# before_script (GitLab replaces a list, !reference brings it back)
cp .gitlab-ci.yml "$scratch/gitlab-ci.keep"
cat >>.gitlab-ci.yml <<'YAML'
perfgate-mr:
  before_script:
    - !reference [.perfgate, before_script]
    - apt-get install -y -qq cargo
YAML
gcl --preview >"$scratch/expanded-override.yml" 2>&1
awk '/^perfgate-mr:/ { on = 1; next } /^[^ ]/ { on = 0 } on' "$scratch/expanded-override.yml" >"$scratch/mr-job.yml"
check_grep "override keeps the template's before_script" 'PERFGATE_CI=' "$scratch/mr-job.yml"
check_grep "override adds its toolchain" 'apt-get install -y -qq cargo' "$scratch/mr-job.yml"
cp "$scratch/gitlab-ci.keep" .gitlab-ci.yml
# a runner whose perfgate is installed asks for the CI script's tools only,
# not perfgate's build packages (a user without sudo sees the list)
# (a copy nobody may read: a clone under /root is mode 0700)
mkdir -p "$scratch/nodpkg"
printf '#!/bin/sh\nexit 1\n' >"$scratch/nodpkg/dpkg-query" && chmod 755 "$scratch/nodpkg/dpkg-query"
cp "$SRC/ci/install-deps.sh" "$scratch/nodpkg/install-deps.sh"
chmod 755 "$scratch" "$scratch/nodpkg" "$scratch/nodpkg/install-deps.sh"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        setpriv --reuid 65534 --regid 65534 --clear-groups env PATH="$scratch/nodpkg:/usr/bin:/bin" \
                sh "$scratch/nodpkg/install-deps.sh" ci-tools >"$scratch/ci-tools.out" 2>&1
        check_grep "ci-tools lists the CI script's tools" 'apt-get install -y git curl jq ca-certificates librsvg2-bin' "$scratch/ci-tools.out"
        check_nogrep "ci-tools lists no build package" 'libdw-dev' "$scratch/ci-tools.out"
        # the full list, as a self-hosted runner's non-root user meets it: exit 1
        setpriv --reuid 65534 --regid 65534 --clear-groups env PATH="$scratch/nodpkg:/usr/bin:/bin" \
                sh "$scratch/nodpkg/install-deps.sh" ci >"$scratch/ci.out" 2>&1
        check_eq "ci as a user without sudo: exit 1" 1 "$?"
        check_grep "ci says why it installs nothing" 'is not root and has no password-less sudo' "$scratch/ci.out"
        check_grep "ci lists the build packages and CI tools" 'sudo apt-get install -y cmake make gcc pkg-config git libelf-dev libdw-dev zlib1g-dev libcjson-dev libgit2-dev libiberty-dev libcapstone-dev libncurses-dev curl jq ca-certificates librsvg2-bin' "$scratch/ci.out"
fi

# ---- the sharded example: 4 parallel shards feeding the template's jobs
sed -e 's#^  - remote: .*perfgate.gitlab-ci.yml#  - local: ci/gitlab/perfgate.gitlab-ci.yml#' \
        "$SRC/ci/gitlab/sharded.gitlab-ci.yml" >"$scratch/sharded.yml"
cp "$scratch/sharded.yml" .gitlab-ci.yml
gcl --list --variable CI_PIPELINE_SOURCE=merge_request_event >"$scratch/list-shard" 2>&1
check_grep "sharded: schema validated" "json schema validated" "$scratch/list-shard"
check_eq "sharded: 4 shard jobs in the MR pipeline" 4 "$(grep -c '^perfgate-shard' "$scratch/list-shard")"
check_grep "sharded: then perfgate-mr" "perfgate-mr" "$scratch/list-shard"
gcl --preview >"$scratch/expanded-shard.yml" 2>/dev/null
check_eq "sharded: perfgate-mr compares every shard's results" ".perfgate/shard-*/results [\"perfgate-shard\"]" \
        "$(node -e 'const y=require(process.env.SRC+"/tests/node/node_modules/js-yaml").load(require("fs").readFileSync(process.argv[1],"utf8"));const j=y["perfgate-mr"];console.log(j.variables.PERFGATE_RESULTS, JSON.stringify((j.needs||[]).map(n=>n.job||n)))' "$scratch/expanded-shard.yml")"
git checkout -q .gitlab-ci.yml

# ---- the MR job, for real, on a topic branch
git checkout -q -b topic
echo change >change.txt && git add change.txt && git commit -qm "topic change" && git push -q origin topic 2>/dev/null
mkdir -p "$scratch/results"
cp "$SRC/tests/golden/result-sample.json" "$scratch/results/parse.json"
start_server --gitlab-token glpat-ci
gcl perfgate-mr --variable CI_PIPELINE_SOURCE=merge_request_event --variable CI_MERGE_REQUEST_IID=5 \
        --variable CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main --variable CI_API_V4_URL="$API/api/v4" \
        --variable CI_PROJECT_ID=77 --variable PERFGATE_GITLAB_TOKEN=glpat-ci \
        --variable PERFGATE_SRC="$SRC" --variable PERFGATE="$PERFGATE_BIN" \
        --variable PERFGATE_RESULTS="$scratch/results" >"$scratch/mr.log" 2>&1
mr_st=$(sed -n 's/.*perfgate compare exited with status \([0-9]*\).*/\1/p' "$scratch/mr.log" | tail -1)
check "MR job ran perfgate compare" test -n "$mr_st"
check_grep "MR job fetched the target branch from origin" "+ git fetch origin main perfgate-baselines" "$scratch/mr.log"
check_grep "MR job: first run explained" "first run" "$scratch/mr.log"
if [ "$mr_st" = 0 ]; then
        check_grep "MR job passes when compare passes" "PASS  perfgate-mr" "$scratch/mr.log"
else
        check_grep "MR job fails with compare's status" "FAIL $mr_st" "$scratch/mr.log"
fi
check_eq "MR note posted once" 1 "$(requests POST)"
check_eq "MR note to the MR of the pipeline" /api/v4/projects/77/merge_requests/5/notes \
        "$(jq -rs 'map(select(.method=="POST"))[0].path' "$REQLOG")"
check_eq "MR note starts with the marker" '<!-- perfgate -->' "$(state | jq -r '.notes[0].body' | head -n 1)"
check "MR artifacts exported (the note body)" test -s .gitlab-ci-local/artifacts/perfgate-mr/.perfgate/ci/comment.md
check_nogrep "token not in the job log" "glpat-ci" "$scratch/mr.log"

# ---- the default-branch job: save and push the baseline
git checkout -q main
head=$(git rev-parse HEAD)
jq --arg c "$head" '.git.commit = $c | .git.dirty = false' "$SRC/tests/golden/result-sample.json" >"$scratch/results/parse.json"
gcl perfgate-baseline --variable CI_PIPELINE_SOURCE=push --variable CI_COMMIT_BRANCH=main --variable CI_DEFAULT_BRANCH=main \
        --variable PERFGATE_SRC="$SRC" --variable PERFGATE="$PERFGATE_BIN" \
        --variable PERFGATE_RESULTS="$scratch/results" >"$scratch/main.log" 2>&1
check_grep "baseline job ran baseline save" "+ perfgate baseline save --results" "$scratch/main.log"
if not_implemented baseline; then
        echo "# 'perfgate baseline' is not implemented yet in this build: checking only that the job fails with its status"
        check_grep "baseline job fails with save's status" "FAIL 4" "$scratch/main.log"
else
        check_grep "baseline job passes" "PASS  perfgate-baseline" "$scratch/main.log"
        check_eq "origin has the baseline (machine from the example)" "bare-metal-1/$head/parse.json" \
                "$(git -C "$origin" ls-tree -r --name-only perfgate-baselines 2>/dev/null)"
fi

# ---- images in the MR note: GitLab serves an uploaded SVG as an attachment
# (a "dangerous" type), so each image is uploaded as a PNG drawn without a
# browser (rsvg-convert) and the note carries the Markdown the uploads API
# returned, linking to the uploaded interactive SVG; the older pipeline of
# a moved MR leaves the note alone.
if command -v rsvg-convert >/dev/null; then
        golden="$SRC/tests/golden/compare"
        mr_head=$(git rev-parse HEAD)
        start_server --gitlab-token glpat-up --head-sha "$mr_head"
        gl_env=(env GITLAB_CI=true CI_API_V4_URL="$API/api/v4" CI_PROJECT_ID=77 CI_MERGE_REQUEST_IID=6
                CI_COMMIT_SHA="$mr_head" PERFGATE_GITLAB_TOKEN=glpat-up PERFGATE="$PERFGATE_BIN")
        "${gl_env[@]}" "$SCRIPT" pr --no-fetch --base "$golden/base" --results "$golden/head" --out "$scratch/out-up" \
                >"$scratch/up.log" 2>&1
        check_eq "MR with regressions exits 1" 1 $?
        check_eq "uploads: one PNG per image, one SVG per linked graph" "2 4" \
                "$(state | jq -r '[.uploads[] | select(.filename | endswith(".png"))] | length') $(state | jq -r '[.uploads[] | select(.filename | endswith(".svg"))] | length')"
        check_eq "uploads went to project 77 with the token" "77" "$(state | jq -r '[.uploads[].project] | unique | join(",")')"
        note=$(state | jq -r '.notes[] | select(.iid == 6) | .body')
        printf '%s' "$note" >"$scratch/note.md"
        png_md=$(jq -rs 'map(select(.method == "POST" and .path == "/api/v4/projects/77/uploads"))|length' "$REQLOG")
        check_eq "uploads API called once per file" 6 "$png_md"
        check "note shows the uploaded PNG linking to the uploaded SVG" \
                grep -Eq '^\[!\[parse\.image\]\(/uploads/[0-9a-f]{32}/parse\.image\.png\)\]\(/uploads/[0-9a-f]{32}/parse\.diff\.svg\)$' "$scratch/note.md"
        check_nogrep "no placeholder address left in the note" "perfgate.invalid" "$scratch/note.md"
        check_grep "the job log says the link base on the compare line is a placeholder" \
                "perfgate.invalid/upload is a placeholder" "$scratch/up.log"
        check "the image comes before the first <details>" test "$(grep -n '/uploads/.*\.png' "$scratch/note.md" | head -n 1 | cut -d: -f1)" -lt \
                "$(grep -n '<details>' "$scratch/note.md" | head -n 1 | cut -d: -f1)"
        png=$(grep -o '/uploads/[0-9a-f]*/parse\.image\.png' "$scratch/note.md" | head -n 1)
        curl -sS -D "$scratch/png.h" -o "$scratch/parse.png" "$API$png"
        check_eq "the uploaded PNG is a PNG" "89504e470d0a1a0a" "$(head -c 8 "$scratch/parse.png" | od -An -tx1 | tr -d ' \n')"
        check_grep "the PNG is served inline" "image/png" "$scratch/png.h"
        check "the PNG is 880 px wide" test "$(od -An -tu1 -j16 -N4 "$scratch/parse.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')" = 880
        svg=$(grep -o '/uploads/[0-9a-f]*/parse\.diff\.svg' "$scratch/note.md" | head -n 1)
        curl -sS -D "$scratch/svg.h" -o /dev/null "$API$svg"
        check_grep "an uploaded SVG is served as an attachment (why the image is a PNG)" "attachment" "$scratch/svg.h"
        check_nogrep "token not in the log" "glpat-up" "$scratch/up.log"
        # the MR moved on: this (older) pipeline does not update the note
        curl -sS -X POST -d '{"sha":"'"$(printf 'f%.0s' {1..40})"'"}' "$API/_head" >/dev/null
        : >"$REQLOG"
        "${gl_env[@]}" "$SCRIPT" comment --body "$scratch/out-up/comment.md" --out "$scratch/out-up2" >"$scratch/up2.log" 2>&1
        check_eq "older pipeline: no note written" "0 0" "$(requests POST) $(requests PUT)"
        check_grep "older pipeline: says why" "not updating the note" "$scratch/up2.log"
else
        echo "# rsvg-convert missing (ci/install-deps.sh ci installs librsvg2-bin): MR note images not checked"
fi
finish
