package fuchsia

import (
	"fmt"
	"math"
	"strconv"

	"heapconv/ir"
)

// StackDepth is how many classes a converted object's synthetic stack
// holds: its own, then those of its nearest dominators.
const StackDepth = 8

// Convert turns IR from another format (a V8, Dart or MoarVM graph) into
// Fuchsia IR that Write writes as a heapdump profile. IR that already has a
// Fuchsia section is returned as it is. The mapping:
//
//   - every node is one sample, value [1, self size], with a "bytes"
//     label; several snapshots become processes (process_name = the
//     snapshot's name or "snapshot N", process_koid = N+1);
//   - a node's stack is synthetic, leaf first: its class (ir.ClassName),
//     then the classes of its immediate dominator, that one's, and so on
//     (up to StackDepth frames, not counting the root), so that pprof's
//     flat column ranks classes by bytes and its cumulative column shows
//     what retains them. Each class is a Function named by it, with one
//     Location (mapping_id 0, one Line); without a root, a node's stack is
//     its class alone.
//
// Edges, node ids and kinds, values, roots and external sizes have no place
// in a heapdump profile; the loss report says so.
func Convert(f *ir.File) (*ir.File, ir.LossReport, error) {
	if f.Fuchsia != nil {
		return f, nil, nil
	}
	var loss ir.LossReport
	out := &ir.File{Format: ir.FormatFuchsia, FormatVersion: "pprof, converted from " + f.Format, Producer: f.Producer}
	strs := map[string]uint32{}
	intern := func(s string) uint32 {
		if v, ok := strs[s]; ok {
			return v
		}
		v := uint32(len(out.Strings))
		out.Strings = append(out.Strings, s)
		strs[s] = v
		return v
	}
	intern("")
	ff := &ir.FuchsiaFile{Gzip: true, SampleTypes: []ir.FuchsiaValueType{
		{Type: intern("objects"), Unit: intern("count")}, {Type: intern("allocated"), Unit: intern("bytes")}}}
	out.Fuchsia = ff
	fnOf := map[string]uint32{} // class name -> location index
	locOf := func(class string) uint32 {
		if l, ok := fnOf[class]; ok {
			return l
		}
		fn := &ff.Functions
		fn.ID = append(fn.ID, uint64(fn.Len()+1))
		fn.Name = append(fn.Name, intern(class))
		fn.SystemName = append(fn.SystemName, 0)
		fn.Filename = append(fn.Filename, 0)
		fn.StartLine = append(fn.StartLine, 0)
		lc := &ff.Locations
		if len(lc.FirstLine) == 0 {
			lc.FirstLine = append(lc.FirstLine, 0)
		}
		l := uint32(lc.Len())
		lc.ID = append(lc.ID, uint64(l+1))
		lc.Mapping = append(lc.Mapping, 0)
		lc.Address = append(lc.Address, 0)
		lc.Folded = append(lc.Folded, false)
		lc.Function = append(lc.Function, uint32(fn.Len()))
		lc.Line = append(lc.Line, 0)
		lc.Column = append(lc.Column, 0)
		lc.FirstLine = append(lc.FirstLine, uint32(len(lc.Function)))
		fnOf[class] = l
		return l
	}
	var edges, values, noDom, capped, nodes, renamed, extNodes int
	var extBytes uint64
	for k, s := range f.Snapshots {
		n := s.Nodes.Len()
		o := &ir.Snapshot{Root: ir.NoNode, NodeKinds: append([]string(nil), ir.FuchsiaNodeKinds...),
			EdgeKinds: append([]ir.EdgeKind(nil), ir.FuchsiaEdgeKinds...), CaptureTime: s.CaptureTime}
		fs := &ir.FuchsiaSnapshot{StackFirst: []uint32{0}}
		o.Fuchsia = fs
		if len(f.Snapshots) > 1 {
			name := f.String(s.Name)
			if name == "" {
				name = "snapshot " + strconv.Itoa(k)
			}
			fs.HasProcessName, fs.ProcessName, fs.HasProcessKoid, fs.ProcessKoid = true, intern(name), true, int64(k+1)
			o.Name = fs.ProcessName
		}
		// Class locations per node, and the dominator tree for the stacks.
		classLoc := make([]uint32, n)
		for i := 0; i < n; i++ {
			classLoc[i] = locOf(ir.ClassName(f, s, i))
		}
		var idom []uint32
		if s.Root != ir.NoNode && n > 0 {
			if t, err := s.Dominators(ir.DominatorOptions{Orphans: true}); err == nil {
				idom = t.IDom
			}
		}
		if idom == nil && n > 0 {
			noDom++
		}
		stacks := map[string]uint32{}
		var key []byte
		var frames []uint32
		o.Nodes.Kind = make([]uint8, n)
		o.Nodes.Name = make([]uint32, n)
		o.Nodes.FirstEdge = make([]uint32, n+1)
		fs.Flags = make([]uint8, n)
		fs.Stack = make([]uint32, n)
		for i := 0; i < n; i++ {
			frames = append(frames[:0], classLoc[i])
			if idom != nil {
				for v := uint32(i); len(frames) < StackDepth; {
					d := idom[v]
					if d == ir.NoNode || d == v || d == s.Root {
						break
					}
					frames = append(frames, classLoc[d])
					v = d
				}
			}
			key = key[:0]
			for _, l := range frames {
				key = append(key, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
			}
			st, ok := stacks[string(key)]
			if !ok {
				st = uint32(fs.Stacks())
				stacks[string(key)] = st
				fs.StackLocation = append(fs.StackLocation, frames...)
				fs.StackFirst = append(fs.StackFirst, uint32(len(fs.StackLocation)))
			}
			fs.Stack[i] = st
			fs.Flags[i] = ir.FuchsiaBytes
			o.Nodes.Name[i] = ff.Functions.Name[ff.Locations.Function[classLoc[i]]-1]
			if f.String(s.Nodes.Name[i]) != out.Strings[o.Nodes.Name[i]] {
				renamed++
			}
			o.Nodes.ID.Append(0)
			size := s.Nodes.SelfSize.At(i)
			if size > math.MaxInt64 {
				size = math.MaxInt64 // pprof values are int64
				capped++
			}
			o.Nodes.SelfSize.Append(size)
			fs.Count.Append(1)
		}
		nodes += n
		edges += s.Edges.Len()
		values += s.Values.Len()
		out.Snapshots = append(out.Snapshots, o)
		for i := 0; i < s.Nodes.ExternalSize.Len(); i++ {
			if x := s.Nodes.ExternalSize.At(i); x > 0 {
				extNodes++
				extBytes += x
			}
		}
	}
	if extNodes > 0 {
		loss.Addf(ir.LossExternalSizes, int64(extNodes), "nodes' external sizes (%d bytes) are not kept: a sample's size is its self size", extBytes)
	}
	if edges > 0 {
		loss.Add(ir.LossEdges, int64(edges), "edges have no place in a pprof profile; the stacks show each object's class and those of its nearest dominators instead")
	}
	if capped > 0 {
		loss.Add(ir.LossSizesCapped, int64(capped), "self sizes of 2^63 bytes or more are capped at 2^63-1 (pprof values are int64)")
	}
	if noDom > 0 {
		loss.Add("no-root", int64(noDom), "snapshots have no root: their objects' stacks are their class alone")
	}
	// A sample has a stack and sizes only: whatever else says which node
	// it is, is gone.
	loss.Add(ir.LossNodeIDs, int64(nodes), "node ids are not kept: a sample has none")
	loss.Add(ir.LossNodeKinds, int64(nodes), "node kinds are not kept: a sample has none")
	if renamed > 0 {
		loss.Add(ir.LossNodeNames, int64(renamed), "node names are not kept: each sample is named by its class")
	}
	if values > 0 {
		loss.Add(ir.LossValues, int64(values), "primitive values are not kept")
	}
	if len(f.Snapshots) == 0 {
		return nil, nil, fmt.Errorf("fuchsia: the file has no snapshots")
	}
	if err := out.Validate(); err != nil {
		return nil, nil, fmt.Errorf("fuchsia: internal error: the converted IR is invalid: %w", err)
	}
	return out, loss, nil
}
