package fuchsia_test

import (
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// TestScriptOf: a script mapping's build id gives back its script id; a
// class mapping and a program's module are no script mapping, and only
// the program's module is not one heapconv made.
func TestScriptOf(t *testing.T) {
	strs := []string{"", fuchsiair.ScriptMappingID(0x1234), fuchsiair.ScriptMappingID(1 << 63), fuchsiair.ClassMappingID(3),
		"0123abcd", fuchsiair.ScriptBuildID + "12", fuchsiair.ScriptBuildID + "000000000000000g"}
	mp := &fuchsiair.Mappings{BuildID: []uint32{1, 2, 3, 4, 5, 6, 0}, File: make([]uint32, 7), Offset: make([]uint64, 7)}
	for _, c := range []struct {
		mapping int
		id      uint64
		script  bool
		made    bool
	}{
		{0, 0x1234, true, true},
		{1, 1 << 63, true, true},
		{2, 0, false, true},  // a class mapping
		{3, 0, false, false}, // a module's
		{4, 0, false, false}, // too short for an id
		{5, 0, false, false}, // not hex
		{6, 0, false, false}, // no build id
	} {
		id, ok := mp.ScriptOf(c.mapping, strs)
		if id != c.id || ok != c.script {
			t.Errorf("mapping %d (%q): ScriptOf = %#x, %v; want %#x, %v", c.mapping, strs[mp.BuildID[c.mapping]], id, ok, c.id, c.script)
		}
		if made := mp.Made(c.mapping, strs); made != c.made {
			t.Errorf("mapping %d (%q): Made = %v, want %v", c.mapping, strs[mp.BuildID[c.mapping]], made, c.made)
		}
	}
}

// TestAddressName: an unsymbolized frame is named by its module and its
// offset in the module's file (the address less the mapping's start, plus
// the mapping's file offset); without a module name, or outside every
// mapping, by its address.
func TestAddressName(t *testing.T) {
	strs := []string{"", "libc.so", "/pkg/bin/app"}
	ff := &fuchsiair.File{
		Mappings: fuchsiair.Mappings{Start: []uint64{0x3e00010000, 0x2a00004000, 0x5000}, Offset: []uint64{0x10000, 0x1000, 0},
			File: []uint32{1, 2, 0}, BuildID: make([]uint32, 3)},
		Locations: fuchsiair.Locations{Address: []uint64{0x3e00012064, 0x2a00004134, 0x5010, 0x7777}, Mapping: []uint32{1, 2, 3, 0},
			FirstLine: make([]uint32, 5)},
	}
	for l, want := range []string{"libc.so+0x12064", "/pkg/bin/app+0x1134", "0x5010", "0x7777"} {
		if got := ff.AddressName(strs, l); got != want {
			t.Errorf("location %d: %q, want %q", l, got, want)
		}
	}
}
