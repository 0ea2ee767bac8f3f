package fuchsia

import "github.com/heapconv/heapconv/ir"

// NodeKinds are the node kinds of a Fuchsia snapshot: every node is a heap
// allocation (a block, or a stack-merged group of blocks).
var NodeKinds = []string{ir.KindNative}

// EdgeKinds are the edge kinds of the pointers the reader derives from
// block contents (a profile has no edges): to a block's start (Pointer),
// and into it past its first byte (Interior).
var EdgeKinds = []ir.EdgeKind{{Name: ir.EdgeInternal}, {Name: InteriorEdge}}

// InteriorEdge is the kind name of a derived pointer into a block past its
// first byte (weaker evidence than a pointer to its start).
const InteriorEdge = "interior"

// Indices into EdgeKinds.
const (
	Pointer = iota
	Interior
)
