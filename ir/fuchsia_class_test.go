package ir_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
)

// TestClassModule checks that class mappings name a class and its library
// so that they are told apart again, whatever the name holds.
func TestClassModule(t *testing.T) {
	for _, c := range []struct{ name, lib string }{
		{"Node", "package:app/tree.dart"},
		{"Node", ""},
		{"Node (package:x)", ""},
		{"a (b)", "c (d)"},
		{"", "lib"},
		{"", ""},
	} {
		module, off := ir.FuchsiaClassModule(c.name, c.lib)
		name, lib, ok := ir.ParseFuchsiaClassModule(module, off)
		if !ok || name != c.name || lib != c.lib {
			t.Errorf("%q of %q: module %q offset %d parsed as %q of %q (%v)", c.name, c.lib, module, off, name, lib, ok)
		}
	}
	for _, c := range []struct {
		module string
		off    uint64
	}{{"Node", 5}, {"Node x", 4}, {"Node ()", 4}, {"Node (a", 4}} {
		if name, lib, ok := ir.ParseFuchsiaClassModule(c.module, c.off); ok {
			t.Errorf("%q at %d parsed as %q of %q", c.module, c.off, name, lib)
		}
	}
	if id, err := hex.DecodeString(ir.FuchsiaClassBuildID); err != nil || len(id) != 16 {
		t.Errorf("build id %q: not the hex of 16 bytes", ir.FuchsiaClassBuildID)
	}
	// Each class's mapping has a build id of its own, of at most 32
	// bytes (a stream's bound).
	a, b := ir.FuchsiaClassMappingID(0), ir.FuchsiaClassMappingID(1<<32-1)
	if id, err := hex.DecodeString(b); a == b || err != nil || len(id) > 32 || !strings.HasPrefix(a, ir.FuchsiaClassBuildID) {
		t.Errorf("class build ids %q and %q", a, b)
	}
}
