package moarvm_test

import (
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir/irtest"
)

// TestSelectMoarVM: a snapshot picked out of a MoarVM file is a valid file
// on its own, its TOC adding what the TOCs before it added.
func TestSelectMoarVM(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		f := irtest.RandomMoarVM(seed, irtest.Options{Snapshots: 3}, irtest.MoarVMOptions{})
		for n := range f.Snapshots {
			g, err := f.Select(n)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("seed %d, snapshot %d: %v", seed, n, err)
			}
			var before uint32
			for _, toc := range moarvmir.FileOf(f).TOCs[:n+1] {
				before += toc.NewStrings
			}
			if got := moarvmir.FileOf(g).TOCs[0].NewStrings; got != before {
				t.Errorf("seed %d, snapshot %d: its TOC adds %d strings, want %d", seed, n, got, before)
			}
			if len(moarvmir.FileOf(f).TOCs) != len(f.Snapshots)+1 || len(moarvmir.FileOf(g).TOCs) != 2 {
				t.Fatalf("seed %d: %d TOCs for %d snapshots; selected %d", seed, len(moarvmir.FileOf(f).TOCs), len(f.Snapshots), len(moarvmir.FileOf(g).TOCs))
			}
		}
	}
}
