#!/usr/bin/env node
// irread.js: a second, independent reader of heapconv's IR (.heapir),
// written from ir/SPEC.md alone. It reads every record and every column of
// a stream, checks what the spec says must hold (record order, record
// fields, column bounds as values arrive, and the validation after the end
// record), and prints figures about what it read as one line of JSON.
//
//   node irread.js FILE.heapir [FILE2.heapir ...]
//
// One line per file, in argument order. A file that fails prints
// {"file": ..., "error": ...} instead and its message on stderr; the exit
// status is then 1 (2 for a usage error).
'use strict';

const fs = require('fs');
const { decodeMulti } = require('@msgpack/msgpack');

const KNOWN_VERSION = 5;
const U32MAX = 0xFFFFFFFFn;
const MAX_TABLE = 65536;

class IRError extends Error {}
function fail(msg) { throw new IRError(msg); }

// ---------------------------------------------------------------- values

const ascii = new TextDecoder('utf-8');
const strictUTF8 = new TextDecoder('utf-8', { fatal: true });

function validUTF8(b) {
  try { strictUTF8.decode(b); return true; } catch { return false; }
}
function isBytes(v) { return v instanceof Uint8Array; }
function typeOf(v) {
  if (v === null || v === undefined) return 'nil';
  if (isBytes(v)) return 'str';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
function isInt(v) { return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)); }

// Typed readers of a present value.
const T = {
  str(v, what, max) {
    if (!isBytes(v)) fail(`${what}: want a str, got ${typeOf(v)}`);
    if (max !== undefined && v.length > max) fail(`${what}: ${v.length} bytes, at most ${max}`);
    return v;
  },
  name(v, what, max) { return ascii.decode(T.str(v, what, max)); },
  int(v, what) {
    if (!isInt(v)) fail(`${what}: want an integer, got ${typeOf(v)}`);
    const n = BigInt(v);
    if (n < -(1n << 63n) || n >= 1n << 64n) fail(`${what}: ${n} out of the 64-bit range`);
    if (n >= 1n << 63n) fail(`${what}: ${n} does not fit a signed 64-bit integer`);
    return n;
  },
  uint(v, what) {
    if (!isInt(v)) fail(`${what}: want an integer, got ${typeOf(v)}`);
    const n = BigInt(v);
    if (n < 0n) fail(`${what}: negative (${n})`);
    return n;
  },
  index(v, what) {
    const n = T.uint(v, what);
    if (n > U32MAX) fail(`${what}: ${n} does not fit in 32 bits`);
    return n;
  },
  bool(v, what) {
    if (typeof v !== 'boolean') fail(`${what}: want a bool, got ${typeOf(v)}`);
    return v;
  },
  arr(v, what, max) {
    if (!Array.isArray(v)) fail(`${what}: want an array, got ${typeOf(v)}`);
    if (max !== undefined && v.length > max) fail(`${what}: ${v.length} entries, at most ${max}`);
    return v;
  },
  pair(v, what) {
    T.arr(v, what);
    if (v.length !== 2) fail(`${what}: ${v.length} elements, want 2`);
    return v;
  },
  map(v, what) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || isBytes(v)) fail(`${what}: want a map, got ${typeOf(v)}`);
    return v;
  },
};

// A record's map: keys it lacks take their zero value (SPEC "Record
// fields"); unknown keys are ignored.
class Fields {
  constructor(v, what) {
    this.m = T.map(v, what);
    this.what = what;
    const keys = Object.keys(this.m);
    if (keys.length > MAX_TABLE) fail(`${what}: map of ${keys.length} entries`);
    for (const k of keys) if (Buffer.byteLength(k) > 256) fail(`${what}: key of more than 256 bytes`);
  }
  has(k) { return Object.prototype.hasOwnProperty.call(this.m, k); }
  get(k, type, zero, ...args) {
    if (!this.has(k)) return zero;
    return T[type](this.m[k], `${this.what}.${k}`, ...args);
  }
  raw(k) { return this.has(k) ? this.m[k] : undefined; }
}

// JSON values (V8 header and keys): nil, bool, numbers, str, arrays, maps;
// at most 64 enclosing containers, 2^20 entries a container.
function checkJSON(v, what, depth) {
  if (depth > 64) fail(`${what}: JSON nested deeper than 64`);
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' || isBytes(v)) return;
  if (Array.isArray(v)) {
    if (v.length > 1 << 20) fail(`${what}: JSON array of ${v.length} entries`);
    for (const e of v) checkJSON(e, what, depth + 1);
    return;
  }
  if (typeof v === 'object') {
    const ks = Object.keys(v);
    if (ks.length > 1 << 20) fail(`${what}: JSON object of ${ks.length} keys`);
    for (const k of ks) checkJSON(v[k], what, depth + 1);
    return;
  }
  fail(`${what}: not a JSON value (${typeOf(v)})`);
}

// ---------------------------------------------------------------- columns

// Column storage: raw unsigned 64-bit values, appended chunk by chunk.
class Column {
  constructor(name, spec) {
    this.name = name;
    this.spec = spec;
    this.vals = new BigUint64Array(16);
    this.len = 0;
    this.storage = null; // 'col' | 'zeros'
    this.bytes = null; // Uint8Array for byte columns
  }
  grow(n) {
    if (this.len + n <= this.vals.length) return;
    let cap = this.vals.length * 2;
    while (cap < this.len + n) cap *= 2;
    const v = new BigUint64Array(cap);
    v.set(this.vals.subarray(0, this.len));
    this.vals = v;
  }
  values() { return this.vals.subarray(0, this.len); }
}

function zigzag(u) { return (u >> 1n) ^ -(u & 1n); }

function colSum(c) {
  let s = 0n;
  const v = c.values();
  if (c.spec.signed) for (let i = 0; i < v.length; i++) s += zigzag(v[i]);
  else for (let i = 0; i < v.length; i++) s += v[i];
  return s;
}

// The column catalogue (SPEC "Columns"). Each entry: width (8, 32, 64),
// signed, bool, bytes (a byte column), zeros (may use zeros records),
// bound(r, s) → the most values the column may hold now (BigInt) or null,
// need(r, s, x) → throws when the column may not exist here.
const FILE_COLS = {};
const SNAP_COLS = {};
const len = (c) => (c ? BigInt(c.len) : 0n);
const sumOf = (c) => (c ? colSum(c) : 0n);

function fileCol(name, width, opts = {}) { FILE_COLS[name] = Object.assign({ width }, opts); }
function snapCol(name, width, opts = {}) { SNAP_COLS[name] = Object.assign({ width }, opts); }

const needMoarVM = (r, s, x) => { if (!r.moarvm) fail(`${x}: no moarvm record`); };
const needFuchsia = (r, s, x) => { if (!r.fuchsia) fail(`${x}: no fuchsia record`); };
const byFile = (leader) => (r) => len(r.fileCols.get(leader));
const bySnap = (leader) => (r, s) => len(s.cols.get(leader));

fileCol('class.name', 32);
fileCol('class.library', 32, { bound: byFile('class.name') });
fileCol('class.field_count', 32, { bound: byFile('class.name') });
fileCol('class.field_name', 32);
fileCol('moarvm.frame.name', 32, { need: needMoarVM });
for (const f of ['cuid', 'line', 'file']) fileCol('moarvm.frame.' + f, 32, { need: needMoarVM, bound: byFile('moarvm.frame.name') });
function fuchsiaTable(prefix, fields) {
  const lead = prefix + fields[0][0];
  fields.forEach(([f, width, opts], i) => {
    fileCol(prefix + f, width, Object.assign({ need: needFuchsia }, i === 0 ? {} : { bound: byFile(lead) }, opts || {}));
  });
}
fuchsiaTable('fuchsia.mapping.', [['id', 64], ['start', 64], ['limit', 64], ['offset', 64], ['file', 32], ['build_id', 32], ['flags', 8]]);
fuchsiaTable('fuchsia.function.', [['id', 64], ['name', 32], ['system_name', 32], ['filename', 32], ['start_line', 64, { signed: true }]]);
fuchsiaTable('fuchsia.location.', [['id', 64], ['mapping', 32], ['address', 64], ['folded', 8, { bool: true }],
  ['line_count', 32, { need: (r, s, x) => { needFuchsia(r, s, x); if (!r.fuchsia.columns.has('fuchsia.location.line_count')) fail(`${x}: not listed in the fuchsia record's columns`); } }]]);
fuchsiaTable('fuchsia.line.', [['function', 32], ['line', 64, { signed: true }], ['column', 64, { signed: true }]]);
fileCol('fuchsia.sample.snapshot', 32, { need: needFuchsia });

const byNodes = bySnap('node.kind');
const byEdges = bySnap('edge.kind');
const listed = (name) => (r, s, x) => { if (!s.columns.has(name)) fail(`${x}: not listed in the snapshot record's columns`); };
snapCol('node.kind', 8, { bound: (r, s) => s.nodes });
snapCol('edge.kind', 8, { bound: (r, s) => s.edges });
snapCol('node.name', 32, { zeros: true, bound: byNodes });
snapCol('node.class', 32, { zeros: true, bound: byNodes, need: listed('node.class') });
snapCol('node.id', 64, { zeros: true, bound: byNodes });
snapCol('node.self_size', 64, { zeros: true, bound: byNodes });
snapCol('node.external_size', 64, { zeros: true, bound: byNodes, need: listed('node.external_size') });
snapCol('node.edge_count', 32, { zeros: true, bound: byNodes });
snapCol('edge.name', 32, { zeros: true, bound: byEdges });
snapCol('edge.target', 32, { zeros: true, bound: byEdges });
snapCol('root.node', 32, { bound: (r, s) => s.roots });
snapCol('root.category', 32, { bound: (r, s) => s.roots });
snapCol('value.node', 32, { bound: (r, s) => { const n = len(s.cols.get('node.kind')); return n < s.values ? n : s.values; } });
snapCol('value.kind', 8, { bound: bySnap('value.node') });
snapCol('value.bits', 64, { bound: bySnap('value.node') });
snapCol('value.aux', 64, { bound: bySnap('value.node') });

const needV8 = (r, s, x) => { if (!s.v8) fail(`${x}: no v8 record`); };
for (const c of ['v8.trace_function_infos', 'v8.trace_tree', 'v8.samples', 'v8.locations']) snapCol(c, 64, { need: needV8 });
const V8_NODE = { width: 64, zeros: true, bound: byNodes };
const V8_EDGE = { width: 64, zeros: true, bound: byEdges };

const needDart = (r, s, x) => { if (!s.dart) fail(`${x}: no dart record`); };
const byClasses = (r) => len(r.fileCols.get('class.name'));
const byFields = (r) => len(r.fileCols.get('class.field_name'));
snapCol('dart.class.flags', 64, { need: needDart, bound: byClasses });
snapCol('dart.class.uri', 32, { need: needDart, bound: byClasses });
snapCol('dart.class.reserved', 32, { need: needDart, bound: byClasses });
snapCol('dart.field.flags', 64, { need: needDart, bound: byFields });
snapCol('dart.field.index', 64, { need: needDart, bound: byFields });
snapCol('dart.field.reserved', 32, { need: needDart, bound: byFields });
snapCol('dart.zero_ref.node', 32, { need: needDart });
snapCol('dart.zero_ref.slot', 32, { need: needDart, bound: bySnap('dart.zero_ref.node') });
snapCol('dart.external.node', 32, { need: needDart });
snapCol('dart.external.size', 64, { need: needDart, bound: bySnap('dart.external.node') });
snapCol('dart.external.name', 32, { need: needDart, bound: bySnap('dart.external.node') });

const needMoarVMSnap = (r, s, x) => { if (!s.moarvm) fail(`${x}: no moarvm.snapshot record`); };
const needHighscores = (r, s, x) => { needMoarVMSnap(r, s, x); if (!s.moarvm.highscores) fail(`${x}: highscores is false`); };
snapCol('moarvm.node.tofi', 64, { zeros: true, bound: byNodes, need: needMoarVMSnap });
snapCol('moarvm.node.ref_start', 64, { zeros: true, bound: byNodes, need: needMoarVMSnap });
snapCol('moarvm.top.ids', 64, { need: needHighscores });
snapCol('moarvm.top.scores', 64, { need: needHighscores, bound: bySnap('moarvm.top.ids') });

const needFx = (r, s, x) => { if (!s.fuchsia) fail(`${x}: no fuchsia.snapshot record`); };
const fxListed = (name) => (r, s, x) => { needFx(r, s, x); if (!s.fuchsia.columns.has(name)) fail(`${x}: ${name} is not listed in the fuchsia.snapshot record's columns`); };
const FX_NODE = { zeros: true, bound: byNodes, need: needFx };
snapCol('fuchsia.node.count', 64, FX_NODE);
snapCol('fuchsia.node.flags', 8, FX_NODE);
snapCol('fuchsia.node.stack', 32, FX_NODE);
snapCol('fuchsia.node.timestamp', 64, Object.assign({}, FX_NODE, { signed: true, need: fxListed('fuchsia.node.timestamp') }));
snapCol('fuchsia.node.thread', 32, Object.assign({}, FX_NODE, { need: fxListed('fuchsia.node.thread') }));
snapCol('fuchsia.node.label_count', 32, Object.assign({}, FX_NODE, { need: fxListed('fuchsia.node.label_count') }));
snapCol('fuchsia.node.contents_size', 64, Object.assign({}, FX_NODE, { need: fxListed('fuchsia.node.contents_size') }));
snapCol('fuchsia.extra.value', 64, { signed: true, need: needFx,
  bound: (r, s) => len(s.cols.get('node.kind')) * BigInt(r.fuchsia ? Math.max(r.fuchsia.sampleTypes.length - 2, 0) : 0) });
snapCol('fuchsia.thread.name', 32, { need: needFx });
snapCol('fuchsia.thread.koid', 64, { need: needFx, bound: bySnap('fuchsia.thread.name') });
snapCol('fuchsia.thread.bare', 8, { bool: true, need: needFx, bound: bySnap('fuchsia.thread.name') });
snapCol('fuchsia.stack.size', 32, { need: fxListed('fuchsia.stack.size') });
snapCol('fuchsia.stack.location', 32, { need: fxListed('fuchsia.stack.size') });
snapCol('fuchsia.label.key', 32, { need: needFx });
for (const [f, w, o] of [['numeric', 8, { bool: true }], ['str', 32], ['num', 64, { signed: true }], ['unit', 32]]) {
  snapCol('fuchsia.label.' + f, w, Object.assign({ need: needFx, bound: bySnap('fuchsia.label.key') }, o || {}));
}
snapCol('fuchsia.contents', 8, { bytes: true, need: fxListed('fuchsia.node.contents_size'),
  bound: (r, s) => sumOf(s.cols.get('fuchsia.node.contents_size')) });

const needStream = (r, s, x) => {
  needFx(r, s, x);
  if (r.version < 5) fail(`${x}: stream details in a version ${r.version} stream (version 5 added them)`);
  if (!s.fuchsia.stream) fail(`${x}: the fuchsia.snapshot record has no stream: true`);
};
const stream = (name, width, opts = {}) => snapCol('fuchsia.stream.' + name, width, Object.assign({ need: needStream }, opts));
const byStream = (lead) => bySnap('fuchsia.stream.' + lead);
stream('records', 8);
stream('alloc_fields', 8, { zeros: true, bound: byNodes });
stream('stack_key', 64, { bound: bySnap('fuchsia.stack.size') });
stream('stack_chunk_stack', 32);
stream('stack_chunk_size', 32, { bound: byStream('stack_chunk_stack') });
stream('thread_key', 64, { bound: bySnap('fuchsia.thread.name') });
stream('region_mapping', 32);
stream('region_fields', 8, { bound: byStream('region_mapping') });
stream('region_vaddr', 64, { bound: byStream('region_mapping') });
stream('contents_chunk_node', 32);
stream('contents_chunk_size', 32, { bound: byStream('contents_chunk_node') });
stream('orphan_address', 64);
stream('orphan_contents', 8, { bytes: true, bound: (r, s) => orphanSum(s) });
stream('unknown_record', 32);
stream('unknown_ordinal', 64, { bound: byStream('unknown_record') });
stream('unknown_size', 32, { bound: byStream('unknown_record'),
  need: (r, s, x) => { needStream(r, s, x); fxListed('fuchsia.stream.unknown_size')(r, s, x); } });
stream('unknown_bytes', 8, { bytes: true, bound: (r, s) => sumOf(s.cols.get('fuchsia.stream.unknown_size')),
  need: (r, s, x) => { needStream(r, s, x); fxListed('fuchsia.stream.unknown_size')(r, s, x); } });

function orphanSum(s) {
  const node = s.cols.get('fuchsia.stream.contents_chunk_node');
  const size = s.cols.get('fuchsia.stream.contents_chunk_size');
  let sum = 0n;
  if (node && size) for (let i = 0; i < size.len; i++) if (node.vals[i] === U32MAX) sum += size.vals[i];
  return sum;
}

// ---------------------------------------------------------------- reader

const SECTION_RECORDS = ['v8', 'dart', 'moarvm.snapshot', 'fuchsia.snapshot'];

class Reader {
  constructor() {
    this.version = 0;
    this.last = null; // type of the previous record
    this.ended = false;
    this.records = {};
    this.strings = [];
    this.file = null;
    this.moarvm = null;
    this.fuchsia = null;
    this.snaps = [];
    this.fileCols = new Map();
  }

  header(v) {
    if (!Array.isArray(v) || v.length !== 2 || !isBytes(v[0]) || ascii.decode(v[0]) !== 'heapir') {
      fail('not a heapir stream: the header is not ["heapir", VERSION]');
    }
    const ver = T.int(v[1], 'header version');
    if (ver > BigInt(KNOWN_VERSION)) fail(`IR schema version ${ver} is newer than this reader knows (up to ${KNOWN_VERSION})`);
    if (ver < 1n) fail(`IR schema version ${ver} does not exist`);
    this.version = Number(ver);
  }

  record(v) {
    if (this.ended) fail('data after the end record');
    T.arr(v, 'record');
    if (v.length < 2) fail(`record of ${v.length} elements`);
    const t = T.name(v[0], 'record type', 16);
    if (this.ended) fail(`${t} record after the end record`);
    if (!this.file && t !== 'file') fail(`${t} record before the file record`);
    const layout = { file: 2, moarvm: 2, fuchsia: 2, strings: 2, snapshot: 2, v8: 2, dart: 2,
      'moarvm.snapshot': 2, 'fuchsia.snapshot': 2, col: 5, zeros: 4, end: 2 };
    if (!(t in layout)) fail(`unknown record type ${JSON.stringify(t)}`);
    if (v.length !== layout[t]) fail(`${t} record of ${v.length} elements, want ${layout[t]}`);
    const gate = { dart: 2, moarvm: 3, 'moarvm.snapshot': 3, fuchsia: 4, 'fuchsia.snapshot': 4 };
    if (gate[t] && this.version < gate[t]) fail(`${t} record in a version ${this.version} stream (version ${gate[t]} added it)`);
    this.records[t] = (this.records[t] || 0) + 1;
    switch (t) {
      case 'file': this.rFile(v[1]); break;
      case 'moarvm': this.rMoarVM(v[1]); break;
      case 'fuchsia': this.rFuchsia(v[1]); break;
      case 'strings': this.rStrings(v[1]); break;
      case 'snapshot': this.rSnapshot(v[1]); break;
      case 'col': this.rCol(v); break;
      case 'zeros': this.rZeros(v); break;
      case 'end': this.rEnd(v[1]); break;
      default: this.rSection(t, v[1]);
    }
    this.last = t;
  }

  rFile(m) {
    if (this.file) fail('second file record');
    const f = new Fields(m, 'file');
    this.file = {
      format: f.get('format', 'str', new Uint8Array(0), 64),
      formatVersion: f.get('format_version', 'str', new Uint8Array(0), 4096),
      producer: f.get('producer', 'str', new Uint8Array(0), 4096),
      strings: f.get('strings', 'uint', 0n),
      classes: f.get('classes', 'uint', 0n),
      snapshots: f.get('snapshots', 'uint', 0n),
    };
    if (this.file.strings > U32MAX) fail(`file: ${this.file.strings} strings, at most 2^32-1`);
  }

  rMoarVM(m) {
    if (this.last !== 'file') fail('moarvm record not right after the file record');
    const f = new Fields(m, 'moarvm');
    const mv = {
      version: f.get('version', 'int', 0n),
      hasMeta: f.get('has_meta', 'bool', false),
      subversion: f.get('subversion', 'uint', 0n),
      startTime: f.get('start_time', 'uint', 0n),
      pid: f.get('pid', 'uint', 0n),
      hasPID: f.get('has_pid', 'bool', false),
      entryCount: f.get('entry_count', 'uint', 0n),
      dataOrder: f.get('data_order', 'arr', [], MAX_TABLE).map((s, i) => T.str(s, `moarvm.data_order[${i}]`)),
      stringCount: f.get('string_count', 'uint', 0n),
      tocs: [],
      recovery: null,
    };
    if (mv.stringCount > this.file.strings) fail(`moarvm: a string heap of ${mv.stringCount} strings, the file declares ${this.file.strings}`);
    const maxTocs = Number(this.file.snapshots < BigInt(2 ** 31 - 2) ? this.file.snapshots : BigInt(2 ** 31 - 2)) + 1;
    f.get('tocs', 'arr', [], maxTocs).forEach((t, i) => {
      const x = `moarvm.tocs[${i}]`;
      T.arr(t, x);
      if (t.length !== 4) fail(`${x}: ${t.length} elements, want 4`);
      mv.tocs.push({
        strings: T.index(t[0], x + ' new_strings'), types: T.index(t[1], x + ' new_types'),
        frames: T.index(t[2], x + ' new_frames'),
        blocks: T.arr(t[3], x + ' blocks', MAX_TABLE).map((s, j) => T.str(s, `${x} block ${j}`)),
      });
    });
    const rec = f.raw('recovery');
    if (rec !== undefined && rec !== null) {
      const r = new Fields(rec, 'moarvm.recovery');
      mv.recovery = { damageAt: r.get('damage_at', 'int', 0n), reason: r.get('reason', 'str', new Uint8Array(0)), lost: r.get('lost', 'int', 0n) };
      if (mv.recovery.lost < 0n || mv.recovery.lost > 2147483647n) fail(`moarvm.recovery.lost: ${mv.recovery.lost}`);
    }
    this.moarvm = mv;
  }

  rFuchsia(m) {
    if (this.last !== 'file' && this.last !== 'moarvm') fail('fuchsia record not right after the file record (or the moarvm record)');
    const f = new Fields(m, 'fuchsia');
    const vt = (p, x) => { T.pair(p, x); return [T.index(p[0], x + ' type'), T.index(p[1], x + ' unit')]; };
    const fx = {
      gzip: f.get('gzip', 'bool', false),
      sampleTypes: f.get('sample_types', 'arr', [], MAX_TABLE).map((p, i) => vt(p, `fuchsia.sample_types[${i}]`)),
      defaultSampleType: f.get('default_sample_type', 'index', 0n),
      dropFrames: f.get('drop_frames', 'index', 0n),
      keepFrames: f.get('keep_frames', 'index', 0n),
      docURL: f.get('doc_url', 'index', 0n),
      comments: f.get('comments', 'arr', [], MAX_TABLE).map((c, i) => T.index(c, `fuchsia.comments[${i}]`)),
      timeNanos: f.get('time_nanos', 'int', 0n),
      durationNanos: f.get('duration_nanos', 'int', 0n),
      periodType: f.has('period_type') ? vt(f.raw('period_type'), 'fuchsia.period_type') : [0n, 0n],
      period: f.get('period', 'int', 0n),
      columns: new Set(),
    };
    for (const c of f.get('columns', 'arr', [], MAX_TABLE)) fx.columns.add(T.name(c, 'fuchsia.columns', 256)); // unknown names ignored
    this.fuchsia = fx;
  }

  rStrings(a) {
    T.arr(a, 'strings', 16384);
    if (BigInt(this.strings.length + a.length) > this.file.strings) fail(`more strings than the ${this.file.strings} declared`);
    // Any bytes: strings are not checked (SPEC "The model").
    for (const s of a) this.strings.push(T.str(s, `string ${this.strings.length}`));
  }

  cur() { return this.snaps.length ? this.snaps[this.snaps.length - 1] : null; }

  rSnapshot(m) {
    if (BigInt(this.snaps.length) >= this.file.snapshots) fail(`more snapshots than the ${this.file.snapshots} declared`);
    const i = this.snaps.length;
    const w = `snapshot ${i}`;
    const f = new Fields(m, w);
    const s = {
      index: i,
      name: f.get('name', 'index', 0n),
      captureTime: f.get('capture_time', 'int', 0n),
      totals: f.get('totals', 'arr', [], MAX_TABLE).map((t, j) => {
        T.pair(t, `${w} totals[${j}]`);
        return [T.str(t[0], `${w} totals[${j}] name`, 256), T.uint(t[1], `${w} totals[${j}] value`)];
      }),
      nodeKinds: f.get('node_kinds', 'arr', [], 256).map((k, j) => T.str(k, `${w} node_kinds[${j}]`, 1024)),
      edgeKinds: f.get('edge_kinds', 'arr', [], 256).map((k, j) => {
        const x = `${w} edge_kinds[${j}]`;
        T.pair(k, x);
        return { name: T.str(k[0], x, 1024), indexed: T.bool(k[1], x) };
      }),
      root: f.get('root', 'int', -1n),
      nodes: f.get('nodes', 'uint', 0n),
      edges: f.get('edges', 'uint', 0n),
      values: f.get('values', 'uint', 0n),
      roots: f.get('roots', 'uint', 0n),
      columns: new Set(f.get('columns', 'arr', [], MAX_TABLE).map((c) => T.name(c, w + ' columns', 256))),
      cols: new Map(),
      sections: new Set(),
      v8: null, dart: null, moarvm: null, fuchsia: null,
    };
    if (s.nodes > 0xFFFFFFFEn) fail(`${w}: ${s.nodes} nodes, at most 2^32-2`);
    if (s.edges > U32MAX) fail(`${w}: ${s.edges} edges, at most 2^32-1`);
    if (s.root < -1n || s.root >= U32MAX) fail(`${w}: root ${s.root}`);
    this.snaps.push(s);
  }

  rSection(t, m) {
    const s = this.cur();
    if (!s) fail(`${t} record without a snapshot`);
    if (s.sections.has(t)) fail(`second ${t} record for snapshot ${s.index}`);
    if (s.cols.has('node.kind') && s.cols.get('node.kind').len > 0) fail(`${t} record after the snapshot's first node.kind value`);
    if (t === 'fuchsia.snapshot' && !['snapshot', 'v8', 'dart', 'moarvm.snapshot'].includes(this.last)) {
      fail('fuchsia.snapshot record not right after its snapshot record or another section record');
    }
    s.sections.add(t);
    const f = new Fields(m, t);
    switch (t) {
      case 'v8': {
        const header = T.map(f.has('header') ? f.raw('header') : null, 'v8.header');
        checkJSON(header, 'v8.header', 0);
        const keys = f.get('keys', 'arr', [], MAX_TABLE).map((k, i) => {
          T.pair(k, `v8.keys[${i}]`);
          if (k[1] !== null) checkJSON(k[1], `v8.keys[${i}]`, 0);
          return [T.name(k[0], `v8.keys[${i}]`), k[1]];
        });
        const layout = T.name(f.has('layout') ? f.raw('layout') : new Uint8Array(0), 'v8.layout', 64);
        if (!['compact', 'rows', 'other'].includes(layout)) fail(`unknown v8 layout ${JSON.stringify(layout)}`);
        const escape = T.name(f.has('escape') ? f.raw('escape') : new Uint8Array(0), 'v8.escape', 64);
        if (!['v8', 'raw'].includes(escape)) fail(`unknown v8 escape style ${JSON.stringify(escape)}`);
        s.v8 = {
          header, keys, layout, escape,
          nodeExtra: f.get('node_extra', 'arr', [], 256).map((n, i) => T.name(n, `v8.node_extra[${i}]`, 1024)),
          edgeExtra: f.get('edge_extra', 'arr', [], 256).map((n, i) => T.name(n, `v8.edge_extra[${i}]`, 1024)),
        };
        break;
      }
      case 'dart':
        s.dart = {
          flags: f.get('flags', 'uint', 0n), referenceCount: f.get('reference_count', 'uint', 0n),
          identityHashes: f.get('identity_hashes', 'bool', false), padding: f.get('padding', 'uint', 0n),
        };
        break;
      case 'moarvm.snapshot':
        s.moarvm = {
          hasMeta: f.get('has_meta', 'bool', false), snapTime: f.get('snap_time', 'uint', 0n),
          gcSeqNum: f.get('gc_seq_num', 'uint', 0n), highscores: f.get('highscores', 'bool', false),
        };
        break;
      case 'fuchsia.snapshot': {
        const fx = {
          hasProcessName: f.get('has_process_name', 'bool', false),
          processName: f.get('process_name', 'index', 0n),
          hasProcessKoid: f.get('has_process_koid', 'bool', false),
          processKoid: f.get('process_koid', 'int', 0n),
          derivedEdges: f.get('derived_edges', 'bool', false),
          stream: f.get('stream', 'bool', false),
          columns: new Set(f.get('columns', 'arr', [], MAX_TABLE).map((c) => T.name(c, 'fuchsia.snapshot.columns', 256))),
        };
        if (fx.stream && this.version < 5) fail(`fuchsia.snapshot stream: true in a version ${this.version} stream`);
        if (fx.columns.has('fuchsia.stream.unknown_size') && this.version < 5) fail(`fuchsia.stream.unknown_size listed in a version ${this.version} stream`);
        s.fuchsia = fx;
        break;
      }
    }
  }

  // The column a col/zeros record appends to.
  column(snapIdx, colName, storage) {
    const x = `column ${colName} (snapshot ${snapIdx})`;
    let c, spec, s = null;
    if (snapIdx === -1n) {
      spec = FILE_COLS[colName];
      if (!spec) fail(`${x}: unknown file column`);
      if (spec.need) spec.need(this, null, x);
      c = this.fileCols.get(colName);
      if (!c) { c = new Column(colName, spec); this.fileCols.set(colName, c); }
    } else {
      if (snapIdx !== BigInt(this.snaps.length - 1)) fail(`${x}: the current snapshot is ${this.snaps.length - 1}`);
      s = this.snaps[Number(snapIdx)];
      spec = SNAP_COLS[colName];
      if (!spec && s.v8) {
        if (colName.startsWith('v8.node.') && s.v8.nodeExtra.includes(colName.slice(8))) spec = V8_NODE;
        if (colName.startsWith('v8.edge.') && s.v8.edgeExtra.includes(colName.slice(8))) spec = V8_EDGE;
      }
      if (!spec) fail(`${x}: unknown column`);
      if (spec.need) spec.need(this, s, x);
      c = s.cols.get(colName);
      if (!c) { c = new Column(colName, spec); s.cols.set(colName, c); }
    }
    if (storage === 'zeros' && !spec.zeros) fail(`${x}: cannot be stored as zeros`);
    if (c.storage && c.storage !== storage) fail(`${x}: mixes zeros records and value chunks`);
    c.storage = storage;
    return { c, s, x };
  }

  checkBound(c, s, x, more) {
    if (!c.spec.bound) return;
    const b = c.spec.bound(this, s);
    if (BigInt(c.len) + BigInt(more) > b) fail(`${x}: ${BigInt(c.len) + BigInt(more)} values, its table bounds it to ${b}`);
  }

  rCol(v) {
    const snapIdx = T.int(v[1], 'col snapshot');
    const colName = T.name(v[2], 'col column', 1100);
    const width = T.uint(v[3], 'col width');
    const bin = v[4];
    if (!isBytes(bin)) fail(`col ${colName}: bin is ${typeOf(bin)}`);
    const { c, s, x } = this.column(snapIdx, colName, 'col');
    if (![1n, 2n, 4n, 8n].includes(width)) fail(`${x}: width ${width}`);
    const w = Number(width);
    if (c.spec.bytes) {
      if (w !== 1 || bin.length > 65536) fail(`${x}: a byte chunk of ${bin.length} bytes of width ${w} (width 1, at most 65536 bytes)`);
    } else if (bin.length > 512 * 1024 || bin.length % w !== 0) {
      fail(`${x}: chunk of ${bin.length} bytes (width ${w}, at most 512 KiB)`);
    }
    const n = bin.length / w;
    this.checkBound(c, s, x, n);
    c.grow(n);
    const dv = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
    const max = c.spec.bool ? 1n : c.spec.width === 8 ? 0xFFn : c.spec.width === 32 ? U32MAX : null;
    for (let i = 0; i < n; i++) {
      let u;
      switch (w) {
        case 1: u = BigInt(dv.getUint8(i)); break;
        case 2: u = BigInt(dv.getUint16(2 * i, true)); break;
        case 4: u = BigInt(dv.getUint32(4 * i, true)); break;
        default: u = dv.getBigUint64(8 * i, true);
      }
      if (max !== null && u > max) fail(`${x}: value ${u} out of range (at most ${max})`);
      c.vals[c.len++] = u;
    }
  }

  rZeros(v) {
    const snapIdx = T.int(v[1], 'zeros snapshot');
    const colName = T.name(v[2], 'zeros column', 1100);
    const count = T.uint(v[3], 'zeros count');
    if (count > 65536n) fail(`zeros record of ${count} values (at most 65536)`);
    const { c, s, x } = this.column(snapIdx, colName, 'zeros');
    this.checkBound(c, s, x, count);
    c.grow(Number(count));
    c.len += Number(count); // new BigUint64Array space is zero
  }

  rEnd(m) {
    const f = new Fields(m, 'end');
    const ns = f.get('strings', 'uint', 0n);
    const nsn = f.get('snapshots', 'uint', 0n);
    if (ns !== BigInt(this.strings.length) || ns !== this.file.strings) {
      fail(`the stream holds ${this.strings.length} strings; the file record declared ${this.file.strings} and the end record ${ns}`);
    }
    if (nsn !== BigInt(this.snaps.length) || nsn !== this.file.snapshots) {
      fail(`the stream holds ${this.snaps.length} snapshots; the file record declared ${this.file.snapshots} and the end record ${nsn}`);
    }
    this.ended = true;
  }

  // ------------------------------------------------------------ validation

  finish() {
    if (!this.ended) fail('the stream ends without an end record');
    const v = new Validator(this);
    v.file();
    for (const s of this.snaps) v.snapshot(s);
    return this.output();
  }

  // ------------------------------------------------------------ output

  output() {
    const colsOut = (m) => {
      const out = {};
      for (const k of [...m.keys()].sort()) {
        const c = m.get(k);
        if (c.len === 0) continue;
        const sec = k.split('.')[0];
        (out[sec] = out[sec] || {})[k] = { count: c.len, sum: colSum(c).toString() };
      }
      return out;
    };
    const sum = (s, k) => { const c = s.cols.get(k); return c ? colSum(c).toString() : '0'; };
    return {
      version: this.version,
      strings: this.strings.length,
      classes: this.fileCols.has('class.name') ? this.fileCols.get('class.name').len : 0,
      records: Object.fromEntries(Object.entries(this.records).sort()),
      file_columns: colsOut(this.fileCols),
      snapshots: this.snaps.map((s) => ({
        nodes: Number(s.nodes),
        edges: Number(s.edges),
        values: Number(s.values),
        roots: Number(s.roots),
        self_size: sum(s, 'node.self_size'),
        external_size: sum(s, 'node.external_size'),
        classes: this.fileCols.has('class.name') ? this.fileCols.get('class.name').len : 0,
        sections: colsOut(s.cols),
      })),
    };
  }
}

// The checks after the end record (SPEC "Validation" and the sections).
class Validator {
  constructor(r) {
    this.r = r;
    this.S = BigInt(r.strings.length);
    this.classes = len(r.fileCols.get('class.name'));
  }
  vals(m, k) { const c = m.get(k); return c ? c.values() : new BigUint64Array(0); }
  L(m, k) { return len(m.get(k)); }
  sum(m, k) { return sumOf(m.get(k)); }
  need(m, k, n, what) { if (this.L(m, k) !== n) fail(`${what}: column ${k} has ${this.L(m, k)} values for ${n}`); }
  below(m, k, lim, what, opts = {}) {
    const v = this.vals(m, k);
    for (let i = 0; i < v.length; i++) {
      const u = v[i];
      if (opts.sentinel !== undefined && u === opts.sentinel) continue;
      if (opts.oneBased ? u > lim : u >= lim) fail(`${what}: ${k}[${i}] = ${u} out of range (${lim})`);
    }
  }
  str(u, what) { if (u >= this.S) fail(`${what}: string ${u} out of range (${this.S} strings)`); }
  strCol(m, k, what) { this.below(m, k, this.S, what); }
  string(u) { return this.r.strings[Number(u)]; }

  file() {
    const r = this.r, FC = r.fileCols;
    // Classes.
    if (r.file.classes !== this.classes) fail(`file record: ${r.file.classes} classes, class.name has ${this.classes}`);
    this.need(FC, 'class.library', this.classes, 'class table');
    if (FC.has('class.field_count') || this.classes > 0n) {
      this.need(FC, 'class.field_count', this.classes, 'class table');
      if (this.sum(FC, 'class.field_count') !== this.L(FC, 'class.field_name')) fail('class table: field counts do not sum to the field names');
    } else if (this.L(FC, 'class.field_name') > 0n) fail('class table: field names without classes');
    for (const k of ['class.name', 'class.library', 'class.field_name']) this.strCol(FC, k, 'class table');
    if (r.moarvm) this.moarvmFile();
    if (r.fuchsia) this.fuchsiaFile();
  }

  moarvmFile() {
    const r = this.r, FC = r.fileCols, mv = r.moarvm;
    if (mv.version !== 2n && mv.version !== 3n) fail(`moarvm: format version ${mv.version} (2 and 3 exist)`);
    const nf = this.L(FC, 'moarvm.frame.name');
    for (const k of ['moarvm.frame.cuid', 'moarvm.frame.line', 'moarvm.frame.file']) this.need(FC, k, nf, 'moarvm frames');
    for (const k of ['moarvm.frame.name', 'moarvm.frame.cuid', 'moarvm.frame.file']) this.strCol(FC, k, 'moarvm frames');
    if (mv.tocs.length !== 0 && mv.tocs.length !== r.snaps.length + 1) fail(`moarvm: ${mv.tocs.length} TOCs for ${r.snaps.length} snapshots`);
    if (BigInt(mv.dataOrder.length) * mv.entryCount > 4096n) fail('moarvm: more than 4096 highscore entries');
    const cn = this.vals(FC, 'class.name'), cl = this.vals(FC, 'class.library');
    const fn = this.vals(FC, 'moarvm.frame.name'), fc = this.vals(FC, 'moarvm.frame.cuid'), ff = this.vals(FC, 'moarvm.frame.file');
    let s = 0n, t = 0n, fr = 0n;
    for (const [k, toc] of mv.tocs.entries()) {
      s += toc.strings;
      if (s > this.S || t + toc.types > this.classes || fr + toc.frames > nf) { s = -1n; break; }
      for (let i = t; i < t + toc.types; i++) {
        if (cn[Number(i)] >= s || cl[Number(i)] >= s) fail(`moarvm: type ${i}, added by TOC ${k}, names a string a later TOC adds`);
      }
      for (let i = fr; i < fr + toc.frames; i++) {
        const j = Number(i);
        if (fn[j] >= s || fc[j] >= s || ff[j] >= s) fail(`moarvm: frame ${i}, added by TOC ${k}, names a string a later TOC adds`);
      }
      t += toc.types; fr += toc.frames;
    }
    if (mv.tocs.length && (s !== mv.stringCount || t !== this.classes || fr !== nf)) {
      fail('moarvm: the TOCs do not add up to the string heap, the types and the frames');
    }
  }

  fuchsiaFile() {
    const r = this.r, FC = r.fileCols, fx = r.fuchsia;
    for (const [a, b] of fx.sampleTypes) { this.str(a, 'fuchsia sample type'); this.str(b, 'fuchsia sample type'); }
    if (fx.sampleTypes.length < 2) fail(`fuchsia: ${fx.sampleTypes.length} sample types (at least 2)`);
    for (const u of [fx.defaultSampleType, fx.dropFrames, fx.keepFrames, fx.docURL, ...fx.periodType, ...fx.comments]) this.str(u, 'fuchsia profile field');
    const table = (p, fields) => {
      const n = this.L(FC, p + fields[0]);
      for (const f of fields.slice(1)) this.need(FC, p + f, n, 'fuchsia ' + p);
      return n;
    };
    this.nMappings = table('fuchsia.mapping.', ['id', 'start', 'limit', 'offset', 'file', 'build_id', 'flags']);
    this.nFunctions = table('fuchsia.function.', ['id', 'name', 'system_name', 'filename', 'start_line']);
    this.nLocations = table('fuchsia.location.', ['id', 'mapping', 'address', 'folded']);
    this.nLines = table('fuchsia.line.', ['function', 'line', 'column']);
    for (const k of ['fuchsia.mapping.file', 'fuchsia.mapping.build_id', 'fuchsia.function.name',
      'fuchsia.function.system_name', 'fuchsia.function.filename']) this.strCol(FC, k, 'fuchsia');
    if (fx.columns.has('fuchsia.location.line_count') || this.nLocations > 0n) {
      if (!fx.columns.has('fuchsia.location.line_count')) fail('fuchsia: locations without line counts');
      this.need(FC, 'fuchsia.location.line_count', this.nLocations, 'fuchsia locations');
      if (this.sum(FC, 'fuchsia.location.line_count') !== this.nLines) fail('fuchsia: line counts do not sum to the lines');
    } else if (this.nLines > 0n) fail('fuchsia: lines without locations');
    this.below(FC, 'fuchsia.location.mapping', this.nMappings, 'fuchsia locations', { oneBased: true });
    for (const u of this.vals(FC, 'fuchsia.line.function')) if (u === 0n || u > this.nFunctions) fail(`fuchsia: line function ${u} out of range`);
    for (const t of ['mapping', 'function', 'location']) {
      const seen = new Set();
      for (const u of this.vals(FC, `fuchsia.${t}.id`)) {
        if (u === 0n) fail(`fuchsia: a ${t} has the reserved id 0`);
        if (seen.has(u)) fail(`fuchsia: ${t} id ${u} twice`);
        seen.add(u);
      }
    }
    // Streams across the file.
    const withStream = r.snaps.filter((s) => s.fuchsia && s.fuchsia.stream).length;
    if (withStream) {
      if (withStream !== r.snaps.length) fail(`fuchsia stream: ${withStream} of ${r.snaps.length} snapshots have stream details`);
      const multi = r.snaps[0].fuchsia.hasProcessName;
      const used = new Array(Number(this.nMappings)).fill(false);
      for (const s of r.snaps) {
        if (s.fuchsia.hasProcessName !== multi || s.fuchsia.hasProcessKoid !== multi) fail('fuchsia stream: process labels on some snapshots only');
        for (const mi of this.vals(s.cols, 'fuchsia.stream.region_mapping')) {
          if (mi >= this.nMappings) fail(`fuchsia stream: region mapping ${mi} out of range`);
          if (used[Number(mi)]) fail(`fuchsia stream: mapping ${mi} is the region of two snapshots`);
          used[Number(mi)] = true;
        }
      }
      if (!multi && r.snaps.length !== 1) fail('fuchsia stream: a single-process stream holds one snapshot');
      if (used.some((u) => !u)) fail('fuchsia stream: a mapping is no snapshot\'s region');
      if (this.L(FC, 'fuchsia.sample.snapshot') > 0n) fail('fuchsia stream: samples interleaved');
    }
    if (this.L(FC, 'fuchsia.sample.snapshot') > 0n) {
      const per = new Array(r.snaps.length).fill(0n);
      for (const u of this.vals(FC, 'fuchsia.sample.snapshot')) {
        if (u >= BigInt(r.snaps.length)) fail(`fuchsia.sample.snapshot: ${u} out of range`);
        per[Number(u)]++;
      }
      r.snaps.forEach((s, i) => { if (per[i] !== s.nodes) fail(`fuchsia: snapshot ${i} has ${s.nodes} nodes, ${per[i]} samples`); });
    }
  }

  snapshot(s) {
    const C = s.cols, w = `snapshot ${s.index}`, n = s.nodes;
    this.str(s.name, w + ' name');
    for (const k of ['node.kind', 'node.name', 'node.id', 'node.self_size', 'node.edge_count']) this.need(C, k, n, w);
    for (const k of s.columns) if (k === 'node.class' || k === 'node.external_size') this.need(C, k, n, w);
    for (const k of ['edge.kind', 'edge.name', 'edge.target']) this.need(C, k, s.edges, w);
    for (const k of ['root.node', 'root.category']) this.need(C, k, s.roots, w);
    for (const k of ['value.node', 'value.kind', 'value.bits', 'value.aux']) this.need(C, k, s.values, w);
    if (this.sum(C, 'node.edge_count') !== s.edges) fail(`${w}: node.edge_count sums to ${this.sum(C, 'node.edge_count')}, ${s.edges} edges`);
    this.below(C, 'node.kind', BigInt(s.nodeKinds.length), w);
    this.strCol(C, 'node.name', w);
    this.below(C, 'node.class', this.classes, w, { oneBased: true });
    this.below(C, 'edge.kind', BigInt(s.edgeKinds.length), w);
    this.below(C, 'edge.target', n, w);
    {
      const kinds = this.vals(C, 'edge.kind'), names = this.vals(C, 'edge.name');
      for (let i = 0; i < kinds.length; i++) {
        if (!s.edgeKinds[Number(kinds[i])].indexed && names[i] >= this.S) fail(`${w}: edge ${i}: name string ${names[i]} out of range`);
      }
    }
    if (s.root !== -1n && s.root >= n) fail(`${w}: root ${s.root} out of range`);
    this.below(C, 'root.node', n, w);
    this.strCol(C, 'root.category', w);
    {
      const node = this.vals(C, 'value.node'), kind = this.vals(C, 'value.kind'), bits = this.vals(C, 'value.bits');
      for (let i = 0; i < node.length; i++) {
        if (node[i] >= n || (i > 0 && node[i] <= node[i - 1])) fail(`${w}: value ${i}: node ${node[i]} out of range or out of order`);
        if (kind[i] < 1n || kind[i] > 6n) fail(`${w}: value ${i}: unknown kind ${kind[i]}`);
        if (kind[i] === 1n && bits[i] >= this.S) fail(`${w}: value ${i}: string ${bits[i]} out of range`);
      }
    }
    if (s.v8) this.v8(s, w);
    if (s.dart) this.dart(s, w);
    if (s.moarvm) this.moarvm(s, w);
    if (s.fuchsia) this.fuchsia(s, w);
  }

  v8(s, w) {
    const C = s.cols;
    for (const f of s.v8.nodeExtra) this.need(C, 'v8.node.' + f, s.nodes, w);
    for (const f of s.v8.edgeExtra) this.need(C, 'v8.edge.' + f, s.edges, w);
    const meta = s.v8.header.meta;
    const fields = (k) => {
      if (!meta || typeof meta !== 'object' || Array.isArray(meta) || isBytes(meta) || !Array.isArray(meta[k])) return [];
      return meta[k].map((x) => (isBytes(x) ? ascii.decode(x) : ''));
    };
    const lf = fields('location_fields');
    const loc = this.vals(C, 'v8.locations');
    if (lf.length && loc.length) {
      if (loc.length % lf.length !== 0) fail(`${w}: ${loc.length} location values, not a multiple of ${lf.length}`);
      lf.forEach((f, j) => {
        if (f !== 'object_index' && f !== 'script_object_index') return;
        for (let i = j; i < loc.length; i += lf.length) if (loc[i] >= s.nodes) fail(`${w}: location ${f} ${loc[i]} out of range`);
      });
    }
    // The trace tree's shape (the spec asks a reader to check it; heapconv's
    // does not).
    const tt = this.vals(C, 'v8.trace_tree');
    if (tt.length) {
      const own = fields('trace_node_fields').length - 1;
      if (own < 0) fail(`${w}: v8.trace_tree without meta.trace_node_fields`);
      let pos = 0;
      const take = () => { if (pos >= tt.length) fail(`${w}: v8.trace_tree ends inside a node`); return tt[pos++]; };
      const stack = [take()];
      while (stack.length) {
        if (stack[stack.length - 1] === 0n) { stack.pop(); continue; }
        stack[stack.length - 1]--;
        for (let i = 0; i < own; i++) take();
        stack.push(take());
      }
      if (pos !== tt.length) fail(`${w}: v8.trace_tree has ${tt.length - pos} values past its tree`);
    }
  }

  dart(s, w) {
    const C = s.cols, d = s.dart, FC = this.r.fileCols;
    if (this.L(C, 'node.class') !== s.nodes) fail(`${w}: dart: every object has a class`);
    if (d.padding >= 1048055n || (d.padding > 0n && !d.identityHashes)) fail(`${w}: dart: ${d.padding} bytes of padding`);
    const nf = this.L(FC, 'class.field_name');
    for (const k of ['dart.class.flags', 'dart.class.uri', 'dart.class.reserved']) this.need(C, k, this.classes, w);
    for (const k of ['dart.field.flags', 'dart.field.index', 'dart.field.reserved']) this.need(C, k, nf, w);
    for (const k of ['dart.class.uri', 'dart.class.reserved', 'dart.field.reserved', 'dart.external.name']) this.strCol(C, k, w);
    const nz = this.L(C, 'dart.zero_ref.node');
    this.need(C, 'dart.zero_ref.slot', nz, w);
    const refs = s.edges + nz;
    if (d.referenceCount < refs || d.referenceCount > U32MAX) fail(`${w}: dart: referenceCount ${d.referenceCount} for ${refs} references`);
    const zn = this.vals(C, 'dart.zero_ref.node'), zs = this.vals(C, 'dart.zero_ref.slot');
    for (let i = 0; i < zn.length; i++) {
      if (zn[i] >= s.nodes) fail(`${w}: dart: zero reference ${i}: node out of range`);
      if (i > 0 && (zn[i] < zn[i - 1] || (zn[i] === zn[i - 1] && zs[i] <= zs[i - 1]))) fail(`${w}: dart: zero reference ${i} out of order`);
    }
    const ne = this.L(C, 'dart.external.node');
    for (const k of ['dart.external.size', 'dart.external.name']) this.need(C, k, ne, w);
    this.below(C, 'dart.external.node', s.nodes, w);
  }

  moarvm(s, w) {
    const C = s.cols, m = s.moarvm, mv = this.r.moarvm;
    if (!mv) fail(`${w}: moarvm.snapshot without the file's moarvm record`);
    for (const k of ['moarvm.node.tofi', 'moarvm.node.ref_start']) this.need(C, k, s.nodes, w);
    const ids = this.L(C, 'moarvm.top.ids');
    if (this.L(C, 'moarvm.top.scores') !== ids) fail(`${w}: moarvm: ${ids} top ids, ${this.L(C, 'moarvm.top.scores')} scores`);
    if (!m.highscores && ids) fail(`${w}: moarvm: highscores without highscores: true`);
    if (ids > 0n && ids !== BigInt(mv.dataOrder.length) * mv.entryCount) fail(`${w}: moarvm: ${ids} highscore entries`);
    const nTypes = this.classes, nFrames = this.L(this.r.fileCols, 'moarvm.frame.name');
    const kinds = this.vals(C, 'node.kind'), tofi = this.vals(C, 'moarvm.node.tofi');
    const cls = C.has('node.class') ? this.vals(C, 'node.class') : null;
    for (let i = 0; i < kinds.length; i++) {
      const k = kinds[i], tf = tofi[i];
      let want = 0n;
      if (k >= 1n && k <= 3n) {
        if (tf >= nTypes) fail(`${w}: moarvm: collectable ${i}: type ${tf} out of range`);
        want = tf + 1n;
      } else if (k === 4n && tf >= nFrames) fail(`${w}: moarvm: collectable ${i}: frame ${tf} out of range`);
      if (cls && cls.length && cls[i] !== want) fail(`${w}: moarvm: collectable ${i}: class ${cls[i]}, TOFI ${tf}`);
    }
    // Reference ranges tile the edges.
    const ec = this.vals(C, 'node.edge_count'), rs = this.vals(C, 'moarvm.node.ref_start');
    const ranges = [];
    for (let i = 0; i < ec.length; i++) {
      if (ec[i] === 0n) continue;
      if (rs[i] > s.edges || ec[i] > s.edges - rs[i]) fail(`${w}: moarvm: collectable ${i}: references beyond the edges`);
      ranges.push([rs[i], rs[i] + ec[i]]);
    }
    ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (let i = 1; i < ranges.length; i++) if (ranges[i][0] < ranges[i - 1][1]) fail(`${w}: moarvm: reference ranges overlap`);
  }

  fuchsia(s, w) {
    const C = s.cols, fx = s.fuchsia, n = s.nodes, FC = this.r.fileCols;
    if (!this.r.fuchsia) fail(`${w}: fuchsia.snapshot without the file's fuchsia record`);
    if (fx.hasProcessName) this.str(fx.processName, `${w} process name`);
    for (const k of ['fuchsia.node.count', 'fuchsia.node.flags', 'fuchsia.node.stack']) this.need(C, k, n, w);
    for (const k of ['fuchsia.node.timestamp', 'fuchsia.node.thread', 'fuchsia.node.label_count', 'fuchsia.node.contents_size']) {
      if (fx.columns.has(k)) this.need(C, k, n, w);
    }
    this.need(C, 'fuchsia.extra.value', n * BigInt(this.r.fuchsia.sampleTypes.length - 2), w);
    const nt = this.L(C, 'fuchsia.thread.name');
    for (const k of ['fuchsia.thread.koid', 'fuchsia.thread.bare']) this.need(C, k, nt, w);
    this.strCol(C, 'fuchsia.thread.name', w);
    this.below(C, 'fuchsia.node.thread', nt, w, { oneBased: true });
    // Stacks.
    let nStacks = 0n;
    if (fx.columns.has('fuchsia.stack.size')) {
      nStacks = this.L(C, 'fuchsia.stack.size');
      if (this.sum(C, 'fuchsia.stack.size') !== this.L(C, 'fuchsia.stack.location')) fail(`${w}: stack sizes do not sum to the stack frames`);
    } else if (n > 0n || this.L(C, 'fuchsia.stack.location') > 0n) fail(`${w}: nodes or stack frames without a stack table`);
    this.below(C, 'fuchsia.stack.location', this.nLocations, w);
    this.below(C, 'fuchsia.node.stack', nStacks, w);
    // Labels.
    const nl = this.L(C, 'fuchsia.label.key');
    for (const k of ['fuchsia.label.numeric', 'fuchsia.label.str', 'fuchsia.label.num', 'fuchsia.label.unit']) this.need(C, k, nl, w);
    if (fx.columns.has('fuchsia.node.label_count')) {
      if (this.sum(C, 'fuchsia.node.label_count') !== nl) fail(`${w}: label counts do not sum to the labels`);
    } else if (nl > 0n) fail(`${w}: labels without label counts`);
    for (const k of ['fuchsia.label.key', 'fuchsia.label.str', 'fuchsia.label.unit']) this.strCol(C, k, w);
    // Flags and contents.
    const flags = this.vals(C, 'fuchsia.node.flags'), self = this.vals(C, 'node.self_size');
    let anyContents = false;
    for (const f of flags) {
      if (f & ~15n) fail(`${w}: unknown node flags ${f}`);
      if ((f & 4n) && !fx.columns.has('fuchsia.node.timestamp')) fail(`${w}: a timestamp flag without the timestamp column`);
      if (f & 8n) anyContents = true;
    }
    if (fx.columns.has('fuchsia.node.contents_size')) {
      const cs = this.vals(C, 'fuchsia.node.contents_size');
      if (this.sum(C, 'fuchsia.node.contents_size') !== this.L(C, 'fuchsia.contents')) fail(`${w}: contents sizes do not sum to the contents bytes`);
      for (let i = 0; i < cs.length; i++) {
        const want = flags[i] & 8n ? self[i] : 0n;
        if (cs[i] !== want) fail(`${w}: node ${i}: ${cs[i]} contents bytes, want ${want}`);
      }
    } else if (anyContents) fail(`${w}: nodes flagged with contents, but there are none`);
    if (s.edges > 0n && !fx.derivedEdges) fail(`${w}: edges without derived_edges`);
    if (fx.stream) this.stream(s, w, nStacks, nt);
  }

  stream(s, w, nStacks, nt) {
    const C = s.cols, fx = s.fuchsia, n = s.nodes, FC = this.r.fileCols;
    const V = (k) => this.vals(C, 'fuchsia.stream.' + k);
    const Ls = (k) => this.L(C, 'fuchsia.stream.' + k);
    w += ' stream';
    const rec = V('records');
    const count = new Map();
    let prevEnd = true;
    rec.forEach((u, i) => {
      if (u === 128n) { if (prevEnd) fail(`${w}: record ${i}: an empty batch`); prevEnd = true; }
      else if (u >= 1n && u <= 5n) prevEnd = false;
      else fail(`${w}: record ${i}: unknown kind ${u}`);
      count.set(u, (count.get(u) || 0n) + 1n);
    });
    if (!prevEnd) fail(`${w}: the last batch has no end`);
    const cnt = (k) => count.get(k) || 0n;
    for (const [k, have, what] of [[1n, n, 'nodes'], [2n, Ls('stack_chunk_stack'), 'stack chunks'], [3n, Ls('region_mapping'), 'regions'],
      [4n, Ls('contents_chunk_node'), 'contents chunks'], [5n, nt, 'threads']]) {
      if (cnt(k) !== have) fail(`${w}: ${cnt(k)} records of kind ${k} for ${have} ${what}`);
    }
    if (this.L(C, 'fuchsia.label.key') > 0n || this.L(C, 'fuchsia.extra.value') > 0n) fail(`${w}: labels or extra values in a stream`);
    // Allocations.
    this.need(C, 'fuchsia.stream.alloc_fields', n, w);
    const af = V('alloc_fields'), flags = this.vals(C, 'fuchsia.node.flags'), ids = this.vals(C, 'node.id');
    const thr = this.vals(C, 'fuchsia.node.thread'), counts = this.vals(C, 'fuchsia.node.count');
    const addrs = new Set();
    for (let i = 0; i < af.length; i++) {
      const a = af[i], f = flags[i];
      if (a & ~0x3Fn) fail(`${w}: node ${i}: unknown allocation field bits`);
      if ((a & 6n) !== 6n) fail(`${w}: node ${i}: an Allocation has a size and a stack trace key`);
      if (((a & 1n) !== 0n) !== ((f & 1n) !== 0n)) fail(`${w}: node ${i}: address field and flag disagree`);
      if (!(a & 1n) && ids[i] !== 0n) fail(`${w}: node ${i}: an id without an address`);
      if (((a & 8n) !== 0n) !== ((f & 4n) !== 0n)) fail(`${w}: node ${i}: timestamp field and flag disagree`);
      if (((a & 16n) !== 0n) !== (thr.length > 0 && thr[i] !== 0n)) fail(`${w}: node ${i}: thread key field and thread disagree`);
      if (!(a & 32n) && counts[i] !== 1n) fail(`${w}: node ${i}: a count without a count field`);
      if (!(f & 2n)) fail(`${w}: node ${i}: no bytes label`);
      if (f & 1n) {
        if (addrs.has(ids[i])) fail(`${w}: node ${i}: a second allocation at ${ids[i]}`);
        addrs.add(ids[i]);
      }
    }
    // Stacks.
    this.need(C, 'fuchsia.stream.stack_key', nStacks, w);
    this.need(C, 'fuchsia.stream.stack_chunk_size', Ls('stack_chunk_stack'), w);
    if (new Set(V('stack_key')).size !== V('stack_key').length) fail(`${w}: a stack key twice`);
    const filled = new Array(Number(nStacks)).fill(0n);
    let next = 0n;
    const cs = V('stack_chunk_stack'), cz = V('stack_chunk_size');
    for (let c = 0; c < cs.length; c++) {
      const k = cs[c];
      if (k > next || k >= nStacks) fail(`${w}: stack chunk ${c}: stack ${k} out of order`);
      if (k === next) next++;
      filled[Number(k)] += cz[c];
    }
    const ssz = this.vals(C, 'fuchsia.stack.size');
    for (let k = 0; k < Number(nStacks); k++) {
      if (BigInt(k) >= next) fail(`${w}: stack ${k} has no chunk`);
      if (filled[k] !== ssz[k]) fail(`${w}: stack ${k}: chunks of ${filled[k]} addresses for ${ssz[k]} frames`);
    }
    // Threads.
    this.need(C, 'fuchsia.stream.thread_key', nt, w);
    if (new Set(V('thread_key')).size !== V('thread_key').length) fail(`${w}: a thread key twice`);
    const tn = this.vals(C, 'fuchsia.thread.name'), bare = this.vals(C, 'fuchsia.thread.bare');
    const shortUTF8 = (b) => b.length <= 32 && validUTF8(b);
    for (let t = 0; t < tn.length; t++) {
      if (bare[t]) fail(`${w}: thread ${t} is bare`);
      if (!shortUTF8(this.string(tn[t]))) fail(`${w}: thread ${t}: name is not UTF-8 of at most 32 bytes`);
    }
    if (fx.hasProcessName && !shortUTF8(this.string(fx.processName))) fail(`${w}: process name is not UTF-8 of at most 32 bytes`);
    // Regions.
    const nr = Ls('region_mapping');
    for (const k of ['region_fields', 'region_vaddr']) this.need(C, 'fuchsia.stream.' + k, nr, w);
    const rm = V('region_mapping'), rf = V('region_fields'), rv = V('region_vaddr');
    const mfile = this.vals(FC, 'fuchsia.mapping.file'), mbuild = this.vals(FC, 'fuchsia.mapping.build_id');
    const mflags = this.vals(FC, 'fuchsia.mapping.flags'), mstart = this.vals(FC, 'fuchsia.mapping.start');
    const starts = new Set();
    for (let i = 0; i < rm.length; i++) {
      const mi = Number(rm[i]);
      if (rm[i] >= this.nMappings) fail(`${w}: region ${i}: mapping out of range`);
      if ((rf[i] & ~0x3Fn) || (rf[i] & 15n) !== 15n) fail(`${w}: region ${i}: field bits ${rf[i]}`);
      if (!(rf[i] & 16n) && rv[i] !== 0n) fail(`${w}: region ${i}: a vaddr without a vaddr field`);
      const nameB = this.string(mfile[mi]);
      if (!(rf[i] & 32n) && mfile[mi] !== 0n && nameB.length) fail(`${w}: region ${i}: a name without a name field`);
      if ((rf[i] & 32n) && !validUTF8(nameB)) fail(`${w}: region ${i}: name is not UTF-8`);
      const id = ascii.decode(this.string(mbuild[mi]));
      if (id.length > 64 || id.length % 2 || !/^[0-9a-f]*$/.test(id)) fail(`${w}: region ${i}: build id ${id}`);
      if (mflags[mi] !== 0n) fail(`${w}: region ${i}: mapping has symbolization flags`);
      if (starts.has(mstart[mi])) fail(`${w}: region ${i}: a second region at ${mstart[mi]}`);
      starts.add(mstart[mi]);
    }
    // Contents chunks.
    this.need(C, 'fuchsia.stream.contents_chunk_size', Ls('contents_chunk_node'), w);
    const ccn = V('contents_chunk_node'), ccs = V('contents_chunk_size'), oa = V('orphan_address');
    const got = new Map();
    let orphans = 0, orphanBytes = 0n;
    for (let c = 0; c < ccn.length; c++) {
      const node = ccn[c];
      if (node === U32MAX) {
        if (orphans >= oa.length) fail(`${w}: contents chunk ${c}: more orphan chunks than addresses`);
        if (addrs.has(oa[orphans])) fail(`${w}: contents chunk ${c}: an orphan at an allocation's address`);
        orphans++;
        orphanBytes += ccs[c];
        continue;
      }
      if (node >= n) fail(`${w}: contents chunk ${c}: node out of range`);
      if (!(flags[Number(node)] & 8n)) fail(`${w}: contents chunk ${c}: node ${node} has no contents`);
      got.set(node, (got.get(node) || 0n) + ccs[c]);
    }
    if (orphans !== oa.length || orphanBytes !== Ls('orphan_contents')) fail(`${w}: orphan chunks disagree with their addresses and bytes`);
    const self = this.vals(C, 'node.self_size');
    for (let i = 0; i < flags.length; i++) {
      if (!(flags[i] & 8n)) continue;
      if (!got.has(BigInt(i)) || got.get(BigInt(i)) !== self[i]) fail(`${w}: node ${i}: contents chunks do not make its block`);
      if (!(flags[i] & 1n)) fail(`${w}: node ${i}: contents without an address`);
    }
    // Unknown fields.
    const nu = Ls('unknown_record');
    this.need(C, 'fuchsia.stream.unknown_ordinal', nu, w);
    let sizes = null;
    if (fx.columns.has('fuchsia.stream.unknown_size')) {
      this.need(C, 'fuchsia.stream.unknown_size', nu, w);
      if (this.sum(C, 'fuchsia.stream.unknown_size') !== Ls('unknown_bytes')) fail(`${w}: unknown field sizes do not sum to their bytes`);
      sizes = V('unknown_size');
    } else if (nu > 0n) fail(`${w}: unknown fields without sizes`);
    const ur = V('unknown_record'), uo = V('unknown_ordinal');
    const knownOf = { 1: 6, 2: 2, 3: 6, 4: 2, 5: 3 };
    for (let k = 0; k < ur.length; k++) {
      let known;
      if (ur[k] === U32MAX) {
        if (!fx.hasProcessName) fail(`${w}: unknown field ${k}: a SnapshotHeader field without a header`);
        known = 2n;
      } else if (ur[k] < BigInt(rec.length)) {
        known = BigInt(knownOf[Number(rec[Number(ur[k])])] || 0);
        if (!known) fail(`${w}: unknown field ${k}: record ${ur[k]} is not an element`);
      } else fail(`${w}: unknown field ${k}: record ${ur[k]} out of range`);
      if (uo[k] <= known || uo[k] > 64n) fail(`${w}: unknown field ${k}: ordinal ${uo[k]}`);
      if (k > 0 && (ur[k] < ur[k - 1] || (ur[k] === ur[k - 1] && uo[k] <= uo[k - 1]))) fail(`${w}: unknown field ${k}: out of order`);
      const size = sizes[k];
      if (size !== 4n && (size === 0n || size % 8n !== 0n)) fail(`${w}: unknown field ${k}: ${size} payload bytes`);
    }
  }
}

function readFile(path) {
  const buf = fs.readFileSync(path);
  if (buf.length >= 4 && buf[0] === 0x28 && buf[1] === 0xB5 && buf[2] === 0x2F && buf[3] === 0xFD) {
    fail('zstd-compressed (.heapir.zst): decompress it first (zstd -d)');
  }
  const r = new Reader();
  let first = true;
  // rawStrings: IR strings are bytes (WTF-8 or anything), never decoded.
  for (const v of decodeMulti(buf, { rawStrings: true, useBigInt64: true })) {
    if (first) { r.header(v); first = false; continue; }
    r.record(v);
  }
  if (first) fail('empty stream');
  return r.finish();
}

function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write('usage: node irread.js FILE.heapir [FILE2.heapir ...]\n');
    process.exit(2);
  }
  let status = 0;
  for (const f of files) {
    let out;
    try {
      out = Object.assign({ file: f }, readFile(f));
    } catch (e) {
      const msg = e instanceof IRError ? e.message : (e && e.message) || String(e);
      process.stderr.write(`${f}: ${msg}\n`);
      if (!(e instanceof IRError) && !(e instanceof RangeError) && e && e.stack) process.stderr.write(e.stack + '\n');
      out = { file: f, error: msg };
      status = 1;
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
  process.exit(status);
}

main();
