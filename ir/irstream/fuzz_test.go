package irstream_test

// This file is in package ir_test: ir/irtest imports ir.

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irstream"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
)

// fuzzGraphs are small random files of every shape, for the seed corpus.
func fuzzGraphs() []*ir.File {
	v8 := &irtest.V8Options{Layout: v8ir.LayoutRows, TraceNodeID: true, Detachedness: true, EdgeExtra: true,
		Trace: true, Locations: true, ExtraNativeBytes: true, ExtraKeys: true}
	opts := []irtest.Options{
		{MaxNodes: 4, MaxStringUnits: 6},
		{MinNodes: 0, MaxNodes: 0, MaxStringUnits: 2},
		{MaxNodes: 6, MaxStringUnits: 6, Classes: true, ExternalSizes: true, Values: true, GCRoots: true, Totals: true,
			Snapshots: 2, Kinds: irtest.KindsMixed, IDs: irtest.IDsAny, BigSizes: true, Strings: irtest.AllStrings},
		{MaxNodes: 5, MaxStringUnits: 6, Kinds: irtest.KindsCustom, Strings: irtest.AllStrings, V8: v8},
		{MaxNodes: 5, MaxStringUnits: 6, Strings: irtest.AllStrings, Dart: &irtest.DartOptions{Hashes: true,
			Padding: true, ZeroRefs: true, External: true, Data: true}},
	}
	var fs []*ir.File
	for i, o := range opts {
		fs = append(fs, irtest.Random(int64(i), o))
	}
	// Snapshots stored against a base, in a series.
	vo := irtest.V8Shaped(3, 6)
	vo.V8 = &irtest.V8Options{Layout: v8ir.LayoutRows, TraceNodeID: true, EdgeExtra: true}
	a := irtest.Random(9, vo)
	r := rand.New(rand.NewPCG(9, 9))
	b := *a
	b.Snapshots = []*ir.Snapshot{irstream.Evolve(a.Snapshots[0], r)}
	if series, err := ir.JoinSeries(a, &b); err == nil {
		fs = append(fs, series)
	}
	fs = append(fs,
		irtest.RandomMoarVM(1, irtest.Options{MaxNodes: 4, MaxOutDegree: 3, Snapshots: 2, MaxStringUnits: 6, Strings: irtest.AllStrings},
			irtest.MoarVMOptions{BadRefs: true, Recovery: true}),
		irtest.RandomMoarVM(2, irtest.Options{MaxNodes: 3, MaxStringUnits: 4}, irtest.MoarVMOptions{V2: true}),
		irtest.RandomFuchsia(1, irtest.Options{MinNodes: 1, MaxNodes: 3, Snapshots: 2, MaxStringUnits: 4, Strings: irtest.AllStrings},
			irtest.FuchsiaEverything()),
		irtest.RandomFuchsia(2, irtest.Options{MaxNodes: 3, MaxStringUnits: 4}, irtest.FuchsiaOptions{Symbolized: true}),
		irtest.RandomFuchsia(3, irtest.Options{MinNodes: 1, MaxNodes: 3, Snapshots: 2, MaxStringUnits: 4, Strings: irtest.AllStrings},
			irtest.FuchsiaStreamEverything()))
	return fs
}

func encode(t testing.TB, f *ir.File, zstd bool) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	if zstd {
		err = irstream.EncodeZstd(&b, f)
	} else {
		err = irstream.Encode(&b, f)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzDecode: Decode never panics, and a file it returns re-encodes and
// decodes to the same file.
// FuzzDecodeSnapshot reads one snapshot of any bytes taken for a
// .heapir.zst: an error or a valid file, never a panic, and for a stream
// the whole decoder reads, the snapshot it selects.
func FuzzDecodeSnapshot(f *testing.F) {
	for _, g := range fuzzGraphs() {
		b := encode(f, g, true)
		f.Add(b, uint8(0))
		f.Add(b, uint8(len(g.Snapshots)-1))
		f.Add(b[:len(b)-5], uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		g, err := irstream.DecodeSnapshot(bytes.NewReader(data), int64(len(data)), int(n))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("DecodeSnapshot returned an invalid file: %v", err)
		}
		whole, err := irstream.Decode(bytes.NewReader(data))
		if err != nil {
			return // the snapshot needs less than the whole stream
		}
		want, err := whole.Select(int(n))
		if err != nil {
			t.Fatalf("DecodeSnapshot read snapshot %d, which the whole stream does not have: %v", n, err)
		}
		if d := ir.Diff(want, g, 5); len(d) > 0 {
			t.Fatalf("snapshot %d alone differs from the whole stream's:\n%s", n, strings.Join(d, "\n"))
		}
	})
}

func FuzzDecode(f *testing.F) {
	for i, g := range fuzzGraphs() {
		b := encode(f, g, false)
		f.Add(b)
		for _, cut := range []int{8, len(b) / 2, len(b) - 1} {
			f.Add(b[:cut])
		}
		if i == 0 {
			f.Add(encode(f, g, true))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := irstream.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("Decode returned an invalid file: %v", err)
		}
		b := encode(t, g, false)
		h, err := irstream.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("decoding a re-encoded file: %v", err)
		}
		if d := ir.Diff(g, h, 10); len(d) > 0 {
			t.Fatalf("re-encoded file differs:\n%s", strings.Join(d, "\n"))
		}
		if c := encode(t, h, false); !bytes.Equal(b, c) {
			t.Fatalf("encoding is not deterministic")
		}
	})
}

// v5 is the last schema version whose records the hand-built streams
// below have: version 6 declares columns in its records, the old
// versions' records are read by the decoder's conversion (decode_v5.go),
// which these streams attack.
const v5 = 5

// mp builds msgpack streams by hand, including headers that lie.
type mp struct {
	b bytes.Buffer
	e *msgpack.Encoder
}

func newMP() *mp {
	m := &mp{}
	m.e = msgpack.NewEncoder(&m.b)
	m.e.UseCompactInts(true)
	return m
}

func (m *mp) arr(n int) *mp     { m.e.EncodeArrayLen(n); return m }
func (m *mp) mapn(n int) *mp    { m.e.EncodeMapLen(n); return m }
func (m *mp) str(s string) *mp  { m.e.EncodeString(s); return m }
func (m *mp) uint(v uint64) *mp { m.e.EncodeUint(v); return m }
func (m *mp) int(v int64) *mp   { m.e.EncodeInt(v); return m }
func (m *mp) bin(b []byte) *mp  { m.e.EncodeBytes(b); return m }
func (m *mp) raw(b ...byte) *mp { m.b.Write(b); return m }

// head writes the stream header.
func (m *mp) head(version uint64) *mp { return m.arr(2).str("heapir").uint(version) }

// file writes a file record.
func (m *mp) file(strs, snaps uint64) *mp {
	return m.arr(2).str("file").mapn(6).
		str("format").str("test").str("format_version").str("").str("producer").str("").
		str("strings").uint(strs).str("classes").uint(0).str("snapshots").uint(snaps)
}

// snapshot writes a snapshot record declaring the given counts.
func (m *mp) snapshot(nodes, edges uint64) *mp {
	return m.arr(2).str("snapshot").mapn(7).str("node_kinds").arr(1).str("k").
		str("name").uint(0).str("root").int(-1).str("nodes").uint(nodes).str("edges").uint(edges).
		str("values").uint(0).str("roots").uint(0)
}

func (m *mp) col(snap int64, name string, width uint64, data []byte) *mp {
	return m.arr(5).str("col").int(snap).str(name).uint(width).bin(data)
}

func (m *mp) zeros(snap int64, name string, n uint64) *mp {
	return m.arr(4).str("zeros").int(snap).str(name).uint(n)
}

func (m *mp) end(strs, snaps uint64) *mp {
	return m.arr(2).str("end").mapn(2).str("strings").uint(strs).str("snapshots").uint(snaps)
}

func (m *mp) bytes() []byte { return m.b.Bytes() }

// moarvmHead writes a file record for one string and one snapshot, then a
// moarvm record whose map holds n entries: the caller writes them.
func (m *mp) moarvmHead(n int) *mp { return m.file(1, 1).arr(2).str("moarvm").mapn(n) }

// moarvmFields writes the fields of a valid moarvm record for one snapshot
// adding one string and no types or frames (11 map entries).
func (m *mp) moarvmFields() *mp {
	m.str("version").int(3).str("has_meta").raw(0xc3).str("subversion").uint(1).str("start_time").uint(5).
		str("pid").uint(7).str("has_pid").raw(0xc3).str("entry_count").uint(1).
		str("data_order").arr(1).str("types_by_count").str("string_count").uint(1)
	m.str("tocs").arr(2).arr(4).uint(1).uint(0).uint(0).arr(1).str("strings").arr(4).uint(0).uint(0).uint(0).arr(0)
	return m.str("recovery").raw(0xc0)
}

// moarvmSnap writes the strings, the snapshot record of one node and its
// moarvm.snapshot record with highscores.
func (m *mp) moarvmSnap() *mp {
	return m.arr(2).str("strings").arr(1).str("").snapshot(1, 0).
		arr(2).str("moarvm.snapshot").mapn(4).str("has_meta").raw(0xc3).str("snap_time").uint(9).
		str("gc_seq_num").uint(1).str("highscores").raw(0xc3)
}

// moarvmNodes writes the node columns of moarvmSnap's one node.
func (m *mp) moarvmNodes() *mp {
	return m.col(0, "node.kind", 1, []byte{0}).col(0, "node.name", 4, []byte{0, 0, 0, 0}).
		zeros(0, "node.id", 1).zeros(0, "node.self_size", 1).col(0, "node.edge_count", 4, []byte{0, 0, 0, 0})
}

// validMoarVMStream is a small valid stream with both MoarVM records and
// every MoarVM column but the frames'.
func validMoarVMStream(version uint64) []byte {
	return newMP().head(version).moarvmHead(11).moarvmFields().moarvmSnap().moarvmNodes().
		zeros(0, "moarvm.node.tofi", 1).col(0, "moarvm.node.ref_start", 1, []byte{0}).
		col(0, "moarvm.top.ids", 8, make([]byte, 8)).col(0, "moarvm.top.scores", 8, make([]byte, 8)).
		end(1, 1).bytes()
}

// fuchsiaHead writes a file record for one string and one snapshot, then a
// fuchsia record whose map holds n entries: the caller writes them.
func (m *mp) fuchsiaHead(n int) *mp { return m.file(1, 1).arr(2).str("fuchsia").mapn(n) }

// fuchsiaFields writes the fields of a valid fuchsia record (2 map
// entries): two sample types, no optional columns.
func (m *mp) fuchsiaFields() *mp {
	return m.str("sample_types").arr(2).arr(2).uint(0).uint(0).arr(2).uint(0).uint(0).str("columns").arr(0)
}

// fuchsiaSnap writes the strings, the snapshot record of n nodes and its
// fuchsia.snapshot record listing the optional columns cols.
func (m *mp) fuchsiaSnap(n uint64, cols ...string) *mp {
	m.arr(2).str("strings").arr(1).str("").snapshot(n, 0).arr(2).str("fuchsia.snapshot").mapn(1).str("columns").arr(len(cols))
	for _, c := range cols {
		m.str(c)
	}
	return m
}

// validFuchsiaStream is a small valid stream with both Fuchsia records:
// one node of one stack of no frames.
func validFuchsiaStream(version uint64) []byte {
	return newMP().head(version).fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.stack.size").moarvmNodes().
		col(0, "fuchsia.node.count", 1, []byte{1}).col(0, "fuchsia.node.flags", 1, []byte{0}).
		col(0, "fuchsia.node.stack", 4, make([]byte, 4)).col(0, "fuchsia.stack.size", 4, make([]byte, 4)).
		end(1, 1).bytes()
}

// fuchsiaStreamSnap is fuchsiaSnap with the stream details declared
// ("stream": true).
func (m *mp) fuchsiaStreamSnap(n uint64, cols ...string) *mp {
	m.arr(2).str("strings").arr(1).str("").snapshot(n, 0).arr(2).str("fuchsia.snapshot").mapn(2).str("stream").raw(0xc3).
		str("columns").arr(len(cols))
	for _, c := range cols {
		m.str(c)
	}
	return m
}

// fuchsiaStreamNodes writes the node and Fuchsia columns of
// fuchsiaStreamSnap's one node: an allocation of no bytes with its size
// as the bytes label, of stack 0 (of no frames), whose stack table is
// declared.
func (m *mp) fuchsiaStreamNodes() *mp {
	return m.moarvmNodes().col(0, "fuchsia.node.count", 1, []byte{1}).col(0, "fuchsia.node.flags", 1, []byte{fuchsiair.FlagBytes}).
		col(0, "fuchsia.node.stack", 4, make([]byte, 4)).col(0, "fuchsia.stack.size", 4, make([]byte, 4))
}

// validFuchsiaStreamDetails is a small valid stream with stream details:
// one Allocation and one StackTrace chunk in one batch.
func validFuchsiaStreamDetails(version uint64) []byte {
	return newMP().head(version).fuchsiaHead(2).fuchsiaFields().fuchsiaStreamSnap(1, "fuchsia.stack.size").fuchsiaStreamNodes().
		col(0, "fuchsia.stream.records", 1, []byte{fuchsiair.RecordAllocation, fuchsiair.RecordStackTrace, fuchsiair.RecordEndOfBatch}).
		col(0, "fuchsia.stream.alloc_fields", 1, []byte{fuchsiair.AllocSize | fuchsiair.AllocStackKey}).
		col(0, "fuchsia.stream.stack_key", 1, []byte{7}).col(0, "fuchsia.stream.stack_chunk_stack", 4, make([]byte, 4)).
		col(0, "fuchsia.stream.stack_chunk_size", 4, make([]byte, 4)).end(1, 1).bytes()
}

// validStream is a small valid stream built by hand: the base the hostile
// cases below change.
func validStream() []byte {
	return newMP().head(v5).file(1, 1).arr(2).str("strings").arr(1).str("").
		snapshot(1, 0).
		arr(2).str("v8").mapn(2).str("header").mapn(0).str("node_extra").arr(1).str("x").
		col(0, "node.kind", 1, []byte{0}).col(0, "node.name", 4, []byte{0, 0, 0, 0}).
		zeros(0, "node.id", 1).zeros(0, "node.self_size", 1).col(0, "node.edge_count", 4, []byte{0, 0, 0, 0}).
		col(0, "v8.node.x", 1, []byte{7}).
		end(1, 1).bytes()
}

// TestHostileStreams feeds crafted streams whose headers claim huge sizes:
// each must fail with an error, without allocating by what it claims.
func TestHostileStreams(t *testing.T) {
	head := func() *mp { return newMP().head(v5) }
	// fx and fx4 start a stream of version 5 or 4 with a valid fuchsia
	// record, for one string and one snapshot.
	fx := func() *mp { return head().fuchsiaHead(2).fuchsiaFields() }
	fx4 := func() *mp { return newMP().head(4).fuchsiaHead(2).fuchsiaFields() }
	withSnap := func() *mp { return head().file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(1, 0) }
	// extraColumns declares n nodes (backed by n bytes of node.kind, the
	// other core columns zeros) and 256 extra node columns, and has fill
	// write each extra column's records.
	extraColumns := func(n int, fill func(m *mp, name string)) []byte {
		m := head().file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(uint64(n), 0)
		m.arr(2).str("v8").mapn(2).str("header").mapn(0).str("node_extra").arr(256)
		for i := 0; i < 256; i++ {
			m.str("c" + string(rune('A'+i/26)) + string(rune('a'+i%26)))
		}
		for i := 0; i < n; i += 1 << 16 {
			m.col(0, "node.kind", 1, make([]byte, min(1<<16, n-i)))
		}
		for _, c := range []string{"node.name", "node.id", "node.self_size", "node.edge_count"} {
			for k := 0; k < n; k += 1 << 16 {
				m.zeros(0, c, uint64(min(1<<16, n-k)))
			}
		}
		for i := 0; i < 256; i++ {
			fill(m, "v8.node.c"+string(rune('A'+i/26))+string(rune('a'+i%26)))
		}
		return m.end(1, 1).bytes()
	}
	// amplify widens each extra column to 8 bytes by one value and fills
	// it with zeros records: a few dozen bytes of records per column claim
	// 8n bytes each.
	amplify := func(n int, zerosFirst bool) []byte {
		return extraColumns(n, func(m *mp, name string) {
			if !zerosFirst {
				m.col(0, name, 8, []byte{1, 2, 3, 4, 5, 6, 7, 8})
			}
			for k := 1; k < n; k += 1 << 16 {
				m.zeros(0, name, uint64(min(1<<16, n-k)))
			}
			if zerosFirst {
				m.col(0, name, 8, []byte{1, 2, 3, 4, 5, 6, 7, 8})
			}
		})
	}
	cases := []struct {
		name    string
		data    []byte
		wantErr string // a substring of the error
	}{
		{"newer schema version", newMP().head(ir.Version + 1).bytes(), "newer"},
		{"2^32 strings declared", head().file(1<<32, 0).end(0, 0).bytes(), "2^32"},
		{"2^32-1 strings declared, none sent", head().file(1<<32-1, 0).end(0, 0).bytes(), "strings"},
		{"str32 claiming 4 GiB", head().file(1, 0).arr(2).str("strings").arr(1).raw(0xdb, 0xff, 0xff, 0xff, 0xff, 'a', 'b').bytes(), "EOF"},
		{"array32 of 2^32 strings", head().file(1<<32-1, 0).arr(2).str("strings").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"record array32 of 2^32 elements", head().raw(0xdd, 0xff, 0xff, 0xff, 0xff).str("file").bytes(), "file record"},
		{"map32 of 2^32 file fields", head().arr(2).str("file").raw(0xdf, 0xff, 0xff, 0xff, 0xff).bytes(), "map of"},
		{"array32 node kinds", head().file(0, 1).arr(2).str("snapshot").mapn(1).str("node_kinds").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"JSON array32 in the v8 header", withSnap().arr(2).str("v8").mapn(1).str("header").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "JSON array"},
		{"JSON map32 in the v8 header", withSnap().arr(2).str("v8").mapn(1).str("header").raw(0xdf, 0xff, 0xff, 0xff, 0xff).bytes(), "JSON object"},
		{"JSON nested 100000 deep", func() []byte {
			m := withSnap().arr(2).str("v8").mapn(1).str("header")
			for i := 0; i < 100000; i++ {
				m.raw(0x91)
			}
			return m.bytes()
		}(), "deeper"},
		{"bin32 column chunk of 4 GiB", withSnap().arr(5).str("col").int(0).str("node.kind").uint(1).raw(0xc6, 0xff, 0xff, 0xff, 0xff).bytes(), "chunk of"},
		{"bin32 column chunk of 2^31-1 bytes", withSnap().arr(5).str("col").int(0).str("node.id").uint(8).raw(0xc6, 0x7f, 0xff, 0xff, 0xf8).bytes(), "chunk of"},
		{"zeros record of 2^40 values", withSnap().col(0, "node.kind", 1, []byte{0}).zeros(0, "node.id", 1<<40).bytes(), "zeros record"},
		{"zeros on value.node", withSnap().zeros(0, "value.node", 1<<16).bytes(), "zeros"},
		{"zeros on root.node", withSnap().zeros(0, "root.node", 1<<16).bytes(), "zeros"},
		{"zeros on class.name", head().file(0, 0).zeros(-1, "class.name", 1<<16).bytes(), "zeros"},
		{"zeros on v8.trace_tree", withSnap().arr(2).str("v8").mapn(0).zeros(0, "v8.trace_tree", 1<<16).bytes(), "zeros"},
		{"zeros on node.kind", withSnap().zeros(0, "node.kind", 1<<16).bytes(), "column node.kind cannot be stored as zeros"},
		{"zeros on a node column beyond the node count", withSnap().zeros(0, "node.id", 1<<16).bytes(), "more values"},
		{"2^32-2 nodes declared, none sent", head().file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(1<<32-2, 1<<32-1).end(1, 1).bytes(), "column node.kind holds 0 values for the 42949"},
		{"2^32 nodes declared", head().file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(1<<32, 0).bytes(), "2^32"},
		{"2^40 snapshots declared", head().file(0, 1<<40).end(0, 1<<40).bytes(), "snapshots"},
		// About 80 KB declaring 64 Ki nodes: if each of 256 extra columns
		// could hold one 8-byte value and zeros records, it would cost the
		// decoder 8 bytes per node while the input pays one zeros record
		// per 65536 nodes (about 130 MiB here). A column is all zeros
		// records or all values (SPEC.md).
		{"256 extra columns: zeros after a value (64 Ki nodes)", amplify(64<<10, false), "mixes"},
		{"256 extra columns: a value after zeros (64 Ki nodes)", amplify(64<<10, true), "mixes"},
		// Columns of declared tables are allocated whole when the input
		// justifies it (DecodeOptions.Size): a few values in each of 256
		// columns, or one node of 2^31 declared, must not reserve the
		// table for each.
		{"256 extra columns of two values each (64 Ki nodes)", extraColumns(64<<10, func(m *mp, name string) {
			m.col(0, name, 8, []byte{1, 2, 3, 4, 5, 6, 7, 8}).col(0, name, 8, []byte{1, 2, 3, 4, 5, 6, 7, 8})
		}), "holds"},
		{"2^31 nodes declared, one sent", head().file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(1<<31, 0).
			col(0, "node.kind", 1, []byte{0}).col(0, "node.kind", 1, []byte{0}).end(1, 1).bytes(), "holds"},
		{"strings declared at 64 per byte of the stream", func() []byte {
			const decl = 64 * (256<<10 + 64)
			return head().file(decl, 0).arr(2).str("strings").arr(1).str(strings.Repeat("x", 256<<10)).end(decl, 0).bytes()
		}(), "strings"},

		// The MoarVM records: every list is bounded, and appended to as
		// its entries arrive.
		{"moarvm: array32 data order", head().moarvmHead(1).str("data_order").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"moarvm: 65536 data order names claimed, one sent", head().moarvmHead(1).str("data_order").raw(0xdd, 0, 1, 0, 0).str("x").bytes(), "EOF"},
		{"moarvm: str32 data order name of 4 GiB", head().moarvmHead(1).str("data_order").arr(1).raw(0xdb, 0xff, 0xff, 0xff, 0xff, 'a').bytes(), "EOF"},
		{"moarvm: more TOCs than snapshots and a final one", head().moarvmHead(1).str("tocs").raw(0xdd, 0, 0, 0, 3).bytes(), "unexpected EOF in moarvm.tocs"},
		{"moarvm: 2^31-2 TOCs claimed for 2^40 snapshots, none sent", head().file(1, 1<<40).arr(2).str("moarvm").mapn(1).
			str("tocs").raw(0xdd, 0x7f, 0xff, 0xff, 0xfe).bytes(), "JSON array: 2147483646 entries where at most "},
		{"moarvm: TOC of 5 elements", head().moarvmHead(1).str("tocs").arr(1).arr(5).bytes(), "unexpected EOF in moarvm.tocs"},
		{"moarvm: TOC adding 2^32 strings", head().moarvmHead(1).str("tocs").arr(1).arr(4).uint(1 << 32).bytes(), "unexpected EOF in moarvm.tocs"},
		{"moarvm: array32 block names", head().moarvmHead(1).str("tocs").arr(1).arr(4).uint(0).uint(0).uint(0).
			raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"moarvm: 65536 block names claimed, none sent", head().moarvmHead(1).str("tocs").arr(1).arr(4).uint(0).uint(0).uint(0).
			raw(0xdd, 0, 1, 0, 0).bytes(), "EOF"},
		{"moarvm: str32 block name of 4 GiB", head().moarvmHead(1).str("tocs").arr(1).arr(4).uint(0).uint(0).uint(0).arr(1).
			raw(0xdb, 0xff, 0xff, 0xff, 0xff).bytes(), "EOF"},
		{"moarvm: str32 recovery reason of 4 GiB", head().moarvmHead(1).str("recovery").mapn(1).str("reason").
			raw(0xdb, 0xff, 0xff, 0xff, 0xff).bytes(), "EOF"},
		{"moarvm: map32 recovery", head().moarvmHead(1).str("recovery").raw(0xdf, 0xff, 0xff, 0xff, 0xff).bytes(), "JSON object of 4294967295 keys"},
		{"moarvm: negative lost snapshots", head().moarvmHead(1).str("recovery").mapn(1).str("lost").int(-1).end(1, 1).bytes(), "lost"},
		{"moarvm: format version 2^40", head().moarvmHead(1).str("version").int(1 << 40).bytes(), "format version"},
		{"moarvm: string heap beyond the declared strings", head().moarvmHead(1).str("string_count").uint(2).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"moarvm: record before the file record", head().arr(2).str("moarvm").mapn(0).bytes(), "the first record is \"moarvm\": a stream starts"},
		{"moarvm: record after the strings", head().file(1, 0).arr(2).str("strings").arr(1).str("").
			arr(2).str("moarvm").mapn(0).bytes(), "right after the file record"},
		{"moarvm: two records", head().moarvmHead(0).arr(2).str("moarvm").mapn(0).bytes(), "right after the file record"},
		{"moarvm: file record after it", head().moarvmHead(0).file(1, 1).bytes(), "file record"},
		{"moarvm: frame columns without the record", head().file(0, 0).col(-1, "moarvm.frame.name", 4, make([]byte, 4)).bytes(), "column moarvm.frame.name is not declared (in "},
		{"moarvm: zeros on moarvm.frame.name", head().moarvmHead(0).zeros(-1, "moarvm.frame.name", 1<<16).bytes(), "zeros"},
		{"moarvm: frame lines beyond the frames", head().moarvmHead(0).col(-1, "moarvm.frame.name", 4, make([]byte, 4)).
			col(-1, "moarvm.frame.line", 4, make([]byte, 8)).bytes(), "more values"},
		{"moarvm: snapshot record without a snapshot", head().moarvmHead(0).arr(2).str("moarvm.snapshot").mapn(0).bytes(), "moarvm.snapshot record before any snapshot rec"},
		{"moarvm: two snapshot records", head().moarvmHead(11).moarvmFields().moarvmSnap().
			arr(2).str("moarvm.snapshot").mapn(0).bytes(), "section moarvm.snapshot twice"},
		{"moarvm: snapshot record after the node columns", head().moarvmHead(11).moarvmFields().arr(2).str("strings").arr(1).str("").
			snapshot(1, 0).col(0, "node.kind", 1, []byte{0}).arr(2).str("moarvm.snapshot").mapn(0).bytes(), "section moarvm.snapshot of snapshot 0 after t"},
		{"moarvm: TOFIs beyond the nodes", head().moarvmHead(11).moarvmFields().moarvmSnap().moarvmNodes().
			zeros(0, "moarvm.node.tofi", 2).bytes(), "more values"},
		{"moarvm: TOFIs mixing zeros and values", head().moarvmHead(11).moarvmFields().arr(2).str("strings").arr(1).str("").
			snapshot(2, 0).arr(2).str("moarvm.snapshot").mapn(0).col(0, "node.kind", 1, []byte{0, 0}).zeros(0, "moarvm.node.tofi", 1).col(0, "moarvm.node.tofi", 1, []byte{1}).bytes(), "mixes"},
		{"moarvm: zeros on moarvm.top.ids", head().moarvmHead(11).moarvmFields().moarvmSnap().zeros(0, "moarvm.top.ids", 1<<16).bytes(), "column moarvm.top.ids cannot be stored as zer"},
		{"moarvm: top scores beyond the top ids", head().moarvmHead(11).moarvmFields().moarvmSnap().
			col(0, "moarvm.top.scores", 8, make([]byte, 8)).bytes(), "more values"},
		{"moarvm: top ids without highscores", head().moarvmHead(11).moarvmFields().arr(2).str("strings").arr(1).str("").
			snapshot(1, 0).arr(2).str("moarvm.snapshot").mapn(1).str("highscores").raw(0xc2).
			col(0, "moarvm.top.ids", 8, make([]byte, 8)).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"moarvm: snapshot section without the file's", head().file(1, 1).arr(2).str("strings").arr(1).str("").snapshot(1, 0).
			arr(2).str("moarvm.snapshot").mapn(0).moarvmNodes().zeros(0, "moarvm.node.tofi", 1).zeros(0, "moarvm.node.ref_start", 1).
			end(1, 1).bytes(), "without the file's"},

		// The Fuchsia records: every list bounded and appended to as its
		// entries arrive, records in their places, columns bounded by
		// their tables, the contents by their sizes.
		{"fuchsia: array32 sample types", head().fuchsiaHead(1).str("sample_types").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"fuchsia: 65536 sample types claimed, one sent", head().fuchsiaHead(1).str("sample_types").raw(0xdd, 0, 1, 0, 0).
			arr(2).uint(0).uint(0).bytes(), "EOF"},
		{"fuchsia: sample type of 3 elements", head().fuchsiaHead(1).str("sample_types").arr(1).arr(3).bytes(), "unexpected EOF in fuchsia.sample_types"},
		{"fuchsia: period type of 1 element", head().fuchsiaHead(1).str("period_type").arr(1).uint(0).bytes(), "value type"},
		{"fuchsia: sample type string 2^32", head().fuchsiaHead(1).str("sample_types").arr(1).arr(2).uint(1 << 32).bytes(), "unexpected EOF in fuchsia.sample_types"},
		{"fuchsia: array32 comments", head().fuchsiaHead(1).str("comments").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"fuchsia: 65536 comments claimed, none sent", head().fuchsiaHead(1).str("comments").raw(0xdd, 0, 1, 0, 0).bytes(), "EOF"},
		{"fuchsia: comment string 2^32", head().fuchsiaHead(1).str("comments").arr(1).uint(1 << 32).bytes(), "fuchsia.comments: 4294967296 is not a string "},
		{"fuchsia: doc url string 2^40", head().fuchsiaHead(1).str("doc_url").uint(1 << 40).bytes(), "32 bits"},
		{"fuchsia: array32 columns", head().fuchsiaHead(1).str("columns").raw(0xdd, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"fuchsia: str32 column name of 4 GiB", head().fuchsiaHead(1).str("columns").arr(1).raw(0xdb, 0xff, 0xff, 0xff, 0xff).bytes(), "at most"},
		{"fuchsia: map32", head().file(1, 1).arr(2).str("fuchsia").raw(0xdf, 0xff, 0xff, 0xff, 0xff).bytes(), "map of"},
		{"fuchsia: record before the file record", head().arr(2).str("fuchsia").mapn(0).bytes(), "the first record is \"fuchsia\": a stream start"},
		{"fuchsia: record after the strings", head().file(1, 0).arr(2).str("strings").arr(1).str("").
			arr(2).str("fuchsia").mapn(0).bytes(), "right after the file record"},
		{"fuchsia: two records", head().fuchsiaHead(0).arr(2).str("fuchsia").mapn(0).bytes(), "right after the file record"},
		{"fuchsia: moarvm record after it", head().fuchsiaHead(0).arr(2).str("moarvm").mapn(0).bytes(), "right after the file record"},
		{"fuchsia: file record after it", head().fuchsiaHead(0).file(1, 1).bytes(), "file record"},
		{"fuchsia: file columns without the record", head().file(0, 0).col(-1, "fuchsia.mapping.id", 8, make([]byte, 8)).bytes(), "column fuchsia.mapping.id is not declared (in"},
		{"fuchsia: zeros on fuchsia.mapping.id", head().fuchsiaHead(0).zeros(-1, "fuchsia.mapping.id", 1<<16).bytes(), "zeros"},
		{"fuchsia: mapping starts beyond the mappings", head().fuchsiaHead(0).col(-1, "fuchsia.mapping.id", 1, []byte{1}).
			col(-1, "fuchsia.mapping.start", 1, []byte{1, 2}).bytes(), "more values"},
		{"fuchsia: line columns beyond the lines", head().fuchsiaHead(0).col(-1, "fuchsia.line.function", 4, make([]byte, 4)).
			col(-1, "fuchsia.line.line", 8, make([]byte, 16)).bytes(), "more values"},
		{"fuchsia: line counts not declared", head().fuchsiaHead(0).col(-1, "fuchsia.location.id", 1, []byte{1}).
			col(-1, "fuchsia.location.line_count", 4, make([]byte, 4)).bytes(), "not declared"},
		{"fuchsia: line counts missing", head().file(1, 0).arr(2).str("fuchsia").mapn(2).str("sample_types").arr(2).arr(2).uint(0).uint(0).arr(2).uint(0).uint(0).
			str("columns").arr(1).str("fuchsia.location.line_count").col(-1, "fuchsia.location.id", 1, []byte{1}).
			arr(2).str("strings").arr(1).str("").end(1, 0).bytes(), "file: column fuchsia.location.mapping holds 0"},
		{"fuchsia: a folded flag of 2", head().fuchsiaHead(0).col(-1, "fuchsia.location.id", 1, []byte{1}).
			col(-1, "fuchsia.location.folded", 1, []byte{2}).bytes(), "out of range"},
		{"fuchsia: a function name of 2^32", head().fuchsiaHead(0).col(-1, "fuchsia.function.id", 1, []byte{1}).
			col(-1, "fuchsia.function.name", 8, []byte{0, 0, 0, 0, 1, 0, 0, 0}).bytes(), "out of range"},
		{"fuchsia: snapshot record without a snapshot", head().fuchsiaHead(0).arr(2).str("fuchsia.snapshot").mapn(0).bytes(), "fuchsia.snapshot record before any snapshot re"},
		{"fuchsia: two snapshot records", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).
			arr(2).str("fuchsia.snapshot").mapn(0).bytes(), "section fuchsia.snapshot twice"},
		{"fuchsia: snapshot record after the node columns", head().fuchsiaHead(2).fuchsiaFields().arr(2).str("strings").arr(1).str("").
			snapshot(1, 0).col(0, "node.kind", 1, []byte{0}).arr(2).str("fuchsia.snapshot").mapn(0).bytes(), "section fuchsia.snapshot of snapshot 0 after "},
		{"fuchsia: snapshot record after a strings record", newMP().head(v5).file(2, 1).arr(2).str("fuchsia").mapn(0).
			arr(2).str("strings").arr(1).str("").snapshot(0, 0).arr(2).str("strings").arr(1).str("").
			arr(2).str("fuchsia.snapshot").mapn(0).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia: snapshot columns without the record", withSnap().col(0, "node.kind", 1, []byte{0}).
			col(0, "fuchsia.node.count", 1, []byte{1}).bytes(), "column fuchsia.node.count is not declared (in"},
		{"fuchsia: node counts beyond the nodes", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.node.count", 1, []byte{1, 1}).bytes(), "more values"},
		{"fuchsia: node counts mixing zeros and values", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(2).
			col(0, "node.kind", 1, []byte{0, 0}).zeros(0, "fuchsia.node.count", 1).col(0, "fuchsia.node.count", 1, []byte{1}).bytes(), "mixes"},
		{"fuchsia: node flags mixing values and zeros", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(2).
			col(0, "node.kind", 1, []byte{0, 0}).col(0, "fuchsia.node.flags", 1, []byte{1}).zeros(0, "fuchsia.node.flags", 1).bytes(), "mixes"},
		{"fuchsia: zeros on a node column beyond the nodes", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).moarvmNodes().
			zeros(0, "fuchsia.node.stack", 1<<16).bytes(), "more values"},
		{"fuchsia: timestamps not declared", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.node.timestamp", 1, []byte{2}).bytes(), "not declared"},
		{"fuchsia: timestamps declared, none sent", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.timestamp", "fuchsia.stack.size").
			moarvmNodes().col(0, "fuchsia.node.count", 1, []byte{1}).col(0, "fuchsia.node.flags", 1, []byte{0}).
			col(0, "fuchsia.node.stack", 4, make([]byte, 4)).col(0, "fuchsia.stack.size", 4, make([]byte, 4)).end(1, 1).bytes(), "column fuchsia.node.timestamp holds 0 values "},
		{"fuchsia: extra values without extra sample types", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.extra.value", 1, []byte{2}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia: zeros on extra values", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).moarvmNodes().
			zeros(0, "fuchsia.extra.value", 1<<16).bytes(), "zeros"},
		{"fuchsia: zeros on label keys", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).zeros(0, "fuchsia.label.key", 1<<16).bytes(), "zeros"},
		{"fuchsia: a thread bare flag of 2", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).
			col(0, "fuchsia.thread.name", 4, make([]byte, 4)).col(0, "fuchsia.thread.bare", 1, []byte{2}).bytes(), "out of range"},
		{"fuchsia: stack frames without a stack table", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).
			col(0, "fuchsia.stack.location", 4, make([]byte, 4)).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia: contents without sizes", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.contents", 1, []byte{1}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia: contents beyond the sizes", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			col(0, "fuchsia.node.contents_size", 1, []byte{2}).col(0, "fuchsia.contents", 1, []byte{1, 2, 3}).bytes(), "more bytes"},
		{"fuchsia: contents before the sizes", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			col(0, "fuchsia.contents", 1, []byte{1}).bytes(), "more bytes"},
		{"fuchsia: contents of width 8", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			col(0, "fuchsia.node.contents_size", 1, []byte{8}).col(0, "fuchsia.contents", 8, make([]byte, 8)).bytes(), "width"},
		{"fuchsia: bin32 contents chunk of 4 GiB", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			col(0, "fuchsia.node.contents_size", 8, []byte{0, 0, 0, 0, 0, 0, 0, 1}).
			arr(5).str("col").int(0).str("fuchsia.contents").uint(1).raw(0xc6, 0xff, 0xff, 0xff, 0xff).bytes(), "chunk of"},
		{"fuchsia: contents chunk of 64 KiB + 1", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			col(0, "fuchsia.node.contents_size", 4, []byte{0, 0, 2, 0}).col(0, "fuchsia.contents", 1, make([]byte, 1<<16+1)).bytes(), "chunk of"},
		{"fuchsia: 2^56 contents bytes announced, 64 KiB sent", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			col(0, "fuchsia.node.contents_size", 8, []byte{0, 0, 0, 0, 0, 0, 0, 1}).col(0, "fuchsia.contents", 1, make([]byte, 1<<16)).
			end(1, 1).bytes(), "column fuchsia.node.count holds 0 values for "},
		{"fuchsia: zeros on contents", head().fuchsiaHead(2).fuchsiaFields().fuchsiaSnap(1, "fuchsia.node.contents_size").moarvmNodes().
			zeros(0, "fuchsia.contents", 1<<16).bytes(), "column fuchsia.contents cannot be stored as z"},
		{"fuchsia: contents for the file", head().fuchsiaHead(2).fuchsiaFields().col(-1, "fuchsia.contents", 1, []byte{1}).bytes(), "column fuchsia.contents is not declared (in t"},
		{"fuchsia: snapshot section without the file's", head().file(1, 1).fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.node.count", 1, []byte{1}).col(0, "fuchsia.node.flags", 1, []byte{0}).end(1, 1).bytes(), "column fuchsia.node.stack holds 0 values for "},

		// The stream details (version 5): declared by the record, refused
		// in a version 4 stream, every column bounded by its table, the
		// byte columns by the sizes read before them.
		{"fuchsia stream: declared in a version 4 stream", fx4().fuchsiaStreamSnap(1).bytes(), "arrived in version 5"},
		{"fuchsia stream: a column in a version 4 stream", fx4().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.stream.records", 1, []byte{1}).bytes(), "column fuchsia.stream.records is not declared"},
		{"fuchsia stream: zeros on a column in a version 4 stream", fx4().fuchsiaSnap(1).moarvmNodes().
			zeros(0, "fuchsia.stream.alloc_fields", 1).bytes(), "column fuchsia.stream.alloc_fields is not dec"},
		{"fuchsia stream: orphan contents in a version 4 stream", fx4().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.stream.orphan_contents", 1, []byte{1}).bytes(), "column fuchsia.stream.orphan_contents is not "},
		{"fuchsia stream: unknown sizes listed in a version 4 stream", fx4().fuchsiaSnap(1, "fuchsia.stream.unknown_size").bytes(), "version 4"},
		{"fuchsia stream: a column without the details declared", fx().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.stream.records", 1, []byte{1}).bytes(), "column fuchsia.stream.records is not declared"},
		{"fuchsia stream: unknown bytes without the details declared", fx().fuchsiaSnap(1).moarvmNodes().
			col(0, "fuchsia.stream.unknown_bytes", 1, []byte{1}).bytes(), "column fuchsia.stream.unknown_bytes is not de"},
		{"fuchsia stream: an unknown stream column", fx().fuchsiaStreamSnap(1).col(0, "fuchsia.stream.nothing", 1, []byte{1}).bytes(), "column fuchsia.stream.nothing is not declared"},
		{"fuchsia stream: allocation fields beyond the nodes", fx().fuchsiaStreamSnap(1).moarvmNodes().
			col(0, "fuchsia.stream.alloc_fields", 1, []byte{6, 6}).bytes(), "more values"},
		{"fuchsia stream: zeros on allocation fields beyond the nodes", fx().fuchsiaStreamSnap(1).moarvmNodes().
			zeros(0, "fuchsia.stream.alloc_fields", 1<<16).bytes(), "more values"},
		{"fuchsia stream: allocation fields mixing zeros and values", fx().fuchsiaStreamSnap(2).col(0, "node.kind", 1, []byte{0, 0}).
			zeros(0, "fuchsia.stream.alloc_fields", 1).col(0, "fuchsia.stream.alloc_fields", 1, []byte{6}).bytes(), "mixes"},
		{"fuchsia stream: an allocation field set of 256", fx().fuchsiaStreamSnap(1).moarvmNodes().
			col(0, "fuchsia.stream.alloc_fields", 2, []byte{0, 1}).bytes(), "out of range"},
		{"fuchsia stream: zeros on the records", fx().fuchsiaStreamSnap(1).zeros(0, "fuchsia.stream.records", 1<<16).bytes(), "zeros"},
		{"fuchsia stream: zeros on the stack keys", fx().fuchsiaStreamSnap(1).zeros(0, "fuchsia.stream.stack_key", 1<<16).bytes(), "zeros"},
		{"fuchsia stream: bin32 records chunk of 2^31-1 bytes", fx().fuchsiaStreamSnap(1).arr(5).str("col").int(0).
			str("fuchsia.stream.records").uint(1).raw(0xc6, 0x7f, 0xff, 0xff, 0xff).bytes(), "chunk of"},
		{"fuchsia stream: stack keys without a stack table", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.stack_key", 1, []byte{1}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia stream: stack keys beyond the stacks", fx().fuchsiaStreamSnap(1, "fuchsia.stack.size").
			col(0, "fuchsia.stack.size", 4, make([]byte, 4)).col(0, "fuchsia.stream.stack_key", 1, []byte{1, 2}).bytes(), "more values"},
		{"fuchsia stream: stack chunk sizes beyond the chunks", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.stack_chunk_stack", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.stack_chunk_size", 4, make([]byte, 8)).bytes(), "more values"},
		{"fuchsia stream: stack chunk sizes without chunks", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.stack_chunk_size", 4, make([]byte, 4)).bytes(), "more values"},
		{"fuchsia stream: thread keys beyond the threads", fx().fuchsiaStreamSnap(1).col(0, "fuchsia.thread.name", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.thread_key", 8, make([]byte, 16)).bytes(), "more values"},
		{"fuchsia stream: region fields beyond the regions", fx().fuchsiaStreamSnap(1).col(0, "fuchsia.stream.region_mapping", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.region_fields", 1, []byte{15, 15}).bytes(), "more values"},
		{"fuchsia stream: region vaddrs beyond the regions", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.region_vaddr", 8, make([]byte, 8)).bytes(), "more values"},
		{"fuchsia stream: a region mapping of 2^32", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.region_mapping", 8, []byte{0, 0, 0, 0, 1, 0, 0, 0}).bytes(), "out of range"},
		{"fuchsia stream: contents chunk sizes beyond the chunks", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.contents_chunk_node", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.contents_chunk_size", 4, make([]byte, 8)).bytes(), "more values"},
		{"fuchsia stream: unknown ordinals beyond the unknown fields", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.unknown_ordinal", 1, []byte{9}).bytes(), "more values"},
		{"fuchsia stream: unknown sizes not declared", fx().fuchsiaStreamSnap(1).col(0, "fuchsia.stream.unknown_record", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.unknown_size", 1, []byte{4}).bytes(), "not declared"},
		{"fuchsia stream: unknown sizes beyond the unknown fields", fx().fuchsiaStreamSnap(1, "fuchsia.stream.unknown_size").
			col(0, "fuchsia.stream.unknown_record", 4, make([]byte, 4)).col(0, "fuchsia.stream.unknown_size", 1, []byte{4, 4}).bytes(), "more values"},
		{"fuchsia stream: unknown sizes declared without the details", fx().fuchsiaSnap(1, "fuchsia.stack.size", "fuchsia.stream.unknown_size").
			fuchsiaStreamNodes().end(1, 1).bytes(), "without stream details"},
		{"fuchsia stream: allocation fields missing", fx().fuchsiaStreamSnap(1, "fuchsia.stack.size").fuchsiaStreamNodes().
			end(1, 1).bytes(), "column fuchsia.stream.alloc_fields holds 0 va"},
		{"fuchsia stream: unknown sizes missing", fx().fuchsiaStreamSnap(1, "fuchsia.stack.size", "fuchsia.stream.unknown_size").fuchsiaStreamNodes().
			col(0, "fuchsia.stream.alloc_fields", 1, []byte{6}).col(0, "fuchsia.stream.unknown_record", 4, make([]byte, 4)).
			end(1, 1).bytes(), "column fuchsia.stream.stack_key holds 0 value"},

		// The byte columns.
		{"fuchsia stream: zeros on the orphan contents", fx().fuchsiaStreamSnap(1).zeros(0, "fuchsia.stream.orphan_contents", 1<<16).bytes(), "column fuchsia.stream.orphan_contents cannot "},
		{"fuchsia stream: zeros on the unknown bytes", fx().fuchsiaStreamSnap(1).zeros(0, "fuchsia.stream.unknown_bytes", 1<<16).bytes(), "bytes"},
		{"fuchsia stream: orphan contents for the file", fx().col(-1, "fuchsia.stream.orphan_contents", 1, []byte{1}).bytes(), "column fuchsia.stream.orphan_contents is not "},
		{"fuchsia stream: unknown bytes for a later snapshot", fx().fuchsiaStreamSnap(1).
			col(1, "fuchsia.stream.unknown_bytes", 1, []byte{1}).bytes(), "current snapshot"},
		{"fuchsia stream: orphan contents before the chunk sizes", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.orphan_contents", 1, []byte{1}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia stream: orphan contents beyond the orphan chunk sizes", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.contents_chunk_node", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.contents_chunk_size", 1, []byte{2}).
			col(0, "fuchsia.stream.orphan_contents", 1, []byte{1, 2, 3}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia stream: orphan contents bounded by a block's chunk", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.contents_chunk_node", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.contents_chunk_size", 1, []byte{200}).
			col(0, "fuchsia.stream.orphan_contents", 1, []byte{1}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia stream: orphan contents of width 8", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.contents_chunk_node", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.contents_chunk_size", 1, []byte{8}).
			col(0, "fuchsia.stream.orphan_contents", 8, make([]byte, 8)).bytes(), "width"},
		{"fuchsia stream: bin32 orphan contents chunk of 4 GiB", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.contents_chunk_node", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.contents_chunk_size", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			arr(5).str("col").int(0).str("fuchsia.stream.orphan_contents").uint(1).raw(0xc6, 0xff, 0xff, 0xff, 0xff).bytes(), "chunk of"},
		{"fuchsia stream: orphan contents chunk of 64 KiB + 1", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.contents_chunk_node", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.contents_chunk_size", 4, []byte{0, 0, 2, 0}).
			col(0, "fuchsia.stream.orphan_contents", 1, make([]byte, 1<<16+1)).bytes(), "chunk of"},
		{"fuchsia stream: 2^32-1 orphan bytes announced, 64 KiB sent", fx().fuchsiaStreamSnap(1, "fuchsia.stack.size").fuchsiaStreamNodes().
			col(0, "fuchsia.stream.records", 1, []byte{fuchsiair.RecordAllocation, fuchsiair.RecordStackTrace, fuchsiair.RecordContents, fuchsiair.RecordEndOfBatch}).
			col(0, "fuchsia.stream.alloc_fields", 1, []byte{6}).col(0, "fuchsia.stream.stack_key", 1, []byte{7}).
			col(0, "fuchsia.stream.stack_chunk_stack", 4, make([]byte, 4)).col(0, "fuchsia.stream.stack_chunk_size", 4, make([]byte, 4)).
			col(0, "fuchsia.stream.contents_chunk_node", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.contents_chunk_size", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.orphan_address", 1, []byte{1}).
			col(0, "fuchsia.stream.orphan_contents", 1, make([]byte, 1<<16)).end(1, 1).bytes(), "orphan chunks of"},
		{"fuchsia stream: unknown bytes without sizes declared", fx().fuchsiaStreamSnap(1).
			col(0, "fuchsia.stream.unknown_bytes", 1, []byte{1}).bytes(), "unexpected EOF: the stream ends inside the re"},
		{"fuchsia stream: unknown bytes beyond the sizes", fx().fuchsiaStreamSnap(1, "fuchsia.stream.unknown_size").
			col(0, "fuchsia.stream.unknown_record", 4, make([]byte, 4)).col(0, "fuchsia.stream.unknown_size", 1, []byte{4}).
			col(0, "fuchsia.stream.unknown_bytes", 1, make([]byte, 5)).bytes(), "more bytes"},
		{"fuchsia stream: bin32 unknown bytes chunk of 4 GiB", fx().fuchsiaStreamSnap(1, "fuchsia.stream.unknown_size").
			col(0, "fuchsia.stream.unknown_record", 4, make([]byte, 4)).col(0, "fuchsia.stream.unknown_size", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			arr(5).str("col").int(0).str("fuchsia.stream.unknown_bytes").uint(1).raw(0xc6, 0xff, 0xff, 0xff, 0xff).bytes(), "chunk of"},
		{"fuchsia stream: 2^32-1 unknown bytes announced, 64 KiB sent", fx().fuchsiaStreamSnap(1, "fuchsia.stack.size", "fuchsia.stream.unknown_size").
			fuchsiaStreamNodes().col(0, "fuchsia.stream.alloc_fields", 1, []byte{6}).
			col(0, "fuchsia.stream.unknown_record", 4, make([]byte, 4)).col(0, "fuchsia.stream.unknown_ordinal", 1, []byte{9}).
			col(0, "fuchsia.stream.unknown_size", 4, []byte{0xff, 0xff, 0xff, 0xff}).
			col(0, "fuchsia.stream.unknown_bytes", 1, make([]byte, 1<<16)).end(1, 1).bytes(), "column fuchsia.stream.stack_key holds 0 value"},
		{"fuchsia stream: 2^16 records claimed, 4 sent", fx().fuchsiaStreamSnap(1).arr(5).str("col").int(0).
			str("fuchsia.stream.records").uint(1).raw(0xc5, 0xff, 0xff, 1, 2, 3, 0x80).bytes(), "EOF"},
	}
	if _, err := irstream.Decode(bytes.NewReader(validStream())); err != nil {
		t.Fatalf("the hand-built base stream does not decode: %v", err)
	}
	if _, err := irstream.Decode(bytes.NewReader(validMoarVMStream(v5))); err != nil {
		t.Fatalf("the hand-built MoarVM base stream does not decode: %v", err)
	}
	if _, err := irstream.Decode(bytes.NewReader(validFuchsiaStream(v5))); err != nil {
		t.Fatalf("the hand-built Fuchsia base stream does not decode: %v", err)
	}
	if f, err := irstream.Decode(bytes.NewReader(validFuchsiaStreamDetails(v5))); err != nil || fuchsiair.Of(f.Snapshots[0]).Stream == nil {
		t.Fatalf("the hand-built Fuchsia stream details base stream does not decode: %v", err)
	}
	if _, err := irstream.Decode(bytes.NewReader(validFuchsiaStreamDetails(4))); err == nil || !strings.Contains(err.Error(), "arrived in version 5") {
		t.Fatalf("the hand-built Fuchsia stream details base stream decodes as version 4: %v", err)
	}
	for _, tc := range cases {
		// As a file or bytes (the size known, declared counts bounded by
		// it) and as a pipe (no size: arrays must grow with what arrives).
		for _, stream := range []bool{false, true} {
			name := tc.name
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				var in io.Reader = bytes.NewReader(tc.data)
				if stream {
					in = struct{ io.Reader }{in}
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				opts := irstream.DecodeOptions{Size: int64(len(tc.data))}
				if stream {
					opts.Size = 0
				}
				f, err := irstream.DecodeWith(in, opts)
				runtime.ReadMemStats(&after)
				if tc.wantErr != "" {
					if err == nil {
						t.Fatalf("decoded %d snapshots; want an error", len(f.Snapshots))
					}
					if !strings.Contains(err.Error(), tc.wantErr) {
						t.Errorf("error %q does not mention %q", err, tc.wantErr)
					}
				}
				const limit = 64 << 20
				if d := after.TotalAlloc - before.TotalAlloc; d > limit {
					t.Errorf("decoding %d bytes allocated %d MiB (limit %d MiB); err = %v", len(tc.data), d>>20, limit>>20, err)
				}
			})
		}
	}
}
