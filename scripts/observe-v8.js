#!/usr/bin/env node
// Print byte-level observations about V8 .heapsnapshot files as Markdown.
// Used to write testdata/v8/FORMAT-OBSERVED.md.
//
// Usage: node scripts/observe-v8.js FILE.heapsnapshot[.zst] ...
//   .zst files are decompressed with the `zstd` CLI.
//
// Excerpts are printed as Go/JSON string literals (JSON.stringify of the bytes read
// as latin1), so every byte is exact: a real newline byte shows as \n, a backslash
// in the file shows as \\, a quote as \". V8 output is pure ASCII, so the literal
// is also a valid Go interpreted string literal for the same bytes (checked below).
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const KEYS = ['nodes', 'edges', 'trace_function_infos', 'trace_tree', 'samples', 'locations', 'strings'];

function read(file) {
  if (file.endsWith('.zst')) {
    return execFileSync('zstd', ['-dc', file], { maxBuffer: 1 << 30 }).toString('latin1');
  }
  return fs.readFileSync(file).toString('latin1');
}

// JSON.stringify leaves 0x7F and (for latin1 input) 0x80-0xFF raw; show them as \xNN.
const lit = (s) => JSON.stringify(s).replace(/[\x7f-\xff]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));

// Split the raw text of a JSON array of strings into the raw token of each element.
function rawStringTokens(text, start) {
  // text[start] === '['
  const out = [];
  let i = start + 1;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push({ raw: text.slice(i, j + 1), pre: '' });
      i = j + 1;
    } else if (c === ']') {
      return { tokens: out, end: i };
    } else {
      i++;
    }
  }
  throw new Error('unterminated strings array');
}

function observe(file) {
  const s = read(file);
  const lines = [];
  const p = (x = '') => lines.push(x);
  const name = path.basename(file);
  p(`### ${name}`);
  p();
  const headerEnd = s.indexOf('\n');
  const header = JSON.parse(s.slice('{"snapshot":'.length, headerEnd - 1));
  const meta = header.meta;
  let nonAscii = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7e || (s.charCodeAt(i) < 0x20 && s[i] !== '\n')) nonAscii++;
  const nl = (s.match(/\n/g) || []).length;
  p(`* size ${s.length} bytes; ${nl} newline bytes (0x0A); ${nonAscii} bytes outside 0x20–0x7E other than 0x0A; no 0x0D.`.replace(' no 0x0D.', s.includes('\r') ? ' HAS 0x0D.' : ' no 0x0D.'));
  p(`* ends with ${lit(s.slice(-4))}: trailing newline: ${s.endsWith('\n') ? 'YES' : 'no'}.`);
  p(`* header keys in order: ${Object.keys(header).map((k) => '`' + k + '`').join(', ')}; ` +
    `node_count=${header.node_count}, edge_count=${header.edge_count}, trace_function_count=${header.trace_function_count}` +
    (header.extra_native_bytes !== undefined ? `, extra_native_bytes=${header.extra_native_bytes}` : '') + '.');
  p(`* meta keys in order: ${Object.keys(meta).map((k) => '`' + k + '`').join(', ')}.`);
  p(`* node_fields (${meta.node_fields.length}): ${meta.node_fields.join(', ')}; node_types has ${meta.node_types.length} entries, ` +
    `node_types[0] has ${meta.node_types[0].length} type names (last: ${lit(meta.node_types[0][meta.node_types[0].length - 1])}).`);
  p(`* location_fields (${meta.location_fields.length}): ${meta.location_fields.join(', ')}.`);
  p(`* header line is ${headerEnd + 1} bytes including its \\n.`);
  p();

  // Section positions.
  const pos = {};
  let from = 0;
  for (const k of KEYS) {
    const i = s.indexOf(`"${k}":`, from);
    if (i < 0) throw new Error(`${file}: key ${k} not found`);
    pos[k] = i;
    from = i;
  }
  const sectionText = (k, idx) => {
    const start = pos[k] + k.length + 3; // after "k":
    const end = idx + 1 < KEYS.length ? pos[KEYS[idx + 1]] : s.length;
    return s.slice(start, end);
  };

  // Row layout checks.
  const nf = meta.node_fields.length;
  const checks = [];
  const rowRe = (fields) => {
    const row = `\\d+(?:,\\d+){${fields - 1}}`;
    return {
      nl: new RegExp(`^\\[(?:${row}\\n(?:,${row}\\n)*)?\\],\\n$`),
      flat: new RegExp(`^\\[(?:${row}(?:,${row})*)?\\],\\n$`),
    };
  };
  const classify = (k, fields) => {
    const t = sectionText(k, KEYS.indexOf(k));
    const r = rowRe(fields);
    if (t === '[],\n') return 'empty `[],\\n`';
    if (r.nl.test(t)) return `rows of ${fields}, each row followed by \\n, rows after the first start with ","  (\`[r1\\n,r2\\n,…,rN\\n],\\n\`)`;
    if (r.flat.test(t)) return `rows of ${fields}, no newlines (\`[a,b,…,z],\\n\`)`;
    return 'OTHER (see excerpt)';
  };
  checks.push(`nodes: ${classify('nodes', nf)}`);
  checks.push(`edges: ${classify('edges', meta.edge_fields.length)}`);
  checks.push(`trace_function_infos: ${classify('trace_function_infos', meta.trace_function_info_fields.length)}`);
  {
    const t = sectionText('trace_tree', 3);
    checks.push(`trace_tree: ${t === '[],\n' ? 'empty `[],\\n`' : `nested JSON, ${t.length} bytes, ${(t.match(/\n/g) || []).length} newline(s) (the one after \`],\`)`}`);
  }
  checks.push(`samples: ${classify('samples', meta.sample_fields.length)}`);
  checks.push(`locations: ${classify('locations', meta.location_fields.length)}`);

  // Strings.
  const st = sectionText('strings', 6);
  const { tokens, end } = rawStringTokens(st, 0);
  const strings = JSON.parse(st.slice(0, end + 1));
  if (strings.length !== tokens.length) throw new Error('token split mismatch');
  let sep = null;
  let sepOk = true;
  {
    // separators between tokens
    let i = 1;
    const seps = new Map();
    for (const t of tokens) {
      const j = st.indexOf(t.raw, i);
      if (j < 0) { sepOk = false; break; }
      const between = st.slice(i, j);
      if (t !== tokens[0]) seps.set(between, (seps.get(between) || 0) + 1);
      i = j + t.raw.length;
    }
    sep = [...seps.entries()].map(([k, v]) => `${lit(k)}×${v}`).join(', ');
  }
  checks.push(`strings: ${strings.length} entries, first ${lit(tokens[0].raw)}; separator before each later string: ${sepOk ? sep : '?'}; section ends ${lit(st.slice(end, end + 2))} = end of file: ${st.length === end + 2}`);
  p('Layout:');
  p();
  for (const c of checks) p(`* ${c}`);
  p();

  p(`Start of file: the complete header line (${headerEnd + 1} bytes, through the first \\n), then the next 60 bytes:`);
  p();
  p('```');
  p(lit(s.slice(0, headerEnd + 1)));
  p(lit(s.slice(headerEnd + 1, headerEnd + 61)));
  p('```');
  p();
  p('Section boundaries (80 bytes before each key, 100 bytes from the key on):');
  p();
  p('```');
  for (const k of KEYS) p(`${k.padEnd(21)} ${lit(s.slice(pos[k] - 80, pos[k]))} + ${lit(s.slice(pos[k], pos[k] + 100))}`);
  p(`${'end of file'.padEnd(21)} ${lit(s.slice(-160))}`);
  p('```');
  p();

  // Escapes seen in the strings section.
  const esc = {};
  const re = /\\(u[0-9A-Fa-f]{4}|.)/g;
  let m;
  const body = st.slice(0, end + 1);
  while ((m = re.exec(body))) {
    let k = m[1];
    if (k[0] === 'u') {
      const cp = parseInt(k.slice(1), 16);
      const kind = cp < 0x20 ? 'u00XX control' : cp < 0x80 ? 'u00XX ascii' : cp < 0x800 ? '\\u 2-byte' :
        (cp >= 0xd800 && cp <= 0xdfff) ? '\\u surrogate' : '\\u 3-byte';
      const cs = /[a-f]/.test(k) ? 'lower' : /[A-F]/.test(k) ? 'UPPER' : 'digits';
      k = `${kind} (${cs})`;
    } else {
      k = '\\' + k;
    }
    esc[k] = (esc[k] || 0) + 1;
  }
  p(`Escapes in the strings section: ${Object.entries(esc).map(([k, v]) => `\`${k}\`×${v}`).join(', ')}.`);
  p();

  const probes = [
    ['Café (class name)', (x) => x === 'Café'],
    ['crème (key)', (x) => x === 'crème'],
    ['brûlée', (x) => x === 'brûlée'],
    ['名前 (key)', (x) => x === '名前'],
    ['latin1', (x) => x.startsWith('café résumé')],
    ['cjk', (x) => x.startsWith('中文字符串 日本語')],
    ['emoji 😀 in text', (x) => x.startsWith('grin ')],
    ['😀 alone', (x) => x === '\uF600' || x === '😀'],
    ['𝄞 in text', (x) => x.startsWith('music ')],
    ['lone high surrogate', (x) => x.startsWith('lone ') && x.endsWith(' high')],
    ['lone low surrogate', (x) => x.startsWith('lone ') && x.endsWith(' low')],
    ['quotes', (x) => x.startsWith('she said')],
    ['backslash', (x) => x.startsWith('C:')],
    ['control chars', (x) => x.startsWith('tab\t')],
    ['NUL (value of key `nul`)', (x) => /^nul.byte$/.test(x)],
    ['slash', (x) => x === 'a/b</script>'],
    ['U+2028/2029', (x) => x === 'ls\u2028ps\u2029end'],
    ['BOM', (x) => x.endsWith('bom') && x.length === 4],
    ['symbol description', (x) => x.includes('heapconv.symbol')],
    ['long: 700 L + 200 中 + 600 x + END', (x) => x.startsWith('LLLLLLLLLL') && x.length > 100],
    ['long ascii (1504 in JS)', (x) => x.startsWith('0123456789012') && x.length > 1000],
    ['1023 P + 😀 + after', (x) => x.startsWith('PPPPPPPPPP') && x.length > 1000],
    ['DEL alone', (x) => x === '\x7f'],
  ];
  p('Probe strings (what gen.js put in the heap → exact bytes in the strings table):');
  p();
  p('| probe | index | decoded length | raw bytes in file (Go literal) |');
  p('| --- | --- | --- | --- |');
  for (const [label, f] of probes) {
    const hits = [];
    strings.forEach((x, i) => { if (f(x)) hits.push(i); });
    if (!hits.length) { p(`| ${label} | — | — | not present |`); continue; }
    for (const i of hits.slice(0, 3)) {
      let raw = tokens[i].raw;
      if (raw.length > 140) raw = raw.slice(0, 60) + ' …(' + (raw.length - 120) + ' bytes)… ' + raw.slice(-60);
      p(`| ${label} | ${i} | ${strings[i].length} | \`${lit(raw).replace(/\|/g, '\\|')}\` |`);
    }
  }
  const maxLen = strings.reduce((a, x) => Math.max(a, x.length), 0);
  p();
  p(`Longest string: ${maxLen} UTF-16 units.`);
  p();

  if (header.trace_function_count) {
    const tfi = sectionText('trace_function_infos', 2);
    const tt = sectionText('trace_tree', 3);
    const sm = sectionText('samples', 4);
    p('Allocation-tracking sections:');
    p();
    p('```');
    p(`trace_function_infos (${tfi.length} bytes): ${lit(tfi.slice(0, 160))} … ${lit(tfi.slice(-60))}`);
    p(`trace_tree (${tt.length} bytes): ${lit(tt.slice(0, 240))} … ${lit(tt.slice(-80))}`);
    p(`samples (${sm.length} bytes): ${lit(sm)}`);
    p(`locations start: ${lit(sectionText('locations', 5).slice(0, 100))}`);
    p('```');
    p();
    // Depth of trace tree
    const tree = JSON.parse(tt.slice(0, tt.lastIndexOf(']') + 1));
    let maxDepth = 0;
    let count = 0;
    const walk = (n, d) => { count++; maxDepth = Math.max(maxDepth, d); for (let i = 0; i < n[4].length; i += 5) walk(n[4].slice(i, i + 5), d + 1); };
    // trace_tree is [id,fi,count,size,[children flattened]] for the root
    walk(tree, 1);
    p(`trace_tree: ${count} trace nodes, max depth ${maxDepth}; root = ${lit(JSON.stringify(tree.slice(0, 4)))}.`);
    const nfo = meta.trace_function_info_fields.length;
    const tfiArr = JSON.parse(tfi.slice(0, tfi.lastIndexOf(']') + 1));
    p(`trace_function_infos: ${tfiArr.length / nfo} rows of ${nfo} (trace_function_count=${header.trace_function_count}); ` +
      `first rows decoded: ${[0, 1, 2].map((r) => { const a = tfiArr.slice(r * nfo, r * nfo + nfo); return `[${a[0]}, ${lit(strings[a[1]])}, ${lit(strings[a[2]])}, ${a[3]}, ${a[4]}, ${a[5]}]`; }).join('; ')}.`);
    const nodes = JSON.parse(sectionText('nodes', 0).slice(0, -2));
    const tni = meta.node_fields.indexOf('trace_node_id');
    let nz = 0;
    for (let i = tni; i < nodes.length; i += nf) if (nodes[i]) nz++;
    p(`nodes with trace_node_id ≠ 0: ${nz} of ${nodes.length / nf}.`);
    p();
  }
  return lines.join('\n');
}

const files = process.argv.slice(2);
if (!files.length) {
  process.stderr.write('usage: node scripts/observe-v8.js FILE.heapsnapshot[.zst] ...\n');
  process.exit(2);
}
for (const f of files) process.stdout.write(observe(f) + '\n');
