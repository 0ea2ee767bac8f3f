package devtools_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir/devtools"
	wv8 "github.com/heapconv/heapconv/writers/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

// cvFile is a non-V8 file: four nodes, root n1 (not first), GC roots in two
// categories, a custom node kind and custom edge kinds (one indexed).
func cvFile() *ir.File {
	s := &ir.Snapshot{
		NodeKinds: []string{ir.KindObject, "jvm class", ir.KindString},
		EdgeKinds: []ir.EdgeKind{{Name: ir.EdgeProperty}, {Name: ir.EdgeElement, Indexed: true}, {Name: "field"}, {Name: "slot", Indexed: true}},
		Root:      1,
		Roots:     []ir.RootRef{{Node: 1, Category: 5}, {Node: 2, Category: 4}, {Node: 3, Category: 4}},
		Nodes: ir.Nodes{
			Kind:      []uint8{0, 1, 0, 2},
			Name:      []uint32{2, 1, 2, 3},
			ID:        ir.UintsOf(11, 13, 15, 17),
			SelfSize:  ir.UintsOf(16, 0, 24, 40),
			FirstEdge: []uint32{0, 1, 4, 4, 4},
		},
		Edges: ir.Edges{
			Kind:   []uint8{0, 1, 2, 3},
			Name:   []uint32{3, 7, 6, 42},
			Target: []uint32{3, 0, 2, 3},
		},
	}
	return &ir.File{
		Format:    moarvmir.Format,
		Producer:  "test",
		Strings:   []string{"", "Root", "Foo", "text", "stack", "globals", "fld", "unused"},
		Snapshots: []*ir.Snapshot{s},
	}
}

// cvEdges lists node i's edges as "kind name -> target" lines.
func cvEdges(f *ir.File, s *ir.Snapshot, i int) []string {
	var out []string
	lo, hi := s.Nodes.EdgeRange(i)
	for e := lo; e < hi; e++ {
		out = append(out, fmt.Sprintf("%s %s -> n%d", s.EdgeKindOf(e).Name, f.EdgeName(s, e), s.Edges.Target[e]))
	}
	return out
}

// cvConvert converts f, writes it, and checks that readers/v8 reads the
// output back as the same graph and finds no DevTools violation.
func cvConvert(t *testing.T, f *ir.File) (*ir.File, ir.LossReport) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatalf("test input invalid: %v", err)
	}
	out, loss, err := devtools.Convert(f)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	var b bytes.Buffer
	loss2, err := wv8.Write(&b, f, wv8.Options{})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !slices.Equal(loss, loss2) {
		t.Errorf("Write's loss report\n%v\ndiffers from Convert's\n%v", loss2, loss)
	}
	g, err := rv8.Read(bytes.NewReader(b.Bytes()), rv8.Options{})
	if err != nil {
		t.Fatalf("re-read: %v", err)
	}
	if d := ir.GraphDiff(out, out.Snapshots[0], g, g.Snapshots[0], 10); len(d) > 0 {
		t.Errorf("re-read graph differs from Convert's: %q", d)
	}
	if errs := rv8.Validate(bytes.NewReader(b.Bytes()), rv8.Options{}); len(errs) > 0 {
		t.Errorf("output violates DevTools rules: %v", errs)
	}
	s := out.Snapshots[0]
	if out.Strings[0] != "<dummy>" {
		t.Errorf("strings[0] = %q", out.Strings[0])
	}
	if s.Root != 0 {
		t.Errorf("root %d, want 0", s.Root)
	}
	// DevTools and V8 conventions every converted file keeps.
	seen := map[uint64]int{}
	for i := 0; i < s.Nodes.Len(); i++ {
		id := s.Nodes.ID.At(i)
		if j, dup := seen[id]; dup {
			t.Errorf("nodes %d and %d share id %d", j, i, id)
		}
		seen[id] = i
		if id%2 == 0 || id >= 1<<32 {
			t.Errorf("node %d: id %d is not odd and below 2^32", i, id)
		}
		if s.Nodes.SelfSize.At(i) > math.MaxUint32 {
			t.Errorf("node %d: self size %d", i, s.Nodes.SelfSize.At(i))
		}
	}
	for i := 0; i < s.Nodes.Len(); i++ {
		if k := s.NodeKindName(i); (k == ir.KindString || k == ir.KindConcatenatedString || k == ir.KindSlicedString) && f.Format != v8ir.Format {
			if n := ir.UTF16Len(out.String(s.Nodes.Name[i])); n > devtools.MaxStringUnits {
				t.Errorf("string node %d is named by %d UTF-16 units", i, n)
			}
		}
	}
	return out, loss
}

func TestConvertSyntheticRoot(t *testing.T) {
	out, _ := cvConvert(t, cvFile())
	s := out.Snapshots[0]
	// n0 root, n1 (GC roots), n2 (globals), n3 (stack), then the source's
	// nodes shifted by 4.
	if s.Nodes.Len() != 8 {
		t.Fatalf("%d nodes, want 8", s.Nodes.Len())
	}
	wantNodes := []string{`synthetic ""`, `synthetic "(GC roots)"`, `synthetic "(globals)"`, `synthetic "(stack)"`,
		`object "Foo"`, `jvm class "Root"`, `object "Foo"`, `string "text"`}
	for i, w := range wantNodes {
		if got := fmt.Sprintf("%s %q", s.NodeKindName(i), out.String(s.Nodes.Name[i])); got != w {
			t.Errorf("node %d: %s, want %s", i, got, w)
		}
	}
	wantEdges := [][]string{
		{"element 1 -> n5", "element 2 -> n1"},
		{"element 1 -> n2", "element 2 -> n3"},
		{"element 1 -> n5"},
		{"element 1 -> n6", "element 2 -> n7"},
		{"property text -> n7"},
		{"element 7 -> n4", "field fld -> n6", "slot 42 -> n7"},
		nil,
		nil,
	}
	for i, w := range wantEdges {
		if got := cvEdges(out, s, i); !slices.Equal(got, w) {
			t.Errorf("node %d edges %q, want %q", i, got, w)
		}
	}
	// V8's own root and (GC roots) ids are 1 and 3.
	if s.Nodes.ID.At(0) != 1 || s.Nodes.ID.At(1) != 3 {
		t.Errorf("synthetic ids %d %d, want 1 3", s.Nodes.ID.At(0), s.Nodes.ID.At(1))
	}
	for i := 0; i < 4; i++ {
		if got, want := s.Nodes.ID.At(4+i), cvFile().Snapshots[0].Nodes.ID.At(i); got != want {
			t.Errorf("source node %d: id %d, want the source's %d", i, got, want)
		}
	}
}

func TestConvertKinds(t *testing.T) {
	out, _ := cvConvert(t, cvFile())
	s := out.Snapshots[0]
	if !slices.Equal(s.NodeKinds[:len(ir.V8NodeKinds)], ir.V8NodeKinds) {
		t.Errorf("node kinds do not start with V8's: %q", s.NodeKinds)
	}
	if len(s.NodeKinds) != len(ir.V8NodeKinds)+1 || s.NodeKinds[len(ir.V8NodeKinds)] != "jvm class" {
		t.Errorf("custom node kind not appended: %q", s.NodeKinds)
	}
	if !slices.Equal(s.EdgeKinds[:len(ir.V8EdgeKinds)], ir.V8EdgeKinds) {
		t.Errorf("edge kinds do not start with V8's: %v", s.EdgeKinds)
	}
	want := []ir.EdgeKind{{Name: "field"}, {Name: "slot"}}
	if got := s.EdgeKinds[len(ir.V8EdgeKinds):]; !slices.Equal(got, want) {
		t.Errorf("custom edge kinds %v, want %v (named by string, as DevTools reads them)", got, want)
	}
	// The header's meta lists the tables.
	meta := v8ir.Of(s).Meta()
	if got := meta.Get("node_types").Elems[0].Strings(); !slices.Equal(got, s.NodeKinds) {
		t.Errorf("meta node_types[0] %q", got)
	}
	if n, _ := v8ir.Of(s).Header.Get("node_count").Uint(); n != uint64(s.Nodes.Len()) {
		t.Errorf("header node_count %d", n)
	}
}

func TestConvertCases(t *testing.T) {
	long := strings.Repeat("x", 1500)
	tests := []struct {
		name  string
		mod   func(f *ir.File, s *ir.Snapshot)
		check func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport)
	}{
		{"root first: no synthetic nodes", func(f *ir.File, s *ir.Snapshot) { s.Root = 0; s.Roots = nil },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				if s.Nodes.Len() != 4 {
					t.Errorf("%d nodes, want 4", s.Nodes.Len())
				}
				if got := cvEdges(out, s, 1); !slices.Equal(got, []string{"element 7 -> n0", "field fld -> n2", "slot 42 -> n3"}) {
					t.Errorf("node 1 edges %q", got)
				}
				if len(loss) != 0 {
					t.Errorf("loss\n%v", loss)
				}
			}},
		{"no root at all", func(f *ir.File, s *ir.Snapshot) { s.Root = ir.NoNode; s.Roots = nil },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				if s.Nodes.Len() != 5 || len(cvEdges(out, s, 0)) != 0 {
					t.Errorf("%d nodes, root edges %q: want a bare synthetic root and 4 nodes", s.Nodes.Len(), cvEdges(out, s, 0))
				}
			}},
		{"GC roots kept when the root is first", func(f *ir.File, s *ir.Snapshot) { s.Root = 0 },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				hasGC := slices.Contains(out.Strings, "(GC roots)")
				if !hasGC && !loss.Has(ir.LossGCRoots) {
					t.Errorf("the 3 GC roots vanished without a loss-report line (nodes %d, loss\n%v)", s.Nodes.Len(), loss)
				}
			}},
		{"even ids renumbered", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ID = ir.UintsOf(11, 12, 15, 17) },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				for i := 0; i < s.Nodes.Len(); i++ {
					if s.Nodes.ID.At(i) != uint64(2*i+1) {
						t.Errorf("node %d: id %d, want %d", i, s.Nodes.ID.At(i), 2*i+1)
					}
				}
				irtest.WantLoss(t, loss, ir.LossNodeIDs, 4, "renumbered", "node 1: id 12")
			}},
		{"duplicate ids renumbered", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ID = ir.UintsOf(11, 13, 13, 17) },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				if s.Nodes.ID.At(0) != 1 || s.Nodes.ID.At(7) != 15 {
					t.Errorf("ids %d..%d", s.Nodes.ID.At(0), s.Nodes.ID.At(7))
				}
				irtest.WantLoss(t, loss, ir.LossNodeIDs, 4, "renumbered", "id 13 shared")
			}},
		{"64-bit ids renumbered", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ID = ir.UintsOf(11, 1<<33+1, 15, 17) },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				irtest.WantLoss(t, loss, ir.LossNodeIDs, 4, "renumbered", "node 1: id 8589934593")
			}},
		{"source ids on V8's synthetic ids", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ID = ir.UintsOf(1, 3, 5, 7) },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				// cvConvert checks uniqueness; the source ids stay.
				for i := 0; i < 4; i++ {
					if got := s.Nodes.ID.At(4 + i); got != uint64(2*i+1) && !loss.Has(ir.LossNodeIDs) {
						t.Errorf("source node %d: id %d changed without a loss line", i, got)
					}
				}
			}},
		{"two source ids", func(f *ir.File, s *ir.Snapshot) {
			// Two nodes with ids 1 and 3 under a root, GC roots in one
			// category: three synthetic nodes need ids.
			s.NodeKinds = []string{ir.KindObject}
			s.EdgeKinds = []ir.EdgeKind{{Name: ir.EdgeProperty}}
			s.Nodes = ir.Nodes{Kind: []uint8{0, 0}, Name: []uint32{2, 1}, ID: ir.UintsOf(1, 3), SelfSize: ir.UintsOf(8, 8), FirstEdge: []uint32{0, 0, 1}}
			s.Edges = ir.Edges{Kind: []uint8{0}, Name: []uint32{6}, Target: []uint32{0}}
			s.Root = 1
			s.Roots = []ir.RootRef{{Node: 0, Category: 4}}
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if s.Nodes.Len() != 5 {
				t.Errorf("%d nodes, want 5", s.Nodes.Len())
			}
		}},
		{"self size of 4 GiB and more capped", func(f *ir.File, s *ir.Snapshot) { s.Nodes.SelfSize = ir.UintsOf(1<<32, 0, math.MaxUint32, 1<<40) },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				want := []uint64{math.MaxUint32, 0, math.MaxUint32, math.MaxUint32}
				for i, w := range want {
					if got := s.Nodes.SelfSize.At(4 + i); got != w {
						t.Errorf("source node %d: self size %d, want %d", i, got, w)
					}
				}
				irtest.WantLoss(t, loss, ir.LossSizesCapped, 2, "2 × nodes have a self size of 4 GiB or more")
			}},
		{"long names whole, string contents cut to 1024 UTF-16 units", func(f *ir.File, s *ir.Snapshot) {
			// Two classes that differ after their 1100th unit, a long
			// class of a kind V8 lacks, and a string of 600 astral
			// characters (1200 units); a long edge name.
			f.Strings = append(f.Strings, long+"A", long+"B", strings.Repeat("é", 2000), strings.Repeat("😀", 600))
			s.Nodes.Name = []uint32{8, 9, 10, 11}
			s.Edges.Name[0] = 8
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			want := []string{long + "A", long + "B", strings.Repeat("é", 2000), strings.Repeat("😀", 512)}
			for i, w := range want {
				if got := out.String(s.Nodes.Name[4+i]); got != w {
					t.Errorf("source node %d: name of %d bytes (%d units), want %d bytes", i, len(got), ir.UTF16Len(got), len(w))
				}
			}
			lo, _ := s.Nodes.EdgeRange(4)
			if got := out.EdgeName(s, lo); got != long+"A" {
				t.Errorf("edge name of %d bytes, want %d", len(got), len(long)+1)
			}
			if s.Nodes.Name[4] != s.Edges.Name[lo] {
				t.Errorf("equal strings are not shared: %d vs %d", s.Nodes.Name[4], s.Edges.Name[lo])
			}
			irtest.WantLoss(t, loss, ir.LossTruncatedNames, 1, "cut to 1024 UTF-16 units")
		}},
		{"every string node cut is counted", func(f *ir.File, s *ir.Snapshot) {
			f.Strings = append(f.Strings, long, strings.Repeat("a", 1023)+"😀tail", strings.Repeat("b", 1024))
			s.Nodes.Kind = []uint8{2, 2, 2, 2}
			s.Nodes.Name = []uint32{8, 8, 9, 10}
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			// The pair is not split: 1023 units, as V8 would not split it
			// either if it could.
			want := []string{long[:1024], long[:1024], strings.Repeat("a", 1023), strings.Repeat("b", 1024)}
			for i, w := range want {
				if got := out.String(s.Nodes.Name[4+i]); got != w {
					t.Errorf("source node %d: name of %d bytes (%d units), want %d bytes", i, len(got), ir.UTF16Len(got), len(w))
				}
			}
			irtest.WantLoss(t, loss, ir.LossTruncatedNames, 3, "cut to 1024 UTF-16 units")
		}},
		{"strings of a V8 heap stay as V8 cut them", func(f *ir.File, s *ir.Snapshot) {
			f.Format = v8ir.Format
			f.Strings = append(f.Strings, strings.Repeat("P", 1023)+"???")
			s.Nodes.Kind = []uint8{2, 2, 2, 2}
			s.Nodes.Name = []uint32{8, 8, 8, 8}
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if got := out.String(s.Nodes.Name[4]); got != strings.Repeat("P", 1023)+"???" {
				t.Errorf("name of %d units, want V8's 1026", ir.UTF16Len(got))
			}
			if loss.Has(ir.LossTruncatedNames) {
				t.Errorf("loss report names a cut: %v", loss)
			}
		}},
		{"unnamed nodes take their class name", func(f *ir.File, s *ir.Snapshot) {
			f.Classes = ir.Classes{Name: []uint32{7}, Library: []uint32{0}, FirstField: []uint32{0, 0}}
			s.Nodes.Class = []uint32{0, 0, 0, 1}
			s.Nodes.Name[3] = 0
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if got := out.String(s.Nodes.Name[7]); got != "unused" {
				t.Errorf("name %q, want the class name", got)
			}
			irtest.WantLoss(t, loss, ir.LossNodeNames, 1, "named by their class")
			irtest.WantLoss(t, loss, ir.LossClasses, 1, "class table")
		}},
		{"values and totals reported", func(f *ir.File, s *ir.Snapshot) {
			s.Values = ir.Values{Node: []uint32{3}, Kind: []ir.ValueKind{ir.ValueString}, Bits: []uint64{3}, Aux: []uint64{0}}
			s.Totals = []ir.Total{{Name: "capacity", Value: 99}, {Name: "external_size", Value: 5}}
			s.Nodes.ExternalSize = ir.UintsOf(0, 7, 0, 0)
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			irtest.WantLoss(t, loss, ir.LossValues, 1, "primitive values")
			irtest.WantLoss(t, loss, ir.LossTotals, 1, "capacity=99")
			irtest.WantLoss(t, loss, ir.LossExternalSizes, 1, "extra_native_bytes (12 bytes)")
			if v, _ := v8ir.Of(s).Header.Get("extra_native_bytes").Uint(); v != 12 {
				t.Errorf("extra_native_bytes %d, want 12", v)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cvFile()
			tc.mod(f, f.Snapshots[0])
			out, loss := cvConvert(t, f)
			tc.check(t, out, out.Snapshots[0], loss)
		})
	}
}

func TestConvertErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(f *ir.File)
		want string
	}{
		{"two snapshots", func(f *ir.File) { f.Snapshots = append(f.Snapshots, f.Snapshots[0]) }, "one snapshot"},
		{"string-named element edges", func(f *ir.File) { f.Snapshots[0].EdgeKinds[1].Indexed = false }, `"element" is named by strings`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := cvFile()
			tc.mod(f)
			if _, _, err := devtools.Convert(f); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Convert = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
