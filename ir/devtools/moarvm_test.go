package devtools_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir/devtools"
	wv8 "github.com/heapconv/heapconv/writers/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
	rmoarvm "github.com/heapconv/heapconv/readers/moarvm"
	rv8 "github.com/heapconv/heapconv/readers/v8"
)

// mvmStrings is the string heap of mvmFile, indexed by the constants below.
var mvmStrings = []string{
	"Permanent Roots", "VM Instance Roots", "C Stack Roots", "Thread Roots", "Inter-generational Roots",
	"Thread Call Stack Roots", "", "Foo", "P6opaque", "VMArray", "<anon KnowHOWREPR>", "KnowHOWREPR",
	"VMString", "MVMString", "main", "x.nqp", "y.nqp", "cu1", "cu2", "interned", "current", "$!bar",
	"<STable>", "HOW", "Outer", "$x",
}

const (
	msPerm, msInst, msCStack, msThread, msInterGen, msCallStack, msEmpty     = 0, 1, 2, 3, 4, 5, 6
	msFoo, msP6opaque, msVMArray, msAnon, msKnowHOW, msVMString, msMVMString = 7, 8, 9, 10, 11, 12, 13
	msMain, msX, msY, msCU1, msCU2, msInterned, msCurrent, msBar             = 14, 15, 16, 17, 18, 19, 20, 21
	msSTable, msHOW, msOuter, msDollarX                                      = 22, 23, 24, 25
)

// mvmRef is one reference of a hand-built collectable.
type mvmRef struct {
	kind   uint8 // index into moarvmir.EdgeKinds
	name   uint32
	target uint32
}

// mvmCol is one hand-built collectable.
type mvmCol struct {
	kind      uint8 // colkind
	class     uint32
	tofi      uint64
	size, ext uint64
	refs      []mvmRef
}

// mvmCols is a one-thread MoarVM heap as a reader leaves it: the root, the
// six root categories, objects of two types named Foo (P6opaque and
// VMArray) and of an anonymous type, a type object, an STable, a VMString,
// two frames (one anonymous), references of every kind and unmanaged sizes.
func mvmCols() []mvmCol {
	str, idx, unk := uint8(moarvmir.StringRef), uint8(moarvmir.IndexRef), uint8(moarvmir.UnknownRef)
	return []mvmCol{
		0: {kind: moarvmir.Root, refs: []mvmRef{{str, msPerm, 1}, {str, msInst, 2}, {str, msCStack, 3}, {str, msThread, 4},
			{str, msInterGen, 5}, {str, msCallStack, 6}}},
		1:  {kind: moarvmir.PermRoots, refs: []mvmRef{{unk, 0, 7}, {unk, 0, 9}}},
		2:  {kind: moarvmir.InstanceRoots, refs: []mvmRef{{str, msInterned, 10}}},
		3:  {kind: moarvmir.CStackRoots},
		4:  {kind: moarvmir.ThreadRoots, refs: []mvmRef{{str, msCurrent, 12}}},
		5:  {kind: moarvmir.InterGenRoots},
		6:  {kind: moarvmir.CallStackRoots, refs: []mvmRef{{idx, 0, 12}, {idx, 1, 13}}},
		7:  {kind: moarvmir.Object, class: 1, tofi: 0, size: 48, refs: []mvmRef{{str, msBar, 8}, {str, msSTable, 11}, {unk, 0, 10}, {moarvmir.BadString, 70000, 9}, {moarvmir.Kind3, 5, 9}, {unk, 0, 14}}},
		8:  {kind: moarvmir.Object, class: 2, tofi: 1, size: 40, ext: 128, refs: []mvmRef{{idx, 0, 10}, {idx, 1, 7}}},
		9:  {kind: moarvmir.TypeObject, class: 1, tofi: 0, size: 32, refs: []mvmRef{{str, msSTable, 11}}},
		10: {kind: moarvmir.Object, class: 4, tofi: 3, size: 24},
		11: {kind: moarvmir.STable, class: 1, tofi: 0, size: 100, refs: []mvmRef{{str, msHOW, 14}}},
		12: {kind: moarvmir.Frame, tofi: 0, size: 168, ext: 64, refs: []mvmRef{{str, msOuter, 13}, {str, msDollarX, 8}}},
		13: {kind: moarvmir.Frame, tofi: 1, size: 168},
		14: {kind: moarvmir.Object, class: 3, tofi: 2, size: 16, ext: 8},
	}
}

// mvmBuild makes the MoarVM IR of cols, with the reference table laid out
// in reverse collectable order (MoarVM's is not in collectable order
// either), the node names a reader gives, a snapmeta and highscores.
func mvmBuild(cols []mvmCol) *ir.File {
	f := &ir.File{Format: moarvmir.Format, FormatVersion: "moarvm v3", Strings: slices.Clone(mvmStrings)}
	f.Classes = ir.Classes{
		Name:       []uint32{msFoo, msFoo, msAnon, msVMString},
		Library:    []uint32{msP6opaque, msVMArray, msKnowHOW, msMVMString},
		FirstField: []uint32{0, 0, 0, 0, 0},
	}
	f.Sections = []ir.Section{&moarvmir.File{
		Version: 3, HasMeta: true, Subversion: 1, StartTime: 100, PID: 7, HasPID: true,
		EntryCount: 1, DataOrder: slices.Clone(moarvmir.DefaultDataOrder), StringCount: len(mvmStrings),
		FrameName: []uint32{msMain, msEmpty}, FrameCUID: []uint32{msCU1, msCU2},
		FrameLine: []uint32{12, 3}, FrameFile: []uint32{msX, msY},
	}}
	s := &ir.Snapshot{
		NodeKinds: slices.Clone(moarvmir.NodeKinds), EdgeKinds: slices.Clone(moarvmir.EdgeKinds), Root: 0,
		Totals: []ir.Total{{Name: "total_heap_size", Value: 0}},
		Sections: []ir.Section{&moarvmir.Snapshot{HasMeta: true, SnapTime: 200, GCSeqNum: 3,
			TopIDs: []uint64{3, 0, 3, 0}, TopScores: []uint64{1, 1, 24, 168}}},
	}
	nd := &s.Nodes
	nd.FirstEdge = []uint32{0}
	total := 0
	for _, c := range cols {
		total += len(c.refs)
	}
	next := total // the reference table, filled from its end
	var heap uint64
	for _, c := range cols {
		nd.Kind = append(nd.Kind, c.kind)
		var name uint32 = msEmpty
		switch {
		case c.class > 0:
			name = f.Classes.Name[c.class-1]
		case c.kind == moarvmir.Frame:
			name = moarvmir.FileOf(f).FrameName[c.tofi]
		case c.kind >= moarvmir.PermRoots:
			name = uint32(slices.Index(f.Strings, moarvmir.RootNames[int(c.kind)]))
			if name == math.MaxUint32 { // "Root" is not in the heap: a reader adds it
				f.Strings = append(f.Strings, moarvmir.RootNames[int(c.kind)])
				name = uint32(len(f.Strings) - 1)
			}
		}
		nd.Name = append(nd.Name, name)
		nd.Class = append(nd.Class, c.class)
		nd.ID.Append(0)
		nd.SelfSize.Append(c.size)
		nd.ExternalSize.Append(c.ext)
		heap += c.size + c.ext
		next -= len(c.refs)
		moarvmir.Of(s).TOFI.Append(c.tofi)
		moarvmir.Of(s).RefStart.Append(uint64(next))
		for _, r := range c.refs {
			s.Edges.Kind = append(s.Edges.Kind, r.kind)
			s.Edges.Name = append(s.Edges.Name, r.name)
			s.Edges.Target = append(s.Edges.Target, r.target)
		}
		nd.FirstEdge = append(nd.FirstEdge, uint32(s.Edges.Len()))
	}
	s.Totals[0].Value = heap
	f.Snapshots = []*ir.Snapshot{s}
	return f
}

func mvmFile() *ir.File { return mvmBuild(mvmCols()) }

// mvmNode describes node i as "kind name size".
func mvmNode(f *ir.File, s *ir.Snapshot, i int) string {
	return fmt.Sprintf("%s %q %d", s.NodeKindName(i), f.String(s.Nodes.Name[i]), s.Nodes.SelfSize.At(i))
}

func TestMoarVMConvert(t *testing.T) {
	src := mvmFile()
	out, loss := cvConvert(t, src)
	mvmCheck(t, src, out)
	s := out.Snapshots[0]
	// %q shows the no-break spaces of the anonymous type as \u00a0.
	wantNodes := []string{
		`synthetic "" 0`,
		`synthetic "(GC roots)" 0`,
		`synthetic "(Permanent Roots)" 0`,
		`synthetic "(VM Instance Roots)" 0`,
		`synthetic "(C Stack Roots, thread 1)" 0`,
		`synthetic "(Thread Roots, thread 1)" 0`,
		`synthetic "(Inter-generational Roots, thread 1)" 0`,
		`synthetic "(Thread Call Stack Roots, thread 1)" 0`,
		`object "Foo (P6opaque)" 48`,
		`object "Foo (VMArray)" 40`,
		`hidden "Foo (P6opaque) (type object)" 32`,
		`object "VMString" 24`,
		`hidden "Foo (P6opaque) (STable)" 100`,
		`closure "main (x.nqp:12)" 168`,
		`closure "<anon> (y.nqp:3)" 168`,
		`object "<anon\u00a0KnowHOWREPR>" 16`,
		// Unmanaged memory, in owner order.
		`native "(unmanaged) Foo (VMArray)" 128`,
		`native "(unmanaged) Frame" 64`,
		`native "(unmanaged) <anon\u00a0KnowHOWREPR>" 8`,
	}
	if s.Nodes.Len() != len(wantNodes) {
		t.Fatalf("%d nodes, want %d", s.Nodes.Len(), len(wantNodes))
	}
	for i, w := range wantNodes {
		if got := mvmNode(out, s, i); got != w {
			t.Errorf("node %d: %s, want %s", i, got, w)
		}
	}
	wantEdges := [][]string{
		{"element 1 -> n1"},
		{"property Permanent Roots -> n2", "property VM Instance Roots -> n3", "property C Stack Roots -> n4",
			"property Thread Roots -> n5", "property Inter-generational Roots -> n6", "property Thread Call Stack Roots -> n7"},
		{"hidden 0 -> n8", "hidden 1 -> n10"},
		{"property interned -> n11"},
		nil,
		{"property current -> n13"},
		nil,
		{"element 0 -> n13", "element 1 -> n14"},
		{"property $!bar -> n9", "property <STable> -> n12", "hidden 0 -> n11",
			"internal (string 70000 out of range) -> n10", "internal (kind 3 5) -> n10", "hidden 1 -> n15"},
		{"element 0 -> n11", "element 1 -> n8", "internal unmanaged -> n16"},
		{"property <STable> -> n12"},
		nil,
		{"property HOW -> n15"},
		{"property Outer -> n14", "property $x -> n9", "internal unmanaged -> n17"},
		nil,
		{"internal unmanaged -> n18"},
		nil, nil, nil,
	}
	for i, w := range wantEdges {
		if got := cvEdges(out, s, i); !slices.Equal(got, w) {
			t.Errorf("node %d edges %q, want %q", i, got, w)
		}
	}
	for i := 0; i < s.Nodes.Len(); i++ {
		if id := s.Nodes.ID.At(i); id != uint64(2*i+1) {
			t.Errorf("node %d: id %d, want %d", i, id, 2*i+1)
		}
	}
	if v, _ := v8ir.Of(s).Header.Get("extra_native_bytes").Uint(); v != 0 {
		t.Errorf("extra_native_bytes %d: unmanaged memory is counted twice", v)
	}
	for _, w := range []struct {
		kind  string
		count int64
		text  string
	}{
		// The 8 collectables that are objects (not the 7 roots): each
		// index becomes an odd id.
		{ir.LossNodeIDs, 8, "no identity across snapshots"},
		{"moarvm-tofi", 0, "colTOFI"},
		{"moarvm-ref-order", 0, "colrfstr"},
		{moarvmir.LossHighscores, 4, "highscore board entries"},
		// subversion, start time, pid; snap time, GC number
		{moarvmir.LossMetadata, 5, "file and snapshot metadata"},
		{ir.LossTotals, 2, "not kept: total_heap_size=796; computed: extra_native_bytes=0"},
		{moarvmir.LossStaticFrames, 2, "sfcuid"},
		// 7 roots, a type object, an STable, 2 frames and the type whose
		// name gets no-break spaces; 3 native nodes.
		{ir.LossClasses, 15, "type objects and STables under (system)"},
		{"moarvm-reprs", 2, "REPR names"},
		// Every object but the VMString, whose name is its type's: the
		// two Foos qualified by REPR, the type object, the STable, the 2
		// frames and the type whose name gets no-break spaces.
		{ir.LossNodeNames, 7, `2 frames "name (file:line)" after their static frame, 1 type objects "Foo (type object)", 1 STables "Foo (STable)", 3 objects`},
		{ir.LossNodeNames, 7, `starts with "<" (1 types)`},
		{"moarvm-bad-strings", 1, "outside the string heap"},
		// The second unknown reference of the permanent roots and of Foo.
		{ir.LossEdgeNames, 2, "unknown references are hidden edges numbered"},
		{ir.LossEdgeKinds, 1, `"kind 3" 1`},
	} {
		irtest.WantLoss(t, loss, w.kind, w.count, w.text)
	}
	// No external total held memory: the extra_native_bytes of 0 V8 gets
	// loses none.
	for _, k := range []string{"moarvm-root-tofi", ir.LossSizesCapped, ir.LossNodeKinds, ir.LossExternalSizes} {
		if l, ok := loss.Get(k); ok {
			t.Errorf("loss report claims a loss that did not happen: %v", l)
		}
	}
}

// TestMoarVMRetained: DevTools' Summary keeps the two Foo types apart,
// and an object's retained size holds its unmanaged memory (mvmCheck
// compares every node's retained size with the MoarVM graph's).
// TestMoarVMMarks: the V8 file says it holds a MoarVM heap (the header's
// v8ir.HeaderFrom), and read back each of its native nodes is the
// unmanaged memory of the collectable that holds it (ir.UnmanagedOwners)
// and no node is anything else's; a heap heapconv made from V8 is V8's
// again and gets no mark.
func TestMoarVMMarks(t *testing.T) {
	read := func(f *ir.File) *ir.File {
		t.Helper()
		var b bytes.Buffer
		if _, err := wv8.Write(&b, f, wv8.Options{}); err != nil {
			t.Fatal(err)
		}
		g, err := rv8.Read(bytes.NewReader(b.Bytes()), rv8.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := read(mvmFile())
	s := g.Snapshots[0]
	if h := v8ir.Of(s).Header.Get(v8ir.HeaderFrom); h == nil || h.Kind != ir.JSONString || h.Str != moarvmir.Format {
		t.Errorf("header %s: no mark", v8ir.Of(s).Header.String())
	}
	want := make([]uint32, s.Nodes.Len())
	for i := range want {
		want[i] = ir.NoNode
	}
	// Foo (VMArray), the frame main and the anonymous type's object own
	// nodes 16–18 (TestMoarVMConvert).
	want[16], want[17], want[18] = 9, 13, 15
	if got := ir.UnmanagedOwners(g, s); !slices.Equal(got, want) {
		t.Errorf("owners %v, want %v", got, want)
	}

	// VMString's REPR named by a V8 kind: a V8 heap through MoarVM.
	f := mvmFile()
	f.Strings = append(f.Strings, ir.KindString)
	f.Classes.Library[3] = uint32(len(f.Strings) - 1)
	g = read(f)
	s = g.Snapshots[0]
	if h := v8ir.Of(s).Header.Get(v8ir.HeaderFrom); h != nil {
		t.Errorf("a V8 heap is marked as MoarVM's: %s", v8ir.Of(s).Header.String())
	}
	if owners := ir.UnmanagedOwners(g, s); owners != nil {
		t.Errorf("a V8 heap has unmanaged memory: %v", owners)
	}
}

func TestMoarVMRetained(t *testing.T) {
	out, _ := cvConvert(t, mvmFile())
	c := out.Snapshots[0]
	// Per-class retained sizes as the Summary shows them: the two Foos apart.
	sum, err := analysis.SummarizeBy(out, c, -1, analysis.ByRetained)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]uint64{}
	for _, cs := range sum.TopClasses {
		byName[cs.Name] = *cs.Retained
	}
	// Foo (VMArray) retains its 40 bytes and its 128 unmanaged ones; what
	// it references has other retainers.
	if byName["Foo (VMArray)"] != 40+128 {
		t.Errorf("Foo (VMArray) retains %d, want 168: %v", byName["Foo (VMArray)"], byName)
	}
	if byName["(unmanaged) Foo (VMArray)"] != 128 {
		t.Errorf("its unmanaged memory retains %d, want 128", byName["(unmanaged) Foo (VMArray)"])
	}
}

func TestMoarVMCases(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(f *ir.File, s *ir.Snapshot)
		check func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport)
	}{
		{"empty snapshot", func(f *ir.File, s *ir.Snapshot) {
			s.Nodes = ir.Nodes{FirstEdge: []uint32{0}}
			s.Edges = ir.Edges{}
			s.Root = ir.NoNode
			moarvmir.Of(s).TOFI, moarvmir.Of(s).RefStart = ir.Uints{}, ir.Uints{}
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if s.Nodes.Len() != 1 || s.Edges.Len() != 0 {
				t.Errorf("%d nodes %d edges, want a bare root", s.Nodes.Len(), s.Edges.Len())
			}
		}},
		{"no snapshot section", func(f *ir.File, s *ir.Snapshot) { s.Sections = nil },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				// Frames keep their names without the frame table's help.
				if got := out.String(s.Nodes.Name[13]); got != "main" {
					t.Errorf("frame named %q, want main", got)
				}
				if got := out.String(s.Nodes.Name[14]); got != "<anon>" {
					t.Errorf("anonymous frame named %q, want <anon>", got)
				}
				if l, ok := loss.Get("moarvm-tofi"); ok {
					t.Errorf("loss %v", l)
				}
			}},
		{"references in collectable order", func(f *ir.File, s *ir.Snapshot) {
			for i := 0; i < s.Nodes.Len(); i++ {
				moarvmir.Of(s).RefStart.Set(i, uint64(s.Nodes.FirstEdge[i]))
			}
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if l, ok := loss.Get("moarvm-ref-order"); ok {
				t.Errorf("the reference order is lost though it is the collectables': %v", l)
			}
		}},
		{"unique type names stay bare", func(f *ir.File, s *ir.Snapshot) {
			f.Strings = append(f.Strings, "Bar")
			f.Classes.Name[1] = uint32(len(f.Strings) - 1)
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if a, b := out.String(s.Nodes.Name[8]), out.String(s.Nodes.Name[9]); a != "Foo" || b != "Bar" {
				t.Errorf("names %q %q, want Foo Bar", a, b)
			}
		}},
		{"two threads", func(f *ir.File, s *ir.Snapshot) {
			// Append a second thread's four categories, as MoarVM orders
			// them, hung from the root.
			cols := mvmCols()
			base := uint32(len(cols))
			for _, k := range []uint8{moarvmir.CStackRoots, moarvmir.ThreadRoots, moarvmir.InterGenRoots, moarvmir.CallStackRoots} {
				cols = append(cols, mvmCol{kind: k})
				cols[0].refs = append(cols[0].refs, mvmRef{moarvmir.StringRef, uint32(slices.Index(mvmStrings, moarvmir.RootNames[int(k)])), base})
				base++
			}
			g := mvmBuild(cols)
			*f = *g
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			for j, w := range []string{"(C Stack Roots, thread 2)", "(Thread Roots, thread 2)",
				"(Inter-generational Roots, thread 2)", "(Thread Call Stack Roots, thread 2)"} {
				if got := out.String(s.Nodes.Name[16+j]); got != w {
					t.Errorf("node %d: %q, want %q", 16+j, got, w)
				}
			}
		}},
		{"odd kinds and root TOFIs", func(f *ir.File, s *ir.Snapshot) {
			s.NodeKinds = append(s.NodeKinds, "kind 12")
			s.Nodes.Kind[10] = 12
			s.Nodes.Kind[11] = 0                        // "unknown"
			s.Nodes.Class[10], s.Nodes.Class[11] = 0, 0 // only types have classes
			moarvmir.Of(s).TOFI.Set(3, 9)
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if got := mvmNode(out, s, 11); got != `hidden "(kind 12)" 24` {
				t.Errorf("node 11: %s", got)
			}
			if got := mvmNode(out, s, 12); got != `hidden "(unknown)" 100` {
				t.Errorf("node 12: %s", got)
			}
			irtest.WantLoss(t, loss, ir.LossNodeKinds, 2, `"kind 12" 1, "unknown" 1`)
			irtest.WantLoss(t, loss, "moarvm-root-tofi", 1, "colTOFI other than 0")
		}},
		{"unmanaged size of 4 GiB capped", func(f *ir.File, s *ir.Snapshot) { s.Nodes.ExternalSize.Set(8, 1<<33) },
			func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
				if got := s.Nodes.SelfSize.At(16); got != math.MaxUint32 {
					t.Errorf("native size %d", got)
				}
				irtest.WantLoss(t, loss, ir.LossSizesCapped, 1, "unmanaged sizes of 4 GiB")
			}},
		{"long names whole", func(f *ir.File, s *ir.Snapshot) {
			f.Strings[msFoo] = strings.Repeat("F", 2000)
		}, func(t *testing.T, out *ir.File, s *ir.Snapshot, loss ir.LossReport) {
			if got, want := out.String(s.Nodes.Name[8]), strings.Repeat("F", 2000)+" (P6opaque)"; got != want {
				t.Errorf("name of %d bytes, want %d", len(got), len(want))
			}
			if loss.Has(ir.LossTruncatedNames) {
				t.Errorf("loss report names a cut: %v", loss)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mvmFile()
			tc.mod(f, f.Snapshots[0])
			out, loss := cvConvert(t, f)
			mvmCheck(t, f, out)
			tc.check(t, out, out.Snapshots[0], loss)
		})
	}
}

func TestMoarVMErrors(t *testing.T) {
	f := mvmFile()
	f.Snapshots = append(f.Snapshots, f.Snapshots[0])
	for name, fn := range map[string]func(*ir.File) (*ir.File, ir.LossReport, error){"Convert": devtools.Convert, "devtools.FromMoarVM": devtools.FromMoarVM} {
		if _, _, err := fn(f); err == nil || !strings.Contains(err.Error(), "one snapshot") {
			t.Errorf("%s of two snapshots = %v, want an error", name, err)
		}
	}
}

func TestDevtoolsClassName(t *testing.T) {
	for in, want := range map[string]string{
		"Foo":                    "Foo",
		"<anon P6opaque>":        "<anon\u00a0P6opaque>",
		"<anon>":                 "<anon>",
		"Foo <bar baz>":          "Foo <bar baz>",
		"Detached <div id=a>":    "Detached <div\u00a0id=a>",
		"<a b c> (P6opaque)":     "<a\u00a0b\u00a0c>\u00a0(P6opaque)",
		"Detached without a tag": "Detached without a tag",
	} {
		if got := devtools.DevtoolsClassName(in); got != want {
			t.Errorf("devtools.DevtoolsClassName(%q) = %q, want %q", in, got, want)
		}
	}
}

// mvmCheck checks devtools.FromMoarVM's output against its MoarVM source, for any
// source: the synthetic root in front, collectable i as node i+1 with its
// size and its references (kinds mapped, targets shifted, unknown ones
// numbered), one native node per unmanaged size after the collectables,
// owned by its collectable, ids 2j+1, and every node's retained size the
// MoarVM graph's (unmanaged memory owned by its collectable).
func mvmCheck(t *testing.T, src, out *ir.File) {
	t.Helper()
	s, c := src.Snapshots[0], out.Snapshots[0]
	n := s.Nodes.Len()
	natives := 0
	for i := 0; i < s.Nodes.ExternalSize.Len(); i++ {
		if s.Nodes.ExternalSize.At(i) > 0 {
			natives++
		}
	}
	if c.Nodes.Len() != 1+n+natives {
		t.Fatalf("%d nodes; want the root, %d collectables and %d native nodes", c.Nodes.Len(), n, natives)
	}
	if c.NodeKindName(0) != ir.KindSynthetic || out.String(c.Nodes.Name[0]) != "" {
		t.Errorf("node 0 is %s, want the synthetic root", mvmNode(out, c, 0))
	}
	if got := cvEdges(out, c, 0); n > 0 && !slices.Equal(got, []string{fmt.Sprintf("element 1 -> n%d", s.Root+1)}) {
		t.Errorf("root edges %q", got)
	}
	want := map[int]string{moarvmir.Object: ir.KindObject, moarvmir.TypeObject: ir.KindHidden, moarvmir.STable: ir.KindHidden,
		moarvmir.Frame: ir.KindClosure}
	nfail := 0
	fail := func(format string, args ...any) { // gives up after 20
		t.Helper()
		t.Errorf(format, args...)
		if nfail++; nfail >= 20 {
			t.FailNow()
		}
	}
	native := 1 + n
	capped := false // sizes cut to 32 bits change retained sizes
	for i := 0; i < n; i++ {
		j := i + 1
		if s.Nodes.SelfSize.At(i) > math.MaxUint32 || (s.Nodes.ExternalSize.Len() > 0 && s.Nodes.ExternalSize.At(i) > math.MaxUint32) {
			capped = true
		}
		ck := slices.Index(moarvmir.NodeKinds, s.NodeKindName(i))
		wk, ok := want[ck]
		if !ok {
			wk = ir.KindSynthetic
			if ck < moarvmir.PermRoots {
				wk = ir.KindHidden
			}
		}
		if got := c.NodeKindName(j); got != wk {
			fail("collectable %d (%s): %s, want %s", i, s.NodeKindName(i), got, wk)
		}
		if got, w := c.Nodes.SelfSize.At(j), min(s.Nodes.SelfSize.At(i), math.MaxUint32); got != w {
			fail("collectable %d: self size %d, want %d", i, got, w)
		}
		if c.Nodes.ID.At(j) != uint64(2*j+1) {
			fail("collectable %d: id %d", i, c.Nodes.ID.At(j))
		}
		lo, hi := s.Nodes.EdgeRange(i)
		clo, chi := c.Nodes.EdgeRange(j)
		ext := uint64(0)
		if s.Nodes.ExternalSize.Len() > 0 {
			ext = s.Nodes.ExternalSize.At(i)
		}
		owns := 0
		if ext > 0 {
			owns = 1
		}
		if chi-clo != hi-lo+owns {
			t.Fatalf("collectable %d: %d edges, want %d references and %d unmanaged", i, chi-clo, hi-lo, owns)
		}
		unknown := uint32(0)
		for e := lo; e < hi; e++ {
			ce := clo + e - lo
			if c.Edges.Target[ce] != s.Edges.Target[e]+1 {
				fail("collectable %d reference %d: target n%d, want n%d", i, e-lo, c.Edges.Target[ce], s.Edges.Target[e]+1)
			}
			// Compared as kind and name text; the common kinds without
			// formatting, which would dominate the check of a real heap.
			gk := c.EdgeKindOf(ce).Name
			var wk, w string
			switch sk := s.EdgeKindOf(e).Name; sk {
			case "string":
				wk, w = ir.EdgeProperty, src.String(s.Edges.Name[e])
				if gk == wk && out.String(c.Edges.Name[ce]) == w {
					continue
				}
			case "index":
				if gk == ir.EdgeElement && c.Edges.Name[ce] == s.Edges.Name[e] {
					continue
				}
				wk, w = ir.EdgeElement, src.EdgeName(s, e)
			case "unknown":
				unknown++
				if gk == ir.EdgeHidden && c.Edges.Name[ce] == unknown-1 {
					continue
				}
				wk, w = ir.EdgeHidden, fmt.Sprint(unknown-1)
			case "string out of range":
				wk, w = ir.EdgeInternal, fmt.Sprintf("(string %s out of range)", src.EdgeName(s, e))
			default:
				wk, w = ir.EdgeInternal, fmt.Sprintf("(%s %s)", sk, src.EdgeName(s, e))
			}
			if got := out.EdgeName(c, ce); gk != wk || got != w {
				fail("collectable %d reference %d: %s %q, want %s %q", i, e-lo, gk, got, wk, w)
			}
		}
		if owns > 0 {
			ce := chi - 1
			to := int(c.Edges.Target[ce])
			if c.EdgeKindOf(ce).Name != ir.EdgeInternal || out.EdgeName(c, ce) != "unmanaged" || to != native {
				fail("collectable %d: last edge %s %q -> n%d, want internal unmanaged -> n%d", i, c.EdgeKindOf(ce).Name, out.EdgeName(c, ce), to, native)
			}
			if c.NodeKindName(native) != ir.KindNative || c.Nodes.SelfSize.At(native) != min(ext, math.MaxUint32) {
				fail("collectable %d: unmanaged memory is %s, want a native node of %d", i, mvmNode(out, c, native), ext)
			}
			wn := "(unmanaged) " + out.String(c.Nodes.Name[j])
			if c.NodeKindName(j) == ir.KindClosure {
				wn = "(unmanaged) Frame"
			}
			if name := out.String(c.Nodes.Name[native]); name != wn {
				fail("collectable %d (%q): native node named %q", i, out.String(c.Nodes.Name[j]), name)
			}
			native++
		}
	}
	for j := 1 + n; j < c.Nodes.Len(); j++ {
		if lo, hi := c.Nodes.EdgeRange(j); hi != lo {
			fail("native node %d has %d edges", j, hi-lo)
		}
	}
	if n == 0 || s.Root == ir.NoNode || capped {
		return
	}
	// Retained sizes: DevTools folds nothing (no user roots) and ignores no
	// edge, and the extra root changes only the root's own.
	if analysis.DevToolsSelfSizes(out, c) != nil {
		t.Errorf("DevTools would fold sizes into owners: the converted root has a user root")
	}
	if analysis.DevToolsIgnore(out, c) != nil {
		t.Errorf("DevTools would ignore some edges for dominators")
	}
	wt, err := analysis.Dominators(s, analysis.DominatorOptions{IncludeExternal: true, Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	gt, err := analysis.Dominators(c, analysis.DominatorOptions{Orphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if gt.Retained[0] != wt.Retained[s.Root] {
		t.Errorf("V8 root retains %d, MoarVM root %d", gt.Retained[0], wt.Retained[s.Root])
	}
	bad := 0
	for i := 0; i < n && bad < 10; i++ {
		if i != int(s.Root) && gt.Retained[i+1] != wt.Retained[i] {
			t.Errorf("collectable %d: retains %d in V8, %d in MoarVM", i, gt.Retained[i+1], wt.Retained[i])
			bad++
		}
	}
}

// TestMoarVMRandom converts random MoarVM heaps shaped as the reader leaves
// them (bad references, version 2, recovered files among them).
func TestMoarVMRandom(t *testing.T) {
	variants := []struct {
		name string
		mo   irtest.MoarVMOptions
	}{
		{"v3", irtest.MoarVMOptions{}},
		{"bad-refs", irtest.MoarVMOptions{BadRefs: true}},
		{"v2", irtest.MoarVMOptions{V2: true}},
		{"recovered", irtest.MoarVMOptions{Recovery: true, BadRefs: true}},
	}
	for _, v := range variants {
		for seed := int64(1); seed <= 12; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", v.name, seed), func(t *testing.T) {
				opts := irtest.Options{MinNodes: 0, MaxNodes: 40, Snapshots: 1}
				if seed > 8 {
					opts.MinNodes, opts.MaxNodes = 500, 2000
				}
				src := irtest.RandomMoarVM(seed, opts, v.mo)
				out, loss := cvConvert(t, src)
				mvmCheck(t, src, out)
				if v.mo.Recovery && moarvmir.FileOf(src).Recovery != nil {
					irtest.WantLoss(t, loss, ir.LossRecovered, 0, "damaged at offset")
				}
			})
		}
	}
}

// mvmSelect returns snapshot k of a MoarVM file as a file of its own.
// ir.File.Select keeps the file's inner TOCs, one per snapshot, which no
// longer validate for one snapshot; they are left out.
func mvmSelect(t testing.TB, f *ir.File, k int) *ir.File {
	t.Helper()
	g, err := f.Select(k)
	if err != nil {
		t.Fatal(err)
	}
	m := *moarvmir.FileOf(g)
	m.TOCs = nil
	g.SetSection(&m)
	return g
}

// mvmSample reads a MoarVM sample of testdata/moarvm.
func mvmSample(t testing.TB, name string) *ir.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "moarvm", name))
	if err != nil {
		t.Fatal(err)
	}
	f, err := rmoarvm.Read(bytes.NewReader(data), rmoarvm.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// TestMoarVMSamples converts every snapshot of the real nqp samples: the
// checks of mvmCheck, DevTools' rules (cvConvert), and the V8 root retains
// the whole heap, snapmeta's total_heap_size (Σ colsize + colusize).
func TestMoarVMSamples(t *testing.T) {
	for _, name := range []string{"nqp-1snap.mvmheap", "nqp-3snap.mvmheap"} {
		f := mvmSample(t, name)
		// Every snapshot (conformance's TestMoarVMDevTools has DevTools
		// load them).
		for k := range f.Snapshots {
			t.Run(fmt.Sprintf("%s/snapshot%d", name, k), func(t *testing.T) {
				src := mvmSelect(t, f, k)
				out, _ := cvConvert(t, src)
				mvmCheck(t, src, out)
				s, c := src.Snapshots[0], out.Snapshots[0]
				tree, err := analysis.Dominators(c, analysis.DominatorOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for j, d := range tree.IDom {
					if d == ir.NoNode {
						t.Fatalf("node %d is unreachable from the root", j)
					}
				}
				heap := uint64(0)
				for _, tot := range s.Totals {
					if tot.Name == "total_heap_size" {
						heap = tot.Value
					}
				}
				if heap == 0 || tree.Retained[0] != heap {
					t.Errorf("the root retains %d; total_heap_size is %d", tree.Retained[0], heap)
				}
				// The root's children are the categories, in MoarVM's order.
				lo, hi := c.Nodes.EdgeRange(1)
				var cats []string
				for e := lo; e < hi; e++ {
					cats = append(cats, out.String(c.Nodes.Name[c.Edges.Target[e]]))
				}
				wantCats := []string{"(Permanent Roots)", "(VM Instance Roots)",
					"(C Stack Roots, thread 1)", "(Thread Roots, thread 1)", "(Inter-generational Roots, thread 1)", "(Thread Call Stack Roots, thread 1)",
					"(C Stack Roots, thread 2)", "(Thread Roots, thread 2)", "(Inter-generational Roots, thread 2)", "(Thread Call Stack Roots, thread 2)"}
				if !slices.Equal(cats, wantCats) {
					t.Errorf("(GC roots) holds %q", cats)
				}
			})
		}
	}
}

// BenchmarkMoarVMToV8 converts the last snapshot of the 3-snapshot nqp
// sample (145k collectables, 440k references; read once, outside the
// timing) to a V8 .heapsnapshot in memory: devtools.FromMoarVM and Write.
func BenchmarkMoarVMToV8(b *testing.B) {
	f := mvmSample(b, "nqp-3snap.mvmheap")
	src := mvmSelect(b, f, len(f.Snapshots)-1)
	var out bytes.Buffer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		if _, err := wv8.Write(&out, src, wv8.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.Len()), "out-bytes")
}
