package ir

import (
	"fmt"
	"strconv"
)

// Frame is one frame of an allocation stack, in the terms every format
// with stacks can say it: a symbolized frame names its function and source
// position; an unsymbolized one only where its code is (module and
// offset, or a bare program counter).
type Frame struct {
	Function     string // "" when unsymbolized
	File         string // the function's source file
	Line, Column int64
	// Module is the executable or library the code is in ("" unknown),
	// and Offset the program counter's offset in it; Address is the
	// program counter itself.
	Module          string
	Offset, Address uint64
	// Class marks a frame heapconv wrote for an object's class (a class
	// mapping, FuchsiaClassBuildID) when it converted a heap without
	// allocation stacks to a Fuchsia profile: not an allocation frame.
	Class bool
}

// Name is the frame as a symbolizer prints it: the function, or else
// module+0xoffset, or else the program counter.
func (fr Frame) Name() string {
	switch {
	case fr.Function != "":
		return fr.Function
	case fr.Module != "":
		return fmt.Sprintf("%s+0x%x", fr.Module, fr.Offset)
	}
	return "0x" + strconv.FormatUint(fr.Address, 16)
}

// Frames returns the frames of location l of a Fuchsia profile, outermost
// first: a symbolized location has one per inlined function.
func (m *FuchsiaFile) Frames(f *File, l int) []Frame {
	lc := &m.Locations
	base := Frame{Address: lc.Address[l]}
	if k := lc.Mapping[l]; k > 0 {
		mp := &m.Mappings
		base.Module = f.String(mp.File[k-1])
		base.Offset = lc.Address[l] - mp.Start[k-1] + mp.Offset[k-1]
		_, _, base.Class = mp.ClassOf(int(k-1), f.Strings)
	}
	lo, hi := lc.FirstLine[l], lc.FirstLine[l+1]
	if lo == hi {
		return []Frame{base}
	}
	out := make([]Frame, 0, hi-lo)
	for k := int(hi) - 1; k >= int(lo); k-- {
		fr := base
		fn := lc.Function[k] - 1
		fr.Function = f.String(m.Functions.Name[fn])
		fr.File = f.String(m.Functions.Filename[fn])
		fr.Line, fr.Column = lc.Line[k], lc.Column[k]
		out = append(out, fr)
	}
	return out
}
