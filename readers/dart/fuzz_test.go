package dart_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// fuzzSeeds returns the shared sample, small files of every generation
// written from random Dart-shaped graphs, and a generated heap big enough
// for a split read to join its halves (256 objects of the second half
// at least), so that the fuzzer reaches the join.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	sample, err := os.ReadFile("testdata/synthetic_vm_layout.dartheap")
	if err != nil {
		tb.Fatal(err)
	}
	out := [][]byte{sample}
	gens := []irtest.Options{
		{MaxNodes: 12, Strings: irtest.AllStrings, Dart: &irtest.DartOptions{Hashes: true, ZeroRefs: true, External: true, Data: true}},
		{MaxNodes: 12, Strings: irtest.AllStrings, Dart: &irtest.DartOptions{OldRoot: true, ZeroRefs: true, Data: true}},
		{MaxNodes: 12, Strings: irtest.AllStrings, Dart: &irtest.DartOptions{Hashes: true, Padding: true}},
		// Enough objects for a split read to join its halves.
		{MinNodes: 700, MaxNodes: 700, Dart: &irtest.DartOptions{Hashes: true, ZeroRefs: true}},
	}
	for seed, o := range gens {
		f := irtest.Random(int64(seed), o)
		var b bytes.Buffer
		if _, err := wdart.Write(&b, f, wdart.Options{}); err != nil {
			tb.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// TestFuzzSeedsRead checks that every seed reads and writes back byte for
// byte, so that the fuzzer starts from valid files, and that a split read
// of the last one joins its halves, as FuzzRead's split reads do.
func TestFuzzSeedsRead(t *testing.T) {
	seeds := fuzzSeeds(t)
	joined := false
	restore := rdart.SetSplit(1, nil, func(uint64, bool) { joined = true })
	_, err := rdart.ReadBytes(seeds[len(seeds)-1], rdart.Options{})
	restore()
	if err != nil || !joined {
		t.Errorf("a split read of the last seed: joined %v, error %v", joined, err)
	}
	for i, b := range seeds {
		f, err := rdart.Read(bytes.NewReader(b), rdart.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		var w bytes.Buffer
		if _, err := wdart.Write(&w, f, wdart.Options{}); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		if !bytes.Equal(w.Bytes(), b) {
			t.Errorf("seed %d: written back, %d bytes differ from the %d read", i, w.Len(), len(b))
		}
	}
}

// FuzzRead: Read never panics or hangs; a split read, and ReadBytes,
// agree with a read on one core; its errors are *ir.FormatError with an offset inside the
// input; whatever it accepts validates, writes, reads back to the same IR,
// and writing that again gives the same bytes (inputs with overlong LEB128
// numbers are written canonically, so the first write need not equal the
// input).
func FuzzRead(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A split read (the second half guessed in the middle) gives the
		// file, or the error, a read on one core gives.
		restore := rdart.SetSplit(1, nil, nil)
		split, splitErr := rdart.Read(bytes.NewReader(data), rdart.Options{Size: int64(len(data))})
		restore()
		one, oneErr := rdart.Read(bytes.NewReader(data), rdart.Options{Size: int64(len(data))})
		if fmt.Sprint(splitErr) != fmt.Sprint(oneErr) {
			t.Fatalf("split read: %v; on one core: %v", splitErr, oneErr)
		}
		if oneErr == nil {
			if d := ir.Diff(one, split, 5); len(d) > 0 {
				t.Fatalf("a split read gives another file:\n%s", strings.Join(d, "\n"))
			}
		}
		// So does reading it in memory, on one core and split.
		for _, splitMin := range []uint64{math.MaxUint64, 1} {
			restore = rdart.SetSplit(splitMin, nil, nil)
			mem, memErr := rdart.ReadBytes(data, rdart.Options{})
			restore()
			if fmt.Sprint(memErr) != fmt.Sprint(oneErr) {
				t.Fatalf("in memory (split from %d objects): %v; read: %v", splitMin, memErr, oneErr)
			}
			if oneErr == nil {
				if d := ir.Diff(one, mem, 5); len(d) > 0 {
					t.Fatalf("in memory (split from %d objects), another file:\n%s", splitMin, strings.Join(d, "\n"))
				}
			}
		}
		// So does decoding every object on the careful path alone.
		restore = rdart.SetCarefulOnly()
		careful, carefulErr := rdart.Read(bytes.NewReader(data), rdart.Options{Size: int64(len(data))})
		restore()
		if fmt.Sprint(carefulErr) != fmt.Sprint(oneErr) {
			t.Fatalf("careful path alone: %v; with the fast loop: %v", carefulErr, oneErr)
		}
		if oneErr == nil {
			if d := ir.Diff(one, careful, 5); len(d) > 0 {
				t.Fatalf("the careful path alone gives another file:\n%s", strings.Join(d, "\n"))
			}
		}
		// Sized, unsized, and a byte at a time (every buffer boundary).
		var first *ir.File
		for mode, size := range []int64{int64(len(data)), 0, 0} {
			var r io.Reader = bytes.NewReader(data)
			if mode == 2 {
				r = iotest.OneByteReader(r)
			}
			file, err := rdart.Read(r, rdart.Options{Size: size})
			if err != nil {
				var fe *ir.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is a %T, not a *ir.FormatError", err, err)
				}
				if fe.Offset < 0 || fe.Offset > int64(len(data)) {
					t.Fatalf("error offset %d outside the %d-byte input: %v", fe.Offset, len(data), err)
				}
				continue
			}
			if err := file.Validate(); err != nil {
				t.Fatalf("Read returned an invalid file: %v", err)
			}
			if first == nil {
				first = file
			} else if d := ir.Diff(first, file, 5); len(d) > 0 {
				t.Fatalf("reading mode %d gives another file:\n%s", mode, strings.Join(d, "\n"))
			}
			var w bytes.Buffer
			if _, err := wdart.Write(&w, file, wdart.Options{}); err != nil {
				t.Fatalf("Write: %v", err)
			}
			back, err := rdart.Read(bytes.NewReader(w.Bytes()), rdart.Options{})
			if err != nil {
				t.Fatalf("reading what Write wrote: %v", err)
			}
			if d := ir.Diff(file, back, 10); len(d) > 0 {
				t.Fatalf("written and read back, the IR differs:\n%s", strings.Join(d, "\n"))
			}
			var again bytes.Buffer
			if _, err := wdart.Write(&again, back, wdart.Options{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), w.Bytes()) {
				t.Fatalf("writing is not a fixed point")
			}
		}
	})
}
