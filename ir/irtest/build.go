package irtest

import (
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// Node is a node of a graph a test builds by hand: its kind, name (a
// string index), class (1-origin, 0 for none), self size and edges.
type Node struct {
	Kind  uint8
	Name  uint32
	Class uint32
	Size  uint64
	Edges []Edge
}

// Edge is an edge of a graph a test builds by hand: its kind, name (a
// string index, or the index of an indexed kind) and target node.
type Edge [3]uint32

// Build sets s's nodes and edges to nodes, in order, with the ids 1, 3,
// 5, … and, when classes is true, their classes.
func Build(s *ir.Snapshot, nodes []Node, classes bool) {
	s.Nodes, s.Edges = ir.Nodes{FirstEdge: []uint32{0}}, ir.Edges{}
	for i, n := range nodes {
		s.Nodes.Kind = append(s.Nodes.Kind, n.Kind)
		s.Nodes.Name = append(s.Nodes.Name, n.Name)
		if classes {
			s.Nodes.Class = append(s.Nodes.Class, n.Class)
		}
		s.Nodes.ID.Append(uint64(2*i + 1))
		s.Nodes.SelfSize.Append(n.Size)
		for _, e := range n.Edges {
			s.Edges.Kind = append(s.Edges.Kind, uint8(e[0]))
			s.Edges.Name = append(s.Edges.Name, e[1])
			s.Edges.Target = append(s.Edges.Target, e[2])
		}
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
}

// Strings returns the indices of ss in f's string table, adding the
// strings it does not hold yet.
func Strings(f *ir.File, ss ...string) []uint32 {
	out := make([]uint32, len(ss))
	for i, s := range ss {
		k := slices.Index(f.Strings, s)
		if k < 0 {
			k = len(f.Strings)
			f.Strings = append(f.Strings, s)
		}
		out[i] = uint32(k)
	}
	return out
}

// Edgeless gives s n nodes of 8 bytes, id 0 and no edges, whose kinds,
// names and classes the test sets.
func Edgeless(s *ir.Snapshot, n int) {
	s.Nodes.FirstEdge = make([]uint32, n+1)
	for range n {
		s.Nodes.SelfSize.Append(8)
		s.Nodes.ID.Append(0)
	}
}
