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
