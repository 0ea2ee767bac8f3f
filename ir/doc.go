// Package ir is heapconv's intermediate representation of heap snapshots:
// one model that every reader produces and every writer consumes, so that
// any supported format can be converted to any other.
//
// A File holds snapshots that share a string table and a class table. Each
// Snapshot is a heap graph stored column by column (struct of arrays with
// integer indices): node kinds, names, ids and sizes; edges grouped by
// source node in CSR form; sparse primitive values; roots; named totals.
//
// The core knows no format. What a format has beyond the common model
// lives in a Section its own package defines and registers with
// RegisterSection (ir/v8, ir/dart, ir/moarvm, ir/fuchsia). A section binds
// its fields and columns once (Bind, with the Bindings of its version);
// the stream codec (ir/irstream), the text form (ir/irtext), Diff and
// Validate work from those bindings alone, so that adding a format adds
// no code here. A section nobody registered is kept as a RawSection and
// written back unchanged.
//
// Formats leave each other marks through small interfaces rather than by
// naming each other (marks.go): which nodes a writer invented
// (SyntheticMarker), which format a snapshot was converted from and what
// it kept of the source (Provenance), which library a class belongs to
// (ClassLibraries) and which classes were made from another format's
// (ForeignClasses). A conversion's LossReport
// names everything the target cannot hold; sections add theirs through
// LossReporter. File.Redact makes a heap shareable, replacing what the
// program stored by placeholders of the same size; sections say what
// they hold of it through their declarations (Data) and small interfaces
// (redact.go).
//
// SPEC.md in this directory defines the stream for readers in other
// languages. Dominators, retained sizes and class summaries are package
// ir/analysis's.
package ir
