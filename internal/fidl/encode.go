package fidl

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// MaxPersistedSize is the largest persisted element this package writes or
// reads: envelope sizes are 32-bit, and so are the container's record
// lengths.
const MaxPersistedSize = math.MaxUint32

// Persist encodes e as fidl::persist does: the wire metadata, then the
// standalone v2 encoding of the SnapshotElement. The encoding is canonical:
// Unpersist of the result gives e back and Persist of that gives the same
// bytes.
func Persist(e *Element) ([]byte, error) {
	// Validated first: the size of an invalid element may be absurd.
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return new(encoder).appendElement(make([]byte, 0, 24+e.payloadSize()), e), nil
}

// AppendPersist appends Persist(e) to dst. On error dst is returned
// unchanged.
func AppendPersist(dst []byte, e *Element) ([]byte, error) {
	return new(encoder).appendPersist(dst, e)
}

// appendPersist encodes with enc, which callers reuse.
func (enc *encoder) appendPersist(dst []byte, e *Element) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return dst, err
	}
	return enc.appendElement(dst, e), nil
}

// appendElement appends e's persisted encoding without validating it (the
// tests use it to build invalid inputs).
func (enc *encoder) appendElement(dst []byte, e *Element) []byte {
	enc.b = dst
	defer func() { enc.b = nil }()
	enc.b = append(enc.b, WireMetadata[:]...)
	enc.u64(e.Ordinal())
	env := enc.zeros(8)
	if e.Kind == KindUnknown {
		enc.raw(env, &e.Unknown)
	} else {
		start := len(enc.b)
		enc.table(e.tableOf())
		binary.LittleEndian.PutUint32(enc.b[env:], uint32(len(enc.b)-start))
	}
	return enc.b
}

// WireSize returns the bytes e takes in a SnapshotReceiver.Batch message:
// the 16-byte union plus its out-of-line payload. This is what
// measure-tape reports and what the collector's Streamer adds up; a
// persisted element is 8 bytes longer (the wire metadata).
func (e *Element) WireSize() int { return 16 + e.payloadSize() }

func pad8(n int) int { return (n + 7) &^ 7 }

func (e *Element) payloadSize() int {
	if e.Kind == KindUnknown {
		return rawSize(&e.Unknown)
	}
	t := e.tableOf()
	if t == nil {
		return 0
	}
	return tableSize(t)
}

func rawSize(r *RawField) int {
	if r.Inline {
		return 0
	}
	return len(r.Bytes)
}

// maxOrdinal is the table's canonical envelope count.
func maxOrdinal(t table) int {
	if u := t.unknownFields(); len(u) > 0 {
		return int(min(u[len(u)-1].Ordinal, 1<<32))
	}
	f := t.fields()
	for ord := t.numKnown(); ord >= 1; ord-- {
		if f.Has(ord) {
			return ord
		}
	}
	return 0
}

func tableSize(t table) int {
	n := 16 + 8*maxOrdinal(t)
	f := t.fields()
	for ord := 1; ord <= t.numKnown(); ord++ {
		if f.Has(ord) {
			n += t.fieldSize(ord)
		}
	}
	for i := range t.unknownFields() {
		n += rawSize(&t.unknownFields()[i])
	}
	return n
}

func (a *Allocation) fieldSize(int) int { return 8 }

func (s *StackTrace) fieldSize(ord int) int {
	if ord == StackTraceKey {
		return 8
	}
	return 16 + 8*len(s.ProgramAddresses)
}

func (t *ThreadInfo) fieldSize(ord int) int {
	if ord == ThreadInfoName {
		return 16 + pad8(len(t.Name))
	}
	return 8
}

func (r *ExecutableRegion) fieldSize(ord int) int {
	switch ord {
	case RegionBuildID:
		return 16 + pad8(len(r.BuildID.Value))
	case RegionName:
		return 16 + pad8(len(r.Name))
	}
	return 8
}

func (b *BlockContents) fieldSize(ord int) int {
	if ord == BlockContentsContents {
		return 16 + pad8(len(b.Contents))
	}
	return 8
}

func (h *SnapshotHeader) fieldSize(ord int) int {
	if ord == SnapshotHeaderProcessName {
		return 16 + pad8(len(h.ProcessName))
	}
	return 8
}

func encodeErrorf(msg string, args ...any) error {
	return fmt.Errorf("fuchsia-fidl: cannot encode: "+msg, args...)
}

// Validate reports what would keep e from being encoded: an unset kind,
// presence bits for ordinals the table does not have, unknown fields out of
// order or malformed, strings over their bound or not UTF-8, a build ID
// over 32 bytes, or an element over MaxPersistedSize.
func (e *Element) Validate() error {
	if e.Kind == KindUnknown {
		if e.Unknown.Ordinal <= uint64(KindSnapshotHeader) {
			return encodeErrorf("unknown SnapshotElement variant with ordinal %d, which is 0 or a known one", e.Unknown.Ordinal)
		}
		if err := checkRaw(&e.Unknown, "unknown SnapshotElement variant"); err != nil {
			return err
		}
	} else {
		t := e.tableOf()
		if t == nil {
			return encodeErrorf("element kind %v is not a SnapshotElement variant", e.Kind)
		}
		if err := checkTable(t); err != nil {
			return err
		}
	}
	if n := 24 + uint64(e.payloadSize()); n > MaxPersistedSize {
		return encodeErrorf("%v element of %d bytes is larger than %d", e.Kind, n, uint64(MaxPersistedSize))
	}
	return nil
}

func checkRaw(r *RawField, what string) error {
	if r.Inline {
		if len(r.Bytes) != 4 {
			return encodeErrorf("%s %d: an inline payload has 4 bytes, not %d", what, r.Ordinal, len(r.Bytes))
		}
		return nil
	}
	if len(r.Bytes) == 0 || len(r.Bytes)%8 != 0 {
		return encodeErrorf("%s %d: an out-of-line payload of %d bytes (must be a non-zero multiple of 8)", what, r.Ordinal, len(r.Bytes))
	}
	return nil
}

func checkTable(t table) error {
	nk := t.numKnown()
	if f := t.fields(); f>>nk != 0 {
		return encodeErrorf("%s: presence bits 0x%02x name ordinals it does not have", t.name(), uint8(f))
	}
	last := uint64(nk)
	for i := range t.unknownFields() {
		r := &t.unknownFields()[i]
		if r.Ordinal <= last || r.Ordinal > MaxTableOrdinal {
			return encodeErrorf("%s: unknown field ordinal %d (unknown fields need increasing ordinals above %d and at most %d)", t.name(), r.Ordinal, nk, MaxTableOrdinal)
		}
		last = r.Ordinal
		if err := checkRaw(r, t.name()+" unknown field"); err != nil {
			return err
		}
	}
	f := t.fields()
	checkString := func(ord int, s string, limit uint64) error {
		if !f.Has(ord) {
			return nil
		}
		if uint64(len(s)) > limit {
			return encodeErrorf("%s: %d bytes, more than its bound %d", fieldName(t, ord), len(s), limit)
		}
		if !utf8.ValidString(s) {
			return encodeErrorf("%s is not valid UTF-8", fieldName(t, ord))
		}
		return nil
	}
	switch t := t.(type) {
	case *ThreadInfo:
		return checkString(ThreadInfoName, t.Name, MaxNameLength)
	case *SnapshotHeader:
		return checkString(SnapshotHeaderProcessName, t.ProcessName, MaxNameLength)
	case *ExecutableRegion:
		if f.Has(RegionBuildID) && len(t.BuildID.Value) > MaxBuildIDLength {
			return encodeErrorf("ExecutableRegion.build_id: %d bytes, more than its bound %d", len(t.BuildID.Value), MaxBuildIDLength)
		}
		return checkString(RegionName, t.Name, MaxVectorLength)
	case *StackTrace:
		if f.Has(StackTraceProgramAddresses) && uint64(len(t.ProgramAddresses)) > MaxVectorLength {
			return encodeErrorf("StackTrace.program_addresses: %d entries, more than %d", len(t.ProgramAddresses), MaxVectorLength)
		}
	case *BlockContents:
		if f.Has(BlockContentsContents) && uint64(len(t.Contents)) > MaxVectorLength {
			return encodeErrorf("BlockContents.contents: %d bytes, more than %d", len(t.Contents), MaxVectorLength)
		}
	}
	return nil
}

// encoder appends the canonical encoding; the element is validated first,
// so it cannot fail.
type encoder struct{ b []byte }

func (e *encoder) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }

// zeros appends n zero bytes and returns where they start.
func (e *encoder) zeros(n int) int {
	at := len(e.b)
	e.b = slices.Grow(e.b, n)[:at+n]
	clear(e.b[at:])
	return at
}

// bytes appends p and zero padding to a multiple of 8.
func (e *encoder) bytes(p []byte) {
	e.b = append(e.b, p...)
	if n := pad8(len(p)) - len(p); n > 0 {
		e.zeros(n)
	}
}

func (e *encoder) vectorHeader(n int) {
	e.u64(uint64(n))
	e.u64(allOnes)
}

func (e *encoder) byteVector(p []byte) {
	e.vectorHeader(len(p))
	e.bytes(p)
}

func (e *encoder) string(s string) {
	e.vectorHeader(len(s))
	e.b = append(e.b, s...)
	if n := pad8(len(s)) - len(s); n > 0 {
		e.zeros(n)
	}
}

// raw writes an unknown payload and fills its envelope at env.
func (e *encoder) raw(env int, r *RawField) {
	if r.Inline {
		copy(e.b[env:env+4], r.Bytes)
		binary.LittleEndian.PutUint16(e.b[env+6:], 1)
		return
	}
	binary.LittleEndian.PutUint32(e.b[env:], uint32(len(r.Bytes)))
	e.b = append(e.b, r.Bytes...)
}

// table appends a table: its 16-byte header, the envelopes, then each
// field's payload in ordinal order (unknown fields always have ordinals
// above the known ones).
func (e *encoder) table(t table) {
	m := maxOrdinal(t)
	e.u64(uint64(m))
	e.u64(allOnes)
	envs := e.zeros(8 * m)
	f := t.fields()
	for ord := 1; ord <= t.numKnown(); ord++ {
		if !f.Has(ord) {
			continue
		}
		start := len(e.b)
		t.encodeField(e, ord)
		binary.LittleEndian.PutUint32(e.b[envs+8*(ord-1):], uint32(len(e.b)-start))
	}
	for i := range t.unknownFields() {
		r := &t.unknownFields()[i]
		e.raw(envs+8*int(r.Ordinal-1), r)
	}
}

func (a *Allocation) encodeField(e *encoder, ord int) {
	switch ord {
	case AllocationAddress:
		e.u64(a.Address)
	case AllocationSize:
		e.u64(a.Size)
	case AllocationStackTraceKey:
		e.u64(a.StackTraceKey)
	case AllocationTimestamp:
		e.u64(uint64(a.Timestamp))
	case AllocationThreadInfoKey:
		e.u64(a.ThreadInfoKey)
	case AllocationCount:
		e.u64(a.Count)
	}
}

func (s *StackTrace) encodeField(e *encoder, ord int) {
	if ord == StackTraceKey {
		e.u64(s.Key)
		return
	}
	e.vectorHeader(len(s.ProgramAddresses))
	at := e.zeros(8 * len(s.ProgramAddresses))
	for i, a := range s.ProgramAddresses {
		binary.LittleEndian.PutUint64(e.b[at+8*i:], a)
	}
}

func (t *ThreadInfo) encodeField(e *encoder, ord int) {
	switch ord {
	case ThreadInfoKey:
		e.u64(t.Key)
	case ThreadInfoKoid:
		e.u64(t.Koid)
	case ThreadInfoName:
		e.string(t.Name)
	}
}

func (r *ExecutableRegion) encodeField(e *encoder, ord int) {
	switch ord {
	case RegionAddress:
		e.u64(r.Address)
	case RegionSize:
		e.u64(r.Size)
	case RegionFileOffset:
		e.u64(r.FileOffset)
	case RegionBuildID:
		e.byteVector(r.BuildID.Value)
	case RegionVaddr:
		e.u64(r.Vaddr)
	case RegionName:
		e.string(r.Name)
	}
}

func (b *BlockContents) encodeField(e *encoder, ord int) {
	if ord == BlockContentsAddress {
		e.u64(b.Address)
		return
	}
	e.byteVector(b.Contents)
}

func (h *SnapshotHeader) encodeField(e *encoder, ord int) {
	if ord == SnapshotHeaderProcessName {
		e.string(h.ProcessName)
		return
	}
	e.u64(h.ProcessKoid)
}
