#!/usr/bin/env node
// summary.js — load .heapsnapshot files with Chrome DevTools' own loader and
// analysis code (npm heap-snapshot-toolkit, which packages DevTools'
// heap_snapshot_worker) and print DevTools' Summary-view aggregates as JSON.
//
// Usage: node summary.js FILE.heapsnapshot [FILE2 ...]
//
// For each FILE, in order, one line on stdout with one JSON object:
//   {"nodeCount":n,"edgeCount":e,"rootIndex":i,"totalSize":t,
//    "classes":{"<class name>":{"count":c,"self":s,"maxRet":r,"distance":d},...},
//    "stacks":{"<node id>":["function script:line:column", ...],...},
//    "retainers":{"<node id>":[{"id":i,"name":...,"nodeType":...,"shown":...,"edge":...,"type":...,"distance":d},...]}}
// The classes are DevTools' "All objects" Summary rows (aggregatesWithFilter({})):
// count, shallow size, retained size and the minimum distance of the class.
// stacks holds the allocation stacks DevTools shows of the first 20 nodes
// that have one (a snapshot with allocation traces), innermost frame first.
// retainers holds, for each node id listed in SUMMARY_RETAINERS (comma-separated),
// the chain of retainers DevTools' Retainers view expands on its own when the
// object is selected: the first retainer in its order (distance, then name), then
// that one's first retainer, while the distance is above 1 and reachable, at most
// 20 levels; each with the edge by which it holds the step before it (its name
// and type), the retainer's name in DevTools' model (node.name(): a concatenated
// string's text, a plain object's "{a, b}", else its name in the file), its
// node type, and shown: the text the Retainers view's grid shows for it before
// its "@id" (DevTools' frontend, HeapSnapshotGridNodes, dresses the name by the
// node's type; that frontend is not in heap-snapshot-toolkit, so shownText
// below restates its rules).
// Keys are the class names, sorted. If DevTools splits one class name into several
// rows (objects of the same name with different allocation locations), those rows
// are keyed by DevTools' class key instead ("scriptId,line,col,Name" for a row with
// a location, ",Name" for the row without), so no row is lost.
//
// A file that fails to load (loader throws, analysis throws, loader stalls, or the
// watchdog fires) gets {"error":"..."} on its stdout line, the message goes to
// stderr, the remaining files are still processed, and the exit status is 1.
// Problems DevTools only reports (e.g. unreachable nodes) go to stderr as warnings.
//
// Env: SUMMARY_TIMEOUT  seconds allowed per file (default 120). The load runs in a
//                       worker thread, so the watchdog also stops a busy loop.
'use strict';

const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');

// DevTools reads files in 10,000,000-char chunks (ChunkedFileReader); mirror that.
const CHUNK = 10 * 1000 * 1000;
// How many nodes' allocation stacks to report.
const STACKS = 20;

async function summarize(file) {
  const { DevToolsAPI } = await import('heap-snapshot-toolkit');
  const { HeapSnapshotLoader, SecondaryInitManager } = DevToolsAPI;

  const problems = [];
  const dispatcher = {
    sendEvent(name, data) {
      if (name === 'BrokenSnapshot') problems.push(String(data));
    },
  };
  const loader = new HeapSnapshotLoader.HeapSnapshotLoader(dispatcher);
  let parseError = null;
  const parsed = loader.parsingComplete.then(
    () => true,
    (e) => { parseError = e; return false; });

  await new Promise((resolve, reject) => {
    const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: CHUNK });
    stream.on('error', reject);
    stream.on('data', (chunk) => loader.write(chunk));
    stream.on('end', resolve);
  });
  loader.close();

  // Once all input is handed over, the rest of the parse only awaits already
  // resolved promises (microtasks). If it has not settled by the next macrotask,
  // the loader is waiting for input that will never come: it searches for a key
  // that is missing or out of order. Fail now instead of hanging.
  const stalled = Symbol('stalled');
  const first = await Promise.race([parsed, new Promise((r) => setImmediate(() => r(stalled)))]);
  if (first === stalled) {
    throw new Error('DevTools loader stalled: input ended before it found everything it ' +
      'searches for (file truncated, or one of "snapshot", "nodes", "edges", ' +
      '"trace_function_infos", "samples", "locations", "strings" missing or out of order)');
  }
  if (!first) throw parseError;

  const channel = new MessageChannel();
  let snapshot;
  try {
    // Both DevTools "workers" on this thread, as in DevTools' own tests.
    // eslint-disable-next-line no-new
    new SecondaryInitManager(channel.port2);
    snapshot = await loader.buildSnapshot(channel.port1);
  } finally {
    channel.port1.close();
    channel.port2.close();
  }

  const aggregates = snapshot.aggregatesWithFilter({});
  const byName = new Map();
  for (const key of Object.keys(aggregates)) {
    const name = aggregates[key].name;
    byName.set(name, (byName.get(name) || 0) + 1);
  }
  const rows = [];
  for (const key of Object.keys(aggregates)) {
    const a = aggregates[key];
    const k = byName.get(a.name) > 1 ? key : a.name;
    rows.push([k, { count: a.count, self: a.self, maxRet: a.maxRet, distance: a.distance }]);
  }
  rows.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const classes = Object.create(null); // a class may be named "__proto__"
  for (const [k, v] of rows) classes[k] = v;

  // The allocation stacks DevTools shows (its "Allocation stack" pane) of
  // the first nodes that have one, by node id: "function script:line:column"
  // per frame, innermost first.
  const stacks = Object.create(null);
  let withStacks = 0;
  // DevTools builds the allocation profile only when the header counts
  // trace functions (a trace_node_id column alone is not enough).
  const traced = Boolean(snapshot.profile.snapshot.trace_function_count);
  for (let i = 0; traced && i < snapshot.nodeCount && withStacks < STACKS; i++) {
    const nodeIndex = i * snapshot.nodeFieldCount;
    const frames = snapshot.allocationStack(nodeIndex);
    if (!frames || frames.length === 0) continue;
    withStacks++;
    stacks[snapshot.createNode(nodeIndex).id()] =
      frames.map((f) => `${f.functionName} ${f.scriptName}:${f.line}:${f.column}`);
  }

  const retainers = Object.create(null);
  const wanted = (process.env.SUMMARY_RETAINERS || '').split(',').filter(Boolean);
  for (const id of wanted) retainers[id] = retainerChain(snapshot, DevToolsAPI.HeapSnapshotModel, Number(id));

  return {
    result: {
      nodeCount: snapshot.nodeCount,
      edgeCount: snapshot.containmentEdges.length / snapshot.edgeFieldsCount,
      rootIndex: snapshot.rootNodeIndex,
      totalSize: snapshot.totalSize,
      classes,
      stacks,
      retainers,
    },
    problems,
  };
}

// retainerChain follows DevTools' HeapSnapshotRetainingObjectNode: its
// retainers sorted by ('!edgeDistance' ascending, 'name' ascending), and
// expandRetainersChain(20) descending into the first while its distance is
// above 1 and below baseUnreachableDistance.
function retainerChain(snapshot, model, id) {
  const node = snapshot.nodeForSnapshotObjectId(id);
  if (!node) return null;
  const comparator = new model.ComparatorConfig('!edgeDistance', true, 'name', true);
  const chain = [];
  let nodeIndex = node.nodeIndex;
  for (let levels = 20; levels > 0; levels--) {
    const provider = snapshot.createRetainingEdgesProvider(nodeIndex);
    provider.sortAndRewind(comparator);
    const first = provider.serializeItemsRange(0, 1).items[0];
    if (!first) break;
    const d = first.node.distance;
    chain.push({
      id: first.node.id, name: first.node.name, nodeType: first.node.type,
      shown: shownText(first.node.type, first.node.name),
      edge: first.name, type: first.type, distance: d,
    });
    if (!(d > 1 && d < model.baseUnreachableDistance)) break;
    nodeIndex = first.node.nodeIndex;
  }
  return chain;
}

// shownText is the object cell of a row of the Retainers view for a node of a
// type and a name: strings and concatenated strings quoted, regular expressions
// between slashes, functions followed by "()", arrays by "[]" (one without a name
// is "(internal array)[]"), and a window's URL shortened to 40 characters (its
// scheme dropped, the middle cut). Sliced strings are shown as they are.
function shownText(type, name) {
  if (type === 'string' || type === 'concatenated string') return '"' + name + '"';
  if (type === 'regexp') return '/' + name + '/';
  if (type === 'closure') return name + '()';
  if (type === 'array') return name ? name + '[]' : '(internal array)[]';
  if (type === 'object' && name.startsWith('Window')) {
    const slash = name.indexOf('/');
    if (slash < 0) return name;
    let url = name.substring(slash + 1).trimStart().replace(/^(https|http|file):\/\//i, '');
    if (url.length > 40) url = url.substring(0, 20) + '\u2026' + url.substring(url.length - 19);
    return name.substring(0, slash + 2) + url;
  }
  return name;
}

function errText(e) {
  if (e instanceof Error) return e.message || String(e);
  return String(e);
}

if (!isMainThread) {
  summarize(workerData.file).then(
    (r) => parentPort.postMessage({ ok: true, ...r }),
    (e) => parentPort.postMessage({ ok: false, error: errText(e) }));
} else {
  main();
}

function runOne(file, timeoutSec) {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    const worker = new Worker(__filename, { workerData: { file } });
    const timer = setTimeout(() => {
      worker.terminate();
      done({ ok: false, error: `timed out after ${timeoutSec} s (SUMMARY_TIMEOUT)` });
    }, timeoutSec * 1000);
    worker.on('message', (m) => {
      done(m);
      worker.terminate();
    });
    worker.on('error', (e) => done({ ok: false, error: errText(e) }));
    worker.on('exit', (code) => done({ ok: false, error: `loader worker exited (code ${code}) without a result` }));
  });
}

async function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write('usage: node summary.js FILE.heapsnapshot [FILE ...]\n');
    process.exit(2);
  }
  const t = Number(process.env.SUMMARY_TIMEOUT || 120);
  const timeoutSec = Number.isFinite(t) && t > 0 ? t : 120;
  let failed = false;
  for (const file of files) {
    const r = await runOne(file, timeoutSec);
    const name = path.basename(file);
    if (r.ok) {
      for (const p of r.problems) process.stderr.write(`summary.js: ${name}: warning: ${p}\n`);
      process.stdout.write(JSON.stringify(r.result) + '\n');
    } else {
      failed = true;
      process.stderr.write(`summary.js: ${file}: ${r.error}\n`);
      process.stdout.write(JSON.stringify({ error: r.error }) + '\n');
    }
  }
  process.exitCode = failed ? 1 : 0;
}
