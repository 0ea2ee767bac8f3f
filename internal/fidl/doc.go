// Package fidl is a hand-written codec for the Fuchsia heapdump raw element
// stream ("fuchsia-fidl"): the SnapshotElement values of the FIDL library
// fuchsia.memory.heapdump.client that the heapdump collector sends to a
// SnapshotReceiver in batches, stored in a container file this package
// defines. The FIDL types, the wire format rules, the persistent framing,
// a worked byte vector and the receive rules are described in
// docs/formats/fuchsia.md (part 2, the FIDL element stream); this comment
// is the reference for the container file. No Fuchsia tool writes this
// stream to disk, so the container is heapconv's own, and lossless: it
// keeps what pprof loses (ExecutableRegion.vaddr, stack and thread keys,
// chunking, batches).
//
// # Elements
//
// Element is one SnapshotElement (a flexible union; unknown variants are
// kept as RawField and written back unchanged). The tables (Allocation,
// StackTrace, ThreadInfo, ExecutableRegion, BlockContents, SnapshotHeader)
// keep which fields are present in a Fields bit set, and their unknown
// fields as RawFields. Persist and Unpersist encode and decode one element
// as fidl::persist does: the 8-byte wire metadata 00 01 02 00 00 00 00 00,
// then the standalone FIDL wire format v2 encoding (little-endian, 8-byte
// alignment, out-of-line objects in depth-first order, tables as vectors
// of envelopes). The decoder accepts only the canonical encoding — zero
// padding, exact envelope num_bytes, no handles, presence markers 0 or all
// ones, out-of-line envelopes for the known (≥ 8-byte) fields, no trailing
// absent envelope in a table, vector and string bounds, UTF-8 strings, no
// bytes left over — so decoding then encoding gives the same bytes. Each
// record is thus decodable by real bindings (fidl::unpersist). FIDL's
// depth limit of 32 cannot be reached by these types.
//
// # Container file
//
// All integers are little-endian.
//
//	file   = header record*
//	header = magic "heapdump-fidl\x00v1" (16 bytes)
//	         u32 flags (bit 0: multi-process stream; other bits zero)
//	         u32 reserved (zero)
//	record = u8 kind, 3 zero bytes, u32 length, payload[length]
//	  kind 1  element:         payload = fidl::persist(SnapshotElement),
//	                           a multiple of 8, at least 24 bytes
//	  kind 2  end of batch:    length 0; ends the current batch, and is an
//	                           empty batch when no element precedes it
//	  kind 3  collector error: length 4, u32 CollectorError value; stands
//	                           for SnapshotReceiver.ReportError, comes at a
//	                           batch boundary and is the last record
//
// The header is 24 bytes and record headers 8, so every persisted element
// starts 8-aligned in the file. The magic differs from every other input
// heapconv detects (gzip 1f 8b, pprof protobuf, "dartheap",
// "MoarHeapDumpv", V8 JSON "{", the IR's msgpack 92 a6 "heapir", zstd 28 b5
// 2f fd). One batch is one Batch message: its elements, then an
// end-of-batch record. The file ends at a batch boundary (a message
// arrives whole or not at all); the records replay the calls the receiver
// saw, so the receive rules apply exactly: a single-process stream ends at
// its first empty batch; a multi-process stream is, per process, a batch
// holding only a SnapshotHeader, the process's batches and an empty batch,
// then one more empty batch. The multi-process flag says which receiver
// (receive_single_from or receive_multi_from) the stream was taken for: a
// stream of just one empty batch is an empty snapshot in one mode and no
// snapshot in the other.
//
// Reader reads records one at a time (an io.Reader, with every error naming
// its byte offset; a declared length is believed only when the bytes left
// can hold it, when the input size is known, and is otherwise read in
// growing steps). Writer writes them.
//
// # Stream and reassembly
//
// Stream holds a whole file: each element kind in its own list (in
// arrival order), and Records, the sequence of (kind, index) references
// with batch ends and the collector error in between, with their file
// offsets. Records is the element-exact form: WriteTo replays it, so the
// same elements come out in the same order, batches and chunks, and —
// the encoding being canonical — a file read and written is
// byte-identical. Reassemble is a view over it: it applies the receive
// rules of the heapdump_snapshot crate (docs/formats/fuchsia.md) and
// returns one Snapshot per process, which refers to the elements by index
// and maps stack trace keys to concatenated addresses, thread keys to
// ThreadInfos and allocation addresses to concatenated contents (a trace
// or block sent in one chunk is shared, not copied). Violations are *ReceiveError with
// the crate's error names and the offset of the record at fault. Block
// contents that match no allocation are dropped by the receiver; the
// Snapshot lists their addresses in DroppedContents, and their elements
// stay in Records, so rewriting keeps them. ExecutableRegion.vaddr is
// optional (the newest receiver requires it, older ones did not) and keeps
// its presence.
//
// Emit builds the stream the collector sends for given processes (its
// element order, chunk sizes and 64 KiB message batching), and Synthetic
// makes realistic processes from a seed, for fixtures.
package fidl
