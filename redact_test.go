package heapconv_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// redactCases are random files shaped like each format's, with every
// feature that holds data or strings: values of every kind, V8 sections
// with allocation traces and another producer's keys, Dart data of every
// tag, MoarVM heaps of both versions, Fuchsia profiles with contents and
// labels, and FIDL streams with orphan chunks and unknown fields.
var redactCases = []struct {
	name string
	opts irtest.Options
}{
	{"ir-everything", irtest.Everything(0, 60)},
	{"v8-shaped-values", irtest.Options{MinNodes: 1, MaxNodes: 80, RootFirst: true, Kinds: irtest.KindsV8, Values: true,
		Classes: true, GCRoots: true, Strings: irtest.AllStrings}},
	{"v8-section", irtest.Options{MinNodes: 1, MaxNodes: 80, RootFirst: true, Kinds: irtest.KindsMixed, IDs: irtest.IDsAny,
		Values: true, Strings: irtest.AllStrings, V8: &irtest.V8Options{Layout: v8ir.LayoutRows, Escape: v8ir.EscapeRaw,
			TraceNodeID: true, Detachedness: true, EdgeExtra: true, Trace: true, Locations: true, ExtraNativeBytes: true,
			ExtraKeys: true}}},
	{"dart", irtest.Options{Strings: irtest.AllStrings, MaxOutDegree: 12, Dart: &irtest.DartOptions{
		Hashes: true, ZeroRefs: true, External: true, Data: true}}},
	{"moarvm", irtest.Options{Snapshots: 3, MoarVM: &irtest.MoarVMOptions{BadRefs: true}}},
	{"moarvm-v2", irtest.Options{Snapshots: 2, MoarVM: &irtest.MoarVMOptions{V2: true, NoPID: true}}},
	{"fuchsia", irtest.Options{Snapshots: 3, Strings: irtest.AllStrings, Fuchsia: ptr(irtest.FuchsiaEverything())}},
	{"fuchsia-stream", irtest.Options{Snapshots: 2, Fuchsia: ptr(irtest.FuchsiaStreamEverything())}},
}

func ptr[T any](v T) *T { return &v }

// TestRedactRandom redacts random files of every format's shape and
// checks the result (checkRedacted), then writes it in every format and
// reads it back.
func TestRedactRandom(t *testing.T) {
	for _, tc := range redactCases {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				f := irtest.Random(seed, tc.opts)
				g, loss, err := f.Redact()
				if err != nil {
					t.Fatal(err)
				}
				checkRedacted(t, f, g)
				for _, l := range loss {
					if !ir.IsRedaction(l.Kind) || l.Count <= 0 {
						t.Errorf("loss %s (%d): not a redaction's, or no count", l.Kind, l.Count)
					}
				}
				for _, fm := range heapconv.Formats() {
					h := g
					if !fm.MultiSnapshot && len(g.Snapshots) > 1 {
						if h, err = g.Select(0); err != nil {
							t.Fatal(err)
						}
					}
					if _, _, err := heapconv.Convert(h, fm.Name, nil); err != nil {
						t.Errorf("as %s: %v", fm.Name, err)
					}
				}
			})
		}
	}
}

// checkRedacted checks that g is f redacted: the same graph, sizes, ids,
// kinds, classes, edge names and roots; every node name and value that is
// data replaced by its placeholder and every other one kept; numbers and
// booleans zeroed; data columns of sections replaced; and no string of f
// that only data used left in g's table.
func checkRedacted(t *testing.T, f, g *ir.File) {
	t.Helper()
	if len(g.Snapshots) != len(f.Snapshots) {
		t.Fatalf("%d snapshots, want %d", len(g.Snapshots), len(f.Snapshots))
	}
	classNames := func(h *ir.File) []string {
		var out []string
		for _, l := range [][]uint32{h.Classes.Name, h.Classes.Library, h.Classes.FieldName} {
			for _, i := range l {
				out = append(out, h.String(i))
			}
		}
		return out
	}
	if !slices.Equal(classNames(f), classNames(g)) || !slices.Equal(f.Classes.FirstField, g.Classes.FirstField) {
		t.Error("the class table changed")
	}
	// The strings f uses other than as data, and those only data uses.
	kept, data := map[string]bool{}, map[string]bool{}
	usedBySections(f, false, func(i uint32) { kept[f.Strings[i]] = true })
	for _, name := range classNames(f) {
		kept[name] = true
	}
	for k, s := range f.Snapshots {
		r := g.Snapshots[k]
		if f.IsSeries() {
			// Each snapshot is compared in the file it came from.
			fs, err := f.Select(k)
			if err != nil {
				t.Fatal(err)
			}
			gs, err := g.Select(k)
			if err != nil {
				t.Fatal(err)
			}
			checkRedacted(t, fs, gs)
			continue
		}
		where := fmt.Sprintf("snapshot %d", k)
		if r.Nodes.Len() != s.Nodes.Len() || r.Edges.Len() != s.Edges.Len() || r.Values.Len() != s.Values.Len() {
			t.Fatalf("%s: %d nodes, %d edges, %d values; want %d, %d, %d", where, r.Nodes.Len(), r.Edges.Len(), r.Values.Len(),
				s.Nodes.Len(), s.Edges.Len(), s.Values.Len())
		}
		if !slices.Equal(r.Nodes.Kind, s.Nodes.Kind) || !slices.Equal(r.Nodes.Class, s.Nodes.Class) || !r.Nodes.ID.Equal(&s.Nodes.ID) ||
			!r.Nodes.SelfSize.Equal(&s.Nodes.SelfSize) || !r.Nodes.ExternalSize.Equal(&s.Nodes.ExternalSize) ||
			!slices.Equal(r.Nodes.FirstEdge, s.Nodes.FirstEdge) || !slices.Equal(r.NodeKinds, s.NodeKinds) {
			t.Errorf("%s: node kinds, classes, ids, sizes or edge counts changed", where)
		}
		if !slices.Equal(r.Edges.Kind, s.Edges.Kind) || !slices.Equal(r.Edges.Target, s.Edges.Target) || !slices.Equal(r.EdgeKinds, s.EdgeKinds) {
			t.Errorf("%s: edge kinds or targets changed", where)
		}
		if f.String(s.Name) != g.String(r.Name) || s.Root != r.Root || s.CaptureTime != r.CaptureTime || !slices.Equal(s.Totals, r.Totals) {
			t.Errorf("%s: name, root, capture time or totals changed", where)
		}
		kept[f.Strings[s.Name]] = true
		for e := range s.Edges.Len() {
			if ek := s.EdgeKindOf(e); ek.Indexed {
				if r.Edges.Name[e] != s.Edges.Name[e] {
					t.Errorf("%s: edge %d: index %d, want %d", where, e, r.Edges.Name[e], s.Edges.Name[e])
				}
				continue
			}
			name := f.String(s.Edges.Name[e])
			kept[name] = true
			if got := g.String(r.Edges.Name[e]); got != name {
				t.Errorf("%s: edge %d: name %q, want %q", where, e, got, name)
			}
		}
		for i, root := range s.Roots {
			kept[f.Strings[root.Category]] = true
			if r.Roots[i].Node != root.Node || g.String(r.Roots[i].Category) != f.String(root.Category) {
				t.Errorf("%s: root %d changed", where, i)
			}
		}
		for i := range s.Nodes.Len() {
			name, got := f.String(s.Nodes.Name[i]), g.String(r.Nodes.Name[i])
			want := name
			if ir.NameIsData(s.NodeKindName(i), name) {
				want = ir.Placeholder(name)
				data[name] = true
			} else {
				kept[name] = true
			}
			if got != want {
				t.Errorf("%s: node %d (%s): name %q, want %q", where, i, s.NodeKindName(i), got, want)
			}
		}
		sameSections(t, where, f, g, s.Sections, r.Sections)
		if st, rt := ir.AllocationStacks(f, s), ir.AllocationStacks(g, r); (st == nil) != (rt == nil) {
			t.Errorf("%s: allocation stacks come and go", where)
		} else if st != nil {
			for i := range s.Nodes.Len() {
				if a, b := st(i), rt(i); !slices.Equal(a, b) {
					t.Errorf("%s: node %d: allocation stack %v, want %v", where, i, b, a)
					break
				}
			}
		}
		names := nameValues(f, s)
		v, w := &s.Values, &r.Values
		if !slices.Equal(v.Node, w.Node) || !slices.Equal(v.Kind, w.Kind) || !slices.Equal(v.Aux, w.Aux) {
			t.Errorf("%s: values' nodes, kinds or aux changed", where)
			continue
		}
		for j, kind := range v.Kind {
			var want uint64
			switch kind {
			case ir.ValueString:
				str := f.String(uint32(v.Bits[j]))
				got := g.String(uint32(w.Bits[j]))
				if names[j] {
					kept[str] = true
					if got != str {
						t.Errorf("%s: value %d, a name: %q, want %q", where, j, got, str)
					}
				} else if data[str] = true; got != ir.Placeholder(str) || len([]rune(got)) != len([]rune(ir.Placeholder(str))) {
					t.Errorf("%s: value %d: %q, want the placeholder of %q", where, j, got, str)
				}
				continue
			case ir.ValueLength, ir.ValueNull:
				want = v.Bits[j]
			}
			if w.Bits[j] != want {
				t.Errorf("%s: value %d (%s): %d, want %d", where, j, kind, w.Bits[j], want)
			}
		}
	}
	if f.IsSeries() {
		return
	}
	sameSections(t, "file", f, g, f.Sections, g.Sections)
	checkDataColumns(t, g)
	have := map[string]bool{}
	for _, s := range g.Strings {
		have[s] = true
	}
	for s := range data {
		if have[s] && !kept[s] && s != ir.Placeholder(s) {
			t.Errorf("%q, which only data held, is still in the string table", s)
		}
	}
	// Every string g holds is used.
	used := map[uint32]bool{}
	usedBySections(g, true, func(i uint32) { used[i] = true })
	for _, l := range [][]uint32{g.Classes.Name, g.Classes.Library, g.Classes.FieldName} {
		for _, i := range l {
			used[i] = true
		}
	}
	for _, s := range g.Snapshots {
		used[s.Name] = true
		for _, i := range s.Nodes.Name {
			used[i] = true
		}
		for e, i := range s.Edges.Name {
			if !s.EdgeKindOf(e).Indexed {
				used[i] = true
			}
		}
		for _, root := range s.Roots {
			used[root.Category] = true
		}
		for j, kind := range s.Values.Kind {
			if kind == ir.ValueString {
				used[uint32(s.Values.Bits[j])] = true
			}
		}
	}
	for i, s := range g.Strings {
		if !used[uint32(i)] {
			t.Errorf("string %d (%q) is left in the table, unused", i, s)
		}
	}
}

// sameSections checks that sections a of f and b of g say the same but
// for data: the same fields, the strings of their string fields and
// columns the same, the same values in their other columns (but a
// StringHolder's), and the same strings in what a StringHolder holds.
// Sections this program does not know are gone.
func sameSections(t *testing.T, where string, f, g *ir.File, a, b []ir.Section) {
	t.Helper()
	var known []ir.Section
	for _, x := range a {
		if _, raw := x.(*ir.RawSection); !raw {
			known = append(known, x)
		}
	}
	if len(known) != len(b) {
		t.Errorf("%s: %d sections, want %d", where, len(b), len(known))
		return
	}
	for k, x := range known {
		y := b[k]
		bx, by := ir.SectionBindings(x), ir.SectionBindings(y)
		// A StringHolder renumbers strings in columns of numbers: its
		// strings are compared below, its other numbers not.
		_, holder := x.(ir.StringHolder)
		for _, fx := range bx.Fields() {
			fy := by.FieldNamed(fx.Name)
			switch {
			case fy == nil:
				t.Errorf("%s: %s: field %s is gone", where, x.SectionName(), fx.Name)
			case fx.Kind == ir.FieldStringIndex && f.String(fx.Index()) != g.String(fy.Index()):
				t.Errorf("%s: %s: field %s: %q, want %q", where, x.SectionName(), fx.Name, g.String(fy.Index()), f.String(fx.Index()))
			}
		}
		for _, cx := range bx.Columns() {
			cy := by.ColumnNamed(cx.Decl.Name)
			if cy == nil || cy.Present() != cx.Present() || cx.Present() && cy.Len() != cx.Len() {
				t.Errorf("%s: %s: column %s is gone or of another length", where, x.SectionName(), cx.Decl.Name)
				continue
			}
			if cx.Data != nil || !cx.Present() {
				continue
			}
			if cx.Decl.Type == ir.TypeBytes {
				if !slices.Equal(cx.BytesOf(), cy.BytesOf()) {
					t.Errorf("%s: %s: column %s changed", where, x.SectionName(), cx.Decl.Name)
				}
				continue
			}
			for i := range cx.Len() {
				vx, vy := cx.At(i), cy.At(i)
				if cx.Decl.Type == ir.TypeString && f.String(uint32(vx)) != g.String(uint32(vy)) || cx.Decl.Type != ir.TypeString && !holder && vx != vy {
					t.Errorf("%s: %s: column %s: value %d changed", where, x.SectionName(), cx.Decl.Name, i)
					break
				}
			}
		}
		hx, ok := x.(ir.StringHolder)
		if !ok {
			continue
		}
		var sx, sy []string
		hx.UsedStrings(func(i uint32) { sx = append(sx, f.String(i)) })
		y.(ir.StringHolder).UsedStrings(func(i uint32) { sy = append(sy, g.String(i)) })
		if !slices.Equal(sx, sy) {
			t.Errorf("%s: %s: holds strings %q, want %q", where, x.SectionName(), sy, sx)
		}
	}
}

// nameValues returns which of s's values its sections say are names.
func nameValues(f *ir.File, s *ir.Snapshot) []bool {
	out := make([]bool, s.Values.Len())
	for _, x := range s.Sections {
		if n, ok := x.(ir.ValueNamer); ok {
			copy(out, n.NameValues(f, s))
		}
	}
	return out
}

// usedBySections calls use with every string the sections of f and of its
// snapshots use: declared string fields and columns (but data columns
// unless data is set), and what a StringHolder says it holds.
func usedBySections(f *ir.File, data bool, use func(uint32)) {
	all := slices.Clone(f.Sections)
	for _, s := range f.Snapshots {
		all = append(all, s.Sections...)
	}
	for _, x := range all {
		b := ir.SectionBindings(x)
		for _, fl := range b.Fields() {
			if fl.Kind == ir.FieldStringIndex {
				use(fl.Index())
			}
		}
		for _, c := range b.Columns() {
			if c.Decl.Type == ir.TypeString && c.Present() && (data || c.Data == nil) {
				for i := range c.Len() {
					use(uint32(c.At(i)))
				}
			}
		}
		if h, ok := x.(ir.StringHolder); ok {
			h.UsedStrings(func(i uint32) {
				if int(i) < len(f.Strings) {
					use(i)
				}
			})
		}
	}
}

// checkDataColumns checks that the data columns of g's sections hold
// placeholders and zeros only.
func checkDataColumns(t *testing.T, g *ir.File) {
	t.Helper()
	all := slices.Clone(g.Sections)
	for _, s := range g.Snapshots {
		all = append(all, s.Sections...)
	}
	for _, x := range all {
		for _, c := range ir.SectionBindings(x).Columns() {
			if c.Data == nil || !c.Present() {
				continue
			}
			if c.Decl.Type == ir.TypeBytes {
				if b := c.BytesOf(); slices.ContainsFunc(b, func(x byte) bool { return x != 0 }) {
					t.Errorf("%s: column %s holds bytes other than 0", x.SectionName(), c.Decl.Name)
				}
				continue
			}
			for i := range c.Len() {
				v := c.At(i)
				if c.Decl.Type == ir.TypeString {
					if s := g.String(uint32(v)); s != ir.Placeholder(s) {
						t.Errorf("%s: column %s: %q is no placeholder", x.SectionName(), c.Decl.Name, s)
					}
				} else if v != 0 {
					t.Errorf("%s: column %s: %d is not zeroed", x.SectionName(), c.Decl.Name, v)
				}
			}
		}
	}
	for _, s := range g.Snapshots {
		if v := v8ir.Of(s); v != nil {
			for _, k := range v.Keys {
				if k.Value != nil && strings.ContainsFunc(k.Value.String(), func(r rune) bool { return r >= '1' && r <= '9' }) {
					t.Errorf("v8 key %s: %s holds a number that is not zeroed", k.Name, k.Value.String())
				}
			}
		}
		if x := fuchsiair.Of(s); x != nil && slices.ContainsFunc(x.Contents, func(b byte) bool { return b != 0 }) {
			t.Error("fuchsia: a block's contents are not zeroed")
		}
	}
}

// TestRedactConvertedFiles: a heap converted to another format, and read
// back from it, holds the source's data where that format keeps it (a V8
// string's contents as a Dart object's name data, a Dart string as a V8
// string's name): redacted, it holds none of it, in any format.
func TestRedactConvertedFiles(t *testing.T) {
	for _, tc := range redactCases {
		f := irtest.Random(1, tc.opts)
		if len(f.Snapshots) > 1 {
			var err error
			if f, err = f.Select(0); err != nil {
				t.Fatal(err)
			}
		}
		g, _, err := f.Redact()
		if err != nil {
			t.Fatal(err)
		}
		// The strings only data held: none is left in g, nor may be in
		// any conversion of f redacted.
		secrets := map[string]bool{}
		for _, s := range f.Strings {
			if !slices.Contains(g.Strings, s) {
				secrets[s] = true
			}
		}
		for _, fm := range heapconv.Formats() {
			t.Run(tc.name+"/"+fm.Name, func(t *testing.T) {
				h, _, err := heapconv.Convert(f, fm.Name, nil)
				if err != nil {
					t.Fatal(err)
				}
				r, _, err := h.Redact()
				if err != nil {
					t.Fatal(err)
				}
				// What the format writes of its own, the conversion of f
				// redacted has too.
				gh, _, err := heapconv.Convert(g, fm.Name, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range r.Strings {
					if secrets[s] && s != ir.Placeholder(s) && !slices.Contains(gh.Strings, s) {
						t.Errorf("%q, data of the %s heap, is left in its %s conversion redacted", s, f.Format, fm.Name)
					}
				}
			})
		}
	}
}

// TestConvertFilesRedact: ConvertFiles with Redact redacts each input of a
// series apart (snapshot n of the archive is input n redacted), and
// ConvertFile redacts each snapshot EachSnapshot writes; both reports
// list what was replaced, first.
func TestConvertFilesRedact(t *testing.T) {
	dir := t.TempDir()
	// Two snapshots of one variant: the fixture, and the fixture with a
	// string object's contents changed.
	f, err := heapconv.ReadFile("testdata/v8/small/rows.heapsnapshot", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	for i := range s.Nodes.Len() {
		if s.NodeKindName(i) == ir.KindString {
			f.Strings = append(f.Strings, "a later secret")
			s.Nodes.Name[i] = uint32(len(f.Strings) - 1)
			break
		}
	}
	later := dir + "/later.heapsnapshot"
	if _, err := heapconv.WriteFile(later, f, nil); err != nil {
		t.Fatal(err)
	}
	ins := []string{"testdata/v8/small/rows.heapsnapshot", later}
	out := dir + "/series.heapir.zst"
	r, err := heapconv.ConvertFiles(ins, out, &heapconv.ConvertOptions{Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Losses) == 0 || r.Losses[0].Kind != ir.LossRedactedStrings {
		t.Errorf("the series' report does not begin with what was redacted: %v", r.Losses)
	}
	series, err := heapconv.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(series.Strings, "a later secret") {
		t.Error("the series holds the second input's string object's contents")
	}
	for n, in := range ins {
		f, err := heapconv.ReadFile(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := f.Redact()
		if err != nil {
			t.Fatal(err)
		}
		got, err := series.Select(n)
		if err != nil {
			t.Fatal(err)
		}
		if d := ir.Diff(want, got, 5); len(d) > 0 {
			t.Errorf("snapshot %d is not %s redacted: %v", n, in, d)
		}
	}

	mvm := "testdata/moarvm/nqp-3snap.mvmheap"
	f, err = heapconv.ReadFile(mvm, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A MoarVM heap holds nothing to redact: each snapshot written is the
	// snapshot converted as it is.
	if _, err := heapconv.ConvertFile(mvm, dir+"/nqp-%d.heapir", &heapconv.ConvertOptions{Redact: true, Snapshots: heapconv.EachSnapshot}); err != nil {
		t.Fatal(err)
	}
	for n := range f.Snapshots {
		want, err := f.Select(n)
		if err != nil {
			t.Fatal(err)
		}
		if want, _, err = want.Redact(); err != nil {
			t.Fatal(err)
		}
		got, err := heapconv.ReadFile(fmt.Sprintf("%s/nqp-%d.heapir", dir, n), nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := ir.Diff(want, got, 5); len(d) > 0 {
			t.Errorf("snapshot %d is not the file's snapshot redacted: %v", n, d)
		}
	}
}
