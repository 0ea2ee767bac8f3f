#!/usr/bin/env bash
# How heapconv's time and memory grow with the size of a V8 snapshot: for
# each size, makes a snapshot with internal/v8gen (scripts/gen-v8.sh), then
# measures with GNU time, one command after another:
#
#   validate        read and check the file (the reader alone, end to end)
#   info            info --by retained: read, dominator tree, class table
#   to-ir           convert to .heapir.zst
#   from-ir         convert that back to .heapsnapshot (compared with cmp)
#   v8-v8           convert .heapsnapshot to .heapsnapshot (compared with cmp)
#
# and writes one CSV line per command and size to $BENCH_DIR/scale.csv
# (printed at the end): size_mb, nodes, edges, command, seconds,
# peak RSS in MiB, RSS / file size, and "exact" or "DIFFERENT" for the round
# trips. scripts/plot-scale.go turns the CSV into docs/scale.svg.
#
# Usage: scripts/bench-scale.sh [SIZE_MB...]      (default: 100 1000 10000)
#   Needs go, GNU time (apt-get install time) and, for 10000, about 25 GB of
#   free disk in $BENCH_DIR (default /tmp/heapconv-scale) and 24 GB of memory
#   (info --by retained of 10 GB peaks near 15 GB). Each size's files are
#   deleted before the next size is made.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/heapconv-scale}
mkdir -p "$dir"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000 10000)
for s in "${sizes[@]}"; do
  case "$s" in ''|*[!0-9]*) echo "bench-scale.sh: sizes are positive integers (MB)" >&2; exit 2 ;; esac
done
[ -x /usr/bin/time ] || { echo "bench-scale.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
go build -o "$dir/heapconv" ./cmd/heapconv
hc="$dir/heapconv"
csv="$dir/scale.csv"
echo "size_mb,nodes,edges,command,seconds,rss_mib,rss_per_file,result" >"$csv"

for s in "${sizes[@]}"; do
  snap="$dir/gen-$s.heapsnapshot"
  rm -f "$dir"/*.heapsnapshot "$dir"/*.heapir.zst
  bash scripts/gen-v8.sh "$s" "$snap" >&2
  bytes=$(stat -c %s "$snap")
  read -r nodes edges < <("$hc" info --json --top 0 "$snap" |
    sed 's/.*"nodes": *\([0-9]*\).*"edges": *\([0-9]*\).*/\1 \2/')
  measure() { # measure NAME RESULT CMD...: one CSV line
    local name=$1 result=$2
    shift 2
    sync
    /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null
    read -r secs kb <"$dir/time.txt"
    awk -v s="$s" -v n="$nodes" -v e="$edges" -v c="$name" -v t="$secs" -v k="$kb" \
      -v b="$bytes" -v r="$result" \
      'BEGIN { printf "%s,%s,%s,%s,%s,%.0f,%.2f,%s\n", s, n, e, c, t, k / 1024, k * 1024 / b, r }' >>"$csv"
    tail -1 "$csv" >&2
  }
  measure validate "" "$hc" validate "$snap"
  measure info "" "$hc" info --by retained "$snap"
  measure to-ir "" "$hc" convert "$snap" "$dir/gen.heapir.zst"
  # A round trip's result is known only after it: it goes into its line
  # afterwards.
  measure from-ir "" "$hc" convert "$dir/gen.heapir.zst" "$dir/back.heapsnapshot"
  cmp -s "$snap" "$dir/back.heapsnapshot" && r=exact || r=DIFFERENT
  sed -i '$ s/,$/,'"$r"'/' "$csv"
  rm -f "$dir/back.heapsnapshot" "$dir/gen.heapir.zst"
  measure v8-v8 "" "$hc" convert "$snap" "$dir/back.heapsnapshot"
  cmp -s "$snap" "$dir/back.heapsnapshot" && r=exact || r=DIFFERENT
  sed -i '$ s/,$/,'"$r"'/' "$csv"
  echo "round trips of $s MB: $(tail -2 "$csv" | cut -d, -f8 | tr '\n' ' ')" >&2
  rm -f "$snap" "$dir/back.heapsnapshot"
done
cat "$csv"
