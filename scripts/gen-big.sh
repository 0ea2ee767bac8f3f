#!/usr/bin/env bash
# Make a big V8 heap snapshot for benchmarks with the system node (Node 20),
# or two snapshots of one process for the benchmarks of diff.
#
# Usage: scripts/gen-big.sh TARGET_MB OUT.heapsnapshot [NEW.heapsnapshot]
#   e.g. scripts/gen-big.sh 1000 /tmp/big.heapsnapshot   (~1 GB, ~1.9 M Items)
#
# The heap holds N `Item {id, name, pt: Point, tags: [2 strings]}` objects in an
# array, plus a Map from name to every 4th Item. N is estimated from TARGET_MB
# (measured on Node 20: ~4.0 MB of Node's own heap + BYTES_PER_ITEM per Item).
# With NEW, the process then leaks LEAK_PERCENT (default 5) % more Items, held
# from a second global array, and writes NEW: V8 keeps the objects' ids between
# the two, as diff needs.
# Do not commit the output. Writing needs about 2x the heap in memory
# (tested: 50 MB target -> 49.8 MB file, 2.8 s, 0.36 GB peak RSS).
set -euo pipefail

if [ $# -ne 2 ] && [ $# -ne 3 ]; then
  echo "usage: $0 TARGET_MB OUT.heapsnapshot [NEW.heapsnapshot]" >&2
  exit 2
fi
target_mb="$1"
out="$2"
new="${3:-}"
case "$target_mb" in ''|*[!0-9]*) echo "gen-big.sh: TARGET_MB must be a positive integer" >&2; exit 2 ;; esac

BASE_BYTES=3980000      # snapshot of the program with N=0
BYTES_PER_ITEM=521      # measured, Node 20.20.2
n=$(( (target_mb * 1000000 - BASE_BYTES) / BYTES_PER_ITEM ))
[ "$n" -lt 0 ] && n=0
leak=$(( n * ${LEAK_PERCENT:-5} / 100 ))

# Give V8 room: the items plus the snapshot generator's own tables.
heap_mb=$(( 2048 + target_mb * 7 ))

start=$(date +%s%N)
node --max-old-space-size="$heap_mb" "$(dirname "$0")/gen-big.js" "$out" "$n" "$new" "$leak"
end=$(date +%s%N)
size=$(stat -c %s "$out")
awk -v o="$out" -v s="$size" -v n="$n" -v t="$(( (end - start) / 1000000 ))" \
  'BEGIN { printf "gen-big.sh: %s: %d bytes (%.1f MB), %d items, %.1f s\n", o, s, s / 1e6, n, t / 1000 }' >&2
if [ -n "$new" ]; then
  echo "gen-big.sh: $new: $(stat -c %s "$new") bytes, $leak more items" >&2
fi
