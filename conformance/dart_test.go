package conformance

import (
	"fmt"

	"heapconv/ir"
)

// dartSectionDiff compares the Dart sections and the values of two
// snapshots by meaning: string indices are compared as the strings they
// name, since a reader keeps its own string table.
func dartSectionDiff(fa *ir.File, a *ir.Snapshot, fb *ir.File, b *ir.Snapshot) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < 10 {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	da, db := a.Dart, b.Dart
	if (da == nil) != (db == nil) {
		return []string{fmt.Sprintf("Dart section present %v != %v", da != nil, db != nil)}
	}
	if da == nil {
		return nil
	}
	if da.Flags != db.Flags || da.ReferenceCount != db.ReferenceCount || da.IdentityHashes != db.IdentityHashes || da.Padding != db.Padding {
		add("header: flags %d/%d referenceCount %d/%d hashes %v/%v padding %d/%d", da.Flags, db.Flags,
			da.ReferenceCount, db.ReferenceCount, da.IdentityHashes, db.IdentityHashes, da.Padding, db.Padding)
	}
	texts := func(what string, x, y []uint32) {
		if len(x) != len(y) {
			add("%s: %d != %d entries", what, len(x), len(y))
			return
		}
		for i := range x {
			if fa.String(x[i]) != fb.String(y[i]) {
				add("%s %d: %q != %q", what, i, fa.String(x[i]), fb.String(y[i]))
				return
			}
		}
	}
	uints := func(what string, x, y *ir.Uints) {
		if !x.Equal(y) {
			add("%s differ", what)
		}
	}
	texts("class name", fa.Classes.Name, fb.Classes.Name)
	texts("class library", fa.Classes.Library, fb.Classes.Library)
	texts("field name", fa.Classes.FieldName, fb.Classes.FieldName)
	texts("class uri", da.ClassURI, db.ClassURI)
	texts("class reserved", da.ClassReserved, db.ClassReserved)
	texts("field reserved", da.FieldReserved, db.FieldReserved)
	texts("external name", da.ExternalName, db.ExternalName)
	uints("class flags", &da.ClassFlags, &db.ClassFlags)
	uints("field flags", &da.FieldFlags, &db.FieldFlags)
	uints("field index", &da.FieldIndex, &db.FieldIndex)
	uints("external size", &da.ExternalSize, &db.ExternalSize)
	same := func(x, y []uint32) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(da.ZeroRefNode, db.ZeroRefNode) || !same(da.ZeroRefSlot, db.ZeroRefSlot) {
		add("zero references differ")
	}
	if !same(da.ExternalNode, db.ExternalNode) {
		add("external property nodes differ")
	}
	if !same(a.Nodes.Class, b.Nodes.Class) {
		add("node classes differ")
	}
	if fa.String(a.Name) != fb.String(b.Name) {
		add("name %q != %q", fa.String(a.Name), fb.String(b.Name))
	}
	va, vb := &a.Values, &b.Values
	if va.Len() != vb.Len() {
		add("%d values != %d", va.Len(), vb.Len())
		return out
	}
	for j := 0; j < va.Len(); j++ {
		bitsA, bitsB := fmt.Sprint(va.Bits[j]), fmt.Sprint(vb.Bits[j])
		if va.Kind[j] == ir.ValueString {
			bitsA, bitsB = fmt.Sprintf("%q", fa.String(uint32(va.Bits[j]))), fmt.Sprintf("%q", fb.String(uint32(vb.Bits[j])))
		}
		if va.Node[j] != vb.Node[j] || va.Kind[j] != vb.Kind[j] || bitsA != bitsB || va.Aux[j] != vb.Aux[j] {
			add("value %d: node %d %v %s aux %d != node %d %v %s aux %d", j, va.Node[j], va.Kind[j], bitsA, va.Aux[j],
				vb.Node[j], vb.Kind[j], bitsB, vb.Aux[j])
		}
	}
	return out
}
