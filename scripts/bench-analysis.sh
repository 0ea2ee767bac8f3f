#!/usr/bin/env bash
# Measure diff, paths, the Parquet export and the HTML report on two ~1 GB
# V8 snapshots of one Node process, against reading the same files and
# against Chrome DevTools' own loader (heap-snapshot-toolkit) on them, in
# one run.
#
# Usage: scripts/bench-analysis.sh [OLD.heapsnapshot NEW.heapsnapshot]
#   Without them, makes a pair with scripts/gen-big.sh 1000 OLD NEW in
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
  bash scripts/gen-big.sh 1000 "$old" "$new" >&2
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

# In one process, every case reading its files (BenchmarkAnalysis in the
# root package): the ratios of the targets.
bench=$(HEAPCONV_BENCH_OLD="$old" HEAPCONV_BENCH_NEW="$new" go test -run '^$' -bench '^BenchmarkAnalysis$' -benchtime 2x . |
  awk '/^BenchmarkAnalysis\// {sub(/^BenchmarkAnalysis\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "%s %.2f\n", $1, $3 / 1e9}')
get() { printf '%s\n' "$bench" | awk -v k="$1" '$1 == k {print $2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
echo "| in one process (\`go test -bench BenchmarkAnalysis -benchtime 2x .\`), each case reading its files | time | ratio |"
echo "| --- | ---: | --- |"
echo "| reading OLD and NEW | $(get read-both) s | |"
echo "| \`diff\` without retained sizes (read both, Compare) | $(get diff) s | $(ratio "$(get diff)" "$(get read-both)")x reading both (target ≤ 2) |"
echo "| \`diff\` with retained sizes | $(get diff-retained) s | $(ratio "$(get diff-retained)" "$(get read-both)")x reading both (target ≤ 2) |"
echo "| reading NEW | $(get read-new) s | |"
echo "| \`info --by retained\` NEW (read, dominators, classes) | $(get info-retained-new) s | |"
echo "| \`paths --class Item --max 3\` NEW (read, navigator, paths) | $(get paths-new) s | $(ratio "$(get paths-new)" "$(get info-retained-new)")x info --by retained (target ≤ 1) |"
echo "| Parquet export of NEW (read, tables.Write) | $(get tables-new) s | $(ratio "$(get tables-new)" "$(get read-new)")x reading it (target ≤ 2) |"
echo
echo "| command (${old##*/} $(mb "$old") MB, ${new##*/} $(mb "$new") MB; $(nproc) cores) | time | peak RSS | |"
echo "| --- | ---: | ---: | --- |"
read -r s k < <(timed "$hc" info "$new"); row "\`info\` NEW (read, class summary)" "$s" "$k"
read -r r k < <(timed "$hc" info --by retained "$new"); row "\`info --by retained\` NEW" "$r" "$k"
read -r s k < <(timed "$hc" diff --retained=false "$old" "$new")
row "\`diff --retained=false\` OLD NEW" "$s" "$k"
read -r s k < <(timed "$hc" diff "$old" "$new")
row "\`diff\` OLD NEW (with retained sizes)" "$s" "$k"
read -r s k < <(timed "$hc" paths --class Item --max 3 "$new")
row "\`paths --class Item --max 3\` NEW" "$s" "$k"
rm -rf "$dir/tables" "$dir/new.heapir.zst"
read -r s k < <(timed "$hc" convert -q --to parquet "$new" "$dir/tables")
pq=$(du -sb "$dir/tables" | cut -f1)
read -r z zk < <(timed "$hc" convert -q "$new" "$dir/new.heapir.zst")
ir=$(stat -c %s "$dir/new.heapir.zst")
row "\`convert --to parquet\` NEW" "$s" "$k" "$(awk -v p="$pq" -v i="$ir" 'BEGIN {printf "%.0f MB of tables, %.2fx the .heapir.zst (target ≤ 2)", p/1e6, p/i}')"
row "\`convert\` NEW to .heapir.zst" "$z" "$zk" "$(awk -v i="$ir" 'BEGIN {printf "%.0f MB", i/1e6}')"
rm -f "$dir/new.html"
read -r s k < <(timed "$hc" report "$new" "$dir/new.html"); row "\`report\` NEW" "$s" "$k"
dt=$(node --max-old-space-size=12000 conformance/devtools/loadtime.js "$new")
echo "| DevTools' loader, parse only (\`conformance/devtools/loadtime.js\`) NEW | $(printf '%s' "$dt" | sed 's/.*"parseSeconds":\([0-9.]*\).*/\1/') s | | |"
read -r s k < <(SUMMARY_TIMEOUT=1200 timed node --max-old-space-size=16000 conformance/devtools/summary.js "$new")
row "DevTools' loader and Summary (\`conformance/devtools/summary.js\`: parse, dominators, retained sizes, classes) NEW" "$s" "$k"
