package fuchsia

import (
	"cmp"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// A FIDL stream has program addresses where a profile has functions and
// lines: what a block's stack and allocation site become is what the reader
// makes of the addresses. streamRead predicts it, so that the loss report
// counts the blocks whose stack or name changes, rather than the functions
// lost (which say nothing of how many blocks they named).

// streamRead returns the Fuchsia sections the reader makes of procs (the
// processes emit sends for f's snapshots, in order), as far as stacks and
// allocation sites go: the file's mappings are every process's regions, in
// each process by start address; its locations are one per program address
// of a process, in the region that holds it, without functions (a stream
// has none; the class frames' functions, which the reader makes of class
// regions, neither name a stack nor choose a site); each snapshot has the
// stacks sent, node i's the one f's node i has.
func streamRead(f *ir.File, procs []fidl.Process) (*ir.File, []*ir.Snapshot) {
	strs := ir.NewInterner(nil)
	strs.Intern("")
	intern := strs.Intern
	ff := &fuchsiair.File{}
	out := &ir.File{}
	out.SetSection(ff)
	mp, lc := &ff.Mappings, &ff.Locations
	lc.FirstLine = []uint32{0}
	snaps := make([]*ir.Snapshot, len(procs))
	for k, p := range procs {
		regions := slices.Clone(p.Regions)
		slices.SortFunc(regions, func(a, b fidl.ExecutableRegion) int { return cmp.Compare(a.Address, b.Address) })
		first := mp.Len()
		for _, g := range regions {
			mp.Append(g.Address, g.Address+g.Size, g.FileOffset, intern(g.Name), intern(hex.EncodeToString(g.BuildID.Value)), 0)
		}
		fs := &fuchsiair.Snapshot{StackFirst: []uint32{0}}
		locOf := map[uint64]uint32{}
		for _, t := range p.StackTraces { // keys 1, 2, ...: stack k is key k+1
			for _, pc := range t.ProgramAddresses {
				l, ok := locOf[pc]
				if !ok {
					l = lc.Append(mp.Holding(first, pc), pc)
					locOf[pc] = l
					lc.FirstLine = append(lc.FirstLine, 0)
				}
				fs.StackLocation = append(fs.StackLocation, l)
			}
			fs.StackFirst = append(fs.StackFirst, uint32(len(fs.StackLocation)))
		}
		src := f.Snapshots[k]
		fs.Stack = fuchsiair.Of(src).Stack
		s := &ir.Snapshot{Nodes: src.Nodes}
		s.SetSection(fs)
		snaps[k] = s
	}
	out.Strings = strs.Strings
	return out, snaps
}

// stackNames names each stack of fs (in f, whose Fuchsia file is ff) by its
// frames (ir.Frame.Name), innermost first, leaving out class frames (a
// converted heap's classes, which are no allocation frames).
func stackNames(f *ir.File, ff *fuchsiair.File, fs *fuchsiair.Snapshot) []string {
	locName := map[uint32]string{}
	var parts []string
	out := make([]string, fs.Stacks())
	for k := range out {
		parts = parts[:0]
		for _, l := range fs.StackOf(k) {
			name, ok := locName[l]
			if !ok {
				frames := ff.Frames(f, int(l)) // outermost first
				var names []string
				for j := len(frames) - 1; j >= 0; j-- {
					if !frames[j].Class {
						names = append(names, frames[j].Name())
					}
				}
				name = strings.Join(names, " < ")
				locName[l] = name
			}
			if name != "" {
				parts = append(parts, name)
			}
		}
		out[k] = strings.Join(parts, " < ")
	}
	return out
}
