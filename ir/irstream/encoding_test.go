package irstream_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestChunkEncodings: column values of every shape come back exact through
// the chunk encodings (delta, split, both, none), including differences
// that wrap around 2^64 and chunks that end mid-way; and the shapes the
// encodings are for take a fraction of their plain size in the stream.
func TestChunkEncodings(t *testing.T) {
	const n = 70_000 // more than a chunk: the second starts over
	r := rand.New(rand.NewPCG(1, 2))
	gen := map[string]func(i int) uint64{
		"ids stepping by 2": func(i int) uint64 { return 2*uint64(i) + 1 },
		"counting down":     func(i int) uint64 { return uint64(n - i) },
		"small":             func(i int) uint64 { return uint64(i % 7) },
		"random 64-bit":     func(int) uint64 { return r.Uint64() },
		"wrapping":          func(i int) uint64 { return []uint64{math.MaxUint64, 0, 1 << 63, math.MaxUint64 - 1, 3}[i%5] },
		"zeros and a big":   func(i int) uint64 { return map[bool]uint64{true: 1 << 40}[i == n/2] },
		"zeros":             func(int) uint64 { return 0 },
	}
	plain := map[string]int{}
	for name, g := range gen {
		t.Run(name, func(t *testing.T) {
			ids := make([]uint64, n)
			for i := range ids {
				ids[i] = g(i)
			}
			f := &ir.File{Format: "test", Strings: []string{""}}
			s := &ir.Snapshot{NodeKinds: []string{"object"}}
			irtest.Build(s, make([]irtest.Node, n), false)
			s.Nodes.ID = ir.UintsOf(ids...)
			f.Snapshots = []*ir.Snapshot{s}
			var buf bytes.Buffer
			if err := irstream.Encode(&buf, f); err != nil {
				t.Fatal(err)
			}
			plain[name] = buf.Len()
			g, err := irstream.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			got := make([]uint64, n)
			for i := range got {
				got[i] = g.Snapshots[0].Nodes.ID.At(i)
			}
			if !slices.Equal(got, ids) {
				i := 0
				for got[i] == ids[i] {
					i++
				}
				t.Fatalf("id %d came back %d, want %d", i, got[i], ids[i])
			}
		})
	}
	// The ids' bytes, beside a stream whose ids are all 0 (zeros
	// records): delta-coded, ids that step by 2 take a byte each, where
	// plain they would take 4; random ones take 8 either way.
	base := plain["zeros"]
	if a, b := plain["ids stepping by 2"]-base, plain["random 64-bit"]-base; a > n+n/100 || b < 8*n {
		t.Errorf("ids stepping by 2 take %d bytes of the stream, random ones %d (%d nodes)", a, b, n)
	}
}
