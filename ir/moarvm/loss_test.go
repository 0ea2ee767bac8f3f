package moarvm_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// TestLoss: a MoarVM file's static frames (unless kept), metadata fields
// and highscore entries are named with their counts, by the file's
// section, once for the file.
func TestLoss(t *testing.T) {
	f := &ir.File{Strings: []string{"", "frame", "cu", "x.nqp"}}
	f.SetSection(&moarvmir.File{Version: 3, HasMeta: true, HasPID: true, DataOrder: []string{"a", "b"}, EntryCount: 2,
		FrameName: []uint32{1, 1}, FrameCUID: []uint32{2, 2}, FrameFile: []uint32{3, 3}, FrameLine: []uint32{4, 5}})
	for range 2 {
		f.Snapshots = append(f.Snapshots, &ir.Snapshot{Sections: []ir.Section{&moarvmir.Snapshot{HasMeta: true,
			TopIDs: []uint64{1, 2, 3, 4}, TopScores: []uint64{9, 8, 7, 6}}}})
	}
	dart := ir.Target{Format: "dart", Name: "a Dart file"}
	loss := ir.SectionLoss(f, nil, dart)
	want := map[string]int64{
		moarvmir.LossStaticFrames: 2,
		moarvmir.LossMetadata:     3 + 2*2, // subversion, start time, pid; per snapshot time and GC number
		moarvmir.LossHighscores:   8,
	}
	for kind, n := range want {
		if l, ok := loss.Get(kind); !ok || l.Count != n {
			t.Errorf("%s: want %d, report:\n%v", kind, n, loss)
		}
	}
	if len(loss) != len(want) {
		t.Errorf("report has %d kinds, want %d:\n%v", len(loss), len(want), loss)
	}
	if loss := ir.SectionLoss(f, f.Snapshots[0], dart); loss != nil {
		t.Errorf("the snapshot sections report %v: the file's section counts for them", loss)
	}
	if loss := ir.SectionLoss(f, nil, ir.Target{Format: "v8", Name: "a V8 snapshot", KeepsFrames: true}); loss.Has(moarvmir.LossStaticFrames) {
		t.Errorf("a target that keeps the frames loses them:\n%v", loss)
	}
	if loss := ir.SectionLoss(f, nil, ir.Target{Format: moarvmir.Format}); loss != nil {
		t.Errorf("a MoarVM target loses %v", loss)
	}
}
