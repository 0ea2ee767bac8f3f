package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/analysis"
	"github.com/heapconv/heapconv/ir/irtest"
)

// What writers synthesize comes back marked: a conversion and its way back
// give the heap, not the heap and the writers' additions.

// TestMoarVMThroughV8 converts every snapshot of the MoarVM fixtures to V8
// and back to MoarVM. writers/v8 makes unmanaged memory native nodes so
// that DevTools counts it, and marks them (ir.UnmanagedOwners); writers/moarvm
// folds them back into their owners and undoes the rest of the mapping. The
// heap comes back: the same collectables of the same kinds in the same
// order, per type the same numbers of objects, type objects and STables with
// the same managed and unmanaged sizes, the same frames and the same
// references, and the graph as ir.GraphDiff sees it.
func TestMoarVMThroughV8(t *testing.T) {
	t.Parallel()
	mv, v8 := formatByName(moarvmir.Format), formatByName(v8ir.Format)
	heaps := fixtures(t, mv)
	// Random heaps have what the samples lack: references to strings
	// outside the string heap, of kind 3, unmanaged sizes everywhere.
	for seed := int64(1); seed <= 3; seed++ {
		for _, mo := range []irtest.MoarVMOptions{{BadRefs: true}, {V2: true}} {
			f := irtest.RandomMoarVM(seed, irtest.Options{MinNodes: 200, MaxNodes: 2000, Snapshots: 1}, mo)
			heaps[fmt.Sprintf("random-seed%d-badrefs=%v", seed, mo.BadRefs)] = f
		}
	}
	for name, f := range heaps {
		t.Run(name, func(t *testing.T) {
			conv, _ := mustThrough(t, v8, f)
			if ir.UnmanagedOwners(conv, conv.Snapshots[0]) == nil {
				t.Errorf("the V8 file read back does not mark its native nodes as unmanaged memory")
			}
			back, loss := mustThrough(t, mv, conv)
			s, b := f.Snapshots[0], back.Snapshots[0]
			if b.Nodes.Len() != s.Nodes.Len() || b.Edges.Len() != s.Edges.Len() || b.Root != s.Root {
				t.Fatalf("%d collectables, %d references, root %d back; the heap has %d, %d, root %d\nloss report:\n%v",
					b.Nodes.Len(), b.Edges.Len(), b.Root, s.Nodes.Len(), s.Edges.Len(), s.Root, loss)
			}
			for i := range s.Nodes.Len() {
				if s.NodeKindName(i) != b.NodeKindName(i) {
					t.Fatalf("collectable %d: kind %q back, was %q", i, b.NodeKindName(i), s.NodeKindName(i))
				}
			}
			if d := slices.Compare(perType(f, s), perType(back, b)); d != 0 {
				t.Errorf("per type: %s", firstDifference(perType(f, s), perType(back, b)))
			}
			if want, got := mvmRefs(f, s), mvmRefs(back, b); !slices.Equal(want, got) {
				t.Errorf("references: %s", firstDifference(want, got))
			}
			if diff := ir.GraphDiff(f, s, back, b, 5); len(diff) > 0 {
				t.Errorf("the graph comes back otherwise:\n%s", strings.Join(diff, "\n"))
			}
			for _, k := range []string{ir.LossEdges, ir.LossNodeKinds, ir.LossNodeIDs, ir.LossSizesCapped, ir.LossExternalSizes} {
				if l, ok := loss.Get(k); ok {
					t.Errorf("the way back reports a loss that did not happen: %v", l)
				}
			}
		})
	}
}

// mvmNodeKey is what a collectable is: its kind and type (its class's
// label), or for a frame its static frame's name, file and line.
func mvmNodeKey(f *ir.File, s *ir.Snapshot, labels []string, i int) string {
	if s.Nodes.Kind[i] == moarvmir.Frame {
		t := moarvmir.Of(s).TOFI.At(i)
		mf := moarvmir.FileOf(f)
		return fmt.Sprintf("frame %q %q:%d", f.String(mf.FrameName[t]), f.String(mf.FrameFile[t]), mf.FrameLine[t])
	}
	return s.NodeKindName(i) + " " + analysis.NodeClass(f, s, i, labels)
}

// perType sums a MoarVM snapshot's collectables by mvmNodeKey: how many,
// their self sizes and their unmanaged sizes.
func perType(f *ir.File, s *ir.Snapshot) []string {
	type sums struct{ n, size, unmanaged uint64 }
	labels := ir.ClassLabels(f)
	by := map[string]sums{}
	for i := range s.Nodes.Len() {
		k := mvmNodeKey(f, s, labels, i)
		x := by[k]
		x.n++
		x.size += s.Nodes.SelfSize.At(i)
		if s.Nodes.ExternalSize.Len() > 0 {
			x.unmanaged += s.Nodes.ExternalSize.At(i)
		}
		by[k] = x
	}
	var out []string
	for k, x := range by {
		out = append(out, fmt.Sprintf("%s: %d collectables, %d bytes, %d unmanaged", k, x.n, x.size, x.unmanaged))
	}
	slices.Sort(out)
	return out
}

// mvmRefs lists a MoarVM snapshot's references, each as its holder, kind,
// description and target, sorted.
func mvmRefs(f *ir.File, s *ir.Snapshot) []string {
	labels := ir.ClassLabels(f)
	var out []string
	for i := range s.Nodes.Len() {
		lo, hi := s.Nodes.EdgeRange(i)
		from := mvmNodeKey(f, s, labels, i)
		for e := lo; e < hi; e++ {
			out = append(out, from+" —"+s.EdgeKindOf(e).Name+" "+f.EdgeName(s, e)+"→ "+mvmNodeKey(f, s, labels, int(s.Edges.Target[e])))
		}
	}
	slices.Sort(out)
	return out
}
