package fuchsia

import "github.com/heapconv/heapconv/ir"

// Select makes the Fuchsia sections, snapshot n and the class table of a
// file holding only snapshot n (ir.File.Select). The file-wide tables are
// the union of every process's: a mapping, location, function or class is
// kept when snapshot n uses it (its stacks' locations, their mappings and
// lines' functions, its stream's regions, its nodes' classes, a location
// in one of its regions) or when no snapshot does, and dropped when only
// the other snapshots use it. So a FIDL stream's snapshot keeps exactly
// its own regions (every mapping of a stream must be one snapshot's
// region), and one process of a profile does not carry the others'
// stacks. Indices are renumbered; pprof ids are kept.
func (m *File) Select(f *ir.File, n int, g *ir.File) {
	lc, mp, fn := &m.Locations, &m.Mappings, &m.Functions
	// Who uses each entry: bit mine for snapshot n, others for another.
	const mine, others = 1, 2
	locUse := make([]uint8, lc.Len())
	mapUse := make([]uint8, mp.Len())
	classUse := make([]uint8, f.Classes.Len())
	for k, s := range f.Snapshots {
		who := uint8(others)
		if k == n {
			who = mine
		}
		for _, c := range s.Nodes.Class {
			if c > 0 {
				classUse[c-1] |= who
			}
		}
		fs := Of(s)
		if fs == nil {
			continue
		}
		for _, l := range fs.StackLocation {
			locUse[l] |= who
		}
		if fs.Stream != nil {
			for _, mi := range fs.Stream.RegionMapping {
				mapUse[mi] |= who
			}
		}
	}
	keep := func(use uint8) bool { return use&mine != 0 || use == 0 }
	// A location no stack uses belongs to the process whose region holds
	// it, if any. One kept keeps its mapping and functions; one dropped
	// counts as the others'.
	for l := range locUse {
		if mi := lc.Mapping[l]; locUse[l] == 0 && mi != 0 {
			locUse[l] = mapUse[mi-1]
		}
	}
	fnUse := make([]uint8, fn.Len())
	for l := range locUse {
		who := uint8(others)
		if keep(locUse[l]) {
			who = mine
		}
		if mi := lc.Mapping[l]; mi != 0 {
			mapUse[mi-1] |= who
		}
		for _, fi := range lc.Function[lc.FirstLine[l]:lc.FirstLine[l+1]] {
			fnUse[fi-1] |= who
		}
	}
	mapNew, nm := renumber(mapUse, keep)
	fnNew, nf := renumber(fnUse, keep)
	locNew, nl := renumber(locUse, keep)
	classNew, nc := renumber(classUse, keep)

	mm := *m
	mm.SampleSnapshot = nil // one process's samples are in order by themselves
	if nm < mp.Len() {
		var t Mappings
		for i := range mapNew {
			if mapNew[i] != dropped {
				t.ID = append(t.ID, mp.ID[i])
				t.Start = append(t.Start, mp.Start[i])
				t.Limit = append(t.Limit, mp.Limit[i])
				t.Offset = append(t.Offset, mp.Offset[i])
				t.File = append(t.File, mp.File[i])
				t.BuildID = append(t.BuildID, mp.BuildID[i])
				t.Flags = append(t.Flags, mp.Flags[i])
			}
		}
		mm.Mappings = t
	}
	if nf < fn.Len() {
		var t Functions
		for i := range fnNew {
			if fnNew[i] != dropped {
				t.ID = append(t.ID, fn.ID[i])
				t.Name = append(t.Name, fn.Name[i])
				t.SystemName = append(t.SystemName, fn.SystemName[i])
				t.Filename = append(t.Filename, fn.Filename[i])
				t.StartLine = append(t.StartLine, fn.StartLine[i])
			}
		}
		mm.Functions = t
	}
	if nl < lc.Len() || nm < mp.Len() || nf < fn.Len() {
		var t Locations
		for l := range locNew {
			if locNew[l] == dropped {
				continue
			}
			if len(t.FirstLine) == 0 {
				t.FirstLine = append(t.FirstLine, 0)
			}
			t.ID = append(t.ID, lc.ID[l])
			mi := lc.Mapping[l]
			if mi != 0 {
				mi = mapNew[mi-1] + 1
			}
			t.Mapping = append(t.Mapping, mi)
			t.Address = append(t.Address, lc.Address[l])
			t.Folded = append(t.Folded, lc.Folded[l])
			for j := lc.FirstLine[l]; j < lc.FirstLine[l+1]; j++ {
				t.Function = append(t.Function, fnNew[lc.Function[j]-1]+1)
				t.Line = append(t.Line, lc.Line[j])
				t.Column = append(t.Column, lc.Column[j])
			}
			t.FirstLine = append(t.FirstLine, uint32(len(t.Function)))
		}
		mm.Locations = t
	}

	s := *f.Snapshots[n]
	if fs := Of(&s); fs != nil && nl < lc.Len() {
		fs2 := *fs
		fs2.StackLocation = make([]uint32, len(fs.StackLocation))
		for i, l := range fs.StackLocation {
			fs2.StackLocation[i] = locNew[l]
		}
		s.SetSection(&fs2)
	}
	if fs := Of(&s); fs != nil && fs.Stream != nil && nm < mp.Len() {
		st := *fs.Stream
		st.RegionMapping = make([]uint32, len(st.RegionMapping))
		for i, mi := range fs.Stream.RegionMapping {
			st.RegionMapping[i] = mapNew[mi]
		}
		fs2 := *fs
		fs2.Stream = &st
		s.SetSection(&fs2)
	}
	classes := f.Classes
	if nc < f.Classes.Len() {
		c := &f.Classes
		classes = ir.Classes{}
		for i := range classNew {
			if classNew[i] != dropped {
				if len(classes.FirstField) == 0 {
					classes.FirstField = []uint32{0} // none without classes, as decoded
				}
				classes.Name = append(classes.Name, c.Name[i])
				classes.Library = append(classes.Library, c.Library[i])
				classes.FieldName = append(classes.FieldName, c.FieldName[c.FirstField[i]:c.FirstField[i+1]]...)
				classes.FirstField = append(classes.FirstField, uint32(len(classes.FieldName)))
			}
		}
		s.Nodes.Class = make([]uint32, len(f.Snapshots[n].Nodes.Class))
		for i, c := range f.Snapshots[n].Nodes.Class {
			if c > 0 {
				c = classNew[c-1] + 1
			}
			s.Nodes.Class[i] = c
		}
	}
	g.SetSection(&mm)
	g.Snapshots = []*ir.Snapshot{&s}
	g.Classes = classes
}

// dropped marks an entry renumber drops.
const dropped = ^uint32(0)

// renumber gives each entry whose use keep accepts its index among those
// kept, and the others dropped; it returns how many are kept.
func renumber(use []uint8, keep func(uint8) bool) ([]uint32, int) {
	idx := make([]uint32, len(use))
	n := 0
	for i, u := range use {
		if keep(u) {
			idx[i] = uint32(n)
			n++
		} else {
			idx[i] = dropped
		}
	}
	return idx, n
}
