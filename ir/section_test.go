package ir_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// TestRegisterSectionTwice: a name is registered once.
func TestRegisterSectionTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering the V8 section again did not panic")
		}
	}()
	ir.RegisterSection(v8ir.SectionName, ir.SnapshotScope, 1, func() ir.Section { return new(v8ir.Snapshot) })
}

// TestNewSection: a registered name gives its section for every version
// it reads and the scope it has; otherwise a RawSection.
func TestNewSection(t *testing.T) {
	for _, c := range []struct {
		name    string
		scope   ir.Scope
		version int
		raw     bool
	}{
		{v8ir.SectionName, ir.SnapshotScope, 1, false},
		{v8ir.SectionName, ir.SnapshotScope, 2, false},
		{v8ir.SectionName, ir.SnapshotScope, 3, true},
		{v8ir.SectionName, ir.FileScope, 1, true},
		{moarvmir.FileSectionName, ir.FileScope, 1, false},
		{"nobody's", ir.SnapshotScope, 1, true},
	} {
		x := ir.NewSection(c.name, c.scope, c.version)
		if _, raw := x.(*ir.RawSection); raw != c.raw || x.SectionName() != c.name {
			t.Errorf("NewSection(%q, %v, %d) = %T named %q", c.name, c.scope, c.version, x, x.SectionName())
		}
	}
}
