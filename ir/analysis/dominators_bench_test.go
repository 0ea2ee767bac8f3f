package analysis_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
)

// synthGraph builds a heap-shaped graph of n nodes and about m edges straight
// into the columns (no per-node allocation), deterministic in seed:
//
//   - a spanning tree from node 0, so every node is reachable: most parents
//     are a recent node (objects point at what was allocated near them),
//     some are any earlier node, and some runs are chains (linked lists), one
//     of them n/10 nodes long;
//   - the remaining edges from random sources to any node, to a nearby node,
//     to a small set of hubs (shared maps, prototypes), a few to the root and
//     to the source itself; 5% of them are weak;
//   - each node's edges shuffled, so that the depth-first search does not
//     simply follow the spanning tree.
func synthGraph(n, m int, seed uint64) *ir.Snapshot {
	r := rand.New(rand.NewPCG(seed, 0xd0e1))
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	const (
		kElement  = 1
		kProperty = 2
		kInternal = 3
		kWeak     = 6
	)

	// The spanning tree, as a parent per node.
	parent := make([]uint32, n)
	longAt, longLen := n/3, n/10
	for i, chain := 1, 0; i < n; i++ {
		switch {
		case i == longAt:
			chain = longLen
		case chain == 0 && r.IntN(2000) == 0:
			chain = 10 + r.IntN(2000)
		}
		switch {
		case chain > 0:
			chain--
			parent[i] = uint32(i - 1)
		case r.IntN(4) == 0:
			parent[i] = uint32(r.IntN(i))
		default:
			parent[i] = uint32(max(0, i-1-r.IntN(64)))
		}
	}

	// Out-degrees: tree children plus extra edges spread over random sources.
	deg := make([]uint32, n+1)
	for i := 1; i < n; i++ {
		deg[parent[i]]++
	}
	extra := max(0, m-(n-1))
	extraDeg := make([]uint32, n)
	for j := 0; j < extra; j++ {
		extraDeg[r.IntN(n)]++
	}
	fe := make([]uint32, n+1)
	for v := 0; v < n; v++ {
		fe[v+1] = fe[v] + deg[v] + extraDeg[v]
	}
	m = int(fe[n])
	tg := make([]uint32, m)
	kinds := make([]uint8, m)
	pos := deg[:n] // reused as each node's fill cursor
	copy(pos, fe[:n])
	for i := 1; i < n; i++ {
		p := parent[i]
		tg[pos[p]] = uint32(i)
		kinds[pos[p]] = []uint8{kProperty, kElement, kInternal}[i%3]
		pos[p]++
	}
	hubs := max(1, n/10000)
	for v := 0; v < n; v++ {
		for k := extraDeg[v]; k > 0; k-- {
			var t int
			switch x := r.IntN(100); {
			case x < 40:
				t = r.IntN(n)
			case x < 75:
				t = min(n-1, max(0, v+r.IntN(256)-128))
			case x < 97:
				t = r.IntN(hubs)
			case x < 98:
				t = 0
			default:
				t = v
			}
			kind := uint8(kProperty)
			if r.IntN(20) == 0 {
				kind = kWeak
			}
			tg[pos[v]] = uint32(t)
			kinds[pos[v]] = kind
			pos[v]++
		}
		lo, hi := int(fe[v]), int(fe[v+1])
		for i := hi - 1; i > lo; i-- {
			j := lo + r.IntN(i-lo+1)
			tg[i], tg[j] = tg[j], tg[i]
			kinds[i], kinds[j] = kinds[j], kinds[i]
		}
	}

	nd := &s.Nodes
	nd.Kind = make([]uint8, n)
	nd.Name = make([]uint32, n)
	nd.ID.Reserve(n)
	nd.SelfSize.Reserve(n)
	for i := 0; i < n; i++ {
		nd.Kind[i] = uint8(r.IntN(len(ir.V8NodeKinds)))
		nd.ID.Append(uint64(2*i + 1))
		size := uint64(16 + 8*r.IntN(24))
		if r.IntN(100) == 0 {
			size = uint64(r.IntN(1 << 20))
		}
		nd.SelfSize.Append(size)
	}
	nd.FirstEdge = fe
	s.Edges = ir.Edges{Kind: kinds, Name: make([]uint32, m), Target: tg}
	return s
}

var bigGraph struct {
	once sync.Once
	s    *ir.Snapshot
}

// BenchmarkDominators: dominators and retained sizes of a 10 M-node,
// 35 M-edge heap-shaped graph.
func BenchmarkDominators(b *testing.B) {
	bigGraph.once.Do(func() {
		bigGraph.s = synthGraph(10_000_000, 35_000_000, 1)
		f := &ir.File{Strings: []string{""}, Snapshots: []*ir.Snapshot{bigGraph.s}}
		if err := f.Validate(); err != nil {
			panic(err)
		}
	})
	s := bigGraph.s
	b.ReportAllocs()
	for b.Loop() {
		if _, err := analysis.Dominators(s, analysis.DominatorOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	// After the loop: its first iteration deletes metrics reported before.
	b.ReportMetric(float64(s.Nodes.Len()), "nodes")
	b.ReportMetric(float64(s.Edges.Len()), "edges")
}

// BenchmarkDepthFirstFloor is the peer of BenchmarkDominators: the textbook
// depth-first search over the same graph, which every dominator algorithm
// starts with (Lengauer-Tarjan, semi-NCA and Cooper-Harvey-Kennedy all
// number the nodes by one), and nothing else: a bit per node for "seen", an
// explicit stack of (node, next edge), weak edges skipped, no result kept.
// It reads the snapshot's own edge arrays, as a dominator computation over
// them would without a layout of its own.
func BenchmarkDepthFirstFloor(b *testing.B) {
	bigGraph.once.Do(func() { bigGraph.s = synthGraph(10_000_000, 35_000_000, 1) })
	s := bigGraph.s
	fe, tg, kinds := s.Nodes.FirstEdge, s.Edges.Target, s.Edges.Kind
	const kWeak = 6
	var reached int
	for b.Loop() {
		seen := make([]uint64, (len(fe)+63)/64)
		type frame struct{ v, e uint32 }
		stack := []frame{{s.Root, fe[s.Root]}}
		seen[s.Root>>6] |= 1 << (s.Root & 63)
		reached = 1
		for len(stack) > 0 {
			top := len(stack) - 1
			v, e := stack[top].v, stack[top].e
			end := fe[v+1]
			for ; e < end; e++ {
				t := tg[e]
				if kinds[e] != kWeak && seen[t>>6]&(1<<(t&63)) == 0 {
					break
				}
			}
			if e == end {
				stack = stack[:top]
				continue
			}
			stack[top].e = e + 1
			t := tg[e]
			seen[t>>6] |= 1 << (t & 63)
			reached++
			stack = append(stack, frame{t, fe[t]})
		}
	}
	b.ReportMetric(float64(reached), "nodes")
}
