package ir_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

func uints(vs ...uint64) ir.Uints {
	var u ir.Uints
	u.AppendAll(vs)
	return u
}

// wantLoss requires the report to be exactly want: kind → count.
func wantLoss(t *testing.T, loss ir.LossReport, want map[string]int64) {
	t.Helper()
	for kind, n := range want {
		if l, ok := loss.Get(kind); !ok || l.Count != n {
			t.Errorf("%s: want %d, report:\n%v", kind, n, loss)
		}
	}
	if len(loss) != len(want) {
		t.Errorf("report has %d kinds, want %d:\n%v", len(loss), len(want), loss)
	}
}

// TestV8Loss: every part of a V8 section another format cannot hold is
// named with its count; the allocation traces only when the target does
// not keep them.
func TestV8Loss(t *testing.T) {
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set("location_fields", ir.JSONStrs("object_index", "script_id", "line", "column"))
	meta.Set("sample_fields", ir.JSONStrs("timestamp_us", "last_assigned_id"))
	header := ir.JSON{Kind: ir.JSONObject}
	header.Set("meta", meta)
	extra := ir.JSON{Kind: ir.JSONArray}
	v := &ir.V8Snapshot{Header: header,
		NodeExtra: []ir.Column{{Name: "trace_node_id", Values: uints(0, 3, 3, 0)}, {Name: "detachedness", Values: uints(0, 1, 2, 2)},
			{Name: "flags", Values: uints(0, 0, 0, 0)}},
		EdgeExtra: []ir.Column{{Name: "weight", Values: uints(1)}},
		Locations: uints(1, 7, 10, 2, 2, 7, 11, 4, 3, 7, 12, 0),
		Samples:   uints(100, 5, 200, 9),
		Keys:      []ir.V8Key{{Name: v8ir.KeySnapshot}, {Name: "extra", Value: &extra}},
	}
	s := &ir.Snapshot{V8: v}
	wantLoss(t, ir.V8Loss(&ir.File{}, s, "a Dart file", false), map[string]int64{
		ir.LossV8Detachedness:   3,
		ir.LossAllocationStacks: 2,
		ir.LossV8Fields:         2, // node field flags, edge field weight
		ir.LossV8Locations:      3,
		ir.LossV8Samples:        2,
		ir.LossV8Section:        1,
	})
	loss := ir.V8Loss(&ir.File{}, s, "a pprof profile", true)
	if loss.Has(ir.LossAllocationStacks) {
		t.Errorf("a target that keeps the traces loses them:\n%v", loss)
	}
	if l, _ := loss.Get(ir.LossV8Detachedness); l.Example != "2 detached" {
		t.Errorf("detachedness example %q, want the detached count", l.Example)
	}
	if loss := ir.V8Loss(&ir.File{}, &ir.Snapshot{}, "a Dart file", false); loss != nil {
		t.Errorf("a snapshot without a V8 section loses %v", loss)
	}
}

// TestMoarVMLoss: a MoarVM file's static frames (unless kept), metadata
// fields and highscore entries are named with their counts.
func TestMoarVMLoss(t *testing.T) {
	f := &ir.File{Strings: []string{"", "frame", "cu", "x.nqp"}}
	f.MoarVM = &ir.MoarVMFile{Version: 3, HasMeta: true, HasPID: true, DataOrder: []string{"a", "b"}, EntryCount: 2,
		FrameName: []uint32{1, 1}, FrameCUID: []uint32{2, 2}, FrameFile: []uint32{3, 3}, FrameLine: []uint32{4, 5}}
	for range 2 {
		f.Snapshots = append(f.Snapshots, &ir.Snapshot{MoarVM: &ir.MoarVMSnapshot{HasMeta: true,
			TopIDs: []uint64{1, 2, 3, 4}, TopScores: []uint64{9, 8, 7, 6}}})
	}
	wantLoss(t, ir.MoarVMLoss(f, "a Dart file", false), map[string]int64{
		ir.LossMoarVMStaticFrames: 2,
		ir.LossMoarVMMetadata:     3 + 2*2, // subversion, start time, pid; per snapshot time and GC number
		ir.LossMoarVMHighscores:   8,
	})
	if loss := ir.MoarVMLoss(f, "a V8 snapshot", true); loss.Has(ir.LossMoarVMStaticFrames) {
		t.Errorf("a target that keeps the frames loses them:\n%v", loss)
	}
	if loss := ir.MoarVMLoss(&ir.File{}, "a Dart file", false); loss != nil {
		t.Errorf("a file without a MoarVM section loses %v", loss)
	}
}

// TestDartLoss: the VM's class and field layout is named, and unless the
// target keeps the class table, the library URIs of a Dart file's classes
// (not heapconv's own, which say where a class came from) and its external
// property names.
func TestDartLoss(t *testing.T) {
	f := &ir.File{Strings: []string{"", "Foo", "package:a/a.dart", ir.DartForeignURI(ir.FormatV8), "buf", "x"}}
	f.Classes.Name = []uint32{1, 1, 1}
	f.Classes.FieldName = []uint32{5, 5}
	s := &ir.Snapshot{Dart: &ir.DartSnapshot{ClassURI: []uint32{2, 3, 0}, ExternalName: []uint32{4, 4}}}
	loss := ir.DartLoss(f, s, "a pprof profile", false)
	wantLoss(t, loss, map[string]int64{ir.LossDartSection: 3 + 2 + 1 + 2}) // classes, fields; a URI, two names
	if l, _ := loss.Get(ir.LossDartSection); l.Example != "Foo of package:a/a.dart" {
		t.Errorf("example %q", l.Example)
	}
	wantLoss(t, ir.DartLoss(f, s, "a V8 snapshot", true), map[string]int64{ir.LossDartSection: 3 + 2})
	if loss := ir.DartLoss(f, &ir.Snapshot{}, "a V8 snapshot", false); loss != nil {
		t.Errorf("a snapshot without a Dart section loses %v", loss)
	}
}
