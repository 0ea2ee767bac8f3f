// Package moarvm reads MoarVM heap snapshots (.mvmheap) into the IR.
//
// The format is defined by MoarVM's writer, src/profiler/heapsnapshot.c;
// docs/formats/moarvm.md describes it as measured on real files,
// ir/moarvm/section.go says how it maps into the IR, and package ir/moarvm holds
// the facts of the format Read shares with writers/moarvm (magic numbers,
// block layout, entry sizes, refdescr packing, continued sizes).
//
// Version 3 ("MoarHeapDumpv003") is a sequence of blocks: uncompressed JSON
// metadata, zstd-compressed columns of little-endian integers, and tables of
// contents: an inner TOC per snapshot, an outer TOC at the end of the file
// (found through the file's last 8 bytes) and a copy of the outer TOC after
// every snapshot. Strings, types and static frames are global to the file:
// each snapshot's TOC adds the ones that are new. Read follows the TOCs;
// when the file's tail is missing or damaged (the VM crashed while writing,
// or the copy broke) it walks the blocks from the start instead, finding
// the end of each zstd frame from its block headers, and recovers every
// complete snapshot (moarvmir.File.Recovery says how many and where the damage
// starts).
//
// Version 2 ("MoarHeapDumpv002") is what MoarVM builds without zstd write,
// Debian's among them: the same tables uncompressed, in fixed-size records.
// Since 2019.11 its writer has three bugs (wrong string counts, 32-bit
// fields written as 64-bit, an unusable trailer), which Read works around.
//
// A collectable's colsize is its self size and colusize its unmanaged
// size, except where colsize is ir/moarvm's SizeContinued (65535, which no
// MoarVM object has): heapconv wrote a self size too big for colsize's 16
// bits, whose rest is in colusize, and Read joins the two again.
//
// Every count and index is checked against the bytes and tables that hold
// it, and decompression is bounded by what the file can need; errors name
// the byte offset of the block at fault.
package moarvm
