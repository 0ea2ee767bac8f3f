#!/usr/bin/env bash
# Measure diff, paths, the Parquet export and the HTML report on two ~1 GB
# V8 snapshots of one Node process, against reading the same files and
# against Chrome DevTools' own loader (heap-snapshot-toolkit) on them, in
# one run.
#
# Usage: scripts/bench-analysis.sh [OLD.heapsnapshot NEW.heapsnapshot]
#   Without them, makes a pair with scripts/gen-big-pair.sh 1000 in
#   $BENCH_DIR (default /tmp/heapconv-bench). Needs node, npm, go and GNU
#   time. Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/heapconv-bench}
mkdir -p "$dir"
old=${1:-$dir/old.heapsnapshot}
new=${2:-$dir/new.heapsnapshot}
if [ ! -f "$old" ] || [ ! -f "$new" ]; then
  echo "making two ~1 GB snapshots with node (takes a few minutes)..." >&2
  bash scripts/gen-big-pair.sh 1000 "$old" "$new" >&2
fi
go build -o "$dir/heapconv" ./cmd/heapconv
(cd conformance/devtools && [ -d node_modules ] || npm ci --no-audit --no-fund >&2)
hc=$dir/heapconv

timed() { # timed CMD... -> "seconds maxrss_kb"
  /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null
  cat "$dir/time.txt"
}
row() { # row LABEL SECONDS KB [NOTE]
  printf '| %s | %s s | %s MiB | %s |\n' "$1" "$2" "$(( $3 / 1024 ))" "${4:-}"
}
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN {printf "%.0f", b/1e6}'; }

# Reading alone: the V8 reader's benchmark on each file (in one process,
# no start-up): the baseline of the ratios.
readtime() {
  HEAPCONV_BENCH_FILE="$1" go test -run '^$' -bench '^BenchmarkReadFile$' -benchtime 2x ./readers/v8/ |
    awk '/BenchmarkReadFile/ {printf "%.2f", $3 / 1e9}'
}
v1=$(readtime "$old")
v2=$(readtime "$new")
echo "| command (${old##*/} $(mb "$old") MB, ${new##*/} $(mb "$new") MB; $(nproc) cores) | time | peak RSS | |"
echo "| --- | ---: | ---: | --- |"
echo "| reading OLD (\`BenchmarkReadFile\`) | $v1 s | | |"
echo "| reading NEW | $v2 s | | |"
read -r s k < <(timed "$hc" info "$new"); row "\`info\` NEW (read, class summary)" "$s" "$k"
read -r r k < <(timed "$hc" info --by retained "$new"); row "\`info --by retained\` NEW" "$r" "$k"
read -r s k < <(timed "$hc" diff --retained=false "$old" "$new")
row "\`diff --retained=false\` OLD NEW" "$s" "$k" "$(awk -v a="$s" -v b="$v1" -v c="$v2" 'BEGIN {printf "%.2fx reading both", a/(b+c)}')"
read -r s k < <(timed "$hc" diff "$old" "$new")
row "\`diff\` OLD NEW (with retained sizes)" "$s" "$k" "$(awk -v a="$s" -v b="$v1" -v c="$v2" 'BEGIN {printf "%.2fx reading both", a/(b+c)}')"
read -r s k < <(timed "$hc" paths --class Item --max 3 "$new")
row "\`paths --class Item --max 3\` NEW" "$s" "$k" "$(awk -v a="$s" -v b="$r" 'BEGIN {printf "%.2fx info --by retained", a/b}')"
rm -rf "$dir/tables" "$dir/new.heapir.zst"
read -r s k < <(timed "$hc" convert -q --to parquet "$new" "$dir/tables")
pq=$(du -sb "$dir/tables" | cut -f1)
read -r z zk < <(timed "$hc" convert -q "$new" "$dir/new.heapir.zst")
ir=$(stat -c %s "$dir/new.heapir.zst")
row "\`convert --to parquet\` NEW" "$s" "$k" "$(awk -v a="$s" -v b="$v2" -v p="$pq" -v i="$ir" 'BEGIN {printf "%.2fx reading it; %.0f MB of tables, %.2fx the .heapir.zst", a/b, p/1e6, p/i}')"
row "\`convert\` NEW to .heapir.zst" "$z" "$zk" "$(awk -v i="$ir" 'BEGIN {printf "%.0f MB", i/1e6}')"
rm -f "$dir/new.html"
read -r s k < <(timed "$hc" report "$new" "$dir/new.html"); row "\`report\` NEW" "$s" "$k"
dt=$(node --max-old-space-size=12000 conformance/devtools/loadtime.js "$new")
echo "| DevTools' loader, parse only (\`conformance/devtools/loadtime.js\`) NEW | $(printf '%s' "$dt" | sed 's/.*"parseSeconds":\([0-9.]*\).*/\1/') s | | |"
read -r s k < <(SUMMARY_TIMEOUT=1200 timed node --max-old-space-size=16000 conformance/devtools/summary.js "$new")
row "DevTools' loader and Summary (\`conformance/devtools/summary.js\`: parse, dominators, retained sizes, classes) NEW" "$s" "$k"
