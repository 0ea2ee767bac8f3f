// objects.dart is the Dart VM producer of heapconv's capture tests
// (conformance/producers_test.go starts it). It builds a heap the tests can
// recognize in a snapshot, prints "ready", and then idles: it allocates
// nothing more, so that two snapshots taken while it idles (one by the VM
// service, one by the VM itself) see the same objects.
//
// It runs under every Dart VM the tests use, Dart 2.18 to 3.7, so it keeps
// to the language of 2.18: no records, patterns or class modifiers.
//
// Standard input takes commands, one a line:
//
//	write PATH   the VM writes its own heap snapshot to PATH and prints
//	             "written" (or "unsupported: WHY" where it cannot)
//
// The program exits when its standard input closes: a test killed before
// its cleanup must not leave the VM running.
import 'dart:convert';
import 'dart:io';

// snapshot.dart is not in this directory: the harness puts the one this VM
// can compile next to the program (snapshot_native.dart from Dart 3.0,
// which has NativeRuntime, snapshot_none.dart before).
import 'snapshot.dart';

/// CaptureLeaf is the class the tests count in a snapshot: the program
/// keeps [leafCount] of them, each with its own string.
class CaptureLeaf {
  CaptureLeaf(this.index, this.label, this.weight, this.next);

  /// An int field (a Smi in the heap, so no object of its own).
  final int index;

  /// A String field: "leaf-<index>", a distinct string object per leaf.
  final String label;

  /// A double field, boxed in the VM's heap on 32-bit targets.
  final double weight;

  /// The leaf before this one, so that the leaves also retain each other.
  final CaptureLeaf? next;
}

/// How many leaves the program keeps.
const int leafCount = 1000;

// The globals below keep everything alive: a snapshot finds them retained
// from the isolate's roots.

/// Every leaf, in order.
final List<CaptureLeaf> captureLeaves = <CaptureLeaf>[];

/// Every leaf by its label.
final Map<String, CaptureLeaf> captureByLabel = <String, CaptureLeaf>{};

/// The planted secret. It is joined at run time so that the whole string
/// exists only as a heap object: the program's source, which the VM also
/// keeps in its heap, holds only its parts.
String captureSecret = '';

void main() {
  captureSecret = <String>['SECRET', 'dart', '7c2e9a'].join('-');
  CaptureLeaf? previous;
  for (var i = 0; i < leafCount; i++) {
    final leaf = CaptureLeaf(i, 'leaf-$i', i / 8, previous);
    captureLeaves.add(leaf);
    captureByLabel[leaf.label] = leaf;
    previous = leaf;
  }
  stdin
      .transform(utf8.decoder)
      .transform(const LineSplitter())
      .listen(command, onDone: () => exit(0));
  print('ready');
}

/// command runs one line of standard input.
void command(String line) {
  if (line.startsWith('write ')) {
    final String? why = writeHeapSnapshot(line.substring('write '.length));
    print(why == null ? 'written' : 'unsupported: $why');
  } else {
    print('unknown command: $line');
  }
}
