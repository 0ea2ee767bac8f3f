package explore

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestSelectFirst: selectFirst puts the k first in order at the front,
// for every k, on lists with ties in size.
func TestSelectFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 100, 1000} {
		for _, k := range []int{0, 1, n / 3, n / 2, n - 1, n} {
			if k < 0 || k > n {
				continue
			}
			ks := make([]ranked, n)
			for i := range ks {
				ks[i] = ranked{uint64(rng.IntN(20)), uint32(i)}
			}
			rng.Shuffle(n, func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
			want := slices.Clone(ks)
			slices.SortFunc(want, compareRanked)
			selectFirst(ks, k)
			got := slices.Clone(ks[:k])
			slices.SortFunc(got, compareRanked)
			if !slices.Equal(got, want[:k]) {
				t.Fatalf("n %d, k %d: the first are %v, want %v", n, k, got, want[:k])
			}
		}
	}
}

// TestClassObjectsPaged: a class of thousands of objects, paged to the
// end, comes in the order a full sort gives.
func TestClassObjectsPaged(t *testing.T) {
	const n = 5000
	f := &ir.File{Format: "test", Strings: []string{""}}
	str := irtest.Strings(f, "root", "Item", "e")
	s := &ir.Snapshot{NodeKinds: []string{"synthetic", "object"}, EdgeKinds: []ir.EdgeKind{{Name: "ref"}}, Root: 0}
	rng := rand.New(rand.NewPCG(3, 4))
	nodes := []irtest.Node{{Kind: 0, Name: str[0]}}
	for i := 1; i <= n; i++ {
		nodes[0].Edges = append(nodes[0].Edges, irtest.Edge{0, str[2], uint32(i)})
		nodes = append(nodes, irtest.Node{Kind: 1, Name: str[1], Size: uint64(rng.IntN(50))})
	}
	irtest.Build(s, nodes, false)
	f.Snapshots = []*ir.Snapshot{s}
	srv, err := New([]analysis.Heap{{File: f, Snapshot: s}}, Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.heaps[0]
	<-h.ready
	c := h.nv.ClassIndex(1)
	var got []uint32
	for off := 0; off < n; off += 700 {
		page := h.classInstances(c, off+700)
		got = append(got, page[off:min(off+700, n)]...)
	}
	want := make([]ranked, n)
	for i := range want {
		want[i] = ranked{h.nv.Retained(i + 1), uint32(i + 1)}
	}
	slices.SortFunc(want, compareRanked)
	for k := range want {
		if got[k] != want[k].node {
			t.Fatalf("object %d of the class is node %d, want %d", k, got[k], want[k].node)
		}
	}
}
