#!/usr/bin/env bash
# Regenerate the Fuchsia heapdump fixtures in testdata/fuchsia (and the FIDL
# element streams in testdata/fuchsia-fidl) from
# internal/fuchsiagen (a generator of what `ffx profile heapdump snapshot`
# writes, era by era; no real ffx output is public, see
# testdata/fuchsia/MANIFEST.txt).
#
# Usage: scripts/gen-fuchsia-fixtures.sh          # the committed fixtures
#        scripts/gen-fuchsia-fixtures.sh big [DIR] # a 1,000,000-block heap with
#                                                  # contents for benchmarks, in DIR
#                                                  # (default /tmp/heapconv-bench/fuchsia);
#                                                  # never committed
set -euo pipefail
cd "$(dirname "$0")/.."
gen() { go run ./internal/fuchsiagen/cmd/fuchsiagen "$@"; }
case "${1:-fixtures}" in
fixtures)
  # Contents directories are rewritten from scratch.
  rm -rf testdata/fuchsia/*.contents
  gen -fixtures testdata/fuchsia
  rm -f testdata/fuchsia-fidl/*.fidlstream
  gen -fidl-fixtures testdata/fuchsia-fidl
  ;;
big)
  dir=${2:-/tmp/heapconv-bench/fuchsia}
  mkdir -p "$dir"
  rm -rf "$dir/big-1m.contents" "$dir/big-1m.pb.gz"
  gen -seed 1000000 -allocs 1000000 -contents -era newest \
    -o "$dir/big-1m.pb.gz" -contents-dir "$dir/big-1m.contents"
  ;;
*)
  echo "usage: $0 [fixtures | big [DIR]]" >&2
  exit 2
  ;;
esac
