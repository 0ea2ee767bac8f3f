package moarvm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	wmoar "github.com/heapconv/heapconv/writers/moarvm"
)

const testdata = "../../testdata/moarvm"

// moarOrder is MoarVM's block order for a snapshot TOC that adds strings,
// types and frames.
var moarOrder = []string{"snapmeta", "colkind", "colsize", "coltofi", "colrfcnt", "colrfstr", "colusize",
	"refdescr", "reftrget", "strings", "reprname", "typename", "sfname", "sfcuid", "sfline", "sffile", "topIDs", "topscore"}

func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
}

// handFile is a small MoarVM IR file as the reader would produce it: two
// snapshots, the second adding strings and a frame but no type (as in
// nqp-3snap), reference ranges out of collectable order, highscores stored
// for the first snapshot and missing (to be computed) for the second, and a
// string beyond the heap (a root kind name the reader adds).
func handFile() *ir.File {
	f := &ir.File{Format: moarvmir.Format, FormatVersion: "moarvm v3",
		Strings: []string{"Permanent Roots", "", "VMString", "BOOTStr", "P6opaque", "Foo", "name", "frameA", "cuid1",
			"file.nqp", "Register", "ünïcode", "Root"}}
	f.Classes = ir.Classes{Name: []uint32{3, 5}, Library: []uint32{2, 4}, FirstField: []uint32{0, 0, 0}}
	m := &moarvmir.File{Version: 3, HasMeta: true, Subversion: 1, StartTime: 618134199, PID: 15212, HasPID: true,
		EntryCount: 2, DataOrder: slices.Clone(moarvmir.DefaultDataOrder), StringCount: 12,
		FrameName: []uint32{7, 10}, FrameCUID: []uint32{8, 8}, FrameLine: []uint32{1, 42}, FrameFile: []uint32{9, 11},
		TOCs: []moarvmir.TOC{{NewStrings: 10, NewTypes: 2, NewFrames: 1}, {NewStrings: 2, NewFrames: 1}, {}}}
	f.SetSection(m)
	type ref struct {
		kind   uint8
		name   uint32
		target uint32
	}
	type coll struct {
		kind      uint8
		tofi      uint64
		size, usz uint64
		refStart  uint64
		refs      []ref
	}
	mk := func(k int, colls []coll, top bool) *ir.Snapshot {
		s := &ir.Snapshot{Root: 0, NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds)}
		ms := &moarvmir.Snapshot{HasMeta: true, SnapTime: 618140246 + uint64(k), GCSeqNum: uint64(k + 1)}
		s.SetSection(ms)
		nd := &s.Nodes
		nd.FirstEdge = []uint32{0}
		for _, c := range colls {
			nd.Kind = append(nd.Kind, c.kind)
			name, class := uint32(12), uint32(0)
			switch c.kind {
			case moarvmir.Object, moarvmir.TypeObject, moarvmir.STable:
				name, class = f.Classes.Name[c.tofi], uint32(c.tofi)+1
			case moarvmir.Frame:
				name = m.FrameName[c.tofi]
			case moarvmir.PermRoots:
				name = 0
			}
			nd.Name = append(nd.Name, name)
			nd.Class = append(nd.Class, class)
			nd.ID.Append(0)
			nd.SelfSize.Append(c.size)
			nd.ExternalSize.Append(c.usz)
			ms.TOFI.Append(c.tofi)
			ms.RefStart.Append(c.refStart)
			for _, r := range c.refs {
				s.Edges.Kind = append(s.Edges.Kind, r.kind)
				s.Edges.Name = append(s.Edges.Name, r.name)
				s.Edges.Target = append(s.Edges.Target, r.target)
			}
			nd.FirstEdge = append(nd.FirstEdge, uint32(s.Edges.Len()))
		}
		s.Totals = wmoar.Totals(s)
		s.Totals[0].Value += 1000 // what the file said, not what the graph sums to
		if top {
			ms.TopIDs = []uint64{1, 0, 0, 0, 1, 0, 0, 0}
			ms.TopScores = []uint64{1, 0, 1, 0, 48, 0, 168, 0}
		}
		return s
	}
	const str, idx, unk = moarvmir.StringRef, moarvmir.IndexRef, moarvmir.UnknownRef
	f.Snapshots = []*ir.Snapshot{
		mk(0, []coll{
			{moarvmir.Root, 0, 0, 0, 4, []ref{{str, 0, 1}}},
			{moarvmir.PermRoots, 0, 0, 0, 2, []ref{{idx, 0, 2}, {idx, 1, 3}}},
			{moarvmir.Object, 1, 48, 0, 0, []ref{{str, 6, 4}, {moarvmir.BadString, 70000, 4}}},
			{moarvmir.Frame, 0, 168, 0, 7, nil}, // refs start set without refs
			{moarvmir.Object, 0, 24, 100, 5, []ref{{unk, 0, 2}, {moarvmir.Kind3, 9, 0}}},
		}, true),
		mk(1, []coll{
			{moarvmir.Root, 0, 0, 0, 0, []ref{{str, 0, 1}}},
			{moarvmir.PermRoots, 0, 0, 0, 1, []ref{{str, 10, 2}}},
			{moarvmir.Frame, 1, 168, 64, 0, []ref{{str, 11, 3}}},
			{moarvmir.STable, 1, 200, 0, 0, nil},
		}, false),
	}
	moarvmir.Of(f.Snapshots[1]).RefStart = ir.UintsOf(0, 1, 2, 3)
	return f
}

func writeParse(t *testing.T, f *ir.File) ([]byte, *parsed, *decoded, ir.LossReport) {
	t.Helper()
	var b bytes.Buffer
	loss, err := wmoar.Write(&b, f, wmoar.Options{})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	p, err := parseFile(b.Bytes())
	if err != nil {
		t.Fatalf("the output does not parse: %v", err)
	}
	d, err := p.decode()
	if err != nil {
		t.Fatalf("the output does not decode: %v", err)
	}
	return b.Bytes(), p, d, loss
}

func TestHandFile(t *testing.T) {
	f := handFile()
	if err := f.Validate(); err != nil {
		t.Fatalf("the test file is invalid: %v", err)
	}
	_, p, d, loss := writeParse(t, f)
	if len(loss) != 0 {
		t.Errorf("loss report for MoarVM IR:\n%v", loss)
	}
	if want := moarvmir.FileMetaJSON(moarvmir.FileOf(f)); p.fileMeta != want {
		t.Errorf("filemeta %s, want %s", p.fileMeta, want)
	}
	if len(p.inner) != 3 || p.copies != 2 || len(p.outer) != 4 {
		t.Fatalf("%d inner TOCs, %d outer copies, outer TOC of %d entries; want 3, 2, 4", len(p.inner), p.copies, len(p.outer))
	}
	wantOrder := [][]string{moarOrder, without(moarOrder, "reprname", "typename"), nil}
	for i, bs := range p.inner {
		if got := names(bs); !slices.Equal(got, wantOrder[i]) {
			t.Errorf("inner TOC %d: blocks %v, want %v", i, got, wantOrder[i])
		}
	}
	if !slices.Equal(d.strings, f.Strings[:12]) {
		t.Errorf("string heap %q, want %q", d.strings, f.Strings[:12])
	}
	if got, _ := heapStrings(find(p.inner[1], "strings")); !slices.Equal(got, f.Strings[10:12]) {
		t.Errorf("the second TOC adds strings %q, want %q", got, f.Strings[10:12])
	}
	if !slices.Equal(d.tnames, []uint64{3, 5}) || !slices.Equal(d.reprs, []uint64{2, 4}) {
		t.Errorf("types %v / %v", d.tnames, d.reprs)
	}
	if !slices.Equal(d.sfname, []uint64{7, 10}) || !slices.Equal(d.sfline, []uint64{1, 42}) || !slices.Equal(d.sffile, []uint64{9, 11}) || !slices.Equal(d.sfcuid, []uint64{8, 8}) {
		t.Errorf("frames %v %v %v %v", d.sfname, d.sfcuid, d.sfline, d.sffile)
	}
	for k, s := range f.Snapshots {
		ds := d.snaps[k]
		if want := moarvmir.SnapMetaJSON(moarvmir.Of(s), s.Totals); ds.meta != want {
			t.Errorf("snapshot %d: snapmeta %s, want %s", k, ds.meta, want)
		}
		checkSnapshot(t, k, s, ds)
	}
	if !slices.Equal(d.snaps[0].topIDs, moarvmir.Of(f.Snapshots[0]).TopIDs) || !slices.Equal(d.snaps[0].topScore, moarvmir.Of(f.Snapshots[0]).TopScores) {
		t.Errorf("stored highscores not written as they are: %v %v", d.snaps[0].topIDs, d.snaps[0].topScore)
	}
	// Snapshot 1 has none: computed, 4 boards of 2. No objects; frames:
	// frame 1 once, 168+64 bytes.
	wantIDs := []uint64{0, 0, 1, 0, 0, 0, 1, 0}
	wantScores := []uint64{0, 0, 1, 0, 0, 0, 232, 0}
	if !slices.Equal(d.snaps[1].topIDs, wantIDs) || !slices.Equal(d.snaps[1].topScore, wantScores) {
		t.Errorf("computed highscores %v %v, want %v %v", d.snaps[1].topIDs, d.snaps[1].topScore, wantIDs, wantScores)
	}
}

// checkSnapshot compares a written snapshot's columns with its IR: the
// references of collectable i must sit at colrfstr[i] onwards.
func checkSnapshot(t *testing.T, k int, s *ir.Snapshot, ds decodedSnap) {
	t.Helper()
	nd := &s.Nodes
	n := nd.Len()
	if len(ds.kind) != n || len(ds.descr) != s.Edges.Len() {
		t.Fatalf("snapshot %d: %d collectables and %d references, want %d and %d", k, len(ds.kind), len(ds.descr), n, s.Edges.Len())
	}
	tag := []uint64{0, 1, 2, 2, 3}
	for i := 0; i < n; i++ {
		var usz uint64
		if nd.ExternalSize.Len() > 0 {
			usz = nd.ExternalSize.At(i)
		}
		// A self size beyond colsize's 16 bits is continued in colusize.
		size, usz := moarvmir.SplitSize(nd.SelfSize.At(i), usz)
		lo, hi := nd.EdgeRange(i)
		if ds.kind[i] != uint64(nd.Kind[i]) || ds.size[i] != size || ds.usize[i] != usz ||
			ds.tofi[i] != moarvmir.Of(s).TOFI.At(i) || ds.rfcnt[i] != uint64(hi-lo) || ds.rfstr[i] != moarvmir.Of(s).RefStart.At(i) {
			t.Fatalf("snapshot %d, collectable %d: kind %d size %d usize %d tofi %d refs %d@%d", k, i,
				ds.kind[i], ds.size[i], ds.usize[i], ds.tofi[i], ds.rfcnt[i], ds.rfstr[i])
		}
		for e := lo; e < hi; e++ {
			pos := ds.rfstr[i] + uint64(e-lo)
			want := uint64(s.Edges.Name[e])<<2 | tag[s.Edges.Kind[e]]
			if ds.descr[pos] != want || ds.target[pos] != uint64(s.Edges.Target[e]) {
				t.Fatalf("snapshot %d, collectable %d, reference %d (at %d): descr %#x → %d, want %#x → %d", k, i, e-lo, pos,
					ds.descr[pos], ds.target[pos], want, s.Edges.Target[e])
			}
		}
	}
	if want := len(moarvmir.DefaultDataOrder) * 2; len(ds.topIDs) < want && moarvmir.Of(s).TopIDs == nil {
		t.Errorf("snapshot %d: %d highscore entries", k, len(ds.topIDs))
	}
}

func TestBlockOrder(t *testing.T) {
	def1 := without(moarOrder, "reprname", "typename")
	shuffled := []string{"snapmeta", "sfname", "colkind", "strings", "colsize", "coltofi", "colrfcnt", "colrfstr", "colusize",
		"refdescr", "reftrget", "sfcuid", "sfline", "topIDs", "sffile", "topscore"}
	withTypes := slices.Insert(slices.Clone(def1), 10, "reprname", "typename")
	tests := []struct {
		name   string
		blocks []string
		want   []string
	}{
		{"none", nil, def1},
		{"MoarVM's", def1, def1},
		{"another order", shuffled, shuffled},
		{"empty optional blocks", withTypes, withTypes},
		{"unknown block", append(slices.Clone(def1), "colextra"), def1},
		{"duplicate", append(slices.Clone(def1), "colkind"), def1},
		{"missing column", without(def1, "colusize"), def1},
		{"missing increment", without(def1, "strings"), def1},
		{"a toc", append(slices.Clone(def1), "toc"), def1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := handFile()
			moarvmir.FileOf(f).TOCs[1].Blocks = tc.blocks
			_, p, d, _ := writeParse(t, f)
			if got := names(p.inner[1]); !slices.Equal(got, tc.want) {
				t.Errorf("blocks %v, want %v", got, tc.want)
			}
			if got := find(p.inner[1], "reprname"); got != nil && len(got.data) != 0 {
				t.Errorf("an empty types increment holds %d bytes", len(got.data))
			}
			checkSnapshot(t, 1, f.Snapshots[1], d.snaps[1])
		})
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *ir.File)
		want   string
	}{
		{"tofi over 32 bits", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).TOFI.Set(0, 1<<40) }, "coltofi"},
		{"string description beyond the heap", func(f *ir.File) { f.Snapshots[0].Edges.Name[3] = 12 }, "beyond the string heap"},
		{"edge kind MoarVM lacks", func(f *ir.File) {
			s := f.Snapshots[0]
			s.EdgeKinds = append(s.EdgeKinds, ir.EdgeKind{Name: "weak"})
			s.Edges.Kind[0] = 5
		}, "not a MoarVM reference kind"},
		{"overlapping references", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).RefStart.Set(4, 1) }, "another collectable"},
		{"references beyond the table", func(f *ir.File) { moarvmir.Of(f.Snapshots[0]).RefStart.Set(4, 6) }, "beyond the 7 references"},
		{"TOCs that do not add up", func(f *ir.File) { moarvmir.FileOf(f).TOCs[2].NewStrings = 1 }, "the TOCs add"},
		{"type name beyond the heap", func(f *ir.File) { f.Classes.Name[1] = 12 }, "typename of entry 1"},
		{"frame file beyond the heap", func(f *ir.File) { moarvmir.FileOf(f).FrameFile[1] = 12 }, "sffile of entry 1"},
		{"foreign node kinds", func(f *ir.File) { f.Snapshots[1].NodeKinds = slices.Clone(ir.V8NodeKinds) }, "not MoarVM's"},
		{"a snapshot without its section", func(f *ir.File) { f.Snapshots[1].Sections = nil }, "no MoarVM section"},
		{"write error", nil, "disk full"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := handFile()
			var w interface{ Write([]byte) (int, error) } = &bytes.Buffer{}
			if tc.mutate != nil {
				tc.mutate(f)
			} else {
				w = failWriter{}
			}
			_, err := wmoar.Write(w, f, wmoar.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write(b []byte) (int, error) { return 0, errors.New("disk full") }

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	var last int64
	calls := 0
	_, err := wmoar.Write(&b, handFile(), wmoar.Options{Progress: func(n int64) {
		if n < last {
			t.Errorf("progress went back from %d to %d", last, n)
		}
		last = n
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last > int64(b.Len()) {
		t.Errorf("%d progress calls, last %d of %d bytes", calls, last, b.Len())
	}
}

func TestLeaderboards(t *testing.T) {
	s := &ir.Snapshot{Sections: []ir.Section{&moarvmir.Snapshot{}}}
	// kind, tofi, size, unmanaged
	colls := [][4]uint64{
		{1, 5, 10, 0}, {1, 5, 10, 0}, {1, 3, 100, 5}, {1, 7, 20, 0}, {1, 7, 20, 0}, // types: 5×2 (20), 3×1 (105), 7×2 (40)
		{2, 9, 1000, 0}, {3, 9, 1000, 0}, // type objects and STables do not count
		{4, 1, 168, 32}, {4, 0, 168, 0}, {4, 1, 168, 0}, // frames: 1×2 (368), 0×1 (168)
		{9, 0, 0, 0},
		{1, 1 << 33, 1, 0}, // a type index far beyond the node count
	}
	for _, c := range colls {
		s.Nodes.Kind = append(s.Nodes.Kind, uint8(c[0]))
		moarvmir.Of(s).TOFI.Append(c[1])
		s.Nodes.SelfSize.Append(c[2])
		s.Nodes.ExternalSize.Append(c[3])
	}
	ids, scores, unknown := wmoar.Leaderboards(s, 3, append(slices.Clone(moarvmir.DefaultDataOrder), "other"))
	wantIDs := []uint64{
		5, 7, 3, // types by count: ties (2) by index, then 3 and the far one (1 each): 3 < 2^33
		1, 0, 0, // frames by count, padded
		3, 7, 5, // types by size
		1, 0, 0, // frames by size: 368, 168, padding
		0, 0, 0, // unknown board
	}
	wantScores := []uint64{2, 2, 1, 2, 1, 0, 105, 40, 20, 368, 168, 0, 0, 0, 0}
	if !slices.Equal(ids, wantIDs) || !slices.Equal(scores, wantScores) {
		t.Errorf("boards\n%v\n%v\nwant\n%v\n%v", ids, scores, wantIDs, wantScores)
	}
	if !slices.Equal(unknown, []string{"other"}) {
		t.Errorf("unknown boards %v", unknown)
	}
}

// TestSampleStructure runs the test parser over MoarVM's own files (so that
// it checks what MoarVM writes, not just what this writer does) and checks
// that Leaderboards recomputes their highscores.
func TestSampleStructure(t *testing.T) {
	for _, name := range []string{"nqp-1snap.mvmheap", "nqp-3snap.mvmheap"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(testdata, name))
			if err != nil {
				t.Fatal(err)
			}
			p, err := parseFile(b)
			if err != nil {
				t.Fatalf("MoarVM's file does not pass the test parser: %v", err)
			}
			d, err := p.decode()
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				HS struct {
					EntryCount int      `json:"entry_count"`
					DataOrder  []string `json:"data_order"`
				} `json:"highscore_structure"`
			}
			if err := json.Unmarshal([]byte(p.fileMeta), &meta); err != nil {
				t.Fatal(err)
			}
			for k, ds := range d.snaps {
				s := &ir.Snapshot{Sections: []ir.Section{&moarvmir.Snapshot{}}}
				for i := range ds.kind {
					s.Nodes.Kind = append(s.Nodes.Kind, uint8(ds.kind[i]))
					s.Nodes.SelfSize.Append(ds.size[i])
					s.Nodes.ExternalSize.Append(ds.usize[i])
					moarvmir.Of(s).TOFI.Append(ds.tofi[i])
				}
				ids, scores, _ := wmoar.Leaderboards(s, meta.HS.EntryCount, meta.HS.DataOrder)
				if err := sameBoards(ids, scores, ds.topIDs, ds.topScore); err != nil {
					t.Errorf("snapshot %d: %v", k, err)
				}
			}
		})
	}
}

// sameBoards compares computed highscores with MoarVM's: the scores must be
// equal, and so must the ids wherever MoarVM's qsort had no tie to order.
// Zero scores are padding: any id.
func sameBoards(ids, scores, wantIDs, wantScores []uint64) error {
	if len(ids) != len(wantIDs) {
		return fmt.Errorf("%d entries, MoarVM wrote %d", len(ids), len(wantIDs))
	}
	for i := range ids {
		if scores[i] != wantScores[i] {
			return fmt.Errorf("entry %d: score %d, MoarVM wrote %d", i, scores[i], wantScores[i])
		}
		tie := (i > 0 && wantScores[i-1] == wantScores[i]) || (i+1 < len(ids) && wantScores[i+1] == wantScores[i])
		if !tie && scores[i] != 0 && ids[i] != wantIDs[i] {
			return fmt.Errorf("entry %d (score %d): id %d, MoarVM wrote %d", i, scores[i], ids[i], wantIDs[i])
		}
	}
	return nil
}

// TestEmptyColumns writes a snapshot with a lone root and no references:
// every column is still one (empty) zstd frame.
func TestEmptyColumns(t *testing.T) {
	f := &ir.File{Format: moarvmir.Format, Strings: []string{"Root"}}
	f.SetSection(&moarvmir.File{Version: 3, HasMeta: true, Subversion: 1, EntryCount: 40,
		DataOrder: slices.Clone(moarvmir.DefaultDataOrder), StringCount: 0})
	s := &ir.Snapshot{Root: 0, NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds)}
	s.Nodes = ir.Nodes{Kind: []uint8{moarvmir.Root}, Name: []uint32{0}, Class: []uint32{0}, ID: ir.UintsOf(0),
		SelfSize: ir.UintsOf(0), FirstEdge: []uint32{0, 0}}
	s.SetSection(&moarvmir.Snapshot{TOFI: ir.UintsOf(0), RefStart: ir.UintsOf(0)})
	f.Snapshots = []*ir.Snapshot{s}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	_, p, d, _ := writeParse(t, f)
	want := without(moarOrder, "strings", "reprname", "typename", "sfname", "sfcuid", "sfline", "sffile")
	if got := names(p.inner[0]); !slices.Equal(got, want) {
		t.Errorf("blocks %v, want %v", got, want)
	}
	for _, name := range []string{"refdescr", "reftrget"} {
		if b := find(p.inner[0], name); b == nil || len(b.data) != 0 {
			t.Errorf("%s: want an empty block", name)
		}
	}
	if len(d.snaps[0].kind) != 1 || len(d.snaps[0].usize) != 1 || d.snaps[0].usize[0] != 0 {
		t.Errorf("collectables %v, unmanaged sizes %v", d.snaps[0].kind, d.snaps[0].usize)
	}
	if sm := checkTotals(t, 0, d.snaps[0]); sm.GCSeqNum != 1 || sm.References != 0 {
		t.Errorf("snapmeta %+v", sm)
	}
}
