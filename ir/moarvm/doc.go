// Package moarvm is the MoarVM heap snapshot format (.mvmheap, version 3,
// and the version 2 Debian's MoarVM writes) as far as the IR is concerned,
// stated once for readers/moarvm and writers/moarvm.
//
// It holds the IR's MoarVM sections: the file's (File, "moarvm": the
// metadata, the static frames, what each snapshot's table of contents
// added, what recovery did) and each snapshot's (Snapshot,
// "moarvm.snapshot": its metadata, each collectable's type-or-frame index
// and where its references start, the highscores), with their validation, selection of
// snapshots and loss report. It also holds the wire facts: the magic
// numbers of both versions, the version 3 block layout (block names,
// header and table-of-contents sizes, every column's entry size), the
// packing of a reference's kind and index, the split of self sizes too big
// for 16 bits, and the filemeta and snapmeta JSON as MoarVM lays it out.
//
// The format is described in docs/formats/moarvm.md. This package imports
// no other format's package.
package moarvm
