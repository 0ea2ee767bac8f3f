package irstream

import "github.com/heapconv/heapconv/ir"

// OldSectionColumns returns the columns an old record type had in streams
// of versions 1 to 5 (nil for one they did not have; "fuchsia.stream" for
// the stream details), for the test that the sections still declare them
// so.
func OldSectionColumns(name string) []ir.ColumnDecl {
	cols := oldSections[name].cols
	if name == "fuchsia.stream" {
		cols = oldStreamColumns
	}
	var out []ir.ColumnDecl
	for _, c := range cols {
		out = append(out, c.ColumnDecl)
	}
	return out
}

// Evolve makes the next snapshot of s's process (base_test.go), for the
// fuzzers' seeds.
var Evolve = evolve
