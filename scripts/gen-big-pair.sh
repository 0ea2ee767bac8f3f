#!/usr/bin/env bash
# Make two big V8 heap snapshots of one Node process, for benchmarks of
# diff: the first of the heap scripts/gen-big.sh makes, the second after
# the process leaked LEAK_PERCENT (default 5) more Item objects, held from a
# second global array. Node keeps object ids between the two snapshots.
#
# Usage: scripts/gen-big-pair.sh TARGET_MB OLD.heapsnapshot NEW.heapsnapshot
# Do not commit the output. Needs about 8x TARGET_MB of memory.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 TARGET_MB OLD.heapsnapshot NEW.heapsnapshot" >&2
  exit 2
fi
target_mb="$1"
case "$target_mb" in ''|*[!0-9]*) echo "gen-big-pair.sh: TARGET_MB must be a positive integer" >&2; exit 2 ;; esac
BASE_BYTES=3980000      # as scripts/gen-big.sh
BYTES_PER_ITEM=521
n=$(( (target_mb * 1000000 - BASE_BYTES) / BYTES_PER_ITEM ))
[ "$n" -lt 0 ] && n=0
leak=$(( n * ${LEAK_PERCENT:-5} / 100 ))
heap_mb=$(( 2048 + target_mb * 7 ))

node --max-old-space-size="$heap_mb" - "$2" "$3" "$n" "$leak" <<'JS'
'use strict';
const v8 = require('v8');
const [oldOut, newOut, nStr, leakStr] = process.argv.slice(2);
const n = Number(nStr), leak = Number(leakStr);
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
v8.writeHeapSnapshot(oldOut);
const leaked = [];
for (let i = 0; i < leak; i++) leaked.push(new Item(n + i));
globalThis.heapconvLeaked = leaked;
v8.writeHeapSnapshot(newOut);
process.stderr.write(`gen-big-pair.sh: ${n} items, then ${leak} more\n`);
JS
ls -l "$2" "$3" >&2
