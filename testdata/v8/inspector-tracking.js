// Takes a heap snapshot with allocation tracking through the inspector
// protocol, as DevTools' Memory panel ("Allocation instrumentation on
// timeline") and tools built on `inspector` do: HeapProfiler
// .startTrackingHeapObjects, some allocations, then .takeHeapSnapshot, whose
// chunks are joined into OUT. Node 20 writes such a snapshot with a header
// trace_function_count a few functions short of trace_function_infos, which
// DevTools' loader cannot load (conformance/inspector_test.go).
//
// Usage: node inspector-tracking.js OUT.heapsnapshot
'use strict';
const inspector = require('node:inspector');
const fs = require('node:fs');

const out = process.argv[2];
if (!out) {
  console.error('usage: node inspector-tracking.js OUT.heapsnapshot');
  process.exit(2);
}
const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) =>
  session.post(method, params || {}, (err, res) => (err ? reject(err) : resolve(res))));

class Tracked {
  constructor(i) { this.i = i; this.label = 'tracked ' + i; }
}
const kept = [];
function allocate(n) {
  for (let i = 0; i < n; i++) kept.push(new Tracked(i));
}

(async () => {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true });
  allocate(500);
  const chunks = [];
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
  await post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  // Not stopTrackingHeapObjects: it takes (and sends) another snapshot.
  session.disconnect();
  fs.writeFileSync(out, chunks.join(''));
  globalThis.kept = kept;
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
