// Package fuchsia reads Fuchsia heapdump snapshots into the IR: the pprof
// profiles (perftools.profiles.Profile protocol buffers) that
// `ffx profile heapdump snapshot` and `ffx profile heapdump download` write,
// gzip-compressed (the newest ffx, .pb.gz) or not (older ffx, whatever the
// file's name), and the optional --output-contents-dir directory of raw
// block contents.
//
// The format and every layout ffx has written are described in
// docs/formats/fuchsia.md (the profile, the contents directory, deriving
// edges); ir/fuchsia/section.go says how it maps into the IR. Read understands
// all of them: one sample per block (--with-tags:
// values [count, bytes], labels address, bytes, timestamp, thread, plus
// process_name and process_koid with --multi-process, one IR snapshot per
// process) and stack-merged samples, raw program counters and
// --symbolize'd functions and lines, kernel snapshots. What the reader
// shares with writers/fuchsia (field numbers, labels, contents file names,
// allocation sites) is package ir/fuchsia's.
//
// The profile is decoded straight into IR columns by a small protocol
// buffer decoder that applies github.com/google/pprof/profile's semantics
// (ParseUncompressed, then the checks of CheckValid): no per-sample Go
// objects, so a million-allocation profile reads in well under a second.
// Mapping ids and order are kept (pprof's Parse would renumber them).
// Errors give byte offsets: of the gzip file for the gzip stream's own
// errors, of the decompressed profile (ir.FormatError.Within) for the
// profile's.
//
// A gzipped profile is held to no compression ratio (one sample per object
// compresses 60 times and more): the decompressed bytes are checked to
// begin a profile before the buffer grows past them, so a gzip bomb is
// refused within its first 64 KiB that are not one (read.go's gunzip).
//
// With Options.ScanPointers and contents, edges are derived by scanning
// every block's aligned words for pointers into other blocks (see
// ir/fuchsia/section.go); they are heuristic.
package fuchsia
