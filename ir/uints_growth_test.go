package ir

import (
	"runtime"
	"testing"
)

// TestUintsGrowthCost checks that a column appended to without a declared
// count allocates at most twice its final capacity (so at most four times
// its length) on the way, where append's quarter-at-a-time growth of big
// slices costs five times the capacity, and that Trim then gives back the
// unused capacity without changing a value.
func TestUintsGrowthCost(t *testing.T) {
	const n, batch = 1 << 20, 1000
	vals := make([]uint64, batch)
	for i := range vals {
		vals[i] = uint64(1000 + i) // 4-byte values after the first batch
	}
	var c Uints
	c.AppendAll(make([]uint64, batch)) // zeros first: no storage yet
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for c.Len() < n {
		c.AppendAll(vals)
	}
	runtime.ReadMemStats(&after)
	final := c.Len() * 4
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(final)*4 {
		t.Errorf("appending %d 4-byte values allocated %d bytes, want at most %d", c.Len(), got, final*4)
	}
	if c.Width() != 4 {
		t.Fatalf("width %d, want 4", c.Width())
	}
	c.Trim()
	if cap(c.u32)-len(c.u32) > len(c.u32)/8 {
		t.Errorf("after Trim: capacity %d for %d values", cap(c.u32), len(c.u32))
	}
	for i := 0; i < c.Len(); i++ {
		want := uint64(0)
		if i >= batch {
			want = vals[i%batch]
		}
		if got := c.At(i); got != want {
			t.Fatalf("value %d = %d after Trim, want %d", i, got, want)
		}
	}
}
