// Reads the built book as a reader would, in Debian's Chromium. On every page:
// each formula rendered (no .katex-error, no raw $…$ left in the prose), each
// image and figure drawn with a size, each sidebar link answered with 200,
// code listings within the page at 1280 px, no request leaving 127.0.0.1.
// Once: the language switch (one click, kept on the next page) and search.
// Run from the repository root after `mdbook build` (and `npm ci` here):
//   node ci/browser/read.mjs [book directory, default target/book]
import { createServer } from "node:http";
import { readFile, readdir } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import puppeteer from "puppeteer-core";

const ROOT = process.argv[2] ?? "target/book";
const SKIP = new Set(["print.html", "404.html", "toc.html"]); // not pages a reader turns to
const SEARCHES = ["掩码", "位置编码", "自注意力", "look-ahead mask"];
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css",
  ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf" };
const problems = new Set(); // one line per problem, however often it is met
const fail = (page, what) => problems.add(`${page}: ${what}`);
const started = Date.now();

// The book, served on a free port of this machine only.
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname));
  const file = join(ROOT, path.endsWith("/") ? `${path}index.html` : path);
  try {
    const body = await readFile(file);
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end("not found");
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const BASE = `http://127.0.0.1:${server.address().port}/`;
const name = (url) => decodeURI(url.replace(BASE, "").replace(/\?[^#]*/, "")) || "index.html"; // page[#anchor]

const pages = (await readdir(ROOT)).filter((f) => f.endsWith(".html") && !SKIP.has(f)).sort();
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  // CI runs as root, where Chromium's sandbox cannot start. No proxy and no
  // host name resolves, so nothing can leave even past the interception below.
  args: ["--no-sandbox", "--lang=en-US", "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
  defaultViewport: { width: 1280, height: 800 },
});

// A tab whose every request is watched: one that leaves 127.0.0.1 is named
// and refused; a local one that fails or answers >= 400 is named too.
async function tab(context) {
  const page = await context.newPage();
  await page.setRequestInterception(true);
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.hostname === "127.0.0.1" || url.protocol === "data:" || url.protocol === "blob:") return r.continue();
    fail(name(page.url()), `request leaves this machine: ${r.url()}`);
    r.abort("blockedbyclient");
  });
  page.on("requestfailed", (r) => {
    if (new URL(r.url()).hostname === "127.0.0.1") fail(name(page.url()), `request failed: ${r.url()}`);
  });
  page.on("response", (r) => r.status() >= 400 && fail(name(page.url()), `HTTP ${r.status()} for ${name(r.url())}`));
  page.on("pageerror", (e) => fail(name(page.url()), `script error: ${e.message}`));
  return page;
}

// What one page shows, measured inside the page with every <details> open
// and both languages on, so that nothing checked is hidden.
function inspect() {
  const main = document.querySelector("main");
  const found = [];
  const heads = [...main.querySelectorAll("h1, h2, h3, h4")];
  const where = (el) => {
    const h = heads.filter((x) => x.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
    return h ? `under #${h.id}` : "at the top";
  };
  const sized = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  for (const e of main.querySelectorAll(".katex-error")) found.push(`KaTeX error ${where(e)}: ${e.title || e.textContent}`);
  // Raw TeX in prose: the text of each block, leaving out code and formulas.
  const raw = /\$\$|\$[^\s$][^$]*\$|\\(frac|sqrt|mathrm|text|sum|cdot|left|right)\b/;
  const seen = new Set();
  for (const block of main.querySelectorAll("p, li, td, th, h1, h2, h3, h4, summary, figcaption, dt, dd")) {
    const copy = block.cloneNode(true);
    copy.querySelectorAll("pre, code, .katex, .katex-error, svg, script, style").forEach((e) => e.remove());
    const m = raw.exec(copy.textContent);
    const text = m && copy.textContent.slice(Math.max(0, m.index - 20), m.index + 40).replace(/\s+/g, " ");
    if (m && !seen.has(text)) { seen.add(text); found.push(`raw TeX ${where(block)}: "…${text}…"`); }
  }
  const images = [...main.querySelectorAll("img")];
  for (const img of images) {
    if (!img.complete || img.naturalWidth === 0) found.push(`image does not load ${where(img)}: ${img.getAttribute("src")}`);
    else if (!sized(img)) found.push(`image has no size ${where(img)}: ${img.getAttribute("src")}`);
  }
  // Inline figures: top-level <svg> in the text, not a formula's or a button's.
  const figures = [...main.querySelectorAll("svg")].filter((s) => !s.parentElement.closest("svg, .katex, button"));
  figures.forEach((s, i) => sized(s) || found.push(`figure ${i + 1} ${where(s)} has no size`));
  for (const el of main.querySelectorAll("pre, pre > code")) {
    if (el.scrollWidth > el.clientWidth + 1) {
      const line = el.textContent.trim().split("\n")[0].slice(0, 50);
      found.push(`listing ${where(el)} overflows (${el.scrollWidth} > ${el.clientWidth} px): "${line}"`);
    }
  }
  const links = [...document.querySelectorAll("#mdbook-sidebar a[href]")].map((a) => a.href);
  return { found, links, formulas: main.querySelectorAll(".katex").length, figures: images.length + figures.length,
    listings: main.querySelectorAll("pre").length };
}

const context = await browser.createBrowserContext();
const page = await tab(context);
const fetched = new Map(); // URL without #… → its HTML, or null when not 200
const totals = { formulas: 0, figures: 0, links: 0, listings: 0 };
const sidebarPages = new Set();
for (const file of pages) {
  await page.goto(`${BASE}${file}?lang=both`, { waitUntil: "networkidle0" });
  await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
  const seen = await page.evaluate(inspect);
  seen.found.forEach((p) => fail(file, p));
  for (const link of seen.links) {
    const [url, id] = link.split("#");
    if (!fetched.has(url)) {
      const res = await fetch(url);
      fetched.set(url, res.status === 200 ? await res.text() : null);
      if (res.status !== 200) fail(file, `sidebar link ${name(link)} answers HTTP ${res.status}`);
    }
    const html = fetched.get(url);
    if (html && id && !html.includes(`id="${decodeURIComponent(id)}"`)) fail(file, `sidebar link ${name(link)}: no such anchor`);
    sidebarPages.add(name(url));
  }
  for (const k of Object.keys(totals)) totals[k] += k === "links" ? seen.links.length : seen[k];
}
for (const file of pages) {
  if (file !== "index.html" && !sidebarPages.has(file)) fail(file, "is not in the sidebar");
}

// The language switch, in a fresh profile: one click shows one language,
// and the choice holds on the page reached from the sidebar.
async function shown(page) {
  return page.evaluate(() => {
    const visible = (sel) => [...document.querySelectorAll(`main ${sel}`)].filter((e) => e.getClientRects().length > 0).length;
    return { zh: visible('[lang="zh"]'), en: visible('[lang="en"]') };
  });
}
async function expectOnly(page, lang, how) {
  const s = await shown(page);
  const other = lang === "zh" ? "en" : "zh";
  if (s[lang] === 0 || s[other] > 0) {
    fail(name(page.url()), `language switch: ${how}, ${s.zh} Chinese and ${s.en} English blocks show (wanted only ${lang})`);
  }
}
const fresh = await browser.createBrowserContext();
const reader = await tab(fresh);
await reader.goto(`${BASE}02_self_attention.html?lang=both`, { waitUntil: "networkidle0" });
const both = await shown(reader);
if (!both.zh || !both.en) fail("02_self_attention.html", `language switch: ?lang=both shows ${both.zh} Chinese, ${both.en} English blocks`);
// A step that cannot even be taken (a missing button, no answer in 10 s)
// is one problem line too.
const attempt = (where, step) => step().catch((e) => fail(where, e.message.split("\n")[0]));
for (const [lang, label, next] of [["zh", "中文", "03_matrix_form.html"], ["en", "EN", "04_sqrt_dk.html"]]) {
  await attempt(`language switch ${label}`, async () => {
    await reader.click(`.txbook-lang-switch button[data-lang="${lang}"]`);
    await expectOnly(reader, lang, `after one click on ${label}`);
    await Promise.all([reader.waitForNavigation({ waitUntil: "networkidle0" }), reader.click(`#mdbook-sidebar a[href$="${next}"]`)]);
    await expectOnly(reader, lang, `after choosing ${label} and following the sidebar to ${next}`);
  });
}

// Search, through mdBook's search box, as a reader types it. A keyup after
// the text (an input method's commit) is what makes mdBook search.
reader.setDefaultTimeout(10000);
const hits = [];
await attempt("search", async () => {
  await reader.click("#mdbook-search-toggle");
  await reader.waitForNetworkIdle();
});
for (const query of SEARCHES) {
  await attempt(`search "${query}"`, async () => {
    await reader.$eval("#mdbook-searchbar", (e) => (e.value = ""));
    await reader.type("#mdbook-searchbar", query);
    await reader.keyboard.press("End");
    await reader.waitForFunction((q) => document.getElementById("mdbook-searchresults-header").innerText.includes(q), {}, query);
    const n = await reader.$$eval("#mdbook-searchresults li", (li) => li.filter((e) => e.getClientRects().length).length);
    if (n === 0) fail(`search "${query}"`, "no results shown");
    hits.push(`${query} ${n}`);
  });
}

await browser.close();
server.close();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (problems.size) {
  problems.forEach((p) => console.log(p));
  console.log(`browser: ${problems.size} problem(s) in ${pages.length} pages (${seconds} s)`);
  process.exit(1);
}
console.log(`browser: ${pages.length} pages, ${totals.formulas} formulas, ${totals.figures} figures, ` +
  `${totals.listings} listings, ${totals.links} sidebar links (${fetched.size} distinct) checked; ` +
  `language switch kept across pages; search hits: ${hits.join(", ")}; ${seconds} s`);
