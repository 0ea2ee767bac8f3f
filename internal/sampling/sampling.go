// Package sampling is the test suite's one switch between its default run
// and its exhaustive run. `go test ./...` must stay fast enough for CI on a
// busy two-core machine, so tests that repeat one check over many inputs
// (the damage sweep, runs of external oracles, long loops of seeds) run a
// deterministic sample of them by default: the same inputs every run, so a
// failure reproduces. With HEAPCONV_EXHAUSTIVE=1 (scripts/exhaustive.sh
// sets it) they run every input. A reduced test says so in its log, so a
// passing default run never passes for the whole thing.
package sampling

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// Env is the environment variable that asks for the exhaustive run.
const Env = "HEAPCONV_EXHAUSTIVE"

// Exhaustive reports whether HEAPCONV_EXHAUSTIVE asks for every input. It
// takes what strconv.ParseBool does ("1", "true", "0", ...; unset is
// false) and panics on anything else: a misspelt value must not quietly
// give the sampled run.
func Exhaustive() bool {
	v, ok := os.LookupEnv(Env)
	if !ok || v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		panic(fmt.Sprintf("%s=%q: want 1 (every input) or 0 (the default sample)", Env, v))
	}
	return on
}

// Count returns how many of all inputs to run: all of them in an
// exhaustive run, otherwise at most sampled.
func Count(all, sampled int) int {
	if Exhaustive() || sampled >= all {
		return all
	}
	return max(sampled, 0)
}

// Spread returns k indices of 0..n-1 spread evenly from the first to the
// last, in increasing order (all of them when k >= n): a sample that keeps
// both ends of a range and covers its middle evenly. It does not look at
// the switch; callers choose k with Count.
func Spread(n, k int) []int {
	if k >= n {
		k = n
	}
	if k <= 0 {
		return nil
	}
	idx := make([]int, k)
	if k == 1 {
		return idx // the first
	}
	for i := range idx {
		idx[i] = int(int64(i) * int64(n-1) / int64(k-1))
	}
	return idx
}

// Ends returns which of n ordered cases to run (the cut points of a file,
// its prefixes): all of them in an exhaustive run; otherwise the first and
// the last ends of them, where a format's header and trailer are, and one
// in every of the others, spread evenly, at most limit of them (no limit
// when limit <= 0).
func Ends(n, ends, every, limit int) []int {
	inner := n - 2*ends
	if Exhaustive() || inner <= 0 || every <= 1 {
		return Spread(n, n)
	}
	k := (inner + every - 1) / every
	if limit > 0 {
		k = min(k, limit)
	}
	idx := Spread(ends, ends)
	for _, i := range Spread(inner, k) {
		idx = append(idx, ends+i)
	}
	for i := n - ends; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// Logf says on t that ran of all inputs were run, when that is fewer, and
// how to run them all; in an exhaustive run it says that all were.
func Logf(t testing.TB, ran, all int, what string) {
	t.Helper()
	switch {
	case ran < all:
		t.Logf("sampled: %d of %d %s; %s=1 for all", ran, all, what, Env)
	case Exhaustive():
		t.Logf("exhaustive: all %d %s", all, what)
	}
}
