package ir

import (
	"fmt"
	"slices"
)

// Version is the IR schema version: the layout of the stream's records
// and of the core's fields and columns that package irstream writes (each
// section has a version of its own). Readers of the stream accept every
// version up to it and convert older ones.
const Version = 8

// NoNode marks the absence of a node index (for example a snapshot without a
// designated root).
const NoNode = ^uint32(0)

// FormatIR is the name of the IR's own format ("ir"). Each format's package
// under ir names its own (ir/v8's Format is "v8").
const FormatIR = "ir"

// File is one heap-snapshot file in memory: one or more snapshots that share a
// string table and a class table, plus where the data came from.
type File struct {
	// Format is the format the data was read from ("v8", "dart", ...).
	Format string
	// FormatVersion names the variant of that format, for example
	// "v8 node_fields=7 rows" or "moarvm v3".
	FormatVersion string
	// Producer names the program that wrote the original file, when known.
	Producer string

	// Strings is the string table. Every string reference in the file is an
	// index into it. Strings are byte strings holding WTF-8: UTF-8 that may
	// also encode lone UTF-16 surrogates (which V8 snapshots contain).
	Strings []string
	// Classes is the class (type) table shared by all snapshots.
	Classes Classes
	// Snapshots are the heap snapshots, in file order.
	Snapshots []*Snapshot

	// Sections hold what the file's format has beyond the common model and
	// its snapshots share (a MoarVM file's static frames, a Fuchsia
	// profile's mappings), in stream order.
	Sections []Section
}

// Snapshot is one heap graph. Nodes and edges are stored column by column;
// the edges of node i are Edges[Nodes.FirstEdge[i]:Nodes.FirstEdge[i+1]].
type Snapshot struct {
	// Name is the snapshot's name or title, if the format has one.
	Name uint32 // string index
	// CaptureTime is when the snapshot was taken, in nanoseconds since the
	// Unix epoch; 0 when unknown.
	CaptureTime int64
	// Totals are named whole-heap figures in the order the format lists them
	// (capacity, external size, extra native bytes, ...).
	Totals []Total

	// NodeKinds is this snapshot's table of node kinds; Nodes.Kind indexes it.
	// Readers keep their format's own list (for V8 the meta node_types list).
	NodeKinds []string
	// EdgeKinds is this snapshot's table of edge kinds; Edges.Kind indexes it.
	EdgeKinds []EdgeKind

	// Root is the node from which the graph is walked, or NoNode.
	Root uint32
	// Roots lists GC roots with their category, for formats that name them
	// apart from the graph.
	Roots []RootRef

	Nodes  Nodes
	Edges  Edges
	Values Values

	// Sections hold what the snapshot's format has beyond the common model
	// (a V8 file's header and extra node fields), in stream order.
	Sections []Section

	// Origin is, in a series (JoinSeries), the string and class tables of
	// the file the snapshot came from; nil in any other file.
	Origin *Origin
}

// Total is one named whole-snapshot figure.
type Total struct {
	Name  string
	Value uint64
}

// EdgeKind describes one entry of a snapshot's edge kind table.
type EdgeKind struct {
	Name string
	// Indexed is true when edges of this kind are named by an integer index
	// (array elements) instead of a string.
	Indexed bool
}

// RootRef is one GC root: a node and the category it belongs to.
type RootRef struct {
	Node     uint32
	Category uint32 // string index
}

// Nodes is the struct-of-arrays node table. Every present column has one
// entry per node; optional columns are left empty when a format lacks them.
type Nodes struct {
	Kind []uint8  // index into Snapshot.NodeKinds
	Name []uint32 // string index
	// Class is 1 + an index into File.Classes, or 0 for none; empty when the
	// format has no class table.
	Class []uint32
	ID    Uints
	// SelfSize is the shallow (managed) size in bytes.
	SelfSize Uints
	// ExternalSize is memory held outside the managed heap (external /
	// unmanaged size); empty when the format has none.
	ExternalSize Uints
	// FirstEdge has len(nodes)+1 entries: node i owns edges
	// [FirstEdge[i], FirstEdge[i+1]).
	FirstEdge []uint32
}

// Len returns the number of nodes.
func (n *Nodes) Len() int { return len(n.Kind) }

// EdgeRange returns the half-open edge index range of node i.
func (n *Nodes) EdgeRange(i int) (int, int) { return int(n.FirstEdge[i]), int(n.FirstEdge[i+1]) }

// Edges is the struct-of-arrays edge table, grouped by source node.
type Edges struct {
	Kind []uint8 // index into Snapshot.EdgeKinds
	// Name is a string index, or an element index when the edge's kind is
	// Indexed.
	Name   []uint32
	Target []uint32 // node index
}

// Len returns the number of edges.
func (e *Edges) Len() int { return len(e.Kind) }

// ValueKind says what a node's primitive value holds.
type ValueKind uint8

// Value kinds.
const (
	// ValueString: Bits is a string index; Aux is the full length in code
	// units when the stored string is a truncated prefix, else 0.
	ValueString ValueKind = iota + 1
	// ValueInt: Bits is the int64 value's two's-complement bits.
	ValueInt
	// ValueFloat: Bits is the IEEE-754 float64 bits.
	ValueFloat
	// ValueBool: Bits is 0 or 1.
	ValueBool
	// ValueLength: Bits is a length (element count) of a collection.
	ValueLength
	// ValueNull: the node is the null value; Bits is 0.
	ValueNull
)

var valueKindNames = [...]string{"", "string", "int", "float", "bool", "length", "null"}

// String gives the kind's name.
func (k ValueKind) String() string {
	if int(k) < len(valueKindNames) && k != 0 {
		return valueKindNames[k]
	}
	return fmt.Sprintf("value(%d)", uint8(k))
}

// Values holds the primitive values of the nodes that have one, sparsely:
// entry j belongs to node Node[j]; Node is strictly increasing.
type Values struct {
	Node []uint32
	Kind []ValueKind
	Bits []uint64
	Aux  []uint64
}

// Len returns the number of values.
func (v *Values) Len() int { return len(v.Node) }

// Classes is the class table, column by column. Class c's fields are
// FieldName[FirstField[c]:FirstField[c+1]].
type Classes struct {
	Name       []uint32 // string index
	Library    []uint32 // string index of the library, module or namespace
	FirstField []uint32 // len(classes)+1 entries when non-empty
	FieldName  []uint32 // string index
}

// Len returns the number of classes.
func (c *Classes) Len() int { return len(c.Name) }

// String returns string i, or a placeholder when i is out of range.
func (f *File) String(i uint32) string {
	if int(i) < len(f.Strings) {
		return f.Strings[i]
	}
	return fmt.Sprintf("<string %d out of range>", i)
}

// NodeKindName returns the name of node i's kind.
func (s *Snapshot) NodeKindName(i int) string {
	k := s.Nodes.Kind[i]
	if int(k) < len(s.NodeKinds) {
		return s.NodeKinds[k]
	}
	return fmt.Sprintf("kind%d", k)
}

// EdgeKindOf returns the kind of edge e, or a placeholder for an index beyond
// the kind table.
func (s *Snapshot) EdgeKindOf(e int) EdgeKind {
	k := s.Edges.Kind[e]
	if int(k) < len(s.EdgeKinds) {
		return s.EdgeKinds[k]
	}
	return EdgeKind{Name: fmt.Sprintf("kind%d", k)}
}

// Select returns a File holding only snapshot n, sharing f's tables where
// they stay as they are. f must be valid; so is the result. A file's
// section that depends on which snapshots the file holds adjusts the result
// (Selecter): a MoarVM file's TOCs, a Fuchsia profile's tables of what each
// process uses. A snapshot of a series is given as the file it came from,
// with that file's own string and class tables (Origin).
func (f *File) Select(n int) (*File, error) {
	if n < 0 || n >= len(f.Snapshots) {
		return nil, fmt.Errorf("snapshot %d does not exist (the file has %d)", n, len(f.Snapshots))
	}
	if f.Snapshots[n].Origin != nil {
		return f.selectOrigin(n)
	}
	g := *f
	g.Snapshots = []*Snapshot{f.Snapshots[n]}
	g.Sections = slices.Clone(f.Sections)
	for _, x := range f.Sections {
		if sel, ok := x.(Selecter); ok {
			sel.Select(f, n, &g)
		}
	}
	return &g, nil
}
