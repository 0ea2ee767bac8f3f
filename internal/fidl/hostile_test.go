package fidl

// Hostile inputs for the container reader, the wire decoder and the
// receive rules: every input gives an error naming a byte offset (never a
// panic or a hang), and costs at most a small multiple of its size plus a
// fixed floor. The bound used is FuzzReadStream's: 32 × the input + 1 MiB.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heapconv/heapconv/ir"
)

// hAlloc returns the bytes f allocates.
func hAlloc(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// hBound is the allocation an input of n bytes may cost.
func hBound(n int) uint64 { return 32*uint64(n) + 1<<20 }

// hFile writes s as a container file.
func hFile(t testing.TB, s *Stream) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hFormatError checks that err is an *ir.FormatError whose offset lies in
// [lo, hi], and returns it.
func hFormatError(t testing.TB, what string, err error, lo, hi int64) *ir.FormatError {
	t.Helper()
	var fe *ir.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: error %v (%T) is not an *ir.FormatError", what, err, err)
	}
	if fe.Offset < lo || fe.Offset > hi {
		t.Fatalf("%s: error offset %d, want in [%d, %d]: %v", what, fe.Offset, lo, hi, err)
	}
	return fe
}

// hOneElement is a single-process file of one element: the record header
// is at offset 24, the persisted element at 32.
func hOneElement(t testing.TB, e *Element) []byte {
	s := NewStream(false)
	s.Append(e)
	s.EndBatch()
	return hFile(t, s)
}

// Holds: huge declared lengths — a record length, a vector or string
// count, a table's envelope count, an unknown field's num_bytes — are
// refused before anything is allocated for them, with the offset of the
// length, whether the input size is known or not.
func TestHostileHugeLengths(t *testing.T) {
	st := Element{Kind: KindStackTrace, StackTrace: StackTrace{Present: 3, Key: 7, ProgramAddresses: []uint64{0x1234}}}
	th := Element{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Present: 7, Key: 1, Koid: 2, Name: "worker"}}
	unk := Element{Kind: KindStackTrace, StackTrace: StackTrace{Present: 3, Key: 7,
		Unknown: []RawField{{Ordinal: 3, Bytes: []byte("12345678")}}}}
	// Persisted StackTrace layout (file offsets = 32 + these): 24 table
	// envelope count, 40 and 48 the envelopes, 56 the key, 64 the vector
	// count. ThreadInfo: 24 count, 40/48/56 envelopes, 64 key, 72 koid, 80
	// the name's length. unk: 56 the unknown field's envelope.
	cases := []struct {
		name string
		e    *Element
		at   int // offset in the file of the u32/u64 patched
		v    uint64
		u32  bool
	}{
		{"record length", &st, 28, 0xfffffff8, true},
		{"vector count over the bytes left", &st, 32 + 64, 1<<32 - 1, false},
		{"vector count over its bound", &st, 32 + 64, 1 << 60, false},
		{"string length over its bound", &th, 32 + 80, 1 << 31, false},
		{"string length at its bound, over the bytes left", &th, 32 + 80, 32, false},
		{"table envelope count over 2^32", &st, 32 + 24, 1 << 40, false},
		{"table envelope count over the bytes left", &st, 32 + 24, 1<<32 - 1, false},
		{"unknown field num_bytes", &unk, 32 + 56, 0xfffffff8, true},
	}
	for _, c := range cases {
		data := hOneElement(t, c.e)
		if c.u32 {
			binary.LittleEndian.PutUint32(data[c.at:], uint32(c.v))
		} else {
			binary.LittleEndian.PutUint64(data[c.at:], c.v)
		}
		for _, sized := range []bool{true, false} {
			var r = iotest.OneByteReader(bytes.NewReader(data)) // no Len: size unknown
			if sized {
				r = bytes.NewReader(data)
			}
			var err error
			n := hAlloc(func() { _, err = ReadStream(r, 0) })
			if err == nil {
				t.Fatalf("%s (sized %v): accepted", c.name, sized)
			}
			hFormatError(t, c.name, err, 24, int64(len(data)))
			if n > hBound(len(data)) {
				t.Errorf("%s (sized %v): %d bytes allocated for a %d-byte input", c.name, sized, n, len(data))
			}
		}
	}
}

// Regression: a table with many unknown fields (envelopes up to ordinal
// 2^32-1 were accepted) cost about 36 × its size in ReadStream, each 8-byte
// inline envelope becoming a 40-byte RawField plus its Bytes. Tables of
// more than 64 envelopes (FIDL's limit) are now refused at their count.
func TestHostileManyUnknownFieldsAllocation(t *testing.T) {
	data := rawStackTraceTable(200000)
	var err error
	n := hAlloc(func() { _, err = ReadStream(bytes.NewReader(data), 0) })
	// Tables of over 64 envelopes are refused, at the envelope count.
	hFormatError(t, "200000 unknown fields", err, HeaderSize+RecordHeaderSize+24, HeaderSize+RecordHeaderSize+24)
	if n > hBound(len(data)) {
		t.Errorf("a %d-byte stream of one element with 200000 unknown inline fields allocated %d bytes (%.1f×)", len(data), n, float64(n)/float64(len(data)))
	}
	// 64 envelopes is a table's limit, and reads.
	if _, err := ReadStream(bytes.NewReader(rawStackTraceTable(64)), 0); err != nil {
		t.Errorf("64 envelopes: %v", err)
	}
}

// rawStackTraceTable is a single-process container of one StackTrace
// element whose table has m envelopes, the last an inline unknown field
// (the encoder refuses to make it), then the empty batch ending the stream.
func rawStackTraceTable(m int) []byte {
	le := binary.LittleEndian
	el := []byte{0, 1, 2, 0, 0, 0, 0, 0}      // persist metadata
	el = le.AppendUint64(el, 2)               // union ordinal: StackTrace
	el = le.AppendUint32(el, uint32(16+8*m))  // envelope num_bytes
	el = append(el, 0, 0, 0, 0)               // handles, flags: out of line
	el = le.AppendUint64(el, uint64(m))       // table: envelope count
	el = le.AppendUint64(el, ^uint64(0))      // present
	el = append(el, make([]byte, 8*(m-1))...) // absent fields
	el = append(el, 9, 9, 9, 9, 0, 0, 1, 0)   // inline unknown field m
	out := append([]byte("heapdump-fidl\x00v1"), make([]byte, 8)...)
	out = append(out, 1, 0, 0, 0)
	out = le.AppendUint32(out, uint32(len(el)))
	out = append(out, el...)
	out = append(out, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0)
	return out
}

// Holds: many end-of-batch records (each one an empty batch) cost a small
// multiple of their size; in a single-process stream the records after the
// first empty batch are RecordsAfterEnd at the offset of the second.
func TestHostileManyEmptyBatches(t *testing.T) {
	for _, multi := range []bool{false, true} {
		s := NewStream(multi)
		for i := 0; i < 1<<16; i++ {
			s.EndBatch()
		}
		data := hFile(t, s)
		var st *Stream
		var err error
		if n := hAlloc(func() { st, err = ReadStream(bytes.NewReader(data), 0) }); n > hBound(len(data)) {
			t.Errorf("%d empty batches (%d bytes) allocated %d bytes", 1<<16, len(data), n)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Reassemble()
		var re *ReceiveError
		if !errors.As(err, &re) || re.Kind != RecordsAfterEnd {
			t.Fatalf("multi %v: %v", multi, err)
		}
		hFormatError(t, "records after the end", err, HeaderSize+RecordHeaderSize, HeaderSize+RecordHeaderSize)
	}
}

// hChunked is a single-process stream of one block sent in n 1-byte
// contents chunks (or, stack, one stack trace in n 1-address chunks).
func hChunked(t testing.TB, n int, stack bool) []byte {
	s := NewStream(false)
	var e Element
	if stack {
		for i := 0; i < n; i++ {
			e = Element{Kind: KindStackTrace, StackTrace: StackTrace{Present: 3, Key: 9, ProgramAddresses: []uint64{uint64(i)}}}
			s.Append(&e)
		}
		e = Element{Kind: KindAllocation, Allocation: Allocation{Present: 7, Address: 0x1000, Size: 1, StackTraceKey: 9}}
		s.Append(&e)
	} else {
		e = Element{Kind: KindStackTrace, StackTrace: StackTrace{Present: 3, Key: 9}}
		s.Append(&e)
		e = Element{Kind: KindAllocation, Allocation: Allocation{Present: 7, Address: 0x1000, Size: uint64(n), StackTraceKey: 9}}
		s.Append(&e)
		for i := 0; i < n; i++ {
			e = Element{Kind: KindBlockContents, BlockContents: BlockContents{Present: 3, Address: 0x1000, Contents: []byte{byte(i)}}}
			s.Append(&e)
		}
	}
	s.EndBatch()
	s.EndBatch()
	return hFile(t, s)
}

// Holds: a block or a stack trace sent in many tiny chunks is joined in
// linear time and memory (no quadratic re-copying), and within the bound.
func TestHostileTinyChunksLinear(t *testing.T) {
	for _, stack := range []bool{false, true} {
		var cost [2]uint64
		for k, n := range []int{5000, 20000} {
			data := hChunked(t, n, stack)
			var snaps []Snapshot
			var err error
			cost[k] = hAlloc(func() {
				var st *Stream
				if st, err = ReadStream(bytes.NewReader(data), 0); err == nil {
					snaps, err = st.Reassemble()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if stack && len(snaps[0].StackTraces[9]) != n || !stack && len(snaps[0].Contents[0x1000]) != n {
				t.Fatalf("stack %v: chunks not joined", stack)
			}
			if cost[k] > hBound(len(data)) {
				t.Errorf("stack %v, %d chunks (%d bytes): allocated %d", stack, n, len(data), cost[k])
			}
		}
		// 4 × the chunks: about 4 × the cost, not 16 ×.
		if cost[1] > 6*cost[0] {
			t.Errorf("stack %v: 4 × the chunks cost %d bytes against %d: superlinear", stack, cost[1], cost[0])
		}
	}
}

// Holds: every prefix of a small stream with every element kind, read with
// and without a known size, is an error naming an offset within the
// prefix, or a stream of whole batches whose reassembly fails with an
// offset (a snapshot cannot end early).
func TestHostileTruncatedEverywhere(t *testing.T) {
	procs := Synthetic(5, SyntheticOptions{Processes: 2, Allocations: 3, StackTraces: 2, Threads: 1, Modules: 1,
		Contents: true, MaxBlockSize: 40, MaxStackDepth: 40})
	s, err := Emit(procs, true)
	if err != nil {
		t.Fatal(err)
	}
	data := hFile(t, s)
	for cut := 0; cut < len(data); cut++ {
		for _, sized := range []bool{true, false} {
			var r = iotest.HalfReader(bytes.NewReader(data[:cut]))
			if sized {
				r = bytes.NewReader(data[:cut])
			}
			st, err := ReadStream(r, 0)
			if err == nil {
				_, err = st.Reassemble()
				if err == nil {
					t.Fatalf("cut at %d (sized %v): reassembled", cut, sized)
				}
			}
			hFormatError(t, "cut", err, 0, int64(cut))
		}
	}
}

// Holds: unknown SnapshotElement variants (any ordinal above 6, inline or
// out of line) and unknown table fields (up to ordinal 64) are kept and
// written back byte for byte; the receive rules refuse an unknown variant
// inside a snapshot (UnexpectedElementType) or where a header batch is due
// (HeaderExpected), at the offset of its record.
func TestHostileUnknownVariantsAndOrdinals(t *testing.T) {
	elems := []Element{
		{Kind: KindUnknown, Unknown: RawField{Ordinal: 1<<64 - 1, Inline: true, Bytes: []byte{1, 2, 3, 4}}},
		{Kind: KindUnknown, Unknown: RawField{Ordinal: 7, Bytes: bytes.Repeat([]byte{0xee}, 64)}},
		{Kind: KindBlockContents, BlockContents: BlockContents{Present: 3, Address: 1,
			Unknown: []RawField{{Ordinal: 3, Inline: true, Bytes: []byte{0, 0, 0, 0}}, {Ordinal: 64, Bytes: make([]byte, 8)}}}},
	}
	for i := range elems {
		data := hOneElement(t, &elems[i])
		st, err := ReadStream(bytes.NewReader(data), 0)
		if err != nil {
			t.Fatalf("element %d: %v", i, err)
		}
		if out := hFile(t, st); !bytes.Equal(out, data) {
			t.Fatalf("element %d: written back differently", i)
		}
		_, err = st.Reassemble()
		if i == 2 {
			if err == nil || !strings.Contains(err.Error(), "final empty batch") {
				t.Fatalf("element %d: %v", i, err)
			}
			continue
		}
		var re *ReceiveError
		if !errors.As(err, &re) || re.Kind != UnexpectedElementType {
			t.Fatalf("element %d: %v", i, err)
		}
		hFormatError(t, "unknown variant", err, HeaderSize, HeaderSize)
		// Multi-process: where the header batch is due.
		binary.LittleEndian.PutUint32(data[16:], FlagMultiProcess)
		if st, err = ReadStream(bytes.NewReader(data), 0); err != nil {
			t.Fatal(err)
		}
		if _, err = st.Reassemble(); !errors.As(err, &re) || re.Kind != HeaderExpected {
			t.Fatalf("element %d, multi-process: %v", i, err)
		}
		hFormatError(t, "unknown variant", err, HeaderSize, HeaderSize)
	}
}

// Holds: records after the collector error record, a collector error
// inside a batch, and reserved bits anywhere are errors at their offset.
func TestHostileRecordsAfterCollectorError(t *testing.T) {
	s := NewStream(false)
	s.EndBatch()
	s.ReportError(3)
	base := hFile(t, s)
	for _, tail := range [][]byte{
		{recEndOfBatch, 0, 0, 0, 0, 0, 0, 0},
		{recCollectorError, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0},
		{recElement, 0, 0, 0, 0xf8, 0xff, 0xff, 0xff},
	} {
		data := append(append([]byte(nil), base...), tail...)
		_, err := ReadStream(iotest.OneByteReader(bytes.NewReader(data)), 0)
		if err == nil {
			t.Fatalf("tail %x accepted", tail)
		}
		hFormatError(t, "after the collector error", err, int64(len(base)), int64(len(base)))
	}
}

// Holds: without a known size, an element bigger than the read buffer
// (a 300 KB contents chunk) is read in growing steps and decodes to the
// same stream as with the size.
func TestHostileUnsizedBigElement(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16)
	s := NewStream(false)
	e := Element{Kind: KindBlockContents, BlockContents: BlockContents{Present: 3, Address: 0x10, Contents: big}}
	s.Append(&e)
	s.Append(&e)
	s.EndBatch()
	data := hFile(t, s)
	for _, r := range []io.Reader{iotest.HalfReader(bytes.NewReader(data)), iotest.DataErrReader(iotest.OneByteReader(bytes.NewReader(data)))} {
		st, err := ReadStream(r, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.BlockContents) != 2 || !bytes.Equal(st.BlockContents[1].Contents, big) || !bytes.Equal(hFile(t, st), data) {
			t.Fatal("read without a size, the stream differs")
		}
	}
}

// zeroReader breaks io.Reader's contract: no bytes and no error, forever.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// A reader that makes no progress is an error, not a hang.
func TestHostileNoProgressReader(t *testing.T) {
	_, err := ReadStream(zeroReader{}, 0)
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
	data := rawStackTraceTable(3)
	_, err = ReadStream(io.MultiReader(bytes.NewReader(data[:40]), zeroReader{}), 0)
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("after 40 bytes: err = %v, want io.ErrNoProgress", err)
	}
}
