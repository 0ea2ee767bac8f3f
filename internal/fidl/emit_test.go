package fidl

import (
	"bytes"
	"reflect"
	"testing"
)

var kindRank = map[Kind]int{KindAllocation: 0, KindThreadInfo: 1, KindStackTrace: 2, KindExecutableRegion: 3, KindBlockContents: 4}

// batches splits Records into batches of element record indices.
func batches(s *Stream) [][]int {
	var out [][]int
	cur := []int{}
	for i, r := range s.Records {
		if r.Kind == KindEndOfBatch {
			out = append(out, cur)
			cur = []int{}
			continue
		}
		cur = append(cur, i)
	}
	return out
}

func wireSize(s *Stream, i int) int {
	var e Element
	s.Element(i, &e)
	return e.WireSize()
}

func TestEmitCollectorShape(t *testing.T) {
	procs := Synthetic(42, SyntheticOptions{Processes: 2, Allocations: 3000, Contents: true, MaxBlockSize: 5000})
	s, err := Emit(procs, true)
	if err != nil {
		t.Fatal(err)
	}
	bs := batches(s)
	// Pattern: [header] data... [] per process, then [].
	bi := 0
	for pi := range procs {
		if len(bs[bi]) != 1 || s.Records[bs[bi][0]].Kind != KindSnapshotHeader {
			t.Fatalf("process %d: batch %d is not a header batch", pi, bi)
		}
		bi++
		rank, data := -1, 0
		for ; len(bs[bi]) > 0; bi++ {
			b := bs[bi]
			size := emptyBatchBytes
			for _, i := range b {
				r := s.Records[i]
				if kindRank[r.Kind] < rank {
					t.Fatalf("process %d: %v after rank %d", pi, r.Kind, rank)
				}
				rank = kindRank[r.Kind]
				switch r.Kind {
				case KindStackTrace:
					if n := len(s.StackTraces[r.Index].ProgramAddresses); n > MaxStackChunk {
						t.Fatalf("stack chunk of %d", n)
					}
				case KindBlockContents:
					if n := len(s.BlockContents[r.Index].Contents); n > MaxContentsChunk {
						t.Fatalf("contents chunk of %d", n)
					}
				}
				size += wireSize(s, i)
			}
			if size > MaxMessageBytes {
				t.Fatalf("batch %d: %d bytes", bi, size)
			}
			// A batch was flushed only because the next element did not fit.
			if next := bs[bi+1]; len(next) > 0 && size+wireSize(s, next[0]) <= MaxMessageBytes {
				t.Fatalf("batch %d (%d bytes) flushed early", bi, size)
			}
			data++
		}
		if data < 2 {
			t.Errorf("process %d: %d data batches; the test wants pagination", pi, data)
		}
		bi++ // the empty batch
	}
	if bi != len(bs)-1 || len(bs[bi]) != 0 {
		t.Fatalf("stream does not end with the extra empty batch (%d of %d)", bi, len(bs))
	}

	// Reassembly gives the processes back.
	snaps, got, err := reassemble(t, s)
	if err != nil {
		t.Fatal(err)
	}
	for pi, p := range procs {
		sn := snaps[pi]
		h := got.SnapshotHeaders[sn.Header]
		if h.ProcessName != p.Name || h.ProcessKoid != p.Koid {
			t.Errorf("header %+v", h)
		}
		for i, idx := range sn.Allocations {
			if !reflect.DeepEqual(got.Allocations[idx], p.Allocations[i]) {
				t.Fatalf("allocation %d differs", i)
			}
		}
		for _, st := range p.StackTraces {
			if !reflect.DeepEqual(sn.StackTraces[st.Key], st.ProgramAddresses) {
				t.Fatalf("trace %d differs", st.Key)
			}
		}
		for _, c := range p.Contents {
			if !bytes.Equal(sn.Contents[c.Address], c.Contents) {
				t.Fatalf("contents of 0x%x differ", c.Address)
			}
		}
		if len(sn.Contents) != len(p.Contents) || len(sn.Contents) == len(p.Allocations) || len(sn.DroppedContents) != 0 {
			t.Errorf("%d contents of %d allocations", len(sn.Contents), len(p.Allocations))
		}
		for _, th := range p.Threads {
			if !reflect.DeepEqual(got.ThreadInfos[sn.Threads[th.Key]], th) {
				t.Errorf("thread %d differs", th.Key)
			}
		}
		for i, r := range sn.Regions {
			if i > 0 && got.ExecutableRegions[sn.Regions[i-1]].Address >= got.ExecutableRegions[r].Address {
				t.Error("regions not sorted")
			}
		}
		if len(sn.Regions) != len(p.Regions) {
			t.Errorf("%d regions, want %d", len(sn.Regions), len(p.Regions))
		}
	}
}

func TestEmitSingleProcess(t *testing.T) {
	procs := Synthetic(1, SyntheticOptions{Allocations: 10})
	if _, err := Emit(append(procs, procs...), false); err == nil {
		t.Error("two processes in a single-process stream")
	}
	if _, err := Emit(nil, false); err == nil {
		t.Error("no process in a single-process stream")
	}
	// An empty trace becomes one empty chunk; an empty block sends nothing.
	procs[0].StackTraces[0].ProgramAddresses = nil
	procs[0].Contents = []BlockContents{{Present: 3, Address: 1}}
	s, err := Emit(procs, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range s.StackTraces {
		if st.Key == procs[0].StackTraces[0].Key {
			n++
		}
	}
	// Empty contents are one empty chunk, so that the receiver has them.
	if n != 1 || len(s.BlockContents) != 1 || len(s.BlockContents[0].Contents) != 0 {
		t.Errorf("%d chunks for the empty trace, %d contents chunks for the empty block", n, len(s.BlockContents))
	}
	if _, _, err := reassemble(t, s); err != nil {
		t.Fatal(err)
	}
	if s.MultiProcess || len(s.SnapshotHeaders) != 0 {
		t.Error("single-process stream has headers")
	}
	b := batches(s)
	if len(b[len(b)-1]) != 0 || (len(b) > 1 && len(b[len(b)-2]) == 0) {
		t.Error("single-process stream must end with exactly one empty batch")
	}
}

func TestSynthetic(t *testing.T) {
	a := Synthetic(5, SyntheticOptions{Processes: 2, Contents: true})
	b := Synthetic(5, SyntheticOptions{Processes: 2, Contents: true})
	if !reflect.DeepEqual(a, b) {
		t.Error("not deterministic")
	}
	if reflect.DeepEqual(a, Synthetic(6, SyntheticOptions{Processes: 2, Contents: true})) {
		t.Error("seed ignored")
	}
	agg := Synthetic(3, SyntheticOptions{Aggregated: true, Allocations: 50})
	for _, al := range agg[0].Allocations {
		if al.Present.Has(AllocationAddress) || al.Present.Has(AllocationThreadInfoKey) || al.CountOrDefault() < 2 {
			t.Fatalf("aggregated allocation %+v", al)
		}
	}
	s, err := Emit(agg, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reassemble(t, s); err != nil {
		t.Fatal(err)
	}
	// Stack frames lie in the executable regions; the leaf is the same
	// allocator hook everywhere.
	p := a[0]
	in := func(pc uint64) bool {
		for _, r := range p.Regions {
			if pc >= r.Address && pc < r.Address+r.Size {
				return true
			}
		}
		return false
	}
	for _, st := range p.StackTraces {
		if st.ProgramAddresses[0] != p.StackTraces[0].ProgramAddresses[0] || len(st.ProgramAddresses) > 64 {
			t.Fatal("leaf frame or depth")
		}
		for _, pc := range st.ProgramAddresses {
			if !in(pc) {
				t.Fatalf("pc 0x%x outside the regions", pc)
			}
		}
	}
}

// TestEmitRoundTripBytes: an emitted stream survives write → read → write
// byte for byte, with the same records.
func TestEmitRoundTripBytes(t *testing.T) {
	for seed := range int64(5) {
		procs := Synthetic(seed, SyntheticOptions{Processes: 1 + int(seed%3), Allocations: 50 + 100*int(seed), Contents: seed%2 == 0})
		s, err := Emit(procs, seed != 0)
		if err != nil {
			t.Fatal(err)
		}
		b := streamBytes(t, s)
		got, err := ReadStream(bytes.NewReader(b), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !equalRecords(got, s) || !bytes.Equal(streamBytes(t, got), b) {
			t.Fatalf("seed %d: not element-exact", seed)
		}
	}
}
