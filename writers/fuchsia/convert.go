package fuchsia

import (
	"fmt"
	"math"
	"strconv"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// StackDepth is how many classes a converted object's synthetic stack
// holds: its own, then those of its nearest dominators.
const StackDepth = 8

// classBase is the program address of the first class's frame; each class
// has classSpan bytes of address space, its mapping's.
const (
	classBase = 0x1000
	classSpan = 16
)

// The mappings of the scripts of a source's allocation frames (V8's
// script ids) lie above the classes': script k's at scriptBase +
// k×scriptSpan, its frames classSpan bytes apart.
const (
	scriptBase = 1 << 44
	scriptSpan = 1 << 36
	maxScripts = (math.MaxUint64 - scriptBase) / scriptSpan
)

// classKey is a class of the source: its name and library (ir.ClassLibrary;
// "" for classes named by analysis.ClassName alone).
type classKey struct{ name, library string }

// Convert turns IR from another format (a V8, Dart or MoarVM graph) into
// Fuchsia IR that Write writes as a heapdump profile and WriteFIDL as a
// stream. IR that already has a Fuchsia section is returned as it is. The
// mapping:
//
//   - every node but the synthetic ones (ir.SyntheticNodes: a V8 root, its
//     categories and embedder nodes, MoarVM's root collectables, what
//     writers added, which are not the heap's) is one sample, value
//     [1, self size], with a "bytes" label; several snapshots become
//     processes (process_name = the snapshot's name or "snapshot N",
//     process_koid = N+1);
//   - every class (name and library, as ir.ClassLabels tells classes
//     apart) is one Function named by it, one Location at a program
//     address of its own (one Line), and one Mapping around that address:
//     a class mapping (fuchsiair.ClassMappingID), whose module name and
//     file offset say the class and library (fuchsiair.ClassModule). The
//     reader names a block by the class mapping of its leaf frame, in a
//     profile as in a FIDL stream (which has the addresses and regions but
//     no functions);
//   - a node's stack is, leaf first, its class frame, then its allocation
//     stack when the source has one (a V8 snapshot taken with allocation
//     tracking: each frame a function, anonymous ones with V8's empty
//     name, with its file, line and column, in a mapping of its script
//     that carries the script's id, fuchsiair.ScriptMappingID), else the
//     classes of its immediate dominator, that one's, and so on (up to
//     StackDepth frames, not counting the root and the synthetic nodes), so
//     that pprof's flat column ranks classes by bytes and its cumulative
//     column shows what retains them; without a root, a node's stack is its
//     class alone. Class frames are marked as such (their mappings): the
//     readers tell them from allocation frames (ir.Frame.Class).
//
// Edges, node ids and kinds, values, roots, totals and external sizes have
// no place in a heapdump profile; the loss report says so.
func Convert(f *ir.File) (*ir.File, ir.LossReport, error) { return convert(f, "a pprof profile") }

// convert is Convert for a file written as into ("a FIDL stream"), which
// the loss report names.
func convert(f *ir.File, into string) (*ir.File, ir.LossReport, error) {
	if fuchsiair.FileOf(f) != nil {
		return f, nil, nil
	}
	var loss ir.LossReport
	out := &ir.File{Format: fuchsiair.Format, FormatVersion: "pprof, converted from " + f.Format, Producer: f.Producer}
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
	ff := &fuchsiair.File{Gzip: true, SampleTypes: []fuchsiair.ValueType{
		{Type: intern(fuchsiair.ObjectsType), Unit: intern(fuchsiair.CountUnit)},
		{Type: intern(fuchsiair.AllocatedType), Unit: intern(fuchsiair.BytesUnit)}}}
	out.SetSection(ff)
	// addLocation adds a location at address pc of mapping (1 + its index,
	// 0 for none) with one line: fr's function (a new one), file, line and
	// column. It returns the location's index.
	addLocation := func(mapping uint32, pc uint64, fr ir.Frame) uint32 {
		lc, fn := &ff.Locations, &ff.Functions
		fn.ID = append(fn.ID, uint64(fn.Len()+1))
		fn.Name = append(fn.Name, intern(fr.Function))
		fn.SystemName = append(fn.SystemName, 0)
		fn.Filename = append(fn.Filename, intern(fr.File))
		fn.StartLine = append(fn.StartLine, 0)
		if len(lc.FirstLine) == 0 {
			lc.FirstLine = append(lc.FirstLine, 0)
		}
		l := lc.Append(mapping, pc)
		lc.Function = append(lc.Function, uint32(fn.Len()))
		lc.Line = append(lc.Line, fr.Line)
		lc.Column = append(lc.Column, fr.Column)
		lc.FirstLine = append(lc.FirstLine, uint32(len(lc.Function)))
		return l
	}
	locs := map[classKey]uint32{} // class -> location index
	locOf := func(c classKey) uint32 {
		if l, ok := locs[c]; ok {
			return l
		}
		mp := &ff.Mappings
		l := uint32(ff.Locations.Len())
		pc := classBase + classSpan*uint64(l)
		module, offset := fuchsiair.ClassModule(c.name, c.library)
		m := mp.Append(pc, pc+classSpan, offset, intern(module), intern(fuchsiair.ClassMappingID(l)), fuchsiair.HasFunctions)
		locs[c] = addLocation(m, pc, ir.Frame{Function: c.name})
		return locs[c]
	}
	// frameLoc returns the location of an allocation frame of the source
	// (V8's allocation traces): a function (anonymous ones have an empty
	// name), with its file, line and column. A frame in a script of an id
	// lies in its script's mapping (fuchsiair.ScriptMappingID), which
	// carries the id; another is at no address (pprof takes a location
	// known by its lines).
	frameLocs := map[ir.Frame]uint32{}
	type script struct {
		mapping uint32 // 1 + the mapping's index
		used    uint64 // the bytes its frames' addresses take
	}
	scripts := map[uint64]*script{} // by script id
	frameLoc := func(fr ir.Frame) (uint32, error) {
		if l, ok := frameLocs[fr]; ok {
			return l, nil
		}
		var mapping uint32
		var pc uint64
		if fr.ScriptID != 0 {
			mp := &ff.Mappings
			sc, ok := scripts[fr.ScriptID]
			if !ok {
				if len(scripts) == maxScripts {
					return 0, fmt.Errorf("fuchsia: more than %d scripts in the allocation stacks", maxScripts)
				}
				start := scriptBase + scriptSpan*uint64(len(scripts))
				sc = &script{mapping: mp.Append(start, start+scriptSpan, 0, intern(fr.File), intern(fuchsiair.ScriptMappingID(fr.ScriptID)),
					fuchsiair.HasFunctions|fuchsiair.HasFilenames|fuchsiair.HasLineNumbers)}
				scripts[fr.ScriptID] = sc
			}
			if sc.used == scriptSpan {
				return 0, fmt.Errorf("fuchsia: more than %d functions in one script of the allocation stacks", scriptSpan/classSpan)
			}
			mapping, pc = sc.mapping, mp.Start[sc.mapping-1]+sc.used
			sc.used += classSpan
		}
		l := addLocation(mapping, pc, fr)
		frameLocs[fr] = l
		return l, nil
	}
	hasObjects := make([]bool, f.Classes.Len()) // per class of the table
	var edges, weak, values, noDom, capped, nodes, ids, renamed, extNodes, extTotals, synthetic, totals, roots int
	var extBytes, extTotalBytes, syntheticBytes uint64
	for k, s := range f.Snapshots {
		n := s.Nodes.Len()
		o := &ir.Snapshot{Root: ir.NoNode, NodeKinds: append([]string(nil), fuchsiair.NodeKinds...),
			EdgeKinds: append([]ir.EdgeKind(nil), fuchsiair.EdgeKinds...), CaptureTime: s.CaptureTime}
		fs := &fuchsiair.Snapshot{StackFirst: []uint32{0}}
		o.SetSection(fs)
		name := ir.SnapshotName(f, s)
		if len(f.Snapshots) > 1 {
			if name == "" {
				name = "snapshot " + strconv.Itoa(k)
			}
			fs.HasProcessName, fs.ProcessName, fs.HasProcessKoid, fs.ProcessKoid = true, intern(name), true, int64(k+1)
			o.Name = fs.ProcessName
		} else if name != "" {
			// One snapshot is one process of no name, as ffx writes it
			// without --multi-process.
			loss.Add(ir.LossSnapshotNames, 1, "the snapshot's name is not kept: a profile of one process names none").
				WithExample(strconv.Quote(name))
		}
		// Which nodes are written, their classes' locations (made as the
		// stacks need them), and the dominator tree for the stacks.
		skip := ir.SyntheticNodes(f, s)
		classLoc := make([]uint32, n)
		have := make([]bool, n)
		loc := func(i uint32) uint32 {
			if !have[i] {
				classLoc[i], have[i] = locOf(classOf(f, s, int(i))), true
			}
			return classLoc[i]
		}
		var idom []uint32
		if s.Root != ir.NoNode && n > 0 {
			if t, err := analysis.Dominators(s, analysis.DominatorOptions{Orphans: true}); err == nil {
				idom = t.IDom
			}
		}
		if idom == nil && n > 0 {
			noDom++
		}
		// A snapshot taken with allocation tracking (V8's) has each
		// object's allocation stack: that is its stack, under its class
		// frame.
		stackOf := ir.AllocationStacks(f, s)
		stacks := map[string]uint32{}
		var key []byte
		var frames []uint32
		for i := 0; i < n; i++ {
			if skip[i] {
				synthetic++
				syntheticBytes += s.Nodes.SelfSize.At(i)
				continue
			}
			frames = append(frames[:0], loc(uint32(i)))
			var traced []ir.Frame
			if stackOf != nil {
				traced = stackOf(i)
			}
			for _, fr := range traced {
				l, err := frameLoc(fr)
				if err != nil {
					return nil, nil, err
				}
				frames = append(frames, l)
			}
			if idom != nil && len(traced) == 0 {
				for v := uint32(i); len(frames) < StackDepth; {
					d := idom[v]
					if d == ir.NoNode || d == v || d == s.Root || skip[d] {
						break
					}
					frames = append(frames, loc(d))
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
			if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
				hasObjects[s.Nodes.Class[i]-1] = true
			}
			fs.Stack = append(fs.Stack, st)
			fs.Flags = append(fs.Flags, fuchsiair.FlagBytes)
			name := ff.Functions.Name[ff.Locations.Function[classLoc[i]]-1]
			o.Nodes.Name = append(o.Nodes.Name, name)
			if f.String(s.Nodes.Name[i]) != out.Strings[name] {
				renamed++
			}
			o.Nodes.ID.Append(0)
			if s.Nodes.ID.At(i) != 0 {
				ids++ // an object without an identity (a Dart object's id 0) keeps none
			}
			size := s.Nodes.SelfSize.At(i)
			if size > math.MaxInt64 {
				size = math.MaxInt64 // pprof values are int64
				capped++
			}
			o.Nodes.SelfSize.Append(size)
			fs.Count.Append(1)
			nodes++
		}
		written := len(fs.Stack)
		o.Nodes.Kind = make([]uint8, written)
		o.Nodes.FirstEdge = make([]uint32, written+1)
		edges += s.Edges.Len()
		// What is lost of the objects written: the weak references among
		// them, their values; those of the synthetic nodes go with them.
		for i := range n {
			if skip[i] {
				continue
			}
			lo, hi := s.Nodes.EdgeRange(i)
			for e := lo; e < hi; e++ {
				if !skip[s.Edges.Target[e]] && s.EdgeKindOf(e).Name == ir.EdgeWeak {
					weak++
				}
			}
		}
		for _, i := range s.Values.Node {
			if !skip[i] {
				values++
			}
		}
		totals += len(s.Totals)
		roots += len(s.Roots)
		out.Snapshots = append(out.Snapshots, o)
		// An object's external memory is its external size and the native
		// nodes that hold its unmanaged memory (ir.UnmanagedOwners): a
		// sample has only its own size.
		ext := make([]uint64, n)
		for i := 0; i < s.Nodes.ExternalSize.Len(); i++ {
			ext[i] = s.Nodes.ExternalSize.At(i)
		}
		for i, o := range ir.UnmanagedOwners(f, s) {
			if o != ir.NoNode {
				ext[o] = ir.SatAdd(ext[o], s.Nodes.SelfSize.At(i))
			}
		}
		for i, x := range ext {
			if x > 0 && !skip[i] {
				extNodes++
				extBytes = ir.SatAdd(extBytes, x)
			}
		}
		// A total of 0 bytes holds no memory to lose (the totals line
		// names the total itself).
		n, bytes := ir.ExternalTotals(s.Totals)
		extTotals += n
		extTotalBytes = ir.SatAdd(extTotalBytes, bytes)
	}
	if extNodes > 0 || extTotals > 0 {
		// Count: the objects that had external memory and the external
		// totals that counted some.
		loss.Addf(ir.LossExternalSizes, int64(extNodes+extTotals), "external sizes of %d objects (%d bytes) and %d external totals (%d bytes) are not kept: a sample's size is its self size", extNodes, extBytes, extTotals, extTotalBytes)
	}
	if edges > 0 {
		loss.Addf(ir.LossEdges, int64(edges), "edges have no place in %s; the stacks show each object's class and those of its nearest dominators instead", into)
	}
	if weak > 0 {
		loss.Add(ir.LossWeakEdges, int64(weak), "weak references between the objects are not kept (no edge is)")
	}
	if capped > 0 {
		loss.Add(ir.LossSizesCapped, int64(capped), "self sizes of 2^63 bytes or more are capped at 2^63-1 (a heapdump's sample values are int64, as pprof's are)")
	}
	if noDom > 0 {
		loss.Add("no-root", int64(noDom), "snapshots have no root: their objects' stacks are their class alone")
	}
	// A sample has a stack and sizes only: whatever else says which node
	// it is, is gone.
	if ids > 0 {
		loss.Add(ir.LossNodeIDs, int64(ids), "node ids are not kept: a sample has none")
	}
	if synthetic > 0 {
		loss.Addf(ir.LossNodeKinds, int64(nodes+synthetic), "node kinds are not kept: a sample has none; the %d synthetic nodes (a root, its categories, embedder nodes, MoarVM's root collectables: %d bytes) are not written", synthetic, syntheticBytes)
	} else {
		loss.Add(ir.LossNodeKinds, int64(nodes), "node kinds are not kept: a sample has none")
	}
	if renamed > 0 {
		loss.Add(ir.LossNodeNames, int64(renamed), "node names are not kept: each sample is named by its class")
	}
	if values > 0 {
		loss.Add(ir.LossValues, int64(values), "primitive values of the objects are not kept")
	}
	// The reader takes every block no other points to for a root: without
	// edges, all of them.
	switch {
	case roots > 0:
		loss.Addf(ir.LossGCRoots, int64(nodes), "the %d roots and their categories are not kept: a profile has none, and without edges every sample is read back as a root", roots)
	case nodes > 0:
		loss.Add(ir.LossGCRoots, int64(nodes), "objects are read back as roots: a profile has no edges, so no sample is held by another")
	}
	if n := f.Classes.Len() - count(hasObjects); n > 0 {
		// A class is a site some block is allocated at: the reader has
		// none without one.
		loss.Add(ir.LossClasses, int64(n), "classes no object has are not kept (a name that clashed only with one of them is no longer qualified by its library)")
	}
	if totals > 0 {
		loss.Add(ir.LossTotals, int64(totals), "snapshot totals are not kept: a profile has none")
	}
	// A V8 heap's allocation traces are its samples' stacks.
	t := ir.Target{Format: fuchsiair.Format, Name: into, KeepsStacks: true}
	for _, s := range f.Snapshots {
		loss.Merge(ir.SectionLoss(f, s, t))
	}
	loss.Merge(ir.SectionLoss(f, nil, t))
	if len(f.Snapshots) == 0 {
		return nil, nil, fmt.Errorf("fuchsia: the file has no snapshots")
	}
	if err := out.Validate(); err != nil {
		return nil, nil, fmt.Errorf("fuchsia: internal error: the converted IR is invalid: %w", err)
	}
	return out, loss, nil
}

// classOf returns node i's class: from the class table, with its library,
// else as analysis.ClassName names it.
func classOf(f *ir.File, s *ir.Snapshot, i int) classKey {
	if len(s.Nodes.Class) > 0 && s.Nodes.Class[i] > 0 {
		c := int(s.Nodes.Class[i] - 1)
		return classKey{f.String(f.Classes.Name[c]), ir.ClassLibrary(f, c)}
	}
	return classKey{name: analysis.ClassName(f, s, i)}
}
