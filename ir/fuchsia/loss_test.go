package fuchsia_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// TestLoss: each Fuchsia-only thing a process has is named with its count
// (the build ids by the file's section); stacks only when the target does
// not keep them; a stream's details only by a profile.
func TestLoss(t *testing.T) {
	ff := &fuchsiair.File{}
	ff.Mappings.BuildID = []uint32{1, 0}
	f := &ir.File{Strings: []string{"", "abcd", "main"}, Sections: []ir.Section{ff}}
	fs := &fuchsiair.Snapshot{
		Flags:      []uint8{fuchsiair.FlagTimestamp | fuchsiair.FlagContents, fuchsiair.FlagTimestamp, 0},
		Thread:     []uint32{1, 0, 1},
		StackFirst: []uint32{0, 1}, StackLocation: []uint32{0},
		LabelFirst: []uint32{0, 2, 2, 2}, LabelKey: []uint32{2, 2},
		Stream: &fuchsiair.Stream{Records: []uint8{1, 1, 1, 0x80}},
	}
	s := &ir.Snapshot{Sections: []ir.Section{fs}}
	s.Nodes.Kind = make([]uint8, 3)
	dart := ir.Target{Format: "dart", Name: "a Dart file"}
	loss := ir.SectionLoss(f, s, dart)
	loss.Merge(ir.SectionLoss(f, nil, dart))
	want := map[string]int64{ir.LossTimestamps: 2, ir.LossThreads: 2, fuchsiair.LossContents: 1, fuchsiair.LossLabels: 2,
		fuchsiair.LossBuildIDs: 1, ir.LossAllocationStacks: 3, fuchsiair.LossStream: 4}
	for kind, n := range want {
		if l, ok := loss.Get(kind); !ok || l.Count != n {
			t.Errorf("%s: %+v, want count %d", kind, l, n)
		}
	}
	if len(loss) != len(want) {
		t.Errorf("%d kinds, want %d: %v", len(loss), len(want), loss)
	}
	if ir.SectionLoss(f, s, ir.Target{Format: "v8", Name: "a V8 snapshot", KeepsStacks: true}).Has(ir.LossAllocationStacks) {
		t.Error("stacks named as lost by a format that keeps them")
	}
	profile := ir.Target{Format: fuchsiair.Format, Name: "a pprof profile"}
	if loss := ir.SectionLoss(f, s, profile); len(loss) != 1 || !loss.Has(fuchsiair.LossStream) {
		t.Errorf("a profile loses %v, want only the stream's details", loss)
	}
	if loss := ir.SectionLoss(f, nil, profile); loss != nil {
		t.Errorf("a profile loses the build ids: %v", loss)
	}
	if loss := ir.SectionLoss(f, s, ir.Target{Format: fuchsiair.FormatFIDL}); loss != nil {
		t.Errorf("a stream loses %v", loss)
	}
}
