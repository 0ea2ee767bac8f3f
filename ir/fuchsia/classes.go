package fuchsia

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// ClassBuildID begins the build id (hex) of the mappings — in a
// FIDL stream, the executable regions — that stand for the classes of a
// graph heap converted to a Fuchsia profile or stream: one mapping per
// class, holding the program address of the class's frames, its module
// name and file offset made by ClassModule. A stream has program
// addresses but no function names; the mapping's name carries the class
// through it. (The 16 bytes spell "heapconv-classes".)
const ClassBuildID = "68656170636f6e762d636c6173736573"

// ClassMappingID returns the build id of the mapping of class k of a
// conversion: ClassBuildID, then k in 4 bytes. Each class is a
// module of its own: pprof takes mappings of the same build id, size and
// offset for one and merges them (go tool pprof -proto does).
func ClassMappingID(k uint32) string {
	return fmt.Sprintf("%s%08x", ClassBuildID, k)
}

// ClassModule returns the module name and file offset of the class
// mapping (ClassBuildID) of class name in library: the name, then
// " (library)" when there is one, as ClassLabels qualifies a name; the
// offset is the name's length in bytes, so that a name holding " (" is
// still told from its library (ParseClassModule).
func ClassModule(name, library string) (module string, offset uint64) {
	if library == "" {
		return name, uint64(len(name))
	}
	return name + " (" + library + ")", uint64(len(name))
}

// ParseClassModule returns the class and library a class mapping's
// module name and file offset stand for (ClassModule); ok is false
// when they are not of that form.
func ParseClassModule(module string, offset uint64) (name, library string, ok bool) {
	if offset > uint64(len(module)) {
		return "", "", false
	}
	name, rest := module[:offset], module[offset:]
	if rest == "" {
		return name, "", true
	}
	if len(rest) < 4 || !strings.HasPrefix(rest, " (") || !strings.HasSuffix(rest, ")") {
		return "", "", false
	}
	return name, rest[2 : len(rest)-1], true
}

// ClassOf returns the class mapping i (an index) stands for, when it is a
// class mapping (its build id begins with ClassBuildID); strs is
// the file's string table.
func (m *Mappings) ClassOf(i int, strs []string) (name, library string, ok bool) {
	if !strings.HasPrefix(strs[m.BuildID[i]], ClassBuildID) {
		return "", "", false
	}
	return ParseClassModule(strs[m.File[i]], m.Offset[i])
}

// ScriptBuildID begins the build id (hex) of the mappings that stand for
// the scripts of a V8 heap's allocation traces converted to a Fuchsia
// profile or stream: one mapping per script, named by the script and
// holding the program addresses of its functions' frames. pprof has no
// script ids: the build id carries it (ScriptMappingID). (The 16 bytes
// spell "heapconv-scripts".)
const ScriptBuildID = "68656170636f6e762d73637269707473"

// ScriptMappingID returns the build id of the mapping of the script of id
// id: ScriptBuildID, then the id in 8 bytes.
func ScriptMappingID(id uint64) string {
	return fmt.Sprintf("%s%016x", ScriptBuildID, id)
}

// ScriptOf returns the script id mapping i (an index) stands for, when it
// is a script mapping (ScriptMappingID); strs is the file's string table.
func (m *Mappings) ScriptOf(i int, strs []string) (id uint64, ok bool) {
	b := strs[m.BuildID[i]]
	if len(b) != len(ScriptBuildID)+16 || !strings.HasPrefix(b, ScriptBuildID) {
		return 0, false
	}
	id, err := strconv.ParseUint(b[len(ScriptBuildID):], 16, 64)
	return id, err == nil
}

// Made reports whether mapping i is one heapconv made when it converted a
// heap of another format (a class or a script mapping): it stands for no
// module of the program, and its build id is no symbolizer's.
func (m *Mappings) Made(i int, strs []string) bool {
	if _, _, ok := m.ClassOf(i, strs); ok {
		return true
	}
	_, ok := m.ScriptOf(i, strs)
	return ok
}

// Frames returns the frames of location l, outermost first: a symbolized
// location has one per inlined function (a function without a name is
// anonymous, not unsymbolized).
func (m *File) Frames(f *ir.File, l int) []ir.Frame {
	lc := &m.Locations
	base := m.addressFrame(f.Strings, f.String, l)
	lo, hi := lc.FirstLine[l], lc.FirstLine[l+1]
	if lo == hi {
		return []ir.Frame{base}
	}
	out := make([]ir.Frame, 0, hi-lo)
	for k := int(hi) - 1; k >= int(lo); k-- {
		fr := base
		fn := lc.Function[k] - 1
		fr.Function = f.String(m.Functions.Name[fn])
		fr.Anonymous = fr.Function == ""
		fr.File = f.String(m.Functions.Filename[fn])
		fr.Line, fr.Column = lc.Line[k], lc.Column[k]
		out = append(out, fr)
	}
	return out
}

// addressFrame returns location l's frame as its program address tells
// it: the address, and the module and offset in it when the location
// lies in a mapping; str looks up a string index of strs.
func (m *File) addressFrame(strs []string, str func(uint32) string, l int) ir.Frame {
	lc := &m.Locations
	fr := ir.Frame{Address: lc.Address[l]}
	if k := lc.Mapping[l]; k > 0 {
		mp := &m.Mappings
		fr.Module = str(mp.File[k-1])
		fr.Offset = lc.Address[l] - mp.Start[k-1] + mp.Offset[k-1]
		_, _, fr.Class = mp.ClassOf(int(k-1), strs)
		fr.ScriptID, _ = mp.ScriptOf(int(k-1), strs)
	}
	return fr
}

// AddressName returns the name of location l as an unsymbolized frame,
// the way a symbolizer prints one (ir.Frame.Name): module+0x<offset>,
// the offset in the module's file, when its mapping has a name, else the
// program address, 0x<pc>. The reader names an unsymbolized allocation
// site so; strs is the string table the mappings refer to.
func (m *File) AddressName(strs []string, l int) string {
	return m.addressFrame(strs, func(i uint32) string {
		if int(i) < len(strs) {
			return strs[i]
		}
		return ""
	}, l).Name()
}
