package analysis_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// retainedGraph builds a snapshot from an edge list; node i has size
// sizes[i] and class classes[i].
func retainedGraph(sizes []uint64, edges [][2]uint32) *ir.Snapshot {
	s := &ir.Snapshot{NodeKinds: []string{"object"}, EdgeKinds: []ir.EdgeKind{{Name: "property"}, {Name: "weak"}}, Root: 0}
	n := len(sizes)
	s.Nodes.FirstEdge = []uint32{0}
	for i := 0; i < n; i++ {
		s.Nodes.Kind = append(s.Nodes.Kind, 0)
		s.Nodes.Name = append(s.Nodes.Name, 0)
		s.Nodes.ID.Append(uint64(i))
		s.Nodes.SelfSize.Append(sizes[i])
		for _, e := range edges {
			if e[0] == uint32(i) {
				s.Edges.Kind = append(s.Edges.Kind, 0)
				s.Edges.Name = append(s.Edges.Name, 0)
				s.Edges.Target = append(s.Edges.Target, e[1])
			}
		}
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	return s
}

// TestClassRetained checks DevTools' per-class rule: a node's retained size
// counts for its class unless a counted node of the same class dominates
// it; uncounted nodes neither count nor hide others.
func TestClassRetained(t *testing.T) {
	//   0 root ─ 1 A(10) ─ 2 A(5) ─ 3 B(1)
	//          ├ 4 B(7) ─ 5 A(2)
	//          └ 6 C(0, not counted) ─ 7 C(3)
	sizes := []uint64{0, 10, 5, 1, 7, 2, 0, 3}
	class := []string{"root", "A", "A", "B", "B", "A", "C", "C"}
	s := retainedGraph(sizes, [][2]uint32{{0, 1}, {1, 2}, {2, 3}, {0, 4}, {4, 5}, {0, 6}, {6, 7}})
	tree, err := analysis.Dominators(s, analysis.DominatorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := analysis.ClassRetained(tree, func(i int) string { return class[i] }, func(i int) bool { return sizes[i] > 0 })
	want := map[string]uint64{
		"A": 16 + 2, // node 1 holds node 2 (and 3); node 5 is under a B, not an A
		"B": 1 + 9,  // node 3 is under two As, not a B; node 4 holds node 5
		"C": 3,      // node 6 does not count, so node 7 does
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("class %s: retained %d, want %d", name, got[name], w)
		}
	}
	if _, ok := got["root"]; ok {
		t.Errorf("the root has no size and must not count: %v", got)
	}
}

// TestSummarizeRootsWithoutRoot: a snapshot with GC roots but no root node
// (a native heap) gets retained sizes from a virtual root over its roots.
func TestSummarizeRootsWithoutRoot(t *testing.T) {
	f := &ir.File{Strings: []string{"", "A", "B"}}
	s := &ir.Snapshot{
		Root:      ir.NoNode,
		NodeKinds: []string{ir.KindNative},
		EdgeKinds: []ir.EdgeKind{{Name: ir.EdgeInternal}},
		Roots:     []ir.RootRef{{Node: 0, Category: 1}},
	}
	// Node 0 (A, 10 bytes) holds node 1 (B, 5 bytes); node 2 (B, 7) is
	// held by nothing and is no root either: it hangs from the root alone.
	s.Nodes.Kind = []uint8{0, 0, 0}
	s.Nodes.Name = []uint32{1, 2, 2}
	s.Nodes.ID = ir.UintsOf(1, 3, 5)
	s.Nodes.SelfSize = ir.UintsOf(10, 5, 7)
	s.Nodes.FirstEdge = []uint32{0, 1, 1, 1}
	s.Edges.Kind, s.Edges.Name, s.Edges.Target = []uint8{0}, []uint32{0}, []uint32{1}
	f.Snapshots = []*ir.Snapshot{s}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	sum, err := analysis.SummarizeBy(f, s, 10, analysis.ByRetained)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, c := range sum.TopClasses {
		got[c.Name] = *c.Retained
	}
	if got["A"] != 15 || got["B"] != 12 {
		t.Errorf("retained %v, want A 15 (itself and the B it holds), B 12", got)
	}
	if s.Nodes.Len() != 3 || s.Edges.Len() != 1 || s.Root != ir.NoNode {
		t.Error("the snapshot changed")
	}
}

// TestNodeRetained checks NodeRetained against SummarizeBy's retained
// sizes on random heaps of every shape, and the rule its documentation
// (and the Parquet tables') gives for them: a class retains the retained
// sizes of its nodes that count (a class and a counted size above 0) and
// that no other such node of the class dominates, which walking each
// node's dominators up finds.
func TestNodeRetained(t *testing.T) {
	checked := 0
	for seed := range int64(12) {
		for _, opts := range []irtest.Options{irtest.V8Shaped(1, 60), irtest.Everything(1, 60)} {
			f := irtest.Random(seed, opts)
			for k, s := range f.Snapshots {
				classes, of, sizes, tree, err := analysis.NodeRetained(f, s)
				if err != nil {
					t.Fatalf("seed %d snapshot %d: %v", seed, k, err)
				}
				sum, err := analysis.SummarizeBy(f, s, -1, analysis.ByRetained)
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]uint64{}
				for _, c := range sum.TopClasses {
					want[c.Label()] = *c.Retained
				}
				walked := make([]uint64, len(classes))
				if tree != nil {
					checked++
					counts := func(i int) bool { return of[i] >= 0 && sizes.At(i) > 0 }
					for i := range s.Nodes.Len() {
						if !counts(i) {
							continue
						}
						// Up the dominators to the root (the root's is itself),
						// or to a virtual root past the snapshot's nodes.
						top := true
						for d := tree.IDom[i]; int(d) < s.Nodes.Len(); d = tree.IDom[d] {
							if int(d) != i && counts(int(d)) && of[d] == of[i] {
								top = false
								break
							}
							if d == tree.Root {
								break
							}
						}
						if top {
							walked[of[i]] = ir.SatAdd(walked[of[i]], tree.Retained[i])
						}
					}
				}
				for c, cl := range classes {
					if *cl.Retained != want[cl.Label()] || *cl.Retained != walked[c] {
						t.Errorf("seed %d snapshot %d class %s: NodeRetained %d, SummarizeBy %d, walking the dominators %d",
							seed, k, cl.Label(), *cl.Retained, want[cl.Label()], walked[c])
					}
				}
				if len(classes) != len(want) {
					t.Errorf("seed %d snapshot %d: %d classes, SummarizeBy %d", seed, k, len(classes), len(want))
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no random heap had a dominator tree")
	}
}
