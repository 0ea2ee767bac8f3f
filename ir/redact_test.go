package ir_test

import (
	"math"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// TestPlaceholder: a placeholder has a character for each code point of
// the string it replaces, whatever its encoding.
func TestPlaceholder(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "xxx"},
		{"café", "xxxx"},        // a 2-byte character
		{"日本", "xx"},            // 3-byte ones
		{"a😀b", "xxx"},          // a 4-byte one (two UTF-16 units)
		{"\xed\xa0\x80z", "xx"}, // a lone surrogate (WTF-8)
		{"\xff\xfe", "xx"},      // bytes that are not WTF-8
		{"x\x00y", "xxx"},
	}
	for _, tc := range tests {
		if got := ir.Placeholder(tc.in); got != tc.want {
			t.Errorf("Placeholder(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNameIsData: the names of strings, regexps, and numbers, bigints and
// symbols named by their value are data; the fixed names V8 gives the
// latter, and every other kind's names, are not.
func TestNameIsData(t *testing.T) {
	tests := []struct {
		kind, name string
		data       bool
	}{
		{ir.KindString, "hello", true},
		{ir.KindString, "", true},
		{ir.KindConcatenatedString, "(concatenated string)", false},
		{ir.KindConcatenatedString, "ab", true},
		{ir.KindSlicedString, "(sliced string)", false},
		{ir.KindSlicedString, "b", true},
		{ir.KindRegexp, "^a+$", true},
		{ir.KindNumber, "heap number", false},
		{ir.KindNumber, "smi number", false},
		{ir.KindNumber, "3.25", true},
		{ir.KindBigint, "bigint", false},
		{ir.KindBigint, "12345678901234567890", true},
		{ir.KindSymbol, "symbol", false},
		{ir.KindSymbol, "Symbol(token)", true},
		{ir.KindObject, "Foo", false},
		{ir.KindClosure, "handler", false},
		{ir.KindCode, "(shared function info)", false},
		{ir.KindNative, "Node / std::basic_string", false},
		{"latin1", "text", false}, // Dart's kinds are no canonical kind
	}
	for _, tc := range tests {
		if got := ir.NameIsData(tc.kind, tc.name); got != tc.data {
			t.Errorf("NameIsData(%q, %q) = %v, want %v", tc.kind, tc.name, got, tc.data)
		}
		if tc.data && !ir.IsDataKind(tc.kind) {
			t.Errorf("IsDataKind(%q) = false", tc.kind)
		}
	}
}

// handFile is a V8-kinded heap written out: an object Foo whose property
// "name" holds a string whose contents are "name" too, a string
// "a secret" only data holds, numbers named by their value and by V8's
// fixed name, and values of every kind.
func handFile() *ir.File {
	f := &ir.File{Format: ir.FormatIR}
	str := irtest.Strings(f, "<dummy>", "", "Foo", "name", "a secret", "42.5", "heap number", "unused", "(GC roots)", "truncated pre")
	const (
		dummy = iota
		empty
		foo
		name
		secret
		number
		heapNumber
		_
		gcRoots
		truncated
	)
	kind := func(k string) uint8 { return uint8(slices.Index(ir.V8NodeKinds, k)) }
	edge := func(k string) uint32 {
		return uint32(slices.IndexFunc(ir.V8EdgeKinds, func(e ir.EdgeKind) bool { return e.Name == k }))
	}
	s := &ir.Snapshot{Name: str[dummy], Root: 0, NodeKinds: slices.Clone(ir.V8NodeKinds), EdgeKinds: slices.Clone(ir.V8EdgeKinds)}
	irtest.Build(s, []irtest.Node{
		{Kind: kind(ir.KindSynthetic), Name: str[empty], Edges: []irtest.Edge{{edge(ir.EdgeElement), 1, 1}, {edge(ir.EdgeElement), 2, 2}}},
		{Kind: kind(ir.KindObject), Name: str[foo], Size: 24, Edges: []irtest.Edge{
			{edge(ir.EdgeProperty), str[name], 3}, {edge(ir.EdgeProperty), str[foo], 4}, {edge(ir.EdgeElement), 7, 5}}},
		{Kind: kind(ir.KindSynthetic), Name: str[gcRoots]},
		{Kind: kind(ir.KindString), Name: str[name], Size: 16},
		{Kind: kind(ir.KindString), Name: str[secret], Size: 20},
		{Kind: kind(ir.KindNumber), Name: str[number], Size: 16},
		{Kind: kind(ir.KindNumber), Name: str[heapNumber], Size: 16},
		{Kind: kind(ir.KindObject), Name: str[foo], Size: 8},
		{Kind: kind(ir.KindObject), Name: str[foo], Size: 8},
		{Kind: kind(ir.KindObject), Name: str[foo], Size: 8},
		{Kind: kind(ir.KindObject), Name: str[foo], Size: 8},
		{Kind: kind(ir.KindObject), Name: str[foo], Size: 8},
	}, false)
	s.Roots = []ir.RootRef{{Node: 1, Category: str[gcRoots]}}
	s.Values = ir.Values{
		Node: []uint32{4, 7, 8, 9, 10, 11},
		Kind: []ir.ValueKind{ir.ValueString, ir.ValueString, ir.ValueInt, ir.ValueFloat, ir.ValueBool, ir.ValueLength},
		Bits: []uint64{uint64(str[secret]), uint64(str[truncated]), uint64(1<<63 | 5), math.Float64bits(-2.5), 1, 17},
		Aux:  []uint64{0, 200, 0, 0, 0, 0},
	}
	s.Totals = []ir.Total{{Name: "extra_native_bytes", Value: 1000}}
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

// TestRedactHandBuilt: what Redact replaces and keeps in a heap built by
// hand, string by string: a string shared by a node's contents and an edge
// stays for the edge; strings only data held, and strings nothing used,
// leave the table; the file redacted is not changed.
func TestRedactHandBuilt(t *testing.T) {
	f := handFile()
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(f.Strings)
	beforeNames := slices.Clone(f.Snapshots[0].Nodes.Name)
	beforeBits := slices.Clone(f.Snapshots[0].Values.Bits)
	g, loss, err := f.Redact()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Strings, before) || !slices.Equal(f.Snapshots[0].Nodes.Name, beforeNames) ||
		!slices.Equal(f.Snapshots[0].Values.Bits, beforeBits) {
		t.Error("Redact changed the file it redacted")
	}
	s := g.Snapshots[0]
	names := make([]string, s.Nodes.Len())
	for i, n := range s.Nodes.Name {
		names[i] = g.String(n)
	}
	wantNames := []string{"", "Foo", "(GC roots)", "xxxx", "xxxxxxxx", "xxxx", "heap number", "Foo", "Foo", "Foo", "Foo", "Foo"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("node names %q, want %q", names, wantNames)
	}
	var edges []string
	for e := range s.Edges.Len() {
		edges = append(edges, g.EdgeName(s, e))
	}
	if want := []string{"1", "2", "name", "Foo", "7"}; !slices.Equal(edges, want) {
		t.Errorf("edge names %q, want %q", edges, want)
	}
	for _, gone := range []string{"a secret", "42.5", "unused", "truncated pre"} {
		if slices.Contains(g.Strings, gone) {
			t.Errorf("%q is still in the table: %q", gone, g.Strings)
		}
	}
	// Kept strings keep their order, placeholders follow, one a length.
	want := []string{"<dummy>", "", "Foo", "name", "heap number", "(GC roots)", "xxxx", "xxxxxxxx", "xxxxxxxxxxxxx"}
	if !slices.Equal(g.Strings, want) {
		t.Errorf("strings %q, want %q", g.Strings, want)
	}
	v := &s.Values
	wantBits := []uint64{uint64(slices.Index(g.Strings, "xxxxxxxx")), uint64(slices.Index(g.Strings, "xxxxxxxxxxxxx")), 0, 0, 0, 17}
	if !slices.Equal(v.Bits, wantBits) || !slices.Equal(v.Aux, []uint64{0, 200, 0, 0, 0, 0}) {
		t.Errorf("values %v aux %v, want %v aux [0 200 0 0 0 0]", v.Bits, v.Aux, wantBits)
	}
	if g.String(s.Roots[0].Category) != "(GC roots)" || g.String(s.Name) != "<dummy>" || !slices.Equal(s.Totals, f.Snapshots[0].Totals) {
		t.Errorf("roots, name or totals changed")
	}
	irtest.WantLoss(t, loss, ir.LossRedactedStrings, 5, "placeholders")
	irtest.WantLoss(t, loss, ir.LossRedactedValues, 3, "zeroed")
	if len(loss) != 2 {
		t.Errorf("loss report %v, want two kinds", loss)
	}
	// A redacted file has nothing more to redact but its placeholders,
	// and keeps its strings.
	h, _, err := g.Redact()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.Strings, g.Strings) {
		t.Errorf("redacted again: strings %q, want %q", h.Strings, g.Strings)
	}
}

// TestRedactDropsUnknownSections: a section this program does not know
// is dropped, its strings with it, and the report says so.
func TestRedactDropsUnknownSections(t *testing.T) {
	f := handFile()
	extra := irtest.Strings(f, "raw only")
	f.Snapshots[0].Sections = []ir.Section{&ir.RawSection{Name: "future", Version: 1, Fields: []ir.RawField{{Key: "k", Value: []byte{0xc0}}},
		Columns: []ir.RawColumn{{Decl: ir.ColumnDecl{Name: "future.s", Type: ir.TypeString, Table: "future"}, Values: ir.UintsOf(uint64(extra[0]))}}}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	g, loss, err := f.Redact()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Snapshots[0].Sections) != 0 || slices.Contains(g.Strings, "raw only") {
		t.Errorf("the unknown section or its string is kept: %v %q", g.Snapshots[0].Sections, g.Strings)
	}
	irtest.WantLoss(t, loss, ir.LossRedactedSections, 1, "does not know")
}

// TestRedactSeries: a series is redacted file by file: each snapshot
// reads back as its file redacted.
func TestRedactSeries(t *testing.T) {
	a := handFile()
	b := irtest.Random(3, irtest.Options{MinNodes: 5, MaxNodes: 30, Kinds: irtest.KindsV8, Values: true, Classes: true,
		GCRoots: true, Strings: irtest.AllStrings})
	b.Format, b.FormatVersion, b.Producer = a.Format, a.FormatVersion, a.Producer
	series, err := ir.JoinSeries(a, b)
	if err != nil {
		t.Fatal(err)
	}
	g, loss, err := series.Redact()
	if err != nil {
		t.Fatal(err)
	}
	if !g.IsSeries() || len(g.Snapshots) != 2 {
		t.Fatalf("not a series of two: %v %d", g.IsSeries(), len(g.Snapshots))
	}
	var want ir.LossReport
	for n, f := range []*ir.File{a, b} {
		r, l, err := f.Redact()
		if err != nil {
			t.Fatal(err)
		}
		want.Merge(l)
		got, err := g.Select(n)
		if err != nil {
			t.Fatal(err)
		}
		if d := ir.Diff(r, got, 5); len(d) > 0 {
			t.Errorf("snapshot %d is not its file redacted: %v", n, d)
		}
	}
	if !slices.Equal(loss, want) {
		t.Errorf("loss %v, want %v", loss, want)
	}
}
