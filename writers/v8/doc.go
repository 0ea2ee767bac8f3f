// Package v8 writes the IR as V8 / Chrome DevTools heap snapshots
// (.heapsnapshot).
//
// A snapshot read from a V8 file is written back byte for byte in that
// file's layout and escaping style. Any other snapshot is first reshaped
// into the heap DevTools expects (package ir/devtools), and what does not
// fit is listed in a loss report. The format and this writer are
// described in docs/formats/v8.md; the key, field and meta names the
// writer shares with readers/v8 are package ir/v8's.
package v8
