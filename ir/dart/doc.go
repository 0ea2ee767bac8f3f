// Package dart is the Dart VM heap snapshot format ("dartheap", as the
// VM's object graph writer and DevTools' exports hold it) as far as the IR
// is concerned, stated once for readers/dart, writers/dart and
// internal/dartgen.
//
// It holds the IR's Dart section (Snapshot, registered as "dart"): the
// header figures, the class and field flags and library URIs, the
// reference slots that hold no object, the external properties, and the
// node kinds, edge kinds and data tags, with its validation and what a
// Dart heap loses elsewhere. It also holds the
// wire facts: the magic, the header figures in file order, the names the
// VM gives its root class and the class whose integers are signed, the
// encodings of integer values, which value kind each data tag carries,
// which slots are weak, and LEB128 as the VM writes it.
//
// The format is described in docs/formats/dart.md. This package imports no
// other format's package.
package dart
