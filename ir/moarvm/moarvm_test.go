package moarvm_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// TestEntrySizes: every column of every group has the size of its C
// field, and no other block has one.
func TestEntrySizes(t *testing.T) {
	want := map[string]int{
		"colkind": 2, "colsize": 2, "coltofi": 4, "colrfcnt": 4, "colrfstr": 8, "colusize": 8,
		"refdescr": 8, "reftrget": 8, "reprname": 4, "typename": 4,
		"sfname": 4, "sfcuid": 4, "sfline": 4, "sffile": 4, "topIDs": 8, "topscore": 8,
	}
	var columns []string
	for _, g := range [][]string{moarvmir.SnapshotColumns, moarvmir.TypeColumns, moarvmir.FrameColumns, moarvmir.HighscoreColumns} {
		columns = append(columns, g...)
	}
	if len(columns) != len(want) {
		t.Errorf("the groups hold %d columns, MoarVM writes %d", len(columns), len(want))
	}
	for _, name := range columns {
		if got := moarvmir.EntrySize(name); got != want[name] {
			t.Errorf("EntrySize(%q) = %d, want %d", name, got, want[name])
		}
		if len(name) > moarvmir.NameSize {
			t.Errorf("%q does not fit a name field", name)
		}
	}
	for _, name := range []string{moarvmir.BlockFileMeta, moarvmir.BlockSnapMeta, moarvmir.BlockStrings, moarvmir.BlockTOC, "coll", ""} {
		if got := moarvmir.EntrySize(name); got != 0 {
			t.Errorf("EntrySize(%q) = %d, want 0 (not a column)", name, got)
		}
	}
}

// TestHeaders: what the Append functions write, the Parse functions read,
// at the sizes the layout constants give; a name reads up to its NUL.
func TestHeaders(t *testing.T) {
	b := moarvmir.AppendHeader(nil, moarvmir.BlockSnapMeta, 1234)
	if len(b) != moarvmir.HeaderSize {
		t.Fatalf("header of %d bytes, want %d", len(b), moarvmir.HeaderSize)
	}
	if name, v := moarvmir.ParseHeader(b); name != moarvmir.BlockSnapMeta || v != 1234 {
		t.Errorf("ParseHeader = %q, %d", name, v)
	}
	b = moarvmir.AppendColumnHeader(nil, moarvmir.ColRefStart)
	if want := []byte("colrfstr\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00"); !bytes.Equal(b, want) {
		t.Errorf("column header % x, want % x", b, want)
	}
	if name, es := moarvmir.ParseColumnHeader(b); name != moarvmir.ColRefStart || es != 8 {
		t.Errorf("ParseColumnHeader = %q, %d", name, es)
	}
	b = moarvmir.AppendTOCEntry(nil, moarvmir.BlockTOC, 16, 1<<40)
	if len(b) != moarvmir.TOCEntrySize {
		t.Fatalf("TOC entry of %d bytes, want %d", len(b), moarvmir.TOCEntrySize)
	}
	if name, start, end := moarvmir.ParseTOCEntry(b); name != moarvmir.BlockTOC || start != 16 || end != 1<<40 {
		t.Errorf("ParseTOCEntry = %q, %d, %d", name, start, end)
	}
	if got := moarvmir.TOCSize(3); got != int64(moarvmir.HeaderSize+3*moarvmir.TOCEntrySize) {
		t.Errorf("TOCSize(3) = %d", got)
	}
	// MoarVM 2020.05–2020.12 left a garbage byte after the NUL of 6-letter
	// names.
	if got := moarvmir.ParseName([]byte("sfname\x00Z")); got != moarvmir.FrameName {
		t.Errorf("ParseName with garbage after the NUL = %q", got)
	}
	if got := moarvmir.ParseName([]byte("colrfcnt")); got != moarvmir.ColRefCount {
		t.Errorf("ParseName of 8 letters = %q", got)
	}
}

// TestRefs: a description packs its kind into the low two bits, and the
// IR edge kinds map to reference kinds and back, the out-of-heap strings
// and kind 3 keeping kinds of their own.
func TestRefs(t *testing.T) {
	for _, c := range []struct {
		index uint64
		kind  uint8
	}{{0, moarvmir.RefUnknown}, {7, moarvmir.RefIndex}, {1 << 40, moarvmir.RefString}, {moarvmir.MaxRefIndex, moarvmir.RefUnused}} {
		d := moarvmir.PackRef(c.index, c.kind)
		if i, k := moarvmir.UnpackRef(d); i != c.index || k != c.kind {
			t.Errorf("PackRef(%d, %d) unpacks to %d, %d", c.index, c.kind, i, k)
		}
	}
	if d := moarvmir.PackRef(5, moarvmir.RefString); d != 5<<2|2 {
		t.Errorf("PackRef(5, string) = %d", d)
	}
	const heap = 10
	for ek := range uint8(len(moarvmir.EdgeKinds)) {
		rk, ok := moarvmir.RefKind(ek)
		if !ok {
			t.Errorf("edge kind %d (%s) has no reference kind", ek, moarvmir.EdgeKinds[ek].Name)
			continue
		}
		index := uint64(3)
		if ek == moarvmir.BadString {
			index = heap
		}
		if back := moarvmir.EdgeKind(rk, index, heap); back != ek {
			t.Errorf("edge kind %d is written as %d, which reads back as %d", ek, rk, back)
		}
	}
	if _, ok := moarvmir.RefKind(uint8(len(moarvmir.EdgeKinds))); ok {
		t.Error("a kind beyond MoarVM's has a reference kind")
	}
}

// TestContinuedSizes: a self size beyond 16 bits is split into colsize and
// colusize and joined again; what cannot be told apart is as the writer's
// loss report says.
func TestContinuedSizes(t *testing.T) {
	const max = math.MaxUint64
	for _, c := range []struct {
		self, ext         uint64
		colsize, colusize uint64
		wantSelf, wantUnm uint64
	}{
		{100, 7, 100, 7, 100, 7},
		{65534, 5, 65534, 5, 65534, 5},
		{65535, 0, 65535, 0, 65535, 0},
		{100000, 0, 65535, 100000 - 65535, 100000, 0},
		{100000, 7, 65535, 100007 - 65535, 100007, 0},          // the unmanaged size joins the self size
		{65535, 9, 65535, 9, 65544, 0},                         // likewise
		{65535, max - 100, 65535, max - 100, 65535, max - 100}, // too big to join
		{70000, max - 10001, 65535, max - 65535, max, 0},       // the sum is capped
		{max, 5, 65535, max - 65535, max, 0},
	} {
		cs, cu := moarvmir.SplitSize(c.self, c.ext)
		if cs != c.colsize || cu != c.colusize {
			t.Errorf("SplitSize(%d, %d) = %d, %d, want %d, %d", c.self, c.ext, cs, cu, c.colsize, c.colusize)
		}
		if s, u := moarvmir.JoinSize(cs, cu); s != c.wantSelf || u != c.wantUnm {
			t.Errorf("JoinSize(%d, %d) = %d, %d, want %d, %d", cs, cu, s, u, c.wantSelf, c.wantUnm)
		}
	}
}

// TestMetaJSON: filemeta and snapmeta come out in heapsnapshot.c's
// layout, byte for byte.
func TestMetaJSON(t *testing.T) {
	m := &moarvmir.File{Subversion: 1, StartTime: 1, PID: 2, HasPID: true, EntryCount: 40,
		DataOrder: slices.Clone(moarvmir.DefaultDataOrder)}
	want := `{ "subversion": 1, "start_time": 1, "pid": 2, "highscore_structure": { "entry_count": 40, "data_order": ["types_by_count", "frames_by_count", "types_by_size", "frames_by_size"]}}`
	if got := moarvmir.FileMetaJSON(m); got != want {
		t.Errorf("filemeta\n%s\nwant\n%s", got, want)
	}
	m.HasPID = false
	if got := moarvmir.FileMetaJSON(m); got != `{ "subversion": 1, "start_time": 1, "highscore_structure": { "entry_count": 40, "data_order": ["types_by_count", "frames_by_count", "types_by_size", "frames_by_size"]}}` {
		t.Errorf("filemeta without pid: %s", got)
	}
	s := &moarvmir.Snapshot{SnapTime: 3, GCSeqNum: 1}
	totals := []ir.Total{{Name: "total_heap_size", Value: 10}, {Name: "total_refs", Value: 2}}
	if got, want := moarvmir.SnapMetaJSON(s, totals), `{ "snap_time": 3, "gc_seq_num": 1, "total_heap_size": 10, "total_refs": 2 }`; got != want {
		t.Errorf("snapmeta\n%s\nwant\n%s", got, want)
	}
}
