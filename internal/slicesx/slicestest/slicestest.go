// Package slicestest runs a package's tests with the memory slicesx
// leaves uncleared poisoned, so that a test that reads an element before
// it is written sees it.
package slicestest

import (
	"flag"
	"os"
	"testing"

	"github.com/heapconv/heapconv/internal/slicesx"
)

// Main is a package's TestMain: it sets slicesx.Poison, unless benchmarks
// run (they measure the code as users run it), and runs the tests.
func Main(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" {
		slicesx.Poison = 0xA5
	}
	os.Exit(m.Run())
}
