package ir

import (
	"math/rand/v2"
	"testing"
)

// TestBytesBelow compares bytesBelow with a plain loop for every bound,
// on short and long slices whose bytes sit at the bound, just under it,
// anywhere, and at 128 and over (whose carries must not hide a byte).
func TestBytesBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 256; n++ {
		for trial := 0; trial < 200; trial++ {
			bs := make([]uint8, r.IntN(80))
			for i := range bs {
				bs[i] = uint8(r.IntN(max(n, 1)))
			}
			if len(bs) > 0 && r.IntN(2) == 0 { // one byte at or past n
				bad := []int{n, n + 1, 127, 128, 0xFF, n + r.IntN(256-min(n, 255))}[r.IntN(6)]
				bs[r.IntN(len(bs))] = uint8(min(bad, 0xFF))
			}
			want := true
			for _, b := range bs {
				want = want && int(b) < n
			}
			if got := bytesBelow(bs, n); got != want {
				t.Fatalf("bytesBelow(%v, %d) = %v, want %v", bs, n, got, want)
			}
		}
	}
}

// TestValuesValid compares Values.valid, which has no branch on the
// values, with the loop that words the error, on values spoiled in each
// way validate checks: a node out of range, out of order or repeated, a
// string past the strings, and an unknown kind.
func TestValuesValid(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, ns = 100, 10
	for trial := 0; trial < 20000; trial++ {
		k := r.IntN(40)
		v := Values{Node: make([]uint32, k), Kind: make([]ValueKind, k), Bits: make([]uint64, k), Aux: make([]uint64, k)}
		node := uint32(0)
		for j := range k {
			node += 1 + uint32(r.IntN(2))
			v.Node[j] = node
			v.Kind[j] = ValueString + ValueKind(r.IntN(int(ValueNull)))
			v.Bits[j] = uint64(r.IntN(ns))
		}
		if k > 0 {
			j := r.IntN(k)
			switch r.IntN(7) {
			case 0:
				v.Node[j] = n + uint32(r.IntN(3))
			case 1:
				if j > 0 {
					v.Node[j] = v.Node[j-1]
				}
			case 2:
				if j > 0 {
					v.Node[j] = v.Node[j-1] - 1
				}
			case 3:
				v.Kind[j], v.Bits[j] = ValueString, []uint64{ns, ns + 1, 1 << 32, 1 << 40, 1<<64 - 1}[r.IntN(5)]
			case 4:
				v.Kind[j] = ValueKind([]uint8{0, uint8(ValueNull) + 1, 255}[r.IntN(3)])
			}
		}
		want := true // what validate's loop, which words the error, finds
		for j := range k {
			if int(v.Node[j]) >= n || (j > 0 && v.Node[j] <= v.Node[j-1]) ||
				v.Kind[j] == ValueString && v.Bits[j] >= ns || v.Kind[j] < ValueString || v.Kind[j] > ValueNull {
				want = false
			}
		}
		if got := v.valid(n, ns); got != want {
			t.Fatalf("values %+v: valid %v, want %v", v, got, want)
		}
		if err := v.validate(n, ns); (err == nil) != want {
			t.Fatalf("values %+v: validate %v, want valid %v", v, err, want)
		}
	}
}

// TestNonDecreasing compares nonDecreasing with a plain loop on offsets
// that decrease once at each place, or never.
func TestNonDecreasing(t *testing.T) {
	for n := 0; n < 20; n++ {
		for at := 0; at <= n; at++ { // at == n: no decrease
			off := make([]uint32, n)
			for i := range off {
				off[i] = uint32(2*i + 2)
			}
			if at > 0 && at < n {
				off[at] = off[at-1] - 1
			}
			want := true
			for i := 1; i < n; i++ {
				want = want && off[i] >= off[i-1]
			}
			if got := nonDecreasing(off); got != want {
				t.Errorf("nonDecreasing(%v) = %v, want %v", off, got, want)
			}
		}
	}
}
