package dart_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	dartir "github.com/heapconv/heapconv/ir/dart"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// splitInputs are files for the split read: generated heaps of every
// generation (with and without identity hashes, DevTools' padding) and
// the hand-built sample.
func splitInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	for _, g := range []dartgen.Generation{dartgen.GenVM, dartgen.GenVMNoHash, dartgen.GenDevToolsExport} {
		in[fmt.Sprintf("generation %d", g)] = generated(t, dartgen.Options{Seed: int64(g) + 3, Objects: 12_000, Generation: g, Isolates: 2})
	}
	sample, err := os.ReadFile("testdata/synthetic_vm_layout.dartheap")
	if err != nil {
		t.Fatal(err)
	}
	in["sample"] = sample
	in["sizes and hash codes past 32 bits"] = wideValues(t, in["generation 0"])
	in["empty UTF-16 strings"] = emptyUTF16(t, in["generation 0"])
	return in
}

// emptyUTF16 returns data with every UTF-16 string made empty: the second
// half's first strings then need no bytes in the UTF-8 it converts them to,
// and string 0 of its own table is not "".
func emptyUTF16(t *testing.T, data []byte) []byte {
	t.Helper()
	return rewritten(t, data, func(s *ir.Snapshot) {
		emptied := 0
		for j, node := range s.Values.Node {
			if s.Nodes.Kind[node] == dartir.UTF16Data {
				s.Values.Bits[j], s.Values.Aux[j] = 0, 0
				emptied++
			}
		}
		if emptied == 0 {
			t.Fatal("the file has no UTF-16 strings to empty")
		}
	})
}

// wideValues returns data with a few objects' shallow sizes and identity
// hash codes made 2^32 or more, early, in the middle and late: those
// columns then need 8 bytes a value.
func wideValues(t *testing.T, data []byte) []byte {
	t.Helper()
	return rewritten(t, data, func(s *ir.Snapshot) {
		nd := &s.Nodes
		for _, at := range []float64{0.1, 0.5, 0.52, 0.9} {
			k := int(at * float64(nd.Len()))
			nd.SelfSize.Set(k, 1<<32+uint64(k))
			nd.ID.Set(k+1, 1<<40+uint64(k))
		}
	})
}

// rewritten returns data read on one core, its snapshot changed by
// change, and written again.
func rewritten(t *testing.T, data []byte, change func(s *ir.Snapshot)) []byte {
	t.Helper()
	f, err := readOneCore(data)
	if err != nil {
		t.Fatal(err)
	}
	change(f.Snapshots[0])
	var out bytes.Buffer
	if _, err := wdart.Write(&out, f, wdart.Options{}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// readOneCore reads data with the split read turned off.
func readOneCore(data []byte) (*ir.File, error) {
	defer rdart.SetSplit(math.MaxUint64, nil, nil)()
	return rdart.Read(bytes.NewReader(data), rdart.Options{})
}

// TestSplitReadMatchesOneCore: whatever offset the second half's search
// starts from — an object boundary, the middle of an object or of a
// string, the identity hashes, the last bytes — a split read gives the
// file a read on one core gives, and the file written back is the input.
// Most starts must end in objects adopted from the second half, or the
// test would prove nothing; the tail the second half reads (external
// properties, identity hash codes) must be adopted with some, among them
// some where the second half had gone past the objects before it learnt
// where they end, and not with others. The first half must have interned
// some of the second half's strings while it waited for it, all of them
// in some reads and only some in others: the table's order is then still
// the one a read on one core gives. ReadBytes, from the same starts, gives
// the same file.
func TestSplitReadMatchesOneCore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Both ways of joining must be seen: in place, and by copying when a
	// half outgrew its room.
	var moves, copies int
	var tails, lateTails, ownTails int
	var allAhead, someAhead int
	defer rdart.SetSplitInterned(func(ahead, all int) {
		switch {
		case ahead > all:
			t.Errorf("%d of the second half's %d strings interned ahead", ahead, all)
		case ahead > 0 && ahead == all:
			allAhead++
		case ahead > 0:
			someAhead++
		}
	})()
	defer rdart.SetSplitTail(func(adopted, late bool) {
		switch {
		case late && !adopted:
			// The second half had decoded the objects up to the end
			// of a valid file: it can find the end again.
			t.Errorf("the second half went past the objects' end and did not read the tail")
		case !adopted:
			ownTails++
		case late:
			lateTails++
		default:
			tails++
		}
	})()
	defer func() {
		if moves == 0 || copies == 0 {
			t.Errorf("%d joins moved the second half in place, %d copied it", moves, copies)
		}
		if allAhead == 0 || someAhead == 0 {
			t.Errorf("the first half interned all the second half's strings ahead in %d joins, some in %d", allAhead, someAhead)
		}
		if tails == 0 || lateTails == 0 || ownTails == 0 {
			t.Errorf("the first half adopted the tail the second read %d times, %d of them after the second had gone past the objects, and read it itself %d times",
				tails+lateTails, lateTails, ownTails)
		}
	}()
	for name, data := range splitInputs(t) {
		t.Run(name, func(t *testing.T) {
			want, err := readOneCore(data)
			if err != nil {
				t.Fatal(err)
			}
			var starts []float64
			for range 40 {
				starts = append(starts, rng.Float64())
			}
			// -1: the reader's own guess, which must lead to a join.
			starts = append(starts, 0, 0.5, 0.999, -1)
			joins, inPlace, adoptedAll := 0, 0, uint64(0)
			for _, at := range starts {
				var adopted uint64
				joined, moved := false, false
				// Starts spread over the bytes before DevTools' padding.
				end := int64(len(bytes.TrimRight(data, "\x00")))
				guess := func(objects, _ int64) int64 { return objects + int64(at*float64(end-objects)) }
				if at < 0 {
					guess = nil
				}
				restore := rdart.SetSplit(1, guess, func(n uint64, in bool) { adopted, joined, moved = n, true, in })
				got, err := rdart.Read(bytes.NewReader(data), rdart.Options{})
				restore()
				if err != nil {
					t.Fatalf("start at %.3f: %v", at, err)
				}
				if d := ir.Diff(want, got, 5); len(d) > 0 {
					t.Fatalf("start at %.3f (%d objects adopted): %v", at, adopted, d)
				}
				// In memory, from the same start.
				restore = rdart.SetSplit(1, guess, nil)
				mem, err := rdart.ReadBytes(data, rdart.Options{})
				restore()
				if err != nil {
					t.Fatalf("in memory, start at %.3f: %v", at, err)
				}
				if d := ir.Diff(want, mem, 5); len(d) > 0 {
					t.Fatalf("in memory, start at %.3f: %v", at, d)
				}
				var out bytes.Buffer
				if _, err := wdart.Write(&out, got, wdart.Options{}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), data) {
					t.Fatalf("start at %.3f: written back, the file differs", at)
				}
				if joined {
					joins++
					adoptedAll += adopted
					if moved {
						inPlace++
						moves++
					} else {
						copies++
					}
				} else if at < 0 && want.Snapshots[0].Nodes.Len() > 1000 {
					t.Errorf("the reader's own guess adopted no objects")
				}
			}
			t.Logf("%d of %d split reads adopted objects (%d in all), %d in place", joins, len(starts), adoptedAll, inPlace)
			if n := want.Snapshots[0].Nodes.Len(); n > 1000 && (joins < len(starts)/5 || adoptedAll == 0) {
				t.Errorf("%d of %d split reads adopted objects (%d in all)", joins, len(starts), adoptedAll)
			}
		})
	}
}

// TestSplitReadErrors: a damaged file gives the error a read on one core
// gives, wherever the damage is, read or in memory: the first half decodes
// again whatever the second half stopped at.
func TestSplitReadErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := generated(t, dartgen.Options{Seed: 9, Objects: 12_000})
	defer rdart.SetSplit(1, nil, nil)()
	failed := 0
	for range 60 {
		bad := bytes.Clone(data)
		for range 1 + rng.IntN(3) {
			bad[len(bad)/3+rng.IntN(len(bad)*2/3)] = byte(rng.IntN(256))
		}
		if rng.IntN(4) == 0 {
			bad = bad[:len(bad)/2+rng.IntN(len(bad)/2)]
		}
		_, want := readOneCore(bad)
		_, got := rdart.Read(bytes.NewReader(bad), rdart.Options{})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("split read: %v\none core: %v", got, want)
		}
		if _, got := rdart.ReadBytes(bad, rdart.Options{}); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("split read in memory: %v\none core: %v", got, want)
		}
		if want != nil {
			failed++
		}
	}
	if failed < 20 {
		t.Errorf("only %d of 60 damaged files failed to read", failed)
	}
}

// TestReadBytesKeepsNothing: the file ReadBytes returns shares no bytes
// with its input: spoiling the input afterwards changes nothing.
func TestReadBytesKeepsNothing(t *testing.T) {
	for name, data := range splitInputs(t) {
		want, err := readOneCore(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, splitMin := range []uint64{math.MaxUint64, 1} {
			mem := bytes.Clone(data)
			restore := rdart.SetSplit(splitMin, nil, nil)
			got, err := rdart.ReadBytes(mem, rdart.Options{})
			restore()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for k := range mem {
				mem[k] = 'x'
			}
			if d := ir.Diff(want, got, 5); len(d) > 0 {
				t.Fatalf("%s (split from %d objects): the input spoilt after ReadBytes, the file differs: %v", name, splitMin, d)
			}
		}
	}
}

// TestPaddingErrors: after an export's hash codes, zeros then another
// byte are refused at that byte when fewer than DevTools' chunk of zeros
// come before it, else at the chunk's last zero: the file's order, not
// the reader's buffers', read, a byte at a time, or in memory.
func TestPaddingErrors(t *testing.T) {
	heap := generated(t, dartgen.Options{Seed: 1, Objects: 20_000, Generation: dartgen.GenDevToolsExport})
	f, err := readOneCore(heap)
	if err != nil {
		t.Fatal(err)
	}
	content := heap[:len(heap)-int(dartir.Of(f.Snapshots[0]).Padding)]
	for _, zeros := range []int{dartir.ExportChunk - 1, dartir.ExportChunk, dartir.ExportChunk + 1, 2 << 20} {
		for _, after := range [][]byte{nil, {1}} {
			data := append(append(bytes.Clone(content), make([]byte, zeros)...), after...)
			var want string
			switch {
			case zeros >= dartir.ExportChunk:
				want = fmt.Sprintf("offset %d: %d or more zero bytes", len(content)+dartir.ExportChunk-1, dartir.ExportChunk)
			case after != nil:
				want = fmt.Sprintf("offset %d: byte 0x01 after the identity hash codes", len(content)+zeros)
			}
			reads := map[string]func() error{
				"read": func() error { _, err := readOneCore(data); return err },
				"a byte at a time": func() error {
					_, err := rdart.Read(iotest.OneByteReader(bytes.NewReader(data)), rdart.Options{Size: int64(len(data))})
					return err
				},
				"in memory": func() error { _, err := rdart.ReadBytes(data, rdart.Options{}); return err },
				"in memory, split": func() error {
					defer rdart.SetSplit(1, nil, nil)()
					_, err := rdart.ReadBytes(data, rdart.Options{})
					return err
				},
			}
			for name, read := range reads {
				err := read()
				if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
					t.Errorf("%d zeros, then % x, %s: %v, want %q", zeros, after, name, err, want)
				}
			}
		}
	}
}

// TestReadBytesProgress: ReadBytes tells Progress how far the decoding
// is: rising, the input's length last, and never past where a damaged
// input's error is, on one core and split.
func TestReadBytesProgress(t *testing.T) {
	data := generated(t, dartgen.Options{Seed: 2, Objects: 400_000})
	read := func(data []byte, splitMin uint64) ([]int64, error) {
		defer rdart.SetSplit(splitMin, nil, nil)()
		var calls []int64
		_, err := rdart.ReadBytes(data, rdart.Options{Progress: func(n int64) { calls = append(calls, n) }})
		return calls, err
	}
	damaged := bytes.Clone(data)
	at := 5 << 20
	for ; at < len(data); at++ {
		damaged[at] ^= 0xff
		if _, err := read(damaged, math.MaxUint64); err != nil {
			break
		}
		damaged[at] ^= 0xff
	}
	for _, splitMin := range []uint64{math.MaxUint64, 1} {
		// A split read's first half reports its own half only.
		least := 2
		if splitMin == 1 {
			least = 1
		}
		calls, err := read(data, splitMin)
		if err != nil || len(calls) < least || calls[len(calls)-1] != int64(len(data)) || !slices.IsSorted(calls) {
			t.Errorf("split from %d objects: progress %v, error %v; want rising to %d", splitMin, calls, err, len(data))
		}
		calls, err = read(damaged, splitMin)
		var fe *ir.FormatError
		if !errors.As(err, &fe) || len(calls) < least-1 || len(calls) > 0 && slices.Max(calls) > fe.Offset {
			t.Errorf("split from %d objects, damaged at %d: progress %v, error %v", splitMin, at, calls, err)
		}
	}
}

// TestSplitRoomsHold: with the reader's own guess, both halves keep to
// their rooms, so the join moves the second half within the columns
// rather than copying a half back into them, whatever the identity hash
// codes take: none, the generator's mix of 0 and 32-bit values, or 5
// bytes for every object (the longest; the guess assumes 3.5 on average),
// on a heap of few references an object, where the hash codes are a
// large part of the file.
func TestSplitRoomsHold(t *testing.T) {
	generate := func(g dartgen.Generation) []byte {
		return generated(t, dartgen.Options{Seed: 5, Objects: 200_000, Generation: g})
	}
	withHashes := generate(dartgen.GenVM)
	for name, data := range map[string][]byte{
		"no hash codes":                generate(dartgen.GenVMNoHash),
		"the generator's":              withHashes,
		"5 bytes each, few references": longHashes(t, withHashes),
	} {
		t.Run(name, func(t *testing.T) {
			joined, inPlace := false, false
			defer rdart.SetSplit(1, nil, func(_ uint64, in bool) { joined, inPlace = true, in })()
			if _, err := rdart.ReadBytes(data, rdart.Options{}); err != nil {
				t.Fatal(err)
			}
			if !joined || !inPlace {
				t.Errorf("joined %v, in place %v: want both", joined, inPlace)
			}
		})
	}
}

// longHashes returns data with every object's identity hash code made
// 2^31 or more (5 bytes of LEB128), and every object left with at most
// one reference, so that the hash codes are over a third of the file.
func longHashes(t *testing.T, data []byte) []byte {
	t.Helper()
	return rewritten(t, data, func(s *ir.Snapshot) {
		nd, ed := &s.Nodes, &s.Edges
		var ids ir.Uints
		for i := range nd.Len() {
			ids.Append(1<<31 | uint64(i))
		}
		nd.ID = ids
		// Keep each object's first reference; drop the rest and every
		// reference 0, renumbering the edges.
		d := s.Section(dartir.Format).(*dartir.Snapshot)
		var kinds []uint8
		var names, targets []uint32
		first := []uint32{0}
		for i := range nd.Len() {
			from := nd.FirstEdge[i]
			to := min(nd.FirstEdge[i+1], from+1)
			kinds = append(kinds, ed.Kind[from:to]...)
			names = append(names, ed.Name[from:to]...)
			targets = append(targets, ed.Target[from:to]...)
			first = append(first, uint32(len(targets)))
		}
		ed.Kind, ed.Name, ed.Target, nd.FirstEdge = kinds, names, targets, first
		d.ZeroRefNode, d.ZeroRefSlot = nil, nil
		d.ReferenceCount = uint64(len(targets))
	})
}
