package conformance

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	dartir "github.com/heapconv/heapconv/ir/dart"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
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
	da, db := dartir.Of(a), dartir.Of(b)
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

// jsonName is a name as summary.js's JSON brings it back: DevTools' strings
// are UTF-16, and a lone surrogate (which WTF-8 names can hold) arrives as
// U+FFFD.
func jsonName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := ir.DecodeWTF8(s[i:])
		if r < 0 || (r >= 0xD800 && r < 0xE000) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// checkDartConverted checks devtools.Convert's output for a snapshot read
// from a Dart file: "" and "(GC roots)" in front of the Dart objects, which
// keep their order, sizes and references (weak slots as weak edges), one
// native node per external property after them, owned by its object, and
// unique odd ids, 2h+1 for an object whose identity hash h is its own.
func checkDartConverted(t *testing.T, src, out *ir.File) {
	t.Helper()
	s, c := src.Snapshots[0], out.Snapshots[0]
	d := dartir.Of(s)
	n, k := s.Nodes.Len(), len(d.ExternalNode)
	if c.Nodes.Len() != n+2+k {
		t.Fatalf("converted graph has %d nodes; want 2 + %d objects + %d external properties", c.Nodes.Len(), n, k)
	}
	if out.String(c.Nodes.Name[1]) != "(GC roots)" || c.NodeKindName(0) != "synthetic" {
		t.Errorf("converted graph does not start with the synthetic root and (GC roots)")
	}
	hashes := map[uint64]int{}
	for i := 0; i < n; i++ {
		if h := s.Nodes.ID.At(i); h != 0 {
			hashes[h]++
		}
	}
	ids := map[uint64]bool{}
	for i := 0; i < c.Nodes.Len(); i++ {
		id := c.Nodes.ID.At(i)
		if id%2 == 0 || id >= 1<<32 || ids[id] {
			t.Fatalf("node %d: id %d is not a unique odd 32-bit id", i, id)
		}
		ids[id] = true
	}
	native := n + 2
	for i := 0; i < n; i++ {
		j := i + 2
		if h := s.Nodes.ID.At(i); d.IdentityHashes && h != 0 && hashes[h] == 1 && h < 1<<31 && c.Nodes.ID.At(j) != 2*h+1 {
			t.Errorf("object %d: id %d, want 2×hash+1 = %d", i+1, c.Nodes.ID.At(j), 2*h+1)
		}
		if got, want := c.Nodes.SelfSize.At(j), min(s.Nodes.SelfSize.At(i), 1<<32-1); got != want {
			t.Errorf("object %d: self size %d, want %d", i+1, got, want)
		}
		lo, hi := s.Nodes.EdgeRange(i)
		clo, chi := c.Nodes.EdgeRange(j)
		var externals []int
		for x, node := range d.ExternalNode {
			if node == uint32(i) {
				externals = append(externals, x)
			}
		}
		if chi-clo != hi-lo+len(externals) {
			t.Fatalf("object %d: %d edges, want %d references and %d external properties", i+1, chi-clo, hi-lo, len(externals))
		}
		for e := lo; e < hi; e++ {
			ce := clo + e - lo
			if c.Edges.Target[ce] != s.Edges.Target[e]+2 {
				t.Errorf("object %d reference %d: target %d, want %d", i+1, e-lo, c.Edges.Target[ce], s.Edges.Target[e]+2)
			}
			if weak := s.EdgeKindOf(e).Name == "weak"; weak != (c.EdgeKindOf(ce).Name == "weak") {
				t.Errorf("object %d reference %d: kind %q for a Dart %q slot", i+1, e-lo, c.EdgeKindOf(ce).Name, s.EdgeKindOf(e).Name)
			}
		}
		for q, x := range externals {
			ce := chi - len(externals) + q
			to := int(c.Edges.Target[ce])
			if to < n+2 || c.NodeKindName(to) != "native" || c.Nodes.SelfSize.At(to) != min(d.ExternalSize.At(x), 1<<32-1) {
				t.Errorf("object %d: external property %d is not a native node of its size", i+1, x)
			}
			native++
		}
	}
	if native != c.Nodes.Len() {
		t.Errorf("%d native nodes owned, %d present", native-n-2, c.Nodes.Len()-n-2)
	}
}

// compareDartRetained requires DevTools' per-class retained sizes of a
// converted Dart heap to equal those heapconv computes on the Dart graph
// itself: dominators over the Dart references (weak slots ignored, external
// sizes owned by their object, unreachable objects hung from the root as
// DevTools hangs them), summed per class as DevTools' Summary sums them.
// Classes are named as the converted nodes are (node i is node i+2 there).
func compareDartRetained(t *testing.T, got *summary, src, conv *ir.File) {
	t.Helper()
	s, c := src.Snapshots[0], conv.Snapshots[0]
	tree, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true, Orphans: true})
	if err != nil {
		t.Fatalf("Dominators: %v", err)
	}
	want := analysis.ClassRetained(tree,
		func(i int) string { return jsonName(analysis.ClassName(conv, c, i+2)) },
		func(i int) bool { return s.Nodes.SelfSize.At(i) > 0 })
	// DevTools counts native nodes (the external properties) under their
	// names too: a class sharing a name with one cannot be compared.
	natives := map[string]bool{}
	for i := 0; i < c.Nodes.Len(); i++ {
		if c.NodeKindName(i) == "native" {
			natives[jsonName(conv.String(c.Nodes.Name[i]))] = true
		}
	}
	checked := 0
	for name, w := range want {
		if natives[name] {
			continue
		}
		g, ok := got.Classes[name]
		if !ok {
			t.Errorf("class %q: not in DevTools' Summary (heapconv: retained %d)", name, w)
			continue
		}
		if uint64(g.MaxRet) != w {
			t.Errorf("class %q: DevTools retains %d, heapconv %d", name, uint64(g.MaxRet), w)
		}
		checked++
	}
	if checked == 0 && s.Nodes.SelfSize.Sum() > 0 {
		t.Errorf("no class compared")
	}
}
