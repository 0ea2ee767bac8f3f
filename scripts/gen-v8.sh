#!/usr/bin/env bash
# Make a big V8 heap snapshot for benchmarks and scale tests without running
# node: internal/v8gen writes, streaming, the heap Node 20 has for
# scripts/gen-big.sh's program (N Items in an array, a Map of every 4th),
# byte for byte in Node 20's layout, at several hundred MB/s in constant
# memory (under 10 MB), so a 10 GB file needs no 20 GB node heap. Up to
# 10100 MB: beyond, DevTools could not load the file.
#
# Usage: scripts/gen-v8.sh TARGET_MB OUT.heapsnapshot [SEED]
#   e.g. scripts/gen-v8.sh 1000 /tmp/big.heapsnapshot   (~1 GB, ~2.0 M Items, ~1.5 s)
#
# TARGET_MB is in 10^6 bytes; the file comes within a fraction of a percent
# of it. SEED (default 0: exactly the program's tags) varies the contents,
# not the size. OUT may be - for standard output. A summary line goes to
# standard error. Do not commit the output.
set -euo pipefail

if [ $# -ne 2 ] && [ $# -ne 3 ]; then
  echo "usage: $0 TARGET_MB OUT.heapsnapshot [SEED]" >&2
  exit 2
fi
target_mb="$1"
out="$2"
seed="${3:-0}"
case "$target_mb" in ''|*[!0-9]*|0) echo "gen-v8.sh: TARGET_MB must be a positive integer" >&2; exit 2 ;; esac
case "$seed" in ''|-|*[!0-9-]*|?*-*) echo "gen-v8.sh: SEED must be an integer" >&2; exit 2 ;; esac

root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/v8gen" ./internal/v8gen/cmd/v8gen)
"$tmp/v8gen" -size "$target_mb" -seed "$seed" -o "$out"
