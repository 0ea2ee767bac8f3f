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
	meta.Set(v8ir.MetaTraceFunctionInfoFields, ir.JSONStrs(v8ir.TraceFunctionInfoFields...))
	meta.Set(v8ir.MetaTraceNodeFields, ir.JSONStrs(v8ir.TraceNodeFields...))
	header := ir.JSON{Kind: ir.JSONObject}
	header.Set("meta", meta)
	extra := ir.JSON{Kind: ir.JSONArray}
	v := &v8ir.Snapshot{Header: header,
		// Node 0 is synthetic; 1 and 2 were allocated in trace node 2
		// (function 1, below the root); 3 is traced to the root (1), which
		// is no frame; 4 has no trace; 5 a trace node the tree lacks.
		NodeExtra: []v8ir.Field{{Name: "trace_node_id", Values: uints(2, 2, 2, 1, 0, 9)}, {Name: "detachedness", Values: uints(0, 1, 2, 2, 0, 0)},
			{Name: "flags", Values: uints(0, 0, 0, 0, 0, 0)}},
		EdgeExtra: []v8ir.Field{{Name: "weight", Values: uints(1)}},
		// One top-level node (the root, id 1) with one child (id 2).
		TraceTree:          uints(1, 1, 0, 0, 0, 1, 2, 1, 0, 0, 0),
		TraceFunctionInfos: uints(0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 3, 4),
		Locations:          uints(1, 7, 10, 2, 2, 7, 11, 4, 3, 7, 12, 0),
		Samples:            uints(100, 5, 200, 9),
		Keys:               []v8ir.Key{{Name: v8ir.KeySnapshot}, {Name: "extra", Value: &extra}},
	}
	f := &ir.File{}
	s := &ir.Snapshot{NodeKinds: []string{ir.KindSynthetic, ir.KindObject}, Sections: []ir.Section{v}}
	s.Nodes.Kind = []uint8{0, 1, 1, 1, 1, 1}
	wantLoss(t, ir.SectionLoss(f, s, ir.Target{Format: "dart", Name: "a Dart file"}), map[string]int64{
		v8ir.LossDetachedness: 3,
		// Objects whose stack has a frame: 1 and 2.
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

// TestHeaderLoss: a trace_function_count other than the number of
// functions is named with how many functions it was off by; a right one,
// and a missing one without functions, are not.
func TestHeaderLoss(t *testing.T) {
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set(v8ir.MetaTraceFunctionInfoFields, ir.JSONStrs(v8ir.TraceFunctionInfoFields...))
	tests := []struct {
		name     string
		count    *ir.JSON // the header's trace_function_count; nil for none
		rows     int      // functions in trace_function_infos
		declared string
		off      int64 // 0: nothing to correct
	}{
		{"right", new(ir.JSONNum(3)), 3, "3", 0},
		{"none, no functions", nil, 0, "missing", 0},
		{"short, as Node 20's inspector writes it", new(ir.JSONNum(17)), 20, "17", 3},
		{"beyond", new(ir.JSONNum(5)), 2, "5", 3},
		{"missing", nil, 4, "missing", 4},
		{"not a count", new(ir.JSONStr("7")), 7, `"7"`, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &v8ir.Snapshot{Header: ir.JSON{Kind: ir.JSONObject}}
			v.Header.Set(v8ir.HeaderMeta, meta)
			if tc.count != nil {
				v.Header.Set(v8ir.HeaderTraceFunctionCount, *tc.count)
			}
			v.TraceFunctionInfos.AppendZeros(tc.rows * len(v8ir.TraceFunctionInfoFields))
			declared, wrong := v.TraceFunctionCountWrong()
			if declared != tc.declared || wrong != (tc.off > 0) {
				t.Errorf("TraceFunctionCountWrong: %q %v, want %q %v", declared, wrong, tc.declared, tc.off > 0)
			}
			want := map[string]int64{}
			if tc.off > 0 {
				want[v8ir.LossHeader] = tc.off
			}
			wantLoss(t, v.HeaderLoss(), want)
		})
	}
}

// TestLossTracedObjects: the allocation traces lost are counted in objects
// that have a stack: not a node whose trace node is V8's root trace node
// (no function: allocated with no JavaScript on the stack), not a synthetic
// node, not a node without a trace.
func TestLossTracedObjects(t *testing.T) {
	meta := ir.JSON{Kind: ir.JSONObject}
	meta.Set(v8ir.MetaTraceFunctionInfoFields, ir.JSONStrs(v8ir.TraceFunctionInfoFields...))
	meta.Set(v8ir.MetaTraceNodeFields, ir.JSONStrs(v8ir.TraceNodeFields...))
	header := ir.JSON{Kind: ir.JSONObject}
	header.Set(v8ir.HeaderMeta, meta)
	v := &v8ir.Snapshot{Header: header,
		// Trace node 1 is the root (function 0), 2 its child (function 1).
		TraceTree:          uints(1, 1, 0, 0, 0, 1, 2, 1, 3, 40, 0),
		TraceFunctionInfos: uints(0, 1, 0, 0, 0, 0, 7, 2, 0, 1, 3, 4),
		// Node 0 is synthetic; 1 and 2 have a stack, 3 the root trace
		// node's, 4 none.
		NodeExtra: []v8ir.Field{{Name: v8ir.NodeTraceNodeID, Values: uints(2, 2, 2, 1, 0)}},
	}
	f := &ir.File{Strings: []string{"", "(root)", "f"}}
	s := &ir.Snapshot{NodeKinds: []string{ir.KindSynthetic, "object"}, Sections: []ir.Section{v}}
	s.Nodes.Kind = []uint8{0, 1, 1, 1, 1}
	wantLoss(t, ir.SectionLoss(f, s, ir.Target{Format: "dart", Name: "a Dart file"}), map[string]int64{
		ir.LossAllocationStacks: 2,
	})
}
