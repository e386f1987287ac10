// pr-comment.mjs - the PR comment that `perfgate compare --markdown
// --flamegraph-dir --link-base` writes for the golden comparison
// (tests/golden/compare: two regressions), rendered by cmark-gfm and loaded in
// real Chromium with JavaScript disabled, its images served from the flame
// graph directory at the address --link-base named (lib/render-comment.mjs):
// each image loads, is not blank, fits the comment's column, the first is on
// the first screen, and one names the regressed function (copy_field) in an
// SVG <text>. The screenshot is left in the build directory
// (pr-comment.png). Exit 0 pass, 1 fail, 77 skip.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { renderComment } from "./lib/render-comment.mjs";
import { env } from "../util/browser.mjs";
const bin = env("PERFGATE_BIN");
const src = env("PG_SOURCE_DIR");
const build = process.env.PG_BUILD_DIR || os.tmpdir();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-comment-"));
const linkBase = "https://github.com/octo/proj/raw/" + "1".repeat(40) + "/pr-7/" + "2".repeat(40);
const golden = path.join(src, "tests/golden/compare");
let st = 0;
try {
  execFileSync(bin, ["compare", path.join(golden, "base"), "--results", path.join(golden, "head"),
                     "--markdown", path.join(dir, "comment.md"), "--flamegraph-dir",
                     path.join(dir, "fg"), "--link-base", linkBase], { stdio: "ignore" });
} catch (e) {
  st = e.status;
}
if (st !== 1) { console.log(`not ok - perfgate compare exits 1 (got ${st})`); process.exit(1); }
const md = fs.readFileSync(path.join(dir, "comment.md"), "utf8");
const firstImg = md.indexOf("<img src=\"" + linkBase + "/");
const firstDetails = md.indexOf("<details>");
let failures = 0;
if (!(firstImg > 0 && firstImg < firstDetails)) {
  failures++;
  console.log("not ok - the Markdown has an image under --link-base before the first <details>");
}
const r = await renderComment({ markdown: path.join(dir, "comment.md"),
                                maps: [{ prefix: linkBase, dir: path.join(dir, "fg") }],
                                expectText: "copy_field",
                                screenshot: path.join(build, "pr-comment.png"), source: src });
if (r.skip) { console.log(`SKIP: ${r.skip}`); process.exit(77); }
failures += r.results.filter((x) => !x.ok).length;
fs.rmSync(dir, { recursive: true, force: true });
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
