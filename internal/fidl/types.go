package fidl

import "fmt"

// Kind says which variant of SnapshotElement an Element holds. The known
// kinds are the union ordinals. In Stream.Records, Kind also marks the
// records that are not elements (KindEndOfBatch, KindCollectorError).
type Kind uint8

// Element kinds (= SnapshotElement ordinals) and record markers.
const (
	KindAllocation       Kind = 1
	KindStackTrace       Kind = 2
	KindExecutableRegion Kind = 3
	KindBlockContents    Kind = 4
	KindThreadInfo       Kind = 5
	KindSnapshotHeader   Kind = 6
	// KindUnknown is a SnapshotElement variant this codec does not know
	// (the union is flexible); Element.Unknown holds its ordinal and bytes.
	KindUnknown Kind = 0x7f
	// KindEndOfBatch ends a batch (only in Stream.Records).
	KindEndOfBatch Kind = 0x80
	// KindCollectorError stands for SnapshotReceiver.ReportError (only in
	// Stream.Records; Ref.Index holds the CollectorError value).
	KindCollectorError Kind = 0x81
)

var kindNames = map[Kind]string{
	KindAllocation:       "Allocation",
	KindStackTrace:       "StackTrace",
	KindExecutableRegion: "ExecutableRegion",
	KindBlockContents:    "BlockContents",
	KindThreadInfo:       "ThreadInfo",
	KindSnapshotHeader:   "SnapshotHeader",
	KindUnknown:          "unknown element",
	KindEndOfBatch:       "end of batch",
	KindCollectorError:   "collector error",
}

// String returns the FIDL type name of the kind.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Fields says which fields of a table are present: bit n-1 stands for the
// field with ordinal n. Only known ordinals have a bit; unknown fields are
// kept in the table's Unknown list.
type Fields uint8

// Has reports whether the field with the given ordinal is present.
func (f Fields) Has(ordinal int) bool {
	return ordinal >= 1 && ordinal <= 8 && f&(1<<(ordinal-1)) != 0
}

// Set marks the field with the given ordinal (1-8) present.
func (f *Fields) Set(ordinal int) {
	if ordinal >= 1 && ordinal <= 8 {
		*f |= 1 << (ordinal - 1)
	}
}

// Clear marks the field with the given ordinal absent.
func (f *Fields) Clear(ordinal int) {
	if ordinal >= 1 && ordinal <= 8 {
		*f &^= 1 << (ordinal - 1)
	}
}

// RawField is a table field or a union variant this codec does not know,
// kept as it was on the wire so that it is written back unchanged.
type RawField struct {
	// Ordinal is the table field ordinal or the union ordinal.
	Ordinal uint64
	// Inline is true for an inline envelope (flags = 1): Bytes then holds
	// the 4 value bytes. Otherwise Bytes holds the num_bytes out-of-line
	// bytes (a non-zero multiple of 8, padding included).
	Inline bool
	// Bytes is the payload.
	Bytes []byte
}

// MaxTableOrdinal is the largest ordinal a FIDL table field may have
// (RFC-0132 limits tables to 64 fields); the decoder refuses tables with
// more envelopes, which also bounds what unknown fields can cost.
const MaxTableOrdinal = 64

// MaxBuildIDLength is MAX_BUILD_ID_LENGTH, the bound of BuildId.value.
const MaxBuildIDLength = 32

// MaxNameLength is the bound of ThreadInfo.name and
// SnapshotHeader.process_name (string:32, in bytes).
const MaxNameLength = 32

// MaxVectorLength is FIDL's MAX, the bound of the unbounded vectors and
// strings (program_addresses, contents, ExecutableRegion.name).
const MaxVectorLength = 1<<32 - 1

// Field ordinals of Allocation.
const (
	AllocationAddress       = 1
	AllocationSize          = 2
	AllocationStackTraceKey = 3
	AllocationTimestamp     = 4
	AllocationThreadInfoKey = 5
	AllocationCount         = 6 // added at API level 29
)

// Allocation is the table fuchsia.memory.heapdump.client/Allocation: one or
// more allocated memory blocks.
type Allocation struct {
	// Present says which fields are set (bit n-1 for ordinal n); the
	// value of an absent field is ignored, and decodes as zero.
	Present       Fields
	Address       uint64
	Size          uint64
	StackTraceKey uint64
	Timestamp     int64 // zx.InstantMono, nanoseconds since boot
	ThreadInfoKey uint64
	Count         uint64
	Unknown       []RawField // unknown fields, by increasing ordinal
}

// CountOrDefault returns Count, or 1 when it is absent (the receiver's
// default).
func (a *Allocation) CountOrDefault() uint64 {
	if a.Present.Has(AllocationCount) {
		return a.Count
	}
	return 1
}

// Field ordinals of StackTrace.
const (
	StackTraceKey              = 1
	StackTraceProgramAddresses = 2
)

// StackTrace is the table StackTrace: one chunk of a stack trace, leaf
// frame first. Chunks with the same key are concatenated.
type StackTrace struct {
	// Present says which fields are set (bit n-1 for ordinal n); the
	// value of an absent field is ignored, and decodes as zero.
	Present          Fields
	Key              uint64 // stack_trace_key
	ProgramAddresses []uint64
	Unknown          []RawField
}

// Field ordinals of ThreadInfo.
const (
	ThreadInfoKey  = 1
	ThreadInfoKoid = 2
	ThreadInfoName = 3
)

// ThreadInfo is the table ThreadInfo.
type ThreadInfo struct {
	// Present says which fields are set (bit n-1 for ordinal n); the
	// value of an absent field is ignored, and decodes as zero.
	Present Fields
	Key     uint64 // thread_info_key
	Koid    uint64
	Name    string // string:32, UTF-8
	Unknown []RawField
}

// BuildID is the struct BuildId (value: vector<uint8>:32).
type BuildID struct {
	Value []byte
}

// Field ordinals of ExecutableRegion.
const (
	RegionAddress    = 1
	RegionSize       = 2
	RegionFileOffset = 3
	RegionBuildID    = 4
	RegionVaddr      = 5 // added at API level 27
	RegionName       = 6 // added at API level 27
)

// ExecutableRegion is the table ExecutableRegion: a memory region holding
// code loaded from an ELF file.
type ExecutableRegion struct {
	// Present says which fields are set (bit n-1 for ordinal n); the
	// value of an absent field is ignored, and decodes as zero.
	Present    Fields
	Address    uint64
	Size       uint64
	FileOffset uint64
	BuildID    BuildID
	Vaddr      uint64
	Name       string // string:MAX, UTF-8
	Unknown    []RawField
}

// Field ordinals of BlockContents.
const (
	BlockContentsAddress  = 1
	BlockContentsContents = 2
)

// BlockContents is the table BlockContents: one chunk of a memory block's
// contents. Chunks with the same address are concatenated.
type BlockContents struct {
	// Present says which fields are set (bit n-1 for ordinal n); the
	// value of an absent field is ignored, and decodes as zero.
	Present  Fields
	Address  uint64
	Contents []byte
	Unknown  []RawField
}

// Field ordinals of SnapshotHeader.
const (
	SnapshotHeaderProcessName = 1
	SnapshotHeaderProcessKoid = 2
)

// SnapshotHeader is the table SnapshotHeader, which opens each snapshot of
// a multi-process stream.
type SnapshotHeader struct {
	// Present says which fields are set (bit n-1 for ordinal n); the
	// value of an absent field is ignored, and decodes as zero.
	Present     Fields
	ProcessName string // string:32, UTF-8
	ProcessKoid uint64
	Unknown     []RawField
}

// Element is one SnapshotElement. Kind says which of the variant fields is
// meaningful; the others are ignored (an Element can be reused for
// decoding, which resets only the variant it fills). Slices are never
// shared with the bytes an Element was decoded from.
type Element struct {
	Kind             Kind
	Allocation       Allocation
	StackTrace       StackTrace
	ExecutableRegion ExecutableRegion
	BlockContents    BlockContents
	ThreadInfo       ThreadInfo
	SnapshotHeader   SnapshotHeader
	// Unknown holds an unknown variant: its union ordinal and envelope
	// payload.
	Unknown RawField
}

// Ordinal returns the element's union ordinal.
func (e *Element) Ordinal() uint64 {
	if e.Kind == KindUnknown {
		return e.Unknown.Ordinal
	}
	return uint64(e.Kind)
}

// table is what the generic table codec needs from each table type.
type table interface {
	name() string
	numKnown() int
	fields() Fields
	setFields(Fields)
	unknownFields() []RawField
	setUnknown([]RawField)
	// decodeField decodes known field ord, whose payload's inline object
	// starts at the next out-of-line offset.
	decodeField(d *decoder, ord int) error
	// encodeField appends known field ord's payload.
	encodeField(e *encoder, ord int)
	// fieldSize is the number of out-of-line bytes of known field ord.
	fieldSize(ord int) int
}

func (a *Allocation) name() string              { return "Allocation" }
func (a *Allocation) numKnown() int             { return 6 }
func (a *Allocation) fields() Fields            { return a.Present }
func (a *Allocation) setFields(f Fields)        { a.Present = f }
func (a *Allocation) unknownFields() []RawField { return a.Unknown }
func (a *Allocation) setUnknown(u []RawField)   { a.Unknown = u }
func (s *StackTrace) name() string              { return "StackTrace" }
func (s *StackTrace) numKnown() int             { return 2 }
func (s *StackTrace) fields() Fields            { return s.Present }
func (s *StackTrace) setFields(f Fields)        { s.Present = f }
func (s *StackTrace) unknownFields() []RawField { return s.Unknown }
func (s *StackTrace) setUnknown(u []RawField)   { s.Unknown = u }
func (t *ThreadInfo) name() string              { return "ThreadInfo" }
func (t *ThreadInfo) numKnown() int             { return 3 }
func (t *ThreadInfo) fields() Fields            { return t.Present }
func (t *ThreadInfo) setFields(f Fields)        { t.Present = f }
func (t *ThreadInfo) unknownFields() []RawField { return t.Unknown }
func (t *ThreadInfo) setUnknown(u []RawField)   { t.Unknown = u }
func (r *ExecutableRegion) name() string        { return "ExecutableRegion" }
func (r *ExecutableRegion) numKnown() int       { return 6 }
func (r *ExecutableRegion) fields() Fields      { return r.Present }
func (r *ExecutableRegion) setFields(f Fields)  { r.Present = f }
func (r *ExecutableRegion) unknownFields() []RawField {
	return r.Unknown
}
func (r *ExecutableRegion) setUnknown(u []RawField) { r.Unknown = u }
func (b *BlockContents) name() string               { return "BlockContents" }
func (b *BlockContents) numKnown() int              { return 2 }
func (b *BlockContents) fields() Fields             { return b.Present }
func (b *BlockContents) setFields(f Fields)         { b.Present = f }
func (b *BlockContents) unknownFields() []RawField  { return b.Unknown }
func (b *BlockContents) setUnknown(u []RawField)    { b.Unknown = u }
func (h *SnapshotHeader) name() string              { return "SnapshotHeader" }
func (h *SnapshotHeader) numKnown() int             { return 2 }
func (h *SnapshotHeader) fields() Fields            { return h.Present }
func (h *SnapshotHeader) setFields(f Fields)        { h.Present = f }
func (h *SnapshotHeader) unknownFields() []RawField { return h.Unknown }
func (h *SnapshotHeader) setUnknown(u []RawField)   { h.Unknown = u }

// tableOf returns the table an element holds, or nil for KindUnknown.
func (e *Element) tableOf() table {
	switch e.Kind {
	case KindAllocation:
		return &e.Allocation
	case KindStackTrace:
		return &e.StackTrace
	case KindExecutableRegion:
		return &e.ExecutableRegion
	case KindBlockContents:
		return &e.BlockContents
	case KindThreadInfo:
		return &e.ThreadInfo
	case KindSnapshotHeader:
		return &e.SnapshotHeader
	}
	return nil
}
