package fidl

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heapconv/heapconv/ir"
)

// smallStream is a multi-process stream with every kind of element and a
// chunked trace and block.
func smallStream(t testing.TB) *Stream {
	t.Helper()
	procs := Synthetic(7, SyntheticOptions{Processes: 2, Allocations: 3, StackTraces: 2, Threads: 1, Modules: 1, Contents: true, MaxBlockSize: 40})
	procs[0].StackTraces[0].ProgramAddresses = append(procs[0].StackTraces[0].ProgramAddresses, make([]uint64, 40)...)
	s, err := Emit(procs, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func streamBytes(t testing.TB, s *Stream) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := s.WriteTo(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(b.Len()) || n != s.Size() {
		t.Fatalf("WriteTo reported %d, wrote %d, Size %d", n, b.Len(), s.Size())
	}
	return b.Bytes()
}

func TestMagicIsDistinct(t *testing.T) {
	if len(Magic) != 16 {
		t.Fatalf("magic has %d bytes", len(Magic))
	}
	others := [][]byte{{0x1f, 0x8b}, []byte("dartheap"), []byte("MoarHeapDumpv"), []byte("{"),
		{0x92, 0xa6, 'h', 'e', 'a', 'p', 'i', 'r'}, {0x28, 0xb5, 0x2f, 0xfd}, {0x0a}, {0x12}}
	for _, o := range others {
		if bytes.HasPrefix([]byte(Magic), o) || bytes.HasPrefix(o, []byte(Magic)) {
			t.Errorf("magic collides with %x", o)
		}
	}
}

func TestStreamRoundTrip(t *testing.T) {
	s := smallStream(t)
	b := streamBytes(t, s)
	for _, r := range []io.Reader{bytes.NewReader(b), iotest.OneByteReader(bytes.NewReader(b)), iotest.HalfReader(bytes.NewReader(b))} {
		got, err := ReadStream(r, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !equalRecords(got, s) {
			t.Fatalf("records differ")
		}
		if b2 := streamBytes(t, got); !bytes.Equal(b, b2) {
			t.Fatalf("rewritten stream differs")
		}
	}
}

func equalRecords(a, b *Stream) bool {
	if a.MultiProcess != b.MultiProcess || len(a.Records) != len(b.Records) {
		return false
	}
	var ea, eb Element
	for i := range a.Records {
		ra, rb := a.Records[i], b.Records[i]
		if ra != rb {
			return false
		}
		if ra.Kind == KindEndOfBatch || ra.Kind == KindCollectorError {
			continue
		}
		a.Element(i, &ea)
		b.Element(i, &eb)
		if !bytes.Equal(mustPersistNoT(&ea), mustPersistNoT(&eb)) {
			return false
		}
	}
	return true
}

func mustPersistNoT(e *Element) []byte {
	b, err := Persist(e)
	if err != nil {
		panic(err)
	}
	return b
}

func TestReaderRecords(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, false)
	if err != nil {
		t.Fatal(err)
	}
	st := stackTraceElement()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteElement(&st))
	must(w.EndBatch())
	must(w.EndBatch())
	must(w.WriteCollectorError(4))
	if err := w.WriteElement(&st); err == nil {
		t.Error("write after the collector error")
	}
	must(w.Close())
	b := buf.Bytes()
	want := "heapdump-fidl\x00v1" + "\x00\x00\x00\x00\x00\x00\x00\x00" +
		"\x01\x00\x00\x00\x60\x00\x00\x00" + string(unhex(t, stackTraceVector)) +
		"\x02\x00\x00\x00\x00\x00\x00\x00" + "\x02\x00\x00\x00\x00\x00\x00\x00" +
		"\x03\x00\x00\x00\x04\x00\x00\x00\x04\x00\x00\x00"
	if string(b) != want {
		t.Fatalf("wrote\n%x\nwant\n%x", b, want)
	}
	r, err := NewReader(bytes.NewReader(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	var e Element
	wantRecs := []Record{
		{Kind: KindStackTrace, Offset: 24, Size: 104},
		{Kind: KindEndOfBatch, Offset: 128, Size: 8},
		{Kind: KindEndOfBatch, Offset: 136, Size: 8},
		{Kind: KindCollectorError, Offset: 144, Size: 12, Code: 4},
	}
	for i, wr := range wantRecs {
		rec, err := r.Next(&e)
		if err != nil || rec != wr {
			t.Fatalf("record %d: %+v, %v; want %+v", i, rec, err, wr)
		}
	}
	if _, err := r.Next(&e); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
	if r.MultiProcess() {
		t.Error("multi-process")
	}
}

func TestWriterRejects(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, true)
	st := stackTraceElement()
	if err := w.WriteElement(&st); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteCollectorError(1); err == nil {
		t.Error("collector error inside a batch")
	}
	if err := w.Close(); err == nil {
		t.Error("Close with an open batch")
	}
	bad := Element{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Present: 4, Name: "\xff"}}
	if err := w.WriteElement(&bad); err == nil {
		t.Error("invalid element written")
	}
}

// TestReaderErrors: each malformed container is rejected at the right
// offset.
func TestReaderErrors(t *testing.T) {
	hdr := Magic + "\x00\x00\x00\x00\x00\x00\x00\x00"
	el := string(unhex(t, stackTraceVector))
	rec := "\x01\x00\x00\x00\x60\x00\x00\x00" + el
	end := "\x02\x00\x00\x00\x00\x00\x00\x00"
	cases := []struct {
		name string
		file string
		off  int64
		msg  string
	}{
		{"Empty", "", 0, "not a heapdump FIDL stream"},
		{"Gzip", "\x1f\x8b\x08\x00", 0, "not a heapdump FIDL stream"},
		{"ShortMagic", Magic[:10], 0, "not a heapdump FIDL stream"},
		{"ShortHeader", Magic + "\x00\x00", 18, "end of file in the file header"},
		{"Flags", Magic + "\x02\x00\x00\x00\x00\x00\x00\x00", 16, "unknown flags"},
		{"Reserved", Magic + "\x00\x00\x00\x00\x00\x00\x01\x00", 20, "reserved"},
		{"ShortRecordHeader", hdr + "\x01\x00\x00", 27, "end of file in a record header"},
		{"RecordReserved", hdr + "\x02\x00\x01\x00\x00\x00\x00\x00", 25, "reserved bytes"},
		{"UnknownKind", hdr + "\x09\x00\x00\x00\x00\x00\x00\x00", 24, "unknown record kind 9"},
		{"EndOfBatchPayload", hdr + "\x02\x00\x00\x00\x08\x00\x00\x00" + "\x00\x00\x00\x00\x00\x00\x00\x00", 28, "want 0"},
		{"ErrorPayload", hdr + "\x03\x00\x00\x00\x08\x00\x00\x00" + "\x00\x00\x00\x00\x00\x00\x00\x00", 28, "want 4"},
		{"ElementTooShort", hdr + "\x01\x00\x00\x00\x10\x00\x00\x00" + strings.Repeat("\x00", 16), 28, "at least 24"},
		{"ElementNotMul8", hdr + "\x01\x00\x00\x00\x61\x00\x00\x00" + el + "\x00", 28, "multiple of 8"},
		{"ElementLongerThanFile", hdr + "\x01\x00\x00\x00\x68\x00\x00\x00" + el, 28, "only 96 bytes are left"},
		{"ElementHuge", hdr + "\x01\x00\x00\x00\xf8\xff\xff\xff" + el, 28, "only 96 bytes are left"},
		{"ElementBad", hdr + "\x01\x00\x00\x00\x60\x00\x00\x00" + el[:0x20] + strings.Repeat("\x00", 8) + el[0x28:] + end, 32 + 0x20, "absent"},
		{"EndsInsideBatch", hdr + rec + end + rec, 24 + 104 + 8 + 104, "ends inside a batch"},
		{"ErrorInsideBatch", hdr + rec + "\x03\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00", 128, "inside a batch"},
		{"RecordAfterError", hdr + "\x03\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00" + end, 36, "after the collector error"},
		{"ShortError", hdr + "\x03\x00\x00\x00\x04\x00\x00\x00\x01\x00", 34, "end of file in a record payload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sized := range []bool{true, false} {
				var r io.Reader = strings.NewReader(c.file)
				if !sized {
					r = iotest.OneByteReader(r)
				}
				_, err := ReadStream(r, 0)
				if err == nil {
					t.Fatal("read")
				}
				fe := formatError(t, err)
				off, msg := c.off, c.msg
				if !sized && strings.HasPrefix(c.name, "Element") && strings.Contains(msg, "are left") {
					// Without a size the length is believed and the read fails.
					off, msg = int64(len(c.file)), "end of file in a record payload"
				}
				if fe.Offset != off || !strings.Contains(err.Error(), msg) {
					t.Errorf("sized=%v: %q (offset %d), want offset %d and %q", sized, err, fe.Offset, off, msg)
				}
			}
		})
	}
}

// failingReader fails with a non-EOF error after n bytes.
type failingReader struct {
	r io.Reader
	n int
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	p = p[:min(len(p), f.n)]
	k, err := f.r.Read(p)
	f.n -= k
	return k, err
}

func TestReaderIOError(t *testing.T) {
	b := streamBytes(t, smallStream(t))
	for _, n := range []int{0, 10, 30, 100} {
		_, err := ReadStream(&failingReader{bytes.NewReader(b), n}, 0)
		if err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("after %d bytes: %v", n, err)
		}
		var fe *ir.FormatError
		if errors.As(err, &fe) {
			t.Errorf("an I/O error reported as a format error: %v", err)
		}
	}
}

// TestTruncatedEverywhere: a stream cut at any byte fails — in the
// container, or in reassembly when it is cut between records — with an
// offset inside what was read.
func TestTruncatedEverywhere(t *testing.T) {
	s := smallStream(t)
	b := streamBytes(t, s)
	if _, err := s.Reassemble(); err != nil {
		t.Fatal(err)
	}
	for k := range len(b) {
		for _, sized := range []bool{true, false} {
			var r io.Reader = bytes.NewReader(b[:k])
			if !sized {
				r = iotest.OneByteReader(r)
			}
			got, err := ReadStream(r, 0)
			if err == nil {
				_, err = got.Reassemble()
				var re *ReceiveError
				if err == nil || !errors.As(err, &re) || re.Kind != UnexpectedEndOfStream {
					t.Fatalf("cut at %d: reassembled (%v)", k, err)
				}
			}
			fe := formatError(t, err)
			if fe.Offset < 0 || fe.Offset > int64(k) {
				t.Fatalf("cut at %d (sized %v): offset %d: %v", k, sized, fe.Offset, err)
			}
		}
	}
}

// TestUnknownSizeBoundedAllocation: a huge declared length without a known
// size does not allocate it.
func TestUnknownSizeBoundedAllocation(t *testing.T) {
	file := Magic + "\x00\x00\x00\x00\x00\x00\x00\x00" + "\x01\x00\x00\x00\xf8\xff\xff\xff" + strings.Repeat("\x00", 1000)
	var err error
	if d := allocated(func() { _, err = ReadStream(iotest.OneByteReader(strings.NewReader(file)), 0) }); d > 1<<20 {
		t.Errorf("allocated %d bytes for a 1 KB input", d)
	}
	if err == nil || !strings.Contains(err.Error(), "end of file in a record payload") {
		t.Errorf("unsized: %v", err)
	}
	// With a size the length is refused before anything is read.
	_, err = ReadStream(strings.NewReader(file), 0)
	if err == nil || !strings.Contains(err.Error(), "bytes are left") {
		t.Errorf("sized: %v", err)
	}
}
