package ir

import (
	"testing"
	"unsafe"
)

// TestPrefetchChangesNothing: a prefetch of any address, valid or not,
// neither faults nor changes the memory it names.
func TestPrefetchChangesNothing(t *testing.T) {
	x := [4]uint64{1, 2, 3, 4}
	for _, p := range []unsafe.Pointer{unsafe.Pointer(&x[2]), nil} {
		prefetch(p)
	}
	if x != [4]uint64{1, 2, 3, 4} {
		t.Errorf("memory changed: %v", x)
	}
}
