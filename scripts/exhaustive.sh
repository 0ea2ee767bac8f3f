#!/usr/bin/env bash
# The exhaustive test suite, which CI runs after `go test ./...` (.ci/run).
#
# `go test ./...` runs a fixed, deterministic sample of the suite's
# repetitive parts (the tests log "sampled: N of M ..."); this script runs:
#
#   full   HEAPCONV_EXHAUSTIVE=1 go test ./...: every input the sample
#          leaves out (the whole damage sweep, every DevTools and pprof
#          check, every prefix, seed and size), TestCraftedCounts again;
#          then the packages with assembly or a runtime linkname built
#          with -tags purego
#   race   the race detector on the code that runs goroutines or is used
#          from several at once: the readers, the writers, ir/devtools, internal/fidl,
#          the dominator computation (ir/analysis), the roundtrip, signal and
#          compressed-input commands, the gzip/zstd wrappers, and
#          conformance's TestConcurrentUse (default sample sizes)
#   fuzz   every fuzz target for FUZZTIME each (scripts/fuzz.sh; default
#          10s)
#
# Usage: scripts/exhaustive.sh [PART...]   # default: full race fuzz
#   e.g. scripts/exhaustive.sh race; FUZZTIME=1m scripts/exhaustive.sh fuzz
#
# Every go test has an explicit -timeout, far above what the part takes
# on a busy machine, so a hang fails with a stack trace instead of
# running on. Each part prints its commands and how long it took; a
# failed command fails the script after everything else has run.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-10s}

# run prints a command and runs it; a failure is recorded in failed (and
# the part goes on: its other commands test other things).
failed=0
run() {
  echo "+ $*" >&2
  if ! "$@"; then
    echo "FAILED: $*" >&2
    failed=1
  fi
}

part_full() {
  # The damage sweep reads one input at a time (it measures what each read
  # allocates), so it keeps one core busy for minutes: the V8 fixtures'
  # sweep, half of it, runs in a second test process beside the rest,
  # with the DevTools check of the damaged files it accepts. Packages that
  # do not read HEAPCONV_EXHAUSTIVE come from the test cache when
  # `go test ./...` just passed.
  local v8sweep='^TestSweep$/^(v8|devtools)$' log pid
  log=$(mktemp)
  (
    failed=0
    run env HEAPCONV_EXHAUSTIVE=1 go test -timeout 60m -run "$v8sweep" ./conformance
    exit $failed
  ) >"$log" 2>&1 &
  pid=$!
  run env HEAPCONV_EXHAUSTIVE=1 go test -timeout 60m -skip "$v8sweep" ./...
  if ! wait "$pid"; then
    failed=1
  fi
  cat "$log" >&2
  rm -f "$log"
  # The pure-Go fallback of the assembly (ir's prefetch), which other
  # architectures build, and make in place of slicesx's uncleared
  # allocation, with the code that uses them.
  run go test -timeout 15m -tags purego ./ir ./internal/slicesx ./readers/dart
}

part_race() {
  run go test -race -timeout 30m ./readers/... ./writers/... ./ir/devtools ./internal/fidl
  run go test -race -timeout 15m -run '^(TestDominators|TestNavigator|TestCompare)' ./ir/analysis
  run go test -race -timeout 15m ./tables
  # capture: the WebSocket readers, the pipe into the conversion.
  run go test -race -timeout 15m ./capture
  run go test -race -timeout 15m -run '^(TestCaptureFile|TestCaptureFileFailures|TestCaptureCommand)$' ./cmd/heapconv .
  run go test -race -timeout 15m -run '^(TestRoundtripCommand|TestInterrupted|TestCompressedInput|TestOpen|TestWrapperErrors)$' ./cmd/heapconv .
  run go test -race -timeout 15m -run '^(TestConcurrentUse|TestDiffFindsNodeLeak|TestRetainerPathsMatchDevTools)$' ./conformance
}

part_fuzz() {
  run scripts/fuzz.sh "$fuzztime"
}

parts=("$@")
if [ ${#parts[@]} -eq 0 ]; then
  parts=(full race fuzz)
fi
for p in "${parts[@]}"; do
  case $p in
  full | race | fuzz) ;;
  *)
    echo "exhaustive.sh: unknown part $p (want full, race or fuzz)" >&2
    exit 2
    ;;
  esac
done

status=0
summary=()
start_all=$SECONDS
for p in "${parts[@]}"; do
  echo "=== $p" >&2
  start=$SECONDS
  failed=0
  "part_$p"
  result=ok
  if [ $failed -ne 0 ]; then
    result=FAILED
    status=1
  fi
  took=$((SECONDS - start))
  line=$(printf '%-5s %-6s %dm%02ds' "$p" "$result" $((took / 60)) $((took % 60)))
  echo "=== $line" >&2
  summary+=("$line")
done
took=$((SECONDS - start_all))
echo "=== exhaustive.sh: parts" >&2
printf '  %s\n' "${summary[@]}" >&2
printf '  total        %dm%02ds\n' $((took / 60)) $((took % 60)) >&2
exit $status
