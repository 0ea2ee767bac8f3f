#!/usr/bin/env node
// explore.js — click through `heapconv explore`'s page in headless
// Chromium (Debian's /usr/bin/chromium, driven by npm playwright-core) as
// a person does: open the Summary, filter it to a class, open the class,
// open its largest object, expand its retainers two levels, follow its
// dominator, search for the object by its id, then open the dominator tree
// one level. Screenshots of the Summary and of the object are saved.
//
// Usage: node explore.js JOBS.json
// JOBS.json is a list of jobs, each {"mode", "url", "class", "shots"}: url
// the address heapconv explore printed (with its token), shots the
// directory for the screenshots; mode "walk" (the walk above, through
// class, its label exactly) or "compare" (the comparison: below). One
// browser runs them all, a page each, in order.
// Env: CHROMIUM (default /usr/bin/chromium).
//
// Prints one JSON line per job; for a walk {"errors", "requests", "summary", "instances",
// "object", "path", "dominators", "retainers", "nested", "dominator",
// "search"}: errors holds
// console errors and exceptions; requests every URL asked for outside the
// server; summary the first rows of the Summary as shown (label, count,
// self size, retained size); instances the class's objects listed; object
// the object view's title and facts; path the references of the steps of
// its retainer path, dominators those of its dominator chain; retainers the retainers listed and
// nested those of the first retainer, one level down, and those of its
// first, two levels down; dominator the title after following the
// dominator link; search the objects the search for its id found; tree
// the dominator tree's top objects, then what the first of them holds.
'use strict';

async function main() {
  const jobs = JSON.parse(require('node:fs').readFileSync(process.argv[2], 'utf8'));
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (const job of jobs) {
      const origin = new URL(job.url).origin;
      const out = { errors: [], requests: [] };
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('console', (m) => { if (m.type() === 'error') out.errors.push('console: ' + m.text()); });
      page.on('pageerror', (e) => out.errors.push('exception: ' + e.message));
      page.on('request', (r) => { if (!r.url().startsWith(origin + '/')) out.requests.push(r.url()); });
      try {
        await (job.mode === 'compare' ? compare : walk)(page, job, out);
      } catch (e) {
        out.errors.push('driver: ' + e.message);
      }
      await page.close();
      process.stdout.write(JSON.stringify(out) + '\n');
    }
  } finally {
    await browser.close();
  }
}

async function walk(page, { url, class: className, shots }, out) {
  const text = (sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent.trim()));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#classes tbody tr.class');
  out.summary = await page.$$eval('#classes tbody tr.class', (rows) => rows.slice(0, 10).map((r) =>
    Array.from(r.querySelectorAll('td')).map((td) => td.textContent.replace(/^[▸▾]/, '').trim())));
  await page.screenshot({ path: shots + '/summary.png' });

  // Filter to the class, open it, open its largest object.
  await page.fill('input.filter', className);
  const row = `#classes tr.class[data-class="${className.replace(/"/g, '\\"')}"]`;
  await page.waitForSelector(`#classes[data-filter="${className.replace(/"/g, '\\"')}"] ${row.slice('#classes '.length)}`);
  await page.click(row + ' a');
  await page.waitForSelector('#classes tr.instances:not([hidden]) li a.object');
  out.instances = await text('#classes tr.instances:not([hidden]) li a.object');
  await page.click('#classes tr.instances:not([hidden]) li a.object');

  await page.waitForSelector('#object-title');
  await page.waitForSelector('#retainers > li');
  out.object = {
    title: (await text('#object-title'))[0],
    facts: await page.$$eval('dl.facts dt', (dts) => Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent]))),
    url: page.url(),
  };
  await page.waitForSelector('#path > li');
  out.path = await text('#path > li a.object span.kind');
  await page.waitForSelector('#dominators > li');
  out.dominators = await page.$$eval('#dominators > li a.object span.kind', (els) => els.map((e) => e.textContent));
  out.retainers = await text('#retainers > li > a.object');
  // Two levels down the first retainer.
  await page.click('#retainers > li:first-child > .toggle');
  await page.waitForSelector('#retainers > li:first-child > ul > li');
  out.nested = [await text('#retainers > li:first-child > ul > li')];
  const second = '#retainers > li:first-child > ul > li:first-child';
  const toggle = await page.$(second + ' > .toggle');
  if (toggle && await toggle.textContent() === '▸') {
    await page.click(second + ' > .toggle');
    await page.waitForSelector(second + ' > ul > li');
    out.nested.push(await text(second + ' > ul > li'));
  }
  await page.screenshot({ path: shots + '/object.png', fullPage: true });

  // The dominator, then back, then a search by the object's id.
  const id = out.object.facts.id;
  out.dominator = null; // an object the roots alone hold has none
  if (await page.$('dl.facts dd a.object')) {
    await page.click('dl.facts dd a.object');
    await page.waitForFunction((t) => {
      const h = document.querySelector('#object-title');
      return h && h.textContent !== t;
    }, out.object.title);
    out.dominator = (await text('#object-title'))[0];
  }
  await page.fill('#q', id);
  await page.press('#q', 'Enter');
  await page.waitForSelector('main h1');
  await page.waitForFunction(() => document.querySelector('main h1').textContent.startsWith('“'));
  out.search = await text('main ul.tree li a.object');

  // The dominator tree from the Summary's link, its first object opened.
  await page.click('#home');
  await page.waitForSelector('#tree-link');
  await page.click('#tree-link');
  await page.waitForSelector('#dominator-tree > li');
  out.tree = [await text('#dominator-tree > li > a.object')];
  await page.click('#dominator-tree > li:first-child > .toggle');
  await page.waitForSelector('#dominator-tree > li:first-child > ul > li');
  out.tree.push(await text('#dominator-tree > li:first-child > ul > li > a.object'));
}

// compare opens the comparison of every heap served (the Compare link) and
// fills out with "suspects": [{"holder", "classes", "path"}] (each
// suspect's first line, its classes and its path's steps, as shown),
// "changes" (the class rows) and "holder" (the first suspect's holder,
// opened).
async function compare(page, { url, shots }, out) {
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#classes tbody tr.class');
  await page.click('#compare');
  await page.waitForSelector('#suspects > li', { timeout: 120000 });
  out.url = page.url();
  out.suspects = await page.$$eval('#suspects > li.suspect', (lis) => lis.map((li) => ({
    holder: li.querySelector('div').textContent,
    classes: Array.from(li.querySelectorAll('ul.suspect-classes li')).map((c) => c.textContent),
    path: Array.from(li.querySelectorAll('ol.path li')).map((c) => c.textContent),
  })));
  out.changes = await page.$$eval('#changes tbody tr', (trs) => trs.length);
  await page.screenshot({ path: shots + '/compare.png', fullPage: true });
  // The first suspect's holder opens as an object.
  if (out.suspects.length) {
    await page.click('#suspects > li.suspect div a.object');
    await page.waitForSelector('#object-title');
    out.holder = await page.$eval('#object-title', (h) => h.textContent);
  }
}

main().catch((e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
