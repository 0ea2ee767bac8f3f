package irstream_test

import (
	"bytes"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// msg encodes one value as msgpack.
func msg(t *testing.T, v any) []byte {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawFile is a graph of three nodes whose file and snapshot hold sections
// no package registered: fields of several msgpack types, and columns of
// every type, of the core's tables and of their own.
func rawFile(t *testing.T) *ir.File {
	f := &ir.File{Format: "test", Strings: []string{"", "a", "b"}}
	s := &ir.Snapshot{Root: 0, NodeKinds: []string{"object"}, EdgeKinds: []ir.EdgeKind{{Name: "property"}}}
	s.Nodes = ir.Nodes{Kind: make([]uint8, 3), Name: []uint32{0, 1, 2}, ID: ir.UintsOf(1, 2, 3), SelfSize: ir.UintsOf(8, 8, 8),
		FirstEdge: []uint32{0, 1, 1, 1}}
	s.Edges = ir.Edges{Kind: []uint8{0}, Name: []uint32{1}, Target: []uint32{2}}
	f.Sections = []ir.Section{&ir.RawSection{Name: "later.file", Version: 1,
		Fields:  []ir.RawField{{Key: "n", Value: msg(t, uint64(1<<63))}, {Key: "list", Value: msg(t, []any{"x", 1.5, nil, true})}},
		Columns: []ir.RawColumn{{Decl: ir.ColumnDecl{Name: "later.file.x", Type: ir.TypeString, Table: "later.file.t"}, Values: ir.UintsOf(1, 2)}}}}
	s.Sections = []ir.Section{&ir.RawSection{Name: "later.snapshot", Version: 7,
		Fields: []ir.RawField{{Key: "bin", Value: msg(t, []byte{0xff, 0})}, {Key: "map", Value: msg(t, map[string]int{"k": -3})}},
		Columns: []ir.RawColumn{
			{Decl: ir.ColumnDecl{Name: "later.node", Type: ir.TypeUint, Table: ir.TableNode}, Values: ir.UintsOf(0, 1<<40, 7)},
			{Decl: ir.ColumnDecl{Name: "later.edge", Type: ir.TypeInt, Table: ir.TableEdge}, Values: ir.UintsOf(5)},
			{Decl: ir.ColumnDecl{Name: "later.size", Type: ir.TypeCount, Table: ir.TableNode, Of: "later.bytes"}, Values: ir.UintsOf(2, 0, 1)},
			{Decl: ir.ColumnDecl{Name: "later.bytes", Type: ir.TypeBytes, Table: "later.bytes"}, Bytes: []byte{1, 2, 3}},
			{Decl: ir.ColumnDecl{Name: "later.ref", Type: ir.TypeIndex, Table: "later.ref", Of: ir.TableNode}, Values: ir.UintsOf(2, 0)},
			{Decl: ir.ColumnDecl{Name: "later.ref1", Type: ir.TypeIndex1, Table: "later.ref", Of: "later.file.t"}, Values: ir.UintsOf(0, 2)},
		}}}
	f.Snapshots = []*ir.Snapshot{s}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestUnknownSectionsKept: sections no package registered, and sections
// of a version newer than the registered one reads, decode as RawSection
// and are written back byte for byte; the generic rules still hold them,
// and a conversion names them as lost.
func TestUnknownSectionsKept(t *testing.T) {
	f := rawFile(t)
	// A Dart section of a version this program does not read.
	later := &ir.RawSection{Name: dartir.SectionName, Version: 2, Fields: []ir.RawField{{Key: "new", Value: msg(t, "field")}}}
	f.Snapshots[0].Sections = append(f.Snapshots[0].Sections, later)
	var first bytes.Buffer
	if err := irstream.Encode(&first, f); err != nil {
		t.Fatal(err)
	}
	g, err := irstream.Decode(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		t.Errorf("the unknown sections changed: %v", d)
	}
	for _, x := range append(slices.Clone(g.Sections), g.Snapshots[0].Sections...) {
		if _, ok := x.(*ir.RawSection); !ok {
			t.Errorf("section %s decoded as a %T", x.SectionName(), x)
		}
	}
	if !reflect.DeepEqual(g.Snapshots[0].Sections[0], f.Snapshots[0].Sections[0]) {
		t.Errorf("decoded %+v, want %+v", g.Snapshots[0].Sections[0], f.Snapshots[0].Sections[0])
	}
	var again bytes.Buffer
	if err := irstream.Encode(&again, g); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), again.Bytes()) {
		t.Error("written again, the stream differs")
	}
	loss := ir.SectionLoss(g, g.Snapshots[0], ir.Target{Format: "v8", Name: "a V8 snapshot"})
	if l, _ := loss.Get(ir.LossUnknownSections); l.Count != 2 {
		t.Errorf("loss report %v, want the two unknown sections of the snapshot", loss)
	}

	// What the declarations say is checked in a section nobody knows.
	for _, c := range []struct {
		name   string
		change func(r *ir.RawSection)
		want   string
	}{
		{"a node column too short", func(r *ir.RawSection) { r.Columns[0].Values = ir.UintsOf(1) }, "later.node has 1 values for the 3 entries of table node"},
		{"counts not adding up", func(r *ir.RawSection) { r.Columns[3].Bytes = r.Columns[3].Bytes[:2] }, "later.size counts 3 entries; there are 2"},
		{"a node index out of range", func(r *ir.RawSection) { r.Columns[4].Values = ir.UintsOf(3, 0) }, "later.ref: value 3 at 0 is out of range"},
		{"a file table index out of range", func(r *ir.RawSection) { r.Columns[5].Values = ir.UintsOf(3, 0) }, "later.ref1: value 3 at 0 is out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := rawFile(t)
			c.change(f.Snapshots[0].Sections[0].(*ir.RawSection))
			if err := f.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v, want %q", err, c.want)
			}
		})
	}
}

// TestOldSectionColumns: the sections declare, in version 1, exactly the
// columns the records of schema versions 1 to 5 had (decode_v5.go's
// frozen list), so that an old stream's columns read into them.
func TestOldSectionColumns(t *testing.T) {
	stream := &fuchsiair.Snapshot{Stream: &fuchsiair.Stream{}}
	for _, c := range []struct {
		name string
		x    ir.Section
		old  []string // the old record types whose columns it has
	}{
		{"v8", &v8ir.Snapshot{}, []string{"v8"}},
		{"dart", &dartir.Snapshot{}, []string{"dart"}},
		{"moarvm", &moarvmir.File{}, []string{"moarvm"}},
		{"moarvm.snapshot", &moarvmir.Snapshot{}, []string{"moarvm.snapshot"}},
		{"fuchsia", &fuchsiair.File{}, []string{"fuchsia"}},
		{"fuchsia.snapshot", &fuchsiair.Snapshot{}, []string{"fuchsia.snapshot"}},
		{"fuchsia.snapshot with stream details", stream, []string{"fuchsia.snapshot", "fuchsia.stream"}},
	} {
		var want []ir.ColumnDecl
		for _, o := range c.old {
			want = append(want, irstream.OldSectionColumns(o)...)
		}
		b := &ir.Bindings{Version: 1}
		c.x.Bind(b)
		var got []ir.ColumnDecl
		for _, col := range b.Columns() {
			got = append(got, col.Decl)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s declares\n%v\nthe old streams had\n%v", c.name, got, want)
		}
	}
}

// TestEncodeRefusesWhatDecodeRefuses: a file the decoder would refuse for
// its sizes is not written.
func TestEncodeRefusesWhatDecodeRefuses(t *testing.T) {
	deep := ir.JSON{}
	for range 70 {
		deep = ir.JSON{Kind: ir.JSONArray, Elems: []ir.JSON{deep}}
	}
	for _, c := range []struct {
		name   string
		change func(f *ir.File)
	}{
		{"a long format name", func(f *ir.File) { f.Format = strings.Repeat("x", 65) }},
		{"a long node kind", func(f *ir.File) { f.Snapshots[0].NodeKinds[0] = strings.Repeat("k", 1025) }},
		{"300 edge kinds", func(f *ir.File) { f.Snapshots[0].EdgeKinds = make([]ir.EdgeKind, 300) }},
		{"a total's long name", func(f *ir.File) { f.Snapshots[0].Totals = []ir.Total{{Name: strings.Repeat("t", 257)}} }},
		{"a V8 header nested 70 deep", func(f *ir.File) {
			f.Snapshots[0].Sections = []ir.Section{&v8ir.Snapshot{Header: ir.JSON{Kind: ir.JSONObject, Fields: []ir.JSONField{{Key: "x", Value: deep}}}}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := rawFile(t)
			c.change(f)
			if err := irstream.Encode(&bytes.Buffer{}, f); err == nil || !strings.Contains(err.Error(), "cannot encode") {
				t.Errorf("Encode = %v, want a refusal", err)
			}
		})
	}
}

// TestDeclaredTableSizes: the v8 section declares the lengths of its own
// tables, and a stream whose column holds more or fewer values than its
// declared length is refused; a lying length allocates no more than the
// stream justifies.
func TestDeclaredTableSizes(t *testing.T) {
	f := ctFull()
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	// ctFull's locations are 10 values, declared as positive fixint 10.
	key := msg(t, "locations_len")
	at := bytes.Index(good, append(key, 10))
	if at < 0 || bytes.Count(good, append(key, 10)) != 1 {
		t.Fatalf("the stream does not declare locations_len 10 once")
	}
	at += len(key)
	with := func(n uint64) []byte {
		return slices.Concat(good[:at], msg(t, n), good[at+1:])
	}
	if g, err := irstream.Decode(bytes.NewReader(with(10))); err != nil || ir.Diff(f, g, 3) != nil {
		t.Fatalf("the stream as written: %v", err)
	}
	for _, c := range []struct {
		name string
		n    uint64
		want string
	}{
		{"fewer", 8, "column v8.locations: more values than its table has entries (8)"},
		{"more", 12, "column v8.locations holds 10 values for the 12 entries of table v8.locations"},
		{"2^40", 1 << 40, "column v8.locations holds 10 values for the 1099511627776 entries"},
		{"2^64-1", math.MaxUint64, "column v8.locations holds 10 values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			data := with(c.n)
			// Knowing the stream's size, the decoder allocates declared
			// tables whole, within a budget of the size.
			_, err := irstream.DecodeWith(bytes.NewReader(data), irstream.DecodeOptions{Size: int64(len(data))})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Decode = %v, want %q", err, c.want)
			}
			if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
				t.Errorf("decoding %d bytes allocated %d MiB", len(good), d>>20)
			}
		})
	}
	// Without the key, the length is 0, like any key a record does not
	// have: the section's map (fixmap 0x8a, six fields and four sizes)
	// loses an entry.
	head := slices.Concat(msg(t, "section"), msg(t, 1), msg(t, "v8"), msg(t, 2), []byte{0x8a})
	h := bytes.Index(good, head)
	if h < 0 || h > at {
		t.Fatalf("no v8 section record of snapshot 1 with ten fields")
	}
	miss := slices.Concat(good[:h+len(head)-1], []byte{0x89}, good[h+len(head):at-len(key)], good[at+1:])
	want := "column v8.locations: more values than its table has entries (0)"
	if _, err := irstream.Decode(bytes.NewReader(miss)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("without locations_len: %v, want %q", err, want)
	}
}
