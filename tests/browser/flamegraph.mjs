// flamegraph.mjs - perfgate's flame graph SVGs in a real browser (Debian
// chromium driven by playwright-core): click-to-zoom and Reset Zoom, regex
// search through the same code path as the Ctrl-F prompt and through the
// ?s= URL parameter, zoom restored from ?x=&y=, no console errors, and the
// SVG embedded as an <img> (scripts never run there) rendering at its size,
// not blank, with static <text> labels. Exit 0 pass, 1 fail, 77 skip.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { checks, env, launch, loadChromium } from "../util/browser.mjs";

const bin = env("PERFGATE_BIN");
const chromium = loadChromium();
const { check, failures } = checks();

// A known profile: ^inner$ matches nested frames (main;inner;inner) that must
// be counted once.
const folded = [
  "app;main;inner 30",
  "app;main;inner;inner 10",
  "app;main;outer;inner 20",
  "app;main;outer;work 15",
  "app;other 25",
].join("\n") + "\n";
function matchedShare(text, re) {
  let total = 0, hit = 0;
  for (const line of text.split("\n")) {
    const m = line.match(/^(.*) (\d+)$/);
    if (!m) continue;
    const n = +m[2];
    total += n;
    if (m[1].split(";").some((f) => re.test(f))) hit += n;
  }
  return (100 * hit / total).toFixed(2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-browser-"));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pg-chromium-"));
fs.writeFileSync(path.join(dir, "p.folded"), folded);
fs.writeFileSync(path.join(dir, "base.folded"), "app;main;inner 50\napp;main;gone 30\napp;other 20\n");
execFileSync(bin, ["flamegraph", path.join(dir, "p.folded"), "-o", path.join(dir, "p.svg")]);
execFileSync(bin, ["diff", path.join(dir, "base.folded"), path.join(dir, "p.folded"), "-o",
                   path.join(dir, "d.svg")]);
fs.writeFileSync(path.join(dir, "img.html"),
  '<!DOCTYPE html><html><body style="margin:0;background:#fff">' +
  '<img id="fg" src="p.svg"></body></html>');

const svgText = fs.readFileSync(path.join(dir, "p.svg"), "utf8");
const svgW = +svgText.match(/<svg[^>]* width="([\d.]+)"/)[1];
const svgH = +svgText.match(/<svg[^>]* height="([\d.]+)"/)[1];
check(/<g data-n="outer"[^>]*>.*<text [^>]*>outer<\/text>/.test(svgText),
      "labels are static <text> elements in the file");

const server = http.createServer((req, res) => {
  const name = path.basename(new URL(req.url, "http://x").pathname);
  if (name === "favicon.ico") { res.writeHead(204); res.end(); return; }
  const file = path.join(dir, name);
  if (!name || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  const type = name.endsWith(".svg") ? "image/svg+xml" : "text/html";
  res.writeHead(200, { "content-type": type });
  res.end(fs.readFileSync(file));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

// A fresh profile directory (playwright passes it as --user-data-dir).
const browser = await launch(chromium, profile, { width: 1400, height: 900 });
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));

  // ---- zoom and reset
  await page.goto(`${base}/p.svg`);
  await page.waitForSelector("svg[data-ready='1']", { state: "attached" });
  const width = (sel) => page.$eval(sel, (g) => +g.querySelector("rect").getAttribute("width"));
  const cls = (sel) => page.$eval(sel, (g) => g.getAttribute("class") || "");
  const outerBefore = await width('g[data-n="outer"]');
  const mainBefore = await width('g[data-n="main"]');
  await page.click('g[data-n="outer"]');
  const outerZoomed = await width('g[data-n="outer"]');
  check(Math.abs(outerZoomed - (svgW - 20)) < 0.2, "clicked frame fills the width",
        `(${outerBefore} -> ${outerZoomed})`);
  check((await cls('g[data-n="main"]')).includes("parent"), "ancestors are dimmed");
  check((await cls('g[data-n="other"]')).includes("hide"), "unrelated frames are hidden");
  const workW = await width('g[data-n="work"]');
  check(Math.abs(workW - (svgW - 20) * 15 / 35) < 0.2, "children rescaled with the zoom",
        `(work ${workW})`);
  check(await page.$eval('g[data-n="work"] text', (t) => t.textContent) === "work",
        "labels re-fitted after zoom");
  check(/[?&]x=\d+&y=\d+/.test(page.url()), "zoom stored in the URL", page.url());
  check(!(await cls("#unzoom")).includes("hide"), "Reset Zoom is shown while zoomed");
  await page.click("#unzoom");
  check(Math.abs((await width('g[data-n="outer"]')) - outerBefore) < 0.2 &&
        Math.abs((await width('g[data-n="main"]')) - mainBefore) < 0.2,
        "Reset Zoom restores the widths");
  check(!(await cls('g[data-n="other"]')).includes("hide"), "Reset Zoom shows every frame");
  check((await cls("#unzoom")).includes("hide"), "Reset Zoom hides itself");

  // ---- search through the prompt (Ctrl-F), nested matches counted once
  const want = matchedShare(folded, /^inner$/);
  await page.evaluate(() => { window.prompt = () => "^inner$"; });
  await page.keyboard.press("Control+F");
  const matched = await page.textContent("#matched");
  check(matched === `Matched: ${want}%`, "Ctrl-F search prints the share of ^inner$",
        `(got "${matched}", want ${want}%)`);
  const magenta = await page.$$eval('g[data-n="inner"] rect', (rs) =>
    rs.every((r) => r.getAttribute("fill") === "rgb(230,0,230)"));
  check(magenta, "matches are highlighted");
  check(new URL(page.url()).searchParams.get("s") === "^inner$", "search stored in the URL");
  await page.click("#search"); // "Reset Search"
  check((await page.textContent("#matched")).trim() === "", "search reset clears Matched");

  // ---- ignore-case toggle
  await page.evaluate(() => { window.prompt = () => "^INNER$"; });
  await page.keyboard.press("Control+F");
  check((await page.textContent("#matched")) === "Matched: 0.00%", "search is case-sensitive");
  await page.click("#ignorecase");
  check((await page.textContent("#matched")) === `Matched: ${want}%`, "ic toggles ignore-case");

  // ---- shared link: ?s= and ?x=&y=
  const outerX = await page.$eval('g[data-n="outer"]', (g) => g.getAttribute("data-x"));
  await page.goto(`${base}/p.svg?s=${encodeURIComponent("^(inner|work)$")}&x=${outerX}&y=3`);
  await page.waitForSelector("svg[data-ready='1']", { state: "attached" });
  check((await page.textContent("#matched")) === `Matched: ${matchedShare(folded, /^(inner|work)$/)}%`,
        "?s= restores the search");
  check(Math.abs((await width('g[data-n="outer"]')) - (svgW - 20)) < 0.2, "?x=&y= restores the zoom");

  // ---- differential graph
  await page.goto(`${base}/d.svg`);
  await page.waitForSelector("svg[data-ready='1']", { state: "attached" });
  await page.click('g[data-n="outer"]');
  check(await page.$eval('g[data-n="outer"]', (g) => g.getAttribute("class")) === "new",
        "new frames of the diff keep their marker while zoomed");
  await page.click("#unzoom");
  check(errors.length === 0, "no console errors", JSON.stringify(errors));

  // ---- as an <img>: no scripts, expected size, not blank
  const ipage = await browser.newPage();
  ipage.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await ipage.goto(`${base}/img.html`);
  await ipage.waitForFunction(() => document.getElementById("fg").complete);
  const size = await ipage.$eval("#fg", (i) => [i.naturalWidth, i.naturalHeight, i.width, i.height]);
  check(size[0] === Math.round(svgW) && size[1] === Math.round(svgH) && size[2] === size[0],
        "the <img> renders at the SVG's size", JSON.stringify(size) + ` want ${svgW}x${svgH}`);
  const shot = await (await ipage.$("#fg")).screenshot();
  if (process.env.PG_BROWSER_SHOT) fs.writeFileSync(process.env.PG_BROWSER_SHOT, shot);
  const stats = await ipage.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let dark = 0, warm = 0;
    for (let i = 0; i < d.length; i += 4) {
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (d[i] < 60 && d[i + 1] < 60 && d[i + 2] < 60) dark++;
      if (d[i] > 200 && d[i + 2] < 120) warm++;
    }
    return { w: c.width, h: c.height, colours: colours.size, dark, warm };
  }, shot.toString("base64"));
  check(stats.colours > 20 && stats.dark > 200 && stats.warm > 2000,
        "the <img> is not blank: frame colours and text pixels", JSON.stringify(stats));
  check(errors.length === 0, "no console errors with the <img>", JSON.stringify(errors));
} finally {
  await browser.close();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(profile, { recursive: true, force: true });
}
console.log(failures() ? `${failures()} check(s) failed` : "all browser checks passed");
process.exit(failures() ? 1 : 0);
