// Package conformance holds heapconv's cross-format conformance suite. It
// has no code of its own: the tests (conformance_test.go) run one
// table-driven harness over every format in the table in formats_test.go,
// and check every V8 file the suite writes with Chrome DevTools' own loader
// (devtools/summary.js, run under Node), and read every fixture's IR with a
// second reader written from ir/SPEC.md alone (irreader/irread.js).
//
// Adding a format takes one table entry: its name, a glob of its fixtures,
// its reader and writer (from package heapconv), whether writing reproduces
// a file byte for byte, which random graphs (ir/irtest options) it holds
// exactly, and whether its writer produces V8 files.
//
// The DevTools checks need node and npm; when devtools/node_modules is
// missing the suite runs `npm ci` there first. Without node or npm the
// suite fails: it never skips the oracle.
package conformance
