package moarvm

import (
	"bytes"
	"encoding/binary"
)

// Magic3 and Magic2 are the first 16 bytes of format versions 3 and 2 (no
// NUL follows them).
const (
	Magic3 = "MoarHeapDumpv003"
	Magic2 = "MoarHeapDumpv002"
)

// MagicSize is the magic's length: where a version 3 file's first block
// (filemeta) starts, and so the lowest offset any block may have.
const MagicSize = len(Magic3)

// A version 3 block starts with its name in a NameSize-byte field,
// NUL-padded, then for a column a u16 entry size, then a u64 (the JSON's
// length for metadata, the entry count for a TOC, 0 before a zstd frame).
const (
	NameSize = 8 // a block name's field
	// HeaderSize is the header of every block but a column's: name, u64.
	HeaderSize = NameSize + 8
	// ColumnHeaderSize is a column's header: name, u16 entry size, u64.
	ColumnHeaderSize = NameSize + 2 + 8
	// TOCEntrySize is a TOC entry: name, u64 start, u64 end.
	TOCEntrySize = NameSize + 8 + 8
	// PointerSize is the u64 offset after every TOC (pointing at the TOC
	// itself) and at the end of the file (pointing at the outer TOC).
	PointerSize = 8
)

// TOCSize is the size of a TOC of n entries without the pointer after it:
// what a TOC entry naming a TOC gives as its end.
func TOCSize(n int64) int64 { return HeaderSize + TOCEntrySize*n }

// The blocks that are not columns.
const (
	BlockFileMeta = "filemeta" // the file's JSON metadata, right after the magic
	BlockSnapMeta = "snapmeta" // a snapshot's JSON metadata, its first block
	BlockStrings  = "strings"  // new strings: zstd of {u32 length, bytes}…
	BlockTOC      = "toc"      // a table of contents, inner or outer
)

// The column blocks: zstd-compressed little-endian integers of
// EntrySize(name) bytes each.
const (
	ColKind      = "colkind"  // a collectable's kind (NodeKinds)
	ColSize      = "colsize"  // its self size (see SizeContinued)
	ColTOFI      = "coltofi"  // its type or static frame index
	ColRefCount  = "colrfcnt" // how many references it has
	ColRefStart  = "colrfstr" // where they start in the reference table
	ColUnmanaged = "colusize" // its unmanaged size
	RefDescr     = "refdescr" // a reference's description (PackRef)
	RefTarget    = "reftrget" // a reference's target collectable
	ReprName     = "reprname" // new types' REPR names (string indices)
	TypeName     = "typename" // new types' names (string indices)
	FrameName    = "sfname"   // new static frames' names (string indices)
	FrameCUID    = "sfcuid"   // … compilation unit ids (string indices)
	FrameLine    = "sfline"   // … lines (numbers)
	FrameFile    = "sffile"   // … files (string indices)
	TopIDs       = "topIDs"   // highscore boards: type or frame indices
	TopScore     = "topscore" // highscore boards: counts or byte sums
)

// The column groups, each in the order MoarVM writes it: a snapshot's
// collectables and references, the types and the static frames a TOC adds
// (all of a group or none), and the highscore boards.
var (
	SnapshotColumns  = []string{ColKind, ColSize, ColTOFI, ColRefCount, ColRefStart, ColUnmanaged, RefDescr, RefTarget}
	TypeColumns      = []string{ReprName, TypeName}
	FrameColumns     = []string{FrameName, FrameCUID, FrameLine, FrameFile}
	HighscoreColumns = []string{TopIDs, TopScore}
)

// entrySizes are the entry sizes of the columns: sizeof the C struct
// member each one holds.
var entrySizes = map[string]int{
	ColKind: 2, ColSize: 2, ColTOFI: 4, ColRefCount: 4, ColRefStart: 8, ColUnmanaged: 8,
	RefDescr: 8, RefTarget: 8, ReprName: 4, TypeName: 4,
	FrameName: 4, FrameCUID: 4, FrameLine: 4, FrameFile: 4, TopIDs: 8, TopScore: 8,
}

// EntrySize returns the entry size every MoarVM writes in the header of
// the named column, or 0 for blocks that are not columns (filemeta,
// snapmeta, strings, toc) and unknown names: so it also tells columns
// apart.
func EntrySize(name string) int { return entrySizes[name] }

// AppendName appends name as a block's NUL-padded name field.
func AppendName(b []byte, name string) []byte {
	var n [NameSize]byte
	copy(n[:], name)
	return append(b, n[:]...)
}

// ParseName returns the name in a name field: its bytes up to the first
// NUL. MoarVM 2020.05–2020.12 left a garbage byte after the NUL of 6-letter
// names, so what follows the NUL is not looked at.
func ParseName(field []byte) string {
	if i := bytes.IndexByte(field, 0); i >= 0 {
		field = field[:i]
	}
	return string(field)
}

// AppendHeader appends the header of a block that is not a column: its
// name and a u64 (the JSON's length with its NUL for filemeta and
// snapmeta, the entry count for a TOC, 0 for strings).
func AppendHeader(b []byte, name string, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(AppendName(b, name), v)
}

// ParseHeader reads the header AppendHeader writes from the first
// HeaderSize bytes of hdr.
func ParseHeader(hdr []byte) (name string, v uint64) {
	return ParseName(hdr[:NameSize]), binary.LittleEndian.Uint64(hdr[NameSize:HeaderSize])
}

// AppendColumnHeader appends a column's header: its name, its entry size
// (EntrySize) and a u64 0, as MoarVM writes (the size of the zstd frame
// that follows is not known when the header is written).
func AppendColumnHeader(b []byte, name string) []byte {
	b = binary.LittleEndian.AppendUint16(AppendName(b, name), uint16(EntrySize(name)))
	return binary.LittleEndian.AppendUint64(b, 0)
}

// ParseColumnHeader reads a column header's name and entry size from the
// first ColumnHeaderSize bytes of hdr (the u64 after them says nothing).
func ParseColumnHeader(hdr []byte) (name string, entrySize int) {
	return ParseName(hdr[:NameSize]), int(binary.LittleEndian.Uint16(hdr[NameSize:ColumnHeaderSize]))
}

// AppendTOCEntry appends a TOC entry: a block's name and the offsets
// [start, end) it spans (a TOC's end leaves out the pointer after it).
func AppendTOCEntry(b []byte, name string, start, end int64) []byte {
	b = binary.LittleEndian.AppendUint64(AppendName(b, name), uint64(start))
	return binary.LittleEndian.AppendUint64(b, uint64(end))
}

// ParseTOCEntry reads the entry AppendTOCEntry writes from the first
// TOCEntrySize bytes of e. The offsets are as written: the caller checks
// them against the file.
func ParseTOCEntry(e []byte) (name string, start, end uint64) {
	return ParseName(e[:NameSize]), binary.LittleEndian.Uint64(e[NameSize:]), binary.LittleEndian.Uint64(e[NameSize+8 : TOCEntrySize])
}
