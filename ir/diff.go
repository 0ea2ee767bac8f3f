package ir

import (
	"fmt"
	"slices"
)

// Diff lists the differences between two files, at most max of them (all when
// max <= 0). An empty result means the files hold the same data: that is
// the round-trip criterion of the IR encoding.
func Diff(a, b *File, max int) []string {
	d := &differ{max: max}
	d.check(a.Format == b.Format, "format %q != %q", a.Format, b.Format)
	d.check(a.FormatVersion == b.FormatVersion, "format version %q != %q", a.FormatVersion, b.FormatVersion)
	d.check(a.Producer == b.Producer, "producer %q != %q", a.Producer, b.Producer)
	if len(a.Strings) != len(b.Strings) {
		d.addf("string count %d != %d", len(a.Strings), len(b.Strings))
	}
	for i := 0; i < min(len(a.Strings), len(b.Strings)) && !d.full(); i++ {
		d.check(a.Strings[i] == b.Strings[i], "string %d: %q != %q", i, a.Strings[i], b.Strings[i])
	}
	d.columns(FileBindings(a), FileBindings(b))
	d.sections(a.Sections, b.Sections)
	d.check(len(a.Snapshots) == len(b.Snapshots), "snapshot count %d != %d", len(a.Snapshots), len(b.Snapshots))
	for i := 0; i < min(len(a.Snapshots), len(b.Snapshots)) && !d.full(); i++ {
		d.prefix = fmt.Sprintf("snapshot %d: ", i)
		d.snapshot(a.Snapshots[i], b.Snapshots[i])
	}
	return d.out
}

type differ struct {
	out    []string
	max    int
	prefix string
}

func (d *differ) full() bool { return d.max > 0 && len(d.out) >= d.max }

func (d *differ) addf(format string, args ...any) {
	if !d.full() {
		d.out = append(d.out, d.prefix+fmt.Sprintf(format, args...))
	}
}

func (d *differ) check(ok bool, format string, args ...any) {
	if !ok {
		d.addf(format, args...)
	}
}

func firstDiff[T comparable](a, b []T) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

func (d *differ) snapshot(a, b *Snapshot) {
	d.check(a.Name == b.Name, "name %d != %d", a.Name, b.Name)
	d.check(a.CaptureTime == b.CaptureTime, "capture time %d != %d", a.CaptureTime, b.CaptureTime)
	d.check(slices.Equal(a.Totals, b.Totals), "totals %v != %v", a.Totals, b.Totals)
	d.check(slices.Equal(a.NodeKinds, b.NodeKinds), "node kinds %q != %q", a.NodeKinds, b.NodeKinds)
	d.check(slices.Equal(a.EdgeKinds, b.EdgeKinds), "edge kinds %v != %v", a.EdgeKinds, b.EdgeKinds)
	d.check(a.Root == b.Root, "root %d != %d", a.Root, b.Root)
	d.check(slices.Equal(a.Roots, b.Roots), "roots differ")
	d.columns(SnapshotBindings(a), SnapshotBindings(b))
	d.sections(a.Sections, b.Sections)
}

// sections compares two scopes' sections, name by name in order, field by
// field and column by column as their declarations list them.
func (d *differ) sections(a, b []Section) {
	if len(a) != len(b) {
		d.addf("%d sections != %d", len(a), len(b))
		return
	}
	for i := range a {
		name := a[i].SectionName()
		if name != b[i].SectionName() {
			d.addf("section %d: %s != %s", i, name, b[i].SectionName())
			continue
		}
		ba, bb := SectionBindings(a[i]), SectionBindings(b[i])
		d.check(ba.Version == bb.Version, "%s: version %d != %d", name, ba.Version, bb.Version)
		if len(ba.fields) != len(bb.fields) {
			d.addf("%s: %d fields != %d", name, len(ba.fields), len(bb.fields))
		} else {
			for k := range ba.fields {
				fa := &ba.fields[k]
				fb := &bb.fields[k]
				if va, vb := fieldText(fa), fieldText(fb); fa.Name != fb.Name || va != vb {
					d.addf("%s: field %s %s != %s %s", name, fa.Name, va, fb.Name, vb)
				}
			}
		}
		d.columns(ba, bb)
	}
}

// fieldText is a field's value for comparing and messages.
func fieldText(fl *Field) string {
	switch fl.Kind {
	case FieldUint:
		return fmt.Sprint(fl.Uint())
	case FieldInt:
		return fmt.Sprint(fl.Int())
	case FieldBool:
		return fmt.Sprint(fl.Bool())
	case FieldString:
		return fmt.Sprintf("%q", fl.Str())
	case FieldStringIndex:
		return fmt.Sprintf("s%d", fl.Index())
	case FieldJSON:
		j := fl.JSON()
		return j.String()
	}
	return fmt.Sprintf("% x", fl.Raw())
}

// columns compares two declarations' columns as the stream holds them: an
// optional column present in one only differs, an empty one does not.
func (d *differ) columns(a, b *Bindings) {
	if len(a.columns) != len(b.columns) {
		d.addf("%d columns != %d", len(a.columns), len(b.columns))
		return
	}
	for k := range a.columns {
		ca := &a.columns[k]
		cb := &b.columns[k]
		name := ca.Decl.Name
		switch {
		case ca.Decl != cb.Decl:
			d.addf("column %v != %v", ca.Decl, cb.Decl)
		case ca.Present() != cb.Present():
			d.addf("column %s present %v != %v", name, ca.Present(), cb.Present())
		default:
			if i := firstColumnDiff(ca, cb); i >= 0 {
				d.addf("%s: lengths %d/%d, first difference at %d", name, ca.Len(), cb.Len(), i)
			}
		}
	}
}

// firstColumnDiff returns the first index at which two columns differ, or
// -1.
func firstColumnDiff(a, b *Column) int {
	switch x := a.data.(type) {
	case u32Column:
		if y, ok := b.data.(u32Column); ok {
			return firstDiff(*x.p, *y.p)
		}
	case u8Column:
		if y, ok := b.data.(u8Column); ok {
			return firstDiff(*x.p, *y.p)
		}
	case uintsColumn:
		if y, ok := b.data.(uintsColumn); ok {
			return x.p.FirstDiff(y.p)
		}
	}
	n := min(a.Len(), b.Len())
	for i := 0; i < n; i++ {
		if a.At(i) != b.At(i) {
			return i
		}
	}
	if a.Len() != b.Len() {
		return n
	}
	return -1
}

// GraphDiff compares two snapshots as graphs, by meaning rather than by
// table index: node kinds and edge kinds by name, names and edge names by
// their strings. Converters use it to check that a format kept what it can
// hold. It lists at most max differences (all when max <= 0).
func GraphDiff(fa *File, a *Snapshot, fb *File, b *Snapshot, max int) []string {
	d := &differ{max: max}
	if a.Nodes.Len() != b.Nodes.Len() || a.Edges.Len() != b.Edges.Len() {
		d.addf("graph size: %d nodes %d edges != %d nodes %d edges", a.Nodes.Len(), a.Edges.Len(), b.Nodes.Len(), b.Edges.Len())
		return d.out
	}
	for i := 0; i < a.Nodes.Len() && !d.full(); i++ {
		d.check(a.NodeKindName(i) == b.NodeKindName(i), "node %d: kind %q != %q", i, a.NodeKindName(i), b.NodeKindName(i))
		d.check(fa.String(a.Nodes.Name[i]) == fb.String(b.Nodes.Name[i]), "node %d: name %q != %q", i,
			fa.String(a.Nodes.Name[i]), fb.String(b.Nodes.Name[i]))
		if ia, ib := a.Nodes.ID.At(i), b.Nodes.ID.At(i); ia != ib {
			d.addf("node %d: id %s != %s", i, FormatNodeID(a, ia), FormatNodeID(b, ib))
		}
		d.check(a.Nodes.SelfSize.At(i) == b.Nodes.SelfSize.At(i), "node %d: self size %d != %d", i,
			a.Nodes.SelfSize.At(i), b.Nodes.SelfSize.At(i))
		d.check(a.Nodes.FirstEdge[i+1] == b.Nodes.FirstEdge[i+1], "node %d: edge offsets differ", i)
	}
	for e := 0; e < a.Edges.Len() && !d.full(); e++ {
		ka, kb := a.EdgeKindOf(e), b.EdgeKindOf(e)
		d.check(ka == kb, "edge %d: kind %v != %v", e, ka, kb)
		na, nb := edgeNameText(fa, a, e), edgeNameText(fb, b, e)
		d.check(na == nb, "edge %d: name %q != %q", e, na, nb)
		d.check(a.Edges.Target[e] == b.Edges.Target[e], "edge %d: target %d != %d", e, a.Edges.Target[e], b.Edges.Target[e])
	}
	return d.out
}

// EdgeName returns edge e's name as text: the string, or the index in
// decimal for indexed kinds.
func (f *File) EdgeName(s *Snapshot, e int) string { return edgeNameText(f, s, e) }

func edgeNameText(f *File, s *Snapshot, e int) string {
	if s.EdgeKindOf(e).Indexed {
		return fmt.Sprint(s.Edges.Name[e])
	}
	return f.String(s.Edges.Name[e])
}
