package moarvm_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/readers/moarvm"
)

const testdata = "../../testdata/moarvm"

// expected is the summary an independent reader made of each shared sample.
type expected struct {
	Format   string `json:"format"`
	Filemeta *struct {
		Subversion uint64 `json:"subversion"`
		StartTime  uint64 `json:"start_time"`
		PID        uint64 `json:"pid"`
		HS         struct {
			EntryCount uint64   `json:"entry_count"`
			DataOrder  []string `json:"data_order"`
		} `json:"highscore_structure"`
	} `json:"filemeta"`
	StringsTotal int      `json:"strings_total"`
	TypesTotal   int      `json:"types_total"`
	FramesTotal  int      `json:"frames_total"`
	FirstStrings []string `json:"first_strings"`
	InnerTOCs    int      `json:"inner_tocs"`
	Snapshots    []struct {
		Blocks       []string          `json:"blocks"`
		Snapmeta     map[string]uint64 `json:"snapmeta"`
		EntrySizes   map[string]int    `json:"entry_sizes"`
		Collectables int               `json:"collectables"`
		References   int               `json:"references"`
		KindHist     map[string]int    `json:"kind_histogram"`
		RefKindHist  map[string]int    `json:"ref_kind_histogram"`
		SumSize      *uint64           `json:"sum_size_plus_unmanaged"`
		NewStrings   *int              `json:"new_strings"`
		NewTypes     *int              `json:"new_types"`
		NewFrames    *int              `json:"new_frames"`
		RootKind     *int              `json:"root_kind"`
		RootRefs     []struct {
			Ref    string `json:"ref"`
			To     int    `json:"to"`
			ToKind int    `json:"to_kind"`
		} `json:"root_refs"`
		Top3 map[string][][]any `json:"highscores_top3"`
		Note string             `json:"note"` // set for the final TOC, which holds no snapshot
	} `json:"snapshots"`
}

func TestSamples(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"nqp-1snap.mvmheap", "nqp-1snap.expected.json"},
		{"nqp-3snap.mvmheap", "nqp-3snap.expected.json"},
		{"nqp-1snap-v002.mvmheap.gz", "nqp-1snap-v002.expected.json"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var want expected
			if err := json.Unmarshal(irtest.ReadSample(t, testdata, tc.want), &want); err != nil {
				t.Fatal(err)
			}
			data := irtest.ReadSample(t, testdata, tc.file)
			f, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkSample(t, f, &want)
		})
	}
}

func checkSample(t *testing.T, f *ir.File, want *expected) {
	m := moarvmir.FileOf(f)
	if got := "v00" + strconv.Itoa(m.Version); got != want.Format {
		t.Errorf("version %s, want %s", got, want.Format)
	}
	if want.Filemeta != nil {
		fm := want.Filemeta
		if m.Subversion != fm.Subversion || m.StartTime != fm.StartTime || !m.HasPID || m.PID != fm.PID ||
			m.EntryCount != fm.HS.EntryCount || !slices.Equal(m.DataOrder, fm.HS.DataOrder) {
			t.Errorf("filemeta %+v, want %+v", m, fm)
		}
	}
	if m.StringCount != want.StringsTotal || f.Classes.Len() != want.TypesTotal || m.Frames() != want.FramesTotal {
		t.Errorf("strings/types/frames %d/%d/%d, want %d/%d/%d", m.StringCount, f.Classes.Len(), m.Frames(),
			want.StringsTotal, want.TypesTotal, want.FramesTotal)
	}
	if got := f.Strings[:len(want.FirstStrings)]; !slices.Equal(got, want.FirstStrings) {
		t.Errorf("first strings %q, want %q", got, want.FirstStrings)
	}
	if want.InnerTOCs > 0 && len(m.TOCs) != want.InnerTOCs {
		t.Errorf("%d inner TOCs, want %d", len(m.TOCs), want.InnerTOCs)
	}
	snaps := want.Snapshots
	if n := len(snaps); n > 0 && snaps[n-1].Note != "" {
		if len(snaps[n-1].Blocks) != 0 || len(m.TOCs[len(m.TOCs)-1].Blocks) != 0 {
			t.Errorf("final TOC has blocks %q, want %q", m.TOCs[len(m.TOCs)-1].Blocks, snaps[n-1].Blocks)
		}
		snaps = snaps[:n-1]
	}
	if len(f.Snapshots) != len(snaps) {
		t.Fatalf("%d snapshots, want %d", len(f.Snapshots), len(snaps))
	}
	stringsSoFar := 0
	for k, ws := range snaps {
		s := f.Snapshots[k]
		stringsSoFar += int(m.TOCs[k].NewStrings)
		if ws.Blocks != nil && !slices.Equal(m.TOCs[k].Blocks, ws.Blocks) {
			t.Errorf("snapshot %d: blocks %q, want %q", k, m.TOCs[k].Blocks, ws.Blocks)
		}
		if ws.Snapmeta != nil {
			got := map[string]uint64{"snap_time": moarvmir.Of(s).SnapTime, "gc_seq_num": moarvmir.Of(s).GCSeqNum}
			for _, tot := range s.Totals {
				got[tot.Name] = tot.Value
			}
			if !mapsEqual(got, ws.Snapmeta) {
				t.Errorf("snapshot %d: snapmeta %v, want %v", k, got, ws.Snapmeta)
			}
		}
		if s.Nodes.Len() != ws.Collectables || s.Edges.Len() != ws.References {
			t.Errorf("snapshot %d: %d collectables and %d references, want %d and %d", k, s.Nodes.Len(), s.Edges.Len(), ws.Collectables, ws.References)
		}
		hist := map[string]int{}
		var sum uint64
		for i := 0; i < s.Nodes.Len(); i++ {
			hist[strconv.Itoa(int(s.Nodes.Kind[i]))]++
			sum += s.Nodes.SelfSize.At(i) + s.Nodes.ExternalSize.At(i)
		}
		if !mapsEqual(hist, ws.KindHist) {
			t.Errorf("snapshot %d: kinds %v, want %v", k, hist, ws.KindHist)
		}
		if ws.SumSize != nil && sum != *ws.SumSize {
			t.Errorf("snapshot %d: size + unmanaged %d, want %d", k, sum, *ws.SumSize)
		}
		if ws.RefKindHist != nil {
			rh := map[string]int{}
			for e := 0; e < s.Edges.Len(); e++ {
				k := s.Edges.Kind[e]
				if k == moarvmir.BadString {
					k = moarvmir.StringRef
				}
				rh[strconv.Itoa(int(k))]++
			}
			if !mapsEqual(rh, ws.RefKindHist) {
				t.Errorf("snapshot %d: reference kinds %v, want %v", k, rh, ws.RefKindHist)
			}
		}
		if ws.NewStrings != nil && int(m.TOCs[k].NewStrings) != *ws.NewStrings {
			t.Errorf("snapshot %d: %d new strings, want %d", k, m.TOCs[k].NewStrings, *ws.NewStrings)
		}
		if ws.NewTypes != nil && int(m.TOCs[k].NewTypes) != *ws.NewTypes {
			t.Errorf("snapshot %d: %d new types, want %d", k, m.TOCs[k].NewTypes, *ws.NewTypes)
		}
		if ws.NewFrames != nil && int(m.TOCs[k].NewFrames) != *ws.NewFrames {
			t.Errorf("snapshot %d: %d new frames, want %d", k, m.TOCs[k].NewFrames, *ws.NewFrames)
		}
		if ws.RootKind != nil && int(s.Nodes.Kind[0]) != *ws.RootKind {
			t.Errorf("snapshot %d: root kind %d, want %d", k, s.Nodes.Kind[0], *ws.RootKind)
		}
		lo, hi := s.Nodes.EdgeRange(0)
		if hi-lo != len(ws.RootRefs) {
			t.Errorf("snapshot %d: root has %d references, want %d", k, hi-lo, len(ws.RootRefs))
		} else {
			for j, rr := range ws.RootRefs {
				e := lo + j
				to := int(s.Edges.Target[e])
				if s.Edges.Kind[e] != moarvmir.StringRef || f.Strings[s.Edges.Name[e]] != rr.Ref || to != rr.To || int(s.Nodes.Kind[to]) != rr.ToKind {
					t.Errorf("snapshot %d: root reference %d: %q to %d (kind %d), want %q to %d (kind %d)", k, j,
						f.String(s.Edges.Name[e]), to, s.Nodes.Kind[to], rr.Ref, rr.To, rr.ToKind)
				}
			}
		}
		for b, board := range m.DataOrder {
			top := ws.Top3[board]
			for j, entry := range top {
				at := b*int(m.EntryCount) + j
				id, score := uint64(entry[0].(float64)), uint64(entry[2].(float64))
				name := entry[1].(string)
				var gotName string
				if board == "types_by_count" || board == "types_by_size" {
					gotName = f.String(f.Classes.Name[moarvmir.Of(s).TopIDs[at]])
				} else {
					gotName = f.String(m.FrameName[moarvmir.Of(s).TopIDs[at]])
				}
				if moarvmir.Of(s).TopIDs[at] != id || moarvmir.Of(s).TopScores[at] != score || gotName != name {
					t.Errorf("snapshot %d: %s[%d] = %d %q %d, want %d %q %d", k, board, j,
						moarvmir.Of(s).TopIDs[at], gotName, moarvmir.Of(s).TopScores[at], id, name, score)
				}
			}
		}
	}
	if stringsSoFar > m.StringCount {
		t.Errorf("the snapshots add %d strings, more than the file's %d", stringsSoFar, m.StringCount)
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestGarbageAfterNUL: MoarVM 2020.05–2020.12 left a garbage byte after the
// NUL of 6-letter block names in block headers; such files read the same.
func TestGarbageAfterNUL(t *testing.T) {
	data := irtest.ReadSample(t, testdata, "nqp-1snap.mvmheap")
	want, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	n := 0
	for _, name := range []string{"sfname\x00\x00", "sfcuid\x00\x00", "sfline\x00\x00", "sffile\x00\x00", "topIDs\x00\x00"} {
		// The first occurrence is the block header; TOC entries come after.
		i := bytes.Index(bad, []byte(name))
		if i < 0 {
			t.Fatalf("no %q block", name)
		}
		bad[i+7] = 'Z'
		n++
	}
	got, err := moarvm.Read(bytes.NewReader(bad), moarvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Diff(want, got, 5); len(d) > 0 {
		t.Errorf("with garbage after %d names, the file reads differently: %q", n, d)
	}
}
