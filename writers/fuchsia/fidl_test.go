package fuchsia_test

import (
	"bytes"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rfuchsia "github.com/heapconv/heapconv/readers/fuchsia"
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
	labels, extra := 0, 0
	for _, s := range f.Snapshots {
		labels += len(fuchsiair.Of(s).LabelKey)
		extra += len(fuchsiair.Of(s).ExtraValues)
	}
	for _, w := range []struct {
		kind  string
		count int
	}{
		{ir.LossAllocationStacks, fuchsiair.FileOf(f).Functions.Len()},
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
// are read back in other classes; the loss report says so (classes, names
// and roots' categories), counting exactly those blocks.
func TestFIDLFromSymbolized(t *testing.T) {
	total := 0
	// The last is not symbolized: its sites do not change.
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
		moved, roots := 0, 0
		for k, s := range f.Snapshots {
			b := g.Snapshots[k]
			if b.Nodes.Len() != s.Nodes.Len() {
				t.Fatalf("%s: snapshot %d: %d nodes read back, %d written", name, k, b.Nodes.Len(), s.Nodes.Len())
			}
			changed := make([]bool, s.Nodes.Len())
			for i := range changed {
				if f.String(s.Nodes.Name[i]) != g.String(b.Nodes.Name[i]) {
					changed[i] = true
					moved++
				}
			}
			for _, r := range s.Roots {
				if changed[r.Node] {
					roots++
				}
			}
		}
		total += moved
		for _, w := range []struct {
			kind  string
			count int
		}{{ir.LossClasses, moved}, {ir.LossNodeNames, moved}, {ir.LossGCRoots, roots}} {
			l, ok := loss.Get(w.kind)
			if w.count > 0 && (!ok || l.Count != int64(w.count)) || w.count == 0 && ok {
				t.Errorf("%s: want %d × %s in the loss report:\n%v", name, w.count, w.kind, loss)
			}
		}
	}
	if total == 0 {
		t.Fatal("no block changes class: the test is wrong")
	}
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
