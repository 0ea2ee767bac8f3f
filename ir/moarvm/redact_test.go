package moarvm_test

import (
	"testing"

	"github.com/heapconv/heapconv/ir/irtest"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// TestRedactRenumbersStringHeap: a MoarVM file redacted loses nothing but
// the strings nothing uses; the string heap's size and what each TOC adds
// count the strings kept, so that every TOC still adds a range of the heap
// its types and frames name strings of.
func TestRedactRenumbersStringHeap(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		f := irtest.Random(seed, irtest.Options{Snapshots: 3, MoarVM: &irtest.MoarVMOptions{}})
		m := moarvmir.FileOf(f)
		// Make one string of the heap unused: the frame or type that
		// alone names it names string 0 instead, which TOC 0 adds.
		uses := map[uint32]int{}
		count := func(l []uint32) {
			for _, i := range l {
				uses[i]++
			}
		}
		count(f.Classes.Name)
		count(f.Classes.Library)
		count(m.FrameName)
		count(m.FrameCUID)
		count(m.FrameFile)
		for _, s := range f.Snapshots {
			uses[s.Name]++
			count(s.Nodes.Name)
			for e, name := range s.Edges.Name {
				if !s.EdgeKindOf(e).Indexed {
					uses[name]++
				}
			}
		}
		var ref *uint32
		for _, l := range [][]uint32{m.FrameFile, m.FrameCUID, m.FrameName, f.Classes.Library} {
			for k, i := range l {
				if uses[i] == 1 && i > 0 && int(i) < m.StringCount && ref == nil {
					ref = &l[k]
				}
			}
		}
		if ref == nil {
			continue
		}
		dropped := *ref
		*ref = 0
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		g, _, err := f.Redact()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		uses[dropped]--
		uses[0]++
		// What each TOC adds, and the heap, count the strings of theirs
		// something uses.
		used := func(lo, hi uint32) uint32 {
			n := uint32(0)
			for i := lo; i < hi; i++ {
				if uses[i] > 0 {
					n++
				}
			}
			return n
		}
		gm := moarvmir.FileOf(g)
		if want := used(0, uint32(m.StringCount)); gm.StringCount != int(want) || gm.StringCount >= m.StringCount {
			t.Errorf("seed %d: a heap of %d strings, want %d (of %d)", seed, gm.StringCount, want, m.StringCount)
		}
		at := uint32(0)
		for k, toc := range m.TOCs {
			want := used(at, at+toc.NewStrings)
			at += toc.NewStrings
			if got := gm.TOCs[k].NewStrings; got != want {
				t.Errorf("seed %d: TOC %d adds %d strings, want %d", seed, k, got, want)
			}
		}
		if moarvmir.FileOf(f).StringCount != m.StringCount {
			t.Error("the file redacted changed")
		}
		return
	}
	t.Fatal("no seed makes a file with a string only one frame or type names")
}
