#!/usr/bin/env bash
# Measure `heapconv explore` on a large snapshot against `heapconv info
# --by retained` on the same file, run alternately: the time until the
# explorer's Summary is served (its address printed, then the Summary
# answered) and its peak memory then, beside info's time and peak, and
# the same until every view can be answered (the retainer lists and
# distances made too); then each view's server time over random objects
# (BenchmarkExploreRequests).
#
# Usage: scripts/bench-explore.sh FILE [ROUNDS]
#   FILE   a heap snapshot (scripts/gen-big.sh or scripts/gen-v8.sh make
#          large ones); ROUNDS (default 3) runs of each command.
# Needs go, curl and GNU time. Prints Markdown rows for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
file=$1 rounds=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/heapconv" ./cmd/heapconv
hc=$dir/heapconv

explore_once() { # prints "seconds-to-summary peak-kB"
  local start pid url status
  start=$(date +%s.%N)
  "$hc" explore "$file" 2>"$dir/err" &
  pid=$!
  url=
  while [ -z "$url" ]; do
    sleep 0.05
    url=$(grep -o 'http://[^ ]*' "$dir/err" || true)
    kill -0 "$pid" 2>/dev/null || { cat "$dir/err" >&2; exit 1; }
  done
  base=${url%%/\?*} token=${url##*token=}
  status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/api/v1/heaps/0/classes")
  [ "$status" = 200 ] || { echo "the Summary answered $status" >&2; exit 1; }
  local end peak ready full
  end=$(date +%s.%N)
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  # An object's page waits for the retainer lists and distances: then
  # every view can be answered, and the memory is what serving holds.
  curl -s -o /dev/null -H "Authorization: Bearer $token" "$base/api/v1/heaps/0/objects/0"
  ready=$(date +%s.%N)
  full=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true  # a background job ignores SIGINT
  echo "$(echo "$end - $start" | bc) $peak $(echo "$ready - $start" | bc) $full"
}

echo '| run | `info --by retained` | `explore` until the Summary is served | until every view is |'
echo '| --- | --- | --- | --- |'
for r in $(seq "$rounds"); do
  /usr/bin/time -f "%e %M" -o "$dir/t" "$hc" info --by retained "$file" >/dev/null
  read -r is ik < "$dir/t"
  read -r es ek rs rk < <(explore_once)
  printf '| round %d | %s s, %s MiB | %.2f s, %s MiB: **%.2f×** time, **%.2f×** memory | %.2f s, %s MiB: %.2f×, %.2f× |\n' \
    "$r" "$is" "$((ik / 1024))" "$es" "$((ek / 1024))" "$(echo "$es / $is" | bc -l)" "$(echo "$ek / $ik" | bc -l)" \
    "$rs" "$((rk / 1024))" "$(echo "$rs / $is" | bc -l)" "$(echo "$rk / $ik" | bc -l)"
done
HEAPCONV_BENCH_NEW=$file go test -run '^$' -bench BenchmarkExploreRequests -benchtime 1x . | grep -E 'Benchmark|slowest'
