'use strict';
// gen-series.js: a growing Node server, and a snapshot of it after each of
// several rounds of requests: the series of one process the archive
// benchmarks of docs/performance.md use.
//
//   node scripts/gen-series.js OUTDIR [SNAPSHOTS] [REQUESTS_PER_ROUND]
//
// An HTTP server on 127.0.0.1 keeps a session per request in a global map
// (each with a closure, a preferences object and a string: a leak), and
// a small cache it trims; a client sends REQUESTS_PER_ROUND (default 300)
// requests a round. After each round the process writes
// OUTDIR/snap-NN.heapsnapshot (SNAPSHOTS of them, default 11).
const http = require('http');
const v8 = require('v8');
const path = require('path');
const fs = require('fs');

const [outDir, countArg, perRoundArg] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: node gen-series.js OUTDIR [SNAPSHOTS] [REQUESTS_PER_ROUND]');
  process.exit(2);
}
const count = Number(countArg || 11);
const perRound = Number(perRoundArg || 300);
fs.mkdirSync(outDir, { recursive: true });

const sessions = new Map();
const cache = [];
class Session {
  constructor(id, agent) {
    this.id = id;
    this.agent = agent;
    this.prefs = { theme: id % 2 ? 'dark' : 'light', lang: 'en-' + (id % 13) };
    this.onChange = () => this.prefs.theme;
    this.token = 'token-' + id.toString(36).padStart(12, '0');
  }
}
let next = 0;
const server = http.createServer((req, res) => {
  const id = next++;
  sessions.set('s' + id, new Session(id, req.headers['user-agent'] || ''));
  cache.push(Buffer.alloc(64, id % 256).toString('hex'));
  if (cache.length > 500) cache.splice(0, 250);
  res.end(JSON.stringify({ id, sessions: sessions.size }));
});

function request(port) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
}

server.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  for (let round = 0; round < count; round++) {
    for (let i = 0; i < perRound; i++) await request(port);
    const name = path.join(outDir, `snap-${String(round).padStart(2, '0')}.heapsnapshot`);
    v8.writeHeapSnapshot(name);
  }
  server.close();
});
