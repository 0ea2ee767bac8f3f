package fuchsia

import (
	"math"
	"strconv"
)

// The profile is a perftools.profiles.Profile protocol buffer: the field
// numbers below are those of google/pprof's profile.proto, one block per
// message, as profile/encode.go keeps one table per message. The reader
// decodes and the writer encodes the messages by them.

// Wire types of the protocol buffer encoding: the low three bits of a
// field's key (field number << 3 | wire type).
const (
	WireVarint  = 0
	WireFixed64 = 1
	WireBytes   = 2 // length-delimited: strings, messages, packed integers
	WireFixed32 = 5
)

// Fields of the Profile message. Those marked singular hold one value
// (ProfileSingular); the others repeat.
const (
	ProfileSampleType        = 1  // ValueType, one per value of a sample
	ProfileSample            = 2  // Sample
	ProfileMapping           = 3  // Mapping
	ProfileLocation          = 4  // Location
	ProfileFunction          = 5  // Function
	ProfileStringTable       = 6  // string; the first is ""
	ProfileDropFrames        = 7  // singular string index
	ProfileKeepFrames        = 8  // singular string index
	ProfileTimeNanos         = 9  // singular int64
	ProfileDurationNanos     = 10 // singular int64
	ProfilePeriodType        = 11 // singular ValueType
	ProfilePeriod            = 12 // singular int64
	ProfileComment           = 13 // string indices, one per field or packed
	ProfileDefaultSampleType = 14 // singular string index
	ProfileDocURL            = 15 // singular string index; the last field
)

// ProfileSingular has bit n set for each Profile field n that holds one
// value: no encoder writes one twice, so the reader refuses a second.
const ProfileSingular = 1<<ProfileDropFrames | 1<<ProfileKeepFrames | 1<<ProfileTimeNanos |
	1<<ProfileDurationNanos | 1<<ProfilePeriodType | 1<<ProfilePeriod |
	1<<ProfileDefaultSampleType | 1<<ProfileDocURL

// Fields of the ValueType message (sample types and the period type).
const (
	ValueTypeType = 1 // string index
	ValueTypeUnit = 2 // string index
)

// Fields of the Sample message.
const (
	SampleLocationID = 1 // location ids, leaf first, one per field or packed
	SampleValue      = 2 // int64s, one per sample type, one per field or packed
	SampleLabel      = 3 // Label
)

// Fields of the Label message: a string label has Str, a numeric one Num
// and maybe NumUnit.
const (
	LabelKey     = 1 // string index
	LabelStr     = 2 // string index
	LabelNum     = 3 // int64
	LabelNumUnit = 4 // string index; the last field
)

// Fields of the Mapping message. The four has_* booleans are consecutive
// (MappingHasFunctions + b for bit b of Mappings.Flags, in the
// order of HasFunctions and the others).
const (
	MappingID              = 1
	MappingMemoryStart     = 2
	MappingMemoryLimit     = 3
	MappingFileOffset      = 4
	MappingFilename        = 5 // string index
	MappingBuildID         = 6 // string index
	MappingHasFunctions    = 7
	MappingHasFilenames    = 8
	MappingHasLineNumbers  = 9
	MappingHasInlineFrames = 10 // the last field
)

// MappingFlags is how many has_* booleans a Mapping has.
const MappingFlags = MappingHasInlineFrames - MappingHasFunctions + 1

// Fields of the Location message.
const (
	LocationID        = 1
	LocationMappingID = 2 // 0: no mapping
	LocationAddress   = 3
	LocationLine      = 4 // Line, innermost first
	LocationIsFolded  = 5 // the last field
)

// Fields of the Line message.
const (
	LineFunctionID = 1
	LineLine       = 2 // int64
	LineColumn     = 3 // int64; the last field
)

// Fields of the Function message.
const (
	FunctionID         = 1
	FunctionName       = 2 // string index
	FunctionSystemName = 3 // string index
	FunctionFilename   = 4 // string index
	FunctionStartLine  = 5 // int64; the last field
)

// The sample types ffx writes, in this order: value[0] counts the blocks
// of a sample, value[1] their bytes.
const (
	ObjectsType   = "objects"
	CountUnit     = "count"
	AllocatedType = "allocated"
	BytesUnit     = "bytes"
)

// The labels ffx writes on a sample (with --with-tags, and the process
// labels with --multi-process), in the order it writes them; the reader
// turns those of the form ffx writes into IR columns, and the writer
// writes the columns back as them.
const (
	ProcessNameLabel = "process_name" // string
	ProcessKoidLabel = "process_koid" // number without a unit
	AddressLabel     = "address"      // string, AppendAddress's spelling
	BytesLabel       = "bytes"        // number in BytesUnit, the sample's value[1]
	TimestampLabel   = "timestamp"    // number in NanosecondsUnit
	ThreadLabel      = "thread"       // string, AppendThread's spelling
)

// NanosecondsUnit is the unit of the timestamp label.
const NanosecondsUnit = "nanoseconds"

// AppendAddress appends an address as ffx spells it in the address label
// and in contents file names: "0x", then lowercase hex without leading
// zeros. Unsymbolized allocation sites are named so too.
func AppendAddress(b []byte, addr uint64) []byte {
	return strconv.AppendUint(append(b, "0x"...), addr, 16)
}

// ParseAddress parses an address spelled as AppendAddress spells it; any
// other spelling is not an address (the reader keeps such a label as it
// is, so that it is written back the same).
func ParseAddress(b []byte) (uint64, bool) {
	if len(b) < 3 || len(b) > 18 || b[0] != '0' || b[1] != 'x' || (b[2] == '0' && len(b) > 3) {
		return 0, false
	}
	var v uint64
	for _, c := range b[2:] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// AppendThread appends a thread label as ffx spells it: "name[koid]", the
// koid in decimal.
func AppendThread(b []byte, name string, koid uint64) []byte {
	b = append(b, name...)
	b = append(b, '[')
	b = strconv.AppendUint(b, koid, 10)
	return append(b, ']')
}

// SplitThread splits a thread label spelled as AppendThread spells it at
// its last '[' (a name may hold brackets); ok is false for any other
// spelling (a koid with leading zeros, or beyond 64 bits), which the reader
// keeps whole.
func SplitThread(b []byte) (name []byte, koid uint64, ok bool) {
	n := len(b)
	if n < 3 || b[n-1] != ']' {
		return nil, 0, false
	}
	j := n - 2
	for j >= 0 && b[j] >= '0' && b[j] <= '9' {
		j--
	}
	if j < 0 || b[j] != '[' || j == n-2 || (b[j+1] == '0' && j+2 != n-1) || n-2-j > 20 {
		return nil, 0, false
	}
	for _, c := range b[j+1 : n-1] {
		d := uint64(c - '0')
		if koid > (math.MaxUint64-d)/10 {
			return nil, 0, false
		}
		koid = koid*10 + d
	}
	return b[:j], koid, true
}
