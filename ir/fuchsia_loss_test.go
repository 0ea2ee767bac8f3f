package ir

import "testing"

// TestFuchsiaLoss: each Fuchsia-only thing a process has is named with
// its count; stacks only when the target does not keep them.
func TestFuchsiaLoss(t *testing.T) {
	f := &File{Strings: []string{"", "abcd", "main"}, Fuchsia: &FuchsiaFile{}}
	f.Fuchsia.Mappings.BuildID = []uint32{1, 0}
	s := &Snapshot{Fuchsia: &FuchsiaSnapshot{
		Flags:      []uint8{FuchsiaTimestamp | FuchsiaContents, FuchsiaTimestamp, 0},
		Thread:     []uint32{1, 0, 1},
		StackFirst: []uint32{0, 1}, StackLocation: []uint32{0},
		LabelFirst: []uint32{0, 2, 2, 2}, LabelKey: []uint32{2, 2},
	}}
	s.Nodes.Kind = make([]uint8, 3)
	want := map[string]int64{LossTimestamps: 2, LossThreads: 2, LossFuchsiaContents: 1, LossFuchsiaLabels: 2,
		LossFuchsiaBuildIDs: 1, LossAllocationStacks: 3}
	loss := FuchsiaLoss(f, s, "a Dart file", false)
	for kind, n := range want {
		if l, ok := loss.Get(kind); !ok || l.Count != n {
			t.Errorf("%s: %+v, want count %d", kind, l, n)
		}
	}
	if len(loss) != len(want) {
		t.Errorf("%d kinds, want %d: %v", len(loss), len(want), loss)
	}
	if FuchsiaLoss(f, s, "a V8 snapshot", true).Has(LossAllocationStacks) {
		t.Error("stacks named as lost by a format that keeps them")
	}
	if FuchsiaLoss(f, &Snapshot{}, "a Dart file", false) != nil {
		t.Error("a snapshot without a Fuchsia section loses something")
	}
}
