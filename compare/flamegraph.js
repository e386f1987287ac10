(function () {
"use strict";
var NS = "http://www.w3.org/2000/svg";
var svg = document.documentElement;
function num(n) { return +svg.getAttribute("data-" + n); }
function byId(id) { return document.getElementById(id); }
var W = num("width"), total = num("total"), xpad = num("xpad"), fh = num("fh");
var y0 = num("y0"), inv = num("inv") === 1, cw = num("charw"), ty = num("ty");
var plot = W - 2 * xpad;
var details = byId("details"), unzoomBtn = byId("unzoom"), searchBtn = byId("search");
var icBtn = byId("ignorecase"), matched = byId("matched"), box = byId("frames");
var frames = [], zoomed = null, term = null, ic = false;
var gs = box.getElementsByTagName("g");
for (var i = 0; i < gs.length; i++) {
  var g = gs[i], rect = g.getElementsByTagName("rect")[0];
  var y = parseFloat(rect.getAttribute("y"));
  var f = { g: g, rect: rect, text: g.getElementsByTagName("text")[0] || null,
            name: g.getAttribute("data-n"), more: g.getAttribute("class") === "more",
            x: +g.getAttribute("data-x"), w: +g.getAttribute("data-w"),
            d: Math.round(inv ? (y - y0) / fh : (y0 - y) / fh),
            fill: rect.getAttribute("fill"), y: y };
  g.pgFrame = f;
  frames.push(f);
}
function show(el, on) {
  if (on) el.removeAttribute("class"); else el.setAttribute("class", "hide");
}
show(searchBtn, true);
show(icBtn, true);
function label(f, px, pw) {
  var chars = Math.floor(pw / cw), s = "";
  if (chars >= 3 && f.name !== null) {
    var cps = Array.from(f.name);
    s = cps.length <= chars ? f.name : cps.slice(0, chars - 2).join("") + "..";
  }
  if (!f.text) {
    if (s === "") return;
    f.text = document.createElementNS(NS, "text");
    var m = /(\d+),(\d+),(\d+)/.exec(f.fill || "");
    if (m && 0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3] < 110) f.text.setAttribute("class", "dk");
    f.text.setAttribute("y", (f.y + ty).toFixed(1));
    f.g.appendChild(f.text);
  }
  f.text.setAttribute("x", (px + 3).toFixed(1));
  f.text.textContent = s;
}
function place(f, px, pw) {
  f.rect.setAttribute("x", px.toFixed(1));
  f.rect.setAttribute("width", pw.toFixed(1));
  label(f, px, pw);
}
function setClass(f, c) {
  var base = f.g.getAttribute("data-c") || "";
  var v = (base + " " + c).trim();
  if (v) f.g.setAttribute("class", v); else f.g.removeAttribute("class");
}
for (i = 0; i < frames.length; i++)
  frames[i].g.setAttribute("data-c", frames[i].g.getAttribute("class") || "");
function url() {
  try {
    var p = new URLSearchParams(location.search);
    if (zoomed) { p.set("x", zoomed.x); p.set("y", zoomed.d); }
    else { p.delete("x"); p.delete("y"); }
    if (term !== null) p.set("s", term); else p.delete("s");
    var q = p.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : "") + location.hash);
  } catch (e) { /* file: URLs or sandboxed documents: no shareable state */ }
}
function unzoom() {
  zoomed = null;
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    setClass(f, "");
    place(f, xpad + f.x * plot / total, f.w * plot / total);
  }
  show(unzoomBtn, false);
  url();
}
function zoom(z) {
  if (z.d === 0) { unzoom(); return; }
  zoomed = z;
  var k = plot / z.w;
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    if (f.d < z.d && f.x <= z.x && f.x + f.w >= z.x + z.w) {
      setClass(f, "parent");
      place(f, xpad, plot);
    } else if (f.d >= z.d && f.x >= z.x && f.x + f.w <= z.x + z.w) {
      setClass(f, "");
      place(f, xpad + (f.x - z.x) * k, f.w * k);
    } else {
      setClass(f, "hide");
    }
  }
  show(unzoomBtn, true);
  url();
}
function resetSearch() {
  term = null;
  for (var i = 0; i < frames.length; i++) frames[i].rect.setAttribute("fill", frames[i].fill);
  matched.textContent = " ";
  matched.removeAttribute("data-samples");
  searchBtn.textContent = "Search";
  url();
}
function search(t) {
  var re;
  try { re = new RegExp(t, ic ? "i" : ""); }
  catch (e) { matched.textContent = "Bad regexp: " + e.message; return; }
  term = t;
  var hits = [];
  for (var i = 0; i < frames.length; i++) {
    var f = frames[i];
    if (f.name !== null && !f.more && re.test(f.name)) {
      f.rect.setAttribute("fill", "rgb(230,0,230)");
      hits.push(f);
    } else {
      f.rect.setAttribute("fill", f.fill);
    }
  }
  /* Nested matches lie inside their matching ancestor's interval: merge. */
  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
  var sum = 0, end = -1;
  for (i = 0; i < hits.length; i++) {
    var h = hits[i];
    if (h.x >= end) { sum += h.w; end = h.x + h.w; }
    else if (h.x + h.w > end) { sum += h.x + h.w - end; end = h.x + h.w; }
  }
  matched.textContent = "Matched: " + (100 * sum / total).toFixed(2) + "%";
  matched.setAttribute("data-samples", String(sum));
  searchBtn.textContent = "Reset Search";
  url();
}
function promptSearch() {
  var t = window.prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
                        (ic ? ", ignoring case" : "") +
                        "\nPress Ctrl-i to toggle case sensitivity", "");
  if (t !== null && t !== "") search(t);
}
function toggleIc() {
  ic = !ic;
  icBtn.setAttribute("class", ic ? "on" : "");
  if (term !== null) search(term);
}
box.addEventListener("click", function (e) {
  var g = e.target.closest("g");
  if (g && g.pgFrame) zoom(g.pgFrame);
});
box.addEventListener("mouseover", function (e) {
  var g = e.target.closest("g");
  if (g && g.pgFrame) {
    var t = g.getElementsByTagName("title")[0];
    details.textContent = (t ? t.textContent : "");
  }
});
box.addEventListener("mouseout", function () { details.textContent = " "; });
unzoomBtn.addEventListener("click", unzoom);
searchBtn.addEventListener("click", function () {
  if (term === null) promptSearch(); else resetSearch();
});
icBtn.addEventListener("click", toggleIc);
window.addEventListener("keydown", function (e) {
  if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
    e.preventDefault();
    promptSearch();
  } else if ((e.ctrlKey || e.metaKey) && e.keyCode === 73) {
    e.preventDefault();
    toggleIc();
  } else if (e.keyCode === 27 && term !== null) {
    resetSearch();
  }
});
var params;
try { params = new URLSearchParams(location.search); } catch (e) { params = null; }
if (params) {
  if (params.has("s") && params.get("s") !== "") search(params.get("s"));
  if (params.has("x") && params.has("y")) {
    var px = +params.get("x"), py = +params.get("y");
    for (i = 0; i < frames.length; i++)
      if (frames[i].x === px && frames[i].d === py && !frames[i].more) { zoom(frames[i]); break; }
  }
}
svg.setAttribute("data-ready", "1");
})();
