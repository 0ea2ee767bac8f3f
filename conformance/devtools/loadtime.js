#!/usr/bin/env node
// loadtime.js — time Chrome DevTools' own loader (npm heap-snapshot-toolkit's
// HeapSnapshotLoader) parsing a .heapsnapshot, without the analysis that
// follows: the peer that heapconv's V8 reader is measured against.
//
// Usage: node loadtime.js FILE.heapsnapshot
// Prints one JSON line: {"file":..., "bytes":n, "parseSeconds":s, "mbPerSecond":r}
'use strict';

const fs = require('node:fs');

const CHUNK = 10 * 1000 * 1000; // DevTools' ChunkedFileReader chunk size

async function main() {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node loadtime.js FILE.heapsnapshot\n');
    process.exit(2);
  }
  const { DevToolsAPI } = await import('heap-snapshot-toolkit');
  const loader = new DevToolsAPI.HeapSnapshotLoader.HeapSnapshotLoader({ sendEvent() {} });
  const bytes = fs.statSync(file).size;
  const t0 = process.hrtime.bigint();
  await new Promise((resolve, reject) => {
    const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: CHUNK });
    stream.on('error', reject);
    stream.on('data', (chunk) => loader.write(chunk));
    stream.on('end', resolve);
  });
  loader.close();
  await loader.parsingComplete;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({ file, bytes, parseSeconds: +s.toFixed(3), mbPerSecond: +(bytes / 1e6 / s).toFixed(1) }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`loadtime.js: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
