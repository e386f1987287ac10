// browser.mjs - what perfgate's browser tests (tests/browser/*.mjs) share:
// the environment ctest sets, playwright-core from tests/node/node_modules,
// Debian's chromium launched headless with a fresh profile directory, and
// TAP-style checks. A missing playwright-core or chromium makes the test
// exit 77 (SKIP) with the reason, never pass silently.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

/** $name, or exit 1 when ctest did not set it. */
export function env(name) {
  const v = process.env[name];
  if (!v) { console.error(`${name} is not set (run through ctest)`); process.exit(1); }
  return v;
}

export const chromiumPath = process.env.PG_CHROMIUM || "/usr/bin/chromium";

/** playwright-core's chromium, or exit 77 when it or the browser is missing. */
export function loadChromium() {
  const require = createRequire(path.join(env("PG_SOURCE_DIR"), "tests/node/package.json"));
  let chromium;
  try {
    ({ chromium } = require("playwright-core"));
  } catch (e) {
    console.log(`SKIP: playwright-core not installed (run tests/node/install.sh): ${e.message}`);
    process.exit(77);
  }
  if (!fs.existsSync(chromiumPath)) {
    console.log(`SKIP: no chromium at ${chromiumPath} (apt-get install chromium)`);
    process.exit(77);
  }
  return chromium;
}

/** Chromium's flags: headless, no sandbox (root in CI), nothing phoning home. */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
  "--no-first-run", "--disable-background-networking", "--disable-component-update",
  "--disable-sync"];

/**
 * Headless chromium with the fresh user-data-dir @profile (a persistent
 * context); @extra: more context options (javaScriptEnabled: false, ...).
 */
export function launch(chromium, profile, viewport, extra = {}) {
  return chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
    ...extra,
  });
}

/** TAP-style checks: check(cond, what, detail) prints ok / not ok; failures() counts. */
export function checks() {
  let failed = 0;
  return {
    check(cond, what, detail = "") {
      if (cond) console.log(`ok - ${what}`);
      else { failed++; console.log(`not ok - ${what} ${detail}`); }
    },
    failures: () => failed,
  };
}
