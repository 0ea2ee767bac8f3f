package v8_test

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

// A small V8 file is assembled from parts so that each test changes only
// what it is about.
const (
	rdNodeFields = `["type","name","id","self_size","edge_count"]`
	rdNodeTypes  = `[["hidden","object","synthetic"],"string","number","number","number"]`
	rdEdgeFields = `["type","name_or_index","to_node"]`
	rdEdgeTypes  = `[["element","property"],"string_or_number","node"]`
)

type rdParts struct {
	meta    string // the meta object; rdMeta() when empty
	counts  string // the header after meta
	nodes   string
	edges   string
	more    []string // `"key":value` sections between edges and strings
	strs    string
	sep     string // between top-level sections; ",\n" when empty
	trailer string // after the closing brace
}

func rdMeta(extra ...string) string {
	m := `{"node_fields":` + rdNodeFields + `,"node_types":` + rdNodeTypes + `,"edge_fields":` + rdEdgeFields + `,"edge_types":` + rdEdgeTypes
	for _, e := range extra {
		m += "," + e
	}
	return m + "}"
}

// rdBase: root (synthetic) -element 1-> A, -property "p"-> B; A -property "p"-> B.
func rdBase() rdParts {
	return rdParts{
		counts: `"node_count":3,"edge_count":3,"trace_function_count":0`,
		nodes:  `[2,1,1,0,2,1,2,3,10,1,1,3,5,20,0]`,
		edges:  `[0,1,5,1,4,10,1,4,10]`,
		strs:   `["<dummy>","","A","B","p"]`,
	}
}

// rdRows is rdBase in the V8 ≤ 12 rows layout.
func rdRows() rdParts {
	p := rdBase()
	p.nodes = "[2,1,1,0,2\n,1,2,3,10,1\n,1,3,5,20,0\n]"
	p.edges = "[0,1,5\n,1,4,10\n,1,4,10\n]"
	p.strs = "[\"<dummy>\",\n\"\",\n\"A\",\n\"B\",\n\"p\"]"
	return p
}

func (p rdParts) String() string {
	sep := p.sep
	if sep == "" {
		sep = ",\n"
	}
	meta := p.meta
	if meta == "" {
		meta = rdMeta()
	}
	var b strings.Builder
	b.WriteString(`{"snapshot":{"meta":` + meta + "," + p.counts + "}")
	b.WriteString(sep + `"nodes":` + p.nodes)
	b.WriteString(sep + `"edges":` + p.edges)
	for _, m := range p.more {
		b.WriteString(sep + m)
	}
	b.WriteString(sep + `"strings":` + p.strs + "}" + p.trailer)
	return b.String()
}

func rdRead(t *testing.T, text string) *ir.File {
	t.Helper()
	f, err := rv8.Read(strings.NewReader(text), rv8.Options{})
	if err != nil {
		t.Fatalf("Read: %v\ninput:\n%s", err, text)
	}
	return f
}

func TestReadBase(t *testing.T) {
	f := rdRead(t, rdBase().String())
	if f.Format != v8ir.Format || len(f.Snapshots) != 1 {
		t.Fatalf("format %q, %d snapshots", f.Format, len(f.Snapshots))
	}
	s := f.Snapshots[0]
	if s.Root != 0 {
		t.Errorf("root %d", s.Root)
	}
	if got := strings.Join(s.NodeKinds, ","); got != "hidden,object,synthetic" {
		t.Errorf("node kinds %s", got)
	}
	wantEK := []ir.EdgeKind{{Name: "element", Indexed: true}, {Name: "property"}}
	if len(s.EdgeKinds) != 2 || s.EdgeKinds[0] != wantEK[0] || s.EdgeKinds[1] != wantEK[1] {
		t.Errorf("edge kinds %v", s.EdgeKinds)
	}
	nd := &s.Nodes
	if nd.Len() != 3 || s.Edges.Len() != 3 {
		t.Fatalf("%d nodes %d edges", nd.Len(), s.Edges.Len())
	}
	wantKind, wantName := []uint8{2, 1, 1}, []uint32{1, 2, 3}
	wantID, wantSize := []uint64{1, 3, 5}, []uint64{0, 10, 20}
	for i := 0; i < 3; i++ {
		if nd.Kind[i] != wantKind[i] || nd.Name[i] != wantName[i] || nd.ID.At(i) != wantID[i] || nd.SelfSize.At(i) != wantSize[i] {
			t.Errorf("node %d: kind %d name %d id %d size %d", i, nd.Kind[i], nd.Name[i], nd.ID.At(i), nd.SelfSize.At(i))
		}
	}
	if got := nd.FirstEdge; len(got) != 4 || got[0] != 0 || got[1] != 2 || got[2] != 3 || got[3] != 3 {
		t.Errorf("first edge %v", got)
	}
	wantTarget, wantEName := []uint32{1, 2, 2}, []uint32{1, 4, 4}
	for e := 0; e < 3; e++ {
		if s.Edges.Target[e] != wantTarget[e] || s.Edges.Name[e] != wantEName[e] {
			t.Errorf("edge %d: target %d name %d", e, s.Edges.Target[e], s.Edges.Name[e])
		}
	}
	v := v8ir.Of(s)
	var keys []string
	for _, k := range v.Keys {
		keys = append(keys, k.Name)
		if k.Value != nil {
			t.Errorf("known key %q has a value", k.Name)
		}
	}
	if got := strings.Join(keys, ","); got != "snapshot,nodes,edges,strings" {
		t.Errorf("keys %s", got)
	}
	if n, _ := v.Header.Get("node_count").Uint(); n != 3 {
		t.Errorf("header node_count %d", n)
	}
	if len(v.NodeExtra) != 0 || len(v.EdgeExtra) != 0 {
		t.Errorf("extra columns %v %v", v.NodeExtra, v.EdgeExtra)
	}
}

func TestReadLayoutDetection(t *testing.T) {
	mod := func(p rdParts, f func(*rdParts)) string { f(&p); return p.String() }
	tests := []struct {
		name string
		in   string
		want v8ir.Layout
	}{
		{"compact", rdBase().String(), v8ir.LayoutCompact},
		{"rows", rdRows().String(), v8ir.LayoutRows},
		{"rows with one string", mod(rdRows(), func(p *rdParts) {
			p.strs = `[""]`
			p.nodes = "[2,0,1,0,2\n,1,0,3,10,1\n,1,0,5,20,0\n]"
			p.edges = "[0,1,5\n,0,4,10\n,0,4,10\n]"
		}), v8ir.LayoutRows},
		{"compact with trailing newline", mod(rdBase(), func(p *rdParts) { p.trailer = "\n" }), v8ir.LayoutOther},
		{"rows with trailing newline", mod(rdRows(), func(p *rdParts) { p.trailer = "\n" }), v8ir.LayoutOther},
		{"CRLF separators", mod(rdBase(), func(p *rdParts) { p.sep = ",\r\n" }), v8ir.LayoutOther},
		{"no newline separators", mod(rdBase(), func(p *rdParts) { p.sep = "," }), v8ir.LayoutOther},
		{"two newlines between sections", mod(rdBase(), func(p *rdParts) { p.sep = ",\n\n" }), v8ir.LayoutOther},
		{"space after colon", strings.Replace(rdBase().String(), `"nodes":[`, `"nodes": [`, 1), v8ir.LayoutOther},
		{"space in header", strings.Replace(rdBase().String(), `"node_count":3`, `"node_count": 3`, 1), v8ir.LayoutOther},
		{"space in nodes", strings.Replace(rdBase().String(), `[2,1,1,0,2,1`, `[2,1,1,0,2, 1`, 1), v8ir.LayoutOther},
		{"rows with a row missing its newline", strings.Replace(rdRows().String(), "[2,1,1,0,2\n,1,2,3,10,1\n", "[2,1,1,0,2,1,2,3,10,1\n", 1), v8ir.LayoutOther},
		{"rows with a newline inside a row", strings.Replace(rdRows().String(), "\n,1,2,3,10,1\n", "\n,1,2,3,\n10,1\n", 1), v8ir.LayoutOther},
		{"rows arrays but strings on one line", mod(rdRows(), func(p *rdParts) { p.strs = rdBase().strs }), v8ir.LayoutOther},
		{"flat arrays but strings in rows", mod(rdBase(), func(p *rdParts) { p.strs = rdRows().strs }), v8ir.LayoutOther},
		{"leading BOM", "\xef\xbb\xbf" + rdBase().String(), v8ir.LayoutOther},
		{"leading newline", "\n" + rdBase().String(), v8ir.LayoutOther},
		{"pretty printed", "{\n  \"snapshot\": {\"meta\": " + rdMeta() + ", \"node_count\": 3, \"edge_count\": 3},\n  \"nodes\": [2,1,1,0,2, 1,2,3,10,1, 1,3,5,20,0],\n  \"edges\": [0,1,5, 1,4,10, 1,4,10],\n  \"strings\": [\"<dummy>\", \"\", \"A\", \"B\", \"p\"]\n}\n", v8ir.LayoutOther},
		{"lowercase escape", mod(rdBase(), func(p *rdParts) { p.strs = `["<dummy>","","A\u00e9","B","p"]` }), v8ir.LayoutOther},
		{"uppercase escape", mod(rdBase(), func(p *rdParts) { p.strs = `["<dummy>","","A\u00E9","B","p"]` }), v8ir.LayoutCompact},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := rdRead(t, tc.in)
			if got := v8ir.Of(f.Snapshots[0]).Layout; got != tc.want {
				t.Errorf("layout %v, want %v", got, tc.want)
			}
			if !strings.Contains(f.FormatVersion, "layout="+tc.want.String()) {
				t.Errorf("format version %q does not name layout %v", f.FormatVersion, tc.want)
			}
		})
	}
}

// TestReadStrings decodes every kind of escape. The string under test is
// the sixth string (index 5); it is not referenced by the graph.
func TestReadStrings(t *testing.T) {
	tests := []struct {
		name   string
		lit    string // JSON literal as in the file
		want   string // WTF-8 bytes
		escape v8ir.Escape
		layout v8ir.Layout
	}{
		{"plain", `"abc"`, "abc", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"empty", `""`, "", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"short escapes", `"\b\f\n\r\t"`, "\b\f\n\r\t", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"quote and backslash", `"a\"b\\c"`, "a\"b\\c", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"escaped slash", `"a\/b"`, "a/b", v8ir.EscapeV8, v8ir.LayoutOther},
		{"raw slash and DEL", "\"a/b\x7f\"", "a/b\x7f", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"control \\u00XX uppercase", `"\u0001\u001F\u007F"`, "\x01\x1f\x7f", v8ir.EscapeV8, v8ir.LayoutOther},
		{"control \\u00XX as V8 writes", `"\u0001\u001F"`, "\x01\x1f", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"control \\u00xx lowercase", `"\u001f"`, "\x1f", v8ir.EscapeV8, v8ir.LayoutOther},
		{"NUL", `"a\u0000b"`, "a\x00b", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"escaped short-escape character", `"\u000A"`, "\n", v8ir.EscapeV8, v8ir.LayoutOther},
		{"escaped printable ASCII", `"\u0041"`, "A", v8ir.EscapeV8, v8ir.LayoutOther},
		// V8 writes \" and \\, never their \u escapes: a file with one is
		// not in V8's style (written again, it would not be the same bytes).
		{"escaped quote", `"\u0022"`, "\"", v8ir.EscapeV8, v8ir.LayoutOther},
		{"escaped backslash", `"\u005C"`, "\\", v8ir.EscapeV8, v8ir.LayoutOther},
		{"2-byte uppercase", `"Caf\u00E9"`, "Café", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"2-byte lowercase", `"Caf\u00e9"`, "Café", v8ir.EscapeV8, v8ir.LayoutOther},
		{"3-byte", `"\u540D\u524D"`, "名前", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"mixed case hex", `"\u00eA"`, "ê", v8ir.EscapeV8, v8ir.LayoutOther},
		{"V8-truncated astral", `"\uF600"`, "\uf600", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"surrogate pair uppercase", `"\uD83D\uDE00"`, "😀", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"surrogate pair lowercase", `"x\ud834\udd1ey"`, "x𝄞y", v8ir.EscapeV8, v8ir.LayoutOther},
		{"lone high surrogate", `"a\uD800b"`, "a\xed\xa0\x80b", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"lone high surrogate at end", `"a\uDBFF"`, "a\xed\xaf\xbf", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"lone low surrogate", `"\uDC00"`, "\xed\xb0\x80", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"high then ASCII escape", `"\uD800\u0041"`, "\xed\xa0\x80A", v8ir.EscapeV8, v8ir.LayoutOther},
		{"two high surrogates", `"\uD800\uD801"`, "\xed\xa0\x80\xed\xa0\x81", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"low then high", `"\uDE00\uD83D"`, "\xed\xb8\x80\xed\xa0\xbd", v8ir.EscapeV8, v8ir.LayoutCompact},
		{"raw UTF-8", `"café ☃ 😀"`, "café ☃ 😀", v8ir.EscapeRaw, v8ir.LayoutCompact},
		{"raw UTF-8 with escapes", `"é\n\u00E9"`, "é\né", v8ir.EscapeRaw, v8ir.LayoutCompact},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rdBase()
			p.strs = `["<dummy>","","A","B","p",` + tc.lit + `]`
			f := rdRead(t, p.String())
			if len(f.Strings) != 6 {
				t.Fatalf("%d strings", len(f.Strings))
			}
			if got := f.Strings[5]; got != tc.want {
				t.Errorf("string = %q (% x), want %q (% x)", got, got, tc.want, tc.want)
			}
			v := v8ir.Of(f.Snapshots[0])
			if v.Escape != tc.escape {
				t.Errorf("escape %v, want %v", v.Escape, tc.escape)
			}
			if v.Layout != tc.layout {
				t.Errorf("layout %v, want %v", v.Layout, tc.layout)
			}
			// The table as V8 writes it, a newline after each comma, also
			// read a byte at a time, so that the reader's step over V8's
			// separator meets the end of its buffer everywhere.
			p.strs = "[" + strings.Join([]string{`"<dummy>"`, `""`, `"A"`, `"B"`, `"p"`, tc.lit}, ",\n") + "]"
			for _, r := range []io.Reader{strings.NewReader(p.String()), iotest.OneByteReader(strings.NewReader(p.String()))} {
				f, err := rv8.Read(r, rv8.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := f.Strings[5]; len(f.Strings) != 6 || got != tc.want || f.Strings[4] != "p" {
					t.Errorf("rows: %d strings, the last %q, want %q", len(f.Strings), got, tc.want)
				}
				if v := v8ir.Of(f.Snapshots[0]); v.Escape != tc.escape {
					t.Errorf("rows: escape %v, want %v", v.Escape, tc.escape)
				}
			}
		})
	}
}

// TestReadStringsStayDistinct: strings share the reader's storage; each must
// keep its own bytes, also across a long table.
func TestReadStringsStayDistinct(t *testing.T) {
	var lits, want []string
	for i := 0; i < 3000; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), 1+i%700) + "\u00e9"
		want = append(want, s)
		lits = append(lits, `"`+strings.ReplaceAll(s, "\u00e9", `\u00E9`)+`"`)
	}
	p := rdBase()
	p.strs = `["<dummy>","","A","B","p",` + strings.Join(lits, ",") + `]`
	f := rdRead(t, p.String())
	for i, w := range want {
		if f.Strings[5+i] != w {
			t.Fatalf("string %d = %q, want %q", 5+i, f.Strings[5+i], w)
		}
	}
}

func TestReadTraceTree(t *testing.T) {
	traceMeta := `"trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],"trace_node_fields":["id","function_info_index","count","size","children"]`
	tests := []struct {
		name string
		tree string
		want []uint64
	}{
		{"empty", `[]`, []uint64{0}},
		{"root only", `[1,0,5,64,[]]`, []uint64{1, 1, 0, 5, 64, 0}},
		{"nested", `[1,0,1,40,[2,1,1,40,[],3,1,0,0,[4,1,0,0,[]]]]`,
			[]uint64{1, 1, 0, 1, 40, 2, 2, 1, 1, 40, 0, 3, 1, 0, 0, 1, 4, 1, 0, 0, 0}},
		{"deep", `[1,0,0,0,[2,0,0,0,[3,0,0,0,[4,0,0,0,[5,0,0,0,[]]]]]]`,
			[]uint64{1, 1, 0, 0, 0, 1, 2, 0, 0, 0, 1, 3, 0, 0, 0, 1, 4, 0, 0, 0, 1, 5, 0, 0, 0, 0}},
		{"several top-level nodes", `[1,0,0,0,[],2,0,0,0,[]]`, []uint64{2, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0}},
		{"with white space", "[ 1, 0, 7, 8, [ 2, 1, 2, 3, [ ] ] ]", []uint64{1, 1, 0, 7, 8, 1, 2, 1, 2, 3, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rdBase()
			p.meta = rdMeta(traceMeta)
			p.more = []string{`"trace_function_infos":[0,4,1,0,0,0]`, `"trace_tree":` + tc.tree}
			f := rdRead(t, p.String())
			v := v8ir.Of(f.Snapshots[0])
			want := ir.UintsOf(tc.want...)
			if !v.TraceTree.Equal(&want) {
				var got []uint64
				for i := 0; i < v.TraceTree.Len(); i++ {
					got = append(got, v.TraceTree.At(i))
				}
				t.Errorf("trace tree %v, want %v", got, tc.want)
			}
			if v.TraceFunctionInfos.Len() != 6 || v.TraceFunctionInfos.At(1) != 4 {
				t.Errorf("trace function infos length %d", v.TraceFunctionInfos.Len())
			}
		})
	}
}

func TestReadLocations(t *testing.T) {
	tests := []struct {
		name   string
		fields string
		locs   string
		want   []uint64
	}{
		{"4 fields", `["object_index","script_id","line","column"]`, `[5,7,1,2,10,8,3,4]`, []uint64{1, 7, 1, 2, 2, 8, 3, 4}},
		{"5 fields (V8 15)", `["object_index","script_id","script_object_index","line","column"]`, `[10,7,5,1,2]`, []uint64{2, 7, 1, 1, 2}},
		{"empty", `["object_index","script_id","line","column"]`, `[]`, nil},
		{"node 0", `["object_index","script_id","line","column"]`, `[0,0,0,0]`, []uint64{0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rdBase()
			p.meta = rdMeta(`"location_fields":` + tc.fields)
			p.more = []string{`"locations":` + tc.locs}
			v := v8ir.Of(rdRead(t, p.String()).Snapshots[0])
			want := ir.UintsOf(tc.want...)
			if !v.Locations.Equal(&want) {
				t.Errorf("locations: first difference at %d (length %d, want %d)", v.Locations.FirstDiff(&want), v.Locations.Len(), want.Len())
			}
		})
	}
}

// TestReadSizeBoundsNothing reads a small file with locations whose
// Options.Size claims far more than it holds: the locations column, whose
// length the file does not declare, must be reserved by what the nodes
// allow, not by the size claimed (2^42 bytes would be a fatal
// out-of-memory, not an error).
func TestReadSizeBoundsNothing(t *testing.T) {
	p := rdBase()
	p.meta = rdMeta(`"location_fields":["object_index","script_id","line","column"]`)
	p.more = []string{`"locations":[5,7,400,2]`}
	text := p.String()
	for _, size := range []int64{int64(len(text)), int64(len(text)) + 256<<20, 1 << 42} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f, err := rv8.Read(strings.NewReader(text), rv8.Options{Size: size})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("Size %d: %v", size, err)
		}
		if got := v8ir.Of(f.Snapshots[0]).Locations.Len(); got != 4 {
			t.Errorf("Size %d: %d location values, want 4", size, got)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
			t.Errorf("Size %d: reading %d bytes allocated %d MiB", size, len(text), d>>20)
		}
	}
}

func TestReadRootIndex(t *testing.T) {
	tests := []struct {
		name  string
		p     func() rdParts
		root  uint32
		error string
	}{
		{"no root_index: first", rdBase, 0, ""},
		{"root_index 0", func() rdParts {
			p := rdBase()
			p.counts += `,"root_index":0`
			return p
		}, 0, ""},
		{"root last", func() rdParts {
			p := rdBase()
			p.counts += `,"root_index":10` // an offset into nodes: node 2 of 5 fields
			// B (leaf) first, then A, then the root.
			p.nodes = `[1,3,5,20,0,1,2,3,10,1,2,1,1,0,2]`
			p.edges = `[1,4,0,0,1,5,1,4,0]`
			return p
		}, 2, ""},
		{"root in the middle", func() rdParts {
			p := rdBase()
			p.counts += `,"root_index":5`
			return p
		}, 0, "root_index 5"},
		{"root_index not a node offset", func() rdParts {
			p := rdBase()
			p.counts += `,"root_index":2`
			return p
		}, 0, "root_index 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := rv8.Read(strings.NewReader(tc.p().String()), rv8.Options{})
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Errorf("Read = %v, want an error about %q", err, tc.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Snapshots[0].Root; got != tc.root {
				t.Errorf("root %d, want %d", got, tc.root)
			}
		})
	}
}

func TestReadKeepsExtras(t *testing.T) {
	p := rdBase()
	p.counts = `"node_count":3,"title":"hand made","edge_count":3,"trace_function_count":0,"extra_native_bytes":24,"provenance":{"tool":"x","v":[1,2.5,true,null]}`
	p.more = []string{`"x_first":{"a":[1,{"b":"c"}],"n":-3}`, `"x_second":"s\u00E9"`}
	f := rdRead(t, p.String())
	s := f.Snapshots[0]
	v := v8ir.Of(s)
	var names []string
	for _, k := range v.Keys {
		names = append(names, k.Name)
	}
	if got := strings.Join(names, ","); got != "snapshot,nodes,edges,x_first,x_second,strings" {
		t.Fatalf("keys %s", got)
	}
	if v.Keys[3].Value == nil || v.Keys[3].Value.String() != `{"a":[1,{"b":"c"}],"n":-3}` {
		t.Errorf("x_first = %v", v.Keys[3].Value)
	}
	if v.Keys[4].Value == nil || v.Keys[4].Value.Kind != ir.JSONString || v.Keys[4].Value.Str != "sé" {
		t.Errorf("x_second = %v", v.Keys[4].Value)
	}
	var hk []string
	for _, fl := range v.Header.Fields {
		hk = append(hk, fl.Key)
	}
	if got := strings.Join(hk, ","); got != "meta,node_count,title,edge_count,trace_function_count,extra_native_bytes,provenance" {
		t.Errorf("header keys %s", got)
	}
	if got := v.Header.Get("provenance").String(); got != `{"tool":"x","v":[1,2.5,true,null]}` {
		t.Errorf("provenance %s", got)
	}
	if len(s.Totals) != 1 || s.Totals[0] != (ir.Total{Name: "extra_native_bytes", Value: 24}) {
		t.Errorf("totals %v", s.Totals)
	}
}

func TestReadMetaVariants(t *testing.T) {
	tests := []struct {
		name       string
		meta       string
		nodes      string
		edges      string
		nodeKinds  string
		edgeKinds  []ir.EdgeKind
		nodeExtra  map[string][]uint64
		edgeExtra  map[string][]uint64
		edgeNames  []uint32
		edgeTarget []uint32
	}{
		{
			name:      "custom node type names",
			meta:      `{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["jvm class","object","root thing"],"string","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"],"string_or_number","node"]}`,
			nodeKinds: "jvm class,object,root thing",
		},
		{
			name:      "node_types longer than node_fields (V8 13.6)",
			meta:      `{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","synthetic"],"string","number","number","number","number","number"],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"],"string_or_number","node"]}`,
			nodeKinds: "hidden,object,synthetic",
		},
		{
			name:      "node_types shorter than node_fields",
			meta:      `{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","synthetic"]],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"]]}`,
			nodeKinds: "hidden,object,synthetic",
		},
		{
			name:      "fields in another order, with extra fields",
			meta:      `{"node_fields":["id","detachedness","edge_count","type","self_size","name"],"node_types":["number","number","number",["hidden","object","synthetic"],"number","string"],"edge_fields":["to_node","name_or_index","weight","type"],"edge_types":["node","string_or_number","number",["element","property"]]}`,
			nodes:     `[1,0,2,2,0,1,3,1,1,1,10,2,5,2,0,1,20,3]`,
			edges:     `[6,1,7,0,12,4,8,1,12,4,9,1]`,
			nodeKinds: "hidden,object,synthetic",
			nodeExtra: map[string][]uint64{"detachedness": {0, 1, 2}},
			edgeExtra: map[string][]uint64{"weight": {7, 8, 9}},
			edgeNames: []uint32{1, 4, 4}, edgeTarget: []uint32{1, 2, 2},
		},
		{
			name:      "custom edge type names",
			meta:      `{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","synthetic"]],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["hidden","field"]]}`,
			nodeKinds: "hidden,object,synthetic",
			edgeKinds: []ir.EdgeKind{{Name: "hidden", Indexed: true}, {Name: "field"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := rdBase()
			p.meta = tc.meta
			if tc.nodes != "" {
				p.nodes, p.edges = tc.nodes, tc.edges
			}
			s := rdRead(t, p.String()).Snapshots[0]
			if got := strings.Join(s.NodeKinds, ","); got != tc.nodeKinds {
				t.Errorf("node kinds %s, want %s", got, tc.nodeKinds)
			}
			if tc.edgeKinds != nil && (len(s.EdgeKinds) != len(tc.edgeKinds) || s.EdgeKinds[0] != tc.edgeKinds[0] || s.EdgeKinds[1] != tc.edgeKinds[1]) {
				t.Errorf("edge kinds %v, want %v", s.EdgeKinds, tc.edgeKinds)
			}
			// The graph is the same in every variant.
			if s.Nodes.Len() != 3 || s.Nodes.Kind[0] != 2 || s.Nodes.Name[2] != 3 || s.Nodes.ID.At(1) != 3 || s.Nodes.SelfSize.At(2) != 20 || s.Nodes.FirstEdge[1] != 2 {
				t.Errorf("nodes read wrongly: kinds %v names %v", s.Nodes.Kind, s.Nodes.Name)
			}
			for name, want := range tc.nodeExtra {
				checkColumn(t, "node", v8ir.Of(s).NodeExtra, name, want)
			}
			for name, want := range tc.edgeExtra {
				checkColumn(t, "edge", v8ir.Of(s).EdgeExtra, name, want)
			}
			for e, w := range tc.edgeNames {
				if s.Edges.Name[e] != w || s.Edges.Target[e] != tc.edgeTarget[e] {
					t.Errorf("edge %d: name %d target %d, want %d %d", e, s.Edges.Name[e], s.Edges.Target[e], w, tc.edgeTarget[e])
				}
			}
		})
	}
}

func checkColumn(t *testing.T, what string, cols []v8ir.Field, name string, want []uint64) {
	t.Helper()
	for _, c := range cols {
		if c.Name == name {
			w := ir.UintsOf(want...)
			if !c.Values.Equal(&w) {
				t.Errorf("%s column %s differs at %d", what, name, c.Values.FirstDiff(&w))
			}
			return
		}
	}
	t.Errorf("no %s column %q", what, name)
}

func TestReadLargeNumbers(t *testing.T) {
	p := rdBase()
	// id and self_size up to 2^64-1 are kept (DevTools would wrap them, so
	// Validate reports them; Read keeps the value).
	p.nodes = `[2,1,18446744073709551615,0,2,1,2,4294967296,10,1,1,3,5,20,0]`
	s := rdRead(t, p.String()).Snapshots[0]
	if got := s.Nodes.ID.At(0); got != 1<<64-1 {
		t.Errorf("id 0 = %d", got)
	}
	if got := s.Nodes.ID.At(1); got != 1<<32 {
		t.Errorf("id 1 = %d", got)
	}
}

// rdMark returns in without its ‸ marker and the marker's byte offset.
func rdMark(t *testing.T, in string) (string, int64) {
	t.Helper()
	i := strings.Index(in, "‸")
	if i < 0 {
		t.Fatalf("test input has no ‸ marker: %q", in)
	}
	return strings.Replace(in, "‸", "", 1), int64(i)
}

func TestReadErrors(t *testing.T) {
	base := rdBase().String()
	rep := func(old, new string) string {
		if !strings.Contains(base, old) {
			panic("test input lacks " + old)
		}
		return strings.Replace(base, old, new, 1)
	}
	rows := rdRows().String()
	type tcase struct {
		name string
		in   string // with ‸ at the expected offset; "" marker means -1 via atEnd/fileLevel
		want string
	}
	tests := []tcase{
		{"to_node not a multiple", rep(`"edges":[0,1,5`, `"edges":[0,1,‸6`), "to_node 6 is not a node"},
		{"to_node out of range", rep(`1,4,10,1,4,10]`, `1,4,10,1,4,‸15]`), "to_node 15 is not a node"},
		{"to_node out of range in rows", strings.Replace(rows, "\n,1,4,10\n]", "\n,1,4,‸30\n]", 1), "to_node 30"},
		{"node type out of range", rep(`2,1,1,0,2,1,2,3`, `2,1,1,0,2,‸3,2,3`), "type 3 is not in meta.node_types[0]"},
		{"edge type out of range", rep(`"edges":[0,1,5,1,4`, `"edges":[0,1,5,‸7,4`), "type 7 is not in meta.edge_types[0]"},
		{"negative number", rep(`2,3,10,1`, `2,3,‸-10,1`), "negative number"},
		{"negative zero in edges", rep(`"edges":[0,1,5`, `"edges":[0,‸-0,5`), "negative number"},
		{"float number", rep(`2,3,10,1`, `2,3,‸10.5,1`), "not an unsigned integer"},
		{"exponent", rep(`2,3,10,1`, `2,3,‸1e3,1`), "not an unsigned integer"},
		{"2^64", rep(`2,3,10,1`, `2,3,‸18446744073709551616,1`), "does not fit in 64 bits"},
		{"25 digits", rep(`2,3,10,1`, `2,3,‸1234567890123456789012345,1`), "does not fit in 64 bits"},
		// Digit runs longer than the scanner's fast-path margin, in the
		// buffer and through its end (a fuzzer found the latter hung).
		{"200 zeros", rep(`2,3,10,1`, `2,3,‸`+strings.Repeat("0", 200)+`,1`), "does not fit in 64 bits"},
		{"a million digits", rep(`2,3,10,1`, `2,3,‸`+strings.Repeat("7", 1<<20)+`,1`), "does not fit in 64 bits"},
		{"the file ends in 100 digits", base[:strings.Index(base, `2,3,10,1`)] + `2,3,‸` + strings.Repeat("0", 100), "does not fit in 64 bits"},
		{"string in number array", rep(`2,3,10,1`, `2,3,‸"10",1`), "expected an unsigned integer"},
		{"missing value after comma", rep(`1,4,10]`, `1,4,10,‸]`), "expected a number after ','"},
		{"missing comma", rep(`2,3,10,1`, `2,3,10 ‸1`), "expected ',' or ']'"},
		{"edge_counts add up to more", rep(`"edge_count":3`, `"edge_count":2`), ""},
		{"edge_counts add up to less", rep(`"edge_count":3`, `"edge_count":4`), ""},
		{"node_count too small", rep(`"node_count":3`, `"node_count":2`), ""},
		{"node_count too large", rep(`"node_count":3`, `"node_count":4`), ""},
		{"nodes end mid-row", rep(`1,3,5,20,0]`, `1,3,5,20]‸`), "middle of a row"},
		{"edges end mid-row", rep(`1,4,10,1,4,10]`, `1,4,10,1,4]‸`), "middle of a row"},
		{"meta lacks id", rep(`"snapshot":{"meta":{"node_fields":["type","name","id",`, `"snapshot":‸{"meta":{"node_fields":["type","name",`), `lacks "id"`},
		{"meta lacks to_node", rep(`"snapshot":{"meta":{`, `"snapshot":‸{"meta":{`) /* fixed below */, `lacks "to_node"`},
		{"meta lacks node_types", rep(`"snapshot":{"meta":{`, `"snapshot":‸{"meta":{`), "node_types[0]"},
		{"no meta", rep(`"snapshot":{"meta":`, `"snapshot":‸{"x":`), `no "meta" object`},
		{"node_count missing", rep(`"snapshot":{`, `"snapshot":‸{`), "node_count is missing"},
		{"node_count negative", rep(`"snapshot":{`, `"snapshot":‸{`), "node_count is missing or not a non-negative integer"},
		{"header not an object", `{"snapshot":‸[1],` + "\n" + `"nodes":[],` + "\n" + `"edges":[],` + "\n" + `"strings":[]}`, "is not an object"},
		{"strings not last", rep(`"p"]}`, `"p"],‸"x_late":1}`), `"strings" must be the last key`},
		{"duplicate top-level key", rep(`,`+"\n"+`"strings"`, `,`+"\n"+`‸"edges":[],`+"\n"+`"strings"`), `duplicate top-level key "edges"`},
		{"duplicate header key", rep(`"trace_function_count":0`, `"trace_function_count":0,‸"node_count":4`), `duplicate key "node_count"`},
		{"duplicate meta key", rep(`"edge_fields":`, `‸"node_fields":["type"],"edge_fields":`), `duplicate key "node_fields"`},
		{"first key not snapshot", "{‸" + `"nodes":[],"snapshot":{}}`, `the first key is "nodes"`},
		{"edges before nodes", strings.Replace(strings.Replace(base, `"nodes":[2,1,1,0,2,1,2,3,10,1,1,3,5,20,0],`+"\n", "", 1), `"edges":`, `‸"edges":`, 1), `"edges" before "nodes"`},
		{"no strings", rep(",\n"+`"strings":["<dummy>","","A","B","p"]}`, `}‸`), `no "strings" section`},
		{"garbage after the end", base + "‸xyz", "data after the end"},
		{"second object after the end", base + "\n‸{}", "data after the end"},
		{"not an object", "‸[1,2]", "expected '{'"},
		{"empty", "‸", "empty file"},
		{"only white space", "  \n‸", "empty file"},
		{"control character in a string", rep(`"A","B"`, "\"A\",\"x‸\ty\""), "control character"},
		{"bad escape", rep(`"A","B"`, `"A","x‸\qy"`), `bad escape`},
		{"bad \\u escape", rep(`"A","B"`, `"A","x‸\u12G4"`), `bad \u escape`},
		{"short \\u escape at end", rep(`"A","B","p"]}`, `"A","B","p‸\u12"]}`), `\u escape`},
		{"missing colon", rep(`"nodes":[`, `"nodes"‸[`), "expected ':'"},
		{"white space before the snapshot colon", rep(`{"snapshot":{`, `{"snapshot"‸ :{`), `white space between "snapshot" and ':'`},
	}
	// Cases whose offending value needs a hand-placed marker.
	fix := map[string]string{
		"edge_counts add up to more": strings.Replace(rep(`"edge_count":3`, `"edge_count":2`), `1,2,3,10,1,1,3`, `1,2,3,10,‸1,1,3`, 1),
		"edge_counts add up to less": strings.Replace(rep(`"edge_count":3`, `"edge_count":4`), `20,0]`, `20,0]‸`, 1),
		"node_count too small":       strings.Replace(rep(`"node_count":3`, `"node_count":2`), `10,1,1,3,5`, `10,1,‸1,3,5`, 1),
		"node_count too large":       strings.Replace(rep(`"node_count":3`, `"node_count":4`), `20,0]`, `20,0]‸`, 1),
		"meta lacks to_node":         strings.Replace(rep(`"snapshot":{`, `"snapshot":‸{`), `"name_or_index","to_node"]`, `"name_or_index"]`, 1),
		"meta lacks node_types":      strings.Replace(rep(`"snapshot":{`, `"snapshot":‸{`), `"node_types":`, `"node_typos":`, 1),
		"node_count missing":         strings.Replace(rep(`"snapshot":{`, `"snapshot":‸{`), `"node_count":3,`, ``, 1),
		"node_count negative":        strings.Replace(rep(`"snapshot":{`, `"snapshot":‸{`), `"node_count":3,`, `"node_count":-3,`, 1),
	}
	wants := map[string]string{
		"edge_counts add up to more": "edge_counts add up to more than edge_count (2)",
		"edge_counts add up to less": "add up to 3, but edge_count is 4",
		"node_count too small":       "more than node_count (2) nodes",
		"node_count too large":       "holds 3 nodes, but node_count is 4",
	}
	for _, tc := range tests {
		for _, mode := range rdModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				in := tc.in
				if f, ok := fix[tc.name]; ok {
					in = f
				}
				want := tc.want
				if w, ok := wants[tc.name]; ok {
					want = w
				}
				in, off := rdMark(t, in)
				_, err := rv8.Read(mode.reader(in), mode.opts)
				if err == nil {
					t.Fatalf("Read accepted the input:\n%s", in)
				}
				fe, ok := err.(*ir.FormatError)
				if !ok {
					t.Fatalf("error %T (%v) is not a *ir.FormatError", err, err)
				}
				if fe.Format != v8ir.Format {
					t.Errorf("error format %q", fe.Format)
				}
				if fe.Offset != off {
					ctx := func(o int64) string {
						if o < 0 || o > int64(len(in)) {
							return "-"
						}
						return in[max(0, o-15):o] + "‸" + in[o:min(int64(len(in)), o+15)]
					}
					t.Errorf("offset %d (%q), want %d (%q); error: %v", fe.Offset, ctx(fe.Offset), off, ctx(off), err)
				}
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			})
		}
	}
}

// rdModes are the ways of reading one input: its error offsets must not
// depend on them. A Size hint of 8 MiB or more switches the reader to
// parsing number arrays in parallel regions.
var rdModes = []struct {
	name   string
	opts   rv8.Options
	reader func(string) io.Reader
}{
	{"serial", rv8.Options{}, func(s string) io.Reader { return strings.NewReader(s) }},
	{"parallel", rv8.Options{Size: 8 << 20}, func(s string) io.Reader { return strings.NewReader(s) }},
	{"one byte at a time", rv8.Options{}, func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
}

// TestReadTruncated cuts a file at several points: the error names the
// offset where the input ended.
func TestReadTruncated(t *testing.T) {
	for _, layout := range []struct {
		name string
		in   string
	}{{"compact", rdBase().String()}, {"rows", rdRows().String()}} {
		in := layout.in
		cuts := map[string]int{
			"nothing":              0,
			"after the brace":      1,
			"inside the first key": 5,
			"inside the header":    strings.Index(in, `"node_count"`) + 3,
			"after a header count": strings.Index(in, `"node_count":3`) + len(`"node_count":3`),
			"after the header":     strings.Index(in, `,`+"\n"+`"nodes"`),
			"after the nodes key":  strings.Index(in, `"nodes"`) + len(`"nodes"`),
			"inside nodes":         strings.Index(in, `"nodes"`) + 12,
			"inside edges":         strings.Index(in, `"edges"`) + 11,
			"inside a string":      strings.Index(in, `"<dummy>"`) + 3,
			"inside an escape":     -1, // set below
			"after the strings":    len(in) - 1,
		}
		esc := strings.Replace(in, `"A"`, `"\u00E9"`, 1)
		for name, n := range cuts {
			src := in
			if name == "inside an escape" {
				src, n = esc, strings.Index(esc, `\u00E9`)+3
			}
			t.Run(layout.name+"/"+name, func(t *testing.T) {
				if n < 0 || n >= len(src) {
					t.Fatalf("bad cut %d", n)
				}
				_, err := rv8.Read(strings.NewReader(src[:n]), rv8.Options{})
				var fe *ir.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("Read of %d bytes: error %v, want a *ir.FormatError", n, err)
				}
				if name == "inside an escape" {
					// The escape's start is a fine place to point at, but
					// the message must say that the file ended.
					if bs := int64(strings.LastIndex(src[:n], `\`)); fe.Offset != int64(n) && fe.Offset != bs {
						t.Errorf("cut at %d: offset %d, want %d or %d: %v", n, fe.Offset, n, bs, err)
					}
					if !strings.Contains(err.Error(), "end of file") {
						t.Errorf("cut at %d inside \\u00E9: error %q does not say the file ended", n, err)
					}
					return
				}
				if fe.Offset != int64(n) {
					t.Errorf("cut at %d: offset %d: %v", n, fe.Offset, err)
				}
			})
		}
	}
}

// TestReadTraceTreeWithoutFields: a trace tree whose meta names only the
// children list has no field to count its nodes by; such a tree is
// refused where it is read, with its offset, rather than left for
// validation to find its counts wrong.
func TestReadTraceTreeWithoutFields(t *testing.T) {
	p := rdBase()
	p.meta = rdMeta(`"trace_function_info_fields":["function_id"],"trace_node_fields":["children"]`)
	p.more = []string{`"trace_function_infos":[]`, `"trace_tree":[[],[[]]]`}
	_, err := rv8.Read(strings.NewReader(p.String()), rv8.Options{})
	var fe *ir.FormatError
	if !errors.As(err, &fe) || fe.Offset < 0 || !strings.Contains(fe.Msg, "no field before children") {
		t.Errorf("%v, want the trace tree refused at its offset", err)
	}
}
