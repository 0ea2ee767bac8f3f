#!/usr/bin/env node
// irread.js: a second, independent reader of heapconv's IR (.heapir),
// schema version 8 (and version 7 streams), written from ir/SPEC.md alone.
// It reads every record and every column of a stream generically, driven
// by the column declarations the stream carries (it knows the core, not
// the formats' sections), checks what the spec says a reader must check
// (record order and layouts, field types, declarations, column bounds as
// values arrive, the end-of-stream lengths and the validation after the
// end record, a series' origins included), reconstructs the columns of
// snapshots stored against a base, and prints figures about what it read
// as one line of JSON.
//
//   node irread.js FILE.heapir [FILE2.heapir ...]
//
// One line per file, in argument order. A file that fails prints
// {"file": ..., "error": ...} instead and its message on stderr; the exit
// status is then 1 (2 for a usage error).
'use strict';

const fs = require('fs');
const { Decoder, DecodeError, ExtData } = require('@msgpack/msgpack');

const VERSION = 8; // the newest schema version this reader reads
const MIN_VERSION = 7; // the oldest (versions 1 to 6 are refused)
const SERIES_VERSION = 8; // the first version with series (origin.string, origin.class)
const BASE_VERSION = 8; // the first version with snapshots stored against a base (base, based, node.base)
const U8MAX = 0xFF;
const U32MAX = 0xFFFFFFFF;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_LIST = 65536; // totals, fields, declarations (SPEC "Limits a reader enforces")
const MAX_KINDS = 256; // node and edge kind tables
const MAX_DEPTH = 64; // containers a structured value nests
const MAX_ENTRIES = 1 << 20; // entries of one container of a structured value
const MAX_CHUNK = 512 * 1024; // bytes of a col chunk
const MAX_BYTE_CHUNK = 65536; // bytes of a byte chunk (a bytes column's col record)
const MAX_ZEROS = 65536; // values of a zeros record
const MAX_STRINGS_RECORD = 16384; // strings of a strings record

class IRError extends Error {}
function fail(msg) { throw new IRError(msg); }

// ---------------------------------------------------------------- msgpack

// The library's decoder, told apart a little more than it does by itself:
// a float that holds an integer is a plain JS number like any integer, and
// the spec needs the difference (a uint field is a msgpack integer, not a
// float), so floats are returned as MsgFloat. This overrides two methods of
// the pinned version's Decoder (3.1.3); the check below fails loudly should
// they ever go away. (With rawStrings a str and a bin are both
// Uint8Arrays, which is what the spec asks: either is taken for the other.)
class MsgFloat {
  constructor(v) { this.value = v; }
}
for (const m of ['readF32', 'readF64']) {
  if (typeof Decoder.prototype[m] !== 'function') {
    throw new Error(`@msgpack/msgpack: Decoder.prototype.${m} is gone; irread.js needs the pinned version (package.json)`);
  }
}
class IRDecoder extends Decoder {
  readF32() { return new MsgFloat(super.readF32()); }
  readF64() { return new MsgFloat(super.readF64()); }
}

// Extension values are none of the IR's types; keep them as ExtData (never
// decoded, so that a malformed timestamp in a skipped key does no harm) and
// refuse them where a value is read.
const rawExtensions = {
  decode: (data, type) => new ExtData(type, data),
  encode: () => null,
};

const utf8 = new TextDecoder('utf-8'); // lossy, for messages and output only

// Map keys: the library decodes a str key as text (whatever rawStrings
// says). A bin key is taken as the text of its bytes. Any other key (the
// IR's maps have str keys) becomes a Symbol, which Object.keys() does not
// list: a map that must be read refuses it (hasOtherKeys), one that is
// skipped (an unknown key's value in a core record) is skipped whatever it
// holds.
function mapKey(k) {
  if (typeof k === 'string') return k;
  if (k instanceof Uint8Array) {
    const s = utf8.decode(k);
    if (s === '__proto__') throw new DecodeError('The key __proto__ is not allowed');
    return s;
  }
  return Symbol(`a ${typeOf(k)} key`);
}
function hasOtherKeys(m) { return Object.getOwnPropertySymbols(m).length > 0; }

function decoderOptions() {
  // rawStrings: IR strings are bytes (WTF-8 or anything), never decoded.
  return { rawStrings: true, useBigInt64: true, extensionCodec: rawExtensions, mapKeyConverter: mapKey };
}

// ---------------------------------------------------------------- values

function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
function isBytes(v) { return v instanceof Uint8Array; } // a str or a bin
function isInt(v) { return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)); }
function isMap(v) { return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype; }
function typeOf(v) {
  if (v === null || v === undefined) return 'nil';
  if (isBytes(v)) return 'str or bin';
  if (v instanceof MsgFloat) return 'float';
  if (v instanceof ExtData) return 'ext';
  if (Array.isArray(v)) return 'array';
  if (isMap(v)) return 'map';
  if (isInt(v)) return 'integer';
  return typeof v;
}

// A name (record type, column, table, section): its bytes as a JS string of
// one char per byte, so that distinct byte strings stay distinct; text()
// shows it (as UTF-8) in messages and output.
function key(b) { return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1'); }
function text(k) { return Buffer.from(k, 'latin1').toString('utf8'); }
const q = (k) => JSON.stringify(text(k));

// Typed readers of a present value (SPEC "Fields": the types).
const T = {
  str(v, what, max) {
    if (!isBytes(v)) fail(`${what}: want a str, got ${typeOf(v)}`);
    if (max !== undefined && v.length > max) fail(`${what}: ${v.length} bytes, at most ${max}`);
    return v;
  },
  name(v, what, max) { return key(T.str(v, what, max)); },
  int(v, what) {
    if (!isInt(v)) fail(`${what}: want an integer, got ${typeOf(v)}`);
    const n = BigInt(v);
    if (n >= 1n << 63n) fail(`${what}: ${n} is out of the signed 64-bit range`);
    return n;
  },
  uint(v, what) {
    if (!isInt(v)) fail(`${what}: want an integer, got ${typeOf(v)}`);
    const n = BigInt(v);
    if (n < 0n) fail(`${what}: want a non-negative integer, got ${n}`);
    return n;
  },
  index(v, what) {
    const n = T.uint(v, what);
    if (n > BigInt(U32MAX)) fail(`${what}: ${n} does not fit in 32 bits`);
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
  tuple(v, what, n) {
    T.arr(v, what);
    if (v.length !== n) fail(`${what}: ${v.length} elements, want ${n}`);
    return v;
  },
  map(v, what) {
    if (!isMap(v)) fail(`${what}: want a map, got ${typeOf(v)}`);
    return v;
  },
};

// A record's fields: a map of str keys (at most 65536, of at most 256 bytes
// each). A key the record lacks takes its zero value; get() reads the keys
// a core record knows, and done() checks that the others, skipped, hold
// values (SPEC "Unknown data").
class Fields {
  constructor(v, what) {
    this.m = T.map(v, what);
    this.what = what;
    const keys = Object.keys(this.m);
    if (hasOtherKeys(this.m)) fail(`${what}: a map key is not a str`);
    if (keys.length > MAX_LIST) fail(`${what}: a map of ${keys.length} entries, at most ${MAX_LIST}`);
    for (const k of keys) if (Buffer.byteLength(k) > 256) fail(`${what}: a key of more than 256 bytes`);
    this.read = new Set();
  }
  has(k) { return own(this.m, k); }
  get(k, type, zero, ...args) {
    this.read.add(k);
    if (!this.has(k)) return zero;
    return T[type](this.m[k], `${this.what} ${k}`, ...args);
  }
  raw(k) { return this.has(k) ? this.m[k] : undefined; }
  done() {
    for (const k of Object.keys(this.m)) if (!this.read.has(k)) checkValue(this.m[k], `${this.what} ${k}`, 0);
  }
}

// A structured value (type `value`): nil, bool, integers, floats, str or
// bin, and arrays and maps of values; no value inside more than 64
// containers, no container of more than 2^20 entries. depth: the
// containers around v.
function checkValue(v, what, depth) {
  if (depth > MAX_DEPTH) fail(`${what}: nested deeper than ${MAX_DEPTH} containers`);
  if (v === null || typeof v === 'boolean' || isInt(v) || v instanceof MsgFloat || isBytes(v)) return;
  let entries;
  if (Array.isArray(v)) entries = v;
  else if (isMap(v)) {
    if (hasOtherKeys(v)) fail(`${what}: a map key is not a str`);
    entries = Object.values(v);
  } else fail(`${what}: ${typeOf(v)} is not a value`);
  if (entries.length > MAX_ENTRIES) fail(`${what}: a container of ${entries.length} entries, at most ${MAX_ENTRIES}`);
  for (const e of entries) checkValue(e, what, depth + 1);
}

// ---------------------------------------------------------------- columns

// The column types (SPEC "Column declarations"): whether a declaration
// names a table `of`.
const TYPES = { uint: false, int: false, bytes: false, string: false, index: true, 'index+1': true, count: true };

// The core's columns (SPEC "The core's columns"), with the largest value
// each holds (8- and 32-bit columns; the others are 64-bit).
const CORE = {
  file: {
    'class.name': ['string', 'class', ''],
    'class.library': ['string', 'class', ''],
    'class.field_count': ['count', 'class', 'field'],
    'class.field_name': ['string', 'field', ''],
  },
  snapshot: {
    'node.kind': ['uint', 'node', ''],
    'edge.kind': ['uint', 'edge', ''],
    'node.name': ['string', 'node', ''],
    'node.class': ['index+1', 'node', 'class', 'optional'],
    'node.id': ['uint', 'node', ''],
    'node.self_size': ['uint', 'node', ''],
    'node.external_size': ['uint', 'node', '', 'optional'],
    'node.edge_count': ['count', 'node', 'edge'],
    'edge.name': ['uint', 'edge', ''],
    'edge.target': ['index', 'edge', 'node'],
    'root.node': ['index', 'root', 'node'],
    'root.category': ['string', 'root', ''],
    'value.node': ['index', 'value', 'node'],
    'value.kind': ['uint', 'value', ''],
    'value.bits': ['uint', 'value', ''],
    'value.aux': ['uint', 'value', ''],
    // A series' snapshot's origin (version 8 on): both or neither.
    'origin.string': ['string', 'origin.string', '', 'optional'],
    'origin.class': ['index', 'origin.class', 'class', 'optional'],
    // A snapshot stored against a base (version 8 on): exactly when it has one.
    'node.base': ['uint', 'node', '', 'optional'],
  },
};
// The core columns a version 8 stream added (SPEC "Versions").
const ORIGIN = ['origin.string', 'origin.class'];
const V8_COLUMNS = [...ORIGIN, 'node.base'];
const CORE_LIMIT = {
  'node.kind': U8MAX, 'edge.kind': U8MAX, 'value.kind': U8MAX,
  'node.name': U32MAX, 'node.class': U32MAX, 'node.edge_count': U32MAX, 'edge.name': U32MAX,
  'edge.target': U32MAX, 'class.name': U32MAX, 'class.library': U32MAX, 'class.field_count': U32MAX,
  'class.field_name': U32MAX, 'root.node': U32MAX, 'root.category': U32MAX, 'value.node': U32MAX,
  'origin.string': U32MAX, 'origin.class': U32MAX, 'node.base': U32MAX,
};
// The core columns whose values the validation reads entry by entry (the
// others are checked by their count, largest value and sum): always, and
// in a series' snapshot (whose references are checked against its origin,
// SPEC "Series"). The file's class columns are always kept: the file
// record comes before it is known whether the file is a series.
const CORE_KEPT = new Set(['edge.kind', 'edge.name', 'value.node', 'value.kind', 'value.bits',
  'class.name', 'class.library', 'class.field_count', 'class.field_name']);
const SERIES_KEPT = new Set(['node.name', 'node.class', 'root.category', 'origin.string', 'origin.class']);
// The snapshot's core tables, which the file's declarations may not name.
const SNAPSHOT_TABLES = ['node', 'edge', 'value', 'root'];

// A table: what its columns have one value per entry of. Its length is its
// declared count (the core's tables but `field`), else the length of its
// first column (0 without one): a count column that counts it must sum to
// that.
class Table {
  constructor(k, scope, declared) {
    this.key = k;
    this.scope = scope;
    this.declared = declared; // a Number, or null
    this.first = null; // the first column declared with it
    this.countedBy = null; // the count column that counts it (at most one)
  }
  length() {
    if (this.declared !== null) return this.declared;
    return this.first ? this.first.len : 0;
  }
  // The most values its first column may hold now (SPEC "Columns", bounds
  // as values arrive).
  // A count column of another scope (a snapshot's counting a file's table)
  // does not bound it.
  room() {
    if (this.declared !== null) return this.declared;
    if (this.countedBy && this.countedBy.scope === this.scope) return Number(this.countedBy.sum());
    return Infinity; // a free table grows as its bytes arrive
  }
}

// A column's kept values, in a typed array of the column's width: 8- and
// 32-bit ones exactly; 64-bit ones as doubles (exact up to 2^53-1, which
// is what the validation compares with its bounds), the exact values of
// the larger ones aside, so that get() gives every value exactly (a
// Number up to 2^53-1, else a BigInt): a base's values are added to.
class Store {
  constructor(limit) {
    this.T = limit === U8MAX ? Uint8Array : limit === U32MAX ? Uint32Array : Float64Array;
    this.a = new this.T(16);
    this.bigs = null; // index → BigInt, for the values from 2^53 up
  }
  set(i, u) {
    if (i >= this.a.length) {
      const a = new this.T(Math.max(this.a.length * 2, i + 1));
      a.set(this.a);
      this.a = a;
    }
    if (typeof u === 'bigint') {
      (this.bigs || (this.bigs = new Map())).set(i, u);
      this.a[i] = Number(u);
    } else this.a[i] = u;
  }
  get(i) {
    const x = this.a[i];
    return x > MAX_SAFE && this.bigs ? this.bigs.get(i) : x;
  }
}

// A declared column. Its values are not kept but when keep (CORE_KEPT,
// and what a series' origin is checked against, for the validation) or
// keepUntil (a base's columns that a later snapshot is stored against,
// until that snapshot is read; a snapshot's node.base and
// node.edge_count while it is read): a column keeps its length, its
// largest value and its sum — exactly, as a BigInt fed by a Number
// accumulator that stays below 2^53.
class Column {
  constructor(k, type, table, of, scope, keep, keepUntil) {
    this.key = k;
    this.type = type;
    this.table = table;
    this.of = of; // a Table for index, index+1 and count; else null
    this.scope = scope;
    this.signed = type === 'int';
    this.limit = own(CORE_LIMIT, k) && scope.core.has(k) ? CORE_LIMIT[k] : Infinity;
    this.storage = null; // 'col' or 'zeros', once values arrive
    this.last = 0; // the last value so far, which a delta-coded chunk continues from
    this.len = 0;
    this.max = -1; // the largest value (a Number: exact below 2^53, only compared with smaller bounds)
    this.acc = 0; // part of the sum, |acc| < 2^52
    this.big = 0n; // the rest of the sum
    this.keep = keep;
    this.keepUntil = keepUntil; // the snapshot after whose reading the values are let go (-1: none)
    this.kept = keep || keepUntil >= 0 ? new Store(this.limit) : null;
    // Stored against a base (SPEC "Snapshots stored against a base"):
    // set when the snapshot's `based` lists it.
    this.based = false;
    this.baseCol = null; // the base's column of the same name, or null
    this.toNode = false; // an index or index+1 column into the snapshot's node table
    this.ei = 0; // an edge column's next entry is edge ek of node ei
    this.ek = 0;
  }
  sum() { return this.big + BigInt(this.acc); }
  name() { return text(this.key); }

  // Append n values, read from a chunk by at(i) → a Number below 2^53 or
  // a BigInt.
  append(n, at) {
    if (this.kept && n > 0) this.kept.set(this.len + n - 1, 0); // room for the chunk
    for (let i = 0; i < n; i++) {
      const u = at(i);
      if (typeof u === 'bigint') { this.addBig(u); continue; }
      if (u > this.limit) fail(`column ${q(this.key)}: value ${u} is larger than the column holds (at most ${this.limit})`);
      if (u > this.max) this.max = u;
      const d = this.signed ? (u % 2 === 0 ? u / 2 : -(u + 1) / 2) : u; // zigzag
      if (d >= 2 ** 32 || d <= -(2 ** 32)) this.big += BigInt(d);
      else {
        this.acc += d;
        if (this.acc >= 2 ** 52 || this.acc <= -(2 ** 52)) { this.big += BigInt(this.acc); this.acc = 0; }
      }
      if (this.kept) this.kept.a[this.len] = u;
      this.len++;
    }
  }
  addBig(u) {
    if (this.limit !== Infinity) fail(`column ${q(this.key)}: value ${u} is larger than the column holds (at most ${this.limit})`);
    const f = Number(u);
    if (f > this.max) this.max = f;
    this.big += this.signed ? (u >> 1n) ^ -(u & 1n) : u;
    if (this.kept) this.kept.set(this.len, u);
    this.len++;
  }
  values() { return this.kept.a.subarray(0, this.len); }
}

// A scope: the file (index -1) or a snapshot, with its columns and tables.
class Scope {
  constructor(index) {
    this.index = index;
    this.columns = new Map(); // key → Column, in declaration order
    this.tables = new Map(); // key → Table
    this.core = new Set(); // the core columns its core record declared
    this.sections = new Set(); // the names of its sections
    this.started = false; // a col or zeros record of it has come
    this.series = false; // a snapshot of a series: its record declares origin.string and origin.class
    // Stored against a base (SPEC "Snapshots stored against a base"):
    this.base = -1; // the base's index, or -1
    this.based = []; // the names its record's `based` lists
    this.resolved = false; // the names have been checked against the declarations
    this.inv = null; // node.base's inverse: base node q → 1 + the node whose base node it is (0 none)
    this.edgeStart = null; // as a base: where each node's edges start (from its node.edge_count)
  }
  what() { return this.index < 0 ? 'the file' : `snapshot ${this.index}`; }
}

// Read a value of width w (1, 2, 4, 8) at index i of a little-endian chunk:
// a Number, or a BigInt from 2^53 up.
function reader(b, w) {
  switch (w) {
    case 1: return (i) => b[i];
    case 2: return (i) => b[2 * i] | (b[2 * i + 1] << 8);
    case 4: return (i) => (b[4 * i] | (b[4 * i + 1] << 8) | (b[4 * i + 2] << 16)) + b[4 * i + 3] * 2 ** 24;
    default: return (i) => {
      const o = 8 * i;
      const lo = (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16)) + b[o + 3] * 2 ** 24;
      const hi = (b[o + 4] | (b[o + 5] << 8) | (b[o + 6] << 16)) + b[o + 7] * 2 ** 24;
      return hi < 2 ** 21 ? hi * 2 ** 32 + lo : (BigInt(hi) << 32n) | BigInt(lo);
    };
  }
}

// A col chunk's encodings (SPEC "Columns"), bits of the record's fifth
// element: DELTA, each value stored as the zigzag-coded difference from
// the one before it in the column (0 before the first), modulo 2^64;
// SPLIT, the bytes stored plane by plane (every value's lowest byte
// first).
const DELTA = 1;
const SPLIT = 2;

// The values of a chunk of n values of width w in encoding enc, as reader
// gives them (get), and the last of them; prev is the column's value
// before the chunk.
function decoded(bin, w, enc, n, prev) {
  let b = bin;
  if (enc & SPLIT && w > 1) {
    b = new Uint8Array(bin.length);
    for (let k = 0; k < w; k++) {
      for (let i = 0; i < n; i++) b[w * i + k] = bin[k * n + i];
    }
  }
  const get = reader(b, w);
  if (!(enc & DELTA)) return { get, last: n > 0 ? get(n - 1) : prev };
  // Summed exactly: as Numbers while the sum is a safe integer, as
  // BigInts modulo 2^64 otherwise.
  const vals = new Array(n);
  for (let i = 0; i < n; i++) {
    const z = get(i);
    if (typeof z === 'number' && typeof prev === 'number') {
      const d = z % 2 ? -(z + 1) / 2 : z / 2;
      const sum = prev + d;
      if (sum >= 0 && sum <= Number.MAX_SAFE_INTEGER) {
        vals[i] = prev = sum;
        continue;
      }
    }
    const zb = BigInt(z);
    const d = zb & 1n ? -((zb >> 1n) + 1n) : zb >> 1n;
    const sum = BigInt.asUintN(64, BigInt(prev) + d);
    prev = sum <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(sum) : sum;
    vals[i] = prev;
  }
  return { get: (i) => vals[i], last: prev };
}

// ---------------------------------------------------------------- bases

// A based column's value (SPEC "Snapshots stored against a base"): the
// base value bv plus the difference a stored number z zigzag-codes,
// modulo 2^64 — a Number up to 2^53-1, else a BigInt.
function rebased(bv, z) {
  if (typeof bv === 'number' && typeof z === 'number') {
    const v = bv + (z % 2 ? -(z + 1) / 2 : z / 2); // exact whenever it lies in 0..2^53-1
    if (v >= 0 && v <= MAX_SAFE) return v;
  }
  const zb = BigInt(z);
  const d = zb & 1n ? -((zb >> 1n) + 1n) : zb >> 1n;
  const v = BigInt.asUintN(64, BigInt(bv) + d);
  return v <= BigInt(MAX_SAFE) ? Number(v) : v;
}

// Which snapshots' columns a later snapshot is stored against. The
// stream says so only in the later snapshot's record, after the base's
// columns have gone by; rather than keep every column of every snapshot,
// a first pass over the records (the file is in memory; a col record's
// bin is a view, not a copy) reads each snapshot record's `base` and
// `based`: need maps a base's index to the names of the columns to keep
// (node.edge_count too, which places its edges), last to the last
// snapshot stored against it, after whose reading they are let go. It
// trusts nothing: the reading pass checks every record, and stops where
// this one would (the same bytes, the same decoder).
function planBases(buf) {
  const need = new Map(), last = new Map();
  let n = -1, version = 0, first = true;
  try {
    for (const v of new IRDecoder(decoderOptions()).decodeMulti(buf)) {
      if (first) {
        first = false;
        if (Array.isArray(v) && isInt(v[1])) version = Number(v[1]);
        continue;
      }
      if (!Array.isArray(v) || !isBytes(v[0]) || key(v[0]) !== 'snapshot') continue;
      n++;
      const m = v[1];
      if (version < BASE_VERSION || !isMap(m) || !own(m, 'base') || !isInt(m.base)) continue;
      const b = Number(m.base);
      if (b < 0 || b >= n) continue;
      const names = need.get(b) || new Set(['node.edge_count']);
      if (own(m, 'based') && Array.isArray(m.based)) for (const x of m.based) if (isBytes(x)) names.add(key(x));
      need.set(b, names);
      last.set(b, n);
    }
  } catch (e) {
    if (!(e instanceof DecodeError || e instanceof RangeError)) throw e;
  }
  return { need, last };
}

// A snapshot record's `base` or `based` twice (SPEC "Snapshots stored
// against a base": an error). The library decodes a map into an object,
// where a repeated key keeps its last value; so the bytes of a snapshot
// record (and of no other: other maps keep the library's behaviour) are
// walked again, its map's keys compared as bytes. rec is the record's
// bytes, already decoded as an array whose first element is a str or bin
// and whose second is a map. Returns the key named twice, or null.
function baseKeyTwice(rec) {
  const dv = new DataView(rec.buffer, rec.byteOffset, rec.byteLength);
  const h = rec[0];
  let p = h >= 0x90 && h <= 0x9f ? 1 : h === 0xdc ? 3 : h === 0xdd ? 5 : -1;
  if (p < 0) throw new Error('irread.js: a snapshot record that is not an array');
  // The record type: a str or bin.
  const t = rec[p];
  if (t >= 0xa0 && t <= 0xbf) p += 1 + (t - 0xa0);
  else if (t === 0xd9 || t === 0xc4) p += 2 + dv.getUint8(p + 1);
  else if (t === 0xda || t === 0xc5) p += 3 + dv.getUint16(p + 1);
  else if (t === 0xdb || t === 0xc6) p += 5 + dv.getUint32(p + 1);
  else throw new Error('irread.js: a snapshot record whose type is not a str or bin');
  // The map's header, then its keys and values, in turn.
  const m = rec[p];
  let n;
  if (m >= 0x80 && m <= 0x8f) { n = m - 0x80; p += 1; }
  else if (m === 0xde) { n = dv.getUint16(p + 1); p += 3; }
  else if (m === 0xdf) { n = dv.getUint32(p + 1); p += 5; }
  else throw new Error('irread.js: a snapshot record whose fields are not a map');
  const seen = new Set();
  let i = 0;
  if (n === 0) return null;
  for (const x of new IRDecoder(decoderOptions()).decodeMulti(rec.subarray(p))) {
    if (i % 2 === 0 && isBytes(x)) {
      const k = key(x);
      if (k === 'base' || k === 'based') {
        if (seen.has(k)) return k;
        seen.add(k);
      }
    }
    if (++i === 2 * n - 1) break; // the last key: its value need not be decoded
  }
  return null;
}

// ---------------------------------------------------------------- reader

// Record layouts: the number of elements of each record type.
const LAYOUT = { file: 3, strings: 2, section: 6, snapshot: 3, col: 5, zeros: 4, end: 2 };

class Reader {
  constructor(buf) {
    this.buf = buf; // the whole stream (planBases reads it ahead)
    this.plan = { need: new Map(), last: new Map() };
    this.version = 0;
    this.ended = false;
    this.records = {}; // record counts, sections by name
    this.strings = 0; // strings the stream held so far
    this.file = null; // the file record's fields
    this.fileScope = new Scope(-1);
    this.snaps = []; // Scope of each snapshot, with its record's fields
  }

  // The header ["heapir", VERSION]; its first bytes are checked before
  // decoding (see readFile).
  header(v) {
    if (!isInt(v[1])) fail(`the header's version is ${typeOf(v[1])}, not an integer`);
    const ver = BigInt(v[1]);
    if (ver > BigInt(VERSION)) fail(`IR schema version ${ver} is newer than this reader reads (${VERSION}): upgrade it`);
    if (ver < 1n) fail(`IR schema version ${ver} does not exist`);
    if (ver < BigInt(MIN_VERSION)) {
      fail(`IR schema version ${ver}: this reader reads versions ${MIN_VERSION} to ${VERSION} only (not versions 1 to ${MIN_VERSION - 1})`);
    }
    this.version = Number(ver);
  }

  // v: the record; start, end: where its bytes are in the stream.
  record(v, start, end) {
    if (this.ended) fail('data after the end record');
    T.arr(v, 'record');
    if (v.length < 1) fail('an empty record');
    const t = T.name(v[0], 'record type', 16);
    if (!own(LAYOUT, t)) fail(`unknown record type ${q(t)}`);
    // A col record may carry its chunk's encoding (SPEC "Columns").
    const fits = v.length === LAYOUT[t] || (t === 'col' && v.length === LAYOUT[t] + 1);
    if (!fits) fail(`${text(t)} record of ${v.length} elements, want ${LAYOUT[t]}`);
    if (!this.file && t !== 'file') fail(`${text(t)} record before the file record`);
    switch (t) {
      case 'file': this.rFile(v); break;
      case 'strings': this.rStrings(v); break;
      case 'section': this.rSection(v); break;
      case 'snapshot': this.rSnapshot(v, start, end); break;
      case 'col': this.rCol(v); break;
      case 'zeros': this.rZeros(v); break;
      case 'end': this.rEnd(v); break;
    }
    const counted = t === 'section' ? 'section ' + text(key(v[2])) : t;
    this.records[counted] = (this.records[counted] || 0) + 1;
  }

  // ------------------------------------------------------------ records

  rFile(v) {
    if (this.file) fail('a second file record');
    const f = new Fields(v[1], 'file');
    this.file = {
      format: f.get('format', 'str', null, 64),
      formatVersion: f.get('format_version', 'str', null, 4096),
      producer: f.get('producer', 'str', null, 4096),
      strings: f.get('strings', 'uint', 0n),
      classes: f.get('classes', 'uint', 0n),
      snapshots: f.get('snapshots', 'uint', 0n),
    };
    f.done();
    if (this.file.strings > BigInt(U32MAX)) fail(`file: ${this.file.strings} strings, at most 2^32-1`);
    if (this.version >= BASE_VERSION && this.file.snapshots > 1n) this.plan = planBases(this.buf);
    const s = this.fileScope;
    s.tables.set('class', new Table('class', s, Number(this.file.classes)));
    s.tables.set('field', new Table('field', s, null));
    this.declare(s, v[2], 'file', CORE.file);
  }

  rStrings(v) {
    const a = T.arr(v[1], 'strings', MAX_STRINGS_RECORD);
    if (BigInt(this.strings + a.length) > this.file.strings) fail(`more strings than the ${this.file.strings} the file record declares`);
    // Any bytes: strings are neither decoded nor checked (SPEC "The model").
    for (const s of a) T.str(s, `string ${this.strings++}`);
  }

  cur() { return this.snaps.length ? this.snaps[this.snaps.length - 1] : null; }

  rSnapshot(v, start, end) {
    if (BigInt(this.snaps.length) >= this.file.snapshots) fail(`more snapshots than the ${this.file.snapshots} the file record declares`);
    const s = new Scope(this.snaps.length);
    const w = s.what();
    const f = new Fields(v[1], w);
    s.fields = {
      name: f.get('name', 'index', 0n),
      captureTime: f.get('capture_time', 'int', 0n),
      totals: f.get('totals', 'arr', [], MAX_LIST).map((t, j) => {
        const x = `${w} totals[${j}]`;
        T.tuple(t, x, 2);
        return [T.str(t[0], x + ' name', 256), T.uint(t[1], x + ' value')];
      }),
      nodeKinds: f.get('node_kinds', 'arr', [], MAX_KINDS).map((k, j) => T.str(k, `${w} node_kinds[${j}]`, 1024)),
      edgeKinds: f.get('edge_kinds', 'arr', [], MAX_KINDS).map((k, j) => {
        const x = `${w} edge_kinds[${j}]`;
        T.tuple(k, x, 2);
        return { name: T.str(k[0], x + ' name', 1024), indexed: T.bool(k[1], x + ' indexed') };
      }),
      root: f.get('root', 'int', -1n),
      nodes: f.get('nodes', 'uint', 0n),
      edges: f.get('edges', 'uint', 0n),
      values: f.get('values', 'uint', 0n),
      roots: f.get('roots', 'uint', 0n),
    };
    // Stored against a base (version 8 on; an older stream's keys of these
    // names are unknown ones, skipped).
    let base = -1n, based = [];
    if (this.version >= BASE_VERSION) {
      const twice = baseKeyTwice(this.buf.subarray(start, end));
      if (twice) fail(`${w}: key ${q(twice)} twice`);
      base = f.get('base', 'int', -1n);
      based = f.get('based', 'arr', [], MAX_LIST).map((b, j) => T.name(b, `${w} based[${j}]`, 1100));
    }
    f.done();
    const sf = s.fields;
    if (sf.nodes > 0xFFFFFFFEn) fail(`${w}: ${sf.nodes} nodes, at most 2^32-2`);
    if (sf.edges > BigInt(U32MAX)) fail(`${w}: ${sf.edges} edges, at most 2^32-1`);
    if (sf.root < -1n) fail(`${w}: root ${sf.root} (-1 or a node index)`);
    if (base < -1n || base >= BigInt(s.index)) {
      fail(`${w}: base ${base}: -1 or an earlier snapshot's index (below ${s.index})`);
    }
    if (base === -1n && based.length) fail(`${w}: based lists ${q(based[0])} but the snapshot has no base`);
    const seen = new Set();
    for (const k of based) {
      if (seen.has(k)) fail(`${w}: based lists ${q(k)} twice`);
      seen.add(k);
    }
    s.base = Number(base);
    s.based = based;
    if (this.cur()) this.close(this.cur());
    for (const [t, n] of [['node', sf.nodes], ['edge', sf.edges], ['value', sf.values], ['root', sf.roots]]) {
      s.tables.set(t, new Table(t, s, Number(n)));
    }
    this.snaps.push(s);
    this.declare(s, v[2], w, CORE.snapshot);
  }

  rSection(v) {
    const scope = T.int(v[1], 'section scope');
    const name = T.name(v[2], 'section name', 256);
    if (name === '') fail('a section without a name');
    const what = `section ${q(name)}`;
    const version = T.int(v[3], what + ' version');
    if (version < 1n || version > 2147483647n) fail(`${what}: version ${version} (1 to 2^31-1)`);
    let s;
    if (scope === -1n) {
      if (this.snaps.length) fail(`${what} of the file after the first snapshot record`);
      s = this.fileScope;
    } else {
      const c = this.cur();
      if (!c || scope !== BigInt(c.index)) fail(`${what} of scope ${scope}: the current snapshot is ${c ? c.index : 'none'}`);
      if (c.started) fail(`${what} of snapshot ${c.index} after a col or zeros record of the snapshot`);
      s = c;
    }
    if (s.sections.has(name)) fail(`a second ${what} in ${s.what()}`);
    s.sections.add(name);
    // The fields are kept as they are (not needed here): only their types
    // are checked.
    const f = new Fields(v[4], what);
    for (const k of Object.keys(f.m)) checkValue(f.m[k], `${what} ${k}`, 0);
    this.declare(s, v[5], what, null);
  }

  // The column a col or zeros record names.
  column(v, t) {
    const scope = T.int(v[1], `${t} scope`);
    const k = T.name(v[2], `${t} column`, 1100);
    let s;
    if (scope === -1n) s = this.fileScope;
    else {
      const c = this.cur();
      if (!c || scope !== BigInt(c.index)) {
        fail(`${t} record of column ${q(k)} in snapshot ${scope}: the current snapshot is ${c ? c.index : 'none'}` +
          (c && scope >= 0n && scope < BigInt(c.index) ? ' (the columns of an earlier snapshot are closed)' : ''));
      }
      s = c;
      if (!s.started) this.resolve(s);
      s.started = true;
    }
    const col = s.columns.get(k);
    if (!col) fail(`${t} record of column ${q(k)}, which ${s.what()} does not declare`);
    if (col.storage && col.storage !== t) fail(`column ${q(k)}: both col and zeros records`);
    col.storage = t;
    return col;
  }

  // Bound a column's values as they arrive (SPEC "Columns").
  bound(col, n) {
    const t = col.table;
    const room = t.first === col ? t.room() : t.first.len;
    if (col.len + n > room) {
      fail(`column ${q(col.key)}: ${col.len + n} values, more than ` +
        (t.first === col ? `table ${q(t.key)} has (${room})` : `the ${room} of ${q(t.first.key)}, the first column of its table ${q(t.key)}`));
    }
  }

  rCol(v) {
    const col = this.column(v, 'col');
    const x = `col record of ${q(col.key)}`;
    const width = T.uint(v[3], x + ' width');
    const encoded = v.length === 6;
    const enc = encoded ? T.uint(v[4], x + ' encoding') : 0n;
    const bin = v[encoded ? 5 : 4];
    if (!isBytes(bin)) fail(`${x}: the chunk is ${typeOf(bin)}, not a bin or a str`);
    if (![1n, 2n, 4n, 8n].includes(width)) fail(`${x}: width ${width} (1, 2, 4 or 8)`);
    if (enc > BigInt(DELTA | SPLIT)) fail(`${x}: encoding ${enc} (0 to ${DELTA | SPLIT})`);
    const w = Number(width);
    if (col.type === 'bytes') {
      if (w !== 1) fail(`${x}: a byte chunk of width ${w} (byte chunks have width 1)`);
      if (enc !== 0n) fail(`${x}: a byte chunk with encoding ${enc} (byte chunks have none)`);
      if (bin.length > MAX_BYTE_CHUNK) fail(`${x}: a byte chunk of ${bin.length} bytes, at most ${MAX_BYTE_CHUNK}`);
    }
    if (bin.length > MAX_CHUNK) fail(`${x}: a chunk of ${bin.length} bytes, at most ${MAX_CHUNK}`);
    if (bin.length % w) fail(`${x}: ${bin.length} bytes, not a whole number of values of width ${w}`);
    const n = bin.length / w;
    this.bound(col, n);
    // The chunk's stored numbers (for a based column, the zigzag-coded
    // differences from the base's values: the encodings describe them).
    const { get, last } = decoded(bin, w, Number(enc), n, col.last);
    this.append(col, n, get);
    if (n > 0) col.last = last;
  }

  // Append n values to col, whose stored numbers stored(i) gives: the
  // values themselves, or for a based column the differences from the
  // base's values (SPEC "Snapshots stored against a base"). Bounds apply
  // to the values.
  append(col, n, stored) {
    const start = col.len;
    col.append(n, col.based && n > 0 ? this.rebase(col, stored) : stored);
    if (col.key === 'node.base' && col.scope.core.has('node.base')) this.nodeBase(col, start);
  }

  // node.base's new values from entry start on: each at most the base's
  // node count, no base node named twice; its inverse grows with them.
  nodeBase(col, start) {
    const s = col.scope, b = this.snaps[s.base];
    const nodes = Number(b.fields.nodes);
    for (let i = start; i < col.len; i++) {
      const v = col.kept.get(i);
      if (v > nodes) fail(`${s.what()}: node ${i}'s node.base is ${v}, past the ${nodes} nodes of its base (snapshot ${s.base})`);
      if (v === 0 || v > s.inv.length) continue; // (a base whose columns are short is refused after the end)
      if (s.inv[v - 1]) fail(`${s.what()}: nodes ${s.inv[v - 1] - 1} and ${i} have the same base node ${v - 1} (node.base names no node of the base twice)`);
      s.inv[v - 1] = i + 1;
    }
  }

  // The values of a based column's next chunk: stored(i) is the stored
  // number of its entry col.len + i, called in order.
  rebase(col, stored) {
    const s = col.scope, b = this.snaps[s.base], nodes = Number(s.fields.nodes);
    const nb = s.columns.get('node.base');
    if (nb.len !== nodes) {
      fail(`column ${q(col.key)}: a value stored against the base before node.base is complete (${nb.len} of ${nodes} values)`);
    }
    const bc = col.baseCol; // null: every base value is 0
    const edge = col.table === s.tables.get('edge');
    let ec, bec, start;
    if (edge) {
      ec = s.columns.get('node.edge_count');
      if (ec.len !== nodes) {
        fail(`column ${q(col.key)}: a value of an edge stored against the base before node.edge_count is complete (${ec.len} of ${nodes} values)`);
      }
      bec = b.columns.get('node.edge_count');
      if (bc && !b.edgeStart) {
        // Where each of the base's nodes' edges start.
        b.edgeStart = new Float64Array(bec.len + 1);
        for (let p = 0; p < bec.len; p++) b.edgeStart[p + 1] = b.edgeStart[p] + bec.kept.get(p);
      }
      start = b.edgeStart;
    }
    const first = col.len;
    return (i) => {
      let bv = -1; // the base's value, when the base has one (-1: none, the base value 0)
      if (!edge) {
        const p = nb.kept.get(first + i) - 1;
        if (bc && p >= 0 && p < bc.len) bv = bc.kept.get(p);
      } else {
        // Edge ek of node ei: the base value is edge ek of its base node.
        while (col.ei < nodes && col.ek >= ec.kept.get(col.ei)) { col.ei++; col.ek = 0; }
        if (bc && col.ei < nodes) {
          const p = nb.kept.get(col.ei) - 1;
          if (p >= 0 && p < bec.len && col.ek < bec.kept.get(p)) {
            const e = start[p] + col.ek;
            if (e < bc.len) bv = bc.kept.get(e);
          }
        }
        col.ek++;
      }
      if (bv === -1) bv = 0;
      else if (col.toNode) bv = this.toNode(col, bv);
      return rebased(bv, stored(i));
    };
  }

  // A base value of an index (index+1) column into the node table, a base
  // node q (q + 1), turned into the snapshot's numbering: the node j whose
  // node.base is q + 1, as j (j + 1); 0 when q is no node's base node or
  // not a node of the base (and an index+1's 0 stays 0).
  toNode(col, bv) {
    const inv = col.scope.inv;
    if (col.type === 'index+1' && bv === 0) return 0;
    const q = col.type === 'index' ? bv : typeof bv === 'bigint' ? bv - 1n : bv - 1;
    if (typeof q === 'bigint' || q >= inv.length || inv[q] === 0) return 0;
    return col.type === 'index' ? inv[q] - 1 : inv[q];
  }

  // Check a snapshot's `based` names against its declarations (its
  // record's and its sections', all of which come before its first col or
  // zeros record), and ready its based columns.
  resolve(s) {
    if (s.resolved) return;
    s.resolved = true;
    if (s.base < 0) return;
    const w = s.what(), b = this.snaps[s.base];
    const nodeT = s.tables.get('node'), edgeT = s.tables.get('edge');
    for (const k of s.based) {
      const col = s.columns.get(k);
      if (!col) fail(`${w}: based lists ${q(k)}, which the snapshot does not declare`);
      if (col.table !== nodeT && col.table !== edgeT) fail(`${w}: based lists ${q(k)}, of table ${q(col.table.key)} (node or edge only)`);
      if (col.type === 'bytes') fail(`${w}: based lists ${q(k)}, a bytes column`);
      if (k === 'node.base') fail(`${w}: based lists node.base`);
      col.based = true;
      col.toNode = (col.type === 'index' || col.type === 'index+1') && col.of === nodeT;
      // The base's column of the same name (the spec asks nothing more of
      // it: its entry p is the value of p).
      col.baseCol = b.columns.get(k) || null;
      if (col.baseCol && !col.baseCol.kept) throw new Error(`irread.js: ${b.what()}'s column ${q(k)} was not kept for ${w}`);
    }
    // node.base's inverse, over the nodes the base holds.
    const bn = b.tables.get('node').first;
    s.inv = new Uint32Array(Math.min(Number(b.fields.nodes), bn ? bn.len : 0));
  }

  // A snapshot is read (the next snapshot record or the end record has
  // come): check its `based` if no col or zeros record did, and let go of
  // the values kept for bases that no later snapshot needs.
  close(s) {
    this.resolve(s);
    s.inv = null;
    for (const t of this.snaps) {
      if (t.edgeStart && !(this.plan.last.get(t.index) > s.index)) t.edgeStart = null;
      for (const c of t.columns.values()) {
        if (c.kept && !c.keep && c.keepUntil <= s.index) c.kept = null;
      }
    }
  }

  rZeros(v) {
    const col = this.column(v, 'zeros');
    const x = `zeros record of ${q(col.key)}`;
    const count = T.uint(v[3], x + ' count');
    if (count > BigInt(MAX_ZEROS)) fail(`${x}: ${count} values, at most ${MAX_ZEROS}`);
    // Only a column of the snapshot's node or edge table, not its first.
    const s = col.scope;
    const t = col.table;
    if (s.index < 0 || (t !== s.tables.get('node') && t !== s.tables.get('edge'))) {
      fail(`${x}: only columns of the node and edge tables may arrive as zeros, not one of table ${q(t.key)}`);
    }
    if (t.first === col) fail(`${x}: the first column of table ${q(t.key)} may not arrive as zeros`);
    if (col.type === 'bytes') fail(`${x}: a bytes column arrives as byte chunks, never as zeros`);
    this.bound(col, Number(count));
    // Zero values, or for a based column zero differences: the base's values.
    this.append(col, Number(count), () => 0);
  }

  rEnd(v) {
    const f = new Fields(v[1], 'end');
    const ns = f.get('strings', 'uint', 0n);
    const nsn = f.get('snapshots', 'uint', 0n);
    f.done();
    if (ns !== BigInt(this.strings) || ns !== this.file.strings) {
      fail(`the stream holds ${this.strings} strings; the file record declares ${this.file.strings} and the end record ${ns}`);
    }
    if (nsn !== BigInt(this.snaps.length) || nsn !== this.file.snapshots) {
      fail(`the stream holds ${this.snaps.length} snapshots; the file record declares ${this.file.snapshots} and the end record ${nsn}`);
    }
    if (this.cur()) this.close(this.cur());
    this.ended = true;
  }

  // ------------------------------------------------------------ declarations

  // The table a declaration in scope s names (SPEC "Column declarations"):
  // in a snapshot, a table the file declared is the file's (its core
  // tables, and those its columns have one value per entry of); any other
  // name is the snapshot's own.
  table(s, k, what) {
    if (s.index < 0 && SNAPSHOT_TABLES.includes(k)) fail(`${what}: table ${q(k)} is a snapshot's, not the file's`);
    if (s.index >= 0) {
      const ft = this.fileScope.tables.get(k);
      if (ft && ft.first) return ft; // class and field: the file record declares their columns
    }
    let t = s.tables.get(k);
    if (!t) { t = new Table(k, s, null); s.tables.set(k, t); }
    return t;
  }

  // Read a record's declarations into scope s. core: the core's columns of
  // this record (the file's or a snapshot's), or null for a section's.
  declare(s, decls, what, core) {
    const x = `${what} declarations`;
    T.arr(decls, x, MAX_LIST);
    const list = decls.map((d, i) => {
      const y = `${x}[${i}]`;
      T.tuple(d, y, 4);
      const [k, type, table, of] = d.map((e, j) => T.name(e, `${y} ${['name', 'type', 'table', 'of'][j]}`, 1100));
      const z = `${what}: column ${q(k)}`;
      if (!own(TYPES, type)) fail(`${z}: unknown column type ${q(type)}`);
      if (k === '') fail(`${what}: a column without a name`);
      if (table === '') fail(`${z}: no table`);
      if (TYPES[type] && of === '') fail(`${z}: a ${type} column names no table it refers to (of)`);
      if (!TYPES[type] && of !== '') fail(`${z}: a ${type} column names a table it refers to (of ${q(of)})`);
      if (core) {
        const c = own(core, k) ? core[k] : null;
        if (!c) fail(`${z} is not one of the core's columns`);
        if (V8_COLUMNS.includes(k) && this.version < SERIES_VERSION) {
          fail(`${z} is not one of the core's columns in a version ${this.version} stream (it is version ${SERIES_VERSION}'s)`);
        }
        if (c[0] !== type || c[1] !== table || c[2] !== of) {
          fail(`${z} declared as ${text(type)} of table ${q(table)}${of ? ` (of ${q(of)})` : ''}; the core declares it ${c[0]} of table "${c[1]}"${c[2] ? ` (of "${c[2]}")` : ''}`);
        }
      }
      return { k, type, table, of, z };
    });
    if (core) {
      const names = new Set(list.map((d) => d.k));
      for (const [k, c] of Object.entries(core)) if (!c[3] && !names.has(k)) fail(`${what}: the core's column ${k} is not declared`);
      // A snapshot of a series declares both origin columns, even when one
      // is empty; any other snapshot neither (SPEC "The core's columns").
      const origin = ORIGIN.filter((k) => names.has(k));
      if (origin.length === 1) {
        fail(`${what} declares ${origin[0]} without ${ORIGIN.find((k) => k !== origin[0])} (a snapshot of a series declares both)`);
      }
      s.series = origin.length === 2;
      // node.base exactly when the snapshot has a base.
      if (s.index >= 0 && names.has('node.base') !== (s.base >= 0)) {
        fail(s.base >= 0 ? `${what} has base ${s.base} but does not declare node.base` :
          `${what} declares node.base but has no base`);
      }
    }
    for (const { k, type, table, of, z } of list) {
      if (s.columns.has(k) || (s.index >= 0 && this.fileScope.columns.has(k))) fail(`${z} declared twice`);
      if (core) s.core.add(k);
      const t = this.table(s, table, z);
      const o = TYPES[type] ? this.table(s, of, z) : null;
      const keep = core ? CORE_KEPT.has(k) || (s.series && SERIES_KEPT.has(k)) : s.series && this.seriesKept(type, t, o);
      // Kept for bases: a column a later snapshot is stored against (until
      // it is read), and while the snapshot is read, its node.base and
      // node.edge_count, which place a based column's entries.
      let keepUntil = -1;
      if (s.index >= 0) {
        const need = this.plan.need.get(s.index);
        if (need && need.has(k)) keepUntil = this.plan.last.get(s.index);
        if (core && s.base >= 0 && (k === 'node.base' || k === 'node.edge_count')) keepUntil = Math.max(keepUntil, s.index);
      }
      const col = new Column(k, type, t, o, s, keep, keepUntil);
      s.columns.set(k, col);
      if (!t.first) t.first = col;
      if (type === 'count') {
        if (o === t) fail(`${z} counts its own table ${q(t.key)}`);
        if (o.scope !== s) fail(`${z} counts the file's table ${q(o.key)}`);
        if (o.countedBy) fail(`${z}: table ${q(o.key)} is already counted, by ${q(o.countedBy.key)}`);
        o.countedBy = col;
      }
    }
  }

  // Whether a section's column of a series' snapshot is checked value by
  // value against the snapshot's origin (SPEC "Series"): a string column,
  // an index or index+1 column into the class or field table, and any
  // column of the class or field table (0 outside the origin's classes).
  seriesKept(type, t, o) {
    const ct = this.fileScope.tables.get('class'), ft = this.fileScope.tables.get('field');
    return type === 'string' || t === ct || t === ft || ((type === 'index' || type === 'index+1') && (o === ct || o === ft));
  }

  // ------------------------------------------------------------ validation

  finish() {
    if (!this.ended) fail('the stream ends without an end record');
    this.validate(this.fileScope);
    for (const s of this.snaps) {
      this.validate(s);
      this.validateSnapshot(s);
    }
    this.validateSeries();
    return this.output();
  }

  // Every column of scope s: as long as its table, counts summing to the
  // table they count, and in range by its type (SPEC "Columns" and
  // "Validation").
  validate(s) {
    const S = this.strings;
    for (const c of s.columns.values()) {
      const z = `${s.what()}: column ${q(c.key)}`;
      const n = c.table.length();
      if (c.len !== n) fail(`${z} holds ${c.len} values, its table ${q(c.table.key)} has ${n} entries`);
      switch (c.type) {
        case 'string':
          if (c.max >= S) fail(`${z}: string ${c.max} out of range (${S} strings)`);
          break;
        case 'index':
          if (c.max >= c.of.length()) fail(`${z}: index ${c.max} out of range (table ${q(c.of.key)} has ${c.of.length()} entries)`);
          break;
        case 'index+1':
          if (c.max > c.of.length()) fail(`${z}: index+1 ${c.max} out of range (table ${q(c.of.key)} has ${c.of.length()} entries)`);
          break;
        case 'count':
          if (c.sum() !== BigInt(c.of.length())) fail(`${z}: the counts sum to ${c.sum()}, table ${q(c.of.key)} has ${c.of.length()} entries`);
          break;
      }
    }
  }

  // The core's rules of a snapshot (SPEC "Validation").
  validateSnapshot(s) {
    const w = s.what(), f = s.fields, S = this.strings;
    const col = (k) => s.columns.get(k);
    const nodes = Number(f.nodes);
    if (f.name >= BigInt(S)) fail(`${w}: name ${f.name} out of range (${S} strings)`);
    if (f.root !== -1n && f.root >= f.nodes) fail(`${w}: root ${f.root} out of range (${nodes} nodes)`);
    if (col('node.kind').max >= f.nodeKinds.length) fail(`${w}: node kind ${col('node.kind').max} out of range (${f.nodeKinds.length} kinds)`);
    if (col('edge.kind').max >= f.edgeKinds.length) fail(`${w}: edge kind ${col('edge.kind').max} out of range (${f.edgeKinds.length} kinds)`);
    const ek = col('edge.kind').values(), en = col('edge.name').values();
    for (let i = 0; i < en.length; i++) {
      if (!f.edgeKinds[ek[i]].indexed && en[i] >= S) fail(`${w}: edge ${i}: name ${en[i]} out of range (${S} strings)`);
    }
    const vn = col('value.node').values(), vk = col('value.kind').values(), vb = col('value.bits').values();
    for (let i = 0; i < vn.length; i++) {
      if (i > 0 && vn[i] <= vn[i - 1]) fail(`${w}: value ${i}: node ${vn[i]} after node ${vn[i - 1]} (value.node strictly increases)`);
      if (vk[i] < 1 || vk[i] > 6) fail(`${w}: value ${i}: kind ${vk[i]} (1 to 6)`);
      if (vk[i] === 1 && vb[i] >= S) fail(`${w}: value ${i}: string ${vb[i]} out of range (${S} strings)`);
    }
  }

  // A series (SPEC "Series" and "Validation"): every snapshot has an
  // origin or none does; no sections of the file; each origin's entries
  // distinct and holding everything its snapshot refers to. Runs after
  // validate(), so every value is in range of its table.
  validateSeries() {
    const series = this.snaps.filter((s) => s.series);
    if (series.length === 0) return;
    const plain = this.snaps.find((s) => !s.series);
    if (plain) {
      fail(`${plain.what()} declares no origin (origin.string, origin.class) but ${series[0].what()} does: ` +
        'every snapshot of a series has one, or none does');
    }
    if (this.fileScope.sections.size > 0) {
      fail(`a series with sections of the file (${[...this.fileScope.sections].map(q).join(', ')}): a series has none`);
    }
    const fc = (k) => this.fileScope.columns.get(k).values();
    const cls = {
      name: fc('class.name'), library: fc('class.library'), fieldCount: fc('class.field_count'), fieldName: fc('class.field_name'),
    };
    // Where each class's fields start in the field table.
    cls.fieldStart = new Float64Array(cls.fieldCount.length + 1);
    for (let c = 0; c < cls.fieldCount.length; c++) cls.fieldStart[c + 1] = cls.fieldStart[c] + cls.fieldCount[c];
    for (const s of this.snaps) this.validateOrigin(s, cls);
  }

  // One snapshot of a series against its origin (SPEC "Series").
  validateOrigin(s, cls) {
    const w = s.what(), f = s.fields, S = this.strings;
    const col = (k) => s.columns.get(k);
    const classes = cls.name.length, fields = cls.fieldName.length;
    // The origin's strings and classes, distinct; the fields of its classes.
    const inS = new Uint8Array(S), inC = new Uint8Array(classes), inF = new Uint8Array(fields);
    const os = col('origin.string').values(), oc = col('origin.class').values();
    for (let i = 0; i < os.length; i++) {
      if (inS[os[i]]) fail(`${w}: origin.string lists string ${os[i]} twice (entry ${i}): its entries are distinct`);
      inS[os[i]] = 1;
    }
    for (let i = 0; i < oc.length; i++) {
      const c = oc[i];
      if (inC[c]) fail(`${w}: origin.class lists class ${c} twice (entry ${i}): its entries are distinct`);
      inC[c] = 1;
      inF.fill(1, cls.fieldStart[c], cls.fieldStart[c + 1]);
    }
    const str = (v, what) => {
      if (!inS[v]) fail(`${w}: ${what} is string ${v}, which its origin (origin.string) does not list`);
    };
    // The classes of its origin: their names, libraries and field names.
    for (const c of oc) {
      str(cls.name[c], `class ${c}'s name`);
      str(cls.library[c], `class ${c}'s library`);
      for (let j = cls.fieldStart[c]; j < cls.fieldStart[c + 1]; j++) str(cls.fieldName[j], `class ${c}'s field ${j}'s name`);
    }
    // The core's references.
    str(Number(f.name), 'the snapshot name');
    const nn = col('node.name').values();
    for (let i = 0; i < nn.length; i++) str(nn[i], `node ${i}'s name`);
    if (s.core.has('node.class')) {
      const nc = col('node.class').values();
      for (let i = 0; i < nc.length; i++) {
        if (nc[i] !== 0 && !inC[nc[i] - 1]) fail(`${w}: node ${i}'s class is class ${nc[i] - 1}, which its origin (origin.class) does not list`);
      }
    }
    const ek = col('edge.kind').values(), en = col('edge.name').values();
    for (let i = 0; i < en.length; i++) if (!f.edgeKinds[ek[i]].indexed) str(en[i], `edge ${i}'s name`);
    const vk = col('value.kind').values(), vb = col('value.bits').values();
    for (let i = 0; i < vk.length; i++) if (vk[i] === 1) str(vb[i], `value ${i} (a string)`);
    const rc = col('root.category').values();
    for (let i = 0; i < rc.length; i++) str(rc[i], `root ${i}'s category`);
    // Its sections' columns (the kept ones: see seriesKept), every value.
    // A column of the class or field table has a value for every class or
    // field of the series: those outside its origin's classes are 0 and
    // refer to nothing, the rules apply to the others only.
    // (String-index fields of sections are not checked: this reader does
    // not know which of a section's fields are string indices.)
    const ct = this.fileScope.tables.get('class'), ft = this.fileScope.tables.get('field');
    for (const c of s.columns.values()) {
      if (s.core.has(c.key) || !c.kept) continue;
      const v = c.values();
      const inOrigin = c.table === ct ? inC : c.table === ft ? inF : null;
      const refs = c.type === 'string' || ((c.type === 'index' || c.type === 'index+1') && (c.of === ct || c.of === ft));
      const [set, what] = c.type === 'string' ? [null, ''] :
        c.of === ct ? [inC, 'a class of its origin (origin.class)'] : [inF, "a field of its origin's classes"];
      for (let i = 0; i < v.length; i++) {
        if (inOrigin && !inOrigin[i]) {
          if (v[i] !== 0) {
            fail(`${w}: column ${q(c.key)}'s value ${i} is ${v[i]}, but ${c.table.key} ${i} is ${c.table === ct ? 'no class' : 'a field of no class'} of its origin (such values are 0)`);
          }
          continue;
        }
        if (!refs) continue;
        if (c.type === 'string') {
          str(v[i], `column ${q(c.key)}'s value ${i}`);
          continue;
        }
        const x = c.type === 'index+1' ? v[i] - 1 : v[i];
        if (x >= 0 && !set[x]) fail(`${w}: column ${q(c.key)}'s value ${i} refers to ${c.of.key} ${x}, which is not ${what}`);
      }
    }
  }

  // ------------------------------------------------------------ output

  output() {
    const classes = Number(this.file.classes);
    // Null-prototype objects: a group or column may be named "__proto__".
    const columns = (s) => {
      const out = Object.create(null);
      for (const c of [...s.columns.values()].sort((a, b) => (a.name() < b.name() ? -1 : a.name() > b.name() ? 1 : 0))) {
        if (c.len === 0) continue;
        // node.base is how the stream stores the snapshot, not one of its
        // columns (base and based say how it is stored).
        if (c.key === 'node.base' && s.core.has(c.key)) continue;
        const name = c.name();
        const group = name.split('.')[0];
        (out[group] = out[group] || Object.create(null))[name] = { count: c.len, sum: c.sum().toString() };
      }
      return out;
    };
    const sum = (s, k) => (s.core.has(k) ? s.columns.get(k).sum().toString() : '0');
    return {
      version: this.version,
      strings: this.strings,
      classes,
      series: this.snaps.some((s) => s.series),
      records: Object.fromEntries(Object.entries(this.records).sort()),
      file_columns: columns(this.fileScope),
      snapshots: this.snaps.map((s) => ({
        nodes: Number(s.fields.nodes),
        edges: Number(s.fields.edges),
        values: Number(s.fields.values),
        roots: Number(s.fields.roots),
        self_size: sum(s, 'node.self_size'),
        external_size: sum(s, 'node.external_size'),
        classes,
        base: s.base,
        based: s.based.map(text),
        sections: columns(s),
      })),
    };
  }
}

function readFile(path) {
  const buf = fs.readFileSync(path);
  if (buf.length >= 4 && buf[0] === 0x28 && buf[1] === 0xB5 && buf[2] === 0x2F && buf[3] === 0xFD) {
    fail('zstd-compressed (.heapir.zst): decompress it first (zstd -d)');
  }
  const magic = [0x92, 0xA6, 0x68, 0x65, 0x61, 0x70, 0x69, 0x72]; // ["heapir", …
  if (buf.length < 9 || magic.some((b, i) => buf[i] !== b)) fail('not a heapir stream: it does not start with ["heapir", VERSION]');
  const r = new Reader(buf);
  let first = true;
  try {
    // dec.pos: where the record just decoded ends (start: where it began).
    const dec = new IRDecoder(decoderOptions());
    let start = 0;
    for (const v of dec.decodeMulti(buf)) {
      if (first) { r.header(v); first = false; start = dec.pos; continue; }
      r.record(v, start, dec.pos);
      start = dec.pos;
    }
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError) fail(`not a msgpack stream${first ? '' : ' after the header'}: ${e.message}`);
    throw e;
  }
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
      if (!(e instanceof IRError) && e && e.stack && e.code === undefined) process.stderr.write(e.stack + '\n');
      out = { file: f, error: msg };
      status = 1;
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
  process.exit(status);
}

main();
