package v8

import (
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// Traces is a V8 snapshot's allocation traces made navigable: the
// function of each trace node and its parent, so that a node's allocation
// stack (its trace_node_id's path up to the root) can be listed.
type Traces struct {
	f      *ir.File
	v      *Snapshot
	parent map[uint64]uint64 // trace node id -> its parent's id (0: the root's)
	fn     map[uint64]uint64 // trace node id -> function info index
	// The function info fields' positions.
	infoFields, name, script, scriptID, line, column int
	// NodeIDs is the trace_node_id column: each node's trace node, 0 for
	// none.
	NodeIDs *ir.Uints
}

// Traces returns the snapshot's allocation traces, or nil when it has none
// (no trace_node_id column, no trace tree or no function infos).
func (v *Snapshot) Traces(f *ir.File) *Traces {
	if v == nil || v.TraceTree.Len() == 0 || v.TraceFunctionInfos.Len() == 0 {
		return nil
	}
	col := v.NodeColumn(NodeTraceNodeID)
	infoFields := v.MetaList(MetaTraceFunctionInfoFields)
	nodeFields := v.MetaList(MetaTraceNodeFields)
	t := &Traces{f: f, v: v, parent: map[uint64]uint64{}, fn: map[uint64]uint64{}, infoFields: len(infoFields),
		name: slices.Index(infoFields, "name"), script: slices.Index(infoFields, "script_name"),
		scriptID: slices.Index(infoFields, "script_id"), line: slices.Index(infoFields, "line"), column: slices.Index(infoFields, "column")}
	id, fi := slices.Index(nodeFields, "id"), slices.Index(nodeFields, "function_info_index")
	if col == nil || t.name < 0 || id < 0 || fi < 0 || len(nodeFields) < 2 {
		return nil
	}
	t.NodeIDs = col
	// The tree is flattened in pre-order (Snapshot.TraceTree): each node's
	// fields but the children, then its child count and its children.
	// Validate has checked its shape; it is walked with a stack of its own,
	// as a tree may be deeper than recursion should go.
	type level struct{ node, pending uint64 }
	tt, pos, own := &v.TraceTree, 1, len(nodeFields)-1
	stack := []level{{0, tt.At(0)}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.pending == 0 || tt.Len()-pos < own+1 {
			stack = stack[:len(stack)-1]
			continue
		}
		top.pending--
		node := tt.At(pos + id)
		t.parent[node], t.fn[node] = top.node, tt.At(pos+fi)
		stack = append(stack, level{node, tt.At(pos + own)})
		pos += own + 1
	}
	return t
}

// Stack returns the allocation stack of trace node id, innermost first,
// without the tree's root (V8's "(root)", which is no frame); nil for 0
// or an unknown id.
func (t *Traces) Stack(id uint64) []ir.Frame {
	var out []ir.Frame
	for id != 0 {
		p, ok := t.parent[id]
		if !ok || p == 0 {
			break
		}
		out = append(out, t.frame(t.fn[id]))
		id = p
	}
	return out
}

// parentOf returns trace node id's parent (0 for the tree's root), false
// for an unknown id or a nil t.
func (t *Traces) parentOf(id uint64) (uint64, bool) {
	if t == nil {
		return 0, false
	}
	p, ok := t.parent[id]
	return p, ok
}

func (t *Traces) frame(info uint64) ir.Frame {
	at := func(field int) uint64 {
		k := int(info)*t.infoFields + field
		if field < 0 || k >= t.v.TraceFunctionInfos.Len() {
			return 0
		}
		return t.v.TraceFunctionInfos.At(k)
	}
	// Every frame of a trace is a function V8 knows; an anonymous one has
	// an empty name.
	fr := ir.Frame{Function: t.f.String(uint32(at(t.name))), ScriptID: at(t.scriptID), Line: int64(at(t.line)), Column: int64(at(t.column))}
	fr.Anonymous = fr.Function == ""
	if t.script >= 0 {
		fr.File = t.f.String(uint32(at(t.script)))
	}
	return fr
}

// AllocationStacks returns each node's allocation stack, from the traces
// of a snapshot taken with allocation tracking; nil without them.
func (v *Snapshot) AllocationStacks(f *ir.File, _ *ir.Snapshot) func(i int) []ir.Frame {
	t := v.Traces(f)
	if t == nil {
		return nil
	}
	return func(i int) []ir.Frame { return t.Stack(t.NodeIDs.At(i)) }
}
