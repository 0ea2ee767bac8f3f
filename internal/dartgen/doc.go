// Package dartgen generates realistic Dart VM heap snapshot files in the
// "dartheap" binary format, byte for byte in the layout the Dart VM's own
// writer (runtime/vm/object_graph.cc, HeapSnapshotWriter) produces, for use as
// test data and benchmark input.
//
// The format is described in docs/formats/dart.md; this package is written
// from the VM writer's layout described there and shares no code with
// heapconv's Dart reader or writer, so that it can be used to cross-check
// them.
//
// A generated heap looks like a small Flutter application running on a
// 64-bit VM without compressed pointers (word size 8, object alignment 16):
//
//   - the synthetic classes 1..3 (Root, Read-Only Pages, Isolate), the VM's
//     predefined classes at class id VM cid + 3 with their real names and
//     libraries (dotted library name, library URI with a colon), and Dart
//     classes of dart:core, dart:async, dart:ui, package:flutter and an
//     application (two libraries each define a class Node, and
//     package:flutter and dart:ui each define a TextStyle);
//   - object 1 = Root, 2 = Read-Only Pages, 3.. = one Isolate object per
//     isolate (NameData = decimal main port, references = static field values
//     then isolate roots then stack slots), then the VM-isolate objects with
//     shallow size 0, then the isolate group's heap (new space, old space,
//     image pages), then one _Smi object per distinct Smi value referenced
//     anywhere, in order of first reference;
//   - lists, growable lists, maps and sets with their backing stores, strings
//     (Latin-1 and UTF-16, truncated to 128 code units), boxed Mints and
//     doubles, closures and contexts, futures, typed data (internal,
//     external, views), weak properties, weak references, finalizer entries,
//     external properties, code, functions, classes, libraries and scripts,
//     unboxed fields (reference 0) and some unreachable garbage.
//
// Three generations can be written (see Generation): the current VM writer
// with the identity-hash section, the same layout without it (files of VMs
// that predate the section end right after the external properties), and
// the DevTools export form (a vm_service re-serialization: no object data,
// no external properties, field flags 0, zero padding to a multiple of
// 1,048,055 bytes).
//
// Build constructs the heap in memory; Heap.WriteTo writes it; Heap.Object,
// Heap.Classes, Heap.ExternalProperties and Heap.Summary describe exactly
// what is written, so a reader can be checked against known truth. Generate
// does Build and WriteTo in one call. Everything is deterministic for a
// given Options value.
package dartgen
