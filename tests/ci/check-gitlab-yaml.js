#!/usr/bin/env node
// check-gitlab-yaml.js EXPANDED.yml - checks the pipeline gitlab-ci-local
// expanded from the example .gitlab-ci.yml + the perfgate template (includes
// and extends resolved): both jobs present with their rules, the MR job's
// JUnit and metrics reports and exposed artifacts, the baseline job's
// resource group, the MR job interruptible and the baseline job not, every
// job running ci/perfgate-ci.sh in the right mode.
// Prints each problem; exit 1 if any.
'use strict';
const fs = require('fs');
const path = require('path');
const yaml = require(path.join(__dirname, '../node/node_modules/js-yaml'));

const doc = yaml.load(fs.readFileSync(process.argv[2], 'utf8'));
const problems = [];
const need = (cond, msg) => { if (!cond) problems.push(msg); };
const mr = doc['perfgate-mr'];
const bl = doc['perfgate-baseline'];
need(mr, 'no job perfgate-mr');
need(bl, 'no job perfgate-baseline');
if (mr) {
  need(JSON.stringify(mr.rules || []).includes('merge_request_event'), 'perfgate-mr: not limited to merge request pipelines');
  need((mr.script || []).some((l) => /perfgate-ci\.sh|PERFGATE_CI/.test(l) && /\bpr\b/.test(l)), 'perfgate-mr: does not run perfgate-ci.sh pr');
  need(mr.artifacts && mr.artifacts.reports && mr.artifacts.reports.junit === '.perfgate/ci/junit.xml', 'perfgate-mr: no reports:junit .perfgate/ci/junit.xml');
  need(mr.artifacts && mr.artifacts.reports && mr.artifacts.reports.metrics === '.perfgate/ci/metrics.txt', 'perfgate-mr: no reports:metrics .perfgate/ci/metrics.txt');
  need(mr.artifacts && mr.artifacts.when === 'always', 'perfgate-mr: artifacts not kept when the gate fails');
  need(mr.artifacts && mr.artifacts.expose_as && (mr.artifacts.paths || []).includes('.perfgate/ci/'), 'perfgate-mr: SVGs and reports not exposed');
  need((mr.needs || []).some((n) => (n.job || n) === 'build-benchmarks'), 'perfgate-mr: the example override (needs) was not merged');
  need(mr.variables && String(mr.variables.GIT_DEPTH) === '0', 'perfgate-mr: GIT_DEPTH is not 0 (merge-base needs history)');
  need(mr.interruptible === true, 'perfgate-mr: not interruptible (a newer MR pipeline should cancel it)');
  const caches = [].concat(mr.cache || []);
  need(mr.variables && mr.variables.XDG_CACHE_HOME === '$CI_PROJECT_DIR/.perfgate/cache' &&
       caches.some((c) => (c.paths || []).includes('.perfgate/cache/perfgate/debuginfo/')),
       'perfgate-mr: perfgate\'s debug-file cache is not kept in the project dir between jobs');
}
if (bl) {
  need(JSON.stringify(bl.rules || []).includes('CI_DEFAULT_BRANCH'), 'perfgate-baseline: not limited to the default branch');
  need((bl.script || []).some((l) => /perfgate-ci\.sh|PERFGATE_CI/.test(l) && /\bmain\b/.test(l)), 'perfgate-baseline: does not run perfgate-ci.sh main');
  need(bl.resource_group, 'perfgate-baseline: no resource_group');
  need(bl.interruptible !== true, 'perfgate-baseline: interruptible (a commit would lose its baseline)');
}
const pages = doc.pages;
need(pages, 'no job pages (the trends site)');
if (pages) {
  need(JSON.stringify(pages.rules || []).includes('CI_DEFAULT_BRANCH'), 'pages: not limited to the default branch');
  need((pages.script || []).some((l) => /history\b.*--html public/.test(l)), 'pages: does not run perfgate history --html public');
  need(pages.artifacts && (pages.artifacts.paths || []).includes('public'), 'pages: does not publish public/');
  need((pages.needs || []).some((n) => (n.job || n) === 'perfgate-baseline'), 'pages: does not wait for the baseline');
}
const vars = doc.variables || {};
need(vars.PERFGATE_MACHINE === 'bare-metal-1', 'example variables not merged over the template');
need(vars.PERFGATE_BASELINE_BRANCH === 'perfgate-baselines', 'template variables missing');
for (const p of problems) console.log(`problem: ${p}`);
process.exit(problems.length ? 1 : 0);
