package ir

import (
	"slices"
	"strings"
)

// Not every node of a snapshot is an object of the heap. V8 has a node kind
// for the others: "synthetic", its root and the grouping nodes below it.
// MoarVM's root collectables (kinds 5–11) are the same thing under kinds of
// their own. And a writer adds nodes a format requires (a root object, a
// root collectable) or that a viewer needs (native nodes that make DevTools
// count unmanaged memory). Formats without such a kind get a mark on what
// heapconv's writers synthesize, so that reading the file back tells it from
// the heap's own nodes:
//
//   - MoarVM: writers/moarvm keeps a node's kind as its type's REPR name
//     (MoarVM's REPRs are CamelCase names), so an object of a type whose
//     REPR is "synthetic" or a root kind's name ("root", "permanent
//     roots", …) stood for such a node in its source; the Root it adds in
//     front of another format's graph is a root collectable;
//   - Dart: the VM's own pseudo-objects, of the classes Root, Read-Only
//     Pages and Isolate (class ids 1 to 3, no library), hold the roots'
//     references and are no objects of the heap. writers/dart keeps a
//     node's kind as its class's library name; a class whose library name
//     is "synthetic" (or, for a MoarVM heap, a root kind's name) and whose
//     library URI is heapconv's
//     (DartForeignScheme) holds such nodes. The Root object it adds in
//     front of another format's graph has a class "Root" of library name
//     "synthetic" and, as the VM's own root class, no URI (the VM's has no
//     library name either);
//   - V8: writers/v8 writes a MoarVM heap's unmanaged memory as native
//     nodes, each held by its collectable through an internal edge named
//     V8UnmanagedEdge, and says so in the snapshot header: the key
//     V8HeaderFrom is "moarvm" (DevTools ignores keys it does not know;
//     heapconv's V8 reader keeps them). UnmanagedOwners finds those nodes
//     and their owners; writers/moarvm folds them back into their owners'
//     unmanaged sizes and, as the mark says the file is writers/v8's
//     mapping of a MoarVM heap, undoes the rest of it (kinds, types,
//     frames). A Dart heap's external properties are native nodes the
//     same way, held through an internal edge named V8ExternalEdge, and
//     V8HeaderFrom is "dart".
//
// Readers keep these nodes as their files have them: a Dart node's kind is
// its data tag and a MoarVM one's its colkind, which their writers write
// back, so the marks are read from the model (SyntheticNodes) rather than
// turned into a kind.

// V8HeaderFrom is the key of a V8 snapshot header under which writers/v8
// names the format of a heap it wrote in a shape it can be undone from:
// "moarvm" (FormatMoarVM) for a MoarVM heap, "dart" (FormatDart) for a Dart
// heap (see UnmanagedOwners).
const V8HeaderFrom = "heapconv_from"

// V8MadeFrom returns the format a V8 snapshot's header says writers/v8
// made it from (V8HeaderFrom), "" when it says none.
func V8MadeFrom(s *Snapshot) string {
	if s.V8 == nil {
		return ""
	}
	if h := s.V8.Header.Get(V8HeaderFrom); h != nil && h.Kind == JSONString {
		return h.Str
	}
	return ""
}

// V8UnmanagedEdge names the internal edge by which a MoarVM collectable
// converted to V8 holds the native node of its unmanaged memory.
const V8UnmanagedEdge = "unmanaged"

// V8ExternalEdge names the internal edge by which a Dart object converted
// to V8 holds the native node of one of its external properties.
const V8ExternalEdge = "external"

// MoarVMEdgeKindMark is how writers/moarvm keeps an edge kind MoarVM does
// not have (V8's weak, internal, hidden, … edges) in a string reference's
// description: "(weak) name", an indexed kind's index as the name ("(hidden)
// 3"), for the references of objects whose type's REPR name is a V8 node
// kind (a V8 heap's: see writers/moarvm) and of the root that was V8's;
// writers/v8 reads the kinds back for those, and only for those. A
// property whose name reads as a mark is marked "(property) name".
func MoarVMEdgeKindMark(kind, name string) string { return "(" + kind + ") " + name }

// ParseMoarVMEdgeKindMark splits a description made by MoarVMEdgeKindMark
// into the kind and the name; ok is false for any other description.
func ParseMoarVMEdgeKindMark(desc string) (kind, name string, ok bool) {
	rest, found := strings.CutPrefix(desc, "(")
	if !found {
		return "", "", false
	}
	kind, name, ok = strings.Cut(rest, ") ")
	return kind, name, ok && kind != "" && !strings.ContainsAny(kind, "()")
}

// V8HeaderDartClasses is the key of a V8 snapshot header under which
// writers/v8 keeps the classes of the Dart heap it was made from: a flat
// list of strings, the name, library name and library URI of each class.
// The node field V8DartClassField gives each node's (1-origin, 0 for none),
// so that converting the file back to Dart gives objects their classes
// again, where DevTools' names and categories (strings by value, numbers,
// "(system)") have lost them.
const V8HeaderDartClasses = "heapconv_dart_classes"

// V8DartClassField is the V8 node field that holds each node's Dart class
// (see V8HeaderDartClasses). DevTools ignores fields it does not know.
const V8DartClassField = "heapconv_class"

// DartClassRef is a Dart class as a V8 snapshot keeps it.
type DartClassRef struct{ Name, Library, URI string }

// V8DartClasses returns the Dart classes a V8 snapshot made from a Dart
// heap keeps (V8HeaderDartClasses) and each node's class (V8DartClassField,
// 1-origin, 0 for none), or nil when the snapshot has none or they do not
// fit together.
func V8DartClasses(s *Snapshot) ([]DartClassRef, *Uints) {
	if s.V8 == nil {
		return nil, nil
	}
	h := s.V8.Header.Get(V8HeaderDartClasses)
	if h == nil || h.Kind != JSONArray || len(h.Elems)%3 != 0 {
		return nil, nil
	}
	col := s.V8.NodeColumn(V8DartClassField)
	if col == nil || col.Len() != s.Nodes.Len() || col.Max() > uint64(len(h.Elems)/3) {
		return nil, nil
	}
	classes := make([]DartClassRef, len(h.Elems)/3)
	for k := range classes {
		e := h.Elems[3*k : 3*k+3]
		if e[0].Kind != JSONString || e[1].Kind != JSONString || e[2].Kind != JSONString {
			return nil, nil
		}
		classes[k] = DartClassRef{e[0].Str, e[1].Str, e[2].Str}
	}
	return classes, col
}

// v8OwnedMemoryEdge is, by V8HeaderFrom, the name of the edges that hold
// another node's memory.
var v8OwnedMemoryEdge = map[string]string{FormatMoarVM: V8UnmanagedEdge, FormatDart: V8ExternalEdge}

// SyntheticNodes reports, node by node, which nodes of a snapshot stand for
// no object of the heap: nodes of kind "synthetic", MoarVM's root
// collectables, and what heapconv's writers made from such nodes or added,
// recognized by the marks above. Native nodes that hold another node's
// unmanaged memory are not among them: they are memory (UnmanagedOwners).
func SyntheticNodes(f *File, s *Snapshot) []bool {
	n := s.Nodes.Len()
	out := make([]bool, n)
	byKind := make([]bool, len(s.NodeKinds))
	for k, name := range s.NodeKinds {
		byKind[k] = name == KindSynthetic || s.MoarVM != nil && moarVMRootKind(k, name)
	}
	var byClass []bool // per 1-origin class
	switch {
	case s.MoarVM != nil:
		byClass = make([]bool, f.Classes.Len()+1)
		for k, lib := range f.Classes.Library {
			repr := f.String(lib)
			byClass[k+1] = repr == KindSynthetic || isMoarVMRootKindName(repr)
		}
	case s.Dart != nil:
		byClass = make([]bool, f.Classes.Len()+1)
		for k, lib := range f.Classes.Library {
			if k >= len(s.Dart.ClassURI) {
				break
			}
			name, uri := f.String(lib), f.String(s.Dart.ClassURI[k])
			byClass[k+1] = name == KindSynthetic && (uri == "" || IsDartForeignURI(uri)) ||
				isMoarVMRootKindName(name) && uri == DartForeignURI(FormatMoarVM) ||
				k < len(dartPseudoClasses) && name == "" && uri == "" && f.String(f.Classes.Name[k]) == dartPseudoClasses[k]
		}
	}
	for i := range n {
		if k := int(s.Nodes.Kind[i]); k < len(byKind) && byKind[k] {
			out[i] = true
		} else if byClass != nil && len(s.Nodes.Class) > 0 && int(s.Nodes.Class[i]) < len(byClass) {
			out[i] = byClass[s.Nodes.Class[i]]
		}
	}
	return out
}

// dartPseudoClasses are the classes 1, 2 and 3 of a Dart VM snapshot since
// 2022 ("extra cids"): the root, the read-only image pages and each
// isolate, whose objects the VM writes to hold the roots' references.
var dartPseudoClasses = []string{"Root", "Read-Only Pages", "Isolate"}

// moarVMRootKind reports whether kind k, named name, of a MoarVM snapshot is
// one of the root kinds.
func moarVMRootKind(k int, name string) bool {
	return k >= MoarVMPermRoots && k <= MoarVMCallStackRoots && name == MoarVMNodeKinds[k]
}

// isMoarVMRootKindName reports whether name is the name of a MoarVM root
// kind ("root", "permanent roots", …).
func isMoarVMRootKindName(name string) bool {
	k := slices.Index(MoarVMNodeKinds, name)
	return k >= 0 && moarVMRootKind(k, name)
}

// UnmanagedOwners returns, node by node, the node whose unmanaged memory a
// native node holds, NoNode for every other node: in a V8 snapshot
// writers/v8 made from a MoarVM heap (its header's V8HeaderFrom is
// "moarvm"), each native node held by an internal edge named
// V8UnmanagedEdge is its holder's unmanaged memory; in one made from a Dart
// heap ("dart"), each held by one named V8ExternalEdge is an external
// property of its holder. It returns nil when the snapshot has no such
// node.
func UnmanagedOwners(f *File, s *Snapshot) []uint32 {
	edgeName, ok := v8OwnedMemoryEdge[V8MadeFrom(s)]
	if !ok {
		return nil
	}
	internal, native := -1, -1
	for k, ek := range s.EdgeKinds {
		if ek.Name == EdgeInternal && !ek.Indexed {
			internal = k
		}
	}
	native = slices.Index(s.NodeKinds, KindNative)
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
