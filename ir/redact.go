package ir

import (
	"errors"
	"fmt"
	"strings"
)

// Redaction makes a heap shareable: File.Redact replaces what the program
// stored (the contents of its strings, its numbers and booleans, the
// memory of its blocks) by placeholders of the same length, and keeps
// what describes the program rather than its data (the graph's shape,
// sizes, ids, class, field, property and function names, kinds, roots,
// totals). The core knows which node names are values (NameIsData, by
// the canonical kind names) and which values are data (strings, numbers
// and booleans; lengths and nulls are shape); a format says the rest
// through its sections: columns of data declare it (Data), and the
// interfaces below say what a declaration cannot.
//
// Placeholders take new strings: a string the table shares between a
// string object and, say, a property name stays for the property, and
// the object gets a placeholder. The string table is then compacted, so
// that no string that only data used is left in it.

// The kinds of loss a redaction reports (what it replaced, so that a
// conversion's report says so); IsRedaction tells them from a writer's.
const (
	// LossRedactedStrings: strings the program stored — node names that
	// are a string's contents or a value (NameIsData) and string values —
	// replaced by placeholders of as many characters; Count is names and
	// values.
	LossRedactedStrings = "redacted-strings"
	// LossRedactedValues: numbers and booleans the program stored,
	// zeroed (0, 0.0, false); Count is values.
	LossRedactedValues = "redacted-values"
	// LossRedactedContents: memory contents (a Fuchsia heapdump's blocks),
	// zeroed; Count is bytes.
	LossRedactedContents = "redacted-contents"
	// LossRedactedSections: sections this program does not know
	// (RawSection), dropped: what they hold cannot be told from data;
	// Count is sections.
	LossRedactedSections = "redacted-sections"
)

// redactedPrefix begins every kind of loss a redaction reports, a format's
// own too ("redacted-v8-keys").
const redactedPrefix = "redacted-"

// IsRedaction reports whether a kind of loss is one a redaction reports
// (File.Redact) rather than one a writer does: the kinds above, and a
// format's own, which begin with "redacted-" too.
func IsRedaction(kind string) bool { return strings.HasPrefix(kind, redactedPrefix) }

// PlaceholderRune is the character placeholders are made of.
const PlaceholderRune = 'x'

// Placeholder returns the placeholder of a string the program stored: as
// many PlaceholderRune as s has code points (a lone surrogate, and a byte
// that is not WTF-8, counts as one). A character beyond the Basic
// Multilingual Plane, two UTF-16 units, becomes one.
func Placeholder(s string) string {
	n := 0
	for i := 0; i < len(s); n++ {
		if s[i] < 0x80 {
			i++
			continue
		}
		_, size := DecodeWTF8(s[i:])
		i += size
	}
	return strings.Repeat(string(PlaceholderRune), n)
}

// ValueNamer is implemented by a snapshot's section whose format keeps
// names, not data, in some string values: a Dart VM's name data (the
// names of the VM's classes, functions and fields), which File.Redact
// keeps as it keeps node and property names.
type ValueNamer interface {
	// NameValues reports, value by value (indices into s.Values), which
	// string values are names; nil for none.
	NameValues(f *File, s *Snapshot) []bool
}

// StringHolder is implemented by a section that holds indices into the
// string table its declaration does not say are strings (Bindings'
// StringIndex fields and Strings columns): in a structured field (a
// Fuchsia profile's sample types) or a column it lays out itself (the
// function names of V8's allocation traces); or whose meaning depends on
// the table's order (a MoarVM file's string heap, the table's first
// strings). File.Redact, which drops the strings nothing uses, asks it
// which it uses and then renumbers them in its copy.
type StringHolder interface {
	// UsedStrings calls use with every string index the section holds
	// beyond its declared string fields and columns.
	UsedStrings(use func(uint32))
	// RenumberStrings makes the section's indices those of the new table.
	RenumberStrings(m *StringMap)
}

// Redacter is implemented by a section that holds what the program stored
// beyond the core's node names and values and its own data columns
// (Data): in a structured field, such as the keys another producer added
// to a V8 file. Redact replaces it by placeholders of the same size in
// the section, and reports what it replaced in kinds for which
// IsRedaction holds. File.Redact calls it on the section's copy: its
// columns are the copy's own, to be changed in place; its structured
// fields (JSON) may share memory with the original and are replaced,
// never changed in place.
type Redacter interface {
	Redact() LossReport
}

// StringMap is how File.Redact renumbers the string table, for a
// StringHolder: the strings it keeps keep their order.
type StringMap struct {
	to []uint32 // old index → new index, NoNode for a string dropped
	n  int      // the new table's length
}

// Kept reports whether string i of the old table is in the new one.
func (m *StringMap) Kept(i uint32) bool { return int(i) < len(m.to) && m.to[i] != NoNode }

// Index returns the new index of string i of the old table. An index out
// of the old table's range stays out of the new one's (by as much), so
// that what was no string does not become one; a string dropped gives
// NoNode.
func (m *StringMap) Index(i uint32) uint32 {
	if int(i) >= len(m.to) {
		return uint32(uint64(i) - uint64(len(m.to)) + uint64(m.n))
	}
	return m.to[i]
}

// Redact returns f with what the program stored replaced (see the top of
// this file; each format's documentation says what that is in its files):
//
//   - the names of nodes whose names are what the program stored
//     (NameIsData: strings' contents, numbers' values, regexps' sources)
//     and string values (but those a section says are names, ValueNamer)
//     become placeholders of as many characters (Placeholder); a
//     truncated string's value keeps its full length (Aux);
//   - int, float and bool values become 0, 0.0 and false; length and null
//     values are kept, as the shape of the heap;
//   - the sections' data columns (Data) get placeholders, zeros and zero
//     bytes as the core's names and values do, sections replace the rest
//     of their own (Redacter), and sections this program does not know
//     are dropped;
//   - the string table keeps only the strings something else uses, in
//     their order, followed by the placeholders; every reference to a
//     string (the core's, the sections' declared ones, a StringHolder's)
//     is renumbered.
//
// The node and edge counts, kinds, ids, sizes, edges, classes, roots and
// totals are unchanged. f must be valid; so is the result, which shares
// with f what it does not change (f is not changed). A series is redacted
// file by file. The report lists what was replaced, one entry per kind
// (IsRedaction holds for each).
func (f *File) Redact() (*File, LossReport, error) {
	if f.IsSeries() {
		return f.redactSeries()
	}
	r := &redaction{f: f, used: newBitset(len(f.Strings))}
	for k, s := range f.Snapshots {
		r.plans = append(r.plans, r.plan(k, s))
	}
	r.markUsed()
	r.renumber()
	g := &File{Format: f.Format, FormatVersion: f.FormatVersion, Producer: f.Producer}
	var err error
	if g.Sections, err = r.sections(f.Sections, FileScope); err != nil {
		return nil, nil, err
	}
	for k, s := range f.Snapshots {
		t, err := r.snapshot(s, &r.plans[k])
		if err != nil {
			return nil, nil, fmt.Errorf("snapshot %d: %w", k, err)
		}
		g.Snapshots = append(g.Snapshots, t)
	}
	g.Strings = r.strs
	g.Classes = Classes{Name: r.remap(f.Classes.Name), Library: r.remap(f.Classes.Library),
		FirstField: f.Classes.FirstField, FieldName: r.remap(f.Classes.FieldName)}
	if err := g.Validate(); err != nil {
		return nil, nil, fmt.Errorf("ir: internal error: the redacted file is invalid: %w", err)
	}
	return g, r.report(), nil
}

// redactSeries redacts each file of a series, and joins them again.
func (f *File) redactSeries() (*File, LossReport, error) {
	var loss LossReport
	files := make([]*File, len(f.Snapshots))
	for n := range f.Snapshots {
		g, err := f.Select(n)
		if err != nil {
			return nil, nil, err
		}
		var l LossReport
		if files[n], l, err = g.Redact(); err != nil {
			return nil, nil, fmt.Errorf("snapshot %d: %w", n, err)
		}
		loss.Merge(l)
	}
	g, err := JoinSeries(files...)
	if err != nil {
		return nil, nil, err
	}
	return g, loss, nil
}

// redaction is one File.Redact: what it replaces in each snapshot, the
// strings that stay, and the new table.
type redaction struct {
	f     *File
	plans []redactPlan
	used  bitset // the strings of f something keeps
	strs  []string
	to    []uint32 // f's string index → the new table's, NoNode when dropped
	// hole is, per string of f that data held, the index of its
	// placeholder in the new table (NoNode for the others).
	hole []uint32
	// dataStrings are the strings the sections' data columns hold
	// (Column.Data).
	dataStrings []uint32

	// What was replaced.
	strings, values, dropped int64
	stringExample            string
	loss                     LossReport // the sections' own
}

// redactPlan says what one snapshot's redaction replaces.
type redactPlan struct {
	k         int
	dataName  bitset // nodes whose names are data
	dataValue bitset // values that are data
}

// nameRule is how NameIsData treats the names of a node kind.
type nameRule uint8

const (
	nameKept       nameRule = iota // a name, always kept
	nameData                       // data, always replaced
	nameDataUnless                 // data, unless the format's own fixed name for the kind
)

// kindNames is NameIsData's table: the canonical kinds whose nodes' names
// are data, and for each the names V8 writes for nodes of the kind
// without writing their value, which are kept.
var kindNames = map[string][]string{
	KindString: nil,
	KindRegexp: nil,
	// V8 names cons and sliced strings by these, or (other producers, older
	// versions) by their contents.
	KindConcatenatedString: {"(concatenated string)"},
	KindSlicedString:       {"(sliced string)"},
	// Node 20 on names numbers by their value only with
	// exposeNumericValues, which also gives them a string node holding it.
	KindNumber: {"heap number", "smi number"},
	KindBigint: {"bigint"},
	// V8 names every symbol "symbol" and holds its description in a
	// string node (data, as every string); another name is a description
	// another producer wrote.
	KindSymbol: {"symbol"},
}

// NameIsData reports whether the name of a node of the kind (a canonical
// kind name: V8's, which other formats' readers map into where the
// meaning matches) is what the program stored rather than a name: a
// string's contents (kinds string, concatenated string, sliced string),
// a regexp's source (which may come from data), a number's or a
// bigint's value, a symbol's description; not the fixed names V8 writes
// for those kinds when it does not write the value ("heap number",
// "smi number", "bigint", "symbol", "(concatenated string)", "(sliced
// string)"). The names of other kinds (constructors, functions, classes,
// "system / …") are names.
func NameIsData(kind, name string) bool {
	fixed, ok := kindNames[kind]
	if !ok {
		return false
	}
	for _, n := range fixed {
		if name == n {
			return false
		}
	}
	return true
}

// IsDataKind reports whether some names of nodes of the kind are data
// (NameIsData holds for a name other than the kind's fixed ones).
func IsDataKind(kind string) bool {
	_, ok := kindNames[kind]
	return ok
}

// plan decides what snapshot k's redaction replaces.
func (r *redaction) plan(k int, s *Snapshot) redactPlan {
	f := r.f
	p := redactPlan{k: k, dataName: newBitset(s.Nodes.Len()), dataValue: newBitset(s.Values.Len())}
	rules := make([]nameRule, len(s.NodeKinds))
	for i, kind := range s.NodeKinds {
		if fixed, ok := kindNames[kind]; ok {
			rules[i] = nameData
			if len(fixed) > 0 {
				rules[i] = nameDataUnless
			}
		}
	}
	for i, kind := range s.Nodes.Kind {
		switch rules[kind] {
		case nameData:
			p.dataName.add(uint32(i))
		case nameDataUnless:
			if NameIsData(s.NodeKinds[kind], f.Strings[s.Nodes.Name[i]]) {
				p.dataName.add(uint32(i))
			}
		}
	}
	var names []bool
	for _, x := range s.Sections {
		if n, ok := x.(ValueNamer); ok {
			names = n.NameValues(f, s)
		}
	}
	for j, kind := range s.Values.Kind {
		switch kind {
		case ValueString:
			if j < len(names) && names[j] {
				continue
			}
			p.dataValue.add(uint32(j))
		case ValueInt, ValueFloat, ValueBool:
			p.dataValue.add(uint32(j))
		}
	}
	return p
}

// use notes that string i is kept.
func (r *redaction) use(i uint32) {
	if int(i) < len(r.f.Strings) {
		r.used.add(i)
	}
}

// markUsed notes every string something other than data uses.
func (r *redaction) markUsed() {
	f := r.f
	for _, l := range [][]uint32{f.Classes.Name, f.Classes.Library, f.Classes.FieldName} {
		for _, i := range l {
			r.use(i)
		}
	}
	r.sectionsUsed(f.Sections)
	for k, s := range f.Snapshots {
		p := &r.plans[k]
		r.use(s.Name)
		for i, name := range s.Nodes.Name {
			if !p.dataName.has(uint64(i)) {
				r.use(name)
			}
		}
		named := s.namedEdgeKinds()
		for e, name := range s.Edges.Name {
			if named[s.Edges.Kind[e]] {
				r.use(name)
			}
		}
		for _, root := range s.Roots {
			r.use(root.Category)
		}
		for j, kind := range s.Values.Kind {
			if kind == ValueString && !p.dataValue.has(uint64(j)) {
				r.use(uint32(s.Values.Bits[j]))
			}
		}
		r.sectionsUsed(s.Sections)
	}
}

// namedEdgeKinds reports, per edge kind, whether its edges are named by
// strings (as validation treats them: a kind out of the table is not).
func (s *Snapshot) namedEdgeKinds() *[256]bool {
	var named [256]bool
	for k, ek := range s.EdgeKinds {
		named[k] = !ek.Indexed
	}
	return &named
}

// sectionsUsed notes the strings sections use: their declared string
// fields and columns, and what a StringHolder says it holds. Sections
// this program does not know are dropped, and use none.
func (r *redaction) sectionsUsed(l []Section) {
	var buf []uint64
	for _, x := range l {
		if _, ok := x.(*RawSection); ok {
			continue
		}
		b := SectionBindings(x)
		for k := range b.fields {
			if fl := &b.fields[k]; fl.Kind == FieldStringIndex {
				r.use(fl.Index())
			}
		}
		for k := range b.columns {
			c := &b.columns[k]
			if c.Decl.Type != TypeString || !c.Present() {
				continue
			}
			for from := 0; from < c.Len(); from += len(buf) {
				if buf == nil {
					buf = make([]uint64, 4096)
				}
				chunk := buf[:min(len(buf), c.Len()-from)]
				c.Values(chunk, from)
				for _, v := range chunk {
					switch {
					case v >= uint64(len(r.f.Strings)):
					case c.Data != nil:
						r.dataStrings = append(r.dataStrings, uint32(v))
					default:
						r.use(uint32(v))
					}
				}
			}
		}
		if h, ok := x.(StringHolder); ok {
			h.UsedStrings(r.use)
		}
	}
}

// renumber makes the new table: the strings used, in their order, then
// the placeholders of the strings data held, one per length, in the order
// of the data.
func (r *redaction) renumber() {
	f := r.f
	r.to = make([]uint32, len(f.Strings))
	for i, s := range f.Strings {
		if r.used.has(uint64(i)) {
			r.to[i] = uint32(len(r.strs))
			r.strs = append(r.strs, s)
		} else {
			r.to[i] = NoNode
		}
	}
	holes := map[string]uint32{}
	hole := func(i uint32) {
		if r.hole == nil {
			r.hole = none(len(f.Strings))
		}
		if r.hole[i] != NoNode {
			return
		}
		h := Placeholder(f.Strings[i])
		k, ok := holes[h]
		if !ok {
			k = uint32(len(r.strs))
			r.strs = append(r.strs, h)
			holes[h] = k
		}
		r.hole[i] = k
	}
	for k, s := range f.Snapshots {
		p := &r.plans[k]
		for i, name := range s.Nodes.Name {
			if p.dataName.has(uint64(i)) {
				hole(name)
			}
		}
		for j, kind := range s.Values.Kind {
			if kind == ValueString && p.dataValue.has(uint64(j)) {
				hole(uint32(s.Values.Bits[j]))
			}
		}
	}
	for _, i := range r.dataStrings {
		hole(i)
	}
}

// remap returns a column of string indices in the new table's; every
// string it holds is kept.
func (r *redaction) remap(l []uint32) []uint32 {
	if l == nil {
		return nil
	}
	out := make([]uint32, len(l))
	for i, v := range l {
		out[i] = r.to[v]
	}
	return out
}

// snapshot returns a redacted copy of s.
func (r *redaction) snapshot(s *Snapshot, p *redactPlan) (*Snapshot, error) {
	t := *s
	t.Name = r.to[s.Name]
	t.Nodes.Name = make([]uint32, len(s.Nodes.Name))
	for i, name := range s.Nodes.Name {
		if p.dataName.has(uint64(i)) {
			t.Nodes.Name[i] = r.hole[name]
			r.replacedString(p.k, fmt.Sprintf("node %d", i), name)
		} else {
			t.Nodes.Name[i] = r.to[name]
		}
	}
	named := s.namedEdgeKinds()
	t.Edges.Name = make([]uint32, len(s.Edges.Name))
	for e, name := range s.Edges.Name {
		if named[s.Edges.Kind[e]] {
			name = r.to[name]
		}
		t.Edges.Name[e] = name
	}
	t.Roots = make([]RootRef, len(s.Roots))
	for i, root := range s.Roots {
		t.Roots[i] = RootRef{Node: root.Node, Category: r.to[root.Category]}
	}
	if s.Roots == nil {
		t.Roots = nil
	}
	if s.Values.Len() > 0 {
		t.Values.Bits = make([]uint64, len(s.Values.Bits))
		for j, kind := range s.Values.Kind {
			bits := s.Values.Bits[j]
			data := p.dataValue.has(uint64(j))
			switch {
			case kind == ValueString && data:
				bits = uint64(r.hole[bits])
				r.replacedString(p.k, fmt.Sprintf("the value of node %d", s.Values.Node[j]), uint32(s.Values.Bits[j]))
			case kind == ValueString:
				bits = uint64(r.to[bits])
			case data:
				bits = 0
				r.values++
			}
			t.Values.Bits[j] = bits
		}
	}
	var err error
	if t.Sections, err = r.sections(s.Sections, SnapshotScope); err != nil {
		return nil, err
	}
	return &t, nil
}

// replacedString counts a string replaced, the first that is not empty
// as the example (which says where it was and its length, never what it
// held).
func (r *redaction) replacedString(k int, where string, i uint32) {
	if n := len(r.strs[r.hole[i]]); r.stringExample == "" && n > 0 {
		r.stringExample = fmt.Sprintf("snapshot %d, %s: %d characters", k, where, n)
	}
	r.strings++
}

// sections returns redacted copies of sections: their string references
// renumbered, what they hold of the program's replaced (Redacter); those
// this program does not know are dropped.
func (r *redaction) sections(l []Section, scope Scope) ([]Section, error) {
	var out []Section
	m := &StringMap{to: r.to, n: len(r.strs)}
	for _, x := range l {
		if _, ok := x.(*RawSection); ok {
			r.dropped++
			continue
		}
		y, err := copySection(x, scope, func(c *Column, vals []uint64) ([]uint64, error) {
			d := c.Decl
			switch {
			case c.Data != nil:
				r.replaced(c.Data, len(vals))
				for i, v := range vals {
					if d.Type != TypeString {
						vals[i] = 0
					} else if v < uint64(len(r.hole)) {
						vals[i] = uint64(r.hole[v])
					}
				}
			case d.Type == TypeString:
				for i, v := range vals {
					if v >= uint64(len(r.to)) || r.to[v] == NoNode {
						return nil, fmt.Errorf("column %s: string %d at %d is not kept", d.Name, v, i)
					}
					vals[i] = uint64(r.to[v])
				}
			}
			return vals, nil
		}, func(c *Column, b []byte) {
			if c.Data != nil {
				r.replaced(c.Data, len(b))
				clear(b)
			}
		}, func(i uint32) (uint32, error) {
			if int(i) >= len(r.to) || r.to[i] == NoNode {
				return 0, errors.New("a string that is not kept")
			}
			return r.to[i], nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.SectionName(), err)
		}
		if h, ok := y.(StringHolder); ok {
			h.RenumberStrings(m)
		}
		if red, ok := y.(Redacter); ok {
			r.loss.Merge(red.Redact())
		}
		out = append(out, y)
	}
	return out, nil
}

// replaced counts n values (or bytes) of a data column replaced.
func (r *redaction) replaced(as *RedactAs, n int) {
	if n > 0 {
		r.loss.Add(as.Kind, int64(n), as.What)
	}
}

// report lists what the redaction replaced.
func (r *redaction) report() LossReport {
	var l LossReport
	if r.strings > 0 {
		l.Add(LossRedactedStrings, r.strings, "strings the program stored (strings' contents, numbers' and regexps' names, string values) replaced by placeholders of as many characters").
			WithExample(r.stringExample)
	}
	if r.values > 0 {
		l.Add(LossRedactedValues, r.values, "numbers and booleans the program stored, zeroed")
	}
	l.Merge(r.loss)
	if r.dropped > 0 {
		l.Add(LossRedactedSections, r.dropped, "sections this heapconv does not know, dropped: what they hold cannot be told from the program's data")
	}
	if l == nil {
		l = LossReport{}
	}
	return l
}
