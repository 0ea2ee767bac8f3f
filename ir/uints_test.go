package ir_test

import (
	"math"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

func TestUintsWidening(t *testing.T) {
	type step struct {
		v     uint64
		width int
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"zeros stay width 0", []step{{0, 0}, {0, 0}, {0, 0}}},
		{"0 to 1 to 4 to 8", []step{{0, 0}, {1, 1}, {255, 1}, {256, 4}, {math.MaxUint32, 4}, {math.MaxUint32 + 1, 8}, {math.MaxUint64, 8}, {0, 8}}},
		{"0 straight to 8", []step{{0, 0}, {0, 0}, {1 << 40, 8}, {3, 8}}},
		{"0 straight to 4", []step{{0, 0}, {70000, 4}, {1, 4}}},
		{"1 straight to 8", []step{{7, 1}, {1 << 33, 8}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c ir.Uints
			var want []uint64
			for i, s := range tc.steps {
				c.Append(s.v)
				want = append(want, s.v)
				if got := c.Width(); got != s.width {
					t.Fatalf("after append #%d (%d): width %d, want %d", i, s.v, got, s.width)
				}
				if c.Len() != len(want) {
					t.Fatalf("after append #%d: Len %d, want %d", i, c.Len(), len(want))
				}
				for j, w := range want {
					if got := c.At(j); got != w {
						t.Fatalf("after append #%d: At(%d) = %d, want %d", i, j, got, w)
					}
				}
			}
		})
	}
}

func TestUintsSet(t *testing.T) {
	tests := []struct {
		name      string
		init      []uint64
		zeros     int // appended with AppendZeros after init
		i         int
		v         uint64
		wantWidth int
	}{
		{"set zero in all-zero column keeps width 0", nil, 3, 1, 0, 0},
		{"set small in all-zero column", nil, 3, 2, 9, 1},
		{"set wide in all-zero column", nil, 3, 0, 300, 4},
		{"set 64-bit in byte column", []uint64{1, 2, 3}, 0, 1, 1 << 50, 8},
		{"set smaller does not narrow", []uint64{1 << 40, 2}, 0, 0, 1, 8},
		{"set after zeros in 4-byte column", []uint64{1000}, 2, 2, 5, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ir.UintsOf(tc.init...)
			c.AppendZeros(tc.zeros)
			want := append(append([]uint64(nil), tc.init...), make([]uint64, tc.zeros)...)
			c.Set(tc.i, tc.v)
			want[tc.i] = tc.v
			if c.Width() != tc.wantWidth {
				t.Errorf("width %d, want %d", c.Width(), tc.wantWidth)
			}
			if c.Len() != len(want) {
				t.Fatalf("Len %d, want %d", c.Len(), len(want))
			}
			for j, w := range want {
				if c.At(j) != w {
					t.Errorf("At(%d) = %d, want %d", j, c.At(j), w)
				}
			}
		})
	}
}

func TestUintsOutOfRangePanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"Set past end of zero column", func() { var c ir.Uints; c.AppendZeros(2); c.Set(2, 1) }},
		{"Set negative", func() { c := ir.UintsOf(1); c.Set(-1, 1) }},
		{"At past end of zero column", func() { var c ir.Uints; c.AppendZeros(2); c.At(2) }},
		{"At past end of byte column", func() { c := ir.UintsOf(1, 2); c.At(2) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tc.f()
		})
	}
}

func TestUintsAppendZeros(t *testing.T) {
	for _, init := range [][]uint64{nil, {5}, {70000}, {1 << 40}} {
		c := ir.UintsOf(init...)
		w := c.Width()
		c.AppendZeros(4)
		c.Append(0)
		if c.Width() != w {
			t.Errorf("init %v: width changed %d -> %d", init, w, c.Width())
		}
		if c.Len() != len(init)+5 {
			t.Errorf("init %v: Len %d, want %d", init, c.Len(), len(init)+5)
		}
		for i := len(init); i < c.Len(); i++ {
			if c.At(i) != 0 {
				t.Errorf("init %v: At(%d) = %d, want 0", init, i, c.At(i))
			}
		}
		// A later wide value keeps the zeros.
		c.Append(1 << 62)
		for i := len(init); i < c.Len()-1; i++ {
			if c.At(i) != 0 {
				t.Errorf("init %v after widening: At(%d) = %d, want 0", init, i, c.At(i))
			}
		}
		if len(init) > 0 && c.At(0) != init[0] {
			t.Errorf("init %v after widening: At(0) = %d", init, c.At(0))
		}
	}
}

func TestUintsSumMax(t *testing.T) {
	tests := []struct {
		name     string
		vs       []uint64
		sum, max uint64
	}{
		{"empty", nil, 0, 0},
		{"zeros", []uint64{0, 0, 0}, 0, 0},
		{"bytes", []uint64{255, 255, 255, 1}, 766, 255},
		{"u32 beyond 32 bits", []uint64{math.MaxUint32, math.MaxUint32, 2}, 2*math.MaxUint32 + 2, math.MaxUint32},
		{"u64 saturates", []uint64{math.MaxUint64, 1}, math.MaxUint64, math.MaxUint64},
		{"u64 saturates in the middle", []uint64{math.MaxUint64 - 5, 10, 3}, math.MaxUint64, math.MaxUint64 - 5},
		{"u64 exact max", []uint64{math.MaxUint64 - 1, 1}, math.MaxUint64, math.MaxUint64 - 1},
		{"u64 no overflow", []uint64{1 << 62, 1 << 62}, 1 << 63, 1 << 62},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ir.UintsOf(tc.vs...)
			if got := c.Sum(); got != tc.sum {
				t.Errorf("Sum = %d, want %d", got, tc.sum)
			}
			if got := c.Max(); got != tc.max {
				t.Errorf("Max = %d, want %d", got, tc.max)
			}
		})
	}
}

func TestUintsEqualFirstDiff(t *testing.T) {
	wide := ir.UintsOf(1, 2, 1<<40)
	wide.Set(2, 3) // width 8 holding 1, 2, 3
	var zeros ir.Uints
	zeros.AppendZeros(3)
	tests := []struct {
		name  string
		a, b  ir.Uints
		equal bool
		first int
	}{
		{"both empty", ir.Uints{}, ir.Uints{}, true, -1},
		{"same width same values", ir.UintsOf(1, 2, 3), ir.UintsOf(1, 2, 3), true, -1},
		{"different widths same values", ir.UintsOf(1, 2, 3), wide, true, -1},
		{"width 0 vs width 1 zeros", zeros, ir.UintsOf(0, 0, 0), true, -1},
		{"differ at 1", ir.UintsOf(1, 2, 3), ir.UintsOf(1, 9, 3), false, 1},
		{"differ at 0 across widths", ir.UintsOf(1 << 40), ir.UintsOf(1), false, 0},
		{"prefix shorter", ir.UintsOf(1, 2), ir.UintsOf(1, 2, 3), false, 2},
		{"prefix longer", ir.UintsOf(1, 2, 3), ir.UintsOf(1, 2), false, 2},
		{"empty vs zeros", ir.Uints{}, zeros, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Equal(&tc.b); got != tc.equal {
				t.Errorf("Equal = %v, want %v", got, tc.equal)
			}
			if got := tc.b.Equal(&tc.a); got != tc.equal {
				t.Errorf("reverse Equal = %v, want %v", got, tc.equal)
			}
			if got := tc.a.FirstDiff(&tc.b); got != tc.first {
				t.Errorf("FirstDiff = %d, want %d", got, tc.first)
			}
			if got := tc.b.FirstDiff(&tc.a); got != tc.first {
				t.Errorf("reverse FirstDiff = %d, want %d", got, tc.first)
			}
		})
	}
}

func TestUintsViews(t *testing.T) {
	tests := []struct {
		name         string
		c            ir.Uints
		u8, u32, u64 bool
	}{
		{"zero", ir.UintsOf(0, 0), false, false, false},
		{"u8", ir.UintsOf(0, 200), true, false, false},
		{"u32", ir.UintsOf(0, 200, 1<<20), false, true, false},
		{"u64", ir.UintsOf(0, 1<<40), false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s8, ok8 := tc.c.U8()
			s32, ok32 := tc.c.U32()
			s64, ok64 := tc.c.U64()
			if ok8 != tc.u8 || ok32 != tc.u32 || ok64 != tc.u64 {
				t.Fatalf("views ok = %v %v %v, want %v %v %v", ok8, ok32, ok64, tc.u8, tc.u32, tc.u64)
			}
			n := max(len(s8), len(s32), len(s64))
			if (ok8 || ok32 || ok64) && n != tc.c.Len() {
				t.Errorf("view length %d, Len %d", n, tc.c.Len())
			}
			for i := 0; i < n; i++ {
				var v uint64
				switch {
				case ok8:
					v = uint64(s8[i])
				case ok32:
					v = uint64(s32[i])
				default:
					v = s64[i]
				}
				if v != tc.c.At(i) {
					t.Errorf("view[%d] = %d, At = %d", i, v, tc.c.At(i))
				}
			}
		})
	}
}

func TestUintsGrowKeepsValues(t *testing.T) {
	for _, init := range [][]uint64{nil, {1, 2}, {1, 70000}, {1, 1 << 40}} {
		c := ir.UintsOf(init...)
		c.Grow(100)
		if c.Len() != len(init) {
			t.Errorf("%v: Len %d after Grow", init, c.Len())
		}
		for i, v := range init {
			if c.At(i) != v {
				t.Errorf("%v: At(%d) = %d after Grow", init, i, c.At(i))
			}
		}
		if len(init) > 0 && c.Bytes() < 100*c.Width() {
			t.Errorf("%v: Bytes %d after Grow(100) at width %d", init, c.Bytes(), c.Width())
		}
	}
}

// TestUintsAppendFirst: appending the first values of another column gives
// the values one by one would, whatever the two columns' widths.
func TestUintsAppendFirst(t *testing.T) {
	cols := map[string][]uint64{
		"empty": nil, "zeros": {0, 0, 0}, "bytes": {1, 200, 0}, "words": {70000, 1, 5},
		"wide": {1 << 40, 3, 0},
	}
	for dn, dv := range cols {
		for sn, sv := range cols {
			for n := 0; n <= len(sv); n++ {
				var dst, src ir.Uints
				dst.AppendAll(dv)
				src.AppendAll(sv)
				dst.AppendFirst(&src, n)
				want := append(append([]uint64(nil), dv...), sv[:n]...)
				if dst.Len() != len(want) {
					t.Fatalf("%s + first %d of %s: %d values, want %d", dn, n, sn, dst.Len(), len(want))
				}
				for i, w := range want {
					if got := dst.At(i); got != w {
						t.Fatalf("%s + first %d of %s: value %d is %d, want %d", dn, n, sn, i, got, w)
					}
				}
			}
		}
	}
}

// TestUintsAppendAll32: appending 32-bit values gives what appending them
// one by one gives, whatever the column's width and theirs; an empty column
// takes 4-byte values' slice as its storage.
func TestUintsAppendAll32(t *testing.T) {
	cols := map[string][]uint64{
		"empty": nil, "zeros": {0, 0, 0}, "bytes": {1, 200, 0}, "words": {70000, 1, 5},
		"wide": {1 << 40, 3, 0},
	}
	adds := map[string][]uint32{
		"none": nil, "zeros": {0, 0}, "bytes": {0, 255, 7}, "words": {256, 1, 1 << 31},
	}
	for cn, cv := range cols {
		for an, av := range adds {
			var c ir.Uints
			c.AppendAll(cv)
			vs := append([]uint32(nil), av...)
			c.AppendAll32(vs)
			want := append([]uint64(nil), cv...)
			for _, v := range av {
				want = append(want, uint64(v))
			}
			if c.Len() != len(want) {
				t.Fatalf("%s + %s: %d values, want %d", cn, an, c.Len(), len(want))
			}
			for i, w := range want {
				if got := c.At(i); got != w {
					t.Fatalf("%s + %s: value %d is %d, want %d", cn, an, i, got, w)
				}
			}
			var w ir.Uints
			w.AppendAll(want)
			if c.Width() != w.Width() {
				t.Errorf("%s + %s: width %d, want %d", cn, an, c.Width(), w.Width())
			}
			if s, ok := c.U32(); cn == "empty" && an == "words" && (!ok || &s[0] != &vs[0]) {
				t.Errorf("an empty column copied the 4-byte values it could take")
			}
		}
	}
}
