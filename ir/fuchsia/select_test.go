package fuchsia_test

import (
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/ir/irtest"
)

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
				if gs.Nodes.Len() != s.Nodes.Len() || len(fuchsiair.Of(gs).StackLocation) != len(fuchsiair.Of(s).StackLocation) {
					t.Fatalf("%s seed %d, snapshot %d: not kept whole", c.name, seed, n)
				}
				used := make([]bool, fuchsiair.FileOf(g).Locations.Len())
				for i, l := range fuchsiair.Of(s).StackLocation {
					k := fuchsiair.Of(gs).StackLocation[i]
					used[k] = true
					if fuchsiair.FileOf(f).Locations.ID[l] != fuchsiair.FileOf(g).Locations.ID[k] {
						t.Fatalf("%s seed %d, snapshot %d: frame %d is another location", c.name, seed, n, i)
					}
				}
				// A location the process does not use is no other's.
				others := map[uint64]bool{}
				for _, o := range f.Snapshots {
					for _, l := range fuchsiair.Of(o).StackLocation {
						others[fuchsiair.FileOf(f).Locations.ID[l]] = o != s
					}
				}
				for k, u := range used {
					if id := fuchsiair.FileOf(g).Locations.ID[k]; !u && others[id] {
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
