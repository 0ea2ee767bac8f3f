#!/usr/bin/env bash
# Make a big V8 heap snapshot for benchmarks with the system node (Node 20),
# or two or three snapshots of one process for the benchmarks of diff.
#
# Usage: scripts/gen-big.sh TARGET_MB OUT.heapsnapshot [NEW.heapsnapshot [LATER.heapsnapshot]]
#   e.g. scripts/gen-big.sh 1000 /tmp/big.heapsnapshot   (~1 GB, ~1.9 M Items)
#
# The heap holds N `Item {id, name, pt: Point, tags: [2 strings]}` objects in an
# array, plus a Map from name to every 4th Item. N is estimated from TARGET_MB
# (measured on Node 20: ~4.0 MB of Node's own heap + BYTES_PER_ITEM per Item).
# With NEW, the process then leaks LEAK_PERCENT (default 5) % more Items, held
# from a second global array, and writes NEW: V8 keeps the objects' ids between
# the two, as diff needs. With LATER, NEW also holds TEMP_PERCENT (default 5) %
# more Items from a third array, which is dropped before LATER is written: the
# leaked Items are the objects allocated between OLD and NEW and still alive in
# LATER (memlab's baseline/target/final rule), the temporary ones are not.
# Do not commit the output. Writing needs about 2x the heap in memory
# (tested: 50 MB target -> 49.8 MB file, 2.8 s, 0.36 GB peak RSS).
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  echo "usage: $0 TARGET_MB OUT.heapsnapshot [NEW.heapsnapshot [LATER.heapsnapshot]]" >&2
  exit 2
fi
target_mb="$1"
out="$2"
new="${3:-}"
later="${4:-}"
case "$target_mb" in ''|*[!0-9]*) echo "gen-big.sh: TARGET_MB must be a positive integer" >&2; exit 2 ;; esac

BASE_BYTES=3980000      # snapshot of the program with N=0
BYTES_PER_ITEM=521      # measured, Node 20.20.2
n=$(( (target_mb * 1000000 - BASE_BYTES) / BYTES_PER_ITEM ))
[ "$n" -lt 0 ] && n=0
leak=$(( n * ${LEAK_PERCENT:-5} / 100 ))
temp=$(( n * ${TEMP_PERCENT:-5} / 100 ))

# Give V8 room: the items plus the snapshot generator's own tables.
heap_mb=$(( 2048 + target_mb * 7 ))

start=$(date +%s%N)
args=("$out" "$n")
[ -n "$new" ] && args+=("$new" "$leak")
[ -n "$later" ] && args+=("$later" "$temp")
node --max-old-space-size="$heap_mb" "$(dirname "$0")/gen-big.js" "${args[@]}"
end=$(date +%s%N)
size=$(stat -c %s "$out")
awk -v o="$out" -v s="$size" -v n="$n" -v t="$(( (end - start) / 1000000 ))" \
  'BEGIN { printf "gen-big.sh: %s: %d bytes (%.1f MB), %d items, %.1f s\n", o, s, s / 1e6, n, t / 1000 }' >&2
if [ -n "$new" ]; then
  echo "gen-big.sh: $new: $(stat -c %s "$new") bytes, $leak more items${later:+ and $temp temporary ones}" >&2
fi
if [ -n "$later" ]; then
  echo "gen-big.sh: $later: $(stat -c %s "$later") bytes, the $temp temporary items dropped" >&2
fi
