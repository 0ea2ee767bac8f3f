package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

// fakeIDs gives node i the identity ids[i] when has[i].
type fakeIDs struct {
	ids []ir.Identity
	has []bool
}

func (f *fakeIDs) IdentityKind() string { return "test ids" }
func (f *fakeIDs) Identity(_ *ir.Snapshot, i int) (ir.Identity, bool) {
	return f.ids[i], f.has[i]
}

// randomHeap makes a heap of n nodes, a tenth of them synthetic, seven in
// eight with an identity: an id below span (so that two heaps share many),
// then changed by vary.
func randomHeap(r *rand.Rand, n int, span uint64, vary func(*ir.Identity)) (Heap, *fakeIDs) {
	s := &ir.Snapshot{NodeKinds: []string{"object", ir.KindSynthetic}, Root: ir.NoNode}
	s.Nodes.Kind = make([]uint8, n)
	ids := &fakeIDs{ids: make([]ir.Identity, n), has: make([]bool, n)}
	for i := range n {
		if r.IntN(10) == 0 {
			s.Nodes.Kind[i] = 1
		}
		ids.has[i] = r.IntN(8) != 0
		ids.ids[i] = ir.Identity{ID: r.Uint64N(span)}
		vary(&ids.ids[i])
	}
	return Heap{File: &ir.File{Strings: []string{""}}, Snapshot: s}, ids
}

// TestNewObjectsByIDAgrees checks the bitmap path of newObjects against
// the sorting one on random heaps: ids drawn from a narrow range (so that
// the two heaps share many), nodes without identity, synthetic nodes, ids
// repeated within a heap, and identities with a qualifier or ids beyond
// the bitmap's range, which the bitmap path must refuse.
func TestNewObjectsByIDAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	heap := func(n int, span uint64, odd int) (Heap, *fakeIDs) {
		return randomHeap(r, n, span, func(id *ir.Identity) {
			switch {
			case odd == 1 && r.IntN(50) == 0:
				id.Qualifier = 1 + r.Uint64N(3)
			case odd == 2 && r.IntN(50) == 0:
				id.ID = 1 << 40
			}
		})
	}
	refused := 0
	for round := 0; round < 300; round++ {
		n := 1 + r.IntN(300)
		span := uint64(1 + r.IntN(2*n))
		a, ida := heap(n, span, r.IntN(3))
		b, idb := heap(1+r.IntN(300), span, r.IntN(3))
		want := newObjectsSorted(a, b, ida, idb)
		got, ok := newObjectsByID(a, b, ida, idb)
		if !ok {
			refused++
			continue
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: by id %v, sorted %v", round, got, want)
		}
	}
	if refused == 0 || refused == 300 {
		t.Errorf("the bitmap path refused %d of 300 pairs; want some of each", refused)
	}
}

// TestStillAliveAgrees checks stillAlive, which scans LATER's nodes in
// order, against matching through both heaps' sorted identities, on
// random heaps with and without qualifiers.
func TestStillAliveAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	heap := func(n int, span uint64, qualified bool) (Heap, *fakeIDs) {
		return randomHeap(r, n, span, func(id *ir.Identity) {
			if qualified {
				id.Qualifier = r.Uint64N(3)
			}
		})
	}
	for round := 0; round < 300; round++ {
		span := uint64(1 + r.IntN(500))
		q := r.IntN(3) == 0
		b, idb := heap(1+r.IntN(300), span, q)
		c, idc := heap(1+r.IntN(300), span, q)
		var nodes []uint32
		for i := 0; i < b.Snapshot.Nodes.Len(); i++ {
			if idb.has[i] && r.IntN(3) == 0 {
				nodes = append(nodes, uint32(i))
			}
		}
		want := map[ir.Identity]bool{}
		for _, i := range nodes {
			want[idb.ids[i]] = true
		}
		var ref []uint32
		for _, x := range identities(c, idc) {
			if want[x.id] {
				ref = append(ref, x.node)
			}
		}
		slices.Sort(ref)
		if got := stillAlive(b, c, nodes, idb, idc); !slices.Equal(got, ref) {
			t.Fatalf("round %d: %v, want %v", round, got, ref)
		}
	}
}
