// Package ir is heapconv's intermediate representation of heap snapshots:
// one model that every reader produces and every writer consumes, so that
// any supported format can be converted to any other.
//
// A File holds snapshots that share a string table and a class table. Each
// Snapshot is a heap graph stored column by column (struct of arrays with
// integer indices): node kinds, names, ids and sizes; edges grouped by
// source node in CSR form; sparse primitive values; roots. What a format
// has beyond the common model lives in a typed per-format section
// (V8Snapshot for V8), so that reading a file and writing the same format
// again reproduces it from modelled data alone.
//
// The on-disk form is a versioned, chunked msgpack stream (Encode, Decode,
// EncodeZstd); SPEC.md in this directory defines it for readers in other
// languages. WriteText prints the readable dump form used by golden tests.
// Dominators, retained sizes and class summaries are package
// ir/analysis's.
package ir
