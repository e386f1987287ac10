#!/usr/bin/env bash
# test-comment-words.sh - what ci/perfgate-ci.sh tells a reviewer and a
# user, with real perfgate, a real git repository and the golden results:
#   - a comment without images (images off, or a private repository) names
#     the flame graph files with the artifact they are in (PERFGATE_ARTIFACT,
#     set by the action when it uploads its output directory) and the folder
#     in it, not "the flame graph directory";
#   - a local preview (--platform none) says only where the body is: no
#     advice about uploading it as an artifact for a privileged job.
. "$(dirname "$0")/lib.sh"

golden_workdir
git commit -q --allow-empty -m first

PERFGATE_ARTIFACT=perfgate "$SCRIPT" pr --platform github --no-fetch --base "$golden/base" \
        --results "$golden/head" --out "$scratch/gh" >"$scratch/gh.log" 2>&1
check_eq "github, images off: exit 1 (the golden head regresses)" 1 $?
check_grep "the flame graphs are named with their artifact and folder" \
        "Flame graphs (folder flamegraphs/ of this run's artifact \"perfgate\"): parse.diff.svg" \
        "$scratch/gh/comment.md"
check_nogrep "... not 'the flame graph directory'" "the flame graph directory" "$scratch/gh/comment.md"
check "... and the file is in that folder of the uploaded directory" test -s "$scratch/gh/flamegraphs/parse.diff.svg"

"$SCRIPT" pr --platform none --no-fetch --base "$golden/base" --results "$golden/head" \
        --out "$scratch/none" >"$scratch/none.log" 2>&1
check_eq "--platform none: exit 1" 1 $?
check_grep "--platform none: says where the body is" \
        "comment body written to '$scratch/none/comment/body.md' (--platform none: not posted)" "$scratch/none.log"
check_nogrep "--platform none: no artifact advice" "as an artifact" "$scratch/none.log"
check_nogrep "--platform none: no PR-number advice" "pass --pr N" "$scratch/none.log"
check "--platform none: the body is there" test -s "$scratch/none/comment/body.md"
finish
