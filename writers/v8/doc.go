// Package v8 writes the IR as V8 / Chrome DevTools heap snapshots
// (.heapsnapshot).
//
// A snapshot read from a V8 file is written back byte for byte in that
// file's layout and escaping style. Any other snapshot is converted first
// (Convert) into a file that Chrome DevTools loads: root first, V8's type
// tables, "<dummy>" as string 0, unique odd 32-bit ids, sizes below 2^32,
// names of at most 1024 UTF-16 units and a strings section below Chrome's
// maximum string length; what does not fit is listed in a loss report. The
// format, the rules DevTools imposes and this writer are described in
// docs/formats/v8.md; the key, field and meta names the writer shares with
// readers/v8 are package ir/v8's. Dart and MoarVM heaps have
// their own conversions (dart.go, moarvm.go), which shape them as DevTools
// expects a JavaScript heap to look: class names, synthetic roots under
// "(GC roots)", VM internals as "(system)", off-heap memory as native nodes.
package v8
