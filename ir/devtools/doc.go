// Package devtools reshapes a heap of any format into the V8 heap Chrome
// DevTools expects (Convert), the one layer between the IR and DevTools:
// writers/v8 writes what it makes for every heap not read from a V8 file,
// and `heapconv info --as v8` summarizes it, so that the figures heapconv
// shows are the ones DevTools will.
//
// A V8 heap in DevTools has the root first, V8's node and edge kinds, a
// string table starting with "<dummy>", unique odd 32-bit ids, sizes below
// 2^32, strings' contents of at most 1024 UTF-16 units (as V8 cuts them;
// other names are whole) and a strings section below Chrome's largest
// string. Beyond that, DevTools groups objects by name
// and kind, so each format is shaped as a JavaScript heap looks: Dart
// classes under DevTools' categories ((string), (array), (system)...) with
// the Dart class kept in an extra node field, MoarVM's collectables with
// their roots under "(GC roots)" and unmanaged memory as native nodes,
// Fuchsia blocks with their allocation stacks as allocation traces. Every
// change is named in the loss report, with counts. docs/formats/v8.md
// describes what DevTools requires; docs/fidelity.md what each conversion
// keeps.
package devtools
