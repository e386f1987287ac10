#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2016 # "a && b || err": all checks hold or one fails; node code in single quotes
# check-action-release.sh - the "Install the perfgate release" step of
# ci/github/action.yml, run as a GitHub runner runs it (bash -eo pipefail,
# inputs as env, $GITHUB_OUTPUT): which version it asks for (the input, else
# the action's ref when it is a tag vX.Y.Z, never for a branch or 'source'),
# and that a release without a package for this system leaves no binary
# output and a notice, so the build-from-source steps run; the later steps
# take the release's binary when there is one. Installing a real package is
# tested on a fresh Debian root (tests/pkg/fresh-deb.sh).
set -u
src=${PG_SOURCE_DIR:?}
js=$src/tests/node/node_modules/js-yaml
[ -d "$js" ] || { echo "js-yaml missing: run tests/node/install.sh"; exit 77; }
fail=0
err() { echo "check-action-release: FAIL: $*" >&2; fail=1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
action=$src/ci/github/action.yml
SRC=$src node -e '
const yaml = require(process.env.SRC + "/tests/node/node_modules/js-yaml");
const a = yaml.load(require("fs").readFileSync(process.argv[1], "utf8"));
const s = a.runs.steps;
const rel = s.find((x) => x.id === "release");
if (!rel) { console.error("no step with id release"); process.exit(1); }
require("fs").writeFileSync(process.argv[2], rel.run);
const idx = (n) => s.findIndex((x) => x.name === n || x.id === n);
const out = [];
if (!(idx("release") < idx("Install Debian packages") && idx("release") < idx("build"))) out.push("the release step does not come before the install and build steps");
for (const n of ["Install Debian packages", "build"])
  if (!/steps\.release\.outputs\.bin == \x27\x27/.test(s[idx(n)].if)) out.push(`step ${n} runs even when the release is installed`);
for (const x of s)
  if (x.env && x.env.PERFGATE && !/steps\.release\.outputs\.bin \|\| steps\.build\.outputs\.bin/.test(x.env.PERFGATE))
    out.push(`step ${x.name} does not take the release binary first`);
if (out.length) { console.error(out.join("\n")); process.exit(1); }
' "$action" "$scratch/step.sh" || err "action.yml: release step wiring"

step() { # INPUT_VERSION ACTION_REF -> output file, log
        : >"$scratch/out"
        env GITHUB_ACTION_PATH="$src/ci/github" GITHUB_OUTPUT="$scratch/out" INPUT_VERSION="$1" \
                ACTION_REF="$2" ACTION_REPOSITORY=octo/perfgate PERFGATE_RELEASE_URL="file://$scratch/rel" \
                bash --noprofile --norc -eo pipefail "$scratch/step.sh" >"$scratch/log" 2>&1
}
mkdir "$scratch/rel"
step 9.9.9 main
st=$?
[ $st = 0 ] || err "version 9.9.9 without a package: step exit $st, want 0 (build from source)"
[ -s "$scratch/out" ] && err "version 9.9.9 without a package: outputs $(cat "$scratch/out")"
grep -q "::notice title=perfgate::no perfgate 9.9.9 package installed" "$scratch/log" || err "no notice: $(cat "$scratch/log")"
grep -q "v9.9.9/perfgate_9.9.9_" "$scratch/log" || err "the step did not look for v9.9.9's package: $(cat "$scratch/log")"
step "" v8.8.8
grep -q "v8.8.8/perfgate_8.8.8_" "$scratch/log" || err "ref v8.8.8 is not the default version: $(cat "$scratch/log")"
for c in ":main" ":v1" "source:v8.8.8"; do
        step "${c%%:*}" "${c#*:}"
        st=$?
        [ $st = 0 ] && [ ! -s "$scratch/log" ] && [ ! -s "$scratch/out" ] ||
                err "input '${c%%:*}' ref '${c#*:}': should build from source quietly (exit $st, $(cat "$scratch/log"))"
done
[ $fail = 0 ] && echo "action release step: ok"
exit $fail
