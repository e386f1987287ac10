// setup.mjs - what every browser test needs: the environment CTest sets, and
// playwright-core (tests/node/node_modules) driving Debian's chromium with
// the project's flags. A missing piece is a skip with its reason, never a
// silent pass.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

/** The value of environment variable @n, or exit 1 (not run through ctest). */
export function env(n) {
  const v = process.env[n];
  if (!v) { console.error(`${n} is not set (run through ctest)`); process.exit(1); }
  return v;
}

/** Chromium flags: headless, no sandbox (root in CI), nothing phoning home. */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
  "--no-first-run", "--disable-background-networking", "--disable-component-update",
  "--disable-sync"];

/**
 * playwright-core's chromium from @src's tests/node, and the browser's path:
 * { chromium, chromiumPath } or { skip: reason }.
 */
export function loadChromium(src) {
  const chromiumPath = process.env.PG_CHROMIUM || "/usr/bin/chromium";
  const require = createRequire(path.join(src, "tests/node/package.json"));
  let chromium;
  try {
    ({ chromium } = require("playwright-core"));
  } catch (e) {
    return { skip: `playwright-core not installed (run tests/node/install.sh): ${e.message}` };
  }
  if (!fs.existsSync(chromiumPath)) return { skip: `no chromium at ${chromiumPath} (apt-get install chromium)` };
  return { chromium, chromiumPath };
}
