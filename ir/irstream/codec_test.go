package irstream_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtext"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/heapconv/heapconv/internal/sampling"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// jsObj, jsArr and jsF build JSON values for the tests.
func jsObj(fields ...ir.JSONField) ir.JSON { return ir.JSON{Kind: ir.JSONObject, Fields: fields} }
func jsArr(elems ...ir.JSON) ir.JSON       { return ir.JSON{Kind: ir.JSONArray, Elems: elems} }
func jsF(k string, v ir.JSON) ir.JSONField { return ir.JSONField{Key: k, Value: v} }

// ctFull builds a file that sets every field the IR has: classes, values of
// every kind, GC roots, totals, external sizes, 64-bit ids, a V8 section with
// header, keys (one with a value), extra columns, trace data and locations,
// several snapshots and an empty one.
func ctFull() *ir.File {
	f := &ir.File{
		Format:        "moarvm",
		FormatVersion: "moarvm v3",
		Producer:      "hand-built test",
		Strings:       []string{"", "Foo", "Bar", "lib", "field", "stack", "x\x00y", "lone \xed\xa0\x80 surrogate", "bad \xff byte", "é😀"},
		Classes: ir.Classes{
			Name:       []uint32{1, 2},
			Library:    []uint32{3, 0},
			FirstField: []uint32{0, 2, 3},
			FieldName:  []uint32{4, 5, 4},
		},
	}
	s0 := &ir.Snapshot{
		Name:        1,
		CaptureTime: -1234567890123,
		Totals:      []ir.Total{{Name: "capacity", Value: 1 << 40}, {Name: "external_size", Value: math.MaxUint64}, {Name: "zero", Value: 0}},
		NodeKinds:   []string{"object", "string", "custom kind"},
		EdgeKinds:   []ir.EdgeKind{{Name: "property"}, {Name: "element", Indexed: true}, {Name: "weird", Indexed: true}},
		Root:        2,
		Roots:       []ir.RootRef{{Node: 0, Category: 5}, {Node: 3, Category: 5}, {Node: 1, Category: 6}},
		Nodes: ir.Nodes{
			Kind:         []uint8{0, 1, 2, 0, 1, 0},
			Name:         []uint32{1, 9, 0, 2, 7, 8},
			Class:        []uint32{1, 0, 0, 2, 0, 1},
			ID:           ir.UintsOf(1<<40, 2, 4, 6, 8, math.MaxUint64),
			SelfSize:     ir.UintsOf(16, 300, 0, 1<<33, 1, 2),
			ExternalSize: ir.UintsOf(0, 0, 0, 5, 0, 0),
			FirstEdge:    []uint32{0, 2, 2, 5, 5, 6, 6},
		},
		Edges: ir.Edges{
			Kind:   []uint8{0, 1, 2, 0, 1, 0},
			Name:   []uint32{4, 1 << 31, 7, 5, 0, 9},
			Target: []uint32{1, 3, 0, 4, 5, 2},
		},
		Values: ir.Values{
			Node: []uint32{0, 1, 2, 3, 4, 5},
			Kind: []ir.ValueKind{ir.ValueString, ir.ValueInt, ir.ValueFloat, ir.ValueBool, ir.ValueLength, ir.ValueNull},
			Bits: []uint64{9, uint64(1<<64 - 42), math.Float64bits(-2.5), 1, 1 << 35, 0},
			Aux:  []uint64{1 << 20, 0, 0, 0, 0, 0},
		},
	}
	meta := jsObj(
		jsF("node_fields", ir.JSONStrs("type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness")),
		jsF("trace_node_fields", ir.JSONStrs("id", "function_info_index", "count", "size", "children")),
		jsF("location_fields", ir.JSONStrs("object_index", "script_id", "script_object_index", "line", "column")),
	)
	header := jsObj(
		jsF("meta", meta),
		jsF("node_count", ir.JSONNum(3)),
		jsF("negative", ir.JSONNum(-7)),
		jsF("big", ir.JSONNum(math.MaxInt64)),
		jsF("float", ir.JSON{Kind: ir.JSONFloat, Float: 0.5}),
		jsF("whole float", ir.JSON{Kind: ir.JSONFloat, Float: 2}),
		jsF("flag", ir.JSON{Kind: ir.JSONBool, Bool: true}),
		jsF("off", ir.JSON{Kind: ir.JSONBool}),
		jsF("nothing", ir.JSON{}),
		jsF("title", ir.JSONStr("t\u00e9st")),
		jsF("nested", jsArr(jsArr(), jsObj(), jsArr(ir.JSONNum(1), ir.JSONStr("a")))),
	)
	extra := jsObj(jsF("name", ir.JSONStr("hand")), jsF("v", jsArr(ir.JSONNum(1), ir.JSONNum(2))))
	var zeros ir.Uints
	zeros.AppendZeros(3)
	s1 := &ir.Snapshot{
		Name:      2,
		NodeKinds: []string{"synthetic", "object"},
		EdgeKinds: []ir.EdgeKind{{Name: "element", Indexed: true}, {Name: "property"}},
		Root:      0,
		Nodes: ir.Nodes{
			Kind:      []uint8{0, 1, 1},
			Name:      []uint32{0, 1, 2},
			ID:        ir.UintsOf(1, 3, 5),
			SelfSize:  ir.UintsOf(0, 0, 0), // all zero: stored as zeros records
			FirstEdge: []uint32{0, 2, 3, 3},
		},
		Edges: ir.Edges{Kind: []uint8{0, 1, 1}, Name: []uint32{1, 4, 4}, Target: []uint32{1, 2, 2}},
		Sections: []ir.Section{&v8ir.Snapshot{
			Header: header,
			Keys: []v8ir.Key{{Name: "snapshot"}, {Name: "nodes"}, {Name: "edges"}, {Name: "x_extra", Value: &extra},
				{Name: "trace_tree"}, {Name: "locations"}, {Name: "strings"}},
			Layout:             v8ir.LayoutRows,
			Escape:             v8ir.EscapeRaw,
			NodeExtra:          []v8ir.Field{{Name: "trace_node_id", Values: zeros}, {Name: "detachedness", Values: ir.UintsOf(0, 1, 2)}},
			EdgeExtra:          []v8ir.Field{{Name: "edge_extra", Values: ir.UintsOf(1<<40, 0, 3)}},
			TraceFunctionInfos: ir.UintsOf(0, 4, 1, 0, 0, 0),
			TraceTree:          ir.UintsOf(1, 1, 0, 3, 40, 1, 2, 0, 1, 8, 0),
			Samples:            ir.UintsOf(0, 100, 50, 70000),
			Locations:          ir.UintsOf(1, 7, 2, 3, 4, 0, 0, 0, 0, 0),
		}},
	}
	s2 := &ir.Snapshot{Name: 0, Root: ir.NoNode, Nodes: ir.Nodes{FirstEdge: []uint32{0}}}
	s3 := &ir.Snapshot{Name: 0, Root: ir.NoNode, Nodes: ir.Nodes{FirstEdge: []uint32{0}},
		Sections: []ir.Section{&v8ir.Snapshot{Header: jsObj(), Layout: v8ir.LayoutOther}}}
	f.Snapshots = []*ir.Snapshot{s0, s1, s2, s3}
	return f
}

// ctLarge has columns and a string table that span several stream chunks.
func ctLarge() *ir.File {
	const n, nstr = 70000, 20000
	f := &ir.File{Format: "v8"}
	for i := 0; i < nstr; i++ {
		f.Strings = append(f.Strings, fmt.Sprintf("s%d", i))
	}
	s := &ir.Snapshot{NodeKinds: []string{"a", "b"}, EdgeKinds: []ir.EdgeKind{{Name: "e"}}, Root: 0}
	s.Nodes.FirstEdge = []uint32{0}
	for i := 0; i < n; i++ {
		s.Nodes.Kind = append(s.Nodes.Kind, uint8(i%2))
		s.Nodes.Name = append(s.Nodes.Name, uint32(i%nstr))
		s.Nodes.ID.Append(uint64(2*i + 1))
		s.Nodes.SelfSize.Append(uint64(i) << 20)
		for k := 0; k < 2; k++ {
			s.Edges.Kind = append(s.Edges.Kind, 0)
			s.Edges.Name = append(s.Edges.Name, uint32((i+k)%nstr))
			s.Edges.Target = append(s.Edges.Target, uint32((i*7+k)%n))
		}
		s.Nodes.FirstEdge = append(s.Nodes.FirstEdge, uint32(s.Edges.Len()))
	}
	s.Nodes.ExternalSize.AppendZeros(n)
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

// ctMoarVM is a random MoarVM file of three snapshots with every MoarVM
// feature.
func ctMoarVM() *ir.File { return ctMoarVMSized(3, 3, 6) }

// ctMoarVMSized is a random MoarVM file with references out of the string
// heap, a TOC per snapshot, highscore boards and a recovery record: the
// first from seed on that has boards.
func ctMoarVMSized(seed int64, snapshots, maxNodes int) *ir.File {
	for ; ; seed++ {
		f := irtest.RandomMoarVM(seed, irtest.Options{MaxNodes: maxNodes, MaxOutDegree: 3, Snapshots: snapshots,
			Strings: irtest.AllStrings, MaxStringUnits: 4}, irtest.MoarVMOptions{BadRefs: true})
		if moarvmir.FileOf(f).EntryCount > 0 {
			moarvmir.FileOf(f).Recovery = &moarvmir.Recovery{DamageAt: 1 << 33, Reason: "cut short", Lost: 2}
			return f
		}
	}
}

// ctMoarVMv2 is a random MoarVM file read from a version 2 file: no
// metadata, no highscores.
func ctMoarVMv2() *ir.File {
	return irtest.RandomMoarVM(4, irtest.Options{MaxNodes: 4, MaxOutDegree: 2, Snapshots: 2, MaxStringUnits: 4}, irtest.MoarVMOptions{V2: true})
}

// roundTrip encodes f and decodes it again.
func roundTrip(t *testing.T, f *ir.File) *ir.File {
	t.Helper()
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, f); err != nil {
		t.Fatalf("encode: %v", err)
	}
	g, err := irstream.Decode(&buf)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return g
}

func ctText(t *testing.T, f *ir.File) string {
	t.Helper()
	var b strings.Builder
	if err := irtext.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		f    func() *ir.File
	}{
		{"every field", ctFull},
		{"several chunks", ctLarge},
		{"no snapshots", func() *ir.File { return &ir.File{Format: "x"} }},
		{"moarvm", ctMoarVM},
		{"moarvm v2", ctMoarVMv2},
		{"moarvm without snapshots", func() *ir.File {
			return &ir.File{Format: moarvmir.Format, Sections: []ir.Section{&moarvmir.File{Version: 3, HasMeta: true, DataOrder: []string{"x"},
				Recovery: &moarvmir.Recovery{DamageAt: 16, Reason: "no snapshot", Lost: 1}}}}
		}},
		{"fuchsia", ctFuchsia},
		{"fuchsia, several chunks", ctFuchsiaLarge},
		// The sections are exclusive in practice; the stream still
		// orders them: moarvm, then fuchsia.
		{"moarvm and fuchsia without snapshots", func() *ir.File {
			return &ir.File{Format: "both", Strings: []string{"", "x"}, Sections: []ir.Section{&moarvmir.File{Version: 2},
				&fuchsiair.File{SampleTypes: []fuchsiair.ValueType{{Type: 1}, {Unit: 1}}, Comments: []uint32{1},
					Locations: fuchsiair.Locations{FirstLine: []uint32{0}}}}}
		}},
	}
	codecs := []struct {
		name   string
		encode func(w *bytes.Buffer, f *ir.File) error
		magic  []byte
	}{
		{"plain", func(w *bytes.Buffer, f *ir.File) error { return irstream.Encode(w, f) }, irstream.Magic},
		{"zstd", func(w *bytes.Buffer, f *ir.File) error { return irstream.EncodeZstd(w, f) }, irstream.ZstdMagic},
	}
	for _, tc := range tests {
		// Made, and dumped as text, once for both codecs (the large files
		// take a second each).
		f := tc.f()
		var text string
		for _, codec := range codecs {
			t.Run(tc.name+"/"+codec.name, func(t *testing.T) {
				if err := f.Validate(); err != nil {
					t.Fatalf("test file invalid: %v", err)
				}
				if text == "" {
					text = ctText(t, f)
				}
				var buf bytes.Buffer
				if err := codec.encode(&buf, f); err != nil {
					t.Fatalf("encode: %v", err)
				}
				if !bytes.HasPrefix(buf.Bytes(), codec.magic) {
					t.Fatalf("stream starts % x, want % x", buf.Bytes()[:min(8, buf.Len())], codec.magic)
				}
				g, err := irstream.Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if d := ir.Diff(f, g, 20); len(d) > 0 {
					t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
				}
				if b := ctText(t, g); text != b {
					t.Errorf("text dumps differ:\nbefore:\n%s\nafter:\n%s", text, b)
				}
				// Encoding is deterministic.
				var again bytes.Buffer
				if err := codec.encode(&again, g); err != nil {
					t.Fatal(err)
				}
				if codec.name == "plain" && !bytes.Equal(buf.Bytes(), again.Bytes()) {
					t.Errorf("encoding the decoded file gives different bytes (%d vs %d)", buf.Len(), again.Len())
				}
			})
		}
	}
}

// TestDecodeKeepsDetails checks what Diff might overlook: key values, the
// absence of optional columns, NoNode roots.
func TestDecodeKeepsDetails(t *testing.T) {
	f := ctFull()
	g := roundTrip(t, f)
	if len(g.Snapshots) != 4 {
		t.Fatalf("%d snapshots", len(g.Snapshots))
	}
	s1 := g.Snapshots[1]
	if len(s1.Nodes.Class) != 0 || s1.Nodes.ExternalSize.Len() != 0 {
		t.Errorf("snapshot 1 gained optional columns: class %d external %d", len(s1.Nodes.Class), s1.Nodes.ExternalSize.Len())
	}
	if g.Snapshots[0].Nodes.ExternalSize.Len() != 6 {
		t.Errorf("snapshot 0 external sizes: %d", g.Snapshots[0].Nodes.ExternalSize.Len())
	}
	if k := v8ir.Of(s1).Keys[3]; k.Name != "x_extra" || k.Value == nil || k.Value.Get("name").Str != "hand" {
		t.Errorf("key 3 = %+v", k)
	}
	if k := v8ir.Of(s1).Keys[0]; k.Value != nil {
		t.Errorf("key 0 has a value: %v", k.Value)
	}
	if got := v8ir.Of(s1).Header.Get("whole float"); got == nil || got.Kind != ir.JSONFloat || got.Float != 2 {
		t.Errorf("header whole float = %+v", got)
	}
	if got := v8ir.Of(s1).Header.Get("big"); got == nil || got.Kind != ir.JSONInt || got.Int != math.MaxInt64 {
		t.Errorf("header big = %+v", got)
	}
	for i, s := range g.Snapshots[2:] {
		if s.Root != ir.NoNode || s.Nodes.Len() != 0 || len(s.Nodes.FirstEdge) != 1 {
			t.Errorf("empty snapshot %d: root %d nodes %d first edge %v", i+2, s.Root, s.Nodes.Len(), s.Nodes.FirstEdge)
		}
	}
	if v8ir.Of(g.Snapshots[3]) == nil || v8ir.Of(g.Snapshots[2]) != nil {
		t.Errorf("v8 sections of the empty snapshots: %v %v", v8ir.Of(g.Snapshots[2]), v8ir.Of(g.Snapshots[3]))
	}
	if got := g.Strings[7]; got != "lone \xed\xa0\x80 surrogate" {
		t.Errorf("WTF-8 string = %q", got)
	}
	if got := g.Strings[8]; got != "bad \xff byte" {
		t.Errorf("invalid UTF-8 string = %q", got)
	}
}

// ctHeader returns msgpack ["heapir", v] for a positive fixint v.
func ctHeader(v byte) []byte { return append(append([]byte(nil), irstream.Magic...), v) }

func TestDecodeRefusesVersions(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		want  []string
	}{
		{"newer version", append(ctHeader(ir.Version+1), 0x92, 0xa3, 'e', 'n', 'd', 0x80), []string{fmt.Sprintf("version %d", ir.Version+1), "newer", "upgrade"}},
		{"much newer version", ctHeader(0x7f), []string{"version 127", "newer", "upgrade"}},
		{"version 0", ctHeader(0), []string{"version 0 does not exist"}},
		{"not IR", []byte("{\"snapshot\":{}}"), []string{"not a heapconv IR stream"}},
		{"wrong magic", []byte{0x92, 0xa6, 'h', 'e', 'a', 'p', 'x', 'x', 0x01}, []string{"not a heapconv IR stream"}},
		{"empty", nil, []string{"not a heapconv IR stream"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := irstream.Decode(bytes.NewReader(tc.input))
			if err == nil {
				t.Fatal("Decode accepted the stream")
			}
			var fe *ir.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *ir.FormatError", err, err)
			}
			if fe.Format != ir.FormatIR || fe.Offset != 0 {
				t.Errorf("error format %q offset %d, want %q 0", fe.Format, fe.Offset, ir.FormatIR)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestDecodeTruncated cuts a stream at every byte: every prefix is refused
// with a *ir.FormatError whose offset lies within the prefix and whose
// message says the stream ended (not that some value was wrong).
func TestDecodeTruncated(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func() *ir.File
	}{
		{"every field", ctFull},
		// Small, as every prefix costs a decode: one snapshot, still
		// with every MoarVM record and column.
		{"moarvm", func() *ir.File { return ctMoarVMSized(3, 1, 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) { testDecodeTruncated(t, tc.f()) })
	}
}

func testDecodeTruncated(t *testing.T, f *ir.File) {
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// Failures are grouped per check, with the first prefix and a count.
	type failure struct {
		first int
		msg   string
		count int
	}
	fails := map[string]*failure{}
	fail := func(check string, n int, err error) {
		f := fails[check]
		if f == nil {
			f = &failure{first: n, msg: fmt.Sprint(err)}
			fails[check] = f
		}
		f.count++
	}
	// Every prefix in an exhaustive run; by default the first and last
	// 64 (the header, the stream's end) and a quarter of the others, at
	// most 600 of them, spread over the stream.
	prefixes := sampling.Ends(len(data), 64, 4, 600)
	sampling.Logf(t, len(prefixes), len(data), "prefixes")
	for _, n := range prefixes {
		_, err := irstream.Decode(bytes.NewReader(data[:n]))
		if err == nil {
			fail("decoded without error", n, err)
			continue
		}
		var fe *ir.FormatError
		if !errors.As(err, &fe) {
			fail("no *ir.FormatError in the chain", n, err)
			continue
		}
		if fe.Offset < 0 || fe.Offset > int64(n) {
			fail("offset outside the prefix", n, err)
		}
		if _, ok := err.(*ir.FormatError); !ok {
			fail(fmt.Sprintf("error is a %T wrapping the *ir.FormatError, not a *ir.FormatError", err), n, err)
		}
		if m := err.Error(); !strings.Contains(m, "EOF") && !strings.Contains(m, "not a heapconv IR stream") {
			fail("message does not say the stream ended", n, err)
		}
	}
	for check, f := range fails {
		t.Errorf("%s: %d of %d prefixes, first at %d bytes: %s", check, f.count, len(prefixes), f.first, f.msg)
	}
}

// TestDecodeCorrupted flips bytes of a small MoarVM stream one at a time:
// every other byte of the MoarVM records and of the MoarVM column records'
// heads, and every sixteenth byte of the rest (a decode per flip is not
// cheap). The decoder either refuses the stream with a *ir.FormatError or
// returns a valid file that re-encodes to the same file (a flipped value
// byte).
func TestDecodeCorrupted(t *testing.T) {
	testDecodeCorrupted(t, ctMoarVMSized(3, 1, 3), "moarvm")
}

// testDecodeCorrupted flips bytes of f's stream: every other byte of the
// records and the column records' heads whose names start with prefix,
// and every sixteenth byte of the rest.
func testDecodeCorrupted(t *testing.T, f *ir.File, prefix string) {
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// Mark the bytes of the section's records and the heads of its column
	// records (their values are plain numbers).
	marked := make([]bool, len(data))
	r := bytes.NewReader(data)
	dec := msgpack.NewDecoder(r)
	for r.Len() > 0 {
		at := len(data) - r.Len()
		var rec []any
		if err := dec.Decode(&rec); err != nil || len(rec) < 2 {
			t.Fatalf("record at %d: %v", at, err)
		}
		kind, _ := rec[0].(string)
		name := ""
		if kind == "col" || kind == "zeros" || kind == "section" {
			name, _ = rec[2].(string)
		}
		if kind == "section" {
			kind = name
		}
		end := len(data) - r.Len()
		if strings.HasPrefix(name, prefix+".") {
			end = min(end, at+8+len(name))
		}
		if strings.HasPrefix(kind, prefix) || strings.HasPrefix(name, prefix+".") {
			for i := at; i < end; i++ {
				marked[i] = true
			}
		}
	}
	bad := bytes.Clone(data)
	refused, tried := 0, 0
	for i := range data {
		if !(marked[i] && i%2 == 0) && i%16 != 0 {
			continue
		}
		tried++
		bad[i] ^= 0xff
		g, err := irstream.Decode(bytes.NewReader(bad))
		bad[i] = data[i]
		if err != nil {
			if _, ok := err.(*ir.FormatError); !ok {
				t.Fatalf("byte %d flipped: error %T %v is not a *ir.FormatError", i, err, err)
			}
			refused++
			continue
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("byte %d flipped: decoded an invalid file: %v", i, err)
		}
		var again bytes.Buffer
		if err := irstream.Encode(&again, g); err != nil {
			t.Fatal(err)
		}
		h, err := irstream.Decode(&again)
		if err != nil {
			t.Fatalf("byte %d flipped: the decoded file does not decode again: %v", i, err)
		}
		if d := ir.Diff(g, h, 5); len(d) > 0 {
			t.Fatalf("byte %d flipped: the decoded file changes on a round trip: %v", i, d)
		}
	}
	if refused == 0 {
		t.Errorf("none of %d flips refused", tried)
	}
}

func TestDecodeZstdTruncated(t *testing.T) {
	var buf bytes.Buffer
	if err := irstream.EncodeZstd(&buf, ctFull()); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for _, n := range []int{5, len(data) / 2, len(data) - 1} {
		_, err := irstream.Decode(bytes.NewReader(data[:n]))
		var fe *ir.FormatError
		if !errors.As(err, &fe) || fe.Offset < 0 {
			t.Errorf("zstd prefix of %d/%d bytes: error %v, want a *ir.FormatError with an offset", n, len(data), err)
		}
	}
}

func TestDecodeTrailingData(t *testing.T) {
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, ctFull()); err != nil {
		t.Fatal(err)
	}
	n := int64(buf.Len())
	buf.WriteByte(0xc0)
	_, err := irstream.Decode(&buf)
	var fe *ir.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a *ir.FormatError", err)
	}
	if fe.Offset != n || !strings.Contains(fe.Msg, "after the end") {
		t.Errorf("error %v: want offset %d and \"after the end\"", err, n)
	}
}

// TestDecodeRejectsInvalidGraph: a well-formed stream holding a graph that
// breaks the IR invariants is refused by the decoder's validation.
func TestDecodeRejectsInvalidGraph(t *testing.T) {
	f := rawFile(t)
	f.Snapshots[0].Edges.Target[0] = 7
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	_, err := irstream.Decode(&buf)
	var fe *ir.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "target node 7 out of range") {
		t.Errorf("Decode = %v, want a format error about the edge target", err)
	}
}

// TestDecodePastVersions reads a stream of every earlier schema version,
// kept in testdata/versions as the heapconv of that time wrote it, and
// checks it against the current encoding of the same file.
func TestDecodePastVersions(t *testing.T) {
	tests := []struct {
		file      string
		version   byte
		format    string
		snapshots int
		nodes     int // in the first snapshot
		// section checks the format's sections came through.
		section func(f *ir.File) bool
	}{
		{"testdata/versions/v1-rows.heapir", 1, v8ir.Format, 1, 4, func(f *ir.File) bool { return v8ir.Of(f.Snapshots[0]) != nil }},
		// Written by the version 2 encoder (irtest.Random(7, ...) with
		// every Dart option): it holds a dart record.
		{"testdata/versions/v2-dart.heapir", 2, dartir.Format, 1, 6, func(f *ir.File) bool {
			d := dartir.Of(f.Snapshots[0])
			return d != nil && d.IdentityHashes && d.Padding > 0 && len(d.ZeroRefNode) > 0 && len(d.ExternalNode) > 0
		}},
		// Written by the version 3 encoder: irtest.RandomMoarVM(3,
		// Options{MaxNodes: 4, MaxOutDegree: 2, Snapshots: 2,
		// MaxStringUnits: 4, Strings: AllStrings}, MoarVMOptions{BadRefs:
		// true, Recovery: true}), the first seed with TOCs and boards. It
		// holds both MoarVM records and every MoarVM column.
		{"testdata/versions/v3-moarvm.heapir", 3, moarvmir.Format, 2, 15, func(f *ir.File) bool {
			m, s := moarvmir.FileOf(f), moarvmir.Of(f.Snapshots[0])
			return m != nil && m.Recovery != nil && len(m.TOCs) == 3 && m.Frames() > 0 && m.EntryCount > 0 &&
				s != nil && s.HasMeta && len(s.TopIDs) > 0 && s.TOFI.Len() == 15 && fuchsiair.FileOf(f) == nil
		}},
		// Written by the version 4 encoder: irtest.RandomFuchsia(4,
		// Options{MinNodes: 1, MaxNodes: 4, Snapshots: 3, MaxStringUnits:
		// 4, Strings: AllStrings}, FuchsiaEverything()), the first seed
		// from 1 with threads, stacks and a thread column in every
		// process, contents in two, derived edges, labels, timestamps,
		// interleaved samples and lines. It holds both Fuchsia records and
		// every Fuchsia column; no stream details (version 5).
		{"testdata/versions/v4-fuchsia.heapir", 4, fuchsiair.Format, 3, 3, func(f *ir.File) bool {
			m := fuchsiair.FileOf(f)
			if m == nil || len(m.SampleSnapshot) != 8 || len(m.Locations.Function) == 0 || len(m.SampleTypes) <= 2 {
				return false
			}
			edges, contents, labels := 0, 0, 0
			for _, s := range f.Snapshots {
				x := fuchsiair.Of(s)
				if x == nil || x.Stream != nil || len(x.ThreadName) == 0 || x.Stacks() == 0 || len(x.Timestamp) == 0 {
					return false
				}
				edges += s.Edges.Len()
				contents += len(x.Contents)
				labels += len(x.LabelKey)
			}
			return edges > 0 && contents > 0 && labels > 0 && moarvmir.FileOf(f) == nil
		}},
		// Written by the version 6 encoder from
		// testdata/v8/small/rows.heapsnapshot, when the v8 section was at
		// its version 1: no declared table lengths.
		{"testdata/versions/v6-v8-section-v1.heapir", 6, v8ir.Format, 1, 4, func(f *ir.File) bool {
			v := v8ir.Of(f.Snapshots[0])
			return v != nil && v.Locations.Len() == 4
		}},
		// Written by the version 7 encoder from
		// testdata/v8/small/rows.heapsnapshot: its ids 1, 3, 5, 7 in a
		// delta-coded chunk.
		{"testdata/versions/v7-v8-encoded.heapir", 7, v8ir.Format, 1, 4, func(f *ir.File) bool {
			s := f.Snapshots[0]
			return v8ir.Of(s) != nil && s.Nodes.ID.At(0) == 1 && s.Nodes.ID.At(3) == 7
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if h := ctHeader(tc.version); !bytes.HasPrefix(data, h) {
				t.Fatalf("the sample does not start with the version %d header % x", tc.version, h)
			}
			f, err := irstream.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if f.Format != tc.format || len(f.Snapshots) != tc.snapshots || f.Snapshots[0].Nodes.Len() != tc.nodes {
				t.Fatalf("decoded %s with %d snapshots", f.Format, len(f.Snapshots))
			}
			if !tc.section(f) {
				t.Errorf("the %s section did not come through", tc.format)
			}
			g := roundTrip(t, f)
			if diffs := ir.Diff(f, g, 10); len(diffs) > 0 {
				t.Errorf("re-encoded as version %d, the file differs: %v", ir.Version, diffs)
			}
		})
	}
}

// TestDecodeRefusesLaterSections: a section record is refused in a stream
// of a schema version from before the section existed, and read in the
// version that brought it.
func TestDecodeRefusesLaterSections(t *testing.T) {
	withSnap := func(v uint64) *mp {
		return newMP().head(v).file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(1, 0)
	}
	tests := []struct {
		name    string
		stream  func(version uint64) []byte
		since   uint64
		wantErr string
	}{
		{"dart", func(v uint64) []byte {
			return withSnap(v).arr(2).str("dart").mapn(0).end(1, 1).bytes()
		}, 2, "dart record in a version 1 stream"},
		{"moarvm", validMoarVMStream, 3, "moarvm record in a version %d stream"},
		{"moarvm.snapshot", func(v uint64) []byte {
			return withSnap(v).arr(2).str("moarvm.snapshot").mapn(0).end(1, 1).bytes()
		}, 3, "moarvm.snapshot record in a version %d stream"},
		{"fuchsia", validFuchsiaStream, 4, "fuchsia record in a version %d stream"},
		{"fuchsia.snapshot", func(v uint64) []byte {
			return withSnap(v).arr(2).str("fuchsia.snapshot").mapn(0).end(1, 1).bytes()
		}, 4, "fuchsia.snapshot record in a version %d stream"},
		// Before version 4 the fuchsia record is refused, in version 4
		// the stream details.
		{"fuchsia stream details", validFuchsiaStreamDetails, 5, "in a version %d stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for v := uint64(1); v <= v5; v++ {
				_, err := irstream.Decode(bytes.NewReader(tc.stream(v)))
				if v < tc.since {
					want := tc.wantErr
					if strings.Contains(want, "%d") {
						want = fmt.Sprintf(want, v)
					}
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("version %d: error %v, want %q", v, err, want)
					}
					continue
				}
				// From its version on, the record is read: the stream fails
				// only where the section is incomplete, not on the record.
				if err != nil && strings.Contains(err.Error(), "record in a version") {
					t.Errorf("version %d: %v", v, err)
				}
			}
		})
	}
}

// TestDecodeKeepsMoarVMDetails checks what a field-by-field comparison of
// the MoarVM sections might overlook: absent and empty highscores, absent
// recovery, a pid that is not there.
func TestDecodeKeepsMoarVMDetails(t *testing.T) {
	f := ctMoarVM()
	m := moarvmir.FileOf(f)
	m.HasPID, m.PID = false, 0
	m.Recovery = nil
	m.DataOrder = []string{"only", "é\xff"}
	moarvmir.Of(f.Snapshots[0]).TopIDs, moarvmir.Of(f.Snapshots[0]).TopScores = nil, nil
	moarvmir.Of(f.Snapshots[1]).TopIDs, moarvmir.Of(f.Snapshots[1]).TopScores = []uint64{}, []uint64{}
	moarvmir.Of(f.Snapshots[2]).TopIDs, moarvmir.Of(f.Snapshots[2]).TopScores = []uint64{1 << 63, 0}, []uint64{math.MaxUint64, 7}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	g := roundTrip(t, f)
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
	}
	gm := moarvmir.FileOf(g)
	if gm.HasPID || gm.Recovery != nil || len(gm.DataOrder) != 2 || gm.DataOrder[1] != "é\xff" {
		t.Errorf("file section: has pid %v, recovery %v, data order %q", gm.HasPID, gm.Recovery, gm.DataOrder)
	}
	if s := moarvmir.Of(g.Snapshots[0]); s.TopIDs != nil || s.TopScores != nil {
		t.Errorf("absent highscores came back as %v %v", s.TopIDs, s.TopScores)
	}
	if s := moarvmir.Of(g.Snapshots[1]); s.TopIDs == nil || s.TopScores == nil || len(s.TopIDs) != 0 {
		t.Errorf("empty highscores came back as %v %v", s.TopIDs, s.TopScores)
	}
	if s := moarvmir.Of(g.Snapshots[2]); s.TopIDs[0] != 1<<63 || s.TopScores[0] != math.MaxUint64 {
		t.Errorf("highscores came back as %v %v", s.TopIDs, s.TopScores)
	}
	for i, s := range g.Snapshots {
		if dartir.Of(s) != nil || v8ir.Of(s) != nil {
			t.Errorf("snapshot %d gained a section", i)
		}
	}
}

// TestDiffMoarVM: Diff notices a change to any field of the MoarVM
// sections, and nothing in an unchanged copy.
func TestDiffMoarVM(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *ir.File)
		want   string
	}{
		{"section dropped", func(f *ir.File) { f.Sections = nil }, "1 sections != 0"},
		{"version", func(f *ir.File) { moarvmir.FileOf(f).Version = 2 }, "field version"},
		{"has meta", func(f *ir.File) { moarvmir.FileOf(f).HasMeta = false }, "has_meta"},
		{"subversion", func(f *ir.File) { moarvmir.FileOf(f).Subversion++ }, "subversion"},
		{"start time", func(f *ir.File) { moarvmir.FileOf(f).StartTime++ }, "start_time"},
		{"pid", func(f *ir.File) { moarvmir.FileOf(f).PID++ }, "pid"},
		{"has pid", func(f *ir.File) { moarvmir.FileOf(f).HasPID = !moarvmir.FileOf(f).HasPID }, "pid"},
		{"entry count", func(f *ir.File) { moarvmir.FileOf(f).EntryCount++ }, "entry_count"},
		{"data order", func(f *ir.File) { moarvmir.FileOf(f).DataOrder[1] = "x" }, "data_order"},
		{"string count", func(f *ir.File) { moarvmir.FileOf(f).StringCount-- }, "string_count"},
		{"frame name", func(f *ir.File) { moarvmir.FileOf(f).FrameName[0]++ }, "moarvm.frame.name"},
		{"frame cuid", func(f *ir.File) { moarvmir.FileOf(f).FrameCUID[0]++ }, "moarvm.frame.cuid"},
		{"frame line", func(f *ir.File) { moarvmir.FileOf(f).FrameLine[0]++ }, "moarvm.frame.line"},
		{"frame file", func(f *ir.File) { moarvmir.FileOf(f).FrameFile[0]++ }, "moarvm.frame.file"},
		{"toc count", func(f *ir.File) { moarvmir.FileOf(f).TOCs = moarvmir.FileOf(f).TOCs[1:] }, "field tocs"},
		{"toc strings", func(f *ir.File) { moarvmir.FileOf(f).TOCs[0].NewStrings++ }, "field tocs"},
		{"toc types", func(f *ir.File) { moarvmir.FileOf(f).TOCs[1].NewTypes++ }, "field tocs"},
		{"toc frames", func(f *ir.File) { moarvmir.FileOf(f).TOCs[0].NewFrames++ }, "field tocs"},
		{"toc blocks", func(f *ir.File) { moarvmir.FileOf(f).TOCs[0].Blocks[0] = "x" }, "field tocs"},
		{"recovery dropped", func(f *ir.File) { moarvmir.FileOf(f).Recovery = nil }, "field recovery"},
		{"recovery damage", func(f *ir.File) { moarvmir.FileOf(f).Recovery.DamageAt++ }, "recovery"},
		{"recovery reason", func(f *ir.File) { moarvmir.FileOf(f).Recovery.Reason += "!" }, "recovery"},
		{"recovery lost", func(f *ir.File) { moarvmir.FileOf(f).Recovery.Lost++ }, "recovery"},
		{"snapshot section dropped", func(f *ir.File) { f.Snapshots[1].Sections = nil }, "snapshot 1: 1 sections != 0"},
		{"snapmeta", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).HasMeta = false }, "has_meta"},
		{"snap time", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).SnapTime++ }, "snap_time"},
		{"gc seq num", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).GCSeqNum++ }, "gc_seq_num"},
		{"tofi", func(f *ir.File) { moarvmir.Of(f.Snapshots[2]).TOFI.Set(3, 99) }, "snapshot 2: moarvm.node.tofi"},
		{"ref start", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).RefStart.Set(0, 1) }, "moarvm.node.ref_start"},
		{"highscores dropped", func(f *ir.File) {
			moarvmir.Of(f.Snapshots[0]).TopIDs, moarvmir.Of(f.Snapshots[0]).TopScores = nil, nil
		}, "field highscores"},
		{"highscores emptied", func(f *ir.File) {
			moarvmir.Of(f.Snapshots[0]).TopIDs, moarvmir.Of(f.Snapshots[0]).TopScores = []uint64{}, []uint64{}
		}, "moarvm.top.ids"},
		{"top id", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).TopIDs[0]++ }, "moarvm.top.ids"},
		{"top score", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).TopScores[0]++ }, "moarvm.top.scores"},
	}
	// The first seed whose file has TOCs (a recovered file may have lost
	// them) and non-empty boards.
	base := func() *ir.File {
		for seed := int64(0); ; seed++ {
			f := irtest.RandomMoarVM(seed, irtest.Options{MinNodes: 4, MaxNodes: 8, Snapshots: 3}, irtest.MoarVMOptions{Recovery: true})
			if len(moarvmir.FileOf(f).TOCs) > 0 && moarvmir.FileOf(f).EntryCount > 0 {
				return f
			}
		}
	}
	if d := ir.Diff(base(), base(), 0); len(d) > 0 {
		t.Fatalf("an unchanged copy differs: %v", d)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := base(), base()
			tc.change(b)
			d := ir.Diff(a, b, 0)
			if len(d) == 0 {
				t.Fatal("no difference found")
			}
			if !strings.Contains(strings.Join(d, "\n"), tc.want) {
				t.Errorf("differences %q do not mention %q", d, tc.want)
			}
		})
	}
}

// TestDecodeWideChunks: a chunk may hold up to 512 KiB of values of any
// width, more than the 65536 values heapconv writes a chunk: a snapshot of
// 70,000 nodes whose columns come in one chunk of a byte per value each.
func TestDecodeWideChunks(t *testing.T) {
	const n = 70_000
	empty := &ir.File{Snapshots: []*ir.Snapshot{{}}}
	decls := func(b *ir.Bindings) []any {
		out := []any{}
		for _, c := range b.Columns() {
			if !c.Optional {
				out = append(out, []any{c.Decl.Name, string(c.Decl.Type), c.Decl.Table, c.Decl.Of})
			}
		}
		return out
	}
	records := []any{
		[]any{"heapir", ir.Version},
		[]any{"file", map[string]any{"format": "x", "strings": 1, "snapshots": 1}, decls(ir.FileBindings(empty))},
		[]any{"strings", []any{""}},
		[]any{"snapshot", map[string]any{"node_kinds": []any{"a"}, "root": -1, "nodes": n}, decls(ir.SnapshotBindings(empty.Snapshots[0]))},
	}
	for _, c := range []string{"node.kind", "node.name", "node.id", "node.self_size", "node.edge_count"} {
		records = append(records, []any{"col", 0, c, 1, make([]byte, n)})
	}
	records = append(records, []any{"end", map[string]any{"strings": 1, "snapshots": 1}})
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := irstream.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Snapshots[0].Nodes.Len(); got != n {
		t.Errorf("%d nodes, want %d", got, n)
	}
}
