package ir_test

import (
	"testing"

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
			for _, toc := range f.MoarVM.TOCs[:n+1] {
				before += toc.NewStrings
			}
			if got := g.MoarVM.TOCs[0].NewStrings; got != before {
				t.Errorf("seed %d, snapshot %d: its TOC adds %d strings, want %d", seed, n, got, before)
			}
			if len(f.MoarVM.TOCs) != len(f.Snapshots)+1 || len(g.MoarVM.TOCs) != 2 {
				t.Fatalf("seed %d: %d TOCs for %d snapshots; selected %d", seed, len(f.MoarVM.TOCs), len(f.Snapshots), len(g.MoarVM.TOCs))
			}
		}
	}
}

// TestSelectFuchsia: one process picked out of a random multi-process
// profile or FIDL stream is a valid file on its own (a stream's mappings
// are all its regions), holding the process's nodes, stack frames and
// regions, and none of the tables only the others use.
func TestSelectFuchsia(t *testing.T) {
	for _, c := range []struct {
		name string
		fo   irtest.FuchsiaOptions
	}{
		{"profile", irtest.FuchsiaEverything()},
		{"stream", irtest.FuchsiaStreamEverything()},
	} {
		for seed := int64(1); seed <= 20; seed++ {
			f := irtest.RandomFuchsia(seed, irtest.Options{Snapshots: 3}, c.fo)
			for n, s := range f.Snapshots {
				g, err := f.Select(n)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Validate(); err != nil {
					t.Fatalf("%s seed %d, snapshot %d: %v", c.name, seed, n, err)
				}
				gs := g.Snapshots[0]
				if gs.Nodes.Len() != s.Nodes.Len() || len(gs.Fuchsia.StackLocation) != len(s.Fuchsia.StackLocation) {
					t.Fatalf("%s seed %d, snapshot %d: not kept whole", c.name, seed, n)
				}
				used := make([]bool, g.Fuchsia.Locations.Len())
				for i, l := range s.Fuchsia.StackLocation {
					k := gs.Fuchsia.StackLocation[i]
					used[k] = true
					if f.Fuchsia.Locations.ID[l] != g.Fuchsia.Locations.ID[k] {
						t.Fatalf("%s seed %d, snapshot %d: frame %d is another location", c.name, seed, n, i)
					}
				}
				// A location the process does not use is no other's.
				others := map[uint64]bool{}
				for _, o := range f.Snapshots {
					for _, l := range o.Fuchsia.StackLocation {
						others[f.Fuchsia.Locations.ID[l]] = o != s
					}
				}
				for k, u := range used {
					if id := g.Fuchsia.Locations.ID[k]; !u && others[id] {
						t.Errorf("%s seed %d, snapshot %d: location %d is another process's, yet kept", c.name, seed, n, id)
					}
				}
				if err := f.Validate(); err != nil {
					t.Fatalf("selecting changed the original: %v", err)
				}
			}
		}
	}
}
