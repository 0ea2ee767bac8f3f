// Package dart holds the facts of the Dart VM heap snapshot format
// ("dartheap") that both readers/dart and writers/dart need: the magic, the
// header figures in file order, the names the VM gives its root class and
// the class whose integers are signed, the encodings of integer values,
// which value kind each data tag carries, which slots are weak, and LEB128
// as the VM writes it. Spelled once here, the reader and the writer (and
// internal/dartgen, which makes test files as the VM does) cannot drift
// apart on any of them.
//
// The format is described in docs/formats/dart.md; ir/dart.go says how it
// maps into the IR, whose Dart section (ir.DartSnapshot), data tags and
// edge kinds stay in package ir, which validates and encodes them and
// which writers/v8 and writers/moarvm use too.
//
// Importers name it dartir, as readers/dart and writers/dart are package
// dart too.
package dart
