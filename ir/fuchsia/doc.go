// Package fuchsia holds the facts of the Fuchsia heapdump formats that both
// readers/fuchsia and writers/fuchsia need, so that each is stated once:
// the field numbers of the pprof Profile messages and the protocol buffer
// wire types, the labels, units and sample types ffx writes and how it
// spells addresses and threads in them, the names of the contents
// directory's files, the node and edge kinds of a Fuchsia snapshot, and
// the naming of blocks by their allocation sites (which the FIDL writer
// needs to say what a stream loses).
//
// The formats (the pprof profile, its contents directory and the FIDL
// element stream) are described in docs/formats/fuchsia.md. The IR's
// Fuchsia sections are in package ir (ir/fuchsia.go); the FIDL wire codec
// is internal/fidl. This package imports no other format's package.
package fuchsia
