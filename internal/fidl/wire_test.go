package fidl

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The worked vectors of docs/formats/fuchsia.md (Wire format).
const stackTraceVector = `
0000: 00 01 02 00 00 00 00 00   // WireMetadata
0008: 02 00 00 00 00 00 00 00   // union ordinal 2 (stack_trace)
0010: 48 00 00 00 00 00 00 00   // envelope: num_bytes=72, handles=0, flags=0
0018: 02 00 00 00 00 00 00 00   // table: max ordinal 2
0020: ff ff ff ff ff ff ff ff   // table: present
0028: 08 00 00 00 00 00 00 00   // env #1 (key): 8 bytes out of line
0030: 20 00 00 00 00 00 00 00   // env #2 (vector): 32 bytes out of line
0038: 01 00 00 00 00 00 00 00   // key = 1
0040: 02 00 00 00 00 00 00 00   // vector count 2
0048: ff ff ff ff ff ff ff ff   // vector present
0050: 00 10 00 00 00 00 00 00   // 0x1000
0058: 00 20 00 00 00 00 00 00   // 0x2000
`

func stackTraceElement() Element {
	e := Element{Kind: KindStackTrace, StackTrace: StackTrace{Key: 1, ProgramAddresses: []uint64{0x1000, 0x2000}}}
	set(&e.StackTrace.Present, StackTraceKey, StackTraceProgramAddresses)
	return e
}

func allocationElement(withCount bool) Element {
	e := Element{Kind: KindAllocation, Allocation: Allocation{
		Address: 0x611000, Size: 0x30, StackTraceKey: 1, Timestamp: 8777777777778, ThreadInfoKey: 7}}
	set(&e.Allocation.Present, 1, 2, 3, 4, 5)
	if withCount {
		e.Allocation.Count = 3
		e.Allocation.Present.Set(AllocationCount)
	}
	return e
}

// allocationVector builds the Allocation bytes docs/formats/fuchsia.md
// describes in prose.
func allocationVector(withCount bool) []byte {
	m := uint64(5)
	vals := []uint64{0x611000, 0x30, 1, 8777777777778, 7}
	if withCount {
		m = 6
		vals = append(vals, 3)
	}
	var b []byte
	u := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	b = append(b, 0, 1, 2, 0, 0, 0, 0, 0)
	u(1)          // ordinal
	u(16 + 16*m)  // envelope num_bytes
	u(m)          // max ordinal
	u(^uint64(0)) // present
	for range vals {
		u(8)
	}
	for _, v := range vals {
		u(v)
	}
	return b
}

func TestVectorsOfTheNotes(t *testing.T) {
	st := stackTraceElement()
	want := unhex(t, stackTraceVector)
	if len(want) != 96 {
		t.Fatalf("vector has %d bytes", len(want))
	}
	checkSuccess(t, "StackTrace", &st, want)

	a := allocationElement(false)
	av := allocationVector(false)
	if len(av) != 120 || av[16] != 0x60 {
		t.Fatalf("allocation vector: %d bytes, num_bytes 0x%x", len(av), av[16])
	}
	checkSuccess(t, "Allocation", &a, av)

	ac := allocationElement(true)
	acv := allocationVector(true)
	if len(acv) != 136 || acv[16] != 0x70 || acv[24] != 6 {
		t.Fatalf("allocation+count vector: %d bytes", len(acv))
	}
	checkSuccess(t, "Allocation with count", &ac, acv)
}

// checkSuccess is a GIDL success case: value encodes to b, b decodes to
// value.
func checkSuccess(t *testing.T, name string, e *Element, want []byte) {
	t.Helper()
	got, err := Persist(e)
	if err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: encoded\n%x\nwant\n%x", name, got, want)
	}
	if n := 8 + e.WireSize(); n != len(want) {
		t.Errorf("%s: WireSize+8 = %d, encoding has %d", name, n, len(want))
	}
	var d Element
	if err := Unpersist(want, &d); err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	if d.Kind != e.Kind || !reflect.DeepEqual(variant(&d), variant(e)) {
		t.Errorf("%s: decoded %+v, want %+v", name, variant(&d), variant(e))
	}
}

func TestGIDLSuccess(t *testing.T) {
	u := func(v uint64) string {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		return bytesHex(b[:])
	}
	const meta = "00 01 02 00 00 00 00 00"
	const present = "ff ff ff ff ff ff ff ff"
	const zeroEnv = "00 00 00 00 00 00 00 00"
	const env8 = "08 00 00 00 00 00 00 00"

	// A table with gaps: only size (2) and thread_info_key (5).
	gaps := Element{Kind: KindAllocation, Allocation: Allocation{Size: 0x30, ThreadInfoKey: 9}}
	set(&gaps.Allocation.Present, AllocationSize, AllocationThreadInfoKey)

	// Empty table: every envelope absent, max ordinal 0.
	empty := Element{Kind: KindAllocation}

	// Unknown table fields, inline (7) and out of line (9), after a known one.
	unk := Element{Kind: KindAllocation, Allocation: Allocation{Address: 0x10,
		Unknown: []RawField{{Ordinal: 7, Inline: true, Bytes: []byte{1, 2, 3, 4}},
			{Ordinal: 9, Bytes: []byte{9, 8, 7, 6, 5, 4, 3, 2}}}}}
	unk.Allocation.Present.Set(AllocationAddress)

	// Unknown union variants.
	unkUnion := Element{Kind: KindUnknown, Unknown: RawField{Ordinal: 7, Bytes: []byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0}}}
	unkInline := Element{Kind: KindUnknown, Unknown: RawField{Ordinal: 0x1234, Inline: true, Bytes: []byte{0xaa, 0, 0, 0}}}

	// Strings: padding, multi-byte UTF-8, exactly the bound.
	thread := Element{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Key: 1, Koid: 2, Name: "worker"}}
	set(&thread.ThreadInfo.Present, 1, 2, 3)
	hdr := Element{Kind: KindSnapshotHeader, SnapshotHeader: SnapshotHeader{ProcessName: strings.Repeat("é", 16), ProcessKoid: 1}}
	set(&hdr.SnapshotHeader.Present, 1, 2)

	// Empty vectors (present, count 0) and empty string.
	emptyVec := Element{Kind: KindStackTrace, StackTrace: StackTrace{Key: 5}}
	set(&emptyVec.StackTrace.Present, 1, 2)
	emptyName := Element{Kind: KindThreadInfo}
	emptyName.ThreadInfo.Present.Set(ThreadInfoName)

	// Region with a 20-byte build ID (4 bytes of padding) and a name.
	region := Element{Kind: KindExecutableRegion, ExecutableRegion: ExecutableRegion{
		Address: 0x2000, Size: 0x1000, FileOffset: 0x1000, Vaddr: 0x2000, Name: "map-1",
		BuildID: BuildID{Value: bytes.Repeat([]byte{0xee}, 20)}}}
	set(&region.ExecutableRegion.Present, 1, 2, 3, 4, 5, 6)

	// Block contents of 3 bytes; negative timestamp.
	block := Element{Kind: KindBlockContents, BlockContents: BlockContents{Address: 0x611000, Contents: []byte("abc")}}
	set(&block.BlockContents.Present, 1, 2)
	neg := Element{Kind: KindAllocation, Allocation: Allocation{Timestamp: -777777777}}
	neg.Allocation.Present.Set(AllocationTimestamp)

	nameBytes := bytesHex([]byte(strings.Repeat("é", 16)))
	cases := []struct {
		name  string
		e     Element
		bytes string
	}{
		{"TableWithGaps", gaps, meta + u(1) + u(16+40+16) + u(5) + present +
			zeroEnv + env8 + zeroEnv + zeroEnv + env8 + u(0x30) + u(9)},
		{"EmptyTable", empty, meta + u(1) + u(16) + u(0) + present},
		{"UnknownTableFields", unk, meta + u(1) + u(16+72+8+8) + u(9) + present +
			env8 + zeroEnv + zeroEnv + zeroEnv + zeroEnv + zeroEnv +
			"01 02 03 04 00 00 01 00" + zeroEnv + env8 +
			u(0x10) + "09 08 07 06 05 04 03 02"},
		{"UnknownUnionOrdinal", unkUnion, meta + u(7) + "10 00 00 00 00 00 00 00" +
			"01 02 03 04 05 06 07 08" + u(0)},
		{"UnknownUnionInline", unkInline, meta + u(0x1234) + "aa 00 00 00 00 00 01 00"},
		{"StringPadded", thread, meta + u(5) + u(16+24+8+8+24) + u(3) + present +
			env8 + env8 + "18 00 00 00 00 00 00 00" + u(1) + u(2) + u(6) + present + "77 6f 72 6b 65 72 00 00"},
		{"StringAtBound", hdr, meta + u(6) + u(16+16+48+8) + u(2) + present +
			"30 00 00 00 00 00 00 00" + env8 + u(32) + present + nameBytes + u(1)},
		{"EmptyVector", emptyVec, meta + u(2) + u(16+16+8+16) + u(2) + present +
			env8 + "10 00 00 00 00 00 00 00" + u(5) + u(0) + present},
		{"EmptyString", emptyName, meta + u(5) + u(16+24+16) + u(3) + present +
			zeroEnv + zeroEnv + "10 00 00 00 00 00 00 00" + u(0) + present},
		{"RegionBuildIDPadded", region, meta + u(3) + u(16+48+8*4+40+24) + u(6) + present +
			env8 + env8 + env8 + "28 00 00 00 00 00 00 00" + env8 + "18 00 00 00 00 00 00 00" +
			u(0x2000) + u(0x1000) + u(0x1000) + u(20) + present + bytesHex(bytes.Repeat([]byte{0xee}, 20)) + "00 00 00 00" +
			u(0x2000) + u(5) + present + "6d 61 70 2d 31 00 00 00"},
		{"BytesPadded", block, meta + u(4) + u(16+16+8+24) + u(2) + present +
			env8 + "18 00 00 00 00 00 00 00" + u(0x611000) + u(3) + present + "61 62 63 00 00 00 00 00"},
		{"NegativeTimestamp", neg, meta + u(1) + u(16+32+8) + u(4) + present +
			zeroEnv + zeroEnv + zeroEnv + env8 + u(0xffffffffd1a40d8f)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkSuccess(t, c.name, &c.e, unhex(t, c.bytes))
		})
	}
}

func bytesHex(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteString(" ")
		s.WriteString(strings.ToLower(string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15])))
	}
	return s.String() + " "
}

// TestGIDLDecodeFailure: non-canonical or invalid bytes, with where the
// error must point.
func TestGIDLDecodeFailure(t *testing.T) {
	good := unhex(t, stackTraceVector)
	patch := func(b []byte, at int, v ...byte) []byte {
		c := bytes.Clone(b)
		copy(c[at:], v)
		return c
	}
	thread := Element{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Key: 1, Koid: 2, Name: "worker"}}
	set(&thread.ThreadInfo.Present, 1, 2, 3)
	tb := mustPersist(t, &thread) // name header at 0x50, bytes at 0x60
	badName := thread
	badName.ThreadInfo.Name = "w\xffrker"
	longName := thread
	longName.ThreadInfo.Name = strings.Repeat("x", 33)
	region := Element{Kind: KindExecutableRegion, ExecutableRegion: ExecutableRegion{BuildID: BuildID{Value: make([]byte, 33)}}}
	region.ExecutableRegion.Present.Set(RegionBuildID)
	trailingAbsent := patch(good, 0x18, 3) // max ordinal 3, no envelope 3 ...
	trailingAbsent = append(trailingAbsent[:0x38], append(make([]byte, 8), trailingAbsent[0x38:]...)...)
	binary.LittleEndian.PutUint32(trailingAbsent[0x10:], 80)
	unkNotMul8 := Element{Kind: KindAllocation, Allocation: Allocation{Unknown: []RawField{{Ordinal: 7, Bytes: make([]byte, 8)}}}}
	unkBytes := rawPersist(&unkNotMul8)
	binary.LittleEndian.PutUint32(unkBytes[0x28+6*8:], 4) // envelope 7: num_bytes 4

	cases := []struct {
		name string
		b    []byte
		off  int64
		msg  string
	}{
		{"Empty", nil, 0, "too short"},
		{"Disambiguator", patch(good, 0, 1), 0, "disambiguator"},
		{"Magic", patch(good, 1, 2), 1, "magic"},
		{"V1Flags", patch(good, 2, 0), 2, "wire format v2"},
		{"Reserved", patch(good, 5, 1), 5, "reserved"},
		{"OnlyMetadata", good[:8], 8, "no room"},
		{"UnionOrdinalZero", patch(good, 8, 0), 8, "ordinal 0"},
		{"AbsentUnion", patch(good, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 8, "absent"},
		{"AbsentUnionEnvelope", patch(good, 0x10, 0, 0, 0, 0), 0x10, "absent envelope"},
		{"UnionNumBytesWrong", patch(good, 0x10, 0x50), 0x10, "num_bytes 80"},
		{"UnionInlineForTable", patch(good, 0x16, 1), 0x16, "inline envelope"},
		{"UnionFlagsInvalid", patch(good, 0x16, 2), 0x16, "flags"},
		{"UnionHandles", patch(good, 0x14, 1), 0x14, "handles"},
		{"TableAbsent", patch(good, 0x20, 0, 0, 0, 0, 0, 0, 0, 0), 0x20, "absent"},
		{"TablePresenceInvalid", patch(good, 0x20, 0xab), 0x20, "presence marker"},
		{"TableCountOver32Bits", patch(good, 0x18, 0, 0, 0, 0, 1), 0x18, "more than a FIDL table's 64"},
		{"TableCountOver64", patch(good, 0x18, 65), 0x18, "more than a FIDL table's 64"},
		{"TableCountTooLarge", patch(good, 0x18, 0, 0, 0, 1), 0x18, "more than a FIDL table"},
		{"TableCountOverBytes", patch(good, 0x18, 60), 0x18, "bytes are left"},
		{"TrailingAbsentEnvelope", trailingAbsent, 0x18, "canonical"},
		{"FieldNumBytesWrong", patch(good, 0x30, 0x28), 0x30, "num_bytes 40"},
		{"FieldInline", patch(good, 0x2e, 1), 0x2e, "inline envelope"},
		{"FieldInvalidFlags", patch(good, 0x2e, 0xfe, 0xff), 0x2e, "flags"},
		{"FieldHandles", patch(good, 0x2c, 1), 0x2c, "handles"},
		{"FieldNumBytesNotMul8", patch(good, 0x28, 7), 0x28, "multiple of 8"},
		{"VectorAbsent", patch(good, 0x48, 0, 0, 0, 0, 0, 0, 0, 0), 0x48, "absent"},
		{"VectorPresenceInvalid", patch(good, 0x48, 1), 0x48, "presence marker"},
		{"VectorCountHuge", patch(good, 0x40, 0, 0, 0, 0, 0, 1), 0x40, "bound"},
		{"VectorCountTooLarge", patch(good, 0x40, 3), 0x40, "bytes are left"},
		{"TrailingBytes", append(bytes.Clone(good), make([]byte, 8)...), 0x60, "after the end"},
		{"Truncated", good[:0x58], 0x40, "bytes are left"},
		{"NonZeroPadding", patch(tb, 0x66, 1), 0x66, "padding"},
		{"NotUTF8", rawPersist(&badName), 0x60, "UTF-8"},
		{"StringOverBound", rawPersist(&longName), 0x50, "bound 32"},
		{"BuildIDOverBound", rawPersist(&region), 0x48, "bound 32"},
		{"UnknownNumBytesNotMul8", unkBytes, 0x28 + 6*8, "multiple of 8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e Element
			err := Unpersist(c.b, &e)
			if err == nil {
				t.Fatalf("decoded %x", c.b)
			}
			fe := formatError(t, err)
			if fe.Offset != c.off || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q (offset %d), want offset %d and %q", err, fe.Offset, c.off, c.msg)
			}
		})
	}
}

func TestEncodeRejects(t *testing.T) {
	bad := []Element{
		{},                  // no kind
		{Kind: Kind(9)},     // not a variant
		{Kind: KindUnknown}, // ordinal 0
		{Kind: KindUnknown, Unknown: RawField{Ordinal: 3, Bytes: make([]byte, 8)}},
		{Kind: KindUnknown, Unknown: RawField{Ordinal: 8, Bytes: make([]byte, 7)}},
		{Kind: KindUnknown, Unknown: RawField{Ordinal: 8}},
		{Kind: KindUnknown, Unknown: RawField{Ordinal: 8, Inline: true, Bytes: make([]byte, 8)}},
		{Kind: KindAllocation, Allocation: Allocation{Present: 0x40}},
		{Kind: KindAllocation, Allocation: Allocation{Unknown: []RawField{{Ordinal: 6, Bytes: make([]byte, 8)}}}},
		{Kind: KindAllocation, Allocation: Allocation{Unknown: []RawField{{Ordinal: 8, Bytes: make([]byte, 8)}, {Ordinal: 8, Bytes: make([]byte, 8)}}}},
		{Kind: KindAllocation, Allocation: Allocation{Unknown: []RawField{{Ordinal: 1 << 32, Bytes: make([]byte, 8)}}}},
		{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Present: 4, Name: strings.Repeat("a", 33)}},
		{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Present: 4, Name: "\xc0\x80"}},
		{Kind: KindSnapshotHeader, SnapshotHeader: SnapshotHeader{Present: 1, ProcessName: "\xed\xa0\x80"}},
		{Kind: KindExecutableRegion, ExecutableRegion: ExecutableRegion{Present: 8, BuildID: BuildID{Value: make([]byte, 33)}}},
		{Kind: KindExecutableRegion, ExecutableRegion: ExecutableRegion{Present: 32, Name: "\xff"}},
	}
	for i, e := range bad {
		if b, err := Persist(&e); err == nil {
			t.Errorf("case %d: encoded %x", i, b)
		}
		dst := []byte{1, 2, 3}
		if out, err := AppendPersist(dst, &e); err == nil || !bytes.Equal(out, dst) {
			t.Errorf("case %d: AppendPersist changed dst", i)
		}
	}
	// Absent fields are not checked: their values are ignored.
	ok := Element{Kind: KindThreadInfo, ThreadInfo: ThreadInfo{Name: "\xff" + strings.Repeat("a", 40)}}
	if b, err := Persist(&ok); err != nil || len(b) != 40 {
		t.Errorf("absent invalid name: %x, %v", b, err)
	}
}

// TestRoundTripRandom: random elements encode, decode to the same value and
// encode to the same bytes.
func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d Element
	for i := range 20000 {
		e := randomElement(rng)
		b, err := Persist(&e)
		if err != nil {
			t.Fatalf("element %d (%+v): %v", i, variant(&e), err)
		}
		if len(b) != 8+e.WireSize() {
			t.Fatalf("element %d: %d bytes, WireSize %d", i, len(b), e.WireSize())
		}
		if err := Unpersist(b, &d); err != nil {
			t.Fatalf("element %d (%+v): decode: %v\n%x", i, variant(&e), err, b)
		}
		if d.Kind != e.Kind || !reflect.DeepEqual(variant(&d), variant(&e)) {
			t.Fatalf("element %d: decoded\n%+v\nwant\n%+v", i, variant(&d), variant(&e))
		}
		b2, err := Persist(&d)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("element %d: re-encoded differently (%v)", i, err)
		}
		// Every truncation fails cleanly, every single-bit flip either
		// fails or decodes to something that encodes to the flipped bytes.
		if i%50 == 0 {
			for k := range len(b) {
				if err := Unpersist(b[:k], &d); err == nil {
					t.Fatalf("element %d truncated to %d decoded", i, k)
				}
				c := bytes.Clone(b)
				c[k] ^= 1 << (k % 8)
				if err := Unpersist(c, &d); err == nil {
					if c2, err := Persist(&d); err != nil || !bytes.Equal(c, c2) {
						t.Fatalf("element %d, bit flip at %d: decoded but not a fixed point (%v)", i, k, err)
					}
				}
			}
		}
	}
}

// TestDecodeReuse: decoding into a used Element resets the variant.
func TestDecodeReuse(t *testing.T) {
	a := allocationElement(true)
	a.Allocation.Unknown = []RawField{{Ordinal: 9, Bytes: make([]byte, 8)}}
	e := a
	empty := Element{Kind: KindAllocation}
	if err := Unpersist(mustPersist(t, &empty), &e); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.Allocation, Allocation{}) {
		t.Errorf("not reset: %+v", e.Allocation)
	}
}
