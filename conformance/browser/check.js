#!/usr/bin/env node
// check.js — load heapconv HTML reports in headless Chromium (Debian's
// /usr/bin/chromium, driven by npm playwright-core, which downloads no
// browser) and check that each renders: no console error, no uncaught
// exception, no request beyond the file itself (the page loads nothing),
// the expected elements present, the class table sorting on a click; then
// save a screenshot of the whole page.
//
// Usage: node check.js REPORT.html SCREENSHOT.png [REPORT.html SCREENSHOT.png ...]
// Env: CHROMIUM (default /usr/bin/chromium).
//
// Prints one JSON line per report:
//   {"file", "errors": [...], "requests": [...], "rows", "rects", "paths",
//    "chart", "leaks", "leaksHeading", "sorted", "growth", "treemap"}
// errors holds console errors and exceptions; requests every URL the page
// asked for other than its own; rows the class table's rows; rects the
// treemap's rectangles; paths the retainer-path steps; chart whether the
// growth chart is drawn (its lines); sorted whether a click on Count sorted
// the table by count, largest first; leaks the leak section's suspects
// as shown (each one's heading, classes and path steps, and whether it is
// drawn with a size), leaksHeading the section's heading.
// growth describes the chart as drawn: "lines" (each line's class, its
// computed stroke colour and dashes, and its points' y), "height" (the
// picture's), "labels" (the box of each snapshot label shown, [left, top,
// right, bottom]) and "legend" (its entries).
// treemap describes the treemap's first view and a walk through it:
// "layout" (of the rectangles of the first level: how many lie outside the
// picture, how many pairs overlap, and the largest error of an area
// against its size's share), then "steps", one per click into a
// rectangle (at its centre, a real mouse click), down to three levels:
// the node clicked, its kind (1 a class's objects, 2 one object), the
// node shown after, the breadcrumb's length, the rectangles drawn and the
// line describing the node; "back", the same after a click on the
// breadcrumb's first entry (the root); "keys", the node focused, and the
// treemap after Enter on it and then after Escape.
'use strict';

const path = require('node:path');

async function main() {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.length % 2 !== 0) {
    process.stderr.write('usage: node check.js REPORT.html SCREENSHOT.png [...]\n');
    process.exit(2);
  }
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; i < args.length; i += 2) {
      const file = path.resolve(args[i]);
      const url = 'file://' + file;
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = [];
      const requests = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
      page.on('pageerror', (e) => errors.push('exception: ' + e.message));
      page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
      await page.goto(url, { waitUntil: 'load' });
      await page.waitForSelector('body[data-ready="1"]', { timeout: 10000 }).catch(() => errors.push('the page script never finished'));
      const counts = await page.evaluate(() => ({
        rows: document.querySelectorAll('#summary tbody tr').length,
        rects: document.querySelectorAll('#treemap rect').length,
        paths: document.querySelectorAll('#paths-section ol.path li').length,
        chart: document.querySelectorAll('#growth polyline').length,
        leaks: Array.from(document.querySelectorAll('#leaks-section li.suspect')).map((li) => {
          const box = li.getBoundingClientRect();
          return {
            title: li.querySelector('h3').textContent,
            classes: Array.from(li.querySelectorAll('ul.suspect-classes li')).map((c) => c.textContent),
            path: Array.from(li.querySelectorAll('ol.path li')).map((s) => s.textContent),
            shown: box.width > 0 && box.height > 0,
          };
        }),
        leaksHeading: (document.querySelector('#leaks-section h2') || {}).textContent || '',
      }));
      await page.click('#summary thead th:nth-child(2)');
      const sorted = await page.evaluate(() => {
        const v = Array.from(document.querySelectorAll('#summary tbody tr td:nth-child(2)')).map((td) => Number(td.getAttribute('data-v')));
        for (let k = 1; k < v.length; k++) if (v[k] > v[k - 1]) return false;
        return document.querySelector('#summary thead th:nth-child(2)').getAttribute('aria-sort') === 'descending';
      });
      const growth = await page.evaluate(() => {
        const svg = document.getElementById('growth');
        if (!svg) return null;
        const lines = Array.from(svg.querySelectorAll('g.series')).map((g) => {
          const pl = g.querySelector('polyline');
          return {
            class: g.getAttribute('data-class'),
            stroke: getComputedStyle(pl).stroke,
            dash: pl.getAttribute('stroke-dasharray') || '',
            ys: pl.getAttribute('points').trim().split(/\s+/).map((p) => Number(p.split(',')[1])),
          };
        });
        const labels = Array.from(svg.querySelectorAll('text.xlabel'))
          .filter((t) => getComputedStyle(t).visibility !== 'hidden')
          .map((t) => { const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; });
        return { lines, labels, height: svg.viewBox.baseVal.height, legend: svg.querySelectorAll('g.legend').length };
      });
      const treemap = await walkTreemap(page);
      await page.screenshot({ path: args[i + 1], fullPage: true });
      await page.close();
      process.stdout.write(JSON.stringify({ file: args[i], errors, requests, ...counts, sorted, growth, treemap }) + '\n');
    }
  } finally {
    await browser.close();
  }
}

// view describes the treemap as drawn now.
function view() {
  const svg = document.getElementById('treemap');
  const crumbs = document.querySelectorAll('#treemap-crumbs [data-node]');
  return {
    current: Number(svg.getAttribute('data-current')),
    crumbs: crumbs.length,
    rects: svg.querySelectorAll('rect').length,
    info: document.getElementById('treemap-info').textContent,
  };
}

// walkTreemap checks the treemap's first level's layout, then clicks into
// it: first a class's objects, then one object, then whatever opens; and
// back to the root by the breadcrumb.
async function walkTreemap(page) {
  const layout = await page.evaluate(() => {
    const svg = document.getElementById('treemap');
    if (!svg) return null;
    const W = svg.viewBox.baseVal.width, H = svg.viewBox.baseVal.height;
    const cells = Array.from(svg.querySelectorAll('g.cell[data-depth="0"]')).map((g) => {
      const r = g.querySelector('rect');
      return { x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'), h: +r.getAttribute('height'), size: +g.getAttribute('data-size') };
    });
    let total = 0;
    cells.forEach((c) => { total += c.size; });
    let outside = 0, overlaps = 0, areaErr = 0;
    cells.forEach((c, i) => {
      if (c.x < -0.1 || c.y < -0.1 || c.x + c.w > W + 0.2 || c.y + c.h > H + 0.2) outside++;
      // Coordinates are written to 0.1: allow that much.
      areaErr = Math.max(areaErr, Math.abs(c.w * c.h - c.size / total * W * H) - 0.1 * (c.w + c.h) - 0.02);
      for (let j = 0; j < i; j++) {
        const o = cells[j];
        if (c.x + 0.2 < o.x + o.w && o.x + 0.2 < c.x + c.w && c.y + 0.2 < o.y + o.h && o.y + 0.2 < c.y + c.h) overlaps++;
      }
    });
    return { cells: cells.length, outside, overlaps, areaErr: Math.max(areaErr, 0) };
  });
  if (!layout) return null;
  const steps = [];
  for (const want of [1, 2, 0]) {
    // The largest rectangle that opens, of the kind wanted if there is one.
    const target = await page.evaluate((want) => {
      const open = Array.from(document.querySelectorAll('#treemap g.cell.open[data-depth="0"]'));
      const g = open.find((c) => Number(c.getAttribute('data-kind')) === want) || open[0];
      if (!g) return null;
      g.scrollIntoView({ block: 'center' });
      const b = g.querySelector('rect').getBoundingClientRect();
      return { node: Number(g.getAttribute('data-node')), kind: Number(g.getAttribute('data-kind')), x: b.left + b.width / 2, y: b.top + b.height / 2 };
    }, want);
    if (!target) break;
    await page.mouse.click(target.x, target.y);
    steps.push({ clicked: target.node, kind: target.kind, ...(await page.evaluate(view)) });
  }
  if (steps.length > 0) await page.click('#treemap-crumbs button[data-node="0"]');
  const back = await page.evaluate(view);
  // The keyboard: Enter on the first rectangle that opens, then Escape.
  let keys = null;
  const focused = await page.evaluate(() => {
    const g = document.querySelector('#treemap g.cell[tabindex]');
    if (!g) return null;
    g.focus();
    return Number(g.getAttribute('data-node'));
  });
  if (focused !== null) {
    await page.keyboard.press('Enter');
    const enter = await page.evaluate(view);
    await page.keyboard.press('Escape');
    keys = { focused, enter, escape: await page.evaluate(view) };
  }
  return { layout, steps, back, keys };
}

main().catch((e) => {
  process.stderr.write(`check.js: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
