//go:build !purego

package slicesx

import (
	"math"
	"runtime"
	"testing"
)

func TestMakeUncleared(t *testing.T) {
	defer func(p byte) { Poison = p }(Poison)
	for _, c := range []struct {
		len, cap int
		cleared  bool // made by make, as clearing it costs nothing worth saving
	}{
		{0, 0, true}, {3, 10, true}, {0, minUncleared/4 - 1, true},
		{0, minUncleared / 4, false}, {5, 1 << 20, false}, {1 << 20, 1 << 20, false},
	} {
		for _, poison := range []byte{0, 0x5a} {
			Poison = poison
			s := MakeUncleared[uint32](c.len, c.cap)
			if len(s) != c.len || cap(s) != c.cap {
				t.Errorf("MakeUncleared(%d, %d): len %d cap %d", c.len, c.cap, len(s), cap(s))
				continue
			}
			want := uint32(poison) * 0x01010101
			if poison == 0 && !c.cleared {
				continue // anything
			}
			for i, v := range s[:cap(s)] {
				if v != want {
					t.Errorf("MakeUncleared(%d, %d), poison %#x: [%d] = %#x, want %#x", c.len, c.cap, poison, i, v, want)
					break
				}
			}
		}
	}
}

// TestMakeUnclearedRefuses checks that what make refuses panics as make
// does, with a runtime error a caller can recover, not a fatal error.
func TestMakeUnclearedRefuses(t *testing.T) {
	for _, c := range []struct{ len, cap int }{
		{-1, 1 << 20}, {1<<20 + 1, 1 << 20}, {0, math.MaxInt},
	} {
		func() {
			defer func() {
				if _, ok := recover().(runtime.Error); !ok {
					t.Errorf("MakeUncleared(%d, %d) did not panic with a runtime error", c.len, c.cap)
				}
			}()
			MakeUncleared[uint64](c.len, c.cap)
		}()
	}
}

// BenchmarkMake and BenchmarkMakeUncleared make a 64 MiB column and drop
// it, so that the next is made in the memory it left: make clears it
// again, MakeUncleared does not.
func BenchmarkMake(b *testing.B) {
	b.SetBytes(columnSize)
	for b.Loop() {
		sink = make([]uint32, columnSize/4)
	}
}

func BenchmarkMakeUncleared(b *testing.B) {
	b.SetBytes(columnSize)
	for b.Loop() {
		sink = MakeUncleared[uint32](columnSize/4, columnSize/4)
	}
}

const columnSize = 64 << 20

var sink []uint32
