package dart

import "github.com/heapconv/heapconv/ir"

// What a redaction (ir.File.Redact) replaces in a Dart snapshot: the
// program's data is in the objects' NonReferenceData, the IR's values.
// Latin-1 and UTF-16 strings are the program's strings (replaced by
// placeholders of as many characters; a truncated one keeps its full
// length), ints, doubles and bools its numbers (zeroed; an int keeps its
// encoding); lengths and nulls are the heap's shape, and kept. Name data
// is the VM's name of a class, function, field or library, code as
// property names are, and is kept (ir.ValueNamer) — but for the objects of
// a class heapconv made from another format's nodes of a kind whose names
// are data (a V8 string's contents, which the Dart writer keeps as name
// data: ir.NameIsData of the class's library name, the source kind). Node
// names are class names; class and field names, library names and URIs,
// external properties' names and the snapshot's (isolate's) name are
// names too.

var _ ir.ValueNamer = (*Snapshot)(nil)

// NameValues reports which string values are names: name data, but for
// that of the objects of a class made from another format's nodes whose
// names are data.
func (d *Snapshot) NameValues(f *ir.File, s *ir.Snapshot) []bool {
	v := &s.Values
	var out []bool
	// Per 1-origin class, whether its name data is the source's data
	// (ir.NameIsData of its library name, the source kind, and the
	// value); computed when a class first has name data.
	type classRule struct{ known, dataKind bool }
	rules := make([]classRule, f.Classes.Len()+1)
	for j, node := range v.Node {
		if v.Kind[j] != ir.ValueString || int(node) >= len(s.Nodes.Kind) || s.Nodes.Kind[node] != NameData {
			continue
		}
		if out == nil {
			out = make([]bool, v.Len())
		}
		out[j] = true
		if int(node) >= len(s.Nodes.Class) {
			continue
		}
		c := s.Nodes.Class[node]
		if c == 0 || int(c) >= len(rules) {
			continue
		}
		r := &rules[c]
		if !r.known {
			r.known = true
			r.dataKind = d.ClassMadeFrom(f, int(c-1)) != "" && ir.IsDataKind(f.String(f.Classes.Library[c-1]))
		}
		if r.dataKind && ir.NameIsData(f.String(f.Classes.Library[c-1]), f.String(uint32(v.Bits[j]))) {
			out[j] = false
		}
	}
	return out
}
