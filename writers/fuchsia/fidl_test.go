package fuchsia_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rfuchsia "github.com/heapconv/heapconv/readers/fuchsia"
	rv8 "github.com/heapconv/heapconv/readers/v8"
	"github.com/heapconv/heapconv/writers/fuchsia"
)

// reassemble checks that the written stream obeys the receive rules and
// returns its snapshots.
func reassemble(t *testing.T, data []byte) (*fidl.Stream, []fidl.Snapshot) {
	t.Helper()
	st, err := fidl.ReadStream(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := st.Reassemble()
	if err != nil {
		t.Fatal(err)
	}
	return st, snaps
}

// TestFIDLFromProfile sends profile-shaped IR as the collector would: one
// Allocation per node with its size, count, address and contents, and a
// loss report for what a stream cannot hold.
func TestFIDLFromProfile(t *testing.T) {
	f := irtest.RandomFuchsia(4, irtest.Options{MinNodes: 20, MaxNodes: 40, Snapshots: 2},
		irtest.FuchsiaOptions{MultiProcess: true, Tags: true, Symbolized: true, Contents: true, Labels: true, ExtraSampleTypes: true})
	var out bytes.Buffer
	loss, err := fuchsia.WriteFIDL(&out, f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := readFIDL(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The stacks read back otherwise, counted in objects: those with a
	// frame a function named (its name is gone, the address stays).
	labels, extra, stacks := 0, 0, 0
	for k, s := range f.Snapshots {
		fs := fuchsiair.Of(s)
		labels += len(fs.LabelKey)
		extra += len(fs.ExtraValues)
		for i := range s.Nodes.Len() {
			if stackName(f, fs, i) != stackName(g, fuchsiair.Of(g.Snapshots[k]), i) {
				stacks += int(fs.ObjectCount(i))
			}
		}
	}
	if stacks == 0 {
		t.Fatal("no stack changes: the test is wrong")
	}
	if l, _ := loss.Get(ir.LossAllocationStacks); !strings.Contains(l.What, fmt.Sprintf("the %d functions", fuchsiair.FileOf(f).Functions.Len())) {
		t.Errorf("the loss report does not say how many functions are lost:\n%v", loss)
	}
	for _, w := range []struct {
		kind  string
		count int
	}{
		{ir.LossAllocationStacks, stacks},
		{"fuchsia-labels", labels},
		{"fuchsia-sample-values", extra},
		{"fuchsia-vaddr", 0},
	} {
		if l, ok := loss.Get(w.kind); !ok || l.Count != int64(w.count) {
			t.Errorf("loss report does not count %d of %s:\n%v", w.count, w.kind, loss)
		}
	}
	st, snaps := reassemble(t, out.Bytes())
	if len(snaps) != len(f.Snapshots) {
		t.Fatalf("%d snapshots, want %d", len(snaps), len(f.Snapshots))
	}
	for k, s := range f.Snapshots {
		sn := &snaps[k]
		if len(sn.Allocations) != s.Nodes.Len() {
			t.Fatalf("snapshot %d: %d allocations for %d nodes", k, len(sn.Allocations), s.Nodes.Len())
		}
		for i, ai := range sn.Allocations {
			a := &st.Allocations[ai]
			if a.Size != s.Nodes.SelfSize.At(i) || a.CountOrDefault() != fuchsiair.Of(s).Count.At(i) {
				t.Fatalf("snapshot %d node %d: size %d count %d", k, i, a.Size, a.CountOrDefault())
			}
			want, ok := fuchsiair.Of(s).ContentsOf(i)
			if got := sn.Contents[a.Address]; ok && !bytes.Equal(got, want) {
				t.Fatalf("snapshot %d node %d: contents differ", k, i)
			}
		}
	}
}

// TestFIDLFromGraph sends a graph heap: through Convert, one allocation
// per object, whose class frames lie in the class regions.
func TestFIDLFromGraph(t *testing.T) {
	f := irtest.Random(5, irtest.Options{MinNodes: 30, MaxNodes: 60, Snapshots: 2})
	var out bytes.Buffer
	loss, err := fuchsia.WriteFIDL(&out, f)
	if err != nil {
		t.Fatal(err)
	}
	edges := 0
	for _, s := range f.Snapshots {
		edges += s.Edges.Len()
	}
	if l, _ := loss.Get(ir.LossEdges); loss.Has("synthetic-addresses") || l.Count != int64(edges) {
		t.Errorf("loss report (want %d edges, no synthetic addresses):\n%v", edges, loss)
	}
	st, snaps := reassemble(t, out.Bytes())
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	for k, s := range f.Snapshots {
		objects := 0
		for i := range s.Nodes.Len() {
			if s.NodeKindName(i) != ir.KindSynthetic {
				objects++
			}
		}
		if n := len(snaps[k].Allocations); n != objects {
			t.Errorf("snapshot %d: %d allocations for %d objects", k, n, objects)
		}
		for _, ri := range snaps[k].Regions {
			if id := hex.EncodeToString(st.ExecutableRegions[ri].BuildID.Value); !strings.HasPrefix(id, fuchsiair.ClassBuildID) {
				t.Errorf("snapshot %d: a region of build id %s", k, id)
			}
		}
	}
}

// TestFIDLFromSymbolized sends a symbolized profile: a stream has no
// function names, so the blocks whose allocation site a function named
// are read back in other classes, and their stacks' frames are named by
// module and offset; the loss report says so (classes, names, roots'
// categories, allocation stacks), counting exactly the objects that change
// (a sample of several allocations is that many, as ir.ExpandObjects makes
// them, its roots too).
func TestFIDLFromSymbolized(t *testing.T) {
	var total, totalStacks, aggregated uint64
	// The last is not symbolized: its sites and stacks do not change.
	for _, name := range []string{"gen-current-kernel-agg.pb", "gen-newest-symbolized.pb.gz", "gen-newest-multi-agg.pb.gz", "gen-current-tags.pb"} {
		data, err := os.ReadFile("../../testdata/fuchsia/" + name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := rfuchsia.ReadBytes(data, rfuchsia.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		loss, err := fuchsia.WriteFIDL(&out, f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := rfuchsia.ReadFIDL(bytes.NewReader(out.Bytes()), rfuchsia.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var moved, roots, stacks uint64
		for k, s := range f.Snapshots {
			b := g.Snapshots[k]
			if b.Nodes.Len() != s.Nodes.Len() {
				t.Fatalf("%s: snapshot %d: %d nodes read back, %d written", name, k, b.Nodes.Len(), s.Nodes.Len())
			}
			isRoot := make([]uint64, s.Nodes.Len())
			for _, r := range s.Roots {
				isRoot[r.Node]++
			}
			fs, bs := fuchsiair.Of(s), fuchsiair.Of(b)
			for i := range s.Nodes.Len() {
				n := fs.ObjectCount(i)
				if n > 1 {
					aggregated++
				}
				if stackName(f, fs, i) != stackName(g, bs, i) {
					stacks += n
				}
				if f.String(s.Nodes.Name[i]) == g.String(b.Nodes.Name[i]) {
					continue
				}
				moved += n
				if isRoot[i] > 0 {
					roots += isRoot[i] * n
				} else {
					roots += n - 1
				}
			}
		}
		total += moved
		totalStacks += stacks
		for _, w := range []struct {
			kind  string
			count uint64
		}{{ir.LossClasses, moved}, {ir.LossNodeNames, moved}, {ir.LossGCRoots, roots}, {ir.LossAllocationStacks, stacks}} {
			l, ok := loss.Get(w.kind)
			if w.count > 0 && (!ok || l.Count != int64(w.count)) || w.count == 0 && ok {
				t.Errorf("%s: want %d × %s in the loss report:\n%v", name, w.count, w.kind, loss)
			}
		}
	}
	if total == 0 || totalStacks == 0 || aggregated == 0 {
		t.Fatalf("%d blocks change class, %d stacks change, %d samples of several allocations: the test is wrong", total, totalStacks, aggregated)
	}
}

// stackName names node i's allocation stack by its frames, innermost
// first, without class frames.
func stackName(f *ir.File, fs *fuchsiair.Snapshot, i int) string {
	var names []string
	for _, l := range fs.StackOf(int(fs.Stack[i])) {
		frames := fuchsiair.FileOf(f).Frames(f, int(l))
		for j := len(frames) - 1; j >= 0; j-- {
			if !frames[j].Class {
				names = append(names, frames[j].Name())
			}
		}
	}
	return strings.Join(names, " < ")
}

// TestFIDLFromPprofFixture sends a symbolized ffx profile: the stream read
// back has the same allocations, stacks of raw addresses and threads.
func TestFIDLFromPprofFixture(t *testing.T) {
	data, err := os.ReadFile("../../testdata/fuchsia/gen-current-tags.pb")
	if err != nil {
		t.Fatal(err)
	}
	f, err := rfuchsia.ReadBytes(data, rfuchsia.Options{ContentsDir: "../../testdata/fuchsia/gen-current-tags.contents"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := fuchsia.WriteFIDL(&out, f); err != nil {
		t.Fatal(err)
	}
	g, err := rfuchsia.ReadFIDL(bytes.NewReader(out.Bytes()), rfuchsia.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, b := f.Snapshots[0], g.Snapshots[0]
	if d := ir.GraphDiff(f, s, g, b, 10); len(d) > 0 {
		t.Fatalf("graph differs: %v", d)
	}
	for i := 0; i < s.Nodes.Len(); i++ {
		// The fixture has a zero-byte block with (empty) contents.
		ca, oka := fuchsiair.Of(s).ContentsOf(i)
		cb, okb := fuchsiair.Of(b).ContentsOf(i)
		if oka != okb {
			t.Fatalf("node %d (%d bytes): contents %v, read back %v", i, s.Nodes.SelfSize.At(i), oka, okb)
		}
		if !bytes.Equal(ca, cb) || s.Nodes.ID.At(i) != b.Nodes.ID.At(i) {
			t.Fatalf("node %d differs", i)
		}
		la, lb := fuchsiair.Of(s).StackOf(int(fuchsiair.Of(s).Stack[i])), fuchsiair.Of(b).StackOf(int(fuchsiair.Of(b).Stack[i]))
		if len(la) != len(lb) {
			t.Fatalf("node %d: stack of %d frames, want %d", i, len(lb), len(la))
		}
		for j := range la {
			if fuchsiair.FileOf(f).Locations.Address[la[j]] != fuchsiair.FileOf(g).Locations.Address[lb[j]] {
				t.Fatalf("node %d frame %d differs", i, j)
			}
		}
	}
}

// TestFIDLFromTraced sends a V8 heap taken with allocation tracking: its
// objects' stacks are their allocation traces, whose functions a stream
// cannot name; the loss report counts the objects whose stack the stream
// reads back otherwise (by module and offset, or address), not the
// functions.
func TestFIDLFromTraced(t *testing.T) {
	f := readFixture(t, "v8/node26-tracking.heapsnapshot.zst", func(r io.Reader) (*ir.File, error) { return rv8.Read(r, rv8.Options{}) })
	var out bytes.Buffer
	loss, err := fuchsia.WriteFIDL(&out, f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := readFIDL(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	s, b := f.Snapshots[0], g.Snapshots[0]
	traces := ir.AllocationStacks(f, s)
	if traces == nil {
		t.Fatal("the snapshot has no allocation traces")
	}
	synthetic := ir.SyntheticNodes(f, s)
	changed, traced, j := 0, 0, 0 // j: the sample of node i
	for i := range s.Nodes.Len() {
		if synthetic[i] {
			continue
		}
		var names []string
		for _, fr := range traces(i) {
			names = append(names, fr.Name())
		}
		if len(names) > 0 {
			traced++
		}
		if strings.Join(names, " < ") != stackName(g, fuchsiair.Of(b), j) {
			changed++
		}
		j++
	}
	if j != b.Nodes.Len() || traced == 0 {
		t.Fatalf("%d objects, %d samples read back; %d traced", j, b.Nodes.Len(), traced)
	}
	if l, ok := loss.Get(ir.LossAllocationStacks); !ok || l.Count != int64(changed) {
		t.Errorf("want %d × %s (of %d traced objects) in the loss report:\n%v", changed, ir.LossAllocationStacks, traced, loss)
	}
}
