package dart_test

import (
	"testing"

	"github.com/heapconv/heapconv/internal/slicesx/slicestest"
)

// TestMain poisons the memory the reader makes its columns in without
// clearing it, so that an entry read before it is written shows in the
// tests' comparisons (split reads against reads on one core, files
// written back byte for byte).
func TestMain(m *testing.M) { slicestest.Main(m) }
