#!/usr/bin/env bash
# Run every fuzz target in the module for a fixed time each.
#
# Usage: scripts/fuzz.sh [DURATION]   # default 10s (what CI runs); e.g. 10m
#
# A target that finds a failure stops with the failing input written to its
# package's testdata/fuzz/<Target>/ directory: commit it as a regression seed.
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10s}
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
  for t in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
    echo "$(dirname "$f") $t"
  done
done)
n=$(echo "$targets" | wc -l)
echo "fuzzing $n targets for $dur each" >&2
echo "$targets" | while read -r dir t; do
  echo "== $dir $t" >&2
  go test -run '^$' -fuzz "^$t\$" -fuzztime "$dur" "$dir"
done
