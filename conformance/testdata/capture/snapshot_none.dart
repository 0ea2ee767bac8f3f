// snapshot_none.dart is objects.dart's snapshot.dart before Dart 3.0: its
// dart:developer has no NativeRuntime, so a program that names it does
// not compile, and only the VM service can take a snapshot.

/// writeHeapSnapshot says why this VM cannot write its own snapshot.
String? writeHeapSnapshot(String path) =>
    'this Dart VM has no NativeRuntime.writeHeapSnapshotToFile (Dart 3.0 and later)';
