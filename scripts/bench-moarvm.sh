#!/usr/bin/env bash
# Measure heapconv's MoarVM reader on a big multi-snapshot file made by a
# real Rakudo run, against bare zstd decompression of the same blocks.
#
# Usage: scripts/bench-moarvm.sh [FILE.mvmheap]
#   Without FILE, installs Debian's rakudo if needed (apt-get install rakudo;
#   its MoarVM writes format v2), profiles a program that builds a
#   60,000-entry hash (21 snapshots, ~900 MB of v2), and converts that with
#   heapconv to v3 (~96 MB): the v3 blocks hold MoarVM's own data, compressed
#   by heapconv rather than by MoarVM. Files go to $BENCH_DIR (default
#   /tmp/heapconv-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/heapconv-bench}
mkdir -p "$dir"
go build -o "$dir/heapconv" ./cmd/heapconv
file=${1:-$dir/hash60k-v3.mvmheap}
if [ ! -f "$file" ]; then
  command -v raku >/dev/null || apt-get install -y rakudo >&2
  if [ ! -f "$dir/hash60k.mvmheap" ]; then
    echo "profiling a Rakudo program (a minute or two)..." >&2
    (cd "$dir" && raku --profile=hash60k.mvmheap \
      -e 'my %h; for ^60000 { %h{"k$_"} = [$_, "v$_"] }; say %h.elems' >&2)
  fi
  "$dir/heapconv" convert --force "$dir/hash60k.mvmheap" "$file"
fi
ls -l "$file" >&2
"$dir/heapconv" info --top 0 "$file" | head -3 >&2
# The peers, in the same run: the same frames decompressed by the Go zstd
# library heapconv uses (BenchmarkDecompress, one core;
# BenchmarkDecompressParallel, every core) and by the zstd command (C, one
# core), which reads them from the file BenchmarkDecompress writes.
frames="$dir/frames.zst"
HEAPCONV_BENCH_MOARVM=$(realpath "$file") HEAPCONV_BENCH_FRAMES="$frames" \
  go test -run '^$' -bench 'Read$|Decompress' -benchtime 5x ./readers/moarvm
for _ in 1 2 3; do
  /usr/bin/time -f "zstd -d of the same frames: %e s" zstd -d -q -c "$frames" >/dev/null
done
echo "decompressed: $(zstd -d -q -c "$frames" | wc -c) bytes" >&2
rm -f "$frames"
/usr/bin/time -f "heapconv info: %e s, peak RSS %M KB" "$dir/heapconv" info --top 0 "$file" >/dev/null
