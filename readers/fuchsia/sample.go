package fuchsia

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// snapBuilder collects one process's samples.
type snapBuilder struct {
	s      *ir.Snapshot
	fs     *fuchsiair.Snapshot
	stacks map[string]uint32
	thread map[int64]uint32 // pprof string of the label -> 1 + thread index
}

func (d *decoder) newSnap(k procKey, hint int) int {
	s := &ir.Snapshot{Root: ir.NoNode, NodeKinds: append([]string(nil), fuchsiair.NodeKinds...),
		EdgeKinds: append([]ir.EdgeKind(nil), fuchsiair.EdgeKinds...)}
	fs := &fuchsiair.Snapshot{HasProcessName: k.hasName, HasProcessKoid: k.hasKoid, ProcessKoid: k.koid, StackFirst: []uint32{0}}
	if k.hasName {
		fs.ProcessName = k.name
		s.Name = k.name
	}
	s.SetSection(fs)
	if len(d.snaps) == 0 {
		// Most profiles are one process: reserve for all the samples.
		s.Nodes.Kind = make([]uint8, 0, hint)
		s.Nodes.ID.Reserve(hint)
		s.Nodes.SelfSize.Reserve(hint)
		fs.Count.Reserve(hint)
		fs.Flags = make([]uint8, 0, hint)
		fs.Stack = make([]uint32, 0, hint)
	}
	d.snaps = append(d.snaps, &snapBuilder{s: s, fs: fs, stacks: map[string]uint32{}, thread: map[int64]uint32{}})
	d.byProc[k] = len(d.snaps) - 1
	return len(d.snaps) - 1
}

// sample decodes one Sample message into a node.
func (d *decoder) sample(start, end, hint int) error {
	d.locs, d.vals, d.labels = d.locs[:0], d.vals[:0], d.labels[:0]
	q := pbuf{data: d.data, pos: start, end: end}
	for q.pos < q.end {
		off := q.pos
		num, wt, v, s, e, err := q.field()
		if err != nil {
			return d.errorf(off, "sample: %v", err)
		}
		switch num {
		case fuchsiair.SampleLocationID:
			d.locs, err = repeated(d.data, wt, v, s, e, d.locs, -1)
		case fuchsiair.SampleValue:
			// No more values than sample types (a sample of a
			// huge packed run of them is refused before it costs 8
			// bytes an integer).
			d.vals, err = repeated(d.data, wt, v, s, e, d.vals, len(d.ff.SampleTypes))
		case fuchsiair.SampleLabel:
			if wt != fuchsiair.WireBytes {
				return d.errorf(off, "sample: label is not a message")
			}
			var lv [fuchsiair.LabelNumUnit + 1]int64
			if err := d.ints(span{s, e}, "label", lv[:], -1, nil); err != nil {
				return err
			}
			l := label{key: lv[fuchsiair.LabelKey], str: lv[fuchsiair.LabelStr], num: lv[fuchsiair.LabelNum],
				unit: lv[fuchsiair.LabelNumUnit], off: off}
			n := int64(len(d.strStart))
			if l.key < 0 || l.key >= n || l.str < 0 || l.str >= n || (l.str == 0 && (l.unit < 0 || l.unit >= n)) {
				return d.errorf(off, "label: string index out of range (%d strings)", n)
			}
			if l.str != 0 || l.num != 0 || l.unit != 0 {
				// pprof drops a label with neither a string nor a number
				// nor a unit; and a string label has no number or unit.
				if l.str != 0 {
					l.num, l.unit = 0, 0
				}
				d.labels = append(d.labels, l)
			}
		}
		if err != nil {
			return d.errorf(off, "sample field %d: %v", num, err)
		}
	}
	ff := d.ff
	if len(d.vals) != len(ff.SampleTypes) {
		return d.errorf(start, "sample has %d values for %d sample types", len(d.vals), len(ff.SampleTypes))
	}
	if int64(d.vals[0]) < 0 || int64(d.vals[1]) < 0 {
		return d.errorf(start, "sample has a negative count or size (%d, %d)", int64(d.vals[0]), int64(d.vals[1]))
	}

	// Which known labels occur exactly once, in the form ffx writes.
	var seen [numKeys]int
	var which [numKeys]int
	for j, l := range d.labels {
		k := d.known[l.key] & keyMask
		seen[k]++
		which[k] = j
	}
	use := func(k int) (label, bool) {
		if seen[k] != 1 {
			return label{}, false
		}
		l := d.labels[which[k]]
		isStr := l.str != 0
		switch k {
		case keyAddress, keyThread, keyProcessName:
			return l, isStr
		case keyBytes:
			return l, !isStr && d.known[l.unit]&unitBytes != 0 && uint64(l.num) == d.vals[1]
		case keyTimestamp:
			return l, !isStr && d.known[l.unit]&unitNanos != 0
		case keyProcessKoid:
			return l, !isStr && l.unit == 0
		}
		return l, false
	}
	var special [numKeys]bool
	var pk procKey
	if l, ok := use(keyProcessName); ok {
		name, err := d.str(l.str, l.off)
		if err != nil {
			return err
		}
		pk.hasName, pk.name, special[keyProcessName] = true, name, true
	}
	if l, ok := use(keyProcessKoid); ok {
		pk.hasKoid, pk.koid, special[keyProcessKoid] = true, l.num, true
	}
	si, ok := d.byProc[pk]
	if !ok {
		// A process costs a snapshot; believe as many as the bytes can
		// describe (its labels and a sample take far more than 256).
		if len(d.snaps) > len(d.data)/256 {
			return d.errorf(start, "more processes than a profile of %d bytes can hold", len(d.data))
		}
		si = d.newSnap(pk, hint)
	}
	if n := len(d.runs); n > 0 && d.runs[n-1].snap == si {
		d.runs[n-1].n++
	} else {
		d.runs = append(d.runs, run{si, 1})
	}
	sb := d.snaps[si]
	s, fs := sb.s, sb.fs
	node := s.Nodes.Len()

	var flags uint8
	var addr uint64
	if l, ok := use(keyAddress); ok {
		if a, ok := fuchsiair.ParseAddress(d.strBytes(l.str)); ok {
			addr, flags, special[keyAddress] = a, flags|fuchsiair.FlagAddress, true
		}
	}
	if _, ok := use(keyBytes); ok {
		flags, special[keyBytes] = flags|fuchsiair.FlagBytes, true
	}
	if l, ok := use(keyTimestamp); ok {
		if fs.Timestamp == nil {
			fs.Timestamp = make([]int64, node, max(node+1, cap(fs.Flags)))
		}
		fs.Timestamp = append(fs.Timestamp, l.num)
		flags, special[keyTimestamp] = flags|fuchsiair.FlagTimestamp, true
	} else if fs.Timestamp != nil {
		fs.Timestamp = append(fs.Timestamp, 0)
	}
	var thread uint32
	if l, ok := use(keyThread); ok {
		t, err := d.threadOf(sb, l)
		if err != nil {
			return err
		}
		thread, special[keyThread] = t, true
	}
	if thread != 0 && fs.Thread == nil {
		fs.Thread = make([]uint32, node, max(node+1, cap(fs.Flags)))
	}
	if fs.Thread != nil {
		fs.Thread = append(fs.Thread, thread)
	}
	// Every other label is kept as it is.
	for _, l := range d.labels {
		if special[d.known[l.key]&keyMask] {
			continue
		}
		if fs.LabelFirst == nil {
			fs.LabelFirst = make([]uint32, node+1)
		}
		key, err := d.str(l.key, l.off)
		if err != nil {
			return err
		}
		var sv, unit uint32
		if l.str != 0 {
			if sv, err = d.str(l.str, l.off); err != nil {
				return err
			}
		} else if unit, err = d.str(l.unit, l.off); err != nil {
			return err
		}
		fs.LabelKey = append(fs.LabelKey, key)
		fs.LabelNumeric = append(fs.LabelNumeric, l.str == 0)
		fs.LabelStr = append(fs.LabelStr, sv)
		fs.LabelNum = append(fs.LabelNum, l.num)
		fs.LabelUnit = append(fs.LabelUnit, unit)
	}
	if fs.LabelFirst != nil {
		if len(fs.LabelKey) > math.MaxUint32 {
			return d.errorf(start, "too many labels")
		}
		fs.LabelFirst = append(fs.LabelFirst, uint32(len(fs.LabelKey)))
	}

	// The stack, deduplicated.
	d.idx = slices.Grow(d.idx[:0], len(d.locs))
	for _, id := range d.locs {
		li := lookup(d.locDense, d.locMap, id)
		if li == 0 {
			return d.errorf(start, "sample: location id %d does not exist", id)
		}
		d.idx = append(d.idx, li-1)
	}
	d.key = slices.Grow(d.key[:0], 4*len(d.idx))
	for _, li := range d.idx {
		d.key = binary.LittleEndian.AppendUint32(d.key, li)
	}
	st, ok := sb.stacks[string(d.key)]
	if !ok {
		st = uint32(fs.Stacks())
		sb.stacks[string(d.key)] = st
		fs.StackLocation = append(fs.StackLocation, d.idx...)
		fs.StackFirst = append(fs.StackFirst, uint32(len(fs.StackLocation)))
	}

	s.Nodes.Kind = append(s.Nodes.Kind, 0)
	s.Nodes.ID.Append(addr)
	s.Nodes.SelfSize.Append(d.vals[1])
	fs.Count.Append(d.vals[0])
	fs.Flags = append(fs.Flags, flags)
	fs.Stack = append(fs.Stack, st)
	for _, v := range d.vals[2:] {
		fs.ExtraValues = append(fs.ExtraValues, int64(v))
	}
	return nil
}

// threadOf returns 1 + the thread table index of a "thread" label.
func (d *decoder) threadOf(sb *snapBuilder, l label) (uint32, error) {
	if t, ok := sb.thread[l.str]; ok {
		return t, nil
	}
	b := d.strBytes(l.str)
	fs := sb.fs
	name, koid, ok := fuchsiair.SplitThread(b)
	var ni uint32
	if ok {
		ni = d.internBytes(name)
	} else {
		var err error
		if ni, err = d.str(l.str, l.off); err != nil {
			return 0, err
		}
	}
	fs.ThreadName = append(fs.ThreadName, ni)
	fs.ThreadKoid = append(fs.ThreadKoid, koid)
	fs.ThreadBare = append(fs.ThreadBare, !ok)
	t := uint32(len(fs.ThreadName))
	sb.thread[l.str] = t
	return t, nil
}

// finish completes a snapshot: allocation sites as names and classes, and
// empty edges.
func (d *decoder) finish(sb *snapBuilder) {
	s, fs := sb.s, sb.fs
	n := s.Nodes.Len()
	names, classes := d.sites(fs)
	s.Nodes.Name = make([]uint32, n)
	s.Nodes.Class = make([]uint32, n)
	for i, st := range fs.Stack {
		s.Nodes.Name[i] = names[st]
		s.Nodes.Class[i] = classes[st]
	}
	s.Nodes.FirstEdge = make([]uint32, n+1)
	s.Nodes.ID.Trim()
	s.Nodes.SelfSize.Trim()
	fs.Count.Trim()
}

// siteKey identifies a class: an allocation site in a module.
type siteKey struct{ name, lib uint32 }

func (d *decoder) siteClass(k siteKey) uint32 {
	if d.classes == nil {
		d.classes = map[siteKey]uint32{}
	}
	if c, ok := d.classes[k]; ok {
		return c
	}
	cl := &d.f.Classes
	cl.Name = append(cl.Name, k.name)
	cl.Library = append(cl.Library, k.lib)
	if len(cl.FirstField) == 0 {
		cl.FirstField = append(cl.FirstField, 0)
	}
	cl.FirstField = append(cl.FirstField, 0)
	c := uint32(cl.Len())
	d.classes[k] = c
	return c
}

// sites names every stack of the snapshot by its allocation site
// (fuchsiair.ChooseSites), returning per stack the IR name and 1 + class
// index.
func (d *decoder) sites(fs *fuchsiair.Snapshot) (names, classes []uint32) {
	ff := d.ff
	lc, mp := &ff.Locations, &ff.Mappings
	strs := d.strs.Strings
	// Class mappings, resolved once: 1 + index into classKeys.
	classOf := make([]uint32, mp.Len())
	var classKeys []siteKey
	for m := range classOf {
		if name, lib, ok := mp.ClassOf(m, strs); ok {
			classKeys = append(classKeys, siteKey{d.internString(name), d.internString(lib)})
			classOf[m] = uint32(len(classKeys))
		}
	}
	lib := func(l uint32) uint32 {
		if m := lc.Mapping[l]; m != 0 {
			return mp.File[m-1]
		}
		return 0
	}
	st := fuchsiair.ChooseSites(ff, fs, d.strs.Strings)
	names, classes = make([]uint32, len(st)), make([]uint32, len(st))
	for k, x := range st {
		stack := fs.StackOf(k)
		var key siteKey
		switch {
		case len(stack) == 0:
			key.name = d.internString(fuchsiair.NoStackSite)
		case x.Frame < 0:
			key = siteKey{d.internString(fuchsiair.AllocatorSite), lib(stack[len(stack)-1])}
		default:
			l := stack[x.Frame]
			switch {
			case x.Class:
				key = classKeys[classOf[lc.Mapping[l]-1]-1]
			case x.Fn != 0:
				key = siteKey{ff.Functions.Name[x.Fn-1], lib(l)}
			default:
				key = siteKey{d.internString(ff.AddressName(strs, int(l))), lib(l)}
			}
		}
		names[k], classes[k] = key.name, d.siteClass(key)
	}
	return names, classes
}
