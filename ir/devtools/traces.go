package devtools

import (
	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// Allocation stacks. A Fuchsia heapdump records each block's allocation
// stack; V8 records allocation stacks when a snapshot is taken with
// allocation tracking: trace_function_infos (one entry per function: its
// name, script, line and column), trace_tree (the call tree of every
// allocation, from a "(root)" node down to the allocating function, with
// the count and bytes allocated in each node) and each node's
// trace_node_id. DevTools shows a node's allocation stack from them (its
// "Allocation stack" pane, and the Allocation view). fuchsiaTraces puts
// the blocks' stacks there.

// traceFrame is one function of a trace: what DevTools shows of a frame.
type traceFrame struct {
	name, script string
	scriptID     uint64
	line, column int64
}

// traceBuilder collects the function infos and the call tree.
type traceBuilder struct {
	c      *converter
	frames []traceFrame
	index  map[traceFrame]uint32
	// The tree, node 0 the root: parent, frame, count and size per node,
	// and each node's children by frame.
	parent   []uint32
	frame    []uint32
	count    []uint64
	size     []uint64
	children []map[uint32]uint32
}

func newTraceBuilder(c *converter) *traceBuilder {
	b := &traceBuilder{c: c, index: map[traceFrame]uint32{}}
	b.frameIndex(traceFrame{name: "(root)"})
	b.parent, b.frame = []uint32{0}, []uint32{0}
	b.count, b.size = []uint64{0}, []uint64{0}
	b.children = []map[uint32]uint32{nil}
	return b
}

func (b *traceBuilder) frameIndex(f traceFrame) uint32 {
	i, ok := b.index[f]
	if !ok {
		i = uint32(len(b.frames))
		b.frames = append(b.frames, f)
		b.index[f] = i
	}
	return i
}

// child returns the tree node under node for frame, adding it if needed.
func (b *traceBuilder) child(node, frame uint32) uint32 {
	if b.children[node] == nil {
		b.children[node] = map[uint32]uint32{}
	}
	if k, ok := b.children[node][frame]; ok {
		return k
	}
	k := uint32(len(b.frame))
	b.children[node][frame] = k
	b.parent = append(b.parent, node)
	b.frame = append(b.frame, frame)
	b.count = append(b.count, 0)
	b.size = append(b.size, 0)
	b.children = append(b.children, nil)
	return k
}

// traceFrameOf is what DevTools shows of a frame: its function (V8's empty
// name for an anonymous one) and source file, or, unsymbolized, its
// address and module; the script id is the frame's own (a V8 frame's,
// carried by its mapping) or else module's.
func traceFrameOf(fr ir.Frame, moduleID uint64) traceFrame {
	name, script := fr.Function, fr.File
	if fr.Function == "" && !fr.Anonymous {
		name, script = fr.Name(), fr.Module
	}
	if fr.ScriptID != 0 {
		moduleID = fr.ScriptID
	}
	return traceFrame{name: name, script: script, scriptID: moduleID, line: fr.Line, column: fr.Column}
}

// fuchsiaTraces builds out's allocation traces from the source's Fuchsia
// stacks (one per block) and gives every node the trace node of its
// stack's innermost frame. It returns the trace_node_id column, in output
// node order, or nil when the source has no stacks.
func (c *converter) fuchsiaTraces(out *ir.Snapshot) *ir.Uints {
	src, s := c.src, c.s
	fs := fuchsiair.Of(s)
	if fuchsiair.FileOf(src) == nil || fs == nil || fs.Stacks() == 0 || len(fs.Stack) != s.Nodes.Len() {
		return nil
	}
	b := newTraceBuilder(c)
	// Each location's frames once; each stack's tree node once.
	locFrames := make([][]uint32, fuchsiair.FileOf(src).Locations.Len())
	leafOf := make([]uint32, fs.Stacks())
	for k := range leafOf {
		node := uint32(0)
		stack := fs.StackOf(k)
		for j := len(stack) - 1; j >= 0; j-- { // outermost first
			l := stack[j]
			if locFrames[l] == nil {
				// A module's script id is 1 + its mapping's index.
				scriptID := uint64(fuchsiair.FileOf(src).Locations.Mapping[l])
				locFrames[l] = []uint32{} // made: a location of class frames has none
				for _, fr := range fuchsiair.FileOf(src).Frames(src, int(l)) {
					if !fr.Class { // heapconv's class frames are not allocation frames
						locFrames[l] = append(locFrames[l], b.frameIndex(traceFrameOf(fr, scriptID)))
					}
				}
			}
			for _, f := range locFrames[l] {
				node = b.child(node, f)
			}
		}
		leafOf[k] = node
	}
	if len(b.frames) == 1 {
		return nil // only class frames: no allocation stack to show
	}
	var ids ir.Uints
	ids.AppendZeros(int(c.shift)) // the synthetic nodes in front have no stack
	for i := range s.Nodes.Len() {
		leaf := leafOf[fs.Stack[i]]
		if leaf == 0 {
			ids.Append(0) // no allocation frame
			continue
		}
		blocks := uint64(1)
		if fs.Count.Len() == s.Nodes.Len() && fs.Count.At(i) > 0 {
			blocks = fs.Count.At(i)
		}
		b.count[leaf] += blocks
		b.size[leaf] += s.Nodes.SelfSize.At(i)
		ids.Append(uint64(leaf) + 1) // trace node ids start at 1
	}
	b.write(v8ir.Of(out))
	return &ids
}

// write stores the function infos and the tree in v, as the IR keeps V8's
// (see v8ir.Snapshot.TraceTree).
func (b *traceBuilder) write(v *v8ir.Snapshot) {
	for i, f := range b.frames {
		v.TraceFunctionInfos.Append(uint64(i)) // function_id
		v.TraceFunctionInfos.Append(uint64(b.c.intern(f.name)))
		v.TraceFunctionInfos.Append(uint64(b.c.intern(f.script)))
		v.TraceFunctionInfos.Append(f.scriptID)
		v.TraceFunctionInfos.Append(uint64(max(f.line, 0)))
		v.TraceFunctionInfos.Append(uint64(max(f.column, 0)))
	}
	// Children in the order they were first seen: the tree is written
	// depth first from the root.
	kids := make([][]uint32, len(b.frame))
	for k := 1; k < len(b.frame); k++ {
		kids[b.parent[k]] = append(kids[b.parent[k]], uint32(k))
	}
	tt := &v.TraceTree
	tt.Append(1) // one top-level node: the root
	var walk func(k uint32)
	walk = func(k uint32) {
		tt.Append(uint64(k) + 1)
		tt.Append(uint64(b.frame[k]))
		tt.Append(b.count[k])
		tt.Append(b.size[k])
		tt.Append(uint64(len(kids[k])))
		for _, ch := range kids[k] {
			walk(ch)
		}
	}
	walk(0)
	v.Header.Set(v8ir.HeaderTraceFunctionCount, ir.JSONNum(int64(len(b.frames))))
}
