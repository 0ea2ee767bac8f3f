package ir_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

var updateSpec = flag.Bool("update", false, "rewrite SPEC.md's generated column tables")

// specSections are the registered sections with every column they can
// declare: the Fuchsia snapshot section with its stream details (the V8
// section's node and edge fields are named by its fields, and described
// in prose).
var specSections = map[string]ir.Section{
	v8ir.SectionName:              &v8ir.Snapshot{},
	dartir.SectionName:            &dartir.Snapshot{},
	moarvmir.FileSectionName:      &moarvmir.File{},
	moarvmir.SnapshotSectionName:  &moarvmir.Snapshot{},
	fuchsiair.FileSectionName:     &fuchsiair.File{},
	fuchsiair.SnapshotSectionName: &fuchsiair.Snapshot{Stream: &fuchsiair.Stream{}},
}

// columnTable renders declarations as SPEC.md's tables show them.
func columnTable(b *ir.Bindings) string {
	var s strings.Builder
	s.WriteString("| column | type | table | of | optional |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range b.Columns() {
		opt := ""
		if c.Optional {
			opt = "yes"
		}
		fmt.Fprintf(&s, "| `%s` | %s | %s | %s | %s |\n", c.Decl.Name, c.Decl.Type, c.Decl.Table, c.Decl.Of, opt)
	}
	if len(b.Sizes()) > 0 {
		s.WriteString("\n| field | declares the length of table |\n| --- | --- |\n")
		for _, ts := range b.Sizes() {
			fmt.Fprintf(&s, "| `%s` | %s |\n", ts.Field, ts.Table)
		}
	}
	return s.String()
}

// TestSpecColumns: SPEC.md's column tables are the declarations the core
// and every registered section make (go test ./ir -run TestSpecColumns
// -update rewrites them).
func TestSpecColumns(t *testing.T) {
	data, err := os.ReadFile("SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(data)
	f := &ir.File{Snapshots: []*ir.Snapshot{{}}}
	core := columnTable(ir.FileBindings(f)) + strings.SplitAfterN(columnTable(ir.SnapshotBindings(f.Snapshots[0])), "\n", 3)[2]
	blocks := map[string]string{"core columns": core}
	begin := map[string]string{"core columns": "<!-- core columns: generated from the declarations (ir/spec_test.go) -->\n"}
	end := map[string]string{"core columns": "<!-- end of generated core columns -->"}
	names := ir.SectionNames()
	if !slices.Equal(names, sortedKeys(specSections)) {
		t.Fatalf("registered sections %v; this test describes %v", names, sortedKeys(specSections))
	}
	for _, n := range names {
		blocks[n] = columnTable(ir.SectionBindings(specSections[n]))
		begin[n] = fmt.Sprintf("<!-- columns of %s: generated from the declarations (ir/spec_test.go) -->\n", n)
		end[n] = fmt.Sprintf("<!-- end of the columns of %s -->", n)
	}
	for name, want := range blocks {
		i := strings.Index(spec, begin[name])
		j := strings.Index(spec, end[name])
		if i < 0 || j < i {
			t.Errorf("SPEC.md has no generated table of the %s", name)
			continue
		}
		i += len(begin[name])
		if spec[i:j] != want {
			if *updateSpec {
				spec = spec[:i] + want + spec[j:]
				continue
			}
			t.Errorf("SPEC.md's table of the %s is not what they declare (run with -update):\n%s", name, want)
		}
	}
	if *updateSpec {
		if err := os.WriteFile("SPEC.md", []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedKeys(m map[string]ir.Section) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}
