#!/usr/bin/env bash
# test-github-yaml.sh - the GitHub action and example workflows are valid
# under action-validator (GitHub's schemas), a broken copy is rejected (so
# the check can fail), the action declares the inputs docs/ci.md promises and
# uses each of them, and the examples use the action the way it is built.
. "$(dirname "$0")/lib.sh"

AV="$SRC/tests/node/node_modules/.bin/action-validator"
[ -x "$AV" ] || { echo "action-validator missing: run tests/node/install.sh"; exit 1; }
action="$SRC/ci/github/action.yml"

check "action.yml valid" "$AV" "$action"
for f in "$SRC"/ci/github/examples/*.yml; do
        check "$(basename "$f") valid" "$AV" "$f"
done
sed 's/using: composite/using: compost/' "$action" >"$scratch/action.yml"
if "$AV" "$scratch/action.yml" >/dev/null 2>&1; then fail "a broken action.yml passes"; else ok "a broken action.yml is rejected"; fi
sed 's/^on:$/onn:/' "$SRC/ci/github/examples/pr-gate.yml" >"$scratch/wf.yml"
if "$AV" "$scratch/wf.yml" >/dev/null 2>&1; then fail "a broken workflow passes"; else ok "a broken workflow is rejected"; fi

node - "$action" "$SRC/ci/github/examples" <<'JS' >"$scratch/node.out" 2>&1
const fs = require('fs'), path = require('path');
const yaml = require(path.join(process.env.SRC, 'tests/node/node_modules/js-yaml'));
const [actionPath, exDir] = process.argv.slice(2);
const text = fs.readFileSync(actionPath, 'utf8');
const a = yaml.load(text);
let bad = 0;
const say = (ok, msg) => { console.log(`${ok ? 'ok' : 'FAIL'} - ${msg}`); if (!ok) bad++; };
for (const i of ['benchmarks', 'base', 'machine', 'repeat', 'counters', 'comment', 'fail-on-regression', 'baseline-branch'])
  say(a.inputs && a.inputs[i], `action input '${i}' declared`);
for (const i of Object.keys(a.inputs || {}))
  say(text.split(`inputs.${i} `).length + text.split(`inputs.${i}}`).length > 2, `action input '${i}' used by a step`);
say(a.runs.steps.some((s) => s.uses && s.uses.startsWith('actions/upload-artifact@')), 'action uploads artifacts with actions/upload-artifact');
say(a.runs.steps.some((s) => (s.run || '').includes('$GITHUB_ACTION_PATH/../perfgate-ci.sh')), 'action runs ci/perfgate-ci.sh');
say(a.runs.steps.some((s) => (s.uses || '').startsWith('actions/cache@') && /debuginfo\.outputs\.dir/.test((s.with || {}).path)),
    'action keeps perfgate\'s debug-file cache with actions/cache');
say(a.runs.steps.some((s) => (s.run || '').includes('$GITHUB_ACTION_PATH/../..')), 'action builds from its own checkout');
say(!/run:[^\n]*\$\{\{\s*inputs\./.test(text) && !a.runs.steps.some((s) => /\$\{\{\s*inputs\./.test(s.run || '')),
    'no input spliced into shell text (inputs go through env)');
const ex = (n) => yaml.load(fs.readFileSync(path.join(exDir, n), 'utf8'));
const steps = (w) => Object.values(w.jobs).flatMap((j) => j.steps || []);
const usesAction = (w) => steps(w).filter((s) => /\/perfgate\/ci\/github@/.test(s.uses || ''));
for (const n of ['pr-gate.yml', 'main-baseline.yml', 'fork-comment.yml', 'sharded-matrix.yml', 'pr-closed.yml'])
  say(usesAction(ex(n)).length > 0, `${n} uses <owner>/perfgate/ci/github@<ref>`);
const fc = ex('fork-comment.yml');
say(fc.on.workflow_run, 'fork-comment.yml triggers on workflow_run');
say(steps(fc).some((s) => s.with && s.with.name === 'perfgate-comment'), 'fork-comment.yml downloads the perfgate-comment artifact');
say(usesAction(fc).some((s) => s.with.mode === 'comment' && /workflow_run\.head_sha/.test(s.with['head-sha'])), 'fork-comment.yml posts with the run\'s trusted head sha');
say(!steps(fc).some((s) => (s.uses || '').startsWith('actions/checkout') && s.with &&
      (s.with.ref || s.with.repository)), 'fork-comment.yml never checks out the fork (only the base repository)');
say(usesAction(fc).some((s) => String(s.with.regenerate) === 'true'), 'fork-comment.yml draws the images again with its own perfgate');
say(ex('fork-comment.yml').permissions.contents === 'write', 'fork-comment.yml can publish the images it drew');
// action hygiene: no Node 20 actions/*@v4 (deprecated runtime), outputs the script writes
const allUses = [text, ...fs.readdirSync(exDir).map((n) => fs.readFileSync(path.join(exDir, n), 'utf8'))]
  .join('\n').match(/uses:\s*actions\/[a-z-]+@v\d+/g) || [];
// the first majors whose runtime is Node 24 (the Node 20 based ones are deprecated)
const node24 = { checkout: 5, 'upload-artifact': 6, 'download-artifact': 7, cache: 5 };
const old = allUses.filter((u) => { const m = /actions\/([a-z-]+)@v(\d+)/.exec(u); return node24[m[1]] && +m[2] < node24[m[1]]; });
say(allUses.length > 0 && old.length === 0, `checkout/upload-artifact/download-artifact at Node 24 majors${old.length ? ': not ' + old.join(', ') : ''}`);
for (const o of ['status', 'report', 'results', 'baseline-commit', 'assets-commit', 'link-base'])
  say(a.outputs && a.outputs[o], `action output '${o}' declared`);
say(a.inputs.perfgate, "action input 'perfgate' (an installed binary) declared");
for (const n of ['pr-gate.yml', 'sharded-matrix.yml']) {
  const c = ex(n).concurrency;
  say(c && c['cancel-in-progress'], `${n} cancels the run of an older head (concurrency)`);
}
const pc = ex('pr-closed.yml');
say(pc.on.pull_request_target && pc.on.pull_request_target.types.includes('closed'), 'pr-closed.yml runs when a PR closes');
say(usesAction(pc).some((s) => s.with.mode === 'prune'), 'pr-closed.yml prunes the images');
say(!steps(pc).some((s) => s.with && (s.with.ref || s.with.repository)), 'pr-closed.yml checks out no PR code');
say(text.includes('name: perfgate-comment'), 'action uploads the comment artifact under the name fork-comment.yml downloads');
const sm = ex('sharded-matrix.yml');
say(usesAction(sm).some((s) => s.with.mode === 'run' && /matrix\.shard/.test(s.with.shard)), 'sharded-matrix.yml runs one shard per matrix job');
say(usesAction(sm).some((s) => /results/.test(s.with.results || '')), 'sharded-matrix.yml compares all shards\' results');
say(ex('main-baseline.yml').permissions.contents === 'write', 'main-baseline.yml can push the data branch');
say(ex('pr-gate.yml').permissions['pull-requests'] === 'write', 'pr-gate.yml can comment');
const hp = ex('history-pages.yml');
say(hp.on.workflow_run && hp.on.workflow_run.workflows.includes('perfgate baseline'), 'history-pages.yml runs after the baseline workflow');
say(steps(hp).some((s) => /perfgate" history .*--html public/.test(s.run || '')), 'history-pages.yml builds the site with perfgate history --html');
say(steps(hp).some((s) => (s.uses || '').startsWith('actions/deploy-pages@')), 'history-pages.yml deploys to Pages');
process.exit(bad ? 1 : 0);
JS
st=$?
cat "$scratch/node.out"
[ $st = 0 ] || failures=$((failures + 1))
finish
