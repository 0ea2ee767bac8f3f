package conformance

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// TestSelect picks every snapshot out of every multi-snapshot input of the
// table (fixtures, and the damage sweep's extra inputs, such as the IR's
// schema versions) as `heapconv convert --snapshot N` does: the file
// selected must be valid, keep the snapshot whole, survive the IR round
// trip, and be written by every writer of the registry into a file that
// format's reader reads back valid, with one snapshot.
func TestSelect(t *testing.T) {
	t.Parallel()
	multi := 0
	for _, fm := range table {
		for _, glob := range []string{fm.fixtures, fm.damage} {
			if glob == "" {
				continue
			}
			paths, err := filepath.Glob(filepath.Join(moduleRoot, glob))
			if err != nil || len(paths) == 0 {
				t.Fatalf("%s: nothing matches %s: %v", fm.name, glob, err)
			}
			for _, path := range paths {
				f := read(t, fm, loadFixture(t, path))
				if len(f.Snapshots) < 2 {
					continue
				}
				multi++
				for n := range f.Snapshots {
					t.Run(fmt.Sprintf("%s/%s/snapshot%d", fm.name, fixtureName(path), n), func(t *testing.T) {
						testSelect(t, f, n)
					})
				}
			}
		}
	}
	// The table has at least MoarVM's, Fuchsia's and the FIDL stream's.
	if multi < 3 {
		t.Fatalf("only %d multi-snapshot inputs", multi)
	}
}

func testSelect(t *testing.T, f *ir.File, n int) {
	g, err := f.Select(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("the file selected is invalid: %v", err)
	}
	if len(g.Snapshots) != 1 || g.Snapshots[0].Nodes.Len() != f.Snapshots[n].Nodes.Len() ||
		g.Snapshots[0].Edges.Len() != f.Snapshots[n].Edges.Len() {
		t.Fatalf("the file selected does not hold snapshot %d whole", n)
	}
	if fuchsiair.FileOf(g) != nil {
		sameFuchsiaSnapshot(t, f, f.Snapshots[n], g, g.Snapshots[0])
	}
	if err := f.Validate(); err != nil {
		t.Fatalf("selecting changed the file it selected from: %v", err)
	}
	irRoundTrip(t, g)
	for _, w := range heapconv.Formats() {
		t.Run(w.Name, func(t *testing.T) {
			var b bytes.Buffer
			if _, err := w.Write(&b, g, nil); err != nil {
				t.Fatalf("%s writer: %v", w.Name, err)
			}
			back, err := w.Read(bytes.NewReader(b.Bytes()), &heapconv.ReadOptions{Size: int64(b.Len())})
			if err != nil {
				t.Fatalf("%s reader, on what its writer wrote: %v", w.Name, err)
			}
			if err := back.Validate(); err != nil {
				t.Fatalf("%s reader returned an invalid file: %v", w.Name, err)
			}
			if len(back.Snapshots) != 1 {
				t.Errorf("%d snapshots read back", len(back.Snapshots))
			}
			if fm := formatByName(w.Name); fm.judge != nil {
				if err := fm.judge(b.Bytes()); err != nil {
					t.Errorf("the format's own consumer refuses it: %v", err)
				}
			}
		})
	}
}

// sameFuchsiaSnapshot checks that the selected process kept its stacks'
// frames (the same pprof locations, at the same addresses, in the same
// mappings) and its stream's regions, and that the file-wide tables hold
// nothing only the other processes use.
func sameFuchsiaSnapshot(t *testing.T, f *ir.File, s *ir.Snapshot, g *ir.File, gs *ir.Snapshot) {
	t.Helper()
	fl, gl := &fuchsiair.FileOf(f).Locations, &fuchsiair.FileOf(g).Locations
	mapping := func(ff *fuchsiair.File, mi uint32) uint64 {
		if mi == 0 {
			return 0
		}
		return ff.Mappings.ID[mi-1]
	}
	used := make([]bool, gl.Len())
	for i, l := range fuchsiair.Of(s).StackLocation {
		k := fuchsiair.Of(gs).StackLocation[i]
		used[k] = true
		if fl.ID[l] != gl.ID[k] || fl.Address[l] != gl.Address[k] ||
			mapping(fuchsiair.FileOf(f), fl.Mapping[l]) != mapping(fuchsiair.FileOf(g), gl.Mapping[k]) ||
			fl.FirstLine[l+1]-fl.FirstLine[l] != gl.FirstLine[k+1]-gl.FirstLine[k] {
			t.Fatalf("stack frame %d: location %d became %d, not the same", i, fl.ID[l], gl.ID[k])
		}
	}
	// Every location left is this process's, or no process's.
	others := map[uint64]bool{}
	for _, o := range f.Snapshots {
		if o != s {
			for _, l := range fuchsiair.Of(o).StackLocation {
				others[fl.ID[l]] = true
			}
		}
	}
	for k := range used {
		if !used[k] && others[gl.ID[k]] {
			t.Errorf("location %d is only another process's, yet kept", gl.ID[k])
		}
	}
	if st := fuchsiair.Of(s).Stream; st != nil {
		gst := fuchsiair.Of(gs).Stream
		if fuchsiair.FileOf(g).Mappings.Len() != len(st.RegionMapping) {
			t.Errorf("%d mappings for %d regions", fuchsiair.FileOf(g).Mappings.Len(), len(st.RegionMapping))
		}
		for r, mi := range st.RegionMapping {
			if fuchsiair.FileOf(f).Mappings.ID[mi] != fuchsiair.FileOf(g).Mappings.ID[gst.RegionMapping[r]] {
				t.Errorf("region %d: another mapping", r)
			}
		}
	}
}
