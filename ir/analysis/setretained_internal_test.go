package analysis

import (
	"github.com/heapconv/heapconv/internal/sampling"
	"math/rand/v2"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// setRetainedByWalk is what setRetained computes, found the plain way: a
// walk of holder's whole dominator subtree from holder, not entering the
// set; what it does not reach is retained by the set.
func (nv *Navigator) setRetainedByWalk(holder int, member func(i int) bool) uint64 {
	iv := nv.intervals()
	g := nv.g
	lo, hi := iv.pre[holder], iv.end[holder]
	seen := map[uint32]bool{uint32(holder): true}
	stack := []uint32{uint32(holder)}
	reached := nv.ownSize(holder)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		elo, ehi := g.Nodes.EdgeRange(int(v))
		for e := elo; e < ehi; e++ {
			t := g.Edges.Target[e]
			if !nv.tree.Reachable(int(t)) {
				continue
			}
			p := iv.pre[t]
			if p < lo || p >= hi || g.EdgeKindOf(e).Name == ir.EdgeWeak || member(int(t)) || seen[t] {
				continue
			}
			seen[t] = true
			reached = ir.SatAdd(reached, nv.ownSize(int(t)))
			stack = append(stack, t)
		}
	}
	return nv.tree.Retained[holder] - reached
}

// TestSetRetainedMatchesWalk holds setRetained, which walks from the set,
// to the walk of the holder's whole subtree, on random heaps with cycles,
// shared objects, weak edges, and sets with members outside the subtree.
func TestSetRetainedMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 6))
	nonzero := 0
	trials := sampling.Count(1000, 250)
	sampling.Logf(t, trials, 1000, "random heaps")
	for trial := 0; trial < trials; trial++ {
		n := 2 + r.IntN(60)
		f := &ir.File{Format: "test", Strings: []string{"", "a"}}
		s := &ir.Snapshot{NodeKinds: []string{ir.KindSynthetic, ir.KindObject},
			EdgeKinds: []ir.EdgeKind{{Name: "property"}, {Name: ir.EdgeWeak}}, Root: 0}
		nodes := make([]irtest.Node, n)
		for i := range nodes {
			nodes[i] = irtest.Node{Kind: 1, Name: 1, Size: uint64(1 + r.IntN(100))}
		}
		nodes[0].Kind = 0
		for i := 1; i < n; i++ { // a tree, so most nodes are reachable
			if r.IntN(10) > 0 {
				p := r.IntN(i)
				nodes[p].Edges = append(nodes[p].Edges, irtest.Edge{0, 1, uint32(i)})
			}
		}
		for k := r.IntN(2 * n); k > 0; k-- { // shared objects, cycles, weak edges
			a, b := r.IntN(n), 1+r.IntN(n-1)
			kind := uint32(0)
			if r.IntN(5) == 0 {
				kind = 1
			}
			nodes[a].Edges = append(nodes[a].Edges, irtest.Edge{kind, 1, uint32(b)})
		}
		irtest.Build(s, nodes, false)
		f.Snapshots = []*ir.Snapshot{s}
		nv, err := NewNavigator(Heap{File: f, Snapshot: s})
		if err != nil {
			t.Fatal(err)
		}
		// Not the root: nodes nothing reaches hang from it, and Suspects
		// never asks about the roots.
		// A holder with a few nodes below it.
		iv := nv.intervals()
		holder := -1
		for _, v := range r.Perm(n) {
			if v != 0 && nv.tree.Reachable(v) && iv.end[v]-iv.pre[v] >= 4 {
				holder = v
				break
			}
		}
		if holder < 0 {
			continue
		}
		below := func(i int) bool {
			return nv.tree.Reachable(i) && iv.pre[i] > iv.pre[holder] && iv.pre[i] < iv.end[holder]
		}
		in := make([]bool, n)
		var members []uint32
		for i := 1; i < n; i++ {
			if (below(i) && r.IntN(3) == 0) || r.IntN(20) == 0 {
				in[i] = true
				members = append(members, uint32(i))
			}
		}
		member := func(i int) bool { return i < n && in[i] }
		got, want := nv.setRetained(holder, members, member), nv.setRetainedByWalk(holder, member)
		if got != want {
			t.Fatalf("trial %d: holder %d, members %v: setRetained %d, the walk from the holder %d", trial, holder, members, got, want)
		}
		if got > 0 {
			nonzero++
		}
	}
	if nonzero < trials*3/10 {
		t.Errorf("only %d of the sets retain anything: the heaps test little", nonzero)
	}
}
