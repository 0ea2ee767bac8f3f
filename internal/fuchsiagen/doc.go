// Package fuchsiagen makes Fuchsia heapdump snapshots the way
// `ffx profile heapdump snapshot` and `ffx profile heapdump download` write
// them: a pprof Profile (github.com/google/pprof/profile) in the layout of
// one of the ffx generations, plus the optional `--output-contents-dir`
// directory of raw block contents. No public ffx output file exists, so the
// converter's Fuchsia reader and writer are tested against this package.
//
// It follows the description in docs/formats/fuchsia.md (the pprof layout
// of each ffx era, the contents directory, the collector's data model) and
// the FIDL library fuchsia.memory.heapdump.client; details left open there
// (value of count in each era, sample and mapping order, symbolizer
// address type, the exact values of ffx's own pprof.rs unit tests) were
// checked against public mirrors of the Fuchsia sources (the ffx heapdump
// plugin and the collector). It shares no code with heapconv's readers or
// writers.
//
// The package has three parts:
//
//   - A model of what a collector reports for one process (Snapshot,
//     Allocation, Region, Thread), mirroring the host-side heapdump_snapshot
//     crate: allocations with an optional address, size, count, stack trace
//     (leaf first), optional thread and timestamp and optional contents, and
//     the executable regions of the process.
//   - Generate, a deterministic generator of realistic heaps from a seed and
//     a size (Options): C++, Rust and C components with their modules,
//     frame-pointer stacks through those modules ending in the heapdump
//     allocator hooks, Scudo-like block addresses, threads, increasing
//     timestamps and block contents made of linked structures (lists,
//     red-black trees, hash tables with bucket arrays, B-trees, vectors,
//     shared_ptr control blocks, strings) whose aligned words point to other
//     live blocks, at their start or inside them, sometimes with an aarch64
//     top-byte tag, mixed with non-pointer data; plus the kernel collector's
//     aggregated snapshot (process "kernel", koid 1). It also returns a fake
//     symbol server (SymbolTable) so that `--symbolize` output can be made.
//   - Writers: BuildProfile / WriteProfile produce exactly what each ffx era
//     writes (Era2023, EraWithTags, EraCurrent, EraNewest), and
//     WriteContentsDir writes the contents directory. FFXTestSnapshot and
//     its siblings reproduce the fake snapshots of ffx's pprof.rs tests, and
//     Fixtures lists the committed fixtures of testdata/fuchsia.
//
// Everything is deterministic: the same Options give the same Snapshots and
// the same bytes.
//
// # What differs from ffx's own encoder
//
// ffx encodes with prost; this package encodes with the Go pprof library.
// The decoded profiles are equal field for field, but the bytes differ:
//
//   - Label order. ffx writes a sample's labels in the order process_name,
//     process_koid, address, bytes, timestamp, thread. The Go library keeps
//     labels in maps (Label, NumLabel, NumUnit) and writes string labels
//     sorted by key, then numeric labels sorted by key (address,
//     process_name, thread, then bytes, process_koid, timestamp). The order
//     cannot be controlled; readers must not depend on it.
//   - String table order. ffx interns strings in order of first use (sample
//     types, extra labels, mapping filename and build ID, function names,
//     then sample labels); the Go library re-interns everything when
//     writing (sample types, labels, mappings, functions). Index 0 is ""
//     in both and, in practice, the set of strings is the same.
//   - Packed fields. prost always packs repeated scalars (Sample.value,
//     Sample.location_id); the Go library packs only lists of more than two
//     elements and writes `default_sample_type = 0` explicitly (field 14,
//     value 0, which decodes as unset).
//   - Compression. The newest ffx gzips with flate2 (miniz, level 6); the
//     Go library gzips with compress/gzip. Both are gzip streams of the
//     same protobuf, but the deflate bytes differ.
package fuchsiagen
