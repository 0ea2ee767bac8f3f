// Package v8 holds the facts of the V8 heap snapshot format
// (.heapsnapshot) that both readers/v8 and writers/v8 need, so that each is
// stated once: the top-level keys and their order, the keys of the header
// and of its meta object, the names of the node and edge fields, the field
// lists V8 writes, which meta list lays out the rows of each number array,
// and the size of the strings section Chrome DevTools can load.
//
// The format is described in docs/formats/v8.md. The IR's V8 section
// (ir.V8Snapshot, with its layout and escaping styles), V8's node and edge
// kinds and the location fields that hold node indexes
// (ir.IsLocationNodeField) stay in package ir, whose own code uses them.
// This package imports no other format's package.
package v8
