package v8_test

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

// TestLoss: every part of a V8 section another format cannot hold is named
// with its count; the allocation traces only when the target does not
// keep them; nothing for a V8 target.
func TestLoss(t *testing.T) {
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set("location_fields", ir.JSONStrs("object_index", "script_id", "line", "column"))
	meta.Set("sample_fields", ir.JSONStrs("timestamp_us", "last_assigned_id"))
	header := ir.JSON{Kind: ir.JSONObject}
	header.Set("meta", meta)
	extra := ir.JSON{Kind: ir.JSONArray}
	v := &v8ir.Snapshot{Header: header,
		NodeExtra: []v8ir.Field{{Name: "trace_node_id", Values: uints(0, 3, 3, 0)}, {Name: "detachedness", Values: uints(0, 1, 2, 2)},
			{Name: "flags", Values: uints(0, 0, 0, 0)}},
		EdgeExtra: []v8ir.Field{{Name: "weight", Values: uints(1)}},
		Locations: uints(1, 7, 10, 2, 2, 7, 11, 4, 3, 7, 12, 0),
		Samples:   uints(100, 5, 200, 9),
		Keys:      []v8ir.Key{{Name: v8ir.KeySnapshot}, {Name: "extra", Value: &extra}},
	}
	f, s := &ir.File{}, &ir.Snapshot{Sections: []ir.Section{v}}
	wantLoss(t, ir.SectionLoss(f, s, ir.Target{Format: "dart", Name: "a Dart file"}), map[string]int64{
		v8ir.LossDetachedness:   3,
		ir.LossAllocationStacks: 2,
		v8ir.LossFields:         2, // node field flags, edge field weight
		v8ir.LossLocations:      3,
		v8ir.LossSamples:        2,
		v8ir.LossSection:        1,
	})
	loss := ir.SectionLoss(f, s, ir.Target{Format: "fuchsia", Name: "a pprof profile", KeepsStacks: true})
	if loss.Has(ir.LossAllocationStacks) {
		t.Errorf("a target that keeps the traces loses them:\n%v", loss)
	}
	if l, _ := loss.Get(v8ir.LossDetachedness); l.Example != "2 detached" {
		t.Errorf("detachedness example %q, want the detached count", l.Example)
	}
	if loss := ir.SectionLoss(f, s, ir.Target{Format: v8ir.Format, Name: "a V8 snapshot"}); loss != nil {
		t.Errorf("a V8 target loses %v", loss)
	}
}
