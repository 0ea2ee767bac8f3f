package ir

import (
	"slices"
	"strconv"
	"sync"
)

// What one format's heap says that another format's reader must understand
// to convert it back, or to count it right: which nodes are no objects of
// the heap, which native nodes are another node's memory, where objects
// were allocated, what classes a converted heap had. The marks themselves
// are each format's (its package under ir documents them); this file holds
// the questions, which sections answer by implementing these interfaces.
//
// Not every node of a snapshot is an object of the heap. V8 has a node kind
// for the others, "synthetic" (KindSynthetic): its root and the grouping
// nodes below it. MoarVM's root collectables are the same thing under kinds
// of their own, and Dart's VM writes pseudo-objects for its roots. A writer
// adds nodes its format requires (a root object) or that a viewer needs
// (native nodes that make DevTools count unmanaged memory), and marks them
// so that reading the file back tells them from the heap's own nodes.

// SyntheticMarker is implemented by a snapshot's section that knows which
// nodes stand for no object of the heap beyond those of kind "synthetic":
// MarkSynthetic sets marks[i] for each.
type SyntheticMarker interface {
	MarkSynthetic(f *File, s *Snapshot, marks []bool)
}

// SyntheticNodes reports, node by node, which nodes of a snapshot stand for
// no object of the heap: nodes of kind "synthetic", and those its sections
// mark (SyntheticMarker). Native nodes that hold another node's unmanaged
// memory are not among them: they are memory (UnmanagedOwners).
func SyntheticNodes(f *File, s *Snapshot) []bool {
	out := make([]bool, s.Nodes.Len())
	byKind := make([]bool, len(s.NodeKinds))
	for k, name := range s.NodeKinds {
		byKind[k] = name == KindSynthetic
	}
	for i, k := range s.Nodes.Kind {
		out[i] = int(k) < len(byKind) && byKind[k]
	}
	for _, x := range s.Sections {
		if m, ok := x.(SyntheticMarker); ok {
			m.MarkSynthetic(f, s, out)
		}
	}
	return out
}

var (
	syntheticMu    sync.RWMutex
	syntheticKinds = map[string]string{} // kind name → its format
)

// RegisterSyntheticKinds adds node kind names that, in the format that has
// them, stand for no object of the heap (MoarVM's root kinds). A writer
// that keeps a node's kind as a name of its own format (writers/dart, as a
// class's library name) marks such nodes by them.
func RegisterSyntheticKinds(format string, names ...string) {
	syntheticMu.Lock()
	defer syntheticMu.Unlock()
	for _, n := range names {
		syntheticKinds[n] = format
	}
}

// SyntheticKind reports whether a node kind name stands for no object of
// the heap, and in which format: "synthetic" in every format (format ""),
// or a name a format registered.
func SyntheticKind(name string) (format string, ok bool) {
	if name == KindSynthetic {
		return "", true
	}
	syntheticMu.RLock()
	defer syntheticMu.RUnlock()
	format, ok = syntheticKinds[name]
	return format, ok
}

// ClassRef is a class of the heap a converted snapshot was made from: its
// name, library name and library URI (a Dart class's).
type ClassRef struct{ Name, Library, URI string }

// Provenance is implemented by a section that says heapconv made its
// snapshot from a heap of another format, in a shape that can be undone
// (ir/v8's, whose header carries the mark).
type Provenance interface {
	// MadeFrom returns the format the snapshot was converted from, "" when
	// it says none.
	MadeFrom() string
	// MemoryEdge names the internal edges by which a node holds the
	// native node of memory it has outside the heap, in such a snapshot;
	// "" when it has none.
	MemoryEdge() string
	// SourceClasses returns the classes of the heap the snapshot was made
	// from, kept for converting back, and each node's (1-origin, 0 for
	// none); kept reports whether the snapshot says it keeps them, so that
	// classes that do not fit its nodes (classes nil) are told from none.
	SourceClasses(s *Snapshot) (classes []ClassRef, of *Uints, kept bool)
}

func provenance(s *Snapshot) Provenance {
	for _, x := range s.Sections {
		if p, ok := x.(Provenance); ok {
			return p
		}
	}
	return nil
}

// MadeFrom returns the format a snapshot says heapconv converted it from
// (Provenance), "" when it says none.
func MadeFrom(s *Snapshot) string {
	if p := provenance(s); p != nil {
		return p.MadeFrom()
	}
	return ""
}

// SourceClasses returns the classes of the heap a converted snapshot was
// made from (Provenance.SourceClasses).
func SourceClasses(s *Snapshot) (classes []ClassRef, of *Uints, kept bool) {
	if p := provenance(s); p != nil {
		return p.SourceClasses(s)
	}
	return nil, nil, false
}

// ObjectNodes reports, node by node, which nodes of a snapshot are objects
// of the heap: neither synthetic (SyntheticNodes) nor a native node that
// holds another node's unmanaged memory (UnmanagedOwners). What a
// conversion changes is counted in objects, as the conformance matrix
// measures it.
func ObjectNodes(f *File, s *Snapshot) []bool {
	objects := SyntheticNodes(f, s)
	owner := UnmanagedOwners(f, s)
	for i := range objects {
		objects[i] = !objects[i] && (owner == nil || owner[i] == NoNode)
	}
	return objects
}

// UnmanagedOwners returns, node by node, the node whose memory outside the
// heap a native node holds, NoNode for every other node: in a snapshot
// heapconv made from another format's heap (Provenance), each native node
// held by an internal edge named MemoryEdge is its holder's unmanaged
// memory (a MoarVM collectable's) or an external property (a Dart
// object's). It returns nil when the snapshot has no such node.
func UnmanagedOwners(f *File, s *Snapshot) []uint32 {
	p := provenance(s)
	if p == nil || p.MemoryEdge() == "" {
		return nil
	}
	edgeName := p.MemoryEdge()
	internal := -1
	for k, ek := range s.EdgeKinds {
		if ek.Name == EdgeInternal && !ek.Indexed {
			internal = k
		}
	}
	native := slices.Index(s.NodeKinds, KindNative)
	if internal < 0 || native < 0 {
		return nil
	}
	var owner []uint32
	for i := range s.Nodes.Len() {
		lo, hi := s.Nodes.EdgeRange(i)
		for e := lo; e < hi; e++ {
			t := s.Edges.Target[e]
			if int(s.Edges.Kind[e]) != internal || int(s.Nodes.Kind[t]) != native || f.String(s.Edges.Name[e]) != edgeName {
				continue
			}
			if owner == nil {
				owner = make([]uint32, s.Nodes.Len())
				for j := range owner {
					owner[j] = NoNode
				}
			}
			if owner[t] == NoNode && int(t) != i {
				owner[t] = uint32(i)
			}
		}
	}
	return owner
}

// SnapshotNamer is implemented by a section that keeps its snapshot's name
// itself, where the string table cannot hold it: a V8 header's title (a
// V8 file's strings section is written back as it was read, so its table
// gains no string, and its string 0, which Name indexes, is "<dummy>").
type SnapshotNamer interface {
	SnapshotName() string
}

// SnapshotName returns snapshot s's name: the one a section keeps
// (SnapshotNamer), else s.Name; "" for none. Writers name a snapshot by
// it.
func SnapshotName(f *File, s *Snapshot) string {
	for _, x := range s.Sections {
		if n, ok := x.(SnapshotNamer); ok {
			return n.SnapshotName()
		}
	}
	return f.String(s.Name)
}

// StackSource is implemented by a section that holds objects' allocation
// stacks (V8's allocation traces).
type StackSource interface {
	// AllocationStacks returns a function giving node i's allocation
	// stack, innermost first; nil when the section holds none. The
	// function may cache what it resolves: one goroutine calls it.
	AllocationStacks(f *File, s *Snapshot) func(i int) []Frame
}

// AllocationStacks returns a function giving each node's allocation stack
// as the snapshot's sections hold it (StackSource), or nil when none does.
func AllocationStacks(f *File, s *Snapshot) func(i int) []Frame {
	for _, x := range s.Sections {
		if src, ok := x.(StackSource); ok {
			if st := src.AllocationStacks(f, s); st != nil {
				return st
			}
		}
	}
	return nil
}

// ClassLibraries is implemented by a section that names its file's
// classes' libraries better than the class table does (a Dart file's
// library URIs, where the library names are often empty).
type ClassLibraries interface {
	// ClassLibrary returns class k's library, "" when the section has
	// none for it.
	ClassLibrary(f *File, k int) string
}

// ForeignClasses is implemented by a section that marks the classes
// heapconv made from another format's (a Dart file's library URI
// "heapconv:<format>"), whose class-table library is then the source
// class's library rather than one of the file's own.
type ForeignClasses interface {
	// ClassMadeFrom returns the format class k was made from, "" for a
	// class of the file's own format.
	ClassMadeFrom(f *File, k int) string
}

// ClassMadeFrom returns the format the file's class k was made from, as a
// section of the first snapshot says (ForeignClasses), or "".
func ClassMadeFrom(f *File, k int) string {
	return classMark(f, func(x Section) string {
		if c, ok := x.(ForeignClasses); ok {
			return c.ClassMadeFrom(f, k)
		}
		return ""
	})
}

// Identity is what makes an object of one snapshot the same object in
// another snapshot of the same process: an id, and a qualifier where the id
// alone can be reused or collide (a Fuchsia block's allocation time, a Dart
// object's class).
type Identity struct{ ID, Qualifier uint64 }

// ObjectIdentities is implemented by a snapshot's section whose format
// gives objects identities that persist from one snapshot of a process to
// the next (V8's node ids, Dart's identity hash codes, Fuchsia's block
// addresses), so that comparing snapshots can tell the objects that are new
// from those that were there before.
type ObjectIdentities interface {
	// IdentityKind says what the identities are, for reports ("V8 node
	// ids"); "" when this snapshot has none (a V8 file heapconv made from
	// another format's heap, a Dart file without identity hash codes).
	IdentityKind() string
	// Identity returns node i's identity; ok is false for a node without
	// one.
	Identity(s *Snapshot, i int) (id Identity, ok bool)
}

// Identities returns the section of s that gives its objects persistent
// identities, or nil when s has none.
func Identities(s *Snapshot) ObjectIdentities {
	for _, x := range s.Sections {
		if o, ok := x.(ObjectIdentities); ok && o.IdentityKind() != "" {
			return o
		}
	}
	return nil
}

// NodeIDNotation is implemented by a snapshot's section whose format
// writes node ids in a notation of its own: Fuchsia's ids are block
// addresses, written in hex as addresses are.
type NodeIDNotation interface {
	// FormatNodeID writes id in the format's notation.
	FormatNodeID(id uint64) string
}

// FormatNodeID writes node id as s's format writes it, for people: in
// decimal, or in the notation a section of s gives (NodeIDNotation: a
// Fuchsia block address as 0x2d378d3424).
func FormatNodeID(s *Snapshot, id uint64) string {
	if s != nil {
		for _, x := range s.Sections {
			if n, ok := x.(NodeIDNotation); ok {
				return n.FormatNodeID(id)
			}
		}
	}
	return strconv.FormatUint(id, 10)
}
