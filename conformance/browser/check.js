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
//    "chart", "sorted"}
// errors holds console errors and exceptions; requests every URL the page
// asked for other than its own; rows the class table's rows; rects the
// treemap's rectangles; paths the retainer-path steps; chart whether the
// growth chart is drawn (its lines); sorted whether a click on Count sorted
// the table by count, largest first.
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
      }));
      await page.click('#summary thead th:nth-child(2)');
      const sorted = await page.evaluate(() => {
        const v = Array.from(document.querySelectorAll('#summary tbody tr td:nth-child(2)')).map((td) => Number(td.getAttribute('data-v')));
        for (let k = 1; k < v.length; k++) if (v[k] > v[k - 1]) return false;
        return document.querySelector('#summary thead th:nth-child(2)').getAttribute('aria-sort') === 'descending';
      });
      await page.screenshot({ path: args[i + 1], fullPage: true });
      await page.close();
      process.stdout.write(JSON.stringify({ file: args[i], errors, requests, ...counts, sorted }) + '\n');
    }
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  process.stderr.write(`check.js: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
