// Package v8 is the V8 heap snapshot format (.heapsnapshot, as V8 and
// Chrome DevTools write it) as far as the IR is concerned, stated once for
// readers/v8, writers/v8 and ir/devtools.
//
// It holds the IR's V8 section (Snapshot, registered as "v8"): the header
// with its meta object, the node and edge fields beyond the core's, the
// allocation traces, samples and locations, and the layout and escaping of
// the file, so that writing a V8 heap again gives the same bytes. It also
// holds the wire facts: the top-level keys and their order, the keys of
// the header and of its meta object, the field lists V8 writes and the
// node and edge kinds; the marks a V8 file leaves for other formats
// (marks.go) and what V8 loses when written elsewhere (loss.go).
//
// The format is described in docs/formats/v8.md. This package imports no
// other format's package.
package v8
