// Package heapconv reads, writes and converts VM heap snapshots: Dart VM
// heap snapshots, MoarVM .mvmheap files, V8 / Chrome DevTools
// .heapsnapshot files, and Fuchsia heapdumps (pprof profiles and FIDL
// SnapshotElement streams). Every format is read into one model, the
// intermediate representation of package ir, and every format is written
// from it, so any format can be written as any other.
//
// # Converting
//
// ConvertFile does what the heapconv command's convert does: it detects
// the input's format (inside a gzip or zstd wrapper too), takes the
// output's format from its name, writes the output atomically, and
// returns what the output format could not hold:
//
//	report, err := heapconv.ConvertFile("app.dartheap", "app.heapsnapshot", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	for _, loss := range report.Losses {
//		log.Printf("not kept: %v", loss)
//	}
//
// ConvertOptions select one snapshot of a file that holds several
// (Snapshot(n)), or write each to a file of its own (EachSnapshot).
// ConvertFileContext stops a long conversion when its context is done,
// leaving no output behind. ConvertOptions.Redact makes an output that
// can be shared: what the program stored (strings' contents, numbers,
// memory) replaced by placeholders of the same size, what describes it
// (the graph, sizes, class and property names) kept (ir.File.Redact).
//
// # Archiving
//
// ConvertFiles writes several files of one program (a series of
// snapshots, a directory of daily ones) into one .heapir.zst: a series
// (ir.JoinSeries), which stores the strings and classes they share once,
// and each snapshot against the one before it, so that what persists
// costs next to nothing. Snapshot n of the archive is the n-th file, byte
// for byte once converted back; ReadHeap("days.heapir.zst#12") and
// Input.ReadSnapshot read it from the archive's index without
// decompressing the other snapshots (but those it is stored against).
//
// # Reading and writing
//
// ReadFile and Read return an *ir.File: the string and class tables and
// one or more snapshots, each a graph of nodes and edges stored column by
// column. WriteFile and Write write one in a format; Convert converts one
// in memory and reads it back, to see what a conversion would keep. Open
// and OpenFile tell a file's format and, for MoarVM, list its snapshots
// before the (possibly long) read.
//
// Formats lists the formats; each Format reads and writes its own data
// directly (Format.Read, Format.Write), without detection or wrappers.
//
// # Comparing, navigating, querying
//
// ReadHeap reads one snapshot of a file ("prog.mvmheap#3" names snapshot
// 3) as an analysis.Heap. analysis.Compare compares two or three snapshots
// of one program: per class, and where objects keep their identity between
// snapshots (V8, Dart, Fuchsia), the objects new in the second and those
// of them still alive in the third. analysis.NewNavigator answers what
// holds an object, its distance from the roots, its shortest retainer path
// (for V8 as DevTools' Retainers view shows it) and its dominators.
// ExportTables writes a heap as Parquet tables for query engines (package
// tables), WriteReport as one HTML page (package report).
//
// # Loss
//
// A conversion keeps everything the target format can hold. What it
// cannot hold is reported, never dropped silently: one ir.Loss per kind,
// with a count and an example. docs/fidelity.md in the repository lists,
// for every pair of formats, what is kept, reshaped and lost.
//
// # Errors
//
// Damaged input is an *ir.FormatError naming the format and the byte
// offset; errors.As finds it under the input's name. Conditions a caller
// may act on are sentinel errors (ErrUnrecognized, ErrNoSnapshot,
// ErrTooManySnapshots, ErrExists, ...) to test with errors.Is; some come
// as a *SnapshotError or *OutputError with the details.
//
// # Checking a writer
//
// RoundTrip is the conformance round trip for a file of your own: read,
// write again, compare at the level the format promises (byte for byte
// for V8, Dart and FIDL streams). A program that writes heap snapshots
// can run it on its output to find where it and heapconv disagree.
package heapconv
