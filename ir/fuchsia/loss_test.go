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
	strs := []string{"", "abcd", "main", fuchsiair.ClassMappingID(0), fuchsiair.ScriptMappingID(7),
		fuchsiair.ObjectsType, fuchsiair.CountUnit, fuchsiair.AllocatedType, fuchsiair.BytesUnit, "inuse_space", "_Z4mainv"}
	ff := &fuchsiair.File{
		// ffx's two sample types and a third; a comment, a duration and a
		// doc url; the time is the capture time, which is not counted.
		SampleTypes: []fuchsiair.ValueType{{Type: 5, Unit: 6}, {Type: 7, Unit: 8}, {Type: 9, Unit: 8}},
		Comments:    []uint32{2}, DurationNanos: 5, DocURL: 1, TimeNanos: 1e9,
	}
	// Build ids: a module's, none, heapconv's class and script mappings
	// (which are not counted).
	ff.Mappings.BuildID = []uint32{1, 0, 3, 4}
	ff.Mappings.File = make([]uint32, 4)
	ff.Mappings.Offset = make([]uint64, 4)
	// Two functions, one with a system name and a start line; a location
	// of two lines (an inlined function) and one of one.
	ff.Functions = fuchsiair.Functions{ID: []uint64{1, 2}, Name: []uint32{2, 2}, SystemName: []uint32{10, 0}, Filename: []uint32{0, 0},
		StartLine: []int64{3, 0}}
	ff.Locations = fuchsiair.Locations{ID: []uint64{1, 2}, Mapping: []uint32{0, 0}, Address: []uint64{0, 0}, Folded: []bool{false, false},
		FirstLine: []uint32{0, 2, 3}, Function: []uint32{1, 2, 2}, Line: []int64{1, 2, 3}, Column: []int64{0, 0, 0}}
	f := &ir.File{Strings: strs, Sections: []ir.Section{ff}}
	fs := &fuchsiair.Snapshot{
		Flags:      []uint8{fuchsiair.FlagTimestamp | fuchsiair.FlagContents, fuchsiair.FlagTimestamp, 0},
		Thread:     []uint32{1, 0, 1},
		StackFirst: []uint32{0, 1}, StackLocation: []uint32{0},
		LabelFirst: []uint32{0, 2, 2, 2}, LabelKey: []uint32{2, 2},
		ExtraValues:    []int64{1, 2, 3},
		HasProcessName: true, ProcessName: 2, HasProcessKoid: true, ProcessKoid: 42,
		Stream: &fuchsiair.Stream{Records: []uint8{1, 1, 1, 0x80}},
	}
	s := &ir.Snapshot{Sections: []ir.Section{fs}}
	s.Nodes.Kind = make([]uint8, 3)
	dart := ir.Target{Format: "dart", Name: "a Dart file"}
	loss := ir.SectionLoss(f, s, dart)
	loss.Merge(ir.SectionLoss(f, nil, dart))
	want := map[string]int64{ir.LossTimestamps: 2, ir.LossThreads: 2, fuchsiair.LossContents: 1, fuchsiair.LossLabels: 2,
		fuchsiair.LossBuildIDs: 1, ir.LossAllocationStacks: 3, fuchsiair.LossStream: 4, fuchsiair.LossSampleValues: 3,
		fuchsiair.LossProcessKoids: 1, fuchsiair.LossProfile: 4, fuchsiair.LossSystemNames: 1, fuchsiair.LossStartLines: 1,
		fuchsiair.LossInlineFrames: 1}
	for kind, n := range want {
		if l, ok := loss.Get(kind); !ok || l.Count != n {
			t.Errorf("%s: %+v, want count %d", kind, l, n)
		}
	}
	if len(loss) != len(want) {
		t.Errorf("%d kinds, want %d: %v", len(loss), len(want), loss)
	}
	if l, _ := loss.Get(fuchsiair.LossProfile); l.Example != "sample types, comments, duration_nanos, doc_url" {
		t.Errorf("the profile's fields are listed as %q", l.Example)
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
