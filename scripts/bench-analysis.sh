#!/usr/bin/env bash
# Measure diff (with its leak suspects), paths, the Parquet export and the
# HTML report on three ~1 GB V8 snapshots of one Node process, against
# reading the same files, against Chrome DevTools' own loader
# (heap-snapshot-toolkit) and against memlab's find-leaks on the same
# triple, in one run.
#
# Usage: scripts/bench-analysis.sh [OLD NEW LATER]
#   Without them, makes a triple with scripts/gen-big.sh 1000 OLD NEW LATER
#   in $BENCH_DIR (default /tmp/heapconv-bench), and a small one (150 MB,
#   $SMALL_MB) for memlab. Needs node, npm, go and GNU time; installs npm
#   memlab into $BENCH_DIR/memlab (not the repository). Prints Markdown
#   tables for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/heapconv-bench}
mkdir -p "$dir"
old=${1:-$dir/old.heapsnapshot}
new=${2:-$dir/new.heapsnapshot}
later=${3:-$dir/later.heapsnapshot}
if [ ! -f "$old" ] || [ ! -f "$new" ] || [ ! -f "$later" ]; then
  echo "making three ~1 GB snapshots with node (takes about five minutes)..." >&2
  bash scripts/gen-big.sh 1000 "$old" "$new" "$later" >&2
fi
small_mb=${SMALL_MB:-150}
sold=$dir/s-old.heapsnapshot snew=$dir/s-new.heapsnapshot slater=$dir/s-later.heapsnapshot
if [ ! -f "$sold" ] || [ ! -f "$snew" ] || [ ! -f "$slater" ]; then
  bash scripts/gen-big.sh "$small_mb" "$sold" "$snew" "$slater" >&2
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
# root package): the ratios of the targets. BenchmarkSuspects: what the
# suspects add once the last heap's navigator is made.
bench=$(HEAPCONV_BENCH_OLD="$old" HEAPCONV_BENCH_NEW="$new" HEAPCONV_BENCH_LATER="$later" go test -run '^$' -bench '^BenchmarkAnalysis$' -benchtime 2x . |
  awk '/^BenchmarkAnalysis\// {sub(/^BenchmarkAnalysis\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "%s %.2f\n", $1, $3 / 1e9}')
sus=$(HEAPCONV_BENCH_OLD="$old" HEAPCONV_BENCH_NEW="$new" HEAPCONV_BENCH_LATER="$later" go test -run '^$' -bench '^BenchmarkSuspects$' -benchtime 1x ./ir/analysis/ |
  awk '/^BenchmarkSuspects\// {sub(/^BenchmarkSuspects\//, "", $1); sub(/-[0-9]+$/, "", $1); printf "%s %.2f\n", $1, $3 / 1e9}')
get() { printf '%s\n' "$bench" "$sus" | awk -v k="$1" '$1 == k {print $2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
echo "| in one process (\`go test -bench BenchmarkAnalysis -benchtime 2x .\`), each case reading its files | time | ratio |"
echo "| --- | ---: | --- |"
echo "| reading OLD, NEW and LATER | $(get read-all) s | |"
echo "| \`diff\` OLD NEW LATER without retained sizes (read all three, Compare with the default suspects) | $(get diff) s | $(ratio "$(get diff)" "$(get read-all)")x reading them (target ≤ 2) |"
echo "| \`diff\` OLD NEW LATER with retained sizes and suspects | $(get diff-retained) s | $(ratio "$(get diff-retained)" "$(get read-all)")x reading them (target ≤ 2) |"
echo "| the suspects alone, once LATER's navigator is made (\`BenchmarkSuspects -benchtime 1x ./ir/analysis/\`) | $(get suspects) s | |"
echo "| the leaked objects grouped by path alone (same benchmark) | $(get leaked-by-path) s | |"
echo "| reading NEW | $(get read-new) s | |"
echo "| \`info --by retained\` NEW (read, dominators, classes) | $(get info-retained-new) s | |"
echo "| \`paths --class Item --max 3\` NEW (read, navigator, paths) | $(get paths-new) s | $(ratio "$(get paths-new)" "$(get info-retained-new)")x info --by retained (target ≤ 1) |"
echo "| Parquet export of NEW (read, tables.Write) | $(get tables-new) s | $(ratio "$(get tables-new)" "$(get read-new)")x reading it (target ≤ 2) |"
echo
echo "| command (${old##*/} $(mb "$old") MB, ${new##*/} $(mb "$new") MB, ${later##*/} $(mb "$later") MB; $(nproc) cores) | time | peak RSS | |"
echo "| --- | ---: | ---: | --- |"
read -r s k < <(timed "$hc" info "$new"); row "\`info\` NEW (read, class summary)" "$s" "$k"
read -r r k < <(timed "$hc" info --by retained "$new"); row "\`info --by retained\` NEW" "$r" "$k"
read -r s k < <(timed "$hc" diff --retained=false "$old" "$new" "$later")
row "\`diff --retained=false\` OLD NEW LATER" "$s" "$k"
read -r s k < <(timed "$hc" diff "$old" "$new" "$later")
row "\`diff\` OLD NEW LATER (with retained sizes)" "$s" "$k" "first suspect: $("$hc" diff --retained=false "$old" "$new" "$later" | awk '/^ 1\. / {sub(/^ 1\. /, ""); print; exit}')"
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

# memlab (npm), installed into a scratch directory. Its bin runs node with
# --max-old-space-size=4096, which a NODE_OPTIONS setting does not raise
# (the command line wins), so node is run with a larger heap directly.
ml=$dir/memlab
if [ ! -x "$ml/node_modules/.bin/memlab" ]; then
  mkdir -p "$ml"
  (cd "$ml" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab >&2)
fi
memlab() { # memlab OLD NEW LATER LABEL
  rm -rf "$dir/memlab-work" && mkdir -p "$dir/memlab-work"
  local out=$dir/memlab-$4.txt t s k rc=0
  /usr/bin/time -f "%e %M" -o "$dir/time.txt" timeout "${MEMLAB_TIMEOUT:-1800}" \
    node --expose-gc --max-old-space-size="${MEMLAB_HEAP_MB:-16000}" "$ml/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$1" --target "$2" --final "$3" --work-dir "$dir/memlab-work" >"$out" 2>&1 || rc=$?
  read -r s k < <(tail -n 1 "$dir/time.txt") # after "Command exited with non-zero status", if it did
  t=$(grep -a -o 'MemLab found [0-9]* leak(s)' "$out" || echo "exit $rc: $(grep -av $'\e' "$out" | tail -1)")
  row "\`memlab find-leaks --baseline OLD --target NEW --final LATER\` ($4)" "$s" "$k" "$t"
}
echo
echo "| command | time | peak RSS | |"
echo "| --- | ---: | ---: | --- |"
read -r s k < <(timed "$hc" diff "$sold" "$snew" "$slater")
row "\`heapconv diff\` OLD NEW LATER (small: $(mb "$sold"), $(mb "$snew"), $(mb "$slater") MB)" "$s" "$k"
read -r s k < <(timed "$hc" diff --retained=false "$sold" "$snew" "$slater")
row "\`heapconv diff --retained=false\` OLD NEW LATER (small)" "$s" "$k"
memlab "$sold" "$snew" "$slater" small
memlab "$old" "$new" "$later" 1GB
