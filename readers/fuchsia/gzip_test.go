package fuchsia_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/klauspost/compress/gzip"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/readers/fuchsia"
)

// Gzipped profiles: what heapconv writes reads back whatever its
// compression ratio, and a gzip bomb is refused early.

// gunzipped is data decompressed, for sizes.
func gunzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(z); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readBack writes f as heapconv convert does (gzipped, one sample per
// object) and reads it again: the nodes must come back.
func readBack(t *testing.T, f *ir.File) (compressed, decompressed int) {
	t.Helper()
	var out bytes.Buffer
	if _, err := heapconv.FormatByName(fuchsiair.Format).Write(&out, f, nil); err != nil {
		t.Fatal(err)
	}
	data := out.Bytes()
	raw := len(gunzipped(t, data))
	t.Logf("%d bytes gzipped, %d decompressed (%.0f times)", len(data), raw, float64(raw)/float64(len(data)))
	g, err := fuchsia.ReadBytes(data, fuchsia.Options{})
	if err != nil {
		t.Fatalf("the profile written does not read back: %v", err)
	}
	if len(g.Snapshots) != len(f.Snapshots) {
		t.Fatalf("%d snapshots read back from %d", len(g.Snapshots), len(f.Snapshots))
	}
	for i, s := range f.Snapshots {
		// Nodes that are no object of the heap (MoarVM's roots) have no sample.
		want := s.Nodes.Len() - len(slices.DeleteFunc(ir.SyntheticNodes(f, s), func(x bool) bool { return !x }))
		if got := g.Snapshots[i].Nodes.Len(); got != want {
			t.Errorf("snapshot %d: %d nodes read back from %d", i, got, want)
		}
		if got, want := g.Snapshots[i].Nodes.SelfSize.Sum(), s.Nodes.SelfSize.Sum(); got != want {
			t.Errorf("snapshot %d: self sizes sum to %d, not %d", i, got, want)
		}
	}
	return len(data), raw
}

// The biggest MoarVM fixture converted to a profile, as `heapconv convert`
// does, reads back.
func TestReadBackConvertedMoarVM(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/moarvm/*.mvmheap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no MoarVM fixtures: %v", err)
	}
	size := func(p string) int64 {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	biggest := slices.MaxFunc(paths, func(a, b string) int { return int(size(a) - size(b)) })
	in, err := os.Open(biggest)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := heapconv.FormatByName(moarvmir.Format).Read(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d snapshots", biggest, len(f.Snapshots))
	readBack(t, f)
}

// A heap of a million alike objects makes a profile that compresses about
// a thousand times (each sample is the one before it): far beyond any
// fixed ratio, and it still reads back.
func TestReadBackHighRatio(t *testing.T) {
	const n = 1 << 20
	f := &ir.File{Format: v8ir.Format, Strings: []string{"", "Thing"}}
	s := &ir.Snapshot{Root: ir.NoNode, NodeKinds: []string{ir.KindObject}, EdgeKinds: []ir.EdgeKind{{Name: "property"}}}
	s.Nodes.Kind = make([]uint8, n)
	s.Nodes.Name = slices.Repeat([]uint32{1}, n)
	s.Nodes.FirstEdge = make([]uint32, n+1)
	for i := 0; i < n; i++ {
		s.Nodes.ID.Append(uint64(2 * i))
		s.Nodes.SelfSize.Append(48)
	}
	f.Snapshots = []*ir.Snapshot{s}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	c, d := readBack(t, f)
	// The bound the reader had: 32 times the compressed size plus 8 MiB.
	if d <= 32*c+8<<20 {
		t.Fatalf("%d bytes decompressed from %d: not beyond the old bound, the test tests nothing", d, c)
	}
}

// bomb is a gzip bomb: the bytes of head, then unit repeated to size
// bytes in all, compressed about 1000 times (klauspost's fastest level
// does about as well as deflate can on such input, in a tenth of the
// time).
func bomb(head, unit []byte, size int) []byte {
	var w bytes.Buffer
	z, _ := gzip.NewWriterLevel(&w, gzip.BestSpeed)
	z.Write(head)
	chunk := bytes.Repeat(unit, (64<<10)/len(unit))
	for n := len(head); n < size; n += len(chunk) {
		z.Write(chunk[:min(len(chunk), size-n)])
	}
	z.Close()
	return w.Bytes()
}

// Gzip bombs that are not profiles are refused within their first bytes:
// an error naming the offset in the decompressed data, and allocation a
// small multiple of the compressed size, nowhere near the decompressed.
func TestGzipBombs(t *testing.T) {
	header := pbHeader()
	sampleType := pbBytes(nil, 1, pbInt(pbInt(nil, 1, 1), 2, 2))
	// 300 KB of valid samples: more than the first pieces checked.
	samples := append(slices.Clone(header), bytes.Repeat(pbBytes(nil, 2, pbBytes(nil, 2, []byte{1, 16})), 50000)...)
	for _, c := range []struct {
		name       string
		head, unit []byte
		size       int
		off        int64 // where the error must be, in the decompressed data
	}{
		{"zeros", nil, []byte{0}, 256 << 20, 0},
		{"header then zeros", header, []byte{0}, 128 << 20, int64(len(header))},
		// A field Profile holds once, time_nanos, again and again.
		{"repeated time_nanos", header, pbInt(nil, 9, 1), 128 << 20, int64(len(header)) + 2},
		// A field that is no field of Profile.
		{"repeated unknown field", header, pbInt(nil, 16, 1), 128 << 20, int64(len(header))},
		// Well-formed locations, but with the reserved id 0.
		{"repeated empty location", header, pbBytes(nil, 4, nil), 128 << 20, int64(len(header)) + 2},
		// A sample with one value where a heapdump profile has two.
		{"repeated one-value sample", header, pbBytes(nil, 2, pbInt(nil, 2, 1)), 128 << 20, int64(len(header)) + 2},
		// A sample claiming 100 MB, holding zeros.
		{"huge sample of zeros", append(slices.Clone(header), 0x12, 0x80, 0x80, 0x80, 0x32), []byte{0}, 100 << 20, int64(len(header)) + 5},
		{"samples then zeros", samples, []byte{0}, 128 << 20, int64(len(samples))},
		// A valid first sample type, then the same field inside a sample
		// type: fields of a sample type are integers.
		{"nested sample types", sampleType, pbBytes(nil, 1, sampleType), 64 << 20, int64(len(sampleType)) + 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := bomb(c.head, c.unit, c.size)
			a, err := allocated(data, fuchsia.Options{})
			t.Logf("%d bytes gzipped (%d decompressed): %d bytes allocated: %v", len(data), c.size, a, err)
			var fe *ir.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *ir.FormatError", err)
			}
			if fe.Offset != c.off || fe.Within != ir.Decompressed {
				t.Errorf("error at offset %d of %q, want %d of %q", fe.Offset, fe.Within, c.off, ir.Decompressed)
			}
			if a > 4*uint64(len(data))+1<<20 {
				t.Errorf("%d bytes allocated for a %d-byte input", a, len(data))
			}
		})
	}
}

// What passes the check as it arrives (here a string of 32 MiB of zero
// bytes: strings hold anything) costs what its bytes do, no more: the
// buffer grows with the bytes decompressed, whatever the gzip trailer
// says, and MaxUncompressed still bounds it when set.
func TestGzipWellFormedBomb(t *testing.T) {
	head := pbBytes(nil, 6, nil)
	head = append(head, 0x32, 0x80, 0x80, 0x80, 0x10) // a string of 32 MiB
	size := len(head) + 0x10<<21
	data := bomb(head, []byte{0}, size)
	a, err := allocated(data, fuchsia.Options{})
	t.Logf("%d bytes gzipped (%d decompressed): %d bytes allocated: %v", len(data), size, a, err)
	if err == nil {
		t.Fatal("a profile of one string read")
	}
	if a > 2*uint64(size)+1<<20 {
		t.Errorf("%d bytes allocated for %d decompressed", a, size)
	}
	const limit = 1 << 20
	a, err = allocated(data, fuchsia.Options{MaxUncompressed: limit})
	var fe *ir.FormatError
	if !errors.As(err, &fe) || fe.Within != "" || fe.Offset <= 0 || fe.Offset > int64(len(data)) {
		t.Errorf("with MaxUncompressed: got %v, want an error at an offset of the gzip file", err)
	}
	if a > 4*limit {
		t.Errorf("with MaxUncompressed %d: %d bytes allocated", limit, a)
	}
}

// Errors about the profile inside the gzip name offsets in the
// decompressed data; those of a profile as it is, offsets in the file.
func TestGzipErrorOffsets(t *testing.T) {
	b := pbBytes(pbBytes(pbHeader(), 4, pbInt(nil, 1, 7)), 4, pbInt(nil, 1, 7))
	second := int64(len(b) - 2) // the second location's payload
	for _, c := range []struct {
		name   string
		data   []byte
		within string
	}{{"plain", b, ""}, {"gzipped", gzipped(b), ir.Decompressed}} {
		_, err := fuchsia.ReadBytes(c.data, fuchsia.Options{})
		var fe *ir.FormatError
		if !errors.As(err, &fe) || fe.Offset != second || fe.Within != c.within {
			t.Errorf("%s: got %#v, want offset %d within %q", c.name, err, second, c.within)
		}
	}
}

// The decoder refuses what the check as it arrives does, so that a profile
// reads the same gzipped or not.
func TestPlainSameRules(t *testing.T) {
	// A profile of one sample, which reads, plain and gzipped.
	h := pbBytes(pbHeader(), 2, pbBytes(nil, 2, []byte{1, 16}))
	for _, data := range [][]byte{h, gzipped(h)} {
		if _, err := fuchsia.ReadBytes(data, fuchsia.Options{}); err != nil {
			t.Fatalf("gzip %v: %v", fuchsia.IsGzip(data), err)
		}
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"unknown field", pbInt(slices.Clone(h), 16, 1)},
		{"time_nanos twice", pbInt(pbInt(slices.Clone(h), 9, 1), 9, 2)},
		{"period_type twice", pbBytes(pbBytes(slices.Clone(h), 11, nil), 11, nil)},
	} {
		for _, data := range [][]byte{c.data, gzipped(c.data)} {
			if _, err := fuchsia.ReadBytes(data, fuchsia.Options{}); err == nil {
				t.Errorf("%s (gzip %v): read", c.name, fuchsia.IsGzip(data))
			}
		}
	}
}
