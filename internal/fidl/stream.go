package fidl

import (
	"fmt"
	"io"
)

// Stream is a whole element stream in memory, kept element-exact: every
// element in its own typed list, and Records, the sequence of elements,
// batch ends and the collector error in stream order. Writing Records back
// reproduces the same elements, in the same order and batches, with the
// same chunking of stack traces and block contents; since the element
// encoding is canonical, a file read and written again is byte-identical.
// Reassemble builds the snapshots from it without copying what it can
// share.
type Stream struct {
	// MultiProcess is the header flag: the stream was taken with
	// multi_process = true.
	MultiProcess bool

	// The elements, each kind in stream order.
	Allocations       []Allocation
	StackTraces       []StackTrace // chunks
	ThreadInfos       []ThreadInfo
	ExecutableRegions []ExecutableRegion
	BlockContents     []BlockContents // chunks
	SnapshotHeaders   []SnapshotHeader
	Unknown           []RawField // unknown SnapshotElement variants

	// Records is the stream order.
	Records []Ref

	// size is the file size so far, for Ref offsets.
	size int64
}

// Ref is one record of a Stream.
type Ref struct {
	// Kind is the element kind (Index then indexes the list of that kind),
	// KindEndOfBatch, or KindCollectorError (Index then holds the
	// CollectorError value).
	Kind  Kind
	Index uint32
	// Offset is the record's offset in the container file (as read, or as
	// WriteTo will write it).
	Offset int64
}

// NewStream returns an empty stream.
func NewStream(multiProcess bool) *Stream {
	return &Stream{MultiProcess: multiProcess, size: HeaderSize}
}

// Size returns the size of the container file WriteTo writes.
func (s *Stream) Size() int64 { return s.size }

// Append adds an element to the current batch. The element's variant is
// copied; its slices are shared, not copied.
func (s *Stream) Append(e *Element) {
	var idx int
	switch e.Kind {
	case KindAllocation:
		idx = len(s.Allocations)
		s.Allocations = append(s.Allocations, e.Allocation)
	case KindStackTrace:
		idx = len(s.StackTraces)
		s.StackTraces = append(s.StackTraces, e.StackTrace)
	case KindThreadInfo:
		idx = len(s.ThreadInfos)
		s.ThreadInfos = append(s.ThreadInfos, e.ThreadInfo)
	case KindExecutableRegion:
		idx = len(s.ExecutableRegions)
		s.ExecutableRegions = append(s.ExecutableRegions, e.ExecutableRegion)
	case KindBlockContents:
		idx = len(s.BlockContents)
		s.BlockContents = append(s.BlockContents, e.BlockContents)
	case KindSnapshotHeader:
		idx = len(s.SnapshotHeaders)
		s.SnapshotHeaders = append(s.SnapshotHeaders, e.SnapshotHeader)
	case KindEndOfBatch, KindCollectorError:
		panic("fidl: Stream.Append of a record marker; use EndBatch or ReportError")
	default:
		// KindUnknown, or an invalid kind that WriteTo will reject.
		idx = len(s.Unknown)
		s.Unknown = append(s.Unknown, e.Unknown)
		if e.Kind != KindUnknown {
			s.Unknown[idx] = RawField{Ordinal: uint64(e.Kind)}
		}
	}
	s.Records = append(s.Records, Ref{Kind: e.Kind, Index: uint32(idx), Offset: s.size})
	s.size += RecordHeaderSize + 8 + int64(e.WireSize())
}

// EndBatch ends the current batch (an empty batch if nothing was appended
// since the previous one).
func (s *Stream) EndBatch() {
	s.Records = append(s.Records, Ref{Kind: KindEndOfBatch, Offset: s.size})
	s.size += RecordHeaderSize
}

// ReportError appends the collector error record.
func (s *Stream) ReportError(code uint32) {
	s.Records = append(s.Records, Ref{Kind: KindCollectorError, Index: code, Offset: s.size})
	s.size += RecordHeaderSize + 4
}

// Element fills e with the element of record i (which must be an element).
// The variant is a copy; slices are shared with the stream.
func (s *Stream) Element(i int, e *Element) {
	r := s.Records[i]
	e.Kind = r.Kind
	switch r.Kind {
	case KindAllocation:
		e.Allocation = s.Allocations[r.Index]
	case KindStackTrace:
		e.StackTrace = s.StackTraces[r.Index]
	case KindThreadInfo:
		e.ThreadInfo = s.ThreadInfos[r.Index]
	case KindExecutableRegion:
		e.ExecutableRegion = s.ExecutableRegions[r.Index]
	case KindBlockContents:
		e.BlockContents = s.BlockContents[r.Index]
	case KindSnapshotHeader:
		e.SnapshotHeader = s.SnapshotHeaders[r.Index]
	case KindEndOfBatch, KindCollectorError:
		panic(fmt.Sprintf("fidl: record %d is not an element (%v)", i, r.Kind))
	default:
		// KindUnknown, or an invalid kind given to Append.
		e.Unknown = s.Unknown[r.Index]
	}
}

// ReadStream reads a whole container file (see NewReader for size). It
// checks the container and every element, not the receive rules: call
// Reassemble for those.
func ReadStream(r io.Reader, size int64) (*Stream, error) {
	rd, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	s := NewStream(rd.MultiProcess())
	var e Element
	for {
		rec, err := rd.Next(&e)
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		switch rec.Kind {
		case KindEndOfBatch:
			s.EndBatch()
		case KindCollectorError:
			s.ReportError(rec.Code)
		default:
			s.Append(&e)
		}
		if s.size != rd.Offset() {
			// Cannot happen: a decoded element re-encodes to its own size.
			return nil, errorf(rec.Offset, "internal error: record size mismatch")
		}
	}
}

// WriteTo writes the stream as a container file, record by record.
func (s *Stream) WriteTo(w io.Writer) (int64, error) {
	wr, err := NewWriter(w, s.MultiProcess)
	if err != nil {
		return wr.Offset(), err
	}
	var e Element
	for i, r := range s.Records {
		switch r.Kind {
		case KindEndOfBatch:
			err = wr.EndBatch()
		case KindCollectorError:
			err = wr.WriteCollectorError(r.Index)
		default:
			s.Element(i, &e)
			err = wr.WriteElement(&e)
		}
		if err != nil {
			return wr.Offset(), fmt.Errorf("record %d: %w", i, err)
		}
	}
	err = wr.Close()
	return wr.Offset(), err
}
