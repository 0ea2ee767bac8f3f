package fuchsia_test

// Hostile FIDL element streams for ReadFIDL, and hostile IR for WriteFIDL:
// every input is an error naming a byte offset or is read; every stream
// read is written back byte for byte; WriteFIDL does not panic on IR that
// passes Validate, and what it writes reads back.

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"

	"github.com/heapconv/heapconv/internal/fidl"
	"github.com/heapconv/heapconv/internal/fuchsiagen"
	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	"github.com/heapconv/heapconv/readers/fuchsia"
	wfuchsia "github.com/heapconv/heapconv/writers/fuchsia"
)

// hStream writes s as a container file.
func hStream(t testing.TB, s *fidl.Stream) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hWriteFIDL runs WriteFIDL, turning a panic into an error.
func hWriteFIDL(f *ir.File) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	var b bytes.Buffer
	_, err = wfuchsia.WriteFIDL(&b, f)
	return b.Bytes(), err
}

func hReadFIDL(data []byte) (*ir.File, error) {
	return fuchsia.ReadFIDL(bytes.NewReader(data), fuchsia.Options{Size: int64(len(data))})
}

// hAllocated returns the bytes ReadFIDL allocates reading data.
func hAllocated(data []byte, o fuchsia.Options) (uint64, error) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	o.Size = int64(len(data))
	_, err := fuchsia.ReadFIDL(bytes.NewReader(data), o)
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, err
}

// hOffsetError checks that err is an *ir.FormatError with an offset in
// [lo, hi].
func hOffsetError(t testing.TB, what string, err error, lo, hi int64) {
	t.Helper()
	var fe *ir.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: error %v (%T) names no offset (not an *ir.FormatError)", what, err, err)
	}
	if fe.Offset < lo || fe.Offset > hi {
		t.Fatalf("%s: error offset %d, want in [%d, %d]: %v", what, fe.Offset, lo, hi, err)
	}
}

// hRoundTrip reads data, which must be accepted, and checks that WriteFIDL
// gives it back byte for byte.
func hRoundTrip(t *testing.T, what string, data []byte) *ir.File {
	t.Helper()
	f, err := hReadFIDL(data)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	out, err := hWriteFIDL(f)
	if err != nil {
		t.Fatalf("%s: write: %v", what, err)
	}
	if !bytes.Equal(out, data) {
		t.Errorf("%s: read and written, the stream differs (%d bytes, %d written)", what, len(data), len(out))
	}
	return f
}

type hBuilder struct {
	s *fidl.Stream
}

func (b *hBuilder) add(e fidl.Element) *hBuilder { b.s.Append(&e); return b }
func (b *hBuilder) end() *hBuilder               { b.s.EndBatch(); return b }

func hStack(key uint64, pcs ...uint64) fidl.Element {
	return fidl.Element{Kind: fidl.KindStackTrace, StackTrace: fidl.StackTrace{Present: 3, Key: key, ProgramAddresses: pcs}}
}

func hAlloc(addr, size, key uint64) fidl.Element {
	return fidl.Element{Kind: fidl.KindAllocation, Allocation: fidl.Allocation{Present: 7, Address: addr, Size: size, StackTraceKey: key}}
}

func hContents(addr uint64, data string) fidl.Element {
	return fidl.Element{Kind: fidl.KindBlockContents, BlockContents: fidl.BlockContents{Present: 3, Address: addr, Contents: []byte(data)}}
}

func hHeader(name string, koid uint64, unknown ...fidl.RawField) fidl.Element {
	return fidl.Element{Kind: fidl.KindSnapshotHeader, SnapshotHeader: fidl.SnapshotHeader{Present: 3, ProcessName: name, ProcessKoid: koid, Unknown: unknown}}
}

var hInline = fidl.RawField{Ordinal: 9, Inline: true, Bytes: []byte{1, 2, 3, 4}}

// Regression: the unknown fields of a SnapshotHeader were lost when
// another element of the same process had unknown fields too (the writer
// asked its in-order cursor for the header's fields, which sort last).
func TestHostileHeaderUnknownFieldsRoundTrip(t *testing.T) {
	b := &hBuilder{fidl.NewStream(true)}
	b.add(hHeader("p", 1, fidl.RawField{Ordinal: 3, Inline: true, Bytes: []byte{5, 6, 7, 8}})).end()
	st := hStack(1)
	st.StackTrace.Unknown = []fidl.RawField{hInline}
	b.add(st).end().end()
	b.end()
	hRoundTrip(t, "header and element unknown fields", hStream(t, b.s))
}

// Regression: an unknown table field with an ordinal above 64 passed the
// decoder but not fuchsiair.Stream's validation, so ReadFIDL failed with an
// internal error naming no offset. The decoder now refuses such tables.
func TestHostileUnknownOrdinalOver64(t *testing.T) {
	// 64 is the last ordinal a FIDL table has: read and written back.
	// Beyond it, internal/fidl refuses the table at its envelope count
	// (its TestHostileManyUnknownFieldsAllocation).
	st := hStack(1)
	st.StackTrace.Unknown = []fidl.RawField{{Ordinal: 64, Inline: true, Bytes: []byte{9, 9, 9, 9}}}
	b := &hBuilder{fidl.NewStream(false)}
	b.add(st).end().end()
	hRoundTrip(t, "unknown field ordinal 64", hStream(t, b.s))
}

// Regression, the same header problem from the IR side: random
// stream-read IR (irtest Stream) written and read again must keep the
// SnapshotHeader's unknown fields of every process.
func TestHostileRandomStreamIRRoundTrip(t *testing.T) {
	lost := 0
	for seed := int64(0); seed < 200; seed++ {
		f := irtest.RandomFuchsia(seed, irtest.Options{MaxNodes: 8, Snapshots: 1 + int(seed%3), MaxStringUnits: 8, Strings: irtest.AllStrings},
			irtest.FuchsiaStreamEverything())
		b1, err := hWriteFIDL(f)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		g, err := hReadFIDL(b1)
		if err != nil {
			t.Fatalf("seed %d: read back: %v", seed, err)
		}
		if b2, err := hWriteFIDL(g); err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("seed %d: written, read and written again, the stream differs (%v)", seed, err)
		}
		for k := range f.Snapshots {
			a, b := fuchsiair.Of(f.Snapshots[k]).Stream, fuchsiair.Of(g.Snapshots[k]).Stream
			if fmt.Sprint(a.UnknownRecord, a.UnknownOrdinal, a.UnknownBytes) != fmt.Sprint(b.UnknownRecord, b.UnknownOrdinal, b.UnknownBytes) {
				if lost++; lost <= 3 {
					t.Errorf("seed %d, snapshot %d: unknown fields on records %v written, %v read back", seed, k, a.UnknownRecord, b.UnknownRecord)
				}
			}
		}
	}
	if lost > 3 {
		t.Errorf("... %d snapshots in all lose unknown fields", lost)
	}
}

// Holds: stream-read IR mutated a little (keys, chunk sizes and owners,
// orphans, field bits, record order, unknown field places, mappings,
// names, counts, ids, sizes) either fails Validate, or is written by
// WriteFIDL without a panic or an error, reads back, and writes back the
// same bytes.
func TestHostileMutatedStreamIR(t *testing.T) {
	type mutation func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool
	one := func(r *rand.Rand, n int) int { return r.IntN(n) }
	muts := map[string]mutation{
		"stack key": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.StackKey) == 0 {
				return false
			}
			x.StackKey[one(r, len(x.StackKey))] = []uint64{0, 1, r.Uint64()}[r.IntN(3)]
			return true
		},
		"thread key": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.ThreadKey) == 0 {
				return false
			}
			x.ThreadKey[one(r, len(x.ThreadKey))] = uint64(r.IntN(4))
			return true
		},
		"swap records": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.Records) < 2 {
				return false
			}
			i, j := one(r, len(x.Records)), one(r, len(x.Records))
			x.Records[i], x.Records[j] = x.Records[j], x.Records[i]
			return true
		},
		"insert end of batch": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.Records) == 0 || len(x.UnknownRecord) > 0 {
				return false
			}
			i := one(r, len(x.Records))
			x.Records = append(x.Records[:i:i], append([]uint8{fuchsiair.RecordEndOfBatch}, x.Records[i:]...)...)
			return true
		},
		"region fields": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.RegionFields) == 0 {
				return false
			}
			x.RegionFields[one(r, len(x.RegionFields))] ^= 1 << r.IntN(8)
			return true
		},
		"region vaddr": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.RegionVaddr) == 0 {
				return false
			}
			x.RegionVaddr[one(r, len(x.RegionVaddr))] = r.Uint64()
			return true
		},
		"alloc fields": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.AllocFields) == 0 {
				return false
			}
			x.AllocFields[one(r, len(x.AllocFields))] ^= 1 << r.IntN(8)
			return true
		},
		"stack chunk sizes": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.StackChunkSize) < 2 {
				return false
			}
			i, j := one(r, len(x.StackChunkSize)), one(r, len(x.StackChunkSize))
			if x.StackChunkSize[i] == 0 {
				return false
			}
			x.StackChunkSize[i]--
			x.StackChunkSize[j]++
			return true
		},
		"contents chunk sizes": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.ContentsChunkSize) < 2 {
				return false
			}
			i, j := one(r, len(x.ContentsChunkSize)), one(r, len(x.ContentsChunkSize))
			if x.ContentsChunkSize[i] == 0 {
				return false
			}
			x.ContentsChunkSize[i]--
			x.ContentsChunkSize[j]++
			return true
		},
		"contents chunk node": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.ContentsChunkNode) == 0 {
				return false
			}
			i := one(r, len(x.ContentsChunkNode))
			if r.IntN(2) == 0 {
				x.ContentsChunkNode[i] = fuchsiair.OrphanChunk
			} else {
				x.ContentsChunkNode[i] = uint32(r.IntN(s.Nodes.Len() + 1))
			}
			return true
		},
		"orphan address": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.OrphanAddress) == 0 {
				return false
			}
			i := one(r, len(x.OrphanAddress))
			if s.Nodes.Len() > 0 && r.IntN(2) == 0 {
				x.OrphanAddress[i] = s.Nodes.ID.At(one(r, s.Nodes.Len()))
			} else {
				x.OrphanAddress[i] = x.OrphanAddress[one(r, len(x.OrphanAddress))]
			}
			return true
		},
		"unknown ordinal": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.UnknownOrdinal) == 0 {
				return false
			}
			x.UnknownOrdinal[one(r, len(x.UnknownOrdinal))] += uint64(r.IntN(3)) - 1
			return true
		},
		"unknown record": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if len(x.UnknownRecord) == 0 {
				return false
			}
			x.UnknownRecord[one(r, len(x.UnknownRecord))] += uint32(r.IntN(3)) - 1
			return true
		},
		"count": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if s.Nodes.Len() == 0 {
				return false
			}
			fuchsiair.Of(s).Count.Set(one(r, s.Nodes.Len()), uint64(r.IntN(3)))
			return true
		},
		"id": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if s.Nodes.Len() == 0 {
				return false
			}
			s.Nodes.ID.Set(one(r, s.Nodes.Len()), s.Nodes.ID.At(one(r, s.Nodes.Len())))
			return true
		},
		"size": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			if s.Nodes.Len() == 0 {
				return false
			}
			s.Nodes.SelfSize.Set(one(r, s.Nodes.Len()), uint64(r.IntN(3)))
			return true
		},
		"mapping": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			mp := &fuchsiair.FileOf(f).Mappings
			if mp.Len() == 0 {
				return false
			}
			i := one(r, mp.Len())
			switch r.IntN(4) {
			case 0:
				mp.Limit[i] = mp.Start[i] - 1 // a region wrapping around
			case 1:
				mp.Start[i] = mp.Start[one(r, mp.Len())]
			case 2:
				mp.File[i] = uint32(r.IntN(len(f.Strings)))
			case 3:
				mp.BuildID[i] = uint32(r.IntN(len(f.Strings)))
			}
			return true
		},
		"stack locations": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			fs := fuchsiair.Of(s)
			if len(fs.StackLocation) == 0 {
				return false
			}
			fs.StackLocation[one(r, len(fs.StackLocation))] = uint32(r.IntN(fuchsiair.FileOf(f).Locations.Len()))
			return true
		},
		"location address": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			lc := &fuchsiair.FileOf(f).Locations
			if lc.Len() < 2 {
				return false
			}
			lc.Address[one(r, lc.Len())] = lc.Address[one(r, lc.Len())]
			return true
		},
		"thread name": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			fs := fuchsiair.Of(s)
			if len(fs.ThreadName) == 0 {
				return false
			}
			fs.ThreadName[one(r, len(fs.ThreadName))] = uint32(r.IntN(len(f.Strings)))
			return true
		},
		"process name": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			fuchsiair.Of(s).ProcessName = uint32(r.IntN(len(f.Strings)))
			return true
		},
		"node thread": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			fs := fuchsiair.Of(s)
			if len(fs.Thread) == 0 {
				return false
			}
			fs.Thread[one(r, len(fs.Thread))] = uint32(r.IntN(len(fs.ThreadName) + 1))
			return true
		},
		"node stack": func(r *rand.Rand, f *ir.File, s *ir.Snapshot, x *fuchsiair.Stream) bool {
			fs := fuchsiair.Of(s)
			if len(fs.Stack) == 0 {
				return false
			}
			fs.Stack[one(r, len(fs.Stack))] = uint32(r.IntN(fs.Stacks()))
			return true
		},
	}
	names := make([]string, 0, len(muts))
	for n := range muts {
		names = append(names, n)
	}
	slicesSort(names)
	valid := map[string]int{}
	for seed := int64(0); seed < 1000; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		f := irtest.RandomFuchsia(seed, irtest.Options{MaxNodes: 6, Snapshots: 1 + int(seed%3), MaxStringUnits: 40, Strings: irtest.AllStrings},
			irtest.FuchsiaStreamEverything())
		applied := ""
		for k := 1 + r.IntN(2); k > 0; k-- {
			s := f.Snapshots[r.IntN(len(f.Snapshots))]
			name := names[r.IntN(len(names))]
			if muts[name](r, f, s, fuchsiair.Of(s).Stream) {
				applied += name + "; "
			}
		}
		if applied == "" || f.Validate() != nil {
			continue
		}
		valid[applied]++
		b1, err := hWriteFIDL(f)
		if err != nil {
			t.Errorf("seed %d (%s): IR that passes Validate: %v", seed, applied, err)
			continue
		}
		g, err := hReadFIDL(b1)
		if err != nil {
			t.Errorf("seed %d (%s): the stream written does not read back: %v", seed, applied, err)
			continue
		}
		if b2, err := hWriteFIDL(g); err != nil || !bytes.Equal(b1, b2) {
			t.Errorf("seed %d (%s): read back and written again, the stream differs (%v)", seed, applied, err)
		}
	}
	if len(valid) < 10 {
		t.Errorf("only %d kinds of mutation passed Validate: %v", len(valid), valid)
	}
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Holds: IR not read from a stream (random profiles with every feature,
// random graph heaps) is written by emit without a panic, and reads back.
func TestHostileEmitRandomIR(t *testing.T) {
	opts := []irtest.FuchsiaOptions{irtest.FuchsiaEverything(), {}, {Tags: true, Contents: true}, {MultiProcess: true, Tags: true}, {Symbolized: true}}
	for seed := int64(0); seed < 200; seed++ {
		f := irtest.RandomFuchsia(seed, irtest.Options{MaxNodes: 8, Snapshots: 1 + int(seed%3), MaxStringUnits: 40, Strings: irtest.AllStrings},
			opts[seed%int64(len(opts))])
		out, err := hWriteFIDL(f)
		if err != nil {
			t.Fatalf("profile seed %d: %v", seed, err)
		}
		if _, err := hReadFIDL(out); err != nil {
			t.Fatalf("profile seed %d: read back: %v", seed, err)
		}
	}
	for seed := int64(0); seed < 60; seed++ {
		out, err := hWriteFIDL(irtest.Random(seed, irtest.Everything(0, 10)))
		if err != nil {
			t.Fatalf("graph seed %d: %v", seed, err)
		}
		if _, err := hReadFIDL(out); err != nil {
			t.Fatalf("graph seed %d: read back: %v", seed, err)
		}
	}
}

// Holds (receive rules at the ReadFIDL level): each violation is an error
// at the offset of the record at fault; the odd but valid streams (an
// allocation of size 0 with an empty contents chunk, contents of no
// allocation, several chunks of contents of no allocation at one address,
// empty stack chunks, a stack sent only as empty chunks) are read and
// written back byte for byte.
func TestHostileReceiveRules(t *testing.T) {
	const h = fidl.HeaderSize
	// single returns the file of a single-process stream of the batches,
	// and the offset of each of its records.
	single := func(batches ...[]fidl.Element) ([]byte, []int64) {
		b := &hBuilder{fidl.NewStream(false)}
		for _, batch := range batches {
			for _, e := range batch {
				b.add(e)
			}
			b.end()
		}
		b.end()
		var offs []int64
		for _, r := range b.s.Records {
			offs = append(offs, r.Offset)
		}
		return hStream(t, b.s), offs
	}
	thread := func(key uint64) fidl.Element {
		return fidl.Element{Kind: fidl.KindThreadInfo, ThreadInfo: fidl.ThreadInfo{Present: 7, Key: key, Name: "t"}}
	}
	withThread := hAlloc(0x10, 8, 1)
	withThread.Allocation.Present |= 1 << 4
	withThread.Allocation.ThreadInfoKey = 5
	noSize := hAlloc(0x10, 8, 1)
	noSize.Allocation.Present = 5
	bad := []struct {
		name    string
		batches [][]fidl.Element
		at      int // the record at fault
	}{
		{"contents for a block of size 0", [][]fidl.Element{{hStack(1), hAlloc(0x10, 0, 1), hContents(0x10, "x")}}, 1},
		{"contents shorter than the block", [][]fidl.Element{{hStack(1), hAlloc(0x10, 9, 1), hContents(0x10, "x")}}, 1},
		{"stack key referenced, never sent", [][]fidl.Element{{hStack(1), hAlloc(0x10, 8, 2)}}, 1},
		{"thread key referenced, never sent", [][]fidl.Element{{hStack(1), withThread}}, 1},
		{"allocation without size", [][]fidl.Element{{hStack(1), noSize}}, 1},
		{"duplicate allocation", [][]fidl.Element{{hStack(1)}, {hAlloc(0x10, 8, 1), hAlloc(0x10, 8, 1)}}, 3},
		{"duplicate thread key", [][]fidl.Element{{thread(3), thread(3)}}, 1},
		{"header in a single-process stream", [][]fidl.Element{{hHeader("p", 1)}}, 0},
	}
	for _, c := range bad {
		data, offs := single(c.batches...)
		_, err := hReadFIDL(data)
		if err == nil {
			t.Fatalf("%s: accepted", c.name)
		}
		hOffsetError(t, c.name, err, offs[c.at], offs[c.at])
	}
	one := func(batches ...[]fidl.Element) []byte { b, _ := single(batches...); return b }
	good := map[string][]byte{
		"size 0 with empty contents": one([]fidl.Element{hStack(1), hContents(0x10, ""), hAlloc(0x10, 0, 1)}),
		"contents of no allocation, in chunks": one([]fidl.Element{hContents(0x99, "ab"), hStack(1)},
			[]fidl.Element{hContents(0x99, ""), hAlloc(0x10, 2, 1), hContents(0x99, "cd")}),
		"stack of empty chunks only": one([]fidl.Element{hStack(1), hStack(1), hAlloc(0x10, 8, 1), hStack(1)}),
		"empty snapshot":             one(),
	}
	for name, data := range good {
		hRoundTrip(t, name, data)
	}
	// Multi-process: a header without its koid, a batch of a header and
	// more, a header batch missing.
	multi := func(batches ...[]fidl.Element) []byte {
		b := &hBuilder{fidl.NewStream(true)}
		for _, batch := range batches {
			for _, e := range batch {
				b.add(e)
			}
			b.end()
		}
		return hStream(t, b.s)
	}
	noKoid := hHeader("p", 1)
	noKoid.SnapshotHeader.Present = 1
	for name, data := range map[string][]byte{
		"header without koid":    multi([]fidl.Element{noKoid}, nil, nil),
		"header batch of two":    multi([]fidl.Element{hHeader("p", 1), hStack(1)}, nil, nil),
		"data where a header is": multi([]fidl.Element{hStack(1)}, nil, nil),
	} {
		_, err := hReadFIDL(data)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		hOffsetError(t, name, err, h, h)
	}
	hRoundTrip(t, "processes with the same name and koid", multi([]fidl.Element{hHeader("p", 1)}, nil, []fidl.Element{hHeader("p", 1)}, nil, nil))
}

// Holds: every prefix of two small streams, read from a reader of unknown
// size (no Len, not a file, size 0), is an error naming an offset within
// the prefix.
func TestHostileReadFIDLUnsizedCut(t *testing.T) {
	edges := hStream(t, fuchsiagen.ReassemblyEdgeStream())
	ffx, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fuchsia-fidl", "ffx-test.fidlstream"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"reassembly-edges": edges, "ffx-test": ffx} {
		hRoundTrip(t, name, data)
		for cut := 0; cut < len(data); cut++ {
			_, err := fuchsia.ReadFIDL(iotest.OneByteReader(bytes.NewReader(data[:cut])), fuchsia.Options{ScanPointers: true})
			if err == nil {
				t.Fatalf("%s cut at %d: read", name, cut)
			}
			hOffsetError(t, fmt.Sprintf("%s cut at %d", name, cut), err, 0, int64(cut))
		}
	}
}

// Holds: many processes (a 104-byte header batch and an empty batch
// each) and one stack of many distinct program addresses (a location
// each) are the costliest inputs per byte found; they stay within the 50 ×
// the profile reader's hostile tests allow (about 31 × measured).
func TestHostileReadFIDLAllocationBounded(t *testing.T) {
	procs := &hBuilder{fidl.NewStream(true)}
	for i := 0; i < 5000; i++ {
		procs.add(hHeader("", uint64(i))).end().end()
	}
	procs.end()
	pcs := make([]uint64, 100000)
	for i := range pcs {
		pcs[i] = uint64(i)
	}
	stack := &hBuilder{fidl.NewStream(false)}
	stack.add(hStack(1, pcs...)).add(hAlloc(0x10, 1, 1)).end().end()
	for name, data := range map[string][]byte{"5000 processes": hStream(t, procs.s), "a stack of 100000 addresses": hStream(t, stack.s)} {
		n, err := hAllocated(data, fuchsia.Options{ScanPointers: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n > 50*uint64(len(data))+1<<20 {
			t.Errorf("%s: %d bytes allocated for %d (%.1f×)", name, n, len(data), float64(n)/float64(len(data)))
		}
	}
}
