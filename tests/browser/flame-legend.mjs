// flame-legend.mjs - the header lines of the differential flame graphs that
// `perfgate compare --flamegraph-dir` writes for the golden comparison
// (tests/golden/compare) fit their SVG's width in real Chromium: every
// header <text> (title, counts, colour legend) has a getBBox() inside
// [0, width] in the 880-px comment image (<bench>.image.svg) and the 1200-px
// interactive graph (<bench>.diff.svg), and the legend still says what red,
// blue and white mean. Exit 0 pass, 1 fail, 77 skip.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { checks, env, launch, loadChromium } from "../util/browser.mjs";

const bin = env("PERFGATE_BIN");
const src = env("PG_SOURCE_DIR");
const chromium = loadChromium();
const { check, failures } = checks();
const golden = path.join(src, "tests/golden/compare");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-legend-"));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pg-chromium-"));
let st = 0;
try {
  execFileSync(bin, ["compare", path.join(golden, "base"), "--results", path.join(golden, "head"),
                     "--flamegraph-dir", path.join(dir, "fg")], { stdio: "ignore" });
} catch (e) {
  st = e.status;
}
check(st === 1, "perfgate compare exits 1 (two regressions)", `got ${st}`);
const files = fs.readdirSync(path.join(dir, "fg")).filter((f) => /\.(image|diff)\.svg$/.test(f));
check(files.some((f) => f.endsWith(".image.svg")) && files.some((f) => f.endsWith(".diff.svg")),
      "the comment image and the interactive graph were written", files.join(" "));
const ctx = await launch(chromium, profile, { width: 1300, height: 900 },
                         { javaScriptEnabled: false });
const page = await ctx.newPage();
for (const f of files) {
  await page.goto(pathToFileURL(path.join(dir, "fg", f)).href);
  const r = await page.evaluate(() => {
    const svg = document.documentElement;
    const texts = [...svg.querySelectorAll("text.sub, #title")].map((t) => {
      const b = t.getBBox();
      return { text: t.textContent, x: b.x, w: b.width };
    });
    return { width: +svg.getAttribute("width"), texts };
  });
  for (const t of r.texts)
    check(t.x >= 0 && t.x + t.w <= r.width, `${f}: "${t.text.slice(0, 40)}..." fits ${r.width} px`,
          `(x ${t.x.toFixed(1)} .. ${(t.x + t.w).toFixed(1)})`);
  const all = r.texts.map((t) => t.text).join(" ");
  check(/red = grew from base to head/.test(all) && /blue = shrank/.test(all) &&
        /white/.test(all), `${f}: the legend says what red, blue and white mean`, all);
}
await ctx.close();
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(profile, { recursive: true, force: true });
console.log(failures() ? `${failures()} check(s) failed` : "all checks passed");
process.exit(failures() ? 1 : 0);
