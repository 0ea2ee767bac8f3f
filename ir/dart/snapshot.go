package dart

import (
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// Dart VM heap snapshots map into the IR like this:
//
//   - object id k (1-origin in the file) is node k-1; the root (object 1) is
//     node 0;
//   - a class id c (1-origin in the file, 0 for the 2019–2020 root) is
//     Nodes.Class c: class c-1 of File.Classes, whose Library is the class's
//     library name (the URI and the rest are in Snapshot);
//   - a node's kind is its NonReferenceData tag (NodeKinds) and its
//     payload is its value: null, bool, int (Aux says how it was encoded:
//     IntULEB or IntSLEB), double, Latin-1 or UTF-16 string (Aux = full
//     length when truncated), length, name;
//   - a node's references are its edges, except references 0 (an unboxed
//     slot or an omitted target), which are not edges and are listed in
//     Snapshot.ZeroRefs. An edge is a "property" named by the class's field
//     at that slot, an "element" indexed from the end of the fields, or
//     "weak" for the weak slots of _WeakProperty, _WeakReference(Impl) and
//     FinalizerEntry (IsWeakSlot);
//   - identity hash codes are Nodes.ID; external properties are in Snapshot
//     and their per-object sums in Nodes.ExternalSize;
//   - the header's shallowSize, capacity and externalSize are Totals.

// Format is the Dart format's name.
const Format = "dart"

// SectionName is the Dart section's name in the IR.
const SectionName = "dart"

func init() {
	ir.RegisterSection(SectionName, ir.SnapshotScope, 1, func() ir.Section { return new(Snapshot) })
}

// The core's hooks the Dart section implements.
var (
	_ ir.LossReporter    = (*Snapshot)(nil)
	_ ir.SyntheticMarker = (*Snapshot)(nil)
	_ ir.ClassLibraries  = (*Snapshot)(nil)
	_ ir.ForeignClasses  = (*Snapshot)(nil)
)

// NodeKinds are the node kinds of a snapshot read from a Dart file: the
// NonReferenceData tags, in tag order.
var NodeKinds = []string{"none", "null", "bool", "int", "double", "latin1", "utf16", "length", "name"}

// The NonReferenceData tags (indices into NodeKinds).
const (
	NoData = iota
	NullData
	BoolData
	IntData
	DoubleData
	Latin1Data
	UTF16Data
	LengthData
	NameData
)

// EdgeKinds are the edge kinds of a snapshot read from a Dart file.
var EdgeKinds = []ir.EdgeKind{{Name: "property"}, {Name: "element", Indexed: true}, {Name: "weak"}}

// Indices into EdgeKinds.
const (
	Property = iota
	Element
	Weak
)

// ForeignScheme begins the library URI of a Dart class that a converter
// made from another format ("heapconv:v8"): the Dart VM gives its own
// classes a real library URI (dart:…, package:…, file:…) or, for the VM's
// internals, none, so the scheme tells the two apart. The library name of
// such a class is the source class's library, or, for a class made for
// nodes that had none, their kind in the source ("string", "hidden", …).
const ForeignScheme = "heapconv:"

// ForeignURI is the library URI of the Dart classes made from a file of the
// format.
func ForeignURI(format string) string { return ForeignScheme + format }

// IsForeignURI reports whether a Dart class's library URI marks it as made
// from another format (ForeignScheme).
func IsForeignURI(uri string) bool { return strings.HasPrefix(uri, ForeignScheme) }

// ExportChunk is the size of the chunks DevTools' WriteStream allocates:
// an export is zero-padded to a multiple of it.
const ExportChunk = 1048055

// MaxReferenceCount is the largest header referenceCount Dart's readers can
// take: vm_service and DevTools size a Uint32List by it.
const MaxReferenceCount = 1<<32 - 1

// Snapshot is the Dart section of a snapshot: what a Dart VM heap snapshot
// has beyond the common model. A Dart file holds one snapshot, so the class
// table's extra columns live here too, parallel to the file's classes.
type Snapshot struct {
	// Flags is the header's flags field (0 from every writer seen).
	Flags uint64
	// ReferenceCount is the header's referenceCount: the number of
	// references including zeros, or more (readers only rely on "at
	// least"), and at most MaxReferenceCount.
	ReferenceCount uint64
	// IdentityHashes is true when the file has the identity hash code
	// section (VM 2021 and later, and every DevTools export); the codes are
	// Nodes.ID.
	IdentityHashes bool
	// Padding is the number of zero bytes after the last section: DevTools
	// exports pad to a multiple of ExportChunk.
	Padding uint64

	// ClassFlags, ClassURI (a string index: the library URI; the class
	// table's Library holds the library name) and ClassReserved (a string
	// index) have one entry per class of the file.
	ClassFlags    ir.Uints
	ClassURI      []uint32
	ClassReserved []uint32
	// FieldFlags, FieldIndex (the reference slot the field names) and
	// FieldReserved (a string index) have one entry per field of the class
	// table.
	FieldFlags    ir.Uints
	FieldIndex    ir.Uints
	FieldReserved []uint32

	// ZeroRefs lists the references written as 0, which are not edges: node
	// ZeroRefNode[i] has a 0 at position ZeroRefSlot[i] of its reference
	// list. Sorted by node, then slot.
	ZeroRefNode []uint32
	ZeroRefSlot []uint32

	// External properties in file order: node, size, name (string index).
	// One node can have several.
	ExternalNode []uint32
	ExternalSize ir.Uints
	ExternalName []uint32
}

// Of returns the Dart section of s, or nil.
func Of(s *ir.Snapshot) *Snapshot {
	d, _ := s.Section(SectionName).(*Snapshot)
	return d
}

// SectionName returns "dart".
func (d *Snapshot) SectionName() string { return SectionName }

// Bind declares the section: the header's figures as fields; the class
// and field columns, the zero references and the external properties as
// columns.
func (d *Snapshot) Bind(b *ir.Bindings) {
	b.Uint("flags", &d.Flags)
	b.Uint("reference_count", &d.ReferenceCount)
	b.Bool("identity_hashes", &d.IdentityHashes)
	b.Uint("padding", &d.Padding)
	b.Column("dart.class.flags", ir.TableClass, &d.ClassFlags)
	b.Column("dart.class.uri", ir.TableClass, &d.ClassURI, ir.Strings())
	b.Column("dart.class.reserved", ir.TableClass, &d.ClassReserved, ir.Strings())
	b.Column("dart.field.flags", ir.TableField, &d.FieldFlags)
	b.Column("dart.field.index", ir.TableField, &d.FieldIndex)
	b.Column("dart.field.reserved", ir.TableField, &d.FieldReserved, ir.Strings())
	b.Column("dart.zero_ref.node", "dart.zero_ref", &d.ZeroRefNode, ir.IndexInto(ir.TableNode))
	b.Column("dart.zero_ref.slot", "dart.zero_ref", &d.ZeroRefSlot)
	b.Column("dart.external.node", "dart.external", &d.ExternalNode, ir.IndexInto(ir.TableNode))
	b.Column("dart.external.size", "dart.external", &d.ExternalSize)
	b.Column("dart.external.name", "dart.external", &d.ExternalName, ir.Strings())
}

// Validate checks what a Dart file requires: every object has a class,
// DevTools' padding, a referenceCount that counts every reference, and
// zero references in order.
func (d *Snapshot) Validate(_ *ir.File, s *ir.Snapshot) error {
	if n := s.Nodes.Len(); len(s.Nodes.Class) != n {
		return fmt.Errorf("dart: every object has a class: %d classes for %d nodes", len(s.Nodes.Class), n)
	}
	if d.Padding >= ExportChunk || (d.Padding > 0 && !d.IdentityHashes) {
		return fmt.Errorf("dart: %d bytes of padding (DevTools pads an export, which has identity hash codes, to a multiple of %d)", d.Padding, ExportChunk)
	}
	if refs := uint64(s.Edges.Len() + len(d.ZeroRefNode)); d.ReferenceCount < refs || d.ReferenceCount > MaxReferenceCount {
		return fmt.Errorf("dart: referenceCount %d for %d references (it must be at least their number and at most %d)",
			d.ReferenceCount, refs, uint64(MaxReferenceCount))
	}
	if i := zeroRefsOutOfOrder(d.ZeroRefNode, d.ZeroRefSlot); i > 0 {
		return fmt.Errorf("dart: zero reference %d out of order", i)
	}
	return nil
}

// zeroRefsOutOfOrder returns the first zero reference that does not come
// after the one before it, by node and then slot, or 0 if all do. It
// looks for it only when a first pass, with no branch on the values,
// found one: where one object's zero references end and the next one's
// begin is no pattern a branch predictor learns.
func zeroRefsOutOfOrder(nodes, slots []uint32) int {
	slots = slots[:len(nodes)]
	key := func(i int) uint64 { return uint64(nodes[i])<<32 | uint64(slots[i]) }
	var bad uint8
	for i := 1; i < len(nodes); i++ {
		bad |= b2u8(key(i) <= key(i-1))
	}
	if bad == 0 {
		return 0
	}
	for i := 1; i < len(nodes); i++ {
		if key(i) <= key(i-1) {
			return i
		}
	}
	return 0
}

// ClassLibrary returns class k's library URI: what tells apart Dart
// classes of one name (the library names are often empty).
func (d *Snapshot) ClassLibrary(f *ir.File, k int) string {
	if k < len(d.ClassURI) {
		return f.String(d.ClassURI[k])
	}
	return ""
}

// ClassMadeFrom returns the format heapconv made class k from, the one
// its library URI names (ForeignURI), or "" for a class of the VM's.
func (d *Snapshot) ClassMadeFrom(f *ir.File, k int) string {
	if k < len(d.ClassURI) {
		if from, ok := strings.CutPrefix(f.String(d.ClassURI[k]), ForeignScheme); ok {
			return from
		}
	}
	return ""
}

// pseudoClasses are the classes 1, 2 and 3 of a Dart VM snapshot since
// 2022 ("extra cids"): the root, the read-only image pages and each
// isolate, whose objects the VM writes to hold the roots' references.
var pseudoClasses = []string{RootClass, "Read-Only Pages", "Isolate"}

// MarkSynthetic marks the nodes that stand for no object of the heap: the
// VM's pseudo-objects, and the objects of a class heapconv made for such
// nodes of another format (library URI ForeignScheme, library name
// "synthetic", or a synthetic kind of the format the URI names) or for the
// root it adds
// in front of another format's graph (class Root of library name
// "synthetic" and, as the VM's own root class, no URI).
func (d *Snapshot) MarkSynthetic(f *ir.File, s *ir.Snapshot, marks []bool) {
	byClass := make([]bool, f.Classes.Len()+1) // per 1-origin class
	for k, lib := range f.Classes.Library {
		if k >= len(d.ClassURI) {
			break
		}
		name, uri := f.String(lib), f.String(d.ClassURI[k])
		format, synthetic := ir.SyntheticKind(name)
		byClass[k+1] = synthetic && (format == "" && (uri == "" || IsForeignURI(uri)) || format != "" && uri == ForeignURI(format)) ||
			k < len(pseudoClasses) && name == "" && uri == "" && f.String(f.Classes.Name[k]) == pseudoClasses[k]
	}
	for i, c := range s.Nodes.Class {
		if int(c) < len(byClass) && byClass[c] {
			marks[i] = true
		}
	}
}

// The kind of loss of a Dart section.
const (
	// LossSection: what only a Dart file has (class flags and URIs,
	// field flags and slots, external property names); Count is classes,
	// fields and properties.
	LossSection = "dart-section"
)

// Loss names what the section holds that a file of another format cannot:
// the classes' flags and the fields' flags and slots (the VM's layout),
// and unless the target keeps the class table and external properties
// (KeepsClasses: V8 does, for converting back) the classes' library URIs
// and the external properties' names.
func (d *Snapshot) Loss(f *ir.File, _ *ir.Snapshot, t ir.Target) ir.LossReport {
	if t.Format == Format {
		return nil
	}
	var loss ir.LossReport
	if n := f.Classes.Len() + len(f.Classes.FieldName); n > 0 {
		loss.Addf(LossSection, int64(n), "the VM's class flags and field flags and slots (%d classes, %d fields) have no place in %s",
			f.Classes.Len(), len(f.Classes.FieldName), t.Name)
	}
	if t.KeepsClasses {
		return loss
	}
	uris, example := 0, ""
	for k, u := range d.ClassURI {
		if uri := f.String(u); uri != "" && !IsForeignURI(uri) {
			if uris == 0 {
				example = f.String(f.Classes.Name[k]) + " of " + uri
			}
			uris++
		}
	}
	if n := uris + len(d.ExternalName); n > 0 {
		loss.Addf(LossSection, int64(n), "classes' library URIs (%d; the library names qualify class names where two share one) "+
			"and the names of external properties (%d) have no place in %s", uris, len(d.ExternalName), t.Name).WithExample(example)
	}
	return loss
}

// IdentityKind says that a Dart snapshot with identity hash codes
// identifies its objects by them (the VM keeps an object's code for its
// life). A code is about 31 bits, so two objects can share one: the class
// qualifies it (a class's id is fixed for the life of the process, and the
// class table is in id order).
func (d *Snapshot) IdentityKind() string {
	if !d.IdentityHashes {
		return ""
	}
	return "Dart identity hash codes with the class"
}

// Identity returns node i's identity hash code and class; 0 is no code.
func (d *Snapshot) Identity(s *ir.Snapshot, i int) (ir.Identity, bool) {
	h := s.Nodes.ID.At(i)
	var class uint64
	if len(s.Nodes.Class) > 0 {
		class = uint64(s.Nodes.Class[i])
	}
	return ir.Identity{ID: h, Qualifier: class}, h != 0
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
