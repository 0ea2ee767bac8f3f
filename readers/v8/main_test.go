package v8_test

import (
	"flag"
	"os"
	"testing"

	"github.com/heapconv/heapconv/internal/slicesx"
)

// TestMain poisons the memory the reader makes its columns in without
// clearing it, so that an entry read before it is written shows in the
// tests' checks (reads in every mode give the same errors, files are
// written back byte for byte). Benchmarks run unpoisoned, as users do.
func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" {
		slicesx.Poison = 0xA5
	}
	os.Exit(m.Run())
}
