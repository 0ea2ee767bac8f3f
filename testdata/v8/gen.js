#!/usr/bin/env node
// Builds a small, varied JS heap and writes a V8 heap snapshot of it.
//
// Usage: node [node flags] gen.js OUT.heapsnapshot [N] [--track] [--no-gc]
//   OUT      output path (required)
//   N        number of extra `Item` objects to allocate (default 20)
//   --track  start heap-object allocation tracking through the inspector
//            (HeapProfiler.startTrackingHeapObjects, trackAllocations=true)
//            before building the objects, so the snapshot carries non-empty
//            trace_function_infos / trace_tree / samples (and trace_node_id).
//            Running node with --track-heap-objects has the same effect.
//   --no-gc  do not call gc() before writing (gc() is only available when
//            node runs with --expose-gc; it is skipped silently otherwise)
//
// Recommended (smallest output): node --expose-gc --max-semi-space-size=1 gen.js OUT
//
// Everything the generator builds hangs off globalThis.heapconvFixture so that it
// is reachable from the global object (a "user root") in the snapshot.
'use strict';

const v8 = require('v8');

function usage(msg) {
  if (msg) process.stderr.write(`gen.js: ${msg}\n`);
  process.stderr.write('usage: node [--expose-gc] gen.js OUT.heapsnapshot [N] [--track] [--no-gc]\n');
  process.exit(2);
}

const positional = [];
const opts = { track: false, gc: true };
for (const a of process.argv.slice(2)) {
  if (a === '--track') opts.track = true;
  else if (a === '--no-gc') opts.gc = false;
  else if (a.startsWith('--')) usage(`unknown flag ${a}`);
  else positional.push(a);
}
if (positional.length < 1 || positional.length > 2) usage();
const outPath = positional[0];
const N = positional.length > 1 ? Number(positional[1]) : 20;
if (!Number.isInteger(N) || N < 0) usage(`bad N ${positional[1]}`);

function startTracking() {
  const inspector = require('inspector');
  const session = new inspector.Session();
  session.connect();
  let err = null;
  // Session.post with a callback runs synchronously for the in-process session.
  session.post('HeapProfiler.enable', (e) => { if (e) err = e; });
  session.post('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true }, (e) => { if (e) err = e; });
  if (err) throw new Error(`startTrackingHeapObjects: ${err.message || err}`);
  return session;
}

// ---------------------------------------------------------------- the objects

class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
}

class Item {
  constructor(id, name, tags) {
    this.id = id;
    this.name = name;
    this.pt = new Point(id, -id);
    this.tags = tags;
  }
}

// A class with a non-ASCII name and a field with a non-ASCII key.
class Café {
  constructor() {
    this.crème = 'brûlée';
    this['名前'] = '中文字符串';
  }
}

// Subclass with private and static fields.
class Shape {
  static count = 0;
  #secret;
  constructor(kind) {
    this.kind = kind;
    this.#secret = { kind };
    Shape.count++;
  }
  get secret() { return this.#secret; }
}
class Circle extends Shape {
  constructor(r) {
    super('circle');
    this.r = r;
  }
}

function makeCounter(start) {
  // Closure capturing a context with a primitive and an object.
  let n = start;
  const history = [start];
  return function counterClosure() {
    n++;
    history.push(n);
    return n;
  };
}

function makeAdders() {
  const base = { offset: 1000 };
  return [1, 2, 3].map((k) => (v) => v + k + base.offset);
}

function build(n) {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push(new Item(i, `item-${i}`, ['t' + (i % 3), 't' + (i % 5)]));
  }

  const holey = [1, 2, 3];
  holey[20] = 'hole-after';
  const sparse = [];
  sparse[5000] = 'sparse-end'; // dictionary-mode elements

  const map = new Map();
  for (let i = 0; i < 8; i++) map.set(`key-${i}`, new Point(i, i * i));
  map.set(items, 'object key');

  const set = new Set(['alpha', 'beta', 'gamma', 42, 3.5]);

  const sym = Symbol('heapconv.symbol');
  const anonSym = Symbol();
  const registeredSym = Symbol.for('heapconv.registered');
  const symbolKeyed = { [sym]: 'symbol-valued', [anonSym]: 1, [registeredSym]: 2 };

  const bigints = [2n ** 100n, -(2n ** 70n) + 1n, 123456789012345678901234567890n];

  const buf = new ArrayBuffer(256);
  const u8 = new Uint8Array(buf, 0, 64);
  const f64 = new Float64Array(buf, 64, 8);
  const i32 = Int32Array.from([1, -2, 3, -4]);
  const dv = new DataView(buf, 128, 16);
  u8[0] = 0xff;
  f64[0] = Math.PI;

  const strings = {
    latin1: 'café résumé naïve é',
    cjk: '中文字符串 日本語 한국어',
    emoji: 'grin 😀 face',
    clef: 'music 𝄞 clef',
    astralOnly: '😀',
    loneHigh: 'lone \uD800 high',
    loneLow: 'lone \uDC00 low',
    quotes: 'she said "hi" and left',
    backslash: 'C:\\path\\to\\file',
    control: 'tab\there\nnewline\rcr\bbs\ffeed\u0001one\u001funit\u007fdel',
    nul: 'nul\u0000byte',
    slash: 'a/b</script>',
    lineSep: 'ls\u2028ps\u2029end',
    bom: '\uFEFFbom',
    // Longer than V8's 1024-unit name limit (--heap-snapshot-string-limit):
    long: 'L'.repeat(700) + '中'.repeat(200) + 'x'.repeat(600) + 'END',
    longAscii: ('0123456789'.repeat(150)) + 'TAIL',
    // 1023 units then a surrogate pair: the cut at 1024 splits the pair.
    longSplitPair: 'P'.repeat(1023) + '😀' + 'after',
  };
  // String.prototype.repeat and + build cons-string trees; copy the long ones
  // into flat sequential strings so the snapshot has them as one `string` node.
  const flat = (x) => JSON.parse(JSON.stringify(x));
  for (const k of ['long', 'longAscii', 'longSplitPair']) strings[k] = flat(strings[k]);
  // Flattened, non-constant strings (computed) so they are real heap strings.
  strings.built = ['built', 'at', 'runtime', String(Date.now() % 7)].join('-');
  strings.cons = strings.long + strings.longAscii; // concatenated string
  strings.sliced = strings.longAscii.slice(3, 1400); // sliced string

  const weakKey = { weakKey: true };
  const weakMap = new WeakMap([[weakKey, { weakValue: 'kept by key' }]]);
  const weakTarget = { target: 'weakly held' };
  const weakRef = new WeakRef(weakTarget);
  const weakSet = new WeakSet([weakKey]);
  const registry = new FinalizationRegistry(() => {});
  registry.register(weakTarget, 'held-value');

  const counter = makeCounter(10);
  counter();
  const adders = makeAdders();

  const re = /heap(conv)?\s+\d+/giu;
  const date = new Date(0);
  const err = new Error('fixture error');
  const promise = Promise.resolve('resolved');
  const nested = { a: { b: { c: { d: { e: 'deep' } } } } };
  const cyc = { name: 'cycle' };
  cyc.self = cyc;
  const nullProto = Object.create(null);
  nullProto.only = 'null-prototype';
  const dict = {};
  for (let i = 0; i < 40; i++) dict['p' + i] = i; // dictionary-mode properties
  delete dict.p0;
  const numbers = { smi: 7, heapNum: 1.25, nan: NaN, neg: -0, big: 2 ** 53 };
  const boxed = [new Number(4), new String('boxed'), new Boolean(false), Object(sym)];
  const proxy = new Proxy({ proxied: 1 }, {});
  const bound = counter.bind(null);
  const gen = (function* g() { yield 1; })();

  return {
    items, holey, sparse, map, set, symbolKeyed, sym, bigints,
    buf, u8, f64, i32, dv, strings,
    weakKey, weakMap, weakRef, weakSet, registry,
    counter, adders, re, date, err, promise, nested, cyc, nullProto, dict, numbers,
    boxed, proxy, bound, gen,
    cafe: new Café(),
    circle: new Circle(2),
  };
}

// ---------------------------------------------------------------- main

function finish(session) {
  // Let unreachable temporaries die; weakTarget stays only weakly reachable.
  if (opts.gc && typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
  const written = v8.writeHeapSnapshot(outPath);
  // Not stopTrackingHeapObjects: that would take a second snapshot over the session.
  if (session) session.disconnect();
  process.stdout.write(`${written}\n`);
}

if (!opts.track) {
  globalThis.heapconvFixture = build(N);
  finish(null);
} else {
  // The inspector's heap-object tracking pushes a heap-stats sample every 50 ms
  // from an event-loop timer, so build in a few rounds with the loop running in
  // between: that gives a non-empty `samples` array and a deeper trace_tree.
  const session = startTracking();
  const rounds = 4;
  let round = 0;
  globalThis.heapconvFixture = build(N);
  globalThis.heapconvRounds = [];
  const tick = () => {
    if (round++ < rounds) {
      globalThis.heapconvRounds.push(build(Math.max(1, N >> 2)).items);
      setTimeout(tick, 60);
    } else {
      finish(session);
    }
  };
  setTimeout(tick, 60);
}
