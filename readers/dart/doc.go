// Package dart reads Dart VM heap snapshots into the IR.
//
// A Dart heap snapshot ("dartheap") is what the VM writes for the service
// protocol's requestHeapSnapshot, NativeRuntime.writeHeapSnapshotToFile and
// Dart_WriteHeapSnapshot, and what DevTools' Memory screen exports: the
// magic "dartheap", a header, the class table with field names, every object
// (class, shallow size, one tagged primitive payload, its references), the
// external properties and, since 2021, one identity hash code per object.
// Numbers are LEB128 (_Mint values signed, everything else unsigned). There
// is no version field: generations differ in structure. The format as the
// VM really writes it, with the errors of its own documentation corrected,
// is described in docs/formats/dart.md; ir/dart/snapshot.go says how it maps into
// the IR.
//
// Read streams through a buffer, so memory holds the columnar graph but
// never the file; ReadBytes decodes a snapshot already in memory (a mapped
// file, say) where it is. Both believe a declared count only as far as the
// bytes left can hold it. Every error names the byte offset where the
// problem is. When the input can also be read at offsets (a file, or
// memory), a second goroutine decodes the second half of the objects from
// a guessed and verified object boundary (split.go); the result, and every
// error, are those of a read on one core.
package dart
