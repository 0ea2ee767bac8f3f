package moarvm_test

import (
	"bytes"
	"strings"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/readers/moarvm"
)

// blockOffsets returns where the blocks named name start, by their name
// bytes (TOC entries hold the name too; pass a name only blocks start with
// where that matters).
func blockOffsets(data []byte, name string) []int {
	var out []int
	for i := 0; ; {
		k := bytes.Index(data[i:], []byte(name))
		if k < 0 {
			return out
		}
		out = append(out, i+k)
		i += k + 1
	}
}

// sameSnapshot compares two snapshots by kinds, targets, classes and
// resolved names (string indices beyond the heap may differ).
func sameSnapshot(t *testing.T, fa, fb *ir.File, a, b *ir.Snapshot) {
	t.Helper()
	if a.Nodes.Len() != b.Nodes.Len() || a.Edges.Len() != b.Edges.Len() {
		t.Fatalf("%d nodes / %d edges, want %d / %d", b.Nodes.Len(), b.Edges.Len(), a.Nodes.Len(), a.Edges.Len())
	}
	for i := 0; i < a.Nodes.Len(); i++ {
		if a.Nodes.Kind[i] != b.Nodes.Kind[i] || a.Nodes.Class[i] != b.Nodes.Class[i] ||
			fa.String(a.Nodes.Name[i]) != fb.String(b.Nodes.Name[i]) || a.Nodes.FirstEdge[i+1] != b.Nodes.FirstEdge[i+1] ||
			a.Nodes.SelfSize.At(i) != b.Nodes.SelfSize.At(i) || a.Nodes.ExternalSize.At(i) != b.Nodes.ExternalSize.At(i) {
			t.Fatalf("node %d differs", i)
		}
	}
	for e := 0; e < a.Edges.Len(); e++ {
		if a.Edges.Kind[e] != b.Edges.Kind[e] || a.Edges.Target[e] != b.Edges.Target[e] || a.Edges.Name[e] != b.Edges.Name[e] {
			t.Fatalf("edge %d differs", e)
		}
	}
}

// TestRecoverTruncated cuts nqp-3snap inside its third snapshot: the first
// two are recovered, and the file says where the damage starts.
func TestRecoverTruncated(t *testing.T) {
	data := irtest.ReadSample(t, testdata, "nqp-3snap.mvmheap")
	full, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	metas := blockOffsets(data, "snapmeta")
	// Block names: the first of each pair is the block, the second its
	// inner TOC's entry.
	third, thirdTOC := metas[4], metas[5]-16
	for _, cut := range []int{third + 5, third + 200, (third + thirdTOC) / 2, thirdTOC - 300} {
		f, err := moarvm.Read(bytes.NewReader(data[:cut]), moarvm.Options{})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		rec := moarvmir.FileOf(f).Recovery
		if len(f.Snapshots) != 2 || rec == nil || rec.Lost != 1 || rec.DamageAt > int64(cut) || rec.DamageAt < int64(third) {
			t.Fatalf("cut at %d: %d snapshots, recovery %+v", cut, len(f.Snapshots), rec)
		}
		if !strings.Contains(f.FormatVersion, "recovered") {
			t.Errorf("cut at %d: format version %q does not say the file was recovered", cut, f.FormatVersion)
		}
		for k := range 2 {
			sameSnapshot(t, full, f, full.Snapshots[k], f.Snapshots[k])
		}
	}
	// Cut in or after the third snapshot's inner TOC: its blocks are
	// whole, so all three are there.
	for _, cut := range []int{thirdTOC, thirdTOC + 20, thirdTOC + 16 + 24*18 + 8} {
		f, err := moarvm.Read(bytes.NewReader(data[:cut]), moarvm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rec := moarvmir.FileOf(f).Recovery; len(f.Snapshots) != 3 || rec == nil || rec.Lost != 0 || rec.DamageAt > int64(cut) {
			t.Fatalf("cut at %d: %d snapshots, recovery %+v", cut, len(f.Snapshots), rec)
		}
		sameSnapshot(t, full, f, full.Snapshots[2], f.Snapshots[2])
	}
}

// TestTruncationSweep cuts both v3 samples at many points: every cut gives
// either recovered snapshots or an error naming an offset.
func TestTruncationSweep(t *testing.T) {
	for _, name := range []string{"nqp-1snap.mvmheap", "nqp-3snap.mvmheap"} {
		data := irtest.ReadSample(t, testdata, name)
		step := max(len(data)/120, 1)
		for cut := 0; cut < len(data); cut += step {
			f, err := moarvm.Read(bytes.NewReader(data[:cut]), moarvm.Options{})
			if err != nil {
				if !strings.Contains(err.Error(), "offset") {
					t.Errorf("%s cut at %d: error without an offset: %v", name, cut, err)
				}
				continue
			}
			if moarvmir.FileOf(f).Recovery == nil || len(f.Snapshots) == 0 {
				t.Errorf("%s cut at %d: read without a recovery report", name, cut)
			}
		}
	}
}
