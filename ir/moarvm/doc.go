// Package moarvm holds the facts of the MoarVM heap snapshot format that
// both readers/moarvm and writers/moarvm need: the magic numbers of format
// versions 3 and 2, the version 3 block layout (block names and their
// 8-byte name field, the sizes of headers and table-of-contents entries,
// the entry size of every column), the refdescr packing of a reference's
// kind and index, the colsize/colusize split of self sizes too big for 16
// bits, and the filemeta and snapmeta JSON as MoarVM lays it out. Spelled
// once here, the reader and the writer cannot drift apart on any of them.
//
// The format is described in docs/formats/moarvm.md; ir/moarvm.go says how
// it maps into the IR, whose MoarVM sections (ir.MoarVMFile,
// ir.MoarVMSnapshot) and node and edge kinds stay in package ir, which
// validates and encodes them.
//
// Importers name it moarvmir, as readers/moarvm and writers/moarvm are package
// moarvm too.
package moarvm
