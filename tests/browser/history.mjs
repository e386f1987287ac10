// history.mjs - the `perfgate history --html` site in a real browser (Debian
// chromium driven by playwright-core), opened from file:// as a user would
// open a downloaded Pages artifact: no console errors, the chart plots each
// commit at the y its median maps to, the +4% step at the 35th of 60
// commits is visible (the points after it sit higher) and marked as the one
// change point, hovering names the commit, clicking a point opens that
// commit's flame graph and clicking the change point its differential
// flame graph. A screenshot of the page is kept (PG_BUILD_DIR/history.png).
// Exit 0 pass, 1 fail, 77 skip.
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

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-history-"));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pg-chromium-"));
const repo = path.join(dir, "repo");
const site = path.join(dir, "site");
execFileSync("sh", [path.join(src, "tests/util/history-repo.sh"), repo, "60", "3", "35", "4", "1", "7"]);
const git = (...a) => execFileSync("git", ["-C", repo, ...a], { encoding: "utf8" }).trim();
const c35 = git("rev-parse", "main~25");
execFileSync(bin, ["history", "--html", site], { cwd: repo, stdio: ["ignore", "ignore", "inherit"] });

const browser = await launch(chromium, profile, { width: 1100, height: 900 });
try {
  const page = await browser.newPage();
  const errors = [];
  const requests = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => requests.push(r.url()));

  // ---- index
  await page.goto(pathToFileURL(path.join(site, "index.html")).href);
  const rows = await page.$$eval("table tr", (trs) => trs.slice(1).map((tr) => tr.innerText));
  check(rows.length === 3, "index lists 3 benchmark x metric rows", JSON.stringify(rows));
  check(rows[0].includes("bench00") && rows[0].includes(c35.slice(0, 8)),
        "bench00's row names the change point's commit", rows[0]);
  check(rows.slice(1).every((r) => !/[0-9a-f]{8} [+-]/.test(r)), "other rows have no change point");
  await page.click("text=bench00 >> nth=0");
  await page.waitForURL(/bench00\.html$/);

  // ---- the chart: every commit plotted where its median maps to
  const chart = 'svg[data-metric="task-clock"]';
  const geo = await page.$eval(chart, (s) => ({
    lo: +s.dataset.lo, hi: +s.dataset.hi, top: +s.dataset.top, bottom: +s.dataset.bottom }));
  const pts = await page.$$eval(`${chart} circle.pt`, (cs) => cs.map((c) => ({
    i: +c.dataset.i, v: +c.dataset.v, cx: +c.getAttribute("cx"),
    cy: c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2
        - c.ownerSVGElement.getBoundingClientRect().top - c.ownerSVGElement.clientTop,
    title: c.querySelector("title").textContent })));
  check(pts.length === 60, "60 points, one per commit", `(${pts.length})`);
  const want = (v) => geo.top + (geo.bottom - geo.top) * (geo.hi - v) / (geo.hi - geo.lo);
  const worst = Math.max(...pts.map((p) => Math.abs(p.cy - want(p.v))));
  check(worst < 0.6, "rendered y of each point is where its median maps", `(off by ${worst} px)`);
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
  const before = pts.filter((p) => p.i < 34), after = pts.filter((p) => p.i >= 34);
  const vb = med(before.map((p) => p.v)), va = med(after.map((p) => p.v));
  check(Math.abs(va / vb - 1.04) < 0.01, "medians step by +4% at the 35th commit",
        `(${(100 * (va / vb - 1)).toFixed(2)}%)`);
  const ymaxAfter = Math.max(...after.map((p) => p.cy));
  const yminBefore = Math.min(...before.map((p) => p.cy));
  check(ymaxAfter < yminBefore, "every point after the step is drawn above every point before",
        `(lowest after ${ymaxAfter}, highest before ${yminBefore})`);
  const stepPx = med(before.map((p) => p.cy)) - med(after.map((p) => p.cy));
  check(stepPx > 0.3 * (geo.bottom - geo.top), "the step spans a good part of the chart",
        `(${stepPx.toFixed(1)} px)`);
  // the spread of the repetitions: one vertical bar per commit, through its median
  const bars = await page.$eval(`${chart} path.spread`, (p) =>
    [...p.getAttribute("d").matchAll(/M([\d.]+) ([\d.]+)V([\d.]+)/g)].map((m) => ({
      x: +m[1], top: +m[2], bottom: +m[3] })));
  const inBar = pts.filter((p, k) => bars[k] && Math.abs(bars[k].x - p.cx) < 0.06 &&
    bars[k].top <= +p.cy.toFixed(1) + 0.6 && bars[k].bottom >= +p.cy.toFixed(1) - 0.6);
  check(bars.length === 60 && inBar.length === 60,
        "a min-max bar per commit, at its x, spanning its median", `(${bars.length} bars, ${inBar.length} through the point)`);
  const cps = await page.$$eval(`${chart} line.cp`, (ls) => ls.map((l) => ({
    i: +l.dataset.i, x: +l.getAttribute("x1") })));
  check(cps.length === 1 && cps[0].i === 34, "one change point, at the 35th commit",
        JSON.stringify(cps));
  check(cps.length === 1 && Math.abs(cps[0].x - pts[34].cx) < 0.01,
        "the change point is drawn at that commit's x");
  check(pts[34].title.startsWith(c35.slice(0, 12)) && pts[34].title.includes("change 35") &&
        /task-clock \d/.test(pts[34].title), "hover title: commit, subject, value",
        JSON.stringify(pts[34].title));
  const hot = await page.$$eval('svg[data-metric="hotspots"] g.fn', (g) => g.length);
  check(hot === 3, "hotspot shares of the top functions drawn", `(${hot})`);
  const hov = await page.$$eval('svg[data-metric="hotspots"] rect.hov', (rs) => rs.map((r) => ({
    i: +r.dataset.i, title: r.querySelector("title").textContent })));
  check(hov.length === 60 && hov[34].i === 34 && hov[34].title.startsWith(c35.slice(0, 12)) &&
        /\nwork: \d+\.\d% self/.test(hov[34].title),
        "hotspot hover: one column per commit with each top function's share",
        JSON.stringify(hov[34]));

  fs.mkdirSync(env("PG_BUILD_DIR"), { recursive: true });
  const shot = path.join(env("PG_BUILD_DIR"), "history.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`# screenshot: ${shot}`);

  // ---- hover and click: the point opens its commit's flame graph
  await page.hover(`${chart} circle.pt[data-i="34"]`);
  await Promise.all([page.waitForURL(/flame\/bench00\.[0-9a-f]{12}\.svg$/),
                     page.click(`${chart} circle.pt[data-i="34"]`)]);
  check(page.url().endsWith(`flame/bench00.${c35.slice(0, 12)}.svg`),
        "clicking a point opens that commit's flame graph", page.url());
  await page.waitForSelector("svg[data-ready='1']", { state: "attached" });
  check(await page.$('g[data-n="work"]') !== null, "the flame graph shows the profile's functions");
  await page.goBack();
  await Promise.all([page.waitForURL(/diff-[0-9a-f]{12}\.svg$/),
                     page.click(`${chart} text.cp`)]);
  check(page.url().endsWith(`flame/bench00.diff-${c35.slice(0, 12)}.svg`),
        "the change point opens its differential flame graph", page.url());
  await page.waitForSelector("svg[data-ready='1']", { state: "attached" });
  const workFill = await page.$eval('g[data-n="work"] rect', (r) => r.getAttribute("fill"));
  check(/^rgb\(255,/.test(workFill), "work grew across the change: drawn red", workFill);

  check(errors.length === 0, "no console errors", JSON.stringify(errors));
  const remote = requests.filter((u) => !u.startsWith("file://"));
  check(remote.length === 0, "no request leaves file://", JSON.stringify(remote));
} finally {
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(profile, { recursive: true, force: true });
}
console.log(failures() ? `${failures()} failed` : "all passed");
process.exit(failures() ? 1 : 0);
