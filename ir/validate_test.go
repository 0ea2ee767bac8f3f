package ir_test

import (
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irtest"
)

// vtFile is a small valid file that every Validate case breaks in one way.
func vtFile() *ir.File {
	s := &ir.Snapshot{
		Name:      1,
		NodeKinds: []string{"hidden", "object"},
		EdgeKinds: []ir.EdgeKind{{Name: "property"}, {Name: "element", Indexed: true}},
		Root:      0,
		Roots:     []ir.RootRef{{Node: 1, Category: 3}},
		Nodes: ir.Nodes{
			Kind:         []uint8{0, 1, 1},
			Name:         []uint32{0, 1, 2},
			Class:        []uint32{0, 1, 0},
			ID:           ir.UintsOf(1, 3, 5),
			SelfSize:     ir.UintsOf(0, 10, 20),
			ExternalSize: ir.UintsOf(0, 0, 7),
			FirstEdge:    []uint32{0, 2, 3, 3},
		},
		Edges: ir.Edges{
			Kind:   []uint8{0, 1, 0},
			Name:   []uint32{1, 1000, 2}, // 1000 is an element index, not a string
			Target: []uint32{1, 2, 2},
		},
		Values: ir.Values{
			Node: []uint32{1, 2},
			Kind: []ir.ValueKind{ir.ValueString, ir.ValueInt},
			Bits: []uint64{2, 5},
			Aux:  []uint64{0, 0},
		},
	}
	return &ir.File{
		Format:    "test",
		Strings:   []string{"", "a", "b", "cat"},
		Classes:   ir.Classes{Name: []uint32{1}, Library: []uint32{0}, FirstField: []uint32{0, 1}, FieldName: []uint32{2}},
		Snapshots: []*ir.Snapshot{s},
	}
}

func vtV8() *v8ir.Snapshot {
	meta := jsObj(jsF("location_fields", ir.JSONStrs("object_index", "script_id", "line", "column")),
		jsF("trace_node_fields", ir.JSONStrs("id", "function_info_index", "count", "size", "children")))
	return &v8ir.Snapshot{
		Header:    jsObj(jsF("meta", meta)),
		NodeExtra: []v8ir.Field{{Name: "detachedness", Values: ir.UintsOf(0, 1, 2)}},
		EdgeExtra: []v8ir.Field{{Name: "extra", Values: ir.UintsOf(0, 0, 0)}},
		Locations: ir.UintsOf(2, 7, 0, 0),
	}
}

// vtTree is a V8 section's flattened trace tree, with meta's five
// trace_node_fields (id, function_info_index, count, size, children).
func vtTree(v ...uint64) ir.Uints {
	return ir.UintsOf(v...)
}

func TestValidateAcceptsValid(t *testing.T) {
	tests := []struct {
		name string
		mod  func(f *ir.File)
	}{
		{"base", func(f *ir.File) {}},
		{"with v8 section", func(f *ir.File) { f.Snapshots[0].SetSection(vtV8()) }},
		{"an empty trace tree without its fields", func(f *ir.File) {
			f.Snapshots[0].SetSection(vtV8())
			v8ir.Of(f.Snapshots[0]).Header = jsObj(jsF("meta", jsObj()))
			v8ir.Of(f.Snapshots[0]).TraceTree = vtTree(0)
		}},
		{"with a trace tree", func(f *ir.File) {
			f.Snapshots[0].SetSection(vtV8())
			v8ir.Of(f.Snapshots[0]).TraceTree = vtTree(1, 1, 0, 0, 0, 1, 2, 0, 0, 0, 0)
		}},
		{"no root", func(f *ir.File) { f.Snapshots[0].Root = ir.NoNode }},
		{"no optional columns", func(f *ir.File) {
			f.Snapshots[0].Nodes.Class = nil
			f.Snapshots[0].Nodes.ExternalSize = ir.Uints{}
		}},
		{"no classes", func(f *ir.File) { f.Classes = ir.Classes{}; f.Snapshots[0].Nodes.Class = nil }},
		{"empty snapshot", func(f *ir.File) {
			f.Snapshots = append(f.Snapshots, &ir.Snapshot{Root: ir.NoNode, Nodes: ir.Nodes{FirstEdge: []uint32{0}}})
		}},
		{"value kinds", func(f *ir.File) {
			v := &f.Snapshots[0].Values
			v.Node = []uint32{0, 1, 2}
			v.Kind = []ir.ValueKind{ir.ValueFloat, ir.ValueBool, ir.ValueNull}
			v.Bits = []uint64{1 << 63, 1, 0}
			v.Aux = []uint64{0, 0, 0}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := vtFile()
			tc.mod(f)
			if err := f.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		mod  func(f *ir.File, s *ir.Snapshot)
		want string // substring of the error
	}{
		{"node kind out of range", func(f *ir.File, s *ir.Snapshot) { s.Nodes.Kind[1] = 9 }, "node 1: kind 9 is not in the kind table"},
		{"no node kinds", func(f *ir.File, s *ir.Snapshot) { s.NodeKinds = nil }, "node 0: kind 0 is not in the kind table (0 entries)"},
		{"edge kind out of range", func(f *ir.File, s *ir.Snapshot) { s.Edges.Kind[2] = 2 }, "edge 2: kind 2 is not in the kind table"},
		{"edge target out of range", func(f *ir.File, s *ir.Snapshot) { s.Edges.Target[1] = 7 }, "edge 1: target node 7 out of range (3 nodes)"},
		{"edge name string out of range", func(f *ir.File, s *ir.Snapshot) { s.Edges.Name[0] = 4 }, "edge 0: name string 4 out of range"},
		{"FirstEdge not monotone", func(f *ir.File, s *ir.Snapshot) { s.Nodes.FirstEdge = []uint32{0, 2, 1, 3} }, "edge offsets decrease at 2"},
		{"FirstEdge not from 0", func(f *ir.File, s *ir.Snapshot) { s.Nodes.FirstEdge = []uint32{1, 2, 3, 3} }, "edge offsets must start at 0"},
		{"FirstEdge end", func(f *ir.File, s *ir.Snapshot) { s.Nodes.FirstEdge = []uint32{0, 1, 2, 2} }, "edge offsets end at 2, but there are 3"},
		{"FirstEdge length", func(f *ir.File, s *ir.Snapshot) { s.Nodes.FirstEdge = []uint32{0, 2, 3} }, "edge offsets: 3 entries for 3 nodes"},
		{"node name column short", func(f *ir.File, s *ir.Snapshot) { s.Nodes.Name = s.Nodes.Name[:2] }, "disagree on the node count"},
		{"node id column short", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ID = ir.UintsOf(1, 3) }, "disagree on the node count"},
		{"self size column long", func(f *ir.File, s *ir.Snapshot) { s.Nodes.SelfSize.Append(1) }, "disagree on the node count"},
		{"edge columns disagree", func(f *ir.File, s *ir.Snapshot) { s.Edges.Target = s.Edges.Target[:2] }, "disagree on the edge count"},
		{"node name out of range", func(f *ir.File, s *ir.Snapshot) { s.Nodes.Name[2] = 4 }, "node 2: name string 4 out of range (4 strings)"},
		{"snapshot name out of range", func(f *ir.File, s *ir.Snapshot) { s.Name = 10 }, "name: string index 10 out of range"},
		{"class out of range", func(f *ir.File, s *ir.Snapshot) { s.Nodes.Class[2] = 5 }, "node 2: class 5 out of range (1 classes)"},
		{"class column length", func(f *ir.File, s *ir.Snapshot) { s.Nodes.Class = []uint32{0} }, "class column has 1 entries for 3 nodes"},
		{"external size column length", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ExternalSize = ir.UintsOf(1) }, "external size column has 1 entries for 3 nodes"},
		{"root out of range", func(f *ir.File, s *ir.Snapshot) { s.Root = 3 }, "root node 3 out of range"},
		{"gc root node out of range", func(f *ir.File, s *ir.Snapshot) { s.Roots[0].Node = 3 }, "root 0: node or category out of range"},
		{"gc root category out of range", func(f *ir.File, s *ir.Snapshot) { s.Roots[0].Category = 4 }, "root 0: node or category out of range"},
		{"value nodes out of order", func(f *ir.File, s *ir.Snapshot) { s.Values.Node = []uint32{2, 1} }, "value 1: node 1 out of range or out of order"},
		{"value nodes duplicate", func(f *ir.File, s *ir.Snapshot) { s.Values.Node = []uint32{1, 1} }, "value 1: node 1 out of range or out of order"},
		{"value node out of range", func(f *ir.File, s *ir.Snapshot) { s.Values.Node = []uint32{1, 3} }, "value 1: node 3 out of range or out of order"},
		{"value columns disagree", func(f *ir.File, s *ir.Snapshot) { s.Values.Aux = nil }, "value columns disagree"},
		{"value kind unknown", func(f *ir.File, s *ir.Snapshot) { s.Values.Kind[1] = 0 }, "value 1: unknown kind"},
		{"value kind too big", func(f *ir.File, s *ir.Snapshot) { s.Values.Kind[1] = 7 }, "value 1: unknown kind"},
		{"value string out of range", func(f *ir.File, s *ir.Snapshot) { s.Values.Bits[0] = 99 }, "value 0: string 99 out of range"},
		{"too many kinds", func(f *ir.File, s *ir.Snapshot) { s.NodeKinds = make([]string, 257) }, "at most 256"},
		{"class library column", func(f *ir.File, s *ir.Snapshot) { f.Classes.Library = nil }, "class table: 1 names but 0 libraries"},
		{"class field offsets length", func(f *ir.File, s *ir.Snapshot) { f.Classes.FirstField = []uint32{0} }, "1 classes need 2 field offsets"},
		{"class field offsets end", func(f *ir.File, s *ir.Snapshot) { f.Classes.FirstField = []uint32{0, 2} }, "class field offsets end at 2"},
		{"class name out of range", func(f *ir.File, s *ir.Snapshot) { f.Classes.Name[0] = 4 }, "class 0: string index out of range"},
		{"class field name out of range", func(f *ir.File, s *ir.Snapshot) { f.Classes.FieldName[0] = 4 }, "class field 0: string index 4 out of range"},
		{"field names without classes", func(f *ir.File, s *ir.Snapshot) {
			f.Classes = ir.Classes{FieldName: []uint32{1}}
			s.Nodes.Class = nil
		}, "field names without classes"},
		{"v8 header not an object", func(f *ir.File, s *ir.Snapshot) { s.SetSection(vtV8()); v8ir.Of(s).Header = ir.JSONStr("x") }, "v8: header is not an object"},
		{"v8 node field length", func(f *ir.File, s *ir.Snapshot) { s.SetSection(vtV8()); v8ir.Of(s).NodeExtra[0].Values = ir.UintsOf(1) }, "v8: column v8.node.detachedness has 1 values for the 3 entries of table node"},
		{"v8 edge field length", func(f *ir.File, s *ir.Snapshot) { s.SetSection(vtV8()); v8ir.Of(s).EdgeExtra[0].Values.Append(0) }, "v8: column v8.edge.extra has 4 values for the 3 entries of table edge"},
		{"v8 locations not whole rows", func(f *ir.File, s *ir.Snapshot) { s.SetSection(vtV8()); v8ir.Of(s).Locations.Append(1) }, "5 location values is not a multiple of 4 fields"},
		{"v8 trace tree cut short", func(f *ir.File, s *ir.Snapshot) {
			s.SetSection(vtV8())
			v8ir.Of(s).TraceTree = vtTree(1, 1, 0, 0, 0, 2, 2, 0, 0, 0, 0)
		}, "trace tree: node at 11 cut short"},
		{"v8 trace tree left over", func(f *ir.File, s *ir.Snapshot) {
			s.SetSection(vtV8())
			v8ir.Of(s).TraceTree = vtTree(1, 1, 0, 0, 0, 0, 9)
		}, "1 values after the tree's last node"},
		{"v8 trace tree without its fields", func(f *ir.File, s *ir.Snapshot) {
			s.SetSection(vtV8())
			v8ir.Of(s).Header = jsObj(jsF("meta", jsObj()))
			v8ir.Of(s).TraceTree = vtTree(1, 0)
		}, "trace tree without meta.trace_node_fields"},
		{"v8 location node out of range", func(f *ir.File, s *ir.Snapshot) { s.SetSection(vtV8()); v8ir.Of(s).Locations.Set(0, 3) }, "location 0: object_index 3 out of range"},

		// The tables' rules that the stream's reader checks as the
		// declarations arrive (SPEC.md, Column declarations).
		{"a file column of a snapshot's table", func(f *ir.File, s *ir.Snapshot) {
			f.Sections = []ir.Section{vtRaw("x", "x.n", ir.TypeUint, ir.TableNode, "", 0, 0, 0)}
		}, "x: column x.n of the file: table \"node\""},
		{"a file column indexing a snapshot's table", func(f *ir.File, s *ir.Snapshot) {
			f.Sections = []ir.Section{vtRaw("x", "x.n", ir.TypeIndex, "x.t", ir.TableEdge, 0)}
		}, "a snapshot's table"},
		{"a table counted twice", func(f *ir.File, s *ir.Snapshot) {
			s.Sections = []ir.Section{vtRaw("x", "x.c", ir.TypeCount, ir.TableNode, ir.TableEdge, 1, 1, 1)}
		}, "table edge is already counted"},
		{"a column counting its own table", func(f *ir.File, s *ir.Snapshot) {
			s.Sections = []ir.Section{vtRaw("x", "x.c", ir.TypeCount, "x.t", "x.t", 0)}
		}, "counts its own table"},
		{"a section column of a core column's name", func(f *ir.File, s *ir.Snapshot) {
			s.Sections = []ir.Section{vtRaw("x", "node.id", ir.TypeUint, ir.TableNode, "", 0, 0, 0)}
		}, "column node.id declared twice"},
		{"a column of two sections' names", func(f *ir.File, s *ir.Snapshot) {
			f.Sections = []ir.Section{vtRaw("x", "x.n", ir.TypeUint, "x.t", "", 1)}
			s.Sections = []ir.Section{vtRaw("y", "x.n", ir.TypeUint, ir.TableNode, "", 0, 0, 0)}
		}, "column x.n declared twice"},
		{"a column of an unknown type", func(f *ir.File, s *ir.Snapshot) {
			s.Sections = []ir.Section{vtRaw("x", "x.n", "float", ir.TableNode, "", 0, 0, 0)}
		}, "unknown type"},
		{"an index into no table", func(f *ir.File, s *ir.Snapshot) {
			s.Sections = []ir.Section{vtRaw("x", "x.n", ir.TypeIndex, ir.TableNode, "", 0, 0, 0)}
		}, "refers to table"},
		{"a column without a name", func(f *ir.File, s *ir.Snapshot) {
			s.Sections = []ir.Section{vtRaw("x", "", ir.TypeUint, ir.TableNode, "", 0, 0, 0)}
		}, "a column has a name and a table"},
		{"a snapshot counting the file's table", func(f *ir.File, s *ir.Snapshot) {
			f.Sections = []ir.Section{vtRaw("x", "x.f", ir.TypeUint, "x.t", "", 7)}
			s.Sections = []ir.Section{vtRaw("y", "y.c", ir.TypeCount, ir.TableNode, "x.t", 1, 0, 0)}
		}, "counts the file's table x.t"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := vtFile()
			tc.mod(f, f.Snapshots[0])
			err := f.Validate()
			if err == nil {
				t.Fatalf("Validate accepted the file, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// vtRaw is a section no package registered, of one column.
func vtRaw(section, name string, typ ir.ColumnType, table, of string, values ...uint64) *ir.RawSection {
	return &ir.RawSection{Name: section, Version: 1, Columns: []ir.RawColumn{
		{Decl: ir.ColumnDecl{Name: name, Type: typ, Table: table, Of: of}, Values: ir.UintsOf(values...)}}}
}

func TestValidateNamesTheSnapshot(t *testing.T) {
	f := vtFile()
	g := vtFile().Snapshots[0]
	g.Edges.Target[0] = 9
	f.Snapshots = append(f.Snapshots, g)
	err := f.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "snapshot 1: ") {
		t.Errorf("Validate = %v, want an error starting with \"snapshot 1: \"", err)
	}
}

// TestValidateDart refuses Dart sections a writer could not honour: objects
// without classes, padding DevTools never writes (which a writer would
// have to produce, however large), a referenceCount below the references
// or beyond what Dart's readers can allocate.
func TestValidateDart(t *testing.T) {
	good := func() *ir.File {
		return irtest.Random(1, irtest.Options{MaxNodes: 6, Dart: &irtest.DartOptions{Hashes: true, Padding: true}})
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("a generated Dart file is invalid: %v", err)
	}
	tests := []struct {
		name  string
		spoil func(s *ir.Snapshot)
		want  string
	}{
		{"no class column", func(s *ir.Snapshot) { s.Nodes.Class = nil }, "every object has a class"},
		{"a chunk of padding", func(s *ir.Snapshot) { dartir.Of(s).Padding = dartir.ExportChunk }, "padding"},
		{"huge padding", func(s *ir.Snapshot) { dartir.Of(s).Padding = 1 << 50 }, "padding"},
		{"padding without hashes", func(s *ir.Snapshot) { dartir.Of(s).IdentityHashes = false }, "padding"},
		{"referenceCount below the references", func(s *ir.Snapshot) {
			dartir.Of(s).ReferenceCount = uint64(s.Edges.Len()+len(dartir.Of(s).ZeroRefNode)) - 1
		}, "referenceCount"},
		{"referenceCount of 2^32", func(s *ir.Snapshot) { dartir.Of(s).ReferenceCount = 1 << 32 }, "referenceCount"},
		// A section's columns of indices, each checked by its largest
		// value first.
		{"a reference 0 of a node past the nodes", func(s *ir.Snapshot) {
			d := dartir.Of(s)
			d.ZeroRefNode = append(d.ZeroRefNode, uint32(s.Nodes.Len()))
			d.ZeroRefSlot = append(d.ZeroRefSlot, 0)
		}, "column dart.zero_ref.node: value"},
		{"a reference 0 repeated", zeroRefs([]uint32{0, 0, 1}, []uint32{1, 1, 0}), "zero reference 1 out of order"},
		{"references 0 of a node out of order", zeroRefs([]uint32{1, 1, 1}, []uint32{0, 5, 4}), "zero reference 2 out of order"},
		{"references 0 of nodes out of order", zeroRefs([]uint32{0, 2, 1}, []uint32{0, 0, 9}), "zero reference 2 out of order"},
		{"an external property named past the strings", func(s *ir.Snapshot) {
			d := dartir.Of(s)
			d.ExternalNode = append(d.ExternalNode, 0)
			d.ExternalSize.Append(1)
			d.ExternalName = append(d.ExternalName, 1<<31)
		}, "column dart.external.name: value 2147483648"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := good()
			tc.spoil(f.Snapshots[0])
			if err := f.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate: %v, want an error about %q", err, tc.want)
			}
		})
	}
	f := good() // ordered by node, then slot
	zeroRefs([]uint32{0, 0, 1, 2}, []uint32{3, 4, 0, 9})(f.Snapshots[0])
	if err := f.Validate(); err != nil {
		t.Errorf("references 0 in order: %v", err)
	}
}

// zeroRefs returns a spoil that gives a Dart snapshot these references 0.
func zeroRefs(nodes, slots []uint32) func(s *ir.Snapshot) {
	return func(s *ir.Snapshot) {
		d := dartir.Of(s)
		d.ZeroRefNode, d.ZeroRefSlot = nodes, slots
		d.ReferenceCount = uint64(s.Edges.Len() + len(nodes))
	}
}

// TestValidateStringIndexFields: a section's string-index fields are in
// the string table (SPEC.md, Fields), whichever section declares them.
func TestValidateStringIndexFields(t *testing.T) {
	f := irtest.RandomFuchsia(1, irtest.Options{MaxNodes: 4}, irtest.FuchsiaOptions{})
	if err := f.Validate(); err != nil {
		t.Fatalf("a generated Fuchsia file is invalid: %v", err)
	}
	fuchsiair.FileOf(f).DocURL = uint32(len(f.Strings))
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "field doc_url: string") {
		t.Errorf("Validate: %v, want an error about doc_url", err)
	}
}

// TestValidateBigInOrder: a snapshot big enough for its edge columns to be
// checked on another core reports the first problem in the order a small
// one does: the edge offsets', then the node columns', then the edge
// columns'.
func TestValidateBigInOrder(t *testing.T) {
	big := func() *ir.File {
		const n, m = 1 << 10, 1 << 20
		f := vtFile()
		s := f.Snapshots[0]
		s.Nodes = ir.Nodes{Kind: make([]uint8, n), Name: make([]uint32, n), FirstEdge: make([]uint32, n+1)}
		s.Nodes.ID.AppendZeros(n)
		s.Nodes.SelfSize.AppendZeros(n)
		for i := range s.Nodes.FirstEdge {
			s.Nodes.FirstEdge[i] = uint32(i * (m / n))
		}
		s.Edges = ir.Edges{Kind: make([]uint8, m), Name: make([]uint32, m), Target: make([]uint32, m)}
		for e := 600_000; e < 600_100; e++ { // elements past the strings
			s.Edges.Kind[e], s.Edges.Name[e] = 1, 1<<30
		}
		s.Values = ir.Values{}
		s.Roots = nil
		return f
	}
	if err := big().Validate(); err != nil {
		t.Fatalf("the big file: %v", err)
	}
	for _, c := range []struct {
		name  string
		spoil func(s *ir.Snapshot)
		want  string
	}{
		{"edge", func(s *ir.Snapshot) { s.Edges.Target[777_777] = 1 << 20 }, "edge 777777: target node 1048576 out of range"},
		{"edge kind", func(s *ir.Snapshot) { s.Edges.Kind[777_777] = 2 }, "edge 777777: kind 2 is not in the kind table"},
		{"edge name among elements", func(s *ir.Snapshot) { s.Edges.Name[600_100] = 4 }, "edge 600100: name string 4 out of range"},
		{"edge name", func(s *ir.Snapshot) { s.Edges.Name[1_000_001] = 4 }, "edge 1000001: name string 4 out of range"},
		{"node and edge", func(s *ir.Snapshot) {
			s.Edges.Target[5] = 1 << 20
			s.Nodes.Name[900] = 99
		}, "node 900: name string 99 out of range"},
		{"edge offsets and node", func(s *ir.Snapshot) {
			s.Nodes.FirstEdge[600] = s.Nodes.FirstEdge[601] + 1
			s.Nodes.Name[3] = 99
		}, "edge offsets decrease at 601"},
	} {
		f := big()
		c.spoil(f.Snapshots[0])
		if err := f.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
