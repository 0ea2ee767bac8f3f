// Package irstream reads and writes the IR's on-disk form: a chunked,
// self-describing msgpack stream (.heapir), optionally compressed as one
// zstd stream (.heapir.zst). ../SPEC.md defines it.
//
// Encode writes an ir.File; Decode reads one and validates it. Both are
// driven by the column declarations of the core (ir.FileBindings,
// ir.SnapshotBindings) and of each section (ir.SectionBindings), so this
// package names no format. The stream declares every column it carries,
// which lets Decode bound each one before reading it and keep a section it
// does not know (as an ir.RawSection).
//
// Decode reads every schema version up to ir.Version and refuses newer
// ones. Versions 1 to 5 declared nothing and gave each format a record
// type of its own; decode_v5.go converts their records while streaming,
// using a frozen table of the columns they had, so that old archives read
// into today's sections.
//
// Every length the stream declares is checked against what the input can
// hold before memory is allocated for it. A stream Decode refuses gives an
// *ir.FormatError naming the byte offset of the record at fault (or -1
// when the records are well formed but the graph they make is invalid).
package irstream
