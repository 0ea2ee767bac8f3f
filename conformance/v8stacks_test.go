package conformance

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// v8Frame is one frame of a V8 allocation stack as V8 writes it: a row of
// trace_function_infos but its function_id.
type v8Frame struct {
	name, script string
	scriptID     uint64
	line, column uint64
}

func (fr v8Frame) String() string {
	return fmt.Sprintf("%q %q#%d:%d:%d", fr.name, fr.script, fr.scriptID, fr.line, fr.column)
}

// v8ObjectStacks returns the allocation stack of every object (node a
// writer did not synthesize) of a V8 snapshot, in node order, innermost
// frame first, without the tree's "(root)". It reads trace_tree and
// trace_function_infos itself, by the meta's field lists, rather than
// through v8ir.Traces, so that it judges the reader as well.
func v8ObjectStacks(t *testing.T, f *ir.File) [][]v8Frame {
	t.Helper()
	s := f.Snapshots[0]
	v := v8ir.Of(s)
	infoFields, nodeFields := v.MetaList(v8ir.MetaTraceFunctionInfoFields), v.MetaList(v8ir.MetaTraceNodeFields)
	col := v.NodeColumn(v8ir.NodeTraceNodeID)
	if col == nil || len(infoFields) == 0 || len(nodeFields) < 2 || v.TraceTree.Len() == 0 {
		t.Fatal("the snapshot has no allocation traces")
	}
	field := func(name string) int {
		k := slices.Index(infoFields, name)
		if k < 0 {
			t.Fatalf("trace_function_info_fields %q lack %q", infoFields, name)
		}
		return k
	}
	fName, fScript, fScriptID, fLine, fColumn := field("name"), field("script_name"), field("script_id"), field("line"), field("column")
	width := len(infoFields)
	functions := make([]v8Frame, v.TraceFunctionInfos.Len()/width)
	for k := range functions {
		at := func(j int) uint64 { return v.TraceFunctionInfos.At(k*width + j) }
		functions[k] = v8Frame{name: f.String(uint32(at(fName))), script: f.String(uint32(at(fScript))),
			scriptID: at(fScriptID), line: at(fLine), column: at(fColumn)}
	}
	// The tree, flattened in pre-order: each node's fields but
	// "children", its child count, its children.
	id, fi := slices.Index(nodeFields, "id"), slices.Index(nodeFields, "function_info_index")
	own := len(nodeFields) - 1
	type traceNode struct{ parent, function uint64 }
	nodes := map[uint64]traceNode{}
	tt, pos := &v.TraceTree, 1
	type level struct{ node, pending uint64 }
	open := []level{{0, tt.At(0)}}
	for len(open) > 0 {
		top := &open[len(open)-1]
		if top.pending == 0 {
			open = open[:len(open)-1]
			continue
		}
		top.pending--
		n := tt.At(pos + id)
		nodes[n] = traceNode{parent: top.node, function: tt.At(pos + fi)}
		open = append(open, level{n, tt.At(pos + own)})
		pos += own + 1
	}
	skip := ir.SyntheticNodes(f, s)
	var out [][]v8Frame
	for i := range s.Nodes.Len() {
		if skip[i] {
			continue
		}
		var stack []v8Frame
		for n := col.At(i); n != 0; {
			tn, ok := nodes[n]
			if !ok {
				t.Fatalf("node %d: trace node %d is not in the tree", i, n)
			}
			if tn.parent == 0 {
				break // the tree's root, "(root)": no frame
			}
			stack = append(stack, functions[tn.function])
			n = tn.parent
		}
		out = append(out, stack)
	}
	return out
}

// TestV8StacksBack: the allocation stacks of a real Node snapshot taken
// with allocation tracking come back from a pprof profile exactly, frame
// by frame: function name (anonymous functions have an empty one), script
// name, script id, line and column, for every traced object. Through a
// FIDL stream, which has program addresses but no functions, the objects
// whose stacks do not come back are the count the loss report names, and
// it says how many frames (functions) are lost.
func TestV8StacksBack(t *testing.T) {
	v8 := formatByName(v8ir.Format)
	src := read(t, v8, loadFixture(t, filepath.Join(moduleRoot, "testdata", "v8", "node26-tracking.heapsnapshot.zst")))
	want := v8ObjectStacks(t, src)
	traced, anonymous := 0, 0
	for _, st := range want {
		if len(st) > 0 {
			traced++
		}
		if slices.ContainsFunc(st, func(fr v8Frame) bool { return fr.name == "" }) {
			anonymous++
		}
	}
	if traced < 1000 || anonymous < 100 {
		t.Fatalf("the fixture has %d traced objects, %d with an anonymous frame: not what this test needs", traced, anonymous)
	}
	for _, via := range []string{fuchsiair.Format, fuchsiair.FormatFIDL} {
		t.Run(via, func(t *testing.T) {
			mid, loss := write(t, formatByName(via), src)
			back, _ := write(t, v8, read(t, formatByName(via), mid))
			got := v8ObjectStacks(t, read(t, v8, back))
			if len(got) != len(want) {
				t.Fatalf("%d objects came back, of %d", len(got), len(want))
			}
			differ, example := 0, ""
			wantFrames, gotFrames := map[v8Frame]bool{}, map[v8Frame]bool{}
			for i := range want {
				for _, fr := range want[i] {
					wantFrames[fr] = true
				}
				for _, fr := range got[i] {
					gotFrames[fr] = true
				}
				if !slices.Equal(got[i], want[i]) {
					if differ++; example == "" {
						example = fmt.Sprintf("object %d:\n got  %v\n want %v", i, got[i], want[i])
					}
				}
			}
			lost := 0
			for fr := range wantFrames {
				if !gotFrames[fr] {
					lost++
				}
			}
			t.Logf("%d of %d traced objects' stacks differ (%d with an anonymous frame); %d of %d distinct frames do not come back",
				differ, traced, anonymous, lost, len(wantFrames))
			named, _ := loss.Get(ir.LossAllocationStacks)
			switch via {
			case fuchsiair.Format:
				if differ > 0 {
					t.Errorf("%d of %d traced objects' stacks differ after V8 → pprof → V8; the first, %s", differ, traced, example)
				}
				if named.Count != 0 {
					t.Errorf("the loss report names %d allocation stacks lost, none are: %v", named.Count, named)
				}
			case fuchsiair.FormatFIDL:
				// The stream has no functions: every frame is lost (a
				// function each, which the report says), and the report
				// counts the objects whose stacks differ.
				if named.Count != int64(differ) {
					t.Errorf("%d traced objects' stacks differ after V8 → FIDL → V8; the loss report says %d (%q)", differ, named.Count, named.What)
				}
				if !strings.Contains(named.What, fmt.Sprintf("the %d functions", lost)) {
					t.Errorf("%d frames do not come back through a FIDL stream; the loss report does not say so: %q", lost, named.What)
				}
			}
		})
	}
}
