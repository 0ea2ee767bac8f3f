package analysis_test

import (
	"slices"
	"testing"
	"time"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// TestDevToolsIgnore builds a small V8-shaped heap and checks which edges
// DevTools does not let retain: a shortcut not from the root, a WeakMap
// table's edge to a value, and an edge from outside the page into it.
func TestDevToolsIgnore(t *testing.T) {
	f := &ir.File{Strings: []string{"", "global", "x", "debugger", "table", "v",
		"1 / part of key (Object @5) -> value (Object @7) pair in WeakMap (table @9)", "(GC roots)"}}
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	const synthetic, object = 9, 3
	const element, property, internal, shortcut = 1, 2, 3, 5
	type edge struct {
		kind uint8
		name uint32
		to   uint32
	}
	nodes := []struct {
		kind  uint8
		name  uint32
		id    uint64
		edges []edge
	}{
		{synthetic, 0, 1, []edge{{shortcut, 1, 1}, {element, 1, 2}}},   // 0 root: a user global, (GC roots)
		{object, 1, 3, []edge{{property, 2, 3}, {internal, 4, 4}}},     // 1 global (page)
		{synthetic, 7, 11, []edge{{property, 3, 3}, {shortcut, 2, 1}}}, // 2 (GC roots): into the page; a shortcut
		{object, 2, 5, nil},                      // 3 x (page)
		{object, 4, 9, []edge{{internal, 6, 5}}}, // 4 WeakMap table, id 9 (page)
		{object, 5, 7, nil},                      // 5 value
	}
	s.Nodes.FirstEdge = []uint32{0}
	for _, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, n.kind)
		s.Nodes.Name = append(s.Nodes.Name, n.name)
		s.Nodes.ID.Append(n.id)
		s.Nodes.SelfSize.Append(8)
		for _, e := range n.edges {
			s.Edges.Kind = append(s.Edges.Kind, e.kind)
			s.Edges.Name = append(s.Edges.Name, e.name)
			s.Edges.Target = append(s.Edges.Target, e.to)
		}
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	f.Snapshots = []*ir.Snapshot{s}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	ignore := analysis.DevToolsIgnore(f, s)
	if ignore == nil {
		t.Fatal("DevToolsIgnore skipped nothing")
	}
	// Edges in order: 0 root→global (shortcut from the root: kept),
	// 1 root→(GC roots), 2 global→x, 3 global→table, 4 (GC roots)→x (from
	// outside the page into it), 5 (GC roots)→global (a shortcut not from
	// the root), 6 table→value (the WeakMap edge from table 9).
	want := []bool{false, false, false, false, true, true, true}
	for e, w := range want {
		if got := ignore(e); got != w {
			t.Errorf("edge %d: ignored %v, want %v", e, got, w)
		}
	}
	// The value is then held by nothing that retains it: an orphan.
	tree, err := analysis.Dominators(s, analysis.DominatorOptions{Ignore: ignore, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if tree.IDom[3] != 1 || tree.IDom[5] != 0 {
		t.Errorf("idom of x %d (want the global 1), of the value %d (want the root 0)", tree.IDom[3], tree.IDom[5])
	}
}

// TestDevToolsSelfSizes checks DevTools' folding: an array one object owns
// (also through another owned array) counts as that object's; one two
// objects reach stays apart, as does one a synthetic node owns; and nothing
// moves in a heap without user roots.
func TestDevToolsSelfSizes(t *testing.T) {
	build := func(userRoot bool) (*ir.File, *ir.Snapshot) {
		f := &ir.File{Strings: []string{"", "A", "B", "arr", "(GC roots)"}}
		s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
		const synthetic, object, array, element = 9, 3, 1, 1
		rootKid := uint8(object)
		if !userRoot {
			rootKid = synthetic
		}
		nodes := []struct {
			kind  uint8
			name  uint32
			size  uint64
			edges []uint32
		}{
			{synthetic, 0, 0, []uint32{1, 6}},   // 0 root
			{rootKid, 1, 10, []uint32{3, 5, 2}}, // 1 A: owns 3 (and 4 through it), shares 5
			{object, 2, 20, []uint32{5}},        // 2 B: shares 5
			{array, 3, 100, []uint32{4}},        // 3 owned by A
			{array, 3, 1000, nil},               // 4 owned by A through 3
			{array, 3, 7, nil},                  // 5 A's and B's
			{synthetic, 4, 0, []uint32{7}},      // 6 (GC roots)
			{array, 3, 3, nil},                  // 7 owned by a synthetic node
		}
		s.Nodes.FirstEdge = []uint32{0}
		for i, n := range nodes {
			s.Nodes.Kind = append(s.Nodes.Kind, n.kind)
			s.Nodes.Name = append(s.Nodes.Name, n.name)
			s.Nodes.ID.Append(uint64(2*i + 1))
			s.Nodes.SelfSize.Append(n.size)
			for _, to := range n.edges {
				s.Edges.Kind = append(s.Edges.Kind, element)
				s.Edges.Name = append(s.Edges.Name, uint32(s.Edges.Len()))
				s.Edges.Target = append(s.Edges.Target, to)
			}
			s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
		}
		f.Snapshots = []*ir.Snapshot{s}
		return f, s
	}
	f, s := build(true)
	sizes := analysis.DevToolsSelfSizes(f, s)
	if sizes == nil {
		t.Fatal("no folding in a heap with a user root")
	}
	want := []uint64{0, 1110, 20, 0, 0, 7, 0, 3}
	for i, w := range want {
		if got := sizes.At(i); got != w {
			t.Errorf("node %d: size %d, want %d", i, got, w)
		}
	}
	if f, s := build(false); analysis.DevToolsSelfSizes(f, s) != nil {
		t.Errorf("sizes moved in a heap without user roots")
	}
}

// TestConsStringCycle checks that a concatenated string whose parts hold
// it again (a crafted file; V8 writes none) is named in bounded time and
// memory.
func TestConsStringCycle(t *testing.T) {
	nv, err := analysis.NewNavigator(consCycleHeap())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []analysis.PathStep)
	go func() { done <- nv.ShortestPath(2) }()
	select {
	case path := <-done:
		if len(path) == 0 {
			t.Error("no path to the string's holder")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("naming a cycle of concatenated strings does not end")
	}
}

// consCycleHeap is a V8-shaped heap in which object 2 is held, at the
// same distance, by an object and by a concatenated string whose parts
// hold each other and themselves.
func consCycleHeap() analysis.Heap {
	f := &ir.File{Format: v8ir.Format, Strings: []string{""}}
	str := irtest.Strings(f, "", "G", "X", "O", "first", "second", "a", "o", "x")
	kind := func(k string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, k)) }
	ek := func(k string) uint32 {
		return uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == k }))
	}
	cons := kind(ir.KindConcatenatedString)
	s := &ir.Snapshot{NodeKinds: ir.V8NodeKinds, EdgeKinds: ir.V8EdgeKinds, Root: 0}
	nodes := []irtest.Node{
		{Kind: kind(ir.KindSynthetic), Name: str[0], Edges: []irtest.Edge{{ek("element"), 0, 1}}},
		{Kind: kind(ir.KindObject), Name: str[1], Size: 8, Edges: []irtest.Edge{{ek("property"), str[6], 3}, {ek("property"), str[7], 4}}},
		{Kind: kind(ir.KindObject), Name: str[2], Size: 8},
		{Kind: cons, Name: str[0], Size: 32, Edges: []irtest.Edge{{ek("internal"), str[4], 5}, {ek("internal"), str[5], 3}, {ek("internal"), str[8], 2}}},
		{Kind: kind(ir.KindObject), Name: str[3], Size: 8, Edges: []irtest.Edge{{ek("property"), str[8], 2}}},
		{Kind: cons, Name: str[0], Size: 32, Edges: []irtest.Edge{{ek("internal"), str[4], 3}, {ek("internal"), str[5], 5}}},
	}
	irtest.Build(s, nodes, false)
	s.SetSection(&v8ir.Snapshot{})
	f.Snapshots = []*ir.Snapshot{s}
	return analysis.Heap{File: f, Snapshot: s}
}
