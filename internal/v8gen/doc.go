// Package v8gen generates large, realistic V8 heap snapshots (.heapsnapshot
// JSON) without running V8, for benchmarks and scale tests of heapconv's V8
// reader, writer and analyses, up to the largest file DevTools can load
// (10.1 GB).
//
// Write streams the file: every node, edge, location and string is computed
// from its index by formulas (and, for a non-zero seed, a hash of the seed
// and the index), so memory stays constant whatever the size (a process
// of under 10 MB), and nothing but the output is ever materialized.
// Formatting runs at about 1 GB/s on one core.
//
// The file is, byte for byte, in the layout Node 20 (V8 11.3) writes: its
// header and meta lists, one node or edge or location per line, the empty
// allocation-tracking sections, the strings one per line, escaped as V8
// escapes them (they are all printable ASCII), and no trailing newline.
// docs/formats/v8.md and testdata/v8/FORMAT-OBSERVED.md describe the layout.
// The package shares no code with heapconv's V8 reader or writer, so that it
// can be used to check them.
//
// The heap is the one Node 20 has for the program scripts/gen-big.sh runs
// (scripts/gen-big.js), measured on snapshots of that program: an array of
// N objects
//
//	class Point { constructor(x, y) { this.x = x; this.y = y; } }
//	class Item {
//	  constructor(id) {
//	    this.id = id;
//	    this.name = 'item-' + id;
//	    this.pt = new Point(id, id * 2);
//	    this.tags = ['t' + (id % 7), 'u' + (id % 11)];
//	  }
//	}
//
// and a Map from name to every 4th Item, held from a global. Per Item, as
// in V8's snapshot, there are 7 nodes (the Item, its name string, its Point,
// its tags Array, the Array's "(object elements)" backing store and the two
// tag strings, one node each: V8 makes a new string per concatenation),
// 19.5 edges and 2 strings in the string table ("item-<i>", and the decimal
// index that names the internal edge from the array's backing store, and
// from the Map's hash table, to it), which is the shape of a real 1 GB Node
// 20 snapshot of the program: 13.4 M nodes, 37.5 M edges, 3.8 M strings.
// The sizes are V8's on x64 without pointer compression (Item 56 bytes,
// Point 40, Array 32, backing stores 16 + 8 per slot, a string 16 + its
// length rounded up to 8), node ids are 2 × ordinal + 1 as V8 assigns them,
// and the nodes come in V8's order of discovery: the array, then every
// Item, then the array's backing store, the Map and its table, then per
// Item its six children side by side. Items and Points have allocation
// locations (script 107, lines 8 and 5, column 13), as their constructors
// give them in V8. In front of all this stands a small fixed heap: the
// synthetic root, "(GC roots)" with Node 20's 28 root categories, the global
// object, the native context, the constructors, prototypes and maps
// (hidden classes) of Object, Array, Map, Item and Point. Node's own
// start-up heap (about 41,000 nodes) is not reproduced.
//
// The largest heap written has 19.3 million Items, a file of 10.1 GB: one
// more and the strings section would be longer than the longest string
// Chrome can make, so DevTools could not load the file (nor a real Node
// snapshot of as many Items).
//
// A seed of 0 gives exactly the program above; another seed draws each
// Item's two tag strings from a hash of the seed and the Item's index
// instead, so different seeds give files of the same shape and size with
// different contents.
package v8gen
