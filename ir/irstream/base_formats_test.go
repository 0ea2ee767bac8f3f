package irstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irtest"
)

// deepCopy returns snapshot n of f as a new snapshot (through the stream).
func deepCopy(t *testing.T, f *ir.File, n int) *ir.Snapshot {
	g := *f
	g.Snapshots = []*ir.Snapshot{f.Snapshots[n]}
	var buf bytes.Buffer
	if err := Encode(&buf, &g); err != nil {
		t.Fatal(err)
	}
	h, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return h.Snapshots[0]
}

// permuteIdentities swaps the identities of nodes so that node i of the
// copy is another node of the base, with some sizes changed.
func permuteIdentities(s *ir.Snapshot, r *rand.Rand, same func(i, j int) bool, swap func(i, j int), sizes bool) {
	n := s.Nodes.Len()
	for range n {
		i, j := r.IntN(n), r.IntN(n)
		if i != j && same(i, j) {
			swap(i, j)
		}
	}
	for i := range n {
		if sizes && r.IntN(10) == 0 {
			s.Nodes.SelfSize.Set(i, s.Nodes.SelfSize.At(i)+8)
		}
	}
}

func roundTripBased(t *testing.T, f *ir.File) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatalf("invalid: %v", err)
	}
	based := 0
	var names []string
	for i := range f.Snapshots {
		if i == 0 {
			continue
		}
		if p := planBase(f, i); p != nil {
			based++
			names = append(names, p.order...)
		}
	}
	if based == 0 {
		t.Fatal("no snapshot stored against a base")
	}
	var buf bytes.Buffer
	if err := Encode(&buf, f); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if d := ir.Diff(f, back, 5); len(d) > 0 {
		t.Fatalf("Decode(Encode(f)) differs:\n%v", d)
	}
	buf.Reset()
	if err := EncodeZstd(&buf, f); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for n := range f.Snapshots {
		want, _ := back.Select(n)
		got, err := DecodeSnapshot(bytes.NewReader(data), int64(len(data)), n)
		if err == ErrNoIndex {
			continue
		}
		if err != nil {
			t.Fatalf("DecodeSnapshot(%d): %v", n, err)
		}
		if d := ir.Diff(want, got, 5); len(d) > 0 {
			t.Fatalf("DecodeSnapshot(%d) differs:\n%v", n, d)
		}
	}
}

func TestBaseDart(t *testing.T) {
	for seed := range int64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			o := irtest.Options{MinNodes: 5, MaxNodes: 60, Dart: &irtest.DartOptions{Hashes: true, External: true, Data: true, ZeroRefs: true, Padding: seed%2 == 0}}
			f := irtest.Random(seed, o)
			r := rand.New(rand.NewPCG(uint64(seed), 1))
			for range 3 {
				s := deepCopy(t, f, len(f.Snapshots)-1)
				permuteIdentities(s, r, func(i, j int) bool {
					return len(s.Nodes.Class) == 0 || s.Nodes.Class[i] == s.Nodes.Class[j]
				}, func(i, j int) {
					a, b := s.Nodes.ID.At(i), s.Nodes.ID.At(j)
					s.Nodes.ID.Set(i, b)
					s.Nodes.ID.Set(j, a)
				}, true)
				f.Snapshots = append(f.Snapshots, s)
			}
			_ = dartir.Format
			roundTripBased(t, f)
		})
	}
}

func TestBaseFuchsia(t *testing.T) {
	for seed := range int64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			fo := irtest.FuchsiaEverything()
			fo.MultiProcess, fo.Interleaved = false, false
			f := irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 5, MaxNodes: 60, Strings: irtest.AllStrings}, fo)
			r := rand.New(rand.NewPCG(uint64(seed), 1))
			for range 2 {
				f.Snapshots = append(f.Snapshots, nextFuchsia(t, f, r, true))
			}
			roundTripBased(t, f)
		})
	}
}

// nextFuchsia returns a copy of f's last snapshot whose blocks have
// swapped addresses (and, with timestamps, allocation times), as the next
// snapshot of the process: the blocks' identities are there, at other
// nodes.
func nextFuchsia(t *testing.T, f *ir.File, r *rand.Rand, timestamps bool) *ir.Snapshot {
	s := deepCopy(t, f, len(f.Snapshots)-1)
	x := s.Section(fuchsiair.SnapshotSectionName).(*fuchsiair.Snapshot)
	permuteIdentities(s, r, func(i, j int) bool {
		return x.Flags[i]&fuchsiair.FlagAddress != 0 && x.Flags[j]&fuchsiair.FlagAddress != 0
	}, func(i, j int) {
		a, b := s.Nodes.ID.At(i), s.Nodes.ID.At(j)
		s.Nodes.ID.Set(i, b)
		s.Nodes.ID.Set(j, a)
		if timestamps && len(x.Timestamp) > 0 {
			x.Timestamp[i], x.Timestamp[j] = x.Timestamp[j], x.Timestamp[i]
		}
	}, false)
	return s
}
