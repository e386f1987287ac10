// render-comment.mjs - a PR comment's Markdown as GitHub's image proxy shows
// it: rendered to HTML by cmark-gfm (tables, raw HTML kept), in a column as
// wide as a PR comment's text (880 px), loaded in real Chromium with
// JavaScript disabled (the proxy strips scripts from SVG). Checks that each
// flame graph <img> loads, is not blank, fits the column without being shrunk
// below legibility, that the first one starts on the first screen (viewport
// 1280x900), and that the SVG it shows names the expected function in a
// <text> element. Writes a screenshot of the first screen.
//
//   node render-comment.mjs --markdown FILE [--map PREFIX=DIR]... \
//        [--expect-text NAME] [--screenshot OUT.png] [--source SRCDIR]
//
// --map serves DIR's files for image and link URLs starting with PREFIX (the
// published address). Exit 0 pass, 1 fail, 77 skip (no chromium,
// playwright-core or cmark-gfm). Used by tests/browser/pr-comment.mjs and
// tests/ci/rehearsal.sh.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import url from "node:url";
import { CHROMIUM_ARGS, chromiumPath, launch, loadChromium } from "../../util/browser.mjs";

const COLUMN_PX = 880;
const VIEWPORT = { width: 1280, height: 900 };

export async function renderComment({ markdown, maps = [], expectText = null, screenshot = null,
                                      source = null }) {
  if (source) process.env.PG_SOURCE_DIR = source;
  process.env.PG_SOURCE_DIR ||= path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), "../../..");
  const chromium = loadChromium(); // exits 77 (skip) without playwright-core or chromium
  let html;
  try {
    html = execFileSync("cmark-gfm", ["--unsafe", "-e", "table", "-e", "autolink", markdown],
                        { encoding: "utf8" });
  } catch (e) {
    return { skip: `cmark-gfm failed or is missing (apt-get install cmark-gfm): ${e.message}` };
  }

  const results = [];
  const check = (cond, what, detail = "") => {
    results.push({ ok: !!cond, what, detail });
    console.log(`${cond ? "ok" : "not ok"} - ${what} ${cond ? "" : detail}`);
  };

  // Published addresses -> local files, served over HTTP like the real host.
  const server = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (p === "/comment.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page);
      return;
    }
    const m = /^\/map(\d+)\/(.+)$/.exec(p);
    const file = m && maps[+m[1]] ? path.join(maps[+m[1]].dir, m[2]) : null;
    if (!file || file.includes("..") || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { "content-type": file.endsWith(".svg") ? "image/svg+xml" : "image/png" });
    res.end(fs.readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const local = `http://127.0.0.1:${server.address().port}`;
  maps.forEach((m, i) => { html = html.split(m.prefix.replace(/\/?$/, "/")).join(`${local}/map${i}/`); });
  const page = '<!DOCTYPE html><html><head><meta charset="utf-8"><style>' +
    "body{margin:0;background:#fff;font:14px/1.5 -apple-system,'Segoe UI',sans-serif}" +
    `.markdown-body{box-sizing:border-box;width:${COLUMN_PX + 32}px;padding:8px 16px;margin:70px auto 0}` +
    "img{max-width:100%;box-sizing:content-box}table{border-collapse:collapse}" +
    "td,th{border:1px solid #d0d7de;padding:4px 10px}</style>" +
    '<script>document.title = "scripts ran"</script></head><body>' +
    `<div class="markdown-body">${html}</div></body></html>`;

  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pg-chromium-"));
  const ctx = await launch(chromium, profile, VIEWPORT, { javaScriptEnabled: false });
  let info = [];
  try {
    const tab = await ctx.newPage();
    await tab.goto(`${local}/comment.html`, { waitUntil: "load" });
    check((await tab.title()) !== "scripts ran", "the page's scripts are off");
    info = await tab.$$eval(".markdown-body img", (imgs) => imgs.map((im) => {
      const r = im.getBoundingClientRect();
      return { src: im.currentSrc || im.src, complete: im.complete, nw: im.naturalWidth,
               nh: im.naturalHeight, x: r.left, y: r.top + window.scrollY, w: r.width, h: r.height,
               alt: im.alt, column: im.closest(".markdown-body").clientWidth - 32 };
    }));
    const flames = info.filter((i) => /flame graph/.test(i.alt));
    const svgs = [];
    check(flames.length > 0, "the comment shows a flame graph image", `(${info.length} images)`);
    for (const [k, im] of flames.entries()) {
      check(im.complete && im.nw > 0, `image ${k + 1} loads`, `(${im.src})`);
      check(im.w <= im.column + 0.5, `image ${k + 1} fits the ${im.column} px column`, `(${im.w} px)`);
      check(im.w >= 0.9 * Math.min(im.column, im.nw), `image ${k + 1} is not shrunk`, `(${im.w} of ${im.nw} px)`);
      // Not blank: the element's pixels, counted in a second (scripted) tab.
      const png = await tab.screenshot({ clip: { x: im.x, y: im.y, width: im.w, height: im.h },
                                         fullPage: true });
      const counts = await pixelStats(chromium, png);
      check(counts.colours >= 4 && counts.nonwhite > 0.1, `image ${k + 1} is not blank`,
            `(${counts.colours} colours, ${(100 * counts.nonwhite).toFixed(1)}% non-white)`);
      const svg = await (await fetch(im.src)).text();
      svgs.push(svg);
      check(!/<script/i.test(svg), `image ${k + 1} has no script`);
    }
    if (expectText) {
      const esc = expectText.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const k = svgs.findIndex((t) => new RegExp(`<text[^>]*>${esc}</text>`).test(t));
      check(k >= 0, `a flame graph image names ${expectText} in an SVG <text>`,
            `(not in the ${svgs.length} images)`);
    }
    if (flames.length) {
      check(flames[0].y < VIEWPORT.height && flames[0].y + flames[0].h / 2 <= VIEWPORT.height,
            "the first flame graph is on the first screen",
            `(top ${flames[0].y.toFixed(0)} px, height ${flames[0].h.toFixed(0)} px, screen ${VIEWPORT.height} px)`);
    }
    if (screenshot) await tab.screenshot({ path: screenshot });
  } finally {
    await ctx.close();
    server.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  return { results, images: info };
}

// Distinct colours and the share of non-white pixels of a PNG, measured on a
// canvas in a separate, scripted browser.
async function pixelStats(chromium, png) {
  const b = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
  try {
    const p = await b.newPage();
    await p.setContent(`<img id="i" src="data:image/png;base64,${png.toString("base64")}">`);
    await p.waitForFunction(() => document.getElementById("i").complete);
    return await p.evaluate(() => {
      const im = document.getElementById("i");
      const c = document.createElement("canvas");
      c.width = im.naturalWidth; c.height = im.naturalHeight;
      const g = c.getContext("2d");
      g.drawImage(im, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      let nonwhite = 0;
      for (let i = 0; i < d.length; i += 4) {
        seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        if (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245) nonwhite++;
      }
      return { colours: seen.size, nonwhite: nonwhite / (d.length / 4) };
    });
  } finally {
    await b.close();
  }
}

// Command line (the rehearsal).
if (process.argv[1] && path.resolve(process.argv[1]) === url.fileURLToPath(import.meta.url)) {
  const opt = { maps: [] };
  for (let i = 2; i < process.argv.length; i++) {
    const a = process.argv[i], v = () => process.argv[++i];
    if (a === "--markdown") opt.markdown = v();
    else if (a === "--map") { const s = v(), k = s.indexOf("="); opt.maps.push({ prefix: s.slice(0, k), dir: s.slice(k + 1) }); }
    else if (a === "--expect-text") opt.expectText = v();
    else if (a === "--screenshot") opt.screenshot = v();
    else if (a === "--source") opt.source = v();
    else { console.error(`render-comment: unknown option '${a}'`); process.exit(2); }
  }
  if (!opt.markdown) { console.error("render-comment: --markdown FILE is required"); process.exit(2); }
  const r = await renderComment(opt);
  if (r.skip) { console.log(`SKIP: ${r.skip}`); process.exit(77); }
  process.exit(r.results.every((x) => x.ok) ? 0 : 1);
}
