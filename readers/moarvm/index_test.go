package moarvm_test

import (
	"bytes"
	"testing"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"

	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/readers/moarvm"
)

// TestIndex: the snapshots a version 3 file's tables of contents list are
// those Read reads, with snapmeta's totals; a version 2 file (no tables of
// contents) and a file whose tail is cut are errors, left to Read.
func TestIndex(t *testing.T) {
	for _, name := range []string{"nqp-1snap.mvmheap", "nqp-3snap.mvmheap"} {
		data := irtest.ReadSample(t, testdata, name)
		snaps, err := moarvm.Index(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := moarvm.Read(bytes.NewReader(data), moarvm.Options{Size: int64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		if len(snaps) != len(f.Snapshots) {
			t.Fatalf("%s: Index lists %d snapshots, Read reads %d", name, len(snaps), len(f.Snapshots))
		}
		for i, s := range snaps {
			if m := moarvmir.Of(f.Snapshots[i]); s.GCSeqNum != m.GCSeqNum {
				t.Errorf("%s snapshot %d: gc_seq_num %d, Read says %d", name, i, s.GCSeqNum, m.GCSeqNum)
			}
			for _, tot := range f.Snapshots[i].Totals {
				if got := s.Total(tot.Name); got != tot.Value {
					t.Errorf("%s snapshot %d: %s %d, Read says %d", name, i, tot.Name, got, tot.Value)
				}
			}
			if s.Total("total_refs") != uint64(f.Snapshots[i].Edges.Len()) {
				t.Errorf("%s snapshot %d: total_refs %d, %d edges read", name, i, s.Total("total_refs"), f.Snapshots[i].Edges.Len())
			}
		}
		if _, err := moarvm.Index(bytes.NewReader(data[:len(data)-1]), int64(len(data)-1)); err == nil {
			t.Errorf("%s cut by a byte: no error", name)
		}
	}
	v2 := irtest.ReadSample(t, testdata, "nqp-1snap-v002.mvmheap.gz")
	if _, err := moarvm.Index(bytes.NewReader(v2), int64(len(v2))); err == nil {
		t.Error("a version 2 file has no index, but Index gave one")
	}
}
