package ir

import (
	"slices"
	"testing"
)

// counted is a snapshot section whose node i stands for counts[i] objects;
// expanded, its Expand records the nodes the objects came from.
type counted struct {
	counts []uint64
	from   []uint32
}

func (c *counted) SectionName() string             { return "test.counted" }
func (c *counted) Bind(*Bindings)                  {}
func (c *counted) Validate(*File, *Snapshot) error { return nil }
func (c *counted) ObjectCount(i int) uint64        { return max(c.counts[i], 1) }
func (c *counted) Expand(_ *File, _ *Snapshot, from []uint32) Section {
	return &counted{counts: slices.Repeat([]uint64{1}, len(from)), from: from}
}

// countedHeap is a heap of three nodes: a (10 bytes, 3 objects, a root,
// holding b), b (7 bytes, one object, held by a, holding c) and c (5
// bytes, 2 objects, held by b, with a value).
func countedHeap(counts ...uint64) *File {
	f := &File{Strings: []string{"", "a", "b", "c", "cat"}}
	s := &Snapshot{Root: NoNode, NodeKinds: []string{KindNative}, EdgeKinds: []EdgeKind{{Name: EdgeInternal}}}
	s.Nodes.Kind = []uint8{0, 0, 0}
	s.Nodes.Name = []uint32{1, 2, 3}
	s.Nodes.ID = UintsOf(100, 200, 300)
	s.Nodes.SelfSize = UintsOf(10, 7, 5)
	s.Nodes.FirstEdge = []uint32{0, 1, 2, 2}
	s.Edges = Edges{Kind: []uint8{0, 0}, Name: []uint32{0, 0}, Target: []uint32{1, 2}}
	s.Roots = []RootRef{{Node: 0, Category: 4}}
	s.Values = Values{Node: []uint32{2}, Kind: []ValueKind{ValueInt}, Bits: []uint64{42}, Aux: []uint64{0}}
	s.Sections = []Section{&counted{counts: counts}}
	f.Snapshots = []*Snapshot{s}
	return f
}

func TestExpandObjects(t *testing.T) {
	f := countedHeap(3, 1, 2)
	g, loss := ExpandObjects(f)
	s := g.Snapshots[0]
	uints := func(u *Uints) []uint64 {
		out := make([]uint64, u.Len())
		u.Values(out, 0)
		return out
	}
	// a: 10 bytes in 3 objects (4, 3, 3); b; c: 5 bytes in 2 (3, 2).
	if got, want := s.Nodes.Name, []uint32{1, 1, 1, 2, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	if got, want := uints(&s.Nodes.SelfSize), []uint64{4, 3, 3, 7, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("sizes %v, want %v", got, want)
	}
	if got, want := uints(&s.Nodes.ID), []uint64{100, 0, 0, 200, 300, 0}; !slices.Equal(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
	// The references stay with the first objects: a→b, b→c.
	if got, want := s.Nodes.FirstEdge, []uint32{0, 1, 1, 1, 2, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("first edges %v, want %v", got, want)
	}
	if got, want := s.Edges.Target, []uint32{3, 4}; !slices.Equal(got, want) {
		t.Errorf("edge targets %v, want %v", got, want)
	}
	// a's objects are roots in its category; c's second, which nothing
	// references, in the category of its name.
	if got, want := s.Roots, []RootRef{{0, 4}, {1, 4}, {2, 4}, {5, 3}}; !slices.Equal(got, want) {
		t.Errorf("roots %v, want %v", got, want)
	}
	if got, want := s.Values.Node, []uint32{4}; !slices.Equal(got, want) {
		t.Errorf("value nodes %v, want %v", got, want)
	}
	if got, want := s.Sections[0].(*counted).from, []uint32{0, 0, 0, 1, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("the section's objects come from %v, want %v", got, want)
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
	l, ok := loss.Get(LossAggregates)
	if !ok || l.Count != 2 || loss.Has(LossAggregatesCapped) {
		t.Errorf("loss report %v, want 2 nodes expanded, none capped", loss)
	}
	if f.Snapshots[0].Nodes.Len() != 3 {
		t.Error("the source was changed")
	}
	if n := Objects(f.Snapshots[0]); n != 6 {
		t.Errorf("Objects: %d, want 6", n)
	}
}

func TestExpandObjectsNone(t *testing.T) {
	f := countedHeap(1, 0, 1)
	if g, loss := ExpandObjects(f); g != f || len(loss) > 0 {
		t.Errorf("a heap of one object a node was copied (%v) or lost %v", g != f, loss)
	}
	if ObjectCounts(f.Snapshots[0]) != nil {
		t.Error("ObjectCounts is not nil for a heap of one object a node")
	}
}

// TestExpandObjectsCapped: a count is only a number in the input; a
// snapshot is expanded to ExpansionLimit objects at most, the nodes beyond
// it stay one object each, and the loss report says so.
func TestExpandObjectsCapped(t *testing.T) {
	limit := ExpansionLimit(3)
	for _, tc := range []struct {
		name   string
		counts []uint64
		nodes  int // after expanding
		capped int64
	}{
		{"2^60", []uint64{1 << 60, 1, 2}, 4, 1},
		{"max", []uint64{^uint64(0), 1, ^uint64(0)}, 3, 2},
		{"limit", []uint64{limit - 2, 1, 1}, int(limit), 0},
		{"one over", []uint64{limit - 1, 1, 1}, 3, 1},
		{"the first fits", []uint64{limit - 3, 1, 3}, int(limit - 1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, loss := ExpandObjects(countedHeap(tc.counts...))
			if n := g.Snapshots[0].Nodes.Len(); n != tc.nodes {
				t.Errorf("%d nodes, want %d", n, tc.nodes)
			}
			l, _ := loss.Get(LossAggregatesCapped)
			if l.Count != tc.capped {
				t.Errorf("%d nodes capped, want %d: %v", l.Count, tc.capped, loss)
			}
			if got := g.Snapshots[0].Nodes.SelfSize.Sum(); got != 22 {
				t.Errorf("%d bytes, want 22", got)
			}
		})
	}
}
