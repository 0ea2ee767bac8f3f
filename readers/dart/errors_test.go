package dart_test

import (
	"bytes"
	"encoding/binary"
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
)

func readSample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/synthetic_vm_layout.dartheap")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Offsets in the sample (see synthetic_expected.json and xxd).
const (
	offRefCount   = 0x125 // header referenceCount (10)
	offObj1Class  = 0x127 // object 1: class 1
	offObj1Tag    = 0x129 // object 1: data tag 0
	offObj1Ref0   = 0x12b // object 1: first reference (4)
	offHashes     = 0x1a4 // the identity hash codes start here
	sampleObjects = 10
)

// TestReadErrors mutates the sample: each error names the offending byte's
// offset, in every reading mode.
func TestReadErrors(t *testing.T) {
	sample := readSample(t)
	for _, c := range []struct{ off, want int }{{offRefCount, 10}, {offObj1Class, 1}, {offObj1Tag, 0}, {offObj1Ref0, 4}} {
		if int(sample[c.off]) != c.want {
			t.Fatalf("sample byte at %#x is %d, the test expects %d", c.off, sample[c.off], c.want)
		}
	}
	set := func(off int, b ...byte) []byte {
		out := bytes.Clone(sample)
		copy(out[off:], b)
		return out
	}
	tests := []struct {
		name string
		in   []byte
		off  int64
		want string
	}{
		{"bad magic", append([]byte("dartheaq"), sample[8:]...), 0, "not a Dart heap snapshot"},
		{"unknown data tag", set(offObj1Tag, 9), offObj1Tag, "unknown data tag 9"},
		{"class beyond the table", set(offObj1Class, 10), offObj1Class, "class 10, but there are 9 classes"},
		{"reference beyond the objects", set(offObj1Ref0, sampleObjects+1), offObj1Ref0, "reference to object 11"},
		{"referenceCount too small", set(offRefCount, 5), offRefCount, "referenceCount is 5"},
		{"data after the hashes", append(bytes.Clone(sample), 0, 0, 7), int64(len(sample) + 2), "byte 0x07 after the identity hash codes"},
		{"LEB128 past 64 bits", set(offObj1Class, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), offObj1Class, "does not fit in 64 bits"},
		{"huge class count", set(20, 0xff, 0xff, 0xff, 0xff, 0x0f), 20, "cannot hold that many"},
	}
	modes := []struct {
		name string
		read func([]byte) (*ir.File, error)
	}{
		{"sized", func(b []byte) (*ir.File, error) { return rdart.Read(bytes.NewReader(b), rdart.Options{}) }},
		{"byte by byte", func(b []byte) (*ir.File, error) {
			return rdart.Read(iotest.OneByteReader(bytes.NewReader(b)), rdart.Options{})
		}},
	}
	for _, tc := range tests {
		for _, m := range modes {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				if tc.name == "huge class count" && m.name == "byte by byte" {
					// Without a size the count is believed; the classes
					// then run out of bytes, which is also an error.
					_, err := m.read(tc.in)
					if err == nil {
						t.Fatal("read succeeded")
					}
					return
				}
				_, err := m.read(tc.in)
				var fe *ir.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v (%T), want a *ir.FormatError", err, err)
				}
				if fe.Offset != tc.off || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %q at offset %d, want %q at %d", err, fe.Offset, tc.want, tc.off)
				}
			})
		}
	}
}

// TestReadTruncated cuts the sample at every length: each cut is an error
// that says where the bytes ran out, except the cut right before the
// identity hash codes, which is a complete file of the pre-2021 layout.
func TestReadTruncated(t *testing.T) {
	sample := readSample(t)
	for cut := 0; cut < len(sample); cut++ {
		f, err := rdart.Read(bytes.NewReader(sample[:cut]), rdart.Options{})
		if cut == offHashes {
			if err != nil {
				t.Fatalf("cut at the hashes: %v", err)
			}
			if dartir.Of(f.Snapshots[0]).IdentityHashes || !strings.Contains(f.FormatVersion, "without identity hash codes") {
				t.Errorf("cut at the hashes: read as %q", f.FormatVersion)
			}
			continue
		}
		var fe *ir.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("cut at %d: error %v, want a *ir.FormatError", cut, err)
		}
		if fe.Offset > int64(cut) {
			t.Errorf("cut at %d: offset %d beyond the input: %v", cut, fe.Offset, err)
		}
		if !strings.Contains(err.Error(), "end of file") && !strings.Contains(err.Error(), "left") && !strings.Contains(err.Error(), "not a Dart") {
			t.Errorf("cut at %d: %v does not say the input ended", cut, err)
		}
	}
}

// failingReader delivers data, then fails with err instead of io.EOF.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadTail covers the end of a file: a read error where the identity
// hash codes would start is an error (not a file without them), and zero
// padding is accepted only below DevTools' chunk size.
func TestReadTail(t *testing.T) {
	sample := readSample(t)
	broken := errors.New("disk I/O error")
	_, err := rdart.Read(&failingReader{data: bytes.Clone(sample[:offHashes]), err: broken}, rdart.Options{})
	if !errors.Is(err, broken) {
		t.Errorf("a read error before the hashes gave %v, want the read error", err)
	}
	pad := func(n int) []byte { return append(bytes.Clone(sample), make([]byte, n)...) }
	f, err := rdart.Read(bytes.NewReader(pad(dartir.ExportChunk-1)), rdart.Options{})
	if err != nil || dartir.Of(f.Snapshots[0]).Padding != dartir.ExportChunk-1 {
		t.Fatalf("the largest padding DevTools writes: %v", err)
	}
	_, err = rdart.Read(bytes.NewReader(pad(dartir.ExportChunk)), rdart.Options{})
	var fe *ir.FormatError
	if !errors.As(err, &fe) || fe.Offset != int64(len(sample)+dartir.ExportChunk-1) {
		t.Errorf("a chunk of padding: %v, want an error at offset %d", err, len(sample)+dartir.ExportChunk-1)
	}
}

// TestSparseFieldIndices gives a class field indices far beyond its field
// count: slots are still named by the first field listed for them, and the
// others are elements.
func TestSparseFieldIndices(t *testing.T) {
	// Foo (class 9) has fields a, b, c, d at 0..3 (each flags 1, index,
	// name, empty reserved string); its object (node 4) references slots
	// 0, 2 and 3 (slot 1 is an unboxed 0). b and d move to index 1000: a
	// file has no offsets to mend.
	data := readSample(t)
	for _, field := range []string{"\x01\x01\x01b\x00", "\x01\x03\x01d\x00"} {
		i := bytes.Index(data, []byte(field))
		if i < 0 {
			t.Fatalf("no field %q in the sample", field)
		}
		data = slices.Concat(data[:i+1], dartir.AppendULEB(nil, 1000), data[i+2:])
	}
	f, err := rdart.Read(bytes.NewReader(data), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Snapshots[0]
	if got := dartir.Of(s).FieldIndex.At(int(f.Classes.FirstField[8]) + 3); got != 1000 {
		t.Fatalf("d's index %d, want 1000", got)
	}
	lo, hi := s.Nodes.EdgeRange(4)
	var got []string
	for e := lo; e < hi; e++ {
		got = append(got, s.EdgeKindOf(e).Name+":"+f.EdgeName(s, e))
	}
	if want := "property:a property:c element:3"; strings.Join(got, " ") != want {
		t.Errorf("Foo's edges %q, want %q", strings.Join(got, " "), want)
	}
}

// TestFastLoopMatchesCareful: the fast object loop gives the file, or the
// error, that decoding every object on the careful path gives, for intact
// and damaged files, and inputs longer than their declared size: it leaves
// every object it cannot take whole to that path, which words the error.
func TestFastLoopMatchesCareful(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	inputs := [][]byte{generated(t, dartgen.Options{Seed: 4, Objects: 12_000}), readSample(t)}
	for range 300 {
		bad := bytes.Clone(inputs[rng.IntN(2)])
		for range 1 + rng.IntN(3) {
			bad[rng.IntN(len(bad))] = byte(rng.IntN(256))
		}
		if rng.IntN(4) == 0 {
			bad = bad[:rng.IntN(len(bad))]
		}
		inputs = append(inputs, bad)
	}
	defer rdart.SetSplit(math.MaxUint64, nil, nil)()
	failed := 0
	for k, data := range inputs {
		// Some reads are told the input is shorter than it is (a file
		// that grew after it was opened): the bytes buffered past that
		// size must not let the fast loop take what the careful path
		// refuses.
		opts := rdart.Options{Size: int64(len(data))}
		if k%2 == 1 {
			opts.Size = int64(len(data)/4 + rng.IntN(len(data)*3/4+1))
		}
		got, gotErr := rdart.Read(bytes.NewReader(data), opts)
		restore := rdart.SetCarefulOnly()
		want, wantErr := rdart.Read(bytes.NewReader(data), opts)
		restore()
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("input %d (size %d of %d): fast loop: %v\ncareful path: %v", k, opts.Size, len(data), gotErr, wantErr)
		}
		if wantErr != nil {
			failed++
			continue
		}
		if d := ir.Diff(want, got, 5); len(d) > 0 {
			t.Fatalf("input %d: %v", k, d)
		}
	}
	if failed < 100 {
		t.Errorf("only %d of %d inputs failed to read", failed, len(inputs))
	}
	// A file bigger than the reader's buffer, declared shorter than it is:
	// the buffer then holds bytes past the declared end.
	big := generated(t, dartgen.Options{Seed: 5, Objects: 120_000})
	for k := range 20 {
		compareFastCareful(t, big, rdart.Options{Size: int64(len(big)/2 + k*len(big)/40)})
	}
}

// compareFastCareful fails t when reading data with opts gives another
// error with the fast loop than on the careful path alone.
func compareFastCareful(t *testing.T, data []byte, opts rdart.Options) {
	t.Helper()
	_, fast := rdart.Read(bytes.NewReader(data), opts)
	restore := rdart.SetCarefulOnly()
	_, careful := rdart.Read(bytes.NewReader(data), opts)
	restore()
	if fmt.Sprint(fast) != fmt.Sprint(careful) {
		t.Fatalf("size %d of %d: fast loop: %v\ncareful path: %v", opts.Size, len(data), fast, careful)
	}
}

// TestStringPastDeclaredSize: a string that runs past the input's declared
// size is refused, with the careful path's error, even though the reader
// has its bytes (a file that grew after it was opened).
func TestStringPastDeclaredSize(t *testing.T) {
	var b []byte
	u := func(v uint64) { b = binary.AppendUvarint(b, v) } // LEB128
	s := func(x string) { u(uint64(len(x))); b = append(b, x...) }
	b = append(b, dartir.Magic...)
	u(0)      // flags
	s("main") // name
	for range dartir.HeaderTotals {
		u(0)
	}
	u(1)     // one class
	u(0)     // its flags
	s("A")   // name
	s("lib") // library
	s("uri") // library URI
	s("")    // reserved
	u(0)     // no fields
	u(0)     // referenceCount
	u(1)     // one object
	u(1)     // its class
	u(16)    // its size
	u(dartir.Latin1Data)
	u(10) // the string's length
	u(10) // and the code units stored
	strAt := len(b)
	b = append(b, "abcdefghij"...)
	u(0) // no references
	u(0) // no external properties
	for size := strAt; size < strAt+10; size++ {
		for _, careful := range []bool{false, true} {
			restore := func() {}
			if careful {
				restore = rdart.SetCarefulOnly()
			}
			_, err := rdart.Read(bytes.NewReader(b), rdart.Options{Size: int64(size)})
			restore()
			if err == nil || !strings.Contains(err.Error(), "string stores 10 code units, more than the bytes left") {
				t.Errorf("declared size %d of %d (careful path alone: %v): %v", size, len(b), careful, err)
			}
		}
	}
}
