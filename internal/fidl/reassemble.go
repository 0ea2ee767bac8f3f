package fidl

import (
	"cmp"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"slices"

	"github.com/heapconv/heapconv/ir"
)

// ReceiveErrorKind classifies a violation of the receive rules; the names
// are those of the heapdump_snapshot crate's Error.
type ReceiveErrorKind uint8

// Receive error kinds.
const (
	// MissingField: a required table field is absent.
	MissingField ReceiveErrorKind = iota + 1
	// ConflictingElement: a duplicate Allocation address, ThreadInfo key or
	// ExecutableRegion address, or block contents whose length is not the
	// allocation's size.
	ConflictingElement
	// InvalidCrossReference: an Allocation names a stack trace or thread
	// that the snapshot does not have.
	InvalidCrossReference
	// UnexpectedElementType: a SnapshotHeader or an unknown element inside
	// a snapshot.
	UnexpectedElementType
	// HeaderExpected: in a multi-process stream, a batch that is neither
	// exactly one SnapshotHeader nor empty where a snapshot should begin.
	HeaderExpected
	// UnexpectedEndOfStream: the records end before the stream does.
	UnexpectedEndOfStream
	// CollectorErrorReported: the collector called ReportError.
	CollectorErrorReported
	// RecordsAfterEnd: records follow the end of the stream (a file-only
	// condition: a channel receiver would stop reading).
	RecordsAfterEnd
)

var receiveErrorNames = [...]string{"", "MissingField", "ConflictingElement", "InvalidCrossReference",
	"UnexpectedElementType", "HeaderExpected", "UnexpectedEndOfStream", "CollectorError", "RecordsAfterEnd"}

// String returns the crate's name for the kind.
func (k ReceiveErrorKind) String() string {
	if int(k) < len(receiveErrorNames) && k > 0 {
		return receiveErrorNames[k]
	}
	return "ReceiveErrorKind(?)"
}

// ReceiveError is a violation of the receive rules. Err carries the
// message and the file offset of the record at fault.
type ReceiveError struct {
	Kind ReceiveErrorKind
	// Element is the element type concerned ("Allocation", ...), if any.
	Element string
	// Code is the CollectorError value for CollectorErrorReported.
	Code uint32
	Err  *ir.FormatError
}

// Error gives the underlying error's message.
func (e *ReceiveError) Error() string { return e.Err.Error() }

// Unwrap returns the *ir.FormatError.
func (e *ReceiveError) Unwrap() error { return e.Err }

// Snapshot is one process's snapshot reassembled from a Stream by the
// receive rules. It indexes into the stream's element lists and shares
// their slices where it can (a stack trace or block sent in one chunk is
// not copied).
type Snapshot struct {
	// Header indexes Stream.SnapshotHeaders (multi-process), or is -1.
	Header int
	// Start and End delimit the snapshot's records: Records[Start:End] are
	// its data batches and Records[End] is the empty batch that ends it.
	// In a multi-process stream Records[Start-2] is the SnapshotHeader and
	// Records[Start-1] the end of its batch.
	Start, End int
	// Allocations indexes Stream.Allocations, in arrival order.
	Allocations []int
	// StackTraces maps a stack_trace_key to its program addresses (leaf
	// first), the chunks concatenated in arrival order.
	StackTraces map[uint64][]uint64
	// Threads maps a thread_info_key to its index in Stream.ThreadInfos.
	Threads map[uint64]int
	// Regions indexes Stream.ExecutableRegions, sorted by start address.
	Regions []int
	// Contents maps an allocation address to the block's contents, the
	// chunks concatenated in arrival order; its length is the allocation's
	// size.
	Contents map[uint64][]byte
	// DroppedContents lists, in order of first arrival, the addresses of
	// block contents that match no allocation. The receiver drops them;
	// their elements stay in Stream.Records, so a rewrite keeps them.
	DroppedContents []uint64
}

// Reassemble applies the receive rules of the heapdump_snapshot crate
// (Snapshot::receive_single_from or receive_multi_from, as the header flag
// says) to the records, and returns the snapshots. A violation is a
// *ReceiveError. Unlike the crate, ExecutableRegion.vaddr is optional (it is
// in older versions) and stays as present or absent as it was; unknown
// table fields are ignored.
func (s *Stream) Reassemble() ([]Snapshot, error) {
	c := &receiver{s: s}
	var out []Snapshot
	if !s.MultiProcess {
		snap, err := c.receiveInner(-1)
		if err != nil {
			return nil, err
		}
		out = append(out, snap)
	} else {
		for {
			start, end, err := c.nextBatch()
			if err != nil {
				return nil, err
			}
			if end == start {
				break // the empty batch that ends the stream
			}
			first := s.Records[start]
			if end-start != 1 || first.Kind != KindSnapshotHeader {
				return nil, c.errorf(HeaderExpected, "", first.Offset,
					"expected a batch holding exactly one SnapshotHeader, or an empty batch, but it has %d elements, the first %v", end-start, first.Kind)
			}
			snap, err := c.receiveInner(int(first.Index))
			if err != nil {
				return nil, err
			}
			h := &s.SnapshotHeaders[first.Index]
			for _, ord := range []int{SnapshotHeaderProcessName, SnapshotHeaderProcessKoid} {
				if !h.Present.Has(ord) {
					return nil, c.missing(h, ord, first.Offset)
				}
			}
			out = append(out, snap)
		}
	}
	if c.i < len(s.Records) {
		return nil, c.errorf(RecordsAfterEnd, "", s.Records[c.i].Offset,
			"%d records after the end of the stream", len(s.Records)-c.i)
	}
	return out, nil
}

// receiver walks Stream.Records.
type receiver struct {
	s *Stream
	i int // next record
}

func (c *receiver) errorf(kind ReceiveErrorKind, element string, off int64, msg string, args ...any) *ReceiveError {
	return &ReceiveError{Kind: kind, Element: element, Err: ir.Errorf(fuchsiair.FormatFIDL, off, "%v: "+msg, append([]any{kind}, args...)...)}
}

func (c *receiver) missing(t table, ord int, off int64) *ReceiveError {
	return c.errorf(MissingField, t.name(), off, "%s is required", fieldName(t, ord))
}

// nextBatch returns the element records [start, end) of the next batch and
// moves past its end. A collector error record, or no complete batch left,
// is an error.
func (c *receiver) nextBatch() (int, int, error) {
	recs := c.s.Records
	start := c.i
	for ; c.i < len(recs); c.i++ {
		switch r := recs[c.i]; r.Kind {
		case KindEndOfBatch:
			c.i++
			return start, c.i - 1, nil
		case KindCollectorError:
			e := c.errorf(CollectorErrorReported, "", r.Offset, "the collector reported error %d%s", r.Index, collectorErrorName(r.Index))
			e.Code = r.Index
			return 0, 0, e
		}
	}
	return 0, 0, c.errorf(UnexpectedEndOfStream, "", c.s.size, "the stream ends without its final empty batch")
}

func collectorErrorName(code uint32) string {
	names := [...]string{"", "PROCESS_SELECTOR_UNSUPPORTED", "PROCESS_SELECTOR_NO_MATCH",
		"PROCESS_SELECTOR_AMBIGUOUS", "LIVE_SNAPSHOT_FAILED", "STORED_SNAPSHOT_NOT_FOUND"}
	if code >= 1 && int(code) < len(names) {
		return " (" + names[code] + ")"
	}
	return ""
}

// receiveInner is Snapshot::receive_inner: batches until an empty one.
func (c *receiver) receiveInner(header int) (Snapshot, error) {
	s := c.s
	snap := Snapshot{Header: header, Start: c.i, Threads: map[uint64]int{}}
	// Size the maps for the snapshot's elements (up to its empty batch):
	// growing million-entry maps costs more than the look-ups.
	var count [KindSnapshotHeader + 1]int
	for i, batch := c.i, 0; i < len(s.Records); i++ {
		k := s.Records[i].Kind
		if k == KindEndOfBatch {
			if batch == 0 {
				break
			}
			batch = 0
			continue
		}
		batch++
		if k <= KindSnapshotHeader {
			count[k]++
		}
	}
	snap.StackTraces = make(map[uint64][]uint64, count[KindStackTrace])
	snap.Contents = make(map[uint64][]byte, count[KindBlockContents])
	addresses := make(map[uint64]int64, count[KindAllocation]) // allocation address → record offset
	regions := map[uint64]int64{}                              // region start → record offset
	ownedStacks := map[uint64]bool{}
	ownedContents := map[uint64]bool{}
	allocOffsets := make([]int64, 0, count[KindAllocation])
	snap.Allocations = make([]int, 0, count[KindAllocation])
	var contentOrder []uint64 // addresses in order of first arrival
	for {
		start, end, err := c.nextBatch()
		if err != nil {
			return Snapshot{}, err
		}
		if start == end {
			snap.End = end
			break
		}
		for _, r := range s.Records[start:end] {
			switch r.Kind {
			case KindAllocation:
				a := &s.Allocations[r.Index]
				if a.Present.Has(AllocationAddress) {
					if prev, dup := addresses[a.Address]; dup {
						return Snapshot{}, c.errorf(ConflictingElement, "Allocation", r.Offset,
							"a second Allocation at address 0x%x (the first is at offset %d)", a.Address, prev)
					}
					addresses[a.Address] = r.Offset
				}
				for _, ord := range []int{AllocationSize, AllocationStackTraceKey} {
					if !a.Present.Has(ord) {
						return Snapshot{}, c.missing(a, ord, r.Offset)
					}
				}
				snap.Allocations = append(snap.Allocations, int(r.Index))
				allocOffsets = append(allocOffsets, r.Offset)
			case KindStackTrace:
				t := &s.StackTraces[r.Index]
				for _, ord := range []int{StackTraceKey, StackTraceProgramAddresses} {
					if !t.Present.Has(ord) {
						return Snapshot{}, c.missing(t, ord, r.Offset)
					}
				}
				cur, ok := snap.StackTraces[t.Key]
				switch {
				case !ok:
					snap.StackTraces[t.Key] = t.ProgramAddresses // shared
				case ownedStacks[t.Key]:
					snap.StackTraces[t.Key] = append(cur, t.ProgramAddresses...)
				default:
					ownedStacks[t.Key] = true
					snap.StackTraces[t.Key] = append(slices.Clip(cur), t.ProgramAddresses...)
				}
			case KindThreadInfo:
				t := &s.ThreadInfos[r.Index]
				for _, ord := range []int{ThreadInfoKey, ThreadInfoKoid, ThreadInfoName} {
					if !t.Present.Has(ord) {
						return Snapshot{}, c.missing(t, ord, r.Offset)
					}
				}
				if prev, dup := snap.Threads[t.Key]; dup {
					return Snapshot{}, c.errorf(ConflictingElement, "ThreadInfo", r.Offset,
						"a second ThreadInfo with key %d (the first is ThreadInfo %d)", t.Key, prev)
				}
				snap.Threads[t.Key] = int(r.Index)
			case KindExecutableRegion:
				g := &s.ExecutableRegions[r.Index]
				for _, ord := range []int{RegionAddress, RegionSize, RegionFileOffset, RegionBuildID} {
					if !g.Present.Has(ord) {
						return Snapshot{}, c.missing(g, ord, r.Offset)
					}
				}
				if prev, dup := regions[g.Address]; dup {
					return Snapshot{}, c.errorf(ConflictingElement, "ExecutableRegion", r.Offset,
						"a second ExecutableRegion at address 0x%x (the first is at offset %d)", g.Address, prev)
				}
				regions[g.Address] = r.Offset
				snap.Regions = append(snap.Regions, int(r.Index))
			case KindBlockContents:
				b := &s.BlockContents[r.Index]
				for _, ord := range []int{BlockContentsAddress, BlockContentsContents} {
					if !b.Present.Has(ord) {
						return Snapshot{}, c.missing(b, ord, r.Offset)
					}
				}
				cur, ok := snap.Contents[b.Address]
				switch {
				case !ok:
					snap.Contents[b.Address] = b.Contents // shared
					contentOrder = append(contentOrder, b.Address)
				case ownedContents[b.Address]:
					snap.Contents[b.Address] = append(cur, b.Contents...)
				default:
					ownedContents[b.Address] = true
					snap.Contents[b.Address] = append(slices.Clip(cur), b.Contents...)
				}
			default:
				return Snapshot{}, c.errorf(UnexpectedElementType, r.Kind.String(), r.Offset,
					"%v element inside a snapshot", r.Kind)
			}
		}
	}

	// End of the snapshot: resolve the cross-references, in allocation
	// order, as the crate does.
	for i, idx := range snap.Allocations {
		a := &s.Allocations[idx]
		off := allocOffsets[i]
		if a.Present.Has(AllocationThreadInfoKey) {
			if _, ok := snap.Threads[a.ThreadInfoKey]; !ok {
				return Snapshot{}, c.errorf(InvalidCrossReference, "ThreadInfo", off,
					"Allocation names thread_info_key %d, which the snapshot does not have", a.ThreadInfoKey)
			}
		}
		if _, ok := snap.StackTraces[a.StackTraceKey]; !ok {
			return Snapshot{}, c.errorf(InvalidCrossReference, "StackTrace", off,
				"Allocation names stack_trace_key %d, which the snapshot does not have", a.StackTraceKey)
		}
		if a.Present.Has(AllocationAddress) {
			if data, ok := snap.Contents[a.Address]; ok {
				if uint64(len(data)) != a.Size {
					return Snapshot{}, c.errorf(ConflictingElement, "BlockContents", off,
						"the contents of the block at 0x%x have %d bytes, but the Allocation's size is %d", a.Address, len(data), a.Size)
				}
			}
		}
	}
	for _, addr := range contentOrder {
		// Contents match an allocation when one has their address.
		if _, matched := addresses[addr]; !matched {
			snap.DroppedContents = append(snap.DroppedContents, addr)
			delete(snap.Contents, addr)
		}
	}
	slices.SortFunc(snap.Regions, func(a, b int) int {
		return cmp.Compare(s.ExecutableRegions[a].Address, s.ExecutableRegions[b].Address)
	})
	return snap, nil
}
