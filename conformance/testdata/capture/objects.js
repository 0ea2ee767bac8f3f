// objects.js is the Node producer of heapconv's capture tests
// (conformance/producers_test.go starts it). It builds a heap the tests
// can recognize in a snapshot, prints "ready", and then idles: it runs no
// code until a command comes, so that two snapshots taken while it idles
// (one through the inspector, one by the process itself) see the same
// objects.
//
// Standard input takes commands, one a line:
//
//	write PATH   v8.writeHeapSnapshot(PATH), then print "written"
//	             (or "error: WHY")
//
// The process exits when its standard input closes: a test killed before
// its cleanup must not leave it running. (An open standard input is also
// what keeps it alive, so it needs no timer that would run while it idles.)
'use strict';

const readline = require('readline');
const v8 = require('v8');

/** CaptureLeaf is the class the tests count in a snapshot. */
class CaptureLeaf {
  constructor(index, label, weight, next) {
    this.index = index; // a small integer (a Smi: no object of its own)
    this.label = label; // "leaf-<index>", a distinct string per leaf
    this.weight = weight; // a double, a heap number
    this.next = next; // the leaf before, so that the leaves retain each other
  }
}

/** How many leaves the process keeps. */
const leafCount = 1000;

const leaves = [];
const byLabel = new Map();
let previous = null;
for (let i = 0; i < leafCount; i++) {
  const leaf = new CaptureLeaf(i, `leaf-${i}`, i / 8 + 0.5, previous);
  leaves.push(leaf);
  byLabel.set(leaf.label, leaf);
  previous = leaf;
}

// Globals keep everything alive, retained from the global object. The
// secret is joined at run time so that the whole string exists only as a
// heap object: this script's source, which V8 also keeps in its heap,
// holds only its parts.
globalThis.captureLeaves = leaves;
globalThis.captureByLabel = byLabel;
globalThis.captureSecret = ['SECRET', 'node', '3b8f1e'].join('-');

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.startsWith('write ')) {
    try {
      v8.writeHeapSnapshot(line.slice('write '.length));
      console.log('written');
    } catch (e) {
      console.log(`error: ${e.message}`);
    }
  } else {
    console.log(`unknown command: ${line}`);
  }
});
lines.on('close', () => process.exit(0));
console.log('ready');
