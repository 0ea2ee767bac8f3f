package fidl

import (
	"encoding/binary"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"strconv"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
)

// WireMetadata is the 8-byte header fidl::persist writes before the
// standalone encoding: disambiguator 0, magic number 1, at-rest flags 0x0002
// (wire format v2), 4 reserved zero bytes.
var WireMetadata = [8]byte{0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00}

// MaxDepth is FIDL's limit on nesting of out-of-line objects. The heapdump
// types nest at most 4 deep (union → table → envelope array → vector
// header → elements) and unknown payloads are kept opaque, so no input can
// reach it; it is checked anyway.
const MaxDepth = 32

const allOnes = ^uint64(0)

// decoder walks one persisted element. Offsets are into b; errors add base.
type decoder struct {
	b     []byte
	base  int64
	next  int // next out-of-line offset
	depth int
}

func (d *decoder) errorf(at int, msg string, args ...any) error {
	return ir.Errorf(fuchsiair.FormatFIDL, d.base+int64(at), msg, args...)
}

func (d *decoder) u64(at int) uint64 { return binary.LittleEndian.Uint64(d.b[at:]) }

// claim reserves the next out-of-line object of n bytes (padded to a
// multiple of 8, the padding checked to be zero) and returns its offset.
func (d *decoder) claim(n uint64, what string) (int, error) {
	rem := uint64(len(d.b) - d.next)
	if n > rem || (n+7)&^7 > rem {
		return 0, d.errorf(d.next, "%s needs %d bytes, but only %d are left in the element", what, n, rem)
	}
	at := d.next
	end := at + int((n+7)&^7)
	for i := at + int(n); i < end; i++ {
		if d.b[i] != 0 {
			return 0, d.errorf(i, "non-zero padding byte 0x%02x after %s", d.b[i], what)
		}
	}
	d.next = end
	return at, nil
}

// envelope is a decoded 8-byte envelope.
type envelope struct {
	numBytes uint32
	handles  uint16
	flags    uint16
}

func (d *decoder) envelope(at int) envelope {
	return envelope{
		numBytes: binary.LittleEndian.Uint32(d.b[at:]),
		handles:  binary.LittleEndian.Uint16(d.b[at+4:]),
		flags:    binary.LittleEndian.Uint16(d.b[at+6:]),
	}
}

func (v envelope) zero() bool { return v == envelope{} }

// checkEnvelope rejects what no envelope of a non-resource type may hold.
func (d *decoder) checkEnvelope(at int, v envelope, what string) error {
	if v.flags > 1 {
		return d.errorf(at+6, "%s: invalid envelope flags 0x%04x", what, v.flags)
	}
	if v.handles != 0 {
		return d.errorf(at+4, "%s: envelope declares %d handles, but the type holds none", what, v.handles)
	}
	if v.flags == 0 && v.numBytes%8 != 0 {
		return d.errorf(at, "%s: envelope num_bytes %d is not a multiple of 8", what, v.numBytes)
	}
	return nil
}

// raw keeps an unknown envelope's payload.
func (d *decoder) raw(at int, v envelope, ordinal uint64, what string) (RawField, error) {
	if v.flags == 1 {
		return RawField{Ordinal: ordinal, Inline: true, Bytes: append([]byte(nil), d.b[at:at+4]...)}, nil
	}
	off, err := d.claim(uint64(v.numBytes), what)
	if err != nil {
		return RawField{}, err
	}
	return RawField{Ordinal: ordinal, Bytes: append([]byte(nil), d.b[off:off+int(v.numBytes)]...)}, nil
}

// Unpersist decodes one element written by fidl::persist: the wire
// metadata, then the standalone v2 encoding of a SnapshotElement, and
// nothing after it. Error offsets are relative to the start of b. Only the
// canonical encoding is accepted (zero padding, exact num_bytes, presence
// markers 0 or all ones, tables without trailing absent envelopes, bounds
// and UTF-8 respected), so encoding the result gives b back. On error, e is
// left in an unspecified state.
func Unpersist(b []byte, e *Element) error { return new(decoder).unpersist(b, 0, e) }

// unpersist decodes with d, which callers reuse (it escapes through the
// table interface, so a fresh one per element would cost an allocation).
func (d *decoder) unpersist(b []byte, base int64, e *Element) error {
	*d = decoder{b: b, base: base}
	defer func() { d.b = nil }()
	if len(b) < 8 {
		return d.errorf(0, "persisted element of %d bytes: too short for the wire metadata", len(b))
	}
	switch {
	case b[0] != 0:
		return d.errorf(0, "wire metadata: disambiguator 0x%02x, want 0", b[0])
	case b[1] != 1:
		return d.errorf(1, "wire metadata: magic number 0x%02x, want 1", b[1])
	case b[2] != 2 || b[3] != 0:
		return d.errorf(2, "wire metadata: at-rest flags 0x%04x, want 0x0002 (wire format v2)", binary.LittleEndian.Uint16(b[2:]))
	}
	for i := 4; i < 8; i++ {
		if b[i] != 0 {
			return d.errorf(i, "wire metadata: reserved byte 0x%02x, want 0", b[i])
		}
	}
	if len(b) < 24 {
		return d.errorf(8, "persisted element of %d bytes: no room for the 16-byte union", len(b))
	}
	d.next = 24
	ordinal := d.u64(8)
	env := d.envelope(16)
	if ordinal == 0 {
		if env.zero() {
			return d.errorf(8, "SnapshotElement is absent (null), but it is not optional")
		}
		return d.errorf(8, "SnapshotElement: union ordinal 0 with a present envelope")
	}
	if env.zero() {
		return d.errorf(16, "SnapshotElement ordinal %d: absent envelope", ordinal)
	}
	if err := d.checkEnvelope(16, env, "SnapshotElement"); err != nil {
		return err
	}
	if ordinal > uint64(KindSnapshotHeader) {
		r, err := d.raw(16, env, ordinal, "unknown SnapshotElement variant")
		if err != nil {
			return err
		}
		e.Kind = KindUnknown
		e.Unknown = r
	} else {
		e.Kind = Kind(ordinal)
		e.resetVariant()
		t := e.tableOf()
		if env.flags == 1 {
			return d.errorf(22, "SnapshotElement.%s: inline envelope, but a table is stored out of line", t.name())
		}
		start := d.next
		if err := d.table(t); err != nil {
			return err
		}
		if got := d.next - start; got != int(env.numBytes) {
			return d.errorf(16, "SnapshotElement.%s: envelope num_bytes %d, but the payload takes %d", t.name(), env.numBytes, got)
		}
	}
	if d.next != len(b) {
		return d.errorf(d.next, "%d bytes after the end of the element", len(b)-d.next)
	}
	return nil
}

// resetVariant zeroes the variant Kind selects.
func (e *Element) resetVariant() {
	switch e.Kind {
	case KindAllocation:
		e.Allocation = Allocation{}
	case KindStackTrace:
		e.StackTrace = StackTrace{}
	case KindExecutableRegion:
		e.ExecutableRegion = ExecutableRegion{}
	case KindBlockContents:
		e.BlockContents = BlockContents{}
	case KindThreadInfo:
		e.ThreadInfo = ThreadInfo{}
	case KindSnapshotHeader:
		e.SnapshotHeader = SnapshotHeader{}
	case KindUnknown:
		e.Unknown = RawField{}
	}
}

// table decodes a table whose inline header is the next out-of-line
// object.
func (d *decoder) table(t table) error {
	if d.depth++; d.depth > MaxDepth {
		return d.errorf(d.next, "nesting deeper than %d", MaxDepth)
	}
	defer func() { d.depth-- }()
	at, err := d.claim(16, t.name())
	if err != nil {
		return err
	}
	m, presence := d.u64(at), d.u64(at+8)
	switch presence {
	case allOnes:
	case 0:
		return d.errorf(at+8, "%s is absent (null), but tables are not optional", t.name())
	default:
		return d.errorf(at+8, "%s: invalid presence marker 0x%016x", t.name(), presence)
	}
	if m > MaxTableOrdinal {
		return d.errorf(at, "%s: %d envelopes, more than a FIDL table's %d fields", t.name(), m, MaxTableOrdinal)
	}
	if rem := uint64(len(d.b) - d.next); m > rem/8 {
		return d.errorf(at, "%s: %d envelopes, but only %d bytes are left in the element", t.name(), m, rem)
	}
	envs, err := d.claim(m*8, t.name())
	if err != nil {
		return err
	}
	var present Fields
	var unknown []RawField
	nk := t.numKnown()
	for i := 0; i < int(m); i++ {
		ea, ord := envs+8*i, i+1
		env := d.envelope(ea)
		if env.zero() {
			if i == int(m)-1 {
				return d.errorf(at, "%s: max ordinal %d, but field %d is absent (not the canonical encoding)", t.name(), m, ord)
			}
			continue
		}
		if env.flags > 1 || env.handles != 0 || (env.flags == 0 && env.numBytes%8 != 0) {
			return d.checkEnvelope(ea, env, fieldName(t, ord))
		}
		if ord > nk {
			r, err := d.raw(ea, env, uint64(ord), fieldName(t, ord))
			if err != nil {
				return err
			}
			unknown = append(unknown, r)
			continue
		}
		if env.flags == 1 {
			return d.errorf(ea+6, "%s: inline envelope, but the field is stored out of line", fieldName(t, ord))
		}
		start := d.next
		if err := t.decodeField(d, ord); err != nil {
			return err
		}
		if got := d.next - start; got != int(env.numBytes) {
			return d.errorf(ea, "%s: envelope num_bytes %d, but the payload takes %d", fieldName(t, ord), env.numBytes, got)
		}
		present.Set(ord)
	}
	t.setFields(present)
	t.setUnknown(unknown)
	return nil
}

// fieldName names a table field for messages.
func fieldName(t table, ord int) string {
	if ord <= t.numKnown() {
		return t.name() + "." + fieldNames[t.name()][ord]
	}
	return t.name() + " field " + strconv.Itoa(ord) + " (unknown)"
}

var fieldNames = map[string][]string{
	"Allocation":       {"", "address", "size", "stack_trace_key", "timestamp", "thread_info_key", "count"},
	"StackTrace":       {"", "stack_trace_key", "program_addresses"},
	"ThreadInfo":       {"", "thread_info_key", "koid", "name"},
	"ExecutableRegion": {"", "address", "size", "file_offset", "build_id", "vaddr", "name"},
	"BlockContents":    {"", "address", "contents"},
	"SnapshotHeader":   {"", "process_name", "process_koid"},
}

var allocationFieldNames = [...]string{"", "Allocation.address", "Allocation.size", "Allocation.stack_trace_key",
	"Allocation.timestamp", "Allocation.thread_info_key", "Allocation.count"}

// u64Field decodes a uint64/int64 field payload.
func (d *decoder) u64Field(what string) (uint64, error) {
	at, err := d.claim(8, what)
	if err != nil {
		return 0, err
	}
	return d.u64(at), nil
}

// vector decodes a non-nullable vector header (the next out-of-line object)
// and claims its elements; it returns the count and where they start.
func (d *decoder) vector(what string, limit, elemSize uint64) (int, int, error) {
	at, err := d.claim(16, what)
	if err != nil {
		return 0, 0, err
	}
	n, presence := d.u64(at), d.u64(at+8)
	switch presence {
	case allOnes:
	case 0:
		return 0, 0, d.errorf(at+8, "%s is absent (null), but it is not optional", what)
	default:
		return 0, 0, d.errorf(at+8, "%s: invalid presence marker 0x%016x", what, presence)
	}
	if n > limit {
		return 0, 0, d.errorf(at, "%s has %d elements, more than its bound %d", what, n, limit)
	}
	if rem := uint64(len(d.b) - d.next); n > rem/elemSize {
		return 0, 0, d.errorf(at, "%s has %d elements, but only %d bytes are left in the element", what, n, rem)
	}
	data, err := d.claim(n*elemSize, what)
	if err != nil {
		return 0, 0, err
	}
	return int(n), data, nil
}

func (d *decoder) u64Vector(what string) ([]uint64, error) {
	n, at, err := d.vector(what, MaxVectorLength, 8)
	if err != nil || n == 0 {
		return nil, err
	}
	v := make([]uint64, n)
	for i := range v {
		v[i] = d.u64(at + 8*i)
	}
	return v, nil
}

func (d *decoder) byteVector(what string, limit uint64) ([]byte, error) {
	n, at, err := d.vector(what, limit, 1)
	if err != nil || n == 0 {
		return nil, err
	}
	return append([]byte(nil), d.b[at:at+n]...), nil
}

func (d *decoder) string(what string, limit uint64) (string, error) {
	n, at, err := d.vector(what, limit, 1)
	if err != nil {
		return "", err
	}
	s := d.b[at : at+n]
	if !utf8.Valid(s) {
		return "", d.errorf(at, "%s is not valid UTF-8", what)
	}
	return string(s), nil
}

func (a *Allocation) decodeField(d *decoder, ord int) error {
	v, err := d.u64Field(allocationFieldNames[ord])
	if err != nil {
		return err
	}
	switch ord {
	case AllocationAddress:
		a.Address = v
	case AllocationSize:
		a.Size = v
	case AllocationStackTraceKey:
		a.StackTraceKey = v
	case AllocationTimestamp:
		a.Timestamp = int64(v)
	case AllocationThreadInfoKey:
		a.ThreadInfoKey = v
	case AllocationCount:
		a.Count = v
	}
	return nil
}

func (s *StackTrace) decodeField(d *decoder, ord int) (err error) {
	if ord == StackTraceKey {
		s.Key, err = d.u64Field("StackTrace.stack_trace_key")
		return err
	}
	s.ProgramAddresses, err = d.u64Vector("StackTrace.program_addresses")
	return err
}

func (t *ThreadInfo) decodeField(d *decoder, ord int) (err error) {
	switch ord {
	case ThreadInfoKey:
		t.Key, err = d.u64Field("ThreadInfo.thread_info_key")
	case ThreadInfoKoid:
		t.Koid, err = d.u64Field("ThreadInfo.koid")
	case ThreadInfoName:
		t.Name, err = d.string("ThreadInfo.name", MaxNameLength)
	}
	return err
}

func (r *ExecutableRegion) decodeField(d *decoder, ord int) (err error) {
	switch ord {
	case RegionAddress:
		r.Address, err = d.u64Field("ExecutableRegion.address")
	case RegionSize:
		r.Size, err = d.u64Field("ExecutableRegion.size")
	case RegionFileOffset:
		r.FileOffset, err = d.u64Field("ExecutableRegion.file_offset")
	case RegionBuildID:
		// BuildId is a struct whose only member is the vector: its 16-byte
		// inline form is the vector header.
		r.BuildID.Value, err = d.byteVector("ExecutableRegion.build_id", MaxBuildIDLength)
	case RegionVaddr:
		r.Vaddr, err = d.u64Field("ExecutableRegion.vaddr")
	case RegionName:
		r.Name, err = d.string("ExecutableRegion.name", MaxVectorLength)
	}
	return err
}

func (b *BlockContents) decodeField(d *decoder, ord int) (err error) {
	if ord == BlockContentsAddress {
		b.Address, err = d.u64Field("BlockContents.address")
		return err
	}
	b.Contents, err = d.byteVector("BlockContents.contents", MaxVectorLength)
	return err
}

func (h *SnapshotHeader) decodeField(d *decoder, ord int) (err error) {
	if ord == SnapshotHeaderProcessName {
		h.ProcessName, err = d.string("SnapshotHeader.process_name", MaxNameLength)
		return err
	}
	h.ProcessKoid, err = d.u64Field("SnapshotHeader.process_koid")
	return err
}
