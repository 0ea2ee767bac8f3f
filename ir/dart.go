package ir

import "strings"

// Dart VM heap snapshots ("dartheap", described in docs/formats/dart.md;
// the facts of the format its reader and writer share are package
// ir/dart's) map into the common model like this:
//
//   - object id k (1-origin in the file) is node k-1; the root (object 1) is
//     node 0;
//   - a class id c (1-origin in the file, 0 for the 2019–2020 root) is
//     Nodes.Class c: class c-1 of File.Classes, whose Library is the class's
//     library name (the URI and the rest are in DartSnapshot);
//   - a node's kind is its NonReferenceData tag (DartNodeKinds) and its
//     payload is its value: null, bool, int (Aux says how it was encoded:
//     ir/dart's IntULEB or IntSLEB), double, Latin-1 or UTF-16 string (Aux =
//     full length when truncated), length, name;
//   - a node's references are its edges, except references 0 (an unboxed slot
//     or an omitted target), which are not edges and are listed in
//     DartSnapshot.ZeroRefs. An edge is a "property" named by the class's
//     field at that slot, an "element" indexed from the end of the fields,
//     or "weak" for the weak slots of _WeakProperty, _WeakReference(Impl) and
//     FinalizerEntry (ir/dart's IsWeakSlot);
//   - identity hash codes are Nodes.ID; external properties are in
//     DartSnapshot and their per-object sums in Nodes.ExternalSize;
//   - the header's shallowSize, capacity and externalSize are Totals.

// DartNodeKinds are the node kinds of a snapshot read from a Dart file: the
// NonReferenceData tags, in tag order.
var DartNodeKinds = []string{"none", "null", "bool", "int", "double", "latin1", "utf16", "length", "name"}

// The NonReferenceData tags (indices into DartNodeKinds).
const (
	DartNoData = iota
	DartNullData
	DartBoolData
	DartIntData
	DartDoubleData
	DartLatin1Data
	DartUTF16Data
	DartLengthData
	DartNameData
)

// DartEdgeKinds are the edge kinds of a snapshot read from a Dart file.
var DartEdgeKinds = []EdgeKind{{"property", false}, {"element", true}, {"weak", false}}

// Indices into DartEdgeKinds.
const (
	DartProperty = iota
	DartElement
	DartWeak
)

// DartForeignScheme begins the library URI of a Dart class that a converter
// made from another format ("heapconv:v8"): the Dart VM gives its own
// classes a real library URI (dart:…, package:…, file:…) or, for the VM's
// internals, none, so the scheme tells the two apart. The library name of
// such a class is the source class's library, or, for a class made for
// nodes that had none, their kind in the source ("string", "hidden", …).
const DartForeignScheme = "heapconv:"

// DartForeignURI is the library URI of the Dart classes made from a file of
// the format.
func DartForeignURI(format string) string { return DartForeignScheme + format }

// IsDartForeignURI reports whether a Dart class's library URI marks it as
// made from another format (DartForeignScheme).
func IsDartForeignURI(uri string) bool { return strings.HasPrefix(uri, DartForeignScheme) }

// DartExportChunk is the size of the chunks DevTools' WriteStream allocates:
// an export is zero-padded to a multiple of it.
const DartExportChunk = 1048055

// DartMaxReferenceCount is the largest header referenceCount Dart's readers
// can take: vm_service and DevTools size a Uint32List by it.
const DartMaxReferenceCount = 1<<32 - 1

// DartSnapshot holds what a Dart VM heap snapshot has beyond the common
// model. A Dart file holds one snapshot, so the class table's extra columns
// live here too, parallel to File.Classes.
type DartSnapshot struct {
	// Flags is the header's flags field (0 from every writer seen).
	Flags uint64
	// ReferenceCount is the header's referenceCount: the number of
	// references including zeros, or more (readers only rely on "at least"),
	// and at most DartMaxReferenceCount.
	ReferenceCount uint64
	// IdentityHashes is true when the file has the identity hash code
	// section (VM 2021 and later, and every DevTools export); the codes are
	// Nodes.ID.
	IdentityHashes bool
	// Padding is the number of zero bytes after the last section: DevTools
	// exports pad to a multiple of DartExportChunk.
	Padding uint64

	// ClassFlags, ClassURI (a string index: the library URI; File.Classes
	// Library holds the library name) and ClassReserved (a string index)
	// have one entry per class of File.Classes.
	ClassFlags    Uints
	ClassURI      []uint32
	ClassReserved []uint32
	// FieldFlags, FieldIndex (the reference slot the field names) and
	// FieldReserved (a string index) have one entry per field of
	// File.Classes.
	FieldFlags    Uints
	FieldIndex    Uints
	FieldReserved []uint32

	// ZeroRefs lists the references written as 0, which are not edges: node
	// ZeroRefNode[i] has a 0 at position ZeroRefSlot[i] of its reference
	// list. Sorted by node, then slot.
	ZeroRefNode []uint32
	ZeroRefSlot []uint32

	// External properties in file order: node, size, name (string index).
	// One node can have several.
	ExternalNode []uint32
	ExternalSize Uints
	ExternalName []uint32
}
