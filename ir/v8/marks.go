package v8

import "github.com/heapconv/heapconv/ir"

// heapconv's writers leave marks in the V8 files they make from other
// formats' heaps, so that converting such a file back gives the heap back
// (ir.Provenance):
//
//   - the header key HeaderFrom names the source format ("moarvm", "dart");
//     DevTools ignores keys it does not know, and heapconv's reader keeps
//     them;
//   - a MoarVM heap's unmanaged memory becomes native nodes, each held by
//     its collectable through an internal edge named UnmanagedEdge; a Dart
//     heap's external properties become native nodes held through an
//     internal edge named ExternalEdge (ir.UnmanagedOwners finds them);
//   - a Dart heap's classes are kept in the header under HeaderDartClasses
//     (name, library name and library URI of each class, a flat list of
//     strings) and each node's in the node field DartClassField (1-origin,
//     0 for none): DevTools' names and categories (strings by value,
//     numbers, "(system)") lose them.

// HeaderFrom is the header key that names the format a heapconv writer
// made the snapshot from.
const HeaderFrom = "heapconv_from"

// UnmanagedEdge names the internal edge by which a MoarVM collectable
// converted to V8 holds the native node of its unmanaged memory.
const UnmanagedEdge = "unmanaged"

// ExternalEdge names the internal edge by which a Dart object converted to
// V8 holds the native node of one of its external properties.
const ExternalEdge = "external"

// HeaderDartClasses is the header key under which a V8 snapshot made from
// a Dart heap keeps its classes.
const HeaderDartClasses = "heapconv_dart_classes"

// DartClassField is the node field that holds each node's Dart class.
// DevTools ignores fields it does not know.
const DartClassField = "heapconv_class"

// MadeFrom returns the format the header says a heapconv writer made the
// snapshot from (HeaderFrom), "" when it says none.
func (v *Snapshot) MadeFrom() string {
	if h := v.Header.Get(HeaderFrom); h != nil && h.Kind == ir.JSONString {
		return h.Str
	}
	return ""
}

// MemoryEdge names the edges that hold a node's memory outside the heap in
// a snapshot made from a MoarVM or a Dart heap.
func (v *Snapshot) MemoryEdge() string {
	switch v.MadeFrom() {
	case "moarvm":
		return UnmanagedEdge
	case "dart":
		return ExternalEdge
	}
	return ""
}

// SourceClasses returns the Dart classes a snapshot made from a Dart heap
// keeps (HeaderDartClasses) and each node's class (DartClassField), or nil
// when they do not fit together; kept is whether the header has them.
func (v *Snapshot) SourceClasses(s *ir.Snapshot) (classes []ir.ClassRef, of *ir.Uints, kept bool) {
	h := v.Header.Get(HeaderDartClasses)
	if h == nil {
		return nil, nil, false
	}
	if h.Kind != ir.JSONArray || len(h.Elems)%3 != 0 {
		return nil, nil, true
	}
	col := v.NodeColumn(DartClassField)
	if col == nil || col.Len() != s.Nodes.Len() || col.Max() > uint64(len(h.Elems)/3) {
		return nil, nil, true
	}
	classes = make([]ir.ClassRef, len(h.Elems)/3)
	for k := range classes {
		e := h.Elems[3*k : 3*k+3]
		if e[0].Kind != ir.JSONString || e[1].Kind != ir.JSONString || e[2].Kind != ir.JSONString {
			return nil, nil, true
		}
		classes[k] = ir.ClassRef{Name: e[0].Str, Library: e[1].Str, URI: e[2].Str}
	}
	return classes, col, true
}

// IdentityKind says that a V8 snapshot's node ids identify its objects for
// as long as the process lives (V8 keeps a heap object's id across heap
// snapshots), unless heapconv made the snapshot from another format's heap,
// whose ids it numbered itself.
func (v *Snapshot) IdentityKind() string {
	if v.MadeFrom() != "" {
		return ""
	}
	return "V8 node ids"
}

// Identity returns node i's id; 0 is no id. A native node (an object of
// the embedder, Node's or Blink's) has none that lasts: the embedder names
// it anew in every snapshot.
func (v *Snapshot) Identity(s *ir.Snapshot, i int) (ir.Identity, bool) {
	id := s.Nodes.ID.At(i)
	return ir.Identity{ID: id}, id != 0 && s.NodeKindName(i) != ir.KindNative
}
