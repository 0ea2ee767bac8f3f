// Package v8 reads V8 / Chrome DevTools heap snapshots (.heapsnapshot) into
// the IR.
//
// The format is one JSON object whose keys come in a fixed order (snapshot,
// nodes, edges, trace_function_infos, trace_tree, samples, locations,
// strings); nodes and edges are flat arrays of unsigned integers laid out by
// the header's meta field lists. It is described, version by version and
// with what Chrome DevTools' loader demands, in docs/formats/v8.md; the
// bytes V8 writes are recorded in testdata/v8/FORMAT-OBSERVED.md. The key,
// field and meta names the reader shares with writers/v8 are package
// ir/v8's.
//
// The reader streams: memory holds the columnar graph, never the text. It is
// driven by meta field names, never fixed offsets, so it reads every layout
// V8 has written (Node 20's seven node fields and newline per row, Node 24's
// six fields and node_types bug, Node 26, V8 15's five location fields,
// allocation tracking) and other producers' files. Number arrays of large
// files are cut into regions that worker goroutines parse in parallel. Every
// error names the byte offset of the offending value.
package v8
