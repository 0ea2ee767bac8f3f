package moarvm_test

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	rmoar "github.com/heapconv/heapconv/readers/moarvm"
	wmoar "github.com/heapconv/heapconv/writers/moarvm"
)

func read(t *testing.T, b []byte) *ir.File {
	t.Helper()
	f, err := rmoar.Read(bytes.NewReader(b), rmoar.Options{Size: int64(len(b))})
	if err != nil {
		t.Fatalf("the reader refuses the file: %v", err)
	}
	return f
}

// sameBlocks compares two parsed files block by block: the outer TOC's
// shape, every inner TOC's block names in order, and every block's entry
// size and decompressed bytes (or JSON).
func sameBlocks(t *testing.T, want, got *parsed) {
	t.Helper()
	if got.fileMeta != want.fileMeta {
		t.Errorf("filemeta %s, want %s", got.fileMeta, want.fileMeta)
	}
	if len(got.outer) != len(want.outer) || len(got.inner) != len(want.inner) || got.copies != want.copies {
		t.Fatalf("outer TOC of %d entries, %d inner TOCs, %d copies; want %d, %d, %d",
			len(got.outer), len(got.inner), got.copies, len(want.outer), len(want.inner), want.copies)
	}
	for i := range want.inner {
		if !slices.Equal(names(got.inner[i]), names(want.inner[i])) {
			t.Errorf("inner TOC %d: blocks %v, want %v", i, names(got.inner[i]), names(want.inner[i]))
			continue
		}
		for j, wb := range want.inner[i] {
			gb := got.inner[i][j]
			if gb.entrySize != wb.entrySize {
				t.Errorf("inner TOC %d, %s: entry size %d, want %d", i, wb.name, gb.entrySize, wb.entrySize)
			}
			if !bytes.Equal(gb.data, wb.data) {
				at := 0
				for at < min(len(gb.data), len(wb.data)) && gb.data[at] == wb.data[at] {
					at++
				}
				t.Errorf("inner TOC %d, %s: %d bytes differ from the original's %d at byte %d", i, wb.name, len(gb.data), len(wb.data), at)
			}
		}
	}
}

// TestRoundTripSamples reads MoarVM's own files and writes them again: the
// same blocks, in the same order, with the same decompressed bytes and JSON.
func TestRoundTripSamples(t *testing.T) {
	for _, name := range []string{"nqp-1snap.mvmheap", "nqp-3snap.mvmheap"} {
		t.Run(name, func(t *testing.T) {
			orig := irtest.ReadSample(t, testdata, name)
			want, err := parseFile(orig)
			if err != nil {
				t.Fatal(err)
			}
			f := read(t, orig)
			out, got, _, loss := writeParse(t, f)
			if len(loss) != 0 {
				t.Errorf("loss report:\n%v", loss)
			}
			sameBlocks(t, want, got)
			if len(out) != len(orig) {
				t.Logf("%d bytes written for MoarVM's %d (zstd frames differ)", len(out), len(orig))
			}
			// And the written file reads back to the same IR.
			if diff := ir.Diff(f, read(t, out), 10); len(diff) > 0 {
				t.Errorf("the written file reads back differently:\n%s", strings.Join(diff, "\n"))
			}
		})
	}
}

// TestV2ToV3 writes the version 2 sample (Debian's MoarVM) as version 3:
// synthesized metadata, computed totals and highscores, the same graph. The
// loss report names the totals, metadata and highscores the writer adds,
// and nothing else.
func TestV2ToV3(t *testing.T) {
	orig := irtest.ReadSample(t, testdata, "nqp-1snap-v002.mvmheap.gz")
	f := read(t, orig)
	if moarvmir.FileOf(f).Version != 2 {
		t.Fatalf("the sample reads as version %d", moarvmir.FileOf(f).Version)
	}
	out, p, d, loss := writeParse(t, f)
	want := map[string]int64{
		ir.LossTotals:           int64(len(moarvmir.TotalNames) * len(f.Snapshots)),
		moarvmir.LossMetadata:   int64(2 + 2*len(f.Snapshots)), // subversion, start time; snap time, GC number
		moarvmir.LossHighscores: int64(len(moarvmir.DefaultDataOrder)*wmoar.DefaultEntryCount) * int64(len(f.Snapshots)),
	}
	for kind, n := range want {
		if l, ok := loss.Get(kind); !ok || l.Count != n {
			t.Errorf("loss report, want %d of %s:\n%v", n, kind, loss)
		}
	}
	if len(loss) != len(want) {
		t.Errorf("loss report, want %v only:\n%v", want, loss)
	}
	const wantMeta = `{ "subversion": 1, "start_time": 0, "highscore_structure": { "entry_count": 40, "data_order": ["types_by_count", "frames_by_count", "types_by_size", "frames_by_size"]}}`
	if p.fileMeta != wantMeta {
		t.Errorf("filemeta %s, want %s", p.fileMeta, wantMeta)
	}
	var expected struct {
		Strings, Types, Frames int `json:"-"`
		StringsTotal           int `json:"strings_total"`
		TypesTotal             int `json:"types_total"`
		FramesTotal            int `json:"frames_total"`
		Snapshots              []struct {
			Collectables int            `json:"collectables"`
			References   int            `json:"references"`
			Kinds        map[string]int `json:"kind_histogram"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(irtest.ReadSample(t, testdata, "nqp-1snap-v002.expected.json"), &expected); err != nil {
		t.Fatal(err)
	}
	if len(d.strings) != expected.StringsTotal || len(d.tnames) != expected.TypesTotal || len(d.sfname) != expected.FramesTotal {
		t.Errorf("%d strings, %d types, %d frames; want %d, %d, %d", len(d.strings), len(d.tnames), len(d.sfname),
			expected.StringsTotal, expected.TypesTotal, expected.FramesTotal)
	}
	if len(d.snaps) != len(expected.Snapshots) || len(p.inner) != len(expected.Snapshots)+1 {
		t.Fatalf("%d snapshots, %d inner TOCs", len(d.snaps), len(p.inner))
	}
	for k, es := range expected.Snapshots {
		ds := d.snaps[k]
		sm := checkTotals(t, k, ds)
		want := snapMeta{0, uint64(k + 1), sm.Heap, uint64(es.Kinds["1"]), uint64(es.Kinds["2"]), uint64(es.Kinds["3"]),
			uint64(es.Kinds["4"]), uint64(es.References)}
		if sm != want || len(ds.kind) != es.Collectables {
			t.Errorf("snapshot %d: snapmeta %+v for %d collectables, want %+v for %d", k, sm, len(ds.kind), want, es.Collectables)
		}
		if !slices.Equal(names(p.inner[k]), moarOrder) {
			t.Errorf("snapshot %d: blocks %v", k, names(p.inner[k]))
		}
		if len(ds.topIDs) != 160 || ds.topScore[0] == 0 || ds.topScore[40] == 0 {
			t.Errorf("snapshot %d: highscores %v", k, ds.topScore)
		}
		checkSnapshot(t, k, f.Snapshots[k], ds)
	}
	// The v3 file reads back to the same graph and tables.
	g := read(t, out)
	if moarvmir.FileOf(g).Version != 3 || !slices.Equal(g.Strings[:moarvmir.FileOf(g).StringCount], f.Strings[:moarvmir.FileOf(f).StringCount]) ||
		!slices.Equal(g.Classes.Name, f.Classes.Name) || !slices.Equal(g.Classes.Library, f.Classes.Library) ||
		!slices.Equal(moarvmir.FileOf(g).FrameName, moarvmir.FileOf(f).FrameName) || !slices.Equal(moarvmir.FileOf(g).FrameLine, moarvmir.FileOf(f).FrameLine) {
		t.Errorf("the tables do not read back")
	}
	for k := range f.Snapshots {
		if diff := ir.GraphDiff(f, f.Snapshots[k], g, g.Snapshots[k], 10); len(diff) > 0 {
			t.Errorf("snapshot %d reads back differently:\n%s", k, strings.Join(diff, "\n"))
		}
	}
	// Written once more, the v3 file gives the same blocks.
	_, p2, _, _ := writeParse(t, g)
	sameBlocks(t, p, p2)
}

// TestConvertedReadsBack writes converted random graphs, reads them with
// the reader and writes them again: the same blocks (the reader's IR is
// what Convert made, as far as the file holds it).
func TestConvertedReadsBack(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		src := irtest.Random(seed, irtest.Everything(0, 60))
		out, p, _, _ := writeParse(t, src)
		g := read(t, out)
		conv, _, _ := wmoar.Convert(src)
		for _, s := range conv.Snapshots {
			joinContinued(&s.Nodes)
		}
		for k := range conv.Snapshots {
			if diff := ir.GraphDiff(conv, conv.Snapshots[k], g, g.Snapshots[k], 5); len(diff) > 0 {
				t.Errorf("seed %d, snapshot %d reads back differently:\n%s", seed, k, strings.Join(diff, "\n"))
			}
		}
		_, p2, _, _ := writeParse(t, g)
		sameBlocks(t, p, p2)
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

// TestRecoveredWritesComplete writes what the reader recovers from a cut
// file: a complete file whose snapshots are the original's.
func TestRecoveredWritesComplete(t *testing.T) {
	orig := irtest.ReadSample(t, testdata, "nqp-3snap.mvmheap")
	want, err := parseFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	f := read(t, orig[:1200000])
	if moarvmir.FileOf(f).Recovery == nil || len(f.Snapshots) != 2 {
		t.Fatalf("the cut file reads as %d snapshots, recovery %v", len(f.Snapshots), moarvmir.FileOf(f).Recovery)
	}
	_, got, _, _ := writeParse(t, f)
	if len(got.inner) != 3 || len(got.inner[2]) != 0 {
		t.Fatalf("%d inner TOCs written", len(got.inner))
	}
	want.inner = append(want.inner[:2], nil)
	want.outer, want.copies = want.outer[:4], 2
	sameBlocks(t, want, got)
}

// TestHalfColumnGroup: a TOC block list naming only one of the type columns
// is not followed (the reader needs both or neither); the file written
// reads back.
func TestHalfColumnGroup(t *testing.T) {
	f := read(t, irtest.ReadSample(t, testdata, "nqp-3snap.mvmheap"))
	b := moarvmir.FileOf(f).TOCs[1].Blocks
	moarvmir.FileOf(f).TOCs[1].Blocks = append(append(append([]string{}, b[:len(b)-2]...), "reprname"), b[len(b)-2:]...)
	var buf bytes.Buffer
	if _, err := wmoar.Write(&buf, f, wmoar.Options{}); err != nil {
		t.Fatal(err)
	}
	back := read(t, buf.Bytes())
	if len(back.Snapshots) != 3 {
		t.Fatalf("%d snapshots read back", len(back.Snapshots))
	}
}

// joinContinued gives what the reader makes of a self size of 65535 or
// more: the sizes moarvmir.SplitSize writes, joined by moarvmir.JoinSize.
func joinContinued(nd *ir.Nodes) {
	for i := range nd.Len() {
		x, u := nd.SelfSize.At(i), uint64(0)
		if nd.ExternalSize.Len() > 0 {
			u = nd.ExternalSize.At(i)
		}
		if x < moarvmir.SizeContinued {
			continue
		}
		x, u = moarvmir.JoinSize(moarvmir.SplitSize(x, u))
		nd.SelfSize.Set(i, x)
		if nd.ExternalSize.Len() > 0 {
			nd.ExternalSize.Set(i, u)
		}
	}
}

// TestContinuedSizes: a self size beyond colsize's 16 bits reads back
// whole (colsize 65535 and the rest in colusize, moarvmir.SizeContinued),
// with any unmanaged size in it, which the report names; a sum beyond
// 2^64-1 is capped and named; 65535 with an unmanaged size too big to join
// stays as written.
func TestContinuedSizes(t *testing.T) {
	const max = math.MaxUint64
	for _, c := range []struct {
		self, ext         uint64
		wantSelf, wantExt uint64
		kind              string
	}{
		{100000, 0, 100000, 0, ""},
		{100000, 7, 100007, 0, ir.LossExternalSizes},
		{65535, 9, 65544, 0, ir.LossExternalSizes},
		{65535, max - 100, 65535, max - 100, ""},
		{70000, max - 10001, max, 0, ir.LossSizesCapped},
		{max, 5, max, 0, ir.LossSizesCapped},
		{65534, 5, 65534, 5, ""},
	} {
		f := foreignFile(true)
		s := f.Snapshots[0]
		s.Nodes.SelfSize.Set(3, c.self)
		s.Nodes.ExternalSize.Set(3, c.ext)
		var b bytes.Buffer
		loss, err := wmoar.Write(&b, f, wmoar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := read(t, b.Bytes()).Snapshots[0]
		if x, u := g.Nodes.SelfSize.At(3), g.Nodes.ExternalSize.At(3); x != c.wantSelf || u != c.wantExt {
			t.Errorf("%d + %d read back as %d + %d, want %d + %d", c.self, c.ext, x, u, c.wantSelf, c.wantExt)
		}
		for _, k := range []string{ir.LossExternalSizes, ir.LossSizesCapped} {
			if l, ok := loss.Get(k); ok != (k == c.kind) || ok && l.Count != 1 {
				t.Errorf("%d + %d: loss %s %v (%v), want it only for %q", c.self, c.ext, k, ok, l, c.kind)
			}
		}
	}
}
