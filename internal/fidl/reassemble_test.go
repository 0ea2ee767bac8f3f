package fidl

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Element builders for the receive-rule tests.

func alloc(addr, size, stack uint64, thread ...uint64) Element {
	e := Element{Kind: KindAllocation, Allocation: Allocation{Address: addr, Size: size, StackTraceKey: stack}}
	set(&e.Allocation.Present, AllocationAddress, AllocationSize, AllocationStackTraceKey)
	if len(thread) > 0 {
		e.Allocation.ThreadInfoKey = thread[0]
		e.Allocation.Present.Set(AllocationThreadInfoKey)
	}
	return e
}

func stack(key uint64, addrs ...uint64) Element {
	e := Element{Kind: KindStackTrace, StackTrace: StackTrace{Key: key, ProgramAddresses: addrs}}
	set(&e.StackTrace.Present, StackTraceKey, StackTraceProgramAddresses)
	return e
}

func thread(key, koid uint64, name string) Element {
	e := Element{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Key: key, Koid: koid, Name: name}}
	set(&e.ThreadInfo.Present, 1, 2, 3)
	return e
}

func region(addr uint64) Element {
	e := Element{Kind: KindExecutableRegion, ExecutableRegion: ExecutableRegion{
		Address: addr, Size: 0x1000, FileOffset: 0x1000, BuildID: BuildID{Value: []byte{0x11, 0x22}}, Vaddr: 0x2000}}
	set(&e.ExecutableRegion.Present, 1, 2, 3, 4, 5)
	return e
}

func contents(addr uint64, data string) Element {
	e := Element{Kind: KindBlockContents, BlockContents: BlockContents{Address: addr, Contents: []byte(data)}}
	set(&e.BlockContents.Present, 1, 2)
	return e
}

func header(name string, koid uint64) Element {
	e := Element{Kind: KindSnapshotHeader, SnapshotHeader: SnapshotHeader{ProcessName: name, ProcessKoid: koid}}
	set(&e.SnapshotHeader.Present, 1, 2)
	return e
}

// build makes a stream from batches; a nil batch is an empty one.
func build(multi bool, batches ...[]Element) *Stream {
	s := NewStream(multi)
	for _, b := range batches {
		for i := range b {
			s.Append(&b[i])
		}
		s.EndBatch()
	}
	return s
}

// reassemble writes and reads the stream back (so that offsets are real)
// and reassembles it.
func reassemble(t *testing.T, s *Stream) ([]Snapshot, *Stream, error) {
	t.Helper()
	b := streamBytes(t, s)
	got, err := ReadStream(bytes.NewReader(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := got.Reassemble()
	return snaps, got, err
}

func wantReceiveError(t *testing.T, err error, kind ReceiveErrorKind, element string, off int64, msg string) {
	t.Helper()
	var re *ReceiveError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a *ReceiveError", err)
	}
	fe := formatError(t, err)
	if re.Kind != kind || re.Element != element || (off >= 0 && fe.Offset != off) || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q (kind %v, element %q, offset %d), want %v %q offset %d %q", err, re.Kind, re.Element, fe.Offset, kind, element, off, msg)
	}
}

func TestReassembleChunks(t *testing.T) {
	// Chunks interleaved with other elements and across batches; contents
	// before their allocation, as the crate's tests do.
	s := build(false,
		[]Element{contents(0x1000, "1234"), stack(9, 11111, 22222), alloc(0x1000, 8, 9, 4567)},
		[]Element{stack(6, 11111), thread(4567, 1212, "t1"), stack(9, 33333), contents(0x1000, "5678")},
		[]Element{stack(9, 22222, 44444, 55555), region(0x10000000), alloc(0x2000, 4, 6)},
		nil)
	snaps, got, err := reassemble(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	sn := snaps[0]
	if !reflect.DeepEqual(sn.StackTraces[9], []uint64{11111, 22222, 33333, 22222, 44444, 55555}) ||
		!reflect.DeepEqual(sn.StackTraces[6], []uint64{11111}) {
		t.Errorf("stack traces %v", sn.StackTraces)
	}
	if string(sn.Contents[0x1000]) != "12345678" || len(sn.Contents) != 1 {
		t.Errorf("contents %v", sn.Contents)
	}
	if sn.Header != -1 || sn.Start != 0 || sn.End != len(got.Records)-1 {
		t.Errorf("range %d..%d header %d", sn.Start, sn.End, sn.Header)
	}
	if !reflect.DeepEqual(sn.Allocations, []int{0, 1}) || got.ThreadInfos[sn.Threads[4567]].Name != "t1" ||
		!reflect.DeepEqual(sn.Regions, []int{0}) {
		t.Errorf("snapshot %+v", sn)
	}
	// The single-chunk trace is shared with its element, not copied.
	if &sn.StackTraces[6][0] != &got.StackTraces[1].ProgramAddresses[0] {
		t.Error("single chunk copied")
	}
	// Concatenation did not write into the first chunk's backing array.
	if !reflect.DeepEqual(got.StackTraces[0].ProgramAddresses, []uint64{11111, 22222}) {
		t.Error("first chunk modified")
	}
	// Count defaults to 1.
	if got.Allocations[0].CountOrDefault() != 1 {
		t.Error("count default")
	}
}

func TestReassembleRegionsSortedAndVaddrOptional(t *testing.T) {
	r1, r2 := region(0x9000), region(0x3000)
	r2.ExecutableRegion.Present.Clear(RegionVaddr)
	s := build(false, []Element{r1, r2}, nil)
	snaps, got, err := reassemble(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snaps[0].Regions, []int{1, 0}) || got.ExecutableRegions[1].Present.Has(RegionVaddr) {
		t.Errorf("regions %v", snaps[0].Regions)
	}
}

func TestReassembleDroppedContents(t *testing.T) {
	noAddr := alloc(0, 3, 1)
	noAddr.Allocation.Present.Clear(AllocationAddress)
	s := build(false, []Element{contents(0x5000, "abc"), alloc(0x1000, 3, 1), noAddr, noAddr, stack(1, 1),
		contents(0x1000, "xyz"), contents(0x6000, "q"), contents(0x5000, "d")}, nil)
	snaps, got, err := reassemble(t, s)
	if err != nil {
		t.Fatal(err)
	}
	sn := snaps[0]
	if !reflect.DeepEqual(sn.DroppedContents, []uint64{0x5000, 0x6000}) || len(sn.Contents) != 1 || string(sn.Contents[0x1000]) != "xyz" {
		t.Errorf("dropped %x, contents %v", sn.DroppedContents, sn.Contents)
	}
	if len(sn.Allocations) != 3 {
		t.Errorf("allocations without address: %v", sn.Allocations)
	}
	// Rewriting keeps the dropped chunks.
	if len(got.BlockContents) != 4 || !bytes.Equal(streamBytes(t, got), streamBytes(t, s)) {
		t.Error("rewrite lost elements")
	}
}

func TestReassembleErrors(t *testing.T) {
	noSize := alloc(1, 0, 1)
	noSize.Allocation.Present.Clear(AllocationSize)
	noStackKey := alloc(1, 1, 0)
	noStackKey.Allocation.Present.Clear(AllocationStackTraceKey)
	noKey := stack(1, 1)
	noKey.StackTrace.Present.Clear(StackTraceKey)
	noAddrs := stack(1)
	noAddrs.StackTrace.Present.Clear(StackTraceProgramAddresses)
	noName := thread(1, 2, "")
	noName.ThreadInfo.Present.Clear(ThreadInfoName)
	noKoid := thread(1, 2, "x")
	noKoid.ThreadInfo.Present.Clear(ThreadInfoKoid)
	noBuildID := region(1)
	noBuildID.ExecutableRegion.Present.Clear(RegionBuildID)
	noOffset := region(1)
	noOffset.ExecutableRegion.Present.Clear(RegionFileOffset)
	noContents := contents(1, "")
	noContents.BlockContents.Present.Clear(BlockContentsContents)
	unknown := Element{Kind: KindUnknown, Unknown: RawField{Ordinal: 7, Bytes: make([]byte, 8)}}

	cases := []struct {
		name    string
		s       *Stream
		kind    ReceiveErrorKind
		element string
		rec     int // index of the record at fault in Records, -1: end of file
		msg     string
	}{
		{"DuplicateAddress", build(false, []Element{alloc(1, 1, 1)}, []Element{stack(1, 1), alloc(1, 2, 1)}, nil),
			ConflictingElement, "Allocation", 3, "0x1"},
		{"DuplicateThread", build(false, []Element{thread(3, 1, "a"), thread(3, 2, "b")}, nil), ConflictingElement, "ThreadInfo", 1, "key 3"},
		{"DuplicateRegion", build(false, []Element{region(0x40), region(0x40)}, nil), ConflictingElement, "ExecutableRegion", 1, "0x40"},
		{"ContentsTooShort", build(false, []Element{alloc(0x10, 4, 1), stack(1), contents(0x10, "abc")}, nil), ConflictingElement, "BlockContents", 0, "3 bytes"},
		{"ContentsTooLong", build(false, []Element{alloc(0x10, 2, 1), stack(1), contents(0x10, "ab"), contents(0x10, "c")}, nil), ConflictingElement, "BlockContents", 0, "3 bytes"},
		{"MissingSize", build(false, []Element{noSize}, nil), MissingField, "Allocation", 0, "Allocation.size"},
		{"MissingStackKey", build(false, []Element{noStackKey}, nil), MissingField, "Allocation", 0, "Allocation.stack_trace_key"},
		{"MissingTraceKey", build(false, []Element{noKey}, nil), MissingField, "StackTrace", 0, "StackTrace.stack_trace_key"},
		{"MissingAddresses", build(false, []Element{noAddrs}, nil), MissingField, "StackTrace", 0, "program_addresses"},
		{"MissingThreadName", build(false, []Element{noName}, nil), MissingField, "ThreadInfo", 0, "ThreadInfo.name"},
		{"MissingThreadKoid", build(false, []Element{noKoid}, nil), MissingField, "ThreadInfo", 0, "ThreadInfo.koid"},
		{"MissingBuildID", build(false, []Element{noBuildID}, nil), MissingField, "ExecutableRegion", 0, "build_id"},
		{"MissingFileOffset", build(false, []Element{noOffset}, nil), MissingField, "ExecutableRegion", 0, "file_offset"},
		{"MissingContents", build(false, []Element{noContents}, nil), MissingField, "BlockContents", 0, "contents"},
		{"DanglingStack", build(false, []Element{alloc(1, 1, 5), stack(6, 1)}, nil), InvalidCrossReference, "StackTrace", 0, "stack_trace_key 5"},
		{"DanglingThread", build(false, []Element{stack(5, 1), alloc(1, 1, 5, 77)}, nil), InvalidCrossReference, "ThreadInfo", 1, "thread_info_key 77"},
		{"HeaderInSnapshot", build(false, []Element{header("p", 1)}, nil), UnexpectedElementType, "SnapshotHeader", 0, "inside a snapshot"},
		{"UnknownInSnapshot", build(false, []Element{stack(1, 1), unknown}, nil), UnexpectedElementType, "unknown element", 1, "inside a snapshot"},
		{"NoFinalEmptyBatch", build(false, []Element{stack(1, 1)}), UnexpectedEndOfStream, "", -1, "final empty batch"},
		{"NoBatchAtAll", build(false), UnexpectedEndOfStream, "", -1, "final empty batch"},
		{"AfterEnd", build(false, nil, []Element{stack(1, 1)}), RecordsAfterEnd, "", 1, "2 records after"},
		{"MultiHeaderExpected", build(true, []Element{stack(1, 1)}, nil), HeaderExpected, "", 0, "StackTrace"},
		{"MultiHeaderNotAlone", build(true, []Element{header("p", 1), stack(1, 1)}, nil, nil), HeaderExpected, "", 0, "2 elements"},
		{"MultiTwoHeaders", build(true, []Element{header("p", 1), header("q", 2)}, nil, nil), HeaderExpected, "", 0, "2 elements"},
		{"MultiNoFinalBatch", build(true, []Element{header("p", 1)}, []Element{stack(1, 1)}, nil), UnexpectedEndOfStream, "", -1, ""},
		{"MultiHeaderInSnapshot", build(true, []Element{header("p", 1)}, []Element{header("q", 2)}, nil, nil), UnexpectedElementType, "SnapshotHeader", 2, ""},
		{"MultiHeaderNoName", func() *Stream {
			h := header("p", 1)
			h.SnapshotHeader.Present.Clear(SnapshotHeaderProcessName)
			return build(true, []Element{h}, nil, nil)
		}(), MissingField, "SnapshotHeader", 0, "process_name"},
		{"MultiAfterEnd", build(true, nil, nil), RecordsAfterEnd, "", 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got, err := reassemble(t, c.s)
			if err == nil {
				t.Fatal("reassembled")
			}
			off := got.Size()
			if c.rec >= 0 {
				off = got.Records[c.rec].Offset
			}
			wantReceiveError(t, err, c.kind, c.element, off, c.msg)
		})
	}
}

func TestReassembleCollectorError(t *testing.T) {
	for _, multi := range []bool{false, true} {
		s := NewStream(multi)
		if multi {
			h := header("p", 1)
			s.Append(&h)
			s.EndBatch()
		}
		st := stack(1, 1)
		s.Append(&st)
		s.EndBatch()
		s.ReportError(4)
		_, got, err := reassemble(t, s)
		wantReceiveError(t, err, CollectorErrorReported, "", got.Records[len(got.Records)-1].Offset, "LIVE_SNAPSHOT_FAILED")
		var re *ReceiveError
		if errors.As(err, &re); re.Code != 4 {
			t.Errorf("code %d", re.Code)
		}
	}
}

// TestReassembleMultiProcess: the header-batch / data / empty-batch pattern
// and the final extra empty batch; an empty multi-process stream has no
// snapshot, an empty single-process one has one empty snapshot.
func TestReassembleMultiProcess(t *testing.T) {
	s := build(true,
		[]Element{header("kernel", 1)}, []Element{stack(0, 0x10), alloc(0, 16, 0)}, nil,
		[]Element{header("app.cm", 2000)}, nil,
		[]Element{header("other", 3000)}, []Element{stack(0, 0x20)}, []Element{alloc(0, 32, 0)}, nil,
		nil)
	snaps, got, err := reassemble(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	for i, want := range []string{"kernel", "app.cm", "other"} {
		sn := snaps[i]
		if got.SnapshotHeaders[sn.Header].ProcessName != want || got.Records[sn.Start-2].Kind != KindSnapshotHeader ||
			got.Records[sn.Start-1].Kind != KindEndOfBatch || got.Records[sn.End].Kind != KindEndOfBatch {
			t.Errorf("snapshot %d: %+v", i, sn)
		}
	}
	if len(snaps[1].Allocations) != 0 || len(snaps[2].Allocations) != 1 || snaps[2].StackTraces[0][0] != 0x20 {
		t.Errorf("snapshots %+v", snaps)
	}
	// The same key in two processes is two traces.
	if snaps[0].StackTraces[0][0] != 0x10 {
		t.Error("keys leak between snapshots")
	}

	if snaps, _, err := reassemble(t, build(true, nil)); err != nil || len(snaps) != 0 {
		t.Errorf("empty multi-process: %v, %v", snaps, err)
	}
	if snaps, _, err := reassemble(t, build(false, nil)); err != nil || len(snaps) != 1 || len(snaps[0].Allocations) != 0 {
		t.Errorf("empty single-process: %v, %v", snaps, err)
	}
}
