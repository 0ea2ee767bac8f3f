#!/usr/bin/env bash
# Regenerate the Dart fixtures and the bundled sample from internal/dartgen
# (a generator of realistic Flutter-app heaps in the Dart VM's exact layout;
# no real Dart VM file could be obtained, see testdata/dart/MANIFEST.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # gen SEED OBJECTS GENERATION OUT
  go run ./internal/dartgen/cmd/dartgen -seed "$1" -objects "$2" -gen "$3" -o "$tmp/x" >/dev/null
  zstd -q -19 -f "$tmp/x" -o "$4"
}
gen 1 3000 vm testdata/dart/flutter-vm-3k.dartheap.zst
gen 2 3000 nohash testdata/dart/flutter-nohash-3k.dartheap.zst
gen 3 3000 export testdata/dart/flutter-export-3k.dartheap.zst
gen 4 20000 vm testdata/samples/flutter-counter.dartheap.zst
