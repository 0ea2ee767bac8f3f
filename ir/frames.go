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
	Function     string // "" when unsymbolized, or anonymous
	File         string // the function's source file
	Line, Column int64
	// Anonymous marks a symbolized frame whose function has no name (V8
	// writes anonymous functions with an empty name): its Function is ""
	// as an unsymbolized frame's is, but it is not a program address.
	Anonymous bool
	// ScriptID is the id of the script the function is in, where the
	// format numbers them (V8's script_id: scripts of one name, such as
	// eval'd code, have ids of their own); 0 when unknown.
	ScriptID uint64
	// Module is the executable or library the code is in ("" unknown),
	// and Offset the program counter's offset in it; Address is the
	// program counter itself.
	Module          string
	Offset, Address uint64
	// Class marks a frame heapconv wrote for an object's class when it
	// converted a heap without allocation stacks to a format of stacks
	// (ir/fuchsia's class mappings): not an allocation frame.
	Class bool
}

// Name is the frame as a symbolizer prints it: the function ("(anonymous)"
// for an anonymous one, as DevTools shows it), or else module+0xoffset, or
// else the program counter.
func (fr Frame) Name() string {
	switch {
	case fr.Function != "":
		return fr.Function
	case fr.Anonymous:
		return "(anonymous)"
	case fr.Module != "":
		return fmt.Sprintf("%s+0x%x", fr.Module, fr.Offset)
	}
	return "0x" + strconv.FormatUint(fr.Address, 16)
}
