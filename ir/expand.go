package ir

import (
	"fmt"
	"math"
)

// A node may stand for several objects of a heap: a Fuchsia heapdump's
// sample merged by stack, or an entry the kernel's collector aggregates,
// counts its allocations and has only their total size. A profile keeps
// the count; in a graph format an object is a node, so writers of graph
// formats make every such node its objects first (ExpandObjects).

// ObjectCounter is implemented by a snapshot's section whose nodes may
// each stand for several objects, all of the node's class, name, stack
// and other attributes, with only their total size known.
type ObjectCounter interface {
	// ObjectCount returns how many objects node i stands for: at least 1.
	ObjectCount(i int) uint64
	// Expand returns the section of the snapshot ExpandObjects makes of s,
	// in which node j is an object of s's node from[j]: a node's objects
	// are consecutive, the first of them the one that keeps what cannot be
	// split (its id, edges and values).
	Expand(f *File, s *Snapshot, from []uint32) Section
}

// ObjectCounts returns how many objects each node of s stands for, as its
// sections say (ObjectCounter), or nil when every node is one object.
func ObjectCounts(s *Snapshot) func(i int) uint64 {
	for _, x := range s.Sections {
		c, ok := x.(ObjectCounter)
		if !ok {
			continue
		}
		for i := range s.Nodes.Len() {
			if c.ObjectCount(i) > 1 {
				return c.ObjectCount
			}
		}
	}
	return nil
}

// Objects returns how many objects the nodes of s stand for (ObjectCounts):
// its node count when every node is one.
func Objects(s *Snapshot) uint64 {
	count := ObjectCounts(s)
	if count == nil {
		return uint64(s.Nodes.Len())
	}
	var n uint64
	for i := range s.Nodes.Len() {
		n = SatAdd(n, count(i))
	}
	return n
}

// The kinds of loss of ExpandObjects.
const (
	// LossAggregates: nodes that stood for several objects, each made
	// that many objects whose sizes are an even split of the node's;
	// Count is nodes.
	LossAggregates = "aggregates"
	// LossAggregatesCapped: nodes that stand for more objects than
	// ExpandObjects makes, left one object each; Count is nodes.
	LossAggregatesCapped = "aggregates-capped"
)

// ExpansionLimit is how many objects ExpandObjects makes of a snapshot of
// n nodes at most: 2^20, or 64 per node for a larger snapshot (below 2^32,
// as node indices are). A count is only a number in the input: without a
// bound, a sample of a few bytes claiming 2^60 allocations would exhaust
// memory. Real aggregated profiles stay well within it (the kernel's
// collector reports some 650 allocations per entry).
func ExpansionLimit(n int) uint64 {
	return min(max(1<<20, 64*uint64(n)), math.MaxUint32-1)
}

// ExpandObjects returns f with every node that stands for several objects
// (ObjectCounts) made into that many nodes, for a writer of a graph
// format, in which an object is a node. The objects of a node follow each
// other where the node was; each has the node's kind, name, class and the
// attributes its sections give it (ObjectCounter.Expand). Their sizes are
// the node's self size divided as evenly as bytes allow, the remainder on
// the first, which also keeps the node's id, external size, values and
// references, and is the target of the references to the node. The others
// are GC roots, as nothing references them: in each category the node is
// a root of, or, for a node something references, in the category named
// by the node's name. A snapshot is expanded to at most
// ExpansionLimit(nodes) objects: the nodes that would exceed it, in node
// order, stay one object each. The loss report names the nodes expanded
// (their objects' sizes are a split, not their own) and those that were
// not.
//
// f itself is returned when no node stands for several objects; otherwise
// the result shares f's strings, classes, sections and the snapshots not
// expanded. It is for converting to a graph format, not for writing back
// in f's format.
func ExpandObjects(f *File) (*File, LossReport) {
	var loss LossReport
	var out *File
	for k, s := range f.Snapshots {
		count := ObjectCounts(s)
		if count == nil {
			continue
		}
		if out == nil {
			g := *f
			g.Snapshots = append([]*Snapshot(nil), f.Snapshots...)
			out = &g
		}
		x, l := expandSnapshot(f, s, count)
		if len(f.Snapshots) > 1 {
			for j := range l {
				if l[j].Example != "" {
					l[j].Example = fmt.Sprintf("snapshot %d, %s", k, l[j].Example)
				}
			}
		}
		out.Snapshots[k] = x
		loss.Merge(l)
	}
	if out == nil {
		return f, nil
	}
	return out, loss
}

// expandSnapshot makes each node of s count(i) nodes (see ExpandObjects).
func expandSnapshot(f *File, s *Snapshot, count func(i int) uint64) (*Snapshot, LossReport) {
	n := s.Nodes.Len()
	limit := ExpansionLimit(n)
	// start[i] is the first object of node i; node i has
	// start[i+1]-start[i] objects.
	start := make([]uint32, n+1)
	total := uint64(n)
	var loss LossReport
	var capped int
	var cappedObjects uint64
	cappedExample := ""
	for i := range n {
		start[i] = uint32(uint64(i) + total - uint64(n))
		c := count(i)
		if c <= 1 {
			continue
		}
		if c-1 > limit-total {
			capped++
			cappedObjects = SatAdd(cappedObjects, c)
			if cappedExample == "" {
				cappedExample = fmt.Sprintf("node %d (%s): %d objects", i, f.String(s.Nodes.Name[i]), c)
			}
			continue
		}
		total += c - 1
	}
	start[n] = uint32(total)
	objects := func(i int) uint32 { return start[i+1] - start[i] }

	out := *s
	nd, src := &out.Nodes, &s.Nodes
	nd.Kind = make([]uint8, 0, total)
	nd.Name = make([]uint32, 0, total)
	nd.Class = nil
	if len(src.Class) > 0 {
		nd.Class = make([]uint32, 0, total)
	}
	nd.ID, nd.SelfSize, nd.ExternalSize = Uints{}, Uints{}, Uints{}
	nd.FirstEdge = make([]uint32, 1, total+1)
	from := make([]uint32, 0, total)
	hasExternal := src.ExternalSize.Len() > 0
	expanded, edges := 0, 0
	example := ""
	for i := range n {
		k := uint64(objects(i))
		size := src.SelfSize.At(i)
		each, rest := size/k, size%k
		lo, hi := src.EdgeRange(i)
		for _, t := range s.Edges.Target[lo:hi] {
			if k > 1 || objects(int(t)) > 1 {
				edges++ // from or to a node of several objects
			}
		}
		if k > 1 {
			expanded++
			if example == "" {
				example = fmt.Sprintf("node %d (%s): %d objects of %d bytes, %d each", i, f.String(src.Name[i]), k, size, each)
				if rest > 0 {
					example = fmt.Sprintf("node %d (%s): %d objects of %d bytes, the first %d, the others %d", i, f.String(src.Name[i]), k, size, each+rest, each)
				}
			}
		}
		for j := range k {
			nd.Kind = append(nd.Kind, src.Kind[i])
			nd.Name = append(nd.Name, src.Name[i])
			if nd.Class != nil {
				nd.Class = append(nd.Class, src.Class[i])
			}
			from = append(from, uint32(i))
			if j == 0 {
				nd.ID.Append(src.ID.At(i))
				nd.SelfSize.Append(each + rest)
				if hasExternal {
					nd.ExternalSize.Append(src.ExternalSize.At(i))
				}
				nd.FirstEdge = append(nd.FirstEdge, nd.FirstEdge[len(nd.FirstEdge)-1]+uint32(hi-lo))
				continue
			}
			nd.ID.Append(0)
			nd.SelfSize.Append(each)
			if hasExternal {
				nd.ExternalSize.Append(0)
			}
			nd.FirstEdge = append(nd.FirstEdge, nd.FirstEdge[len(nd.FirstEdge)-1])
		}
	}
	m := s.Edges.Len()
	out.Edges = Edges{Kind: s.Edges.Kind, Name: s.Edges.Name, Target: make([]uint32, m)}
	for e, t := range s.Edges.Target {
		out.Edges.Target[e] = start[t]
	}
	// Roots: a node's objects are roots where it is one; the objects
	// beyond the first of a node that is none are roots named by it.
	isRoot := make([]bool, n)
	out.Roots = make([]RootRef, 0, len(s.Roots)+int(total)-n)
	for _, r := range s.Roots {
		isRoot[r.Node] = true
		for j := start[r.Node]; j < start[r.Node+1]; j++ {
			out.Roots = append(out.Roots, RootRef{Node: j, Category: r.Category})
		}
	}
	for i := range n {
		if !isRoot[i] {
			for j := start[i] + 1; j < start[i+1]; j++ {
				out.Roots = append(out.Roots, RootRef{Node: j, Category: src.Name[i]})
			}
		}
	}
	if s.Root != NoNode {
		out.Root = start[s.Root]
	}
	out.Values = s.Values
	if s.Values.Len() > 0 {
		out.Values.Node = make([]uint32, s.Values.Len())
		for k, i := range s.Values.Node {
			out.Values.Node[k] = start[i]
		}
	}
	out.Sections = make([]Section, len(s.Sections))
	for k, x := range s.Sections {
		if c, ok := x.(ObjectCounter); ok {
			x = c.Expand(f, s, from)
		}
		out.Sections[k] = x
	}

	if expanded > 0 {
		what := fmt.Sprintf("nodes standing for several objects each (a profile's samples of merged allocations) are made one object per allocation, %d objects in all: only their total size is known, so their sizes are an even split of it, the remainder on the first",
			total-uint64(n-expanded))
		if edges > 0 {
			what += fmt.Sprintf("; the %d references from and to them are the first object's", edges)
		}
		loss.Add(LossAggregates, int64(expanded), what).WithExample(example)
	}
	if capped > 0 {
		loss.Addf(LossAggregatesCapped, int64(capped), "nodes stand for more objects than a snapshot of %d nodes is expanded to (%d objects at most, so that a count in the input cannot exhaust memory): each stays one object holding all their bytes, %d objects fewer",
			n, limit, cappedObjects-uint64(capped)).WithExample(cappedExample)
	}
	return &out, loss
}
