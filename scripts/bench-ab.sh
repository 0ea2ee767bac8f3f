#!/usr/bin/env bash
# Compare the readers', writers' and IR stream's speed at two commits, in
# one run: builds each side's test binaries, then runs every benchmark old,
# new, old, new... (ROUNDS times), so that a busy machine slows both alike,
# and prints the median of each with the change. Moving code must keep the
# readers' and writers' rows within 5 %. A benchmark file (*bench*_test.go)
# the old commit lacks is copied into it, so that both sides run the same
# code: such a file uses only API both commits have (the root package's
# bench_test.go does).
#
# Usage: scripts/bench-ab.sh OLD [NEW]     # NEW defaults to HEAD
#   e.g. scripts/bench-ab.sh dfe52f1; ROUNDS=9 scripts/bench-ab.sh v0.4 main
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=${2:-HEAD}
rounds=${ROUNDS:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# package and benchmarks: each reader and writer on its benchmark input.
benches=(
  "readers/v8 ^BenchmarkRead(Compact|Rows)$"
  "writers/v8 ^BenchmarkWrite(Compact|Rows)$"
  "readers/dart ^Benchmark(Read|Write)$"
  "readers/moarvm ^BenchmarkRead$"
  "writers/moarvm ^BenchmarkWrite$"
  "readers/fuchsia ^BenchmarkRead$"
  ". ^BenchmarkIR(Encode|Decode)$"
)
git worktree add -q --detach "$dir/old" "$old"
git worktree add -q --detach "$dir/new" "$new"
for b in "${benches[@]}"; do
  pkg=${b%% *}
  for f in "$dir/new/$pkg"/*bench*_test.go; do
    if [ -e "$f" ] && [ ! -e "$dir/old/$pkg/${f##*/}" ]; then
      cp "$f" "$dir/old/$pkg/"
    fi
  done
done
for side in old new; do
  for b in "${benches[@]}"; do
    pkg=${b%% *}
    (cd "$dir/$side" && go test -c -o "$dir/$side-${pkg//\//-}.test" "./$pkg")
  done
done
for ((i = 0; i < rounds; i++)); do
  for b in "${benches[@]}"; do
    pkg=${b%% *} re=${b#* }
    for side in old new; do
      (cd "$dir/$side/$pkg" && "$dir/$side-${pkg//\//-}.test" -test.run '^$' -test.bench "$re" -test.benchtime 3x) |
        awk -v s=$side -v p=$pkg '/^Benchmark/ {print p, $1, s, $3}'
    done
  done
done >"$dir/runs.txt"
git worktree remove --force "$dir/old"
git worktree remove --force "$dir/new"
echo "| package | benchmark | $old | $new | change |"
echo "| --- | --- | ---: | ---: | ---: |"
sort "$dir/runs.txt" | awk '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { key = $1 " " $2; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
    if ($3 == "old") old[key, ++no[key]] = $4; else nw[key, ++nn[key]] = $4 }
  END {
    for (k = 1; k <= nk; k++) {
      key = keys[k]; split(key, kp, " ")
      delete a; for (i = 1; i <= no[key]; i++) a[i] = old[key, i]; mo = median(a, no[key])
      delete a; for (i = 1; i <= nn[key]; i++) a[i] = nw[key, i]; mn = median(a, nn[key])
      printf "| %s | %s | %.1f ms | %.1f ms | %+.1f %% |\n", kp[1], kp[2], mo / 1e6, mn / 1e6, 100 * (mn - mo) / mo
    }
  }'
