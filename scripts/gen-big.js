'use strict';
const v8 = require('v8');
const [out, nStr, newOut, leakStr, laterOut, tempStr] = process.argv.slice(2);
const n = Number(nStr);
class Point {
  constructor(x, y) { this.x = x; this.y = y; }
}
class Item {
  constructor(id) {
    this.id = id;
    this.name = 'item-' + id;
    this.pt = new Point(id, id * 2);
    this.tags = ['t' + (id % 7), 'u' + (id % 11)];
  }
}
const items = new Array(n);
const byName = new Map();
for (let i = 0; i < n; i++) {
  const it = new Item(i);
  items[i] = it;
  if (i % 4 === 0) byName.set(it.name, it);
}
globalThis.heapconvBig = { items, byName };
v8.writeHeapSnapshot(out);
if (newOut) {
  const leaked = [];
  for (let i = 0; i < Number(leakStr); i++) leaked.push(new Item(n + i));
  globalThis.heapconvLeaked = leaked;
  if (laterOut) allocateTemporary(Number(tempStr));
  v8.writeHeapSnapshot(newOut);
  if (laterOut) {
    globalThis.heapconvTemp = null;
    // Later, so that no register of this frame still holds the array.
    setImmediate(() => v8.writeHeapSnapshot(laterOut));
  }
}
function allocateTemporary(k) {
  const temp = [];
  for (let i = 0; i < k; i++) temp.push(new Item(-1 - i));
  globalThis.heapconvTemp = temp;
}

// The program scripts/gen-big.sh runs under node to make big snapshots:
// N Items in an array and a Map from name to every 4th one, written as a
// heap snapshot to OUT; with NEW, LEAK more Items held from a second array
// and a second snapshot; with LATER, NEW also holds TEMP Items from a third
// array that is dropped before LATER is written, so that only the LEAK
// Items were allocated between OLD and NEW and are still alive in LATER
// (memlab's baseline/target/final rule). internal/v8gen generates this heap without node,
// and its test runs this file to compare.
//
// Usage: node gen-big.js OUT N [NEW LEAK [LATER TEMP]]
//
// This comment comes last because the constructors' line numbers are part
// of the snapshot (their allocation locations), and internal/v8gen writes
// them as they are above.
