// Package fuchsia is the Fuchsia heapdump formats as far as the IR is
// concerned — the pprof profile `ffx profile heapdump` writes, with its
// directory of block contents, and the FIDL SnapshotElement stream —
// stated once for readers/fuchsia and writers/fuchsia.
//
// It holds the IR's Fuchsia sections: the file's (File, "fuchsia": the
// profile's mappings, functions, locations and sample types) and each
// snapshot's (Snapshot, "fuchsia.snapshot": per-block allocation sites,
// threads, timestamps and contents, and the details only the FIDL stream
// has), with their validation, selection of snapshots, the classes named
// by allocation site, and loss reports. It also holds the wire facts: the
// field numbers of the pprof messages and the protocol buffer wire types,
// the labels, units and sample types ffx writes and how it spells
// addresses and threads, and the names of the contents directory's files.
//
// The formats are described in docs/formats/fuchsia.md; the FIDL wire
// codec is internal/fidl. This package imports no other format's package.
package fuchsia
