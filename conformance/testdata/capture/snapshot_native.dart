// snapshot_native.dart is objects.dart's snapshot.dart under Dart 3.0 and
// later, whose dart:developer has NativeRuntime.
import 'dart:developer';

/// writeHeapSnapshot has the VM write its own heap snapshot to path; it
/// returns null, or why it could not.
String? writeHeapSnapshot(String path) {
  try {
    NativeRuntime.writeHeapSnapshotToFile(path);
    return null;
  } catch (e) {
    return '$e';
  }
}
