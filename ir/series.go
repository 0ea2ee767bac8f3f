package ir

import (
	"errors"
	"fmt"
	"slices"
)

// A series is a file made of several files of one format: the snapshots
// of one program taken one after another (a capture series, a directory of
// daily snapshots), archived together so that what they share is stored
// once. Its snapshots share one string table and one class table, in
// which a string or class the files have in common is one entry; each
// snapshot keeps, as its Origin, the string and class tables of the file
// it came from, so that File.Select gives that file back exactly and
// analyses see one heap per snapshot as they would the files alone.

// Origin is what a snapshot of a series keeps of the file it came from:
// that file's string table and class table, in their order, as indices
// into the series' tables. Every string and class the snapshot refers to
// is in them.
type Origin struct {
	Strings []uint32 // the file's string table: indices into File.Strings
	Classes []uint32 // the file's class table: indices into File.Classes
}

// ErrSeries is the error JoinSeries returns for files that cannot be
// snapshots of one series.
var ErrSeries = errors.New("files cannot make one series")

// IsSeries reports whether f is a series: its snapshots have an Origin.
func (f *File) IsSeries() bool { return len(f.Snapshots) > 0 && f.Snapshots[0].Origin != nil }

// JoinSeries makes one series of files of one format (the same Format,
// FormatVersion and Producer, and no sections of the file: the shared
// tables of a MoarVM or Fuchsia file have no place in one): their
// snapshots in order, one string table in which each string the files
// have is stored once (a string a file holds twice keeps both), one class
// table in which a class of the same name, library and field names is
// one. A file that is a series itself gives its snapshots as the files
// they came from. The files are not changed; the series shares what it
// does not renumber with them. The result is valid when the files are.
// SeriesBuilder makes the same series from files read one at a time.
func JoinSeries(files ...*File) (*File, error) {
	b := NewSeriesBuilder()
	for i, f := range files {
		if err := b.AddTables(f); err != nil {
			return nil, fmt.Errorf("file %d: %w", i, err)
		}
	}
	out := b.Head()
	if out == nil {
		return nil, fmt.Errorf("%w: no files", ErrSeries)
	}
	for i, f := range files {
		snaps, err := b.Snapshots(f)
		if err != nil {
			return nil, fmt.Errorf("file %d: %w", i, err)
		}
		out.Snapshots = append(out.Snapshots, snaps...)
	}
	return out, nil
}

// A SeriesBuilder makes a series (JoinSeries) of files that need not be
// in memory together: AddTables takes each file's strings and classes, in
// the series' order; Head then gives the series' tables, and Snapshots
// each file's snapshots renumbered into them, the files given again in
// the same order. A program that writes the series as it goes
// (irstream.NewWriter) holds one file at a time.
type SeriesBuilder struct {
	out *File
	j   joiner
	// added counts the files whose tables were added; given, those whose
	// snapshots Snapshots gave.
	added, given int
	snapshots    int
}

// NewSeriesBuilder returns a builder of an empty series.
func NewSeriesBuilder() *SeriesBuilder {
	return &SeriesBuilder{j: joiner{strings: make(map[copyKey]uint32), classes: make(map[copyKey]uint32)}}
}

// parts returns f as the files a series is made of: f itself, or for a
// series the files its snapshots came from.
func parts(f *File) ([]*File, error) {
	if !f.IsSeries() {
		return []*File{f}, nil
	}
	out := make([]*File, 0, len(f.Snapshots))
	for n := range f.Snapshots {
		g, err := f.Select(n)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// AddTables adds f's strings and classes to the series, after checking
// that f can be one of its files. It must come before Head and Snapshots.
func (b *SeriesBuilder) AddTables(f *File) error {
	if b.given > 0 {
		return errors.New("ir: SeriesBuilder.AddTables after Snapshots")
	}
	ps, err := parts(f)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if b.out == nil {
			b.out = &File{Format: p.Format, FormatVersion: p.FormatVersion, Producer: p.Producer}
			b.j.out = b.out
		}
		first := b.out
		switch {
		case p.Format != first.Format:
			return fmt.Errorf("%w: a %s file after %s files", ErrSeries, p.Format, first.Format)
		case p.FormatVersion != first.FormatVersion:
			return fmt.Errorf("%w: a file of variant %q after %q (a series holds files of one variant)", ErrSeries, p.FormatVersion, first.FormatVersion)
		case p.Producer != first.Producer:
			return fmt.Errorf("%w: a file written by %q after %q", ErrSeries, p.Producer, first.Producer)
		case len(p.Sections) > 0:
			return fmt.Errorf("%w: the file has a file section (%s), which its snapshots share: a series shares only strings and classes",
				ErrSeries, p.Sections[0].SectionName())
		}
		b.j.tables(p)
		b.snapshots += len(p.Snapshots)
	}
	b.added++
	return nil
}

// Head returns the series' format and tables, without snapshots (nil
// before any file was added). The builder keeps adding to the tables it
// shares with the result until Snapshots is called.
func (b *SeriesBuilder) Head() *File {
	if b.out == nil {
		return nil
	}
	g := *b.out
	return &g
}

// SnapshotCount returns how many snapshots the files added hold.
func (b *SeriesBuilder) SnapshotCount() int { return b.snapshots }

// Snapshots returns f's snapshots renumbered into the series, each with
// its Origin. The files must be given in the order their tables were
// added.
func (b *SeriesBuilder) Snapshots(f *File) ([]*Snapshot, error) {
	if b.given >= b.added {
		return nil, errors.New("ir: SeriesBuilder.Snapshots of more files than AddTables added")
	}
	b.given++
	ps, err := parts(f)
	if err != nil {
		return nil, err
	}
	var out []*Snapshot
	nstr, ncls := len(b.out.Strings), b.out.Classes.Len()
	for _, p := range ps {
		r := b.j.tables(p)
		if len(b.out.Strings) != nstr || b.out.Classes.Len() != ncls {
			return nil, errors.New("ir: SeriesBuilder.Snapshots of a file whose tables were not added")
		}
		origin := &Origin{Strings: slices.Clone(r.strings), Classes: slices.Clone(r.classes)}
		for _, s := range p.Snapshots {
			if s.Origin != nil {
				return nil, errors.New("a snapshot of a series in a file that is not one")
			}
			t, err := r.snapshot(s, ncls, len(b.out.Classes.FieldName))
			if err != nil {
				return nil, err
			}
			t.Origin = origin
			out = append(out, t)
		}
	}
	return out, nil
}

// Plain returns a series as a file of the same snapshots without their
// origins: one file of several snapshots that share the series' tables,
// as a conversion to another format of several snapshots takes it. Any
// other file is returned as it is.
func (f *File) Plain() *File {
	if !f.IsSeries() {
		return f
	}
	g := *f
	g.Snapshots = make([]*Snapshot, len(f.Snapshots))
	for i, s := range f.Snapshots {
		t := *s
		t.Origin = nil
		g.Snapshots[i] = &t
	}
	return &g
}

// joiner builds a series file by adding files to it.
type joiner struct {
	out *File
	// strings and classes find a string or class of the series by its
	// content and which copy of it a file holds (a file may hold a string
	// or class more than once: the copies stay apart).
	strings map[copyKey]uint32
	classes map[copyKey]uint32
}

// copyKey is a string or a class (its key, classKey) and which copy of it
// in a file, from 0.
type copyKey struct {
	s    string
	copy int
}

// tables adds the strings and classes of f the series does not have yet,
// and returns how f's renumber into the series'.
func (j *joiner) tables(f *File) renumbering {
	r := renumbering{strings: make([]uint32, len(f.Strings))}
	seen := make(map[string]int) // copies of a string so far, for the strings f holds twice
	for i, s := range f.Strings {
		key := copyKey{s, seen[s]}
		seen[s]++
		k, ok := j.strings[key]
		if !ok {
			k = uint32(len(j.out.Strings))
			j.out.Strings = append(j.out.Strings, s)
			j.strings[key] = k
		}
		r.strings[i] = k
	}
	c := &f.Classes
	out := &j.out.Classes
	r.classes = make([]uint32, c.Len())
	r.fields = make([]uint32, len(c.FieldName))
	seenClass := make(map[string]int)
	for i := range c.Len() {
		ck := classKey(f, i, r.strings)
		key := copyKey{ck, seenClass[ck]}
		seenClass[ck]++
		k, ok := j.classes[key]
		if !ok {
			k = out.appendRenamed(c, uint32(i), r.strings)
			j.classes[key] = k
		}
		r.class(c, uint32(i), out, k)
	}
	return r
}

// appendRenamed adds class k of src to c, its names renumbered by strs
// (src's string indices to c's file's), and returns its index.
func (c *Classes) appendRenamed(src *Classes, k uint32, strs []uint32) uint32 {
	i := uint32(c.Len())
	c.Name = append(c.Name, strs[src.Name[k]])
	c.Library = append(c.Library, strs[src.Library[k]])
	if len(c.FirstField) == 0 {
		c.FirstField = append(c.FirstField, 0)
	}
	for _, name := range src.FieldName[src.FirstField[k]:src.FirstField[k+1]] {
		c.FieldName = append(c.FieldName, strs[name])
	}
	c.FirstField = append(c.FirstField, uint32(len(c.FieldName)))
	return i
}

// class notes that class k of src is class to of dst, and so are their
// fields, one for one.
func (r *renumbering) class(src *Classes, k uint32, dst *Classes, to uint32) {
	r.classes[k] = to
	for n := range src.FirstField[k+1] - src.FirstField[k] {
		r.fields[src.FirstField[k]+n] = dst.FirstField[to] + n
	}
}

// classKey identifies class i of f by its name, library and field names,
// as the strings of the series its copies of them are (strs): so a class
// of the same names in two files is one, and one named by a second copy
// of a string stays apart from one named by the first.
func classKey(f *File, i int, strs []uint32) string {
	c := &f.Classes
	b := fmt.Appendf(nil, "%d,%d", strs[c.Name[i]], strs[c.Library[i]])
	for _, name := range c.FieldName[c.FirstField[i]:c.FirstField[i+1]] {
		b = fmt.Appendf(b, ",%d", strs[name])
	}
	return string(b)
}

// selectOrigin returns snapshot n of series f as the file it came from.
func (f *File) selectOrigin(n int) (*File, error) {
	s := f.Snapshots[n]
	// The origin is checked first: it is all the renumbering relies on,
	// and a reader of one snapshot (irstream.DecodeSnapshot) selects it
	// before validating the result.
	if err := s.validateOrigin(f); err != nil {
		return nil, fmt.Errorf("snapshot %d: origin: %w", n, err)
	}
	o := s.Origin
	g := &File{Format: f.Format, FormatVersion: f.FormatVersion, Producer: f.Producer}
	r := renumbering{strings: none(len(f.Strings)), classes: none(f.Classes.Len()), fields: none(len(f.Classes.FieldName))}
	g.Strings = make([]string, len(o.Strings))
	for i, k := range o.Strings {
		g.Strings[i] = f.Strings[k]
		r.strings[k] = uint32(i)
	}
	c, gc := &f.Classes, &g.Classes
	for _, k := range o.Classes {
		r.class(c, k, gc, gc.appendRenamed(c, k, r.strings))
	}
	t, err := r.snapshot(s, gc.Len(), len(gc.FieldName))
	if err != nil {
		return nil, err
	}
	g.Snapshots = []*Snapshot{t}
	return g, nil
}

// none returns n entries of NoNode: nothing is renumbered yet.
func none(n int) []uint32 {
	l := make([]uint32, n)
	for i := range l {
		l[i] = NoNode
	}
	return l
}

// renumbering maps the strings, classes and fields of one file to those of
// another (NoNode: none).
type renumbering struct {
	strings, classes, fields []uint32
}

func (r *renumbering) str(i uint32) (uint32, error) {
	if int(i) >= len(r.strings) || r.strings[i] == NoNode {
		return 0, fmt.Errorf("string %d is not in the snapshot's own table", i)
	}
	return r.strings[i], nil
}

// snapshot returns a copy of s with its strings and classes renumbered;
// columns of the class and field tables get classes and fields entries,
// each value at its renumbered place. What holds no string or class is
// shared with s.
func (r *renumbering) snapshot(s *Snapshot, classes, fields int) (*Snapshot, error) {
	t := *s
	t.Origin = nil
	var err error
	if t.Name, err = r.str(s.Name); err != nil {
		return nil, err
	}
	if t.Nodes.Name, err = r.strs(s.Nodes.Name); err != nil {
		return nil, fmt.Errorf("node names: %w", err)
	}
	if len(s.Nodes.Class) > 0 {
		t.Nodes.Class = make([]uint32, len(s.Nodes.Class))
		for i, c := range s.Nodes.Class {
			if c == 0 {
				continue
			}
			if int(c-1) >= len(r.classes) || r.classes[c-1] == NoNode {
				return nil, fmt.Errorf("node %d: class %d is not in the snapshot's own table", i, c-1)
			}
			t.Nodes.Class[i] = r.classes[c-1] + 1
		}
	}
	t.Edges.Name = make([]uint32, len(s.Edges.Name))
	for e, name := range s.Edges.Name {
		if k := s.Edges.Kind[e]; int(k) < len(s.EdgeKinds) && s.EdgeKinds[k].Indexed {
			t.Edges.Name[e] = name
		} else if t.Edges.Name[e], err = r.str(name); err != nil {
			return nil, fmt.Errorf("edge %d: %w", e, err)
		}
	}
	if slices.Contains(s.Values.Kind, ValueString) {
		t.Values.Bits = slices.Clone(s.Values.Bits)
		for j, k := range s.Values.Kind {
			if k == ValueString {
				v, err := r.str(uint32(min(s.Values.Bits[j], 1<<32-1)))
				if err != nil {
					return nil, fmt.Errorf("value %d: %w", j, err)
				}
				t.Values.Bits[j] = uint64(v)
			}
		}
	}
	t.Roots = slices.Clone(s.Roots)
	for i := range t.Roots {
		if t.Roots[i].Category, err = r.str(s.Roots[i].Category); err != nil {
			return nil, fmt.Errorf("root %d: %w", i, err)
		}
	}
	t.Sections = make([]Section, len(s.Sections))
	for i, x := range s.Sections {
		if t.Sections[i], err = copySection(x, SnapshotScope, func(c *Column, vals []uint64) ([]uint64, error) {
			return r.column(c.Decl, vals, classes, fields)
		}, nil, r.str); err != nil {
			return nil, fmt.Errorf("%s: %w", x.SectionName(), err)
		}
	}
	return &t, nil
}

func (r *renumbering) strs(l []uint32) ([]uint32, error) {
	out := make([]uint32, len(l))
	var err error
	for i, s := range l {
		if out[i], err = r.str(s); err != nil {
			return nil, fmt.Errorf("%d: %w", i, err)
		}
	}
	return out, nil
}

// column renumbers a section column's values (as the stream holds them).
func (r *renumbering) column(d ColumnDecl, vals []uint64, classes, fields int) ([]uint64, error) {
	if d.Type == TypeCount && (d.Table == TableClass || d.Table == TableField || d.Of == TableClass || d.Of == TableField) {
		return nil, fmt.Errorf("column %s counts entries of the class table: a series cannot renumber it", d.Name)
	}
	m := map[string][]uint32{refString: r.strings, TableClass: r.classes, TableField: r.fields}[seriesRef(d)]
	if m != nil {
		one := uint64(0)
		if d.Type == TypeIndex1 {
			one = 1
		}
		for i, v := range vals {
			if one == 1 && v == 0 {
				continue
			}
			if v-one >= uint64(len(m)) || m[v-one] == NoNode {
				return nil, fmt.Errorf("column %s: value %d at %d is not in the snapshot's own tables", d.Name, v, i)
			}
			vals[i] = uint64(m[v-one]) + one
		}
	}
	switch d.Table {
	case TableClass:
		return place(vals, r.classes, classes), nil
	case TableField:
		return place(vals, r.fields, fields), nil
	}
	return vals, nil
}

// refString is what seriesRef returns for a column of string indices.
const refString = "string"

// seriesRef says what a column's values refer to among what a series
// renumbers: strings (refString), classes (TableClass) or fields
// (TableField), as an index or 1 + an index; "" for nothing.
func seriesRef(d ColumnDecl) string {
	switch {
	case d.Type == TypeString:
		return refString
	case (d.Type == TypeIndex || d.Type == TypeIndex1) && (d.Of == TableClass || d.Of == TableField):
		return d.Of
	}
	return ""
}

// place returns n values with vals[i] at to[i] (dropped where to[i] is
// NoNode) and zeros elsewhere.
func place(vals []uint64, to []uint32, n int) []uint64 {
	out := make([]uint64, n)
	for i, v := range vals {
		if i < len(to) && to[i] != NoNode {
			out[to[i]] = v
		}
	}
	return out
}

// copySection returns a copy of section x in which every column's values
// (as the stream holds them) pass through col, the copy of every bytes
// column through bytes (which may change it; nil keeps it), and every
// string index of a field through str. It makes the copy as a reader of
// the stream would, through the section's declaration: fields first, then
// the columns they declare.
func copySection(x Section, scope Scope, col func(*Column, []uint64) ([]uint64, error), bytes func(*Column, []byte),
	str func(uint32) (uint32, error)) (Section, error) {
	version := sectionVersion(x)
	var y Section
	if raw, ok := x.(*RawSection); ok {
		r := &RawSection{Name: raw.Name, Version: raw.Version}
		for _, fl := range raw.Fields {
			r.Fields = append(r.Fields, RawField{Key: fl.Key, Value: slices.Clone(fl.Value)})
		}
		for _, c := range raw.Columns {
			r.Columns = append(r.Columns, RawColumn{Decl: c.Decl})
		}
		y = r
	} else {
		y = NewSection(x.SectionName(), scope, version)
	}
	bx := &Bindings{Version: version}
	x.Bind(bx)
	by := &Bindings{Version: version}
	y.Bind(by)
	for k := range bx.fields {
		fx := &bx.fields[k]
		fy := by.FieldNamed(fx.Name)
		if fy == nil || fy.Kind != fx.Kind {
			return nil, fmt.Errorf("field %s: the copy does not declare it", fx.Name)
		}
		switch fx.Kind {
		case FieldUint:
			fy.SetUint(fx.Uint())
		case FieldInt:
			fy.SetInt(fx.Int())
		case FieldBool:
			fy.SetBool(fx.Bool())
		case FieldString:
			fy.SetStr(fx.Str())
		case FieldStringIndex:
			v, err := str(fx.Index())
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", fx.Name, err)
			}
			fy.SetIndex(v)
		case FieldJSON:
			if err := fy.SetJSON(fx.JSON()); err != nil {
				return nil, fmt.Errorf("field %s: %w", fx.Name, err)
			}
		case FieldRaw:
			// copied with the section
		}
	}
	by = &Bindings{Version: version}
	y.Bind(by)
	for k := range bx.columns {
		cx := &bx.columns[k]
		if !cx.Present() {
			continue
		}
		cy := by.ColumnNamed(cx.Decl.Name)
		if cy == nil || cy.Decl != cx.Decl {
			return nil, fmt.Errorf("column %s: the copy does not declare it", cx.Decl.Name)
		}
		if cx.Decl.Type == TypeBytes {
			b := slices.Clone(cx.BytesOf())
			if bytes != nil {
				bytes(cx, b)
			}
			cy.AppendBytes(b)
			continue
		}
		vals := make([]uint64, cx.Len())
		cx.Values(vals, 0)
		vals, err := col(cx, vals)
		if err != nil {
			return nil, err
		}
		if err := cy.Append(vals); err != nil {
			return nil, err
		}
	}
	// An optional column the section does not have stays absent:
	// finishing it would make it a column of no entries.
	for k := range by.columns {
		if c := &by.columns[k]; !c.Optional || c.Present() {
			c.Finish()
		}
	}
	return y, nil
}

// validateSeries checks a series: every snapshot has an Origin or none
// does, a series has no file sections, and each Origin lists distinct
// strings and classes that hold everything its snapshot refers to.
func (f *File) validateSeries() error {
	series := f.IsSeries()
	if series && len(f.Sections) > 0 {
		return fmt.Errorf("a series has no file sections (it has %s)", f.Sections[0].SectionName())
	}
	for i, s := range f.Snapshots {
		if (s.Origin != nil) != series {
			return fmt.Errorf("snapshot %d: in a series every snapshot has an origin, elsewhere none", i)
		}
		if series {
			if err := s.validateOrigin(f); err != nil {
				return fmt.Errorf("snapshot %d: origin: %w", i, err)
			}
		}
	}
	return nil
}

// bitset is a set of small numbers.
type bitset []uint64

func newBitset(n int) bitset       { return make(bitset, (n+63)/64) }
func (b bitset) has(i uint64) bool { return i>>6 < uint64(len(b)) && b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) add(i uint32)      { b[i>>6] |= 1 << (i & 63) }
func (b bitset) hasAll(l []uint32) int {
	for j, i := range l {
		if !b.has(uint64(i)) {
			return j
		}
	}
	return -1
}

func (s *Snapshot) validateOrigin(f *File) error {
	o := s.Origin
	strs := newBitset(len(f.Strings))
	for j, i := range o.Strings {
		switch {
		case int(i) >= len(f.Strings):
			return fmt.Errorf("string %d at %d out of range", i, j)
		case strs.has(uint64(i)):
			return fmt.Errorf("string %d twice", i)
		}
		strs.add(i)
	}
	c := &f.Classes
	classes, fields := newBitset(c.Len()), newBitset(len(c.FieldName))
	for j, k := range o.Classes {
		switch {
		case int(k) >= c.Len():
			return fmt.Errorf("class %d at %d out of range", k, j)
		case classes.has(uint64(k)):
			return fmt.Errorf("class %d twice", k)
		case !strs.has(uint64(c.Name[k])) || !strs.has(uint64(c.Library[k])) || strs.hasAll(c.FieldName[c.FirstField[k]:c.FirstField[k+1]]) >= 0:
			return fmt.Errorf("class %d: a name not among the origin's strings", k)
		}
		classes.add(k)
		for fi := c.FirstField[k]; fi < c.FirstField[k+1]; fi++ {
			fields.add(fi)
		}
	}
	if !strs.has(uint64(s.Name)) {
		return fmt.Errorf("the snapshot's name is not among its strings")
	}
	if j := strs.hasAll(s.Nodes.Name); j >= 0 {
		return fmt.Errorf("node %d: name not among its strings", j)
	}
	for i, k := range s.Nodes.Class {
		if k != 0 && !classes.has(uint64(k-1)) {
			return fmt.Errorf("node %d: class %d not among its classes", i, k-1)
		}
	}
	var indexed [256]bool
	for k, ek := range s.EdgeKinds {
		indexed[k] = ek.Indexed
	}
	for e, name := range s.Edges.Name {
		if !indexed[s.Edges.Kind[e]] && !strs.has(uint64(name)) {
			return fmt.Errorf("edge %d: name not among its strings", e)
		}
	}
	for j, k := range s.Values.Kind {
		if k == ValueString && !strs.has(s.Values.Bits[j]) {
			return fmt.Errorf("value %d: string not among its strings", j)
		}
	}
	for i, r := range s.Roots {
		if !strs.has(uint64(r.Category)) {
			return fmt.Errorf("root %d: category not among its strings", i)
		}
	}
	for _, x := range s.Sections {
		b := SectionBindings(x)
		for k := range b.fields {
			if fl := &b.fields[k]; fl.Kind == FieldStringIndex && !strs.has(uint64(fl.Index())) {
				return fmt.Errorf("%s: field %s: string not among its strings", x.SectionName(), fl.Name)
			}
		}
		for k := range b.columns {
			c := &b.columns[k]
			// A column of the class or field table has a value for every
			// class or field of the series: those outside the origin are
			// 0, and refer to nothing.
			var own bitset
			switch c.Decl.Table {
			case TableClass:
				own = classes
			case TableField:
				own = fields
			}
			if own != nil && c.Present() {
				for i := range c.Len() {
					if !own.has(uint64(i)) && (c.Decl.Type == TypeBytes && c.BytesOf()[i] != 0 || c.Decl.Type != TypeBytes && c.At(i) != 0) {
						return fmt.Errorf("%s: column %s: a value for %s %d, which is not the origin's", x.SectionName(), c.Decl.Name, c.Decl.Table, i)
					}
				}
			}
			set := map[string]bitset{refString: strs, TableClass: classes, TableField: fields}[seriesRef(c.Decl)]
			if !c.Present() || set == nil {
				continue
			}
			for i := range c.Len() {
				if own != nil && !own.has(uint64(i)) {
					continue
				}
				v := c.At(i)
				if c.Decl.Type == TypeIndex1 {
					if v == 0 {
						continue
					}
					v--
				}
				if !set.has(v) {
					return fmt.Errorf("%s: column %s: value at %d not among its strings or classes", x.SectionName(), c.Decl.Name, i)
				}
			}
		}
	}
	return nil
}
