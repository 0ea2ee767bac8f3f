// Measures `heapconv capture` of a Node process whose heap snapshot is
// about 1 GB, beside the process writing the same snapshot itself
// (v8.writeHeapSnapshot), in one run: the time each takes, the peak
// memory of heapconv, and how much the snapshotted process grows while
// the snapshot is taken. Prints a Markdown table for docs/performance.md.
//
// Usage: node scripts/bench-capture.js HEAPCONV [ITEMS] [DIR]
//   HEAPCONV is a built heapconv binary; ITEMS the objects the process
//   builds (2,700,000 make a snapshot of about 1 GB with Node 20); DIR
//   where the snapshots go (default /tmp/heapconv-bench). Needs GNU time,
//   Linux's /proc, and root or the process's owner (to reset its peak).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const [heapconv, items = '2700000', dir = '/tmp/heapconv-bench'] = process.argv.slice(2);
if (!heapconv) {
  console.error('usage: node scripts/bench-capture.js HEAPCONV [ITEMS] [DIR]');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });

// The process: a linked list of objects with strings, numbers and arrays,
// idle once built; on a line "write PATH" it writes its snapshot there.
const program = `
const v8 = require('node:v8');
class Item { constructor(i, prev) { this.id = i; this.label = 'item ' + (i % 5000); this.prev = prev; this.data = { a: i, b: [i, i + 1] }; } }
const items = []; let prev = null;
for (let i = 0; i < ${Number(items)}; i++) { prev = new Item(i, prev); items.push(prev); }
globalThis.items = items;
require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
  const [cmd, file] = l.split(' ');
  if (cmd === 'write') { v8.writeHeapSnapshot(file); console.log('written'); }
});
console.log('ready');
`;
const target = spawn(process.execPath, ['--max-old-space-size=16384', '-e', program], { stdio: ['pipe', 'pipe', 'ignore'] });
const lines = readline.createInterface({ input: target.stdout });
const waiting = [];
lines.on('line', (l) => { const w = waiting.shift(); if (w) w(l); });
const nextLine = () => new Promise((resolve) => waiting.push(resolve));

const status = (field) => {
  const m = fs.readFileSync(`/proc/${target.pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return Number(m[1]) * 1024;
};
// The process's peak since resetPeak: VmHWM, reset by clear_refs 5.
const resetPeak = () => fs.writeFileSync(`/proc/${target.pid}/clear_refs`, '5');
const mib = (b) => (b / 1048576).toFixed(0);
const size = (f) => fs.statSync(f).size;

async function main() {
  await nextLine();
  const idle = status('VmRSS');
  const rows = [];
  const capture = (out) => {
    resetPeak();
    const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', heapconv, 'capture', '-q', '--force', `pid:${target.pid}`, out], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`heapconv capture: ${r.stderr}`);
    const [secs, kb, user, sys] = r.stderr.trim().split('\n').pop().split(' ');
    return { secs: Number(secs), cpu: Number(user) + Number(sys), peak: Number(kb) * 1024, grew: status('VmHWM') - idle, bytes: size(out) };
  };
  const write = async (out) => {
    resetPeak();
    const t0 = process.hrtime.bigint();
    target.stdin.write(`write ${out}\n`);
    await nextLine();
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    return { secs, cpu: NaN, peak: 0, grew: status('VmHWM') - idle, bytes: size(out) };
  };
  const snap = path.join(dir, 'capture.heapsnapshot');
  const ir = path.join(dir, 'capture.heapir.zst');
  const own = path.join(dir, 'written.heapsnapshot');
  // Twice each, interleaved; the better of the two.
  const best = {};
  for (let round = 0; round < 2; round++) {
    for (const [name, run] of [['snap', () => capture(snap)], ['own', () => write(own)], ['ir', () => capture(ir)]]) {
      const r = await run();
      if (!best[name] || r.secs < best[name].secs) best[name] = r;
    }
  }
  const snapBytes = best.snap.bytes;
  console.log(`Node ${process.version}, ${Number(items).toLocaleString('en')} objects; the process holds ${mib(idle)} MiB when idle; its snapshot is ${(snapBytes / 1e9).toFixed(2)} GB.\n`);
  console.log('| how the snapshot is taken | time | CPU time of heapconv | peak memory of heapconv | the snapshotted process grows by | file |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  const row = (label, r, peak) => console.log(`| ${label} | ${r.secs.toFixed(1)} s | ${Number.isNaN(r.cpu) ? '' : r.cpu.toFixed(1) + ' s'} | ${peak} | ${mib(r.grew)} MiB | ${(r.bytes / 1e6).toFixed(0)} MB |`);
  row('`heapconv capture pid:N x.heapsnapshot`', best.snap, `${mib(best.snap.peak)} MiB`);
  row('`heapconv capture pid:N x.heapir.zst`', best.ir, `${mib(best.ir.peak)} MiB`);
  row('`v8.writeHeapSnapshot()` in the process', best.own, '');
  target.kill();
}
main().catch((e) => { console.error(e); target.kill(); process.exit(1); });
