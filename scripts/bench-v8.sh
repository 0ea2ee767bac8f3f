#!/usr/bin/env bash
# Measure heapconv's V8 reader and V8 -> IR -> V8 conversion on a ~1 GB
# snapshot made by node, against Chrome DevTools' own loader
# (heap-snapshot-toolkit) parsing the same file, in one run.
#
# Usage: scripts/bench-v8.sh [SNAPSHOT]
#   Without SNAPSHOT, makes one with scripts/gen-big.sh 1000 in $BENCH_DIR
#   (default /tmp/heapconv-bench). Needs node, npm, go and GNU time
#   (apt-get install time). Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/heapconv-bench}
mkdir -p "$dir"
snap=${1:-$dir/big.heapsnapshot}
if [ ! -f "$snap" ]; then
  echo "making a ~1 GB snapshot with node (takes a minute or two)..." >&2
  bash scripts/gen-big.sh 1000 "$snap" >&2
fi
size=$(stat -c %s "$snap")
go build -o "$dir/heapconv" ./cmd/heapconv
(cd conformance/devtools && [ -d node_modules ] || npm ci --no-audit --no-fund >&2)

timed() { # timed LABEL CMD... -> "seconds maxrss_kb"
  /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null
  cat "$dir/time.txt"
}

echo "file: $snap ($size bytes)" >&2
read -r info_s info_kb < <(timed "$dir/heapconv" info "$snap")
rm -f "$dir/out.heapsnapshot"
read -r conv_s conv_kb < <(timed "$dir/heapconv" convert --force "$snap" "$dir/out.heapsnapshot")
cmp -s "$snap" "$dir/out.heapsnapshot" && exact=byte-exact || exact=DIFFERENT
rm -f "$dir/out.heapsnapshot" "$dir/out.heapir.zst"
read -r ir_s ir_kb < <(timed "$dir/heapconv" convert --force "$snap" "$dir/out.heapir.zst")
irsize=$(stat -c %s "$dir/out.heapir.zst")
rm -f "$dir/out.heapir.zst"
readbench=$(HEAPCONV_BENCH_FILE="$snap" go test -run '^$' -bench '^BenchmarkReadFile$' -benchtime 3x ./readers/v8/ | awk '/BenchmarkReadFile/ {print $5}')
dt=$(node --max-old-space-size=12000 conformance/devtools/loadtime.js "$snap")
dt_s=$(printf '%s' "$dt" | sed 's/.*"parseSeconds":\([0-9.]*\).*/\1/')
dt_mbs=$(printf '%s' "$dt" | sed 's/.*"mbPerSecond":\([0-9.]*\).*/\1/')

mb=$(awk -v b="$size" 'BEGIN {printf "%.0f", b/1e6}')
ratio=$(awk -v a="$readbench" -v b="$dt_mbs" 'BEGIN {printf "%.1f", a/b}')
rss_ratio=$(awk -v k="$conv_kb" -v b="$size" 'BEGIN {printf "%.2f", k*1024/b}')
cat <<TABLE
| measurement ($mb MB Node 20 snapshot, $(nproc) cores) | result |
| --- | --- |
| V8 read, \`go test -bench ReadFile\` | $readbench MB/s |
| DevTools loader (heap-snapshot-toolkit) parse only | $dt_mbs MB/s ($dt_s s); heapconv is ${ratio}x faster |
| \`heapconv info\` (read + summary) | $info_s s, peak RSS $((info_kb / 1024)) MiB |
| \`heapconv convert\` V8 -> IR -> V8 | $conv_s s, peak RSS $((conv_kb / 1024)) MiB (${rss_ratio}x the file), $exact |
| \`heapconv convert\` V8 -> .heapir.zst | $ir_s s, peak RSS $((ir_kb / 1024)) MiB, $((irsize / 1000000)) MB |
TABLE
