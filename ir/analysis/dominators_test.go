package analysis_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// Edge kinds of the hand-made graphs: 0 retains, 1 is weak.
var domKinds = []ir.EdgeKind{{Name: ir.EdgeProperty}, {Name: ir.EdgeWeak}, {Name: ir.EdgeElement, Indexed: true}}

// dEdge is an edge of a hand-made graph.
type dEdge struct {
	from, to int
	weak     bool
}

// domGraph builds a snapshot of n nodes with the given edges (kept in the
// given order within each source node) and self sizes (nil: 1 each).
func domGraph(n int, root uint32, edges []dEdge, sizes []uint64) *ir.Snapshot {
	s := &ir.Snapshot{NodeKinds: []string{ir.KindObject}, EdgeKinds: domKinds, Root: root}
	nd := &s.Nodes
	nd.Kind = make([]uint8, n)
	nd.Name = make([]uint32, n)
	nd.ID.AppendZeros(n)
	for i := 0; i < n; i++ {
		size := uint64(1)
		if sizes != nil {
			size = sizes[i]
		}
		nd.SelfSize.Append(size)
	}
	sorted := slices.Clone(edges)
	slices.SortStableFunc(sorted, func(a, b dEdge) int { return a.from - b.from })
	nd.FirstEdge = make([]uint32, n+1)
	for _, e := range sorted {
		nd.FirstEdge[e.from+1]++
		k := uint8(0)
		if e.weak {
			k = 1
		}
		s.Edges.Kind = append(s.Edges.Kind, k)
		s.Edges.Name = append(s.Edges.Name, 0)
		s.Edges.Target = append(s.Edges.Target, uint32(e.to))
	}
	for v := 0; v < n; v++ {
		nd.FirstEdge[v+1] += nd.FirstEdge[v]
	}
	return s
}

// orphanGraph returns the graph that DominatorOptions.Orphans describes,
// built independently: s's edges (those that do not retain made weak) plus
// an edge from the root to every other node that no other node retains.
// (adoptRest then finishes the reference's answer.)
func orphanGraph(s *ir.Snapshot, retains func(int) bool) *ir.Snapshot {
	n := s.Nodes.Len()
	held := make([]bool, n)
	var edges []dEdge
	for v := 0; v < n; v++ {
		lo, hi := s.Nodes.EdgeRange(v)
		for e := lo; e < hi; e++ {
			t := int(s.Edges.Target[e])
			held[t] = held[t] || (retains(e) && t != v)
			edges = append(edges, dEdge{v, t, !retains(e)})
		}
	}
	for x := 0; x < n; x++ {
		if x != int(s.Root) && !held[x] {
			edges = append(edges, dEdge{int(s.Root), x, false})
		}
	}
	sizes := make([]uint64, n)
	for i := range sizes {
		sizes[i] = s.Nodes.SelfSize.At(i)
	}
	g := domGraph(n, s.Root, edges, sizes)
	g.Nodes.ExternalSize = s.Nodes.ExternalSize
	return g
}

const no = ir.NoNode

// adoptRest finishes a reference answer for DominatorOptions.Orphans: nodes
// the orphan graph still does not reach hang from the root, each retaining
// its self size (its external size counts for the root).
func adoptRest(s *ir.Snapshot, idom []uint32, ret []uint64, ext bool) {
	for v := range idom {
		if idom[v] == no {
			idom[v] = s.Root
			ret[v] = ownSize(s, v, false)
			ret[s.Root] = satAdd(ret[s.Root], ownSize(s, v, ext))
		}
	}
}

func TestDominatorsHandMade(t *testing.T) {
	// Lengauer and Tarjan's example graph (1979, figure 1):
	// R=0 A=1 B=2 C=3 D=4 E=5 F=6 G=7 H=8 I=9 J=10 K=11 L=12.
	const R, A, B, C, D, E, F, G, H, I, J, K, L = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	lt := []dEdge{{R, A, false}, {R, B, false}, {R, C, false}, {A, D, false}, {B, A, false}, {B, D, false},
		{B, E, false}, {C, F, false}, {C, G, false}, {D, L, false}, {E, H, false}, {F, I, false}, {G, I, false},
		{G, J, false}, {H, E, false}, {H, K, false}, {I, K, false}, {J, I, false}, {K, I, false}, {K, R, false},
		{L, H, false}}

	tests := []struct {
		name     string
		n        int
		root     uint32
		edges    []dEdge
		sizes    []uint64
		orphans  bool
		idom     []uint32
		retained []uint64
	}{
		{name: "single", n: 1, idom: []uint32{0}, retained: []uint64{1}},
		{name: "chain", n: 4, edges: []dEdge{{0, 1, false}, {1, 2, false}, {2, 3, false}},
			idom: []uint32{0, 0, 1, 2}, retained: []uint64{4, 3, 2, 1}},
		{name: "diamond", n: 4, edges: []dEdge{{0, 1, false}, {0, 2, false}, {1, 3, false}, {2, 3, false}},
			idom: []uint32{0, 0, 0, 0}, retained: []uint64{4, 1, 1, 1}},
		{name: "diamond with tail", n: 5, sizes: []uint64{1, 10, 100, 1000, 10000},
			edges: []dEdge{{0, 1, false}, {0, 2, false}, {1, 3, false}, {2, 3, false}, {3, 4, false}},
			idom:  []uint32{0, 0, 0, 0, 3}, retained: []uint64{11111, 10, 100, 11000, 10000}},
		{name: "loop", n: 4, edges: []dEdge{{0, 1, false}, {1, 2, false}, {2, 1, false}, {2, 3, false}},
			idom: []uint32{0, 0, 1, 2}, retained: []uint64{4, 3, 2, 1}},
		{name: "loop entered twice", n: 3, edges: []dEdge{{0, 1, false}, {0, 2, false}, {1, 2, false}, {2, 1, false}},
			idom: []uint32{0, 0, 0}, retained: []uint64{3, 1, 1}},
		{name: "unreachable", n: 4, edges: []dEdge{{0, 1, false}, {2, 1, false}, {2, 3, false}},
			idom: []uint32{0, 0, no, no}, retained: []uint64{2, 1, 0, 0}},
		{name: "self loops and duplicates", n: 3,
			edges: []dEdge{{0, 0, false}, {0, 1, false}, {0, 1, false}, {1, 1, false}, {1, 2, false}, {1, 2, false}},
			idom:  []uint32{0, 0, 1}, retained: []uint64{3, 2, 1}},
		{name: "edges to root", n: 3, edges: []dEdge{{0, 1, false}, {1, 0, false}, {1, 2, false}, {2, 0, false}},
			idom: []uint32{0, 0, 1}, retained: []uint64{3, 2, 1}},
		{name: "weak edge leaves node unreachable", n: 3, edges: []dEdge{{0, 1, false}, {0, 2, true}},
			idom: []uint32{0, 0, no}, retained: []uint64{2, 1, 0}},
		{name: "weak edge does not change dominator", n: 3,
			edges: []dEdge{{0, 1, false}, {1, 2, false}, {0, 2, true}},
			idom:  []uint32{0, 0, 1}, retained: []uint64{3, 2, 1}},
		{name: "same graph without weak edge", n: 3,
			edges: []dEdge{{0, 1, false}, {1, 2, false}, {0, 2, false}},
			idom:  []uint32{0, 0, 0}, retained: []uint64{3, 1, 1}},
		{name: "weak edge to root only", n: 2, edges: []dEdge{{0, 1, false}, {1, 0, true}},
			idom: []uint32{0, 0}, retained: []uint64{2, 1}},
		{name: "root not node 0", n: 4, root: 2,
			edges: []dEdge{{2, 0, false}, {0, 1, false}, {2, 1, false}, {1, 3, false}},
			idom:  []uint32{2, 2, 2, 1}, retained: []uint64{1, 2, 4, 1}},
		{name: "root last with nodes before it unreachable", n: 4, root: 3,
			edges: []dEdge{{0, 3, false}, {3, 2, false}, {2, 1, false}},
			idom:  []uint32{no, 2, 3, 3}, retained: []uint64{0, 1, 2, 3}},
		{name: "zero sizes", n: 3, sizes: []uint64{0, 0, 5}, edges: []dEdge{{0, 1, false}, {1, 2, false}},
			idom: []uint32{0, 0, 1}, retained: []uint64{5, 5, 5}},
		{name: "saturating sizes", n: 3, sizes: []uint64{1, math.MaxUint64 - 1, 5},
			edges: []dEdge{{0, 1, false}, {0, 2, false}},
			idom:  []uint32{0, 0, 0}, retained: []uint64{math.MaxUint64, math.MaxUint64 - 1, 5}},
		{name: "lengauer-tarjan example", n: 13, edges: lt,
			idom:     []uint32{R, R, R, R, R, R, C, C, R, R, G, R, D},
			retained: []uint64{13, 1, 1, 4, 2, 1, 1, 2, 1, 1, 1, 1, 1}},
		{name: "orphans: a node nothing points at hangs from the root", n: 4, orphans: true,
			edges: []dEdge{{0, 1, false}, {2, 3, false}},
			idom:  []uint32{0, 0, 0, 2}, retained: []uint64{4, 1, 2, 1}},
		{name: "orphans: so does a node held only weakly", n: 4, orphans: true,
			edges: []dEdge{{0, 1, false}, {1, 2, true}, {2, 3, false}},
			idom:  []uint32{0, 0, 0, 2}, retained: []uint64{4, 1, 2, 1}},
		{name: "orphans: an unreachable cycle hangs from the root node by node", n: 5, orphans: true,
			edges: []dEdge{{0, 1, false}, {2, 3, false}, {3, 2, false}, {3, 4, false}},
			idom:  []uint32{0, 0, 0, 0, 0}, retained: []uint64{5, 1, 1, 1, 1}},
		{name: "orphans: a node that only refers to itself is one", n: 4, orphans: true,
			edges: []dEdge{{0, 1, false}, {2, 2, false}, {2, 3, false}},
			idom:  []uint32{0, 0, 0, 2}, retained: []uint64{4, 1, 2, 1}},
		{name: "without orphans an unreachable cycle stays unreachable", n: 5,
			edges: []dEdge{{0, 1, false}, {2, 3, false}, {3, 2, false}, {3, 4, false}},
			idom:  []uint32{0, 0, no, no, no}, retained: []uint64{2, 1, 0, 0, 0}},
		{name: "orphans: a node held by an orphan and by the graph", n: 4, orphans: true,
			edges: []dEdge{{0, 1, false}, {1, 3, false}, {2, 3, false}},
			idom:  []uint32{0, 0, 0, 0}, retained: []uint64{4, 1, 1, 1}},
		{name: "orphans: root not node 0", n: 4, root: 2, orphans: true,
			edges: []dEdge{{2, 0, false}, {1, 3, false}, {3, 1, true}},
			idom:  []uint32{2, 2, 2, 1}, retained: []uint64{1, 2, 4, 1}},
		{name: "orphans: the root itself is not one", n: 2, root: 1, orphans: true,
			edges: []dEdge{{1, 0, false}},
			idom:  []uint32{1, 1}, retained: []uint64{1, 2}},
		{
			// A path discovered deep first and later cut short: the search
			// goes 0 1 2 3 4 5, then 0's second edge reaches 3 directly.
			name: "late shortcut", n: 6,
			edges: []dEdge{{0, 1, false}, {1, 2, false}, {2, 3, false}, {3, 4, false}, {4, 5, false}, {0, 3, false}, {5, 2, false}},
			idom:  []uint32{0, 0, 0, 0, 3, 4}, retained: []uint64{6, 1, 1, 3, 2, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := domGraph(tc.n, tc.root, tc.edges, tc.sizes)
			dt, err := analysis.Dominators(s, analysis.DominatorOptions{Orphans: tc.orphans})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dt.IDom, tc.idom) {
				t.Errorf("idom = %v, want %v", dt.IDom, tc.idom)
			}
			if !slices.Equal(dt.Retained, tc.retained) {
				t.Errorf("retained = %v, want %v", dt.Retained, tc.retained)
			}
			checkTreeShape(t, s, dt)
			// The reference agrees with the hand-made answers too, so that
			// the property test below checks against something trusted.
			ref := s
			if tc.orphans {
				ref = orphanGraph(s, retainsWeak(s, nil))
			}
			ridom, rret := refDominators(ref, retainsWeak(ref, nil), false)
			if tc.orphans {
				adoptRest(s, ridom, rret, false)
			}
			if !slices.Equal(ridom, tc.idom) || !slices.Equal(rret, tc.retained) {
				t.Errorf("reference gives idom %v retained %v", ridom, rret)
			}
		})
	}
}

// checkTreeShape checks what holds for any result: the root is first in
// Order and its own dominator, every reachable node appears once in Order
// after its immediate dominator, and Reachable agrees with IDom.
func checkTreeShape(t *testing.T, s *ir.Snapshot, dt *analysis.DominatorTree) {
	t.Helper()
	n := s.Nodes.Len()
	if len(dt.IDom) != n || len(dt.Retained) != n {
		t.Fatalf("lengths %d, %d for %d nodes", len(dt.IDom), len(dt.Retained), n)
	}
	if dt.Root != s.Root || len(dt.Order) == 0 || dt.Order[0] != s.Root || dt.IDom[s.Root] != s.Root {
		t.Fatalf("root %d, order starts %v, idom[root] %d; want root %d", dt.Root, dt.Order[:min(1, len(dt.Order))],
			dt.IDom[s.Root], s.Root)
	}
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range dt.Order {
		if pos[v] >= 0 {
			t.Fatalf("node %d twice in Order", v)
		}
		pos[v] = i
	}
	reached := 0
	for v := 0; v < n; v++ {
		if dt.Reachable(v) != (dt.IDom[v] != ir.NoNode) || dt.Reachable(v) != (pos[v] >= 0) {
			t.Fatalf("node %d: Reachable %v, idom %d, in Order %v", v, dt.Reachable(v), dt.IDom[v], pos[v] >= 0)
		}
		if !dt.Reachable(v) {
			if dt.Retained[v] != 0 {
				t.Fatalf("unreachable node %d retains %d", v, dt.Retained[v])
			}
			continue
		}
		reached++
		if v != int(s.Root) && pos[dt.IDom[v]] >= pos[v] {
			t.Fatalf("node %d comes before its dominator %d in Order", v, dt.IDom[v])
		}
	}
	if reached != len(dt.Order) {
		t.Fatalf("%d reachable nodes, Order has %d", reached, len(dt.Order))
	}
	if dt.Reachable(-1) || dt.Reachable(n) {
		t.Fatal("Reachable true out of range")
	}
}

// retainsWeak returns the reference's notion of a retaining edge: not weak,
// and not ignored.
func retainsWeak(s *ir.Snapshot, ignore func(int) bool) func(int) bool {
	return func(e int) bool {
		return s.EdgeKindOf(e).Name != ir.EdgeWeak && (ignore == nil || !ignore(e))
	}
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

func ownSize(s *ir.Snapshot, v int, ext bool) uint64 {
	x := s.Nodes.SelfSize.At(v)
	if ext && s.Nodes.ExternalSize.Len() > 0 {
		x = satAdd(x, s.Nodes.ExternalSize.At(v))
	}
	return x
}

// refDominators is the textbook dataflow definition, for small graphs:
// dom(root) = {root}, dom(v) = {v} ∪ ⋂ dom(p) over reachable predecessors p,
// iterated to a fixed point. The immediate dominator is the strict dominator
// with the most dominators itself; a node retains the sizes of all nodes it
// dominates, summed directly rather than over the tree.
func refDominators(s *ir.Snapshot, retains func(int) bool, ext bool) ([]uint32, []uint64) {
	n := s.Nodes.Len()
	root := int(s.Root)
	preds := make([][]int, n)
	succs := make([][]int, n)
	for v := 0; v < n; v++ {
		lo, hi := s.Nodes.EdgeRange(v)
		for e := lo; e < hi; e++ {
			if retains(e) {
				t := int(s.Edges.Target[e])
				preds[t] = append(preds[t], v)
				succs[v] = append(succs[v], t)
			}
		}
	}
	reach := make([]bool, n)
	reach[root] = true
	work := []int{root}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, t := range succs[v] {
			if !reach[t] {
				reach[t] = true
				work = append(work, t)
			}
		}
	}
	dom := make([][]bool, n)
	for v := range dom {
		dom[v] = make([]bool, n)
		if !reach[v] {
			continue
		}
		if v == root {
			dom[v][v] = true
		} else {
			copy(dom[v], reach)
		}
	}
	for changed := true; changed; {
		changed = false
		for v := 0; v < n; v++ {
			if !reach[v] || v == root {
				continue
			}
			nd := slices.Clone(reach)
			for _, p := range preds[v] {
				if !reach[p] {
					continue
				}
				for d := range nd {
					nd[d] = nd[d] && dom[p][d]
				}
			}
			nd[v] = true
			if !slices.Equal(nd, dom[v]) {
				dom[v] = nd
				changed = true
			}
		}
	}
	count := func(v int) int {
		c := 0
		for _, b := range dom[v] {
			if b {
				c++
			}
		}
		return c
	}
	idom := make([]uint32, n)
	ret := make([]uint64, n)
	for v := 0; v < n; v++ {
		idom[v] = ir.NoNode
		if !reach[v] {
			continue
		}
		if v == root {
			idom[v] = uint32(root)
		} else {
			best := -1
			for d := 0; d < n; d++ {
				if d != v && dom[v][d] && (best < 0 || count(d) > count(best)) {
					best = d
				}
			}
			idom[v] = uint32(best)
		}
		for d := 0; d < n; d++ {
			if dom[v][d] {
				ret[d] = satAdd(ret[d], ownSize(s, v, ext))
			}
		}
	}
	return idom, ret
}

// refCHK is Cooper, Harvey and Kennedy's iterative algorithm ("A Simple,
// Fast Dominance Algorithm"), for graphs too big for refDominators. Retained
// sizes are summed in depth-first postorder, which lists every node after
// the nodes it dominates.
func refCHK(s *ir.Snapshot, retains func(int) bool, ext bool) ([]uint32, []uint64) {
	n := s.Nodes.Len()
	root := int(s.Root)
	po := make([]int, n) // postorder number, -1 unreached
	for i := range po {
		po[i] = -1
	}
	var post []int
	seen := make([]bool, n)
	type frame struct{ v, e int }
	stack := []frame{{root, int(s.Nodes.FirstEdge[root])}}
	seen[root] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		_, hi := s.Nodes.EdgeRange(f.v)
		pushed := false
		for f.e < hi {
			e := f.e
			f.e++
			if !retains(e) {
				continue
			}
			t := int(s.Edges.Target[e])
			if !seen[t] {
				seen[t] = true
				stack = append(stack, frame{t, int(s.Nodes.FirstEdge[t])})
				pushed = true
				break
			}
		}
		if !pushed {
			po[f.v] = len(post)
			post = append(post, f.v)
			stack = stack[:len(stack)-1]
		}
	}
	preds := make([][]int, n)
	for v := 0; v < n; v++ {
		if po[v] < 0 {
			continue
		}
		lo, hi := s.Nodes.EdgeRange(v)
		for e := lo; e < hi; e++ {
			if retains(e) {
				t := int(s.Edges.Target[e])
				preds[t] = append(preds[t], v)
			}
		}
	}
	doms := make([]int, n)
	for i := range doms {
		doms[i] = -1
	}
	doms[root] = root
	intersect := func(a, b int) int {
		for a != b {
			for po[a] < po[b] {
				a = doms[a]
			}
			for po[b] < po[a] {
				b = doms[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(post) - 1; i >= 0; i-- {
			v := post[i]
			if v == root {
				continue
			}
			nd := -1
			for _, p := range preds[v] {
				if doms[p] < 0 {
					continue
				}
				if nd < 0 {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if doms[v] != nd {
				doms[v] = nd
				changed = true
			}
		}
	}
	idom := make([]uint32, n)
	ret := make([]uint64, n)
	for v := range idom {
		idom[v] = ir.NoNode
		if doms[v] >= 0 {
			idom[v] = uint32(doms[v])
			ret[v] = ownSize(s, v, ext)
		}
	}
	for _, v := range post {
		if v != root {
			ret[doms[v]] = satAdd(ret[doms[v]], ret[v])
		}
	}
	return idom, ret
}

// randomDomGraph returns a random graph shaped to have interesting
// dominators: sparse (so that many nodes have one way in), with runs of
// chains, back edges, self loops, duplicate edges, weak edges and a root
// anywhere.
func randomDomGraph(r *rand.Rand) *ir.Snapshot {
	n := 1 + r.IntN(60)
	if r.IntN(4) == 0 {
		n = 1 + r.IntN(200)
	}
	deg := 0.5 + 3*r.Float64()
	weakFrac := []float64{0, 0.1, 0.4}[r.IntN(3)]
	var edges []dEdge
	for v := 0; v < n; v++ {
		k := int(r.ExpFloat64() * deg)
		if r.IntN(3) == 0 && v+1 < n {
			edges = append(edges, dEdge{v, v + 1, false}) // chains
		}
		for ; k > 0; k-- {
			var t int
			switch r.IntN(6) {
			case 0:
				t = v // self loop
			case 1:
				t = max(0, v-1-r.IntN(5)) // back edge
			case 2:
				t = min(n-1, v+1+r.IntN(5)) // near forward
			default:
				t = r.IntN(n)
			}
			edges = append(edges, dEdge{v, t, r.Float64() < weakFrac})
			if r.IntN(10) == 0 {
				edges = append(edges, edges[len(edges)-1]) // duplicate
			}
		}
	}
	r.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	sizes := make([]uint64, n)
	for i := range sizes {
		sizes[i] = uint64(r.IntN(100))
	}
	return domGraph(n, uint32(r.IntN(n)), edges, sizes)
}

func checkAgainst(t *testing.T, what string, s *ir.Snapshot, dt *analysis.DominatorTree, idom []uint32, ret []uint64) {
	t.Helper()
	for v := range idom {
		if dt.IDom[v] != idom[v] {
			t.Fatalf("%s: node %d: idom %d, reference %d (root %d)", what, v, dt.IDom[v], idom[v], s.Root)
		}
		if dt.Retained[v] != ret[v] {
			t.Fatalf("%s: node %d: retained %d, reference %d", what, v, dt.Retained[v], ret[v])
		}
	}
	checkTreeShape(t, s, dt)
}

// rootRetainsAll checks that the root retains exactly the own sizes of the
// reachable nodes (saturating), counted apart from the tree.
func rootRetainsAll(t *testing.T, s *ir.Snapshot, dt *analysis.DominatorTree, ext bool) {
	t.Helper()
	var sum uint64
	for v := 0; v < s.Nodes.Len(); v++ {
		if dt.Reachable(v) {
			sum = satAdd(sum, ownSize(s, v, ext))
		}
	}
	if got := dt.Retained[s.Root]; got != sum {
		t.Fatalf("root retains %d, reachable nodes total %d", got, sum)
	}
}

// TestDominatorsRandom compares with the dataflow reference on many seeded
// random graphs, with and without extra ignored edges and orphans.
func TestDominatorsRandom(t *testing.T) {
	for seed := uint64(0); seed < 600; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		s := randomDomGraph(r)
		var ignore func(int) bool
		if seed%3 == 0 {
			mod := 2 + int(seed%5)
			ignore = func(e int) bool { return e%mod == 0 }
		}
		orphans := seed%2 == 1
		dt, err := analysis.Dominators(s, analysis.DominatorOptions{Ignore: ignore, Orphans: orphans})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		ref, retains := s, retainsWeak(s, ignore)
		if orphans {
			ref = orphanGraph(s, retains)
			retains = retainsWeak(ref, nil)
		}
		idom, ret := refDominators(ref, retains, false)
		if orphans {
			adoptRest(s, idom, ret, false)
		}
		checkAgainst(t, "seed "+strconv.FormatUint(seed, 10), s, dt, idom, ret)
		rootRetainsAll(t, s, dt, false)
	}
}

// TestDominatorsIrtest runs the comparison on irtest's random files: V8 and
// made-up kind tables, roots anywhere or none, external sizes and sizes of
// 2^32 and more (so retained sums saturate).
func TestDominatorsIrtest(t *testing.T) {
	opts := []irtest.Options{
		{MinNodes: 1, MaxNodes: 80, Kinds: irtest.KindsV8, MaxOutDegree: 2},
		{MinNodes: 0, MaxNodes: 120, Kinds: irtest.KindsMixed, ExternalSizes: true, BigSizes: true, Snapshots: 2},
		{MinNodes: 1, MaxNodes: 40, Kinds: irtest.KindsCustom, ExternalSizes: true, MaxOutDegree: 1},
		irtest.V8Shaped(1, 100),
	}
	ran := 0
	for oi, o := range opts {
		for seed := int64(0); seed < 120; seed++ {
			f := irtest.Random(seed, o)
			for si, s := range f.Snapshots {
				for _, ext := range []bool{false, true} {
					orphans := ext == (seed%2 == 0)
					dt, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: ext, Orphans: orphans})
					if s.Root == ir.NoNode {
						if !errors.Is(err, analysis.ErrNoRoot) {
							t.Fatalf("options %d seed %d snapshot %d: no root gave %v", oi, seed, si, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("options %d seed %d snapshot %d: %v", oi, seed, si, err)
					}
					ref := s
					if orphans {
						ref = orphanGraph(s, retainsWeak(s, nil))
					}
					idom, ret := refDominators(ref, retainsWeak(ref, nil), ext)
					if orphans {
						adoptRest(s, idom, ret, ext)
					}
					checkAgainst(t, fmt.Sprintf("options %d seed %d", oi, seed), s, dt, idom, ret)
					rootRetainsAll(t, s, dt, ext)
					ran++
				}
			}
		}
	}
	if ran < 500 {
		t.Fatalf("only %d graphs had a root", ran)
	}
}

func TestDominatorsIncludeExternal(t *testing.T) {
	s := domGraph(3, 0, []dEdge{{0, 1, false}, {1, 2, false}}, []uint64{1, 2, 4})
	s.Nodes.ExternalSize = ir.UintsOf(0, 100, 1000)
	for _, tc := range []struct {
		ext  bool
		want []uint64
	}{
		{false, []uint64{7, 6, 4}},
		{true, []uint64{1107, 1106, 1004}},
	} {
		dt, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: tc.ext})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(dt.Retained, tc.want) {
			t.Errorf("IncludeExternal %v: retained %v, want %v", tc.ext, dt.Retained, tc.want)
		}
	}
	// Without an external column the option changes nothing.
	s.Nodes.ExternalSize = ir.Uints{}
	dt, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true})
	if err != nil || !slices.Equal(dt.Retained, []uint64{7, 6, 4}) {
		t.Errorf("no external column: %v, %v", dt, err)
	}
}

func TestDominatorsIgnore(t *testing.T) {
	// Edges in order: 0->1 (0), 0->2 (1), 0->3 weak (2), 1->2 (3), 1->3 (4).
	s := domGraph(4, 0, []dEdge{{0, 1, false}, {0, 2, false}, {0, 3, true}, {1, 2, false}, {1, 3, false}}, nil)
	var asked []int
	dt, err := analysis.Dominators(s, analysis.DominatorOptions{Ignore: func(e int) bool {
		asked = append(asked, e)
		return e == 1
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{0, 0, 1, 1}; !slices.Equal(dt.IDom, want) {
		t.Errorf("idom %v, want %v", dt.IDom, want)
	}
	if want := []uint64{4, 3, 1, 1}; !slices.Equal(dt.Retained, want) {
		t.Errorf("retained %v, want %v", dt.Retained, want)
	}
	if slices.Contains(asked, 2) {
		t.Errorf("Ignore was asked about the weak edge: %v", asked)
	}
	// Ignoring the only way in leaves a node unreachable.
	dt, err = analysis.Dominators(s, analysis.DominatorOptions{Ignore: func(e int) bool { return e == 4 }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{0, 0, 0, no}; !slices.Equal(dt.IDom, want) {
		t.Errorf("idom %v, want %v", dt.IDom, want)
	}
}

// TestDominatorsDeep runs graphs millions of nodes deep, which recursion or
// a per-path stack would make fail or crawl, with answers known in closed
// form.
func TestDominatorsDeep(t *testing.T) {
	n := 2_000_000
	if testing.Short() {
		n = 100_000
	}
	t.Run("chain", func(t *testing.T) {
		// 0 -> 1 -> ... -> n-1, and the last node points back at node 1
		// and the root: every node dominates the rest of the chain.
		s := chainGraph(n, func(v int) []uint32 {
			if v == n-1 {
				return []uint32{1, 0}
			}
			return []uint32{uint32(v + 1)}
		})
		dt, err := analysis.Dominators(s, analysis.DominatorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for v := 1; v < n; v++ {
			if dt.IDom[v] != uint32(v-1) || dt.Retained[v] != uint64(n-v) {
				t.Fatalf("node %d: idom %d retained %d", v, dt.IDom[v], dt.Retained[v])
			}
		}
	})
	t.Run("ladder", func(t *testing.T) {
		// Every node points at the next two, and the search first follows
		// the long way; any node can be stepped over, so the root dominates
		// all. The back edges from the deep end make eval walk and compress
		// paths as long as the graph.
		s := chainGraph(n, func(v int) []uint32 {
			var ts []uint32
			if v+1 < n {
				ts = append(ts, uint32(v+1))
			}
			if v+2 < n {
				ts = append(ts, uint32(v+2))
			}
			if v > n/2 && v%1000 == 0 {
				ts = append(ts, uint32(v-n/2))
			}
			return ts
		})
		dt, err := analysis.Dominators(s, analysis.DominatorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for v := 1; v < n; v++ {
			if dt.IDom[v] != 0 || dt.Retained[v] != 1 {
				t.Fatalf("node %d: idom %d retained %d", v, dt.IDom[v], dt.Retained[v])
			}
		}
		if dt.Retained[0] != uint64(n) {
			t.Fatalf("root retains %d", dt.Retained[0])
		}
	})
}

// chainGraph builds n nodes of size 1 whose out-edges succ gives, rooted at 0.
func chainGraph(n int, succ func(v int) []uint32) *ir.Snapshot {
	s := &ir.Snapshot{NodeKinds: []string{ir.KindObject}, EdgeKinds: domKinds, Root: 0}
	s.Nodes.Kind = make([]uint8, n)
	s.Nodes.Name = make([]uint32, n)
	s.Nodes.ID.AppendZeros(n)
	s.Nodes.SelfSize.Reserve(n)
	for i := 0; i < n; i++ {
		s.Nodes.SelfSize.Append(1)
	}
	s.Nodes.FirstEdge = make([]uint32, 1, n+1)
	for v := 0; v < n; v++ {
		s.Edges.Target = append(s.Edges.Target, succ(v)...)
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(len(s.Edges.Target)))
	}
	s.Edges.Kind = make([]uint8, len(s.Edges.Target))
	s.Edges.Name = make([]uint32, len(s.Edges.Target))
	return s
}

// TestDominatorsHub: a node with more predecessors than the ring between the
// two goroutines carries (so the loop reads the list in place), some of them
// unreachable, with the root not node 0.
func TestDominatorsHub(t *testing.T) {
	const n, unreached = 300_000, 1000
	root, hub := uint32(n-1), n-2
	s := chainGraph(n, func(v int) []uint32 {
		switch {
		case v == int(root):
			ts := make([]uint32, 0, n-unreached-2)
			for u := unreached; u < hub; u++ {
				ts = append(ts, uint32(u))
			}
			return ts
		case v < unreached:
			return []uint32{uint32(hub), root}
		case v < hub:
			return []uint32{uint32(hub)}
		}
		return nil
	})
	s.Root = root
	dt, err := analysis.Dominators(s, analysis.DominatorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < n; v++ {
		want, ret := root, uint64(1)
		switch {
		case v < unreached:
			want, ret = ir.NoNode, 0
		case v == int(root):
			ret = n - unreached
		}
		if dt.IDom[v] != want || dt.Retained[v] != ret {
			t.Fatalf("node %d: idom %d retained %d, want %d and %d", v, dt.IDom[v], dt.Retained[v], want, ret)
		}
	}
}

// TestDominatorsOneProc: the goroutines that share the work also finish on
// a single processor.
func TestDominatorsOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := synthGraph(50_000, 200_000, 9)
	dt, err := analysis.Dominators(s, analysis.DominatorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	idom, ret := refCHK(s, retainsWeak(s, nil), false)
	checkAgainst(t, "one processor", s, dt, idom, ret)
}

// TestDominatorsSynthetic compares with Cooper–Harvey–Kennedy on scaled-down
// versions of the benchmark's heap-shaped graph.
func TestDominatorsSynthetic(t *testing.T) {
	// Each seed is another random graph of the same shape, a second of
	// work: one by default, three in an exhaustive run.
	seeds := sampling.Count(3, 1)
	sampling.Logf(t, seeds, 3, "random graphs")
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		s := synthGraph(100_000, 350_000, seed)
		for i, ignore := range []func(int) bool{nil, func(e int) bool { return e%7 == 3 }, func(e int) bool { return e%5 == 1 }} {
			orphans := i == 2
			dt, err := analysis.Dominators(s, analysis.DominatorOptions{Ignore: ignore, Orphans: orphans})
			if err != nil {
				t.Fatal(err)
			}
			ref, retains := s, retainsWeak(s, ignore)
			if orphans {
				ref = orphanGraph(s, retains)
				retains = retainsWeak(ref, nil)
			}
			idom, ret := refCHK(ref, retains, false)
			if orphans {
				adoptRest(s, idom, ret, false)
			}
			checkAgainst(t, "synthetic seed "+strconv.FormatUint(seed, 10), s, dt, idom, ret)
			rootRetainsAll(t, s, dt, false)
		}
	}
}

func TestDominatorsErrors(t *testing.T) {
	good := func() *ir.Snapshot {
		return domGraph(3, 0, []dEdge{{0, 1, false}, {1, 2, false}}, nil)
	}
	tests := []struct {
		name string
		mod  func(s *ir.Snapshot)
		is   error
	}{
		{name: "no root", mod: func(s *ir.Snapshot) { s.Root = ir.NoNode }, is: analysis.ErrNoRoot},
		{name: "empty without root", mod: func(s *ir.Snapshot) { *s = ir.Snapshot{Root: ir.NoNode} }, is: analysis.ErrNoRoot},
		{name: "empty with root 0", mod: func(s *ir.Snapshot) { *s = ir.Snapshot{} }},
		{name: "root out of range", mod: func(s *ir.Snapshot) { s.Root = 3 }},
		{name: "first edge too short", mod: func(s *ir.Snapshot) { s.Nodes.FirstEdge = s.Nodes.FirstEdge[:3] }},
		{name: "first edge missing", mod: func(s *ir.Snapshot) { s.Nodes.FirstEdge = nil }},
		{name: "first edge beyond edges", mod: func(s *ir.Snapshot) { s.Nodes.FirstEdge[2] = 9; s.Nodes.FirstEdge[3] = 9 }},
		{name: "first edge decreasing", mod: func(s *ir.Snapshot) { s.Nodes.FirstEdge[1] = 2; s.Nodes.FirstEdge[2] = 1 }},
		{name: "root's edges beyond edges", mod: func(s *ir.Snapshot) { s.Nodes.FirstEdge[1] = 5 }},
		{name: "target out of range", mod: func(s *ir.Snapshot) { s.Edges.Target[1] = 7 }},
		{name: "target NoNode", mod: func(s *ir.Snapshot) { s.Edges.Target[0] = ir.NoNode }},
		{name: "kind column short", mod: func(s *ir.Snapshot) { s.Edges.Kind = s.Edges.Kind[:1] }},
		{name: "self sizes short", mod: func(s *ir.Snapshot) { s.Nodes.SelfSize = ir.UintsOf(1, 2) }},
		{name: "external sizes short", mod: func(s *ir.Snapshot) { s.Nodes.ExternalSize = ir.UintsOf(1) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := good()
			tc.mod(s)
			dt, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true})
			if err == nil {
				t.Fatalf("no error; idom %v", dt.IDom)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want %v", err, tc.is)
			}
		})
	}
	// The unmodified graph works, so each failure above is its change's.
	if _, err := analysis.Dominators(good(), analysis.DominatorOptions{IncludeExternal: true}); err != nil {
		t.Fatal(err)
	}
}

// TestDominatorsKindOutsideTable: an edge kind beyond the kind table (which
// Validate refuses) is treated as retaining rather than crashing.
func TestDominatorsKindOutsideTable(t *testing.T) {
	s := domGraph(2, 0, []dEdge{{0, 1, false}}, nil)
	s.Edges.Kind[0] = 200
	dt, err := analysis.Dominators(s, analysis.DominatorOptions{})
	if err != nil || !slices.Equal(dt.IDom, []uint32{0, 0}) {
		t.Fatalf("%v, %v", dt, err)
	}
}
