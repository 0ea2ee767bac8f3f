package fuchsia

import "github.com/heapconv/heapconv/ir"

// A sample's count (Snapshot.Count: value[0], or a FIDL Allocation's count)
// is how many allocations it stands for: ffx merges the blocks of one
// stack into one sample without --with-tags, and the kernel's collector
// and newer collectors send aggregates. A graph format makes each
// allocation an object (ir.ExpandObjects).

var _ ir.ObjectCounter = (*Snapshot)(nil)

// ObjectCount returns how many allocations node i stands for: its count,
// or 1 for a count of 0 (a sample is at least the block it describes).
func (x *Snapshot) ObjectCount(i int) uint64 {
	if i < x.Count.Len() {
		return max(x.Count.At(i), 1)
	}
	return 1
}

// Expand returns the section of the snapshot ir.ExpandObjects makes of s:
// each object has its sample's stack, thread, timestamp and labels, and a
// count of 1. What cannot be split stays with a sample's first object:
// its address (the others have none), the values beyond count and bytes
// (totals of the sample), its contents. A stream's details are kept
// (their per-allocation fields repeated) for the loss report, which names
// them lost; the result is not for writing as a stream or profile again.
func (x *Snapshot) Expand(_ *ir.File, s *ir.Snapshot, from []uint32) ir.Section {
	y := *x
	n, m := s.Nodes.Len(), len(from)
	first := func(j int) bool { return j == 0 || from[j] != from[j-1] }
	y.Count = ir.Uints{}
	for range m {
		y.Count.Append(1)
	}
	y.Flags = make([]uint8, m)
	for j, i := range from {
		y.Flags[j] = x.Flags[i]
		if !first(j) {
			y.Flags[j] &^= FlagAddress | FlagContents
		}
	}
	y.Timestamp = repeat(x.Timestamp, from)
	y.Thread = repeat(x.Thread, from)
	y.Stack = repeat(x.Stack, from)
	if n > 0 && len(x.ExtraValues) > 0 {
		per := len(x.ExtraValues) / n
		y.ExtraValues = make([]int64, 0, m*per)
		for j, i := range from {
			if first(j) {
				y.ExtraValues = append(y.ExtraValues, x.ExtraValues[int(i)*per:int(i+1)*per]...)
			} else {
				y.ExtraValues = append(y.ExtraValues, make([]int64, per)...)
			}
		}
	}
	if len(x.LabelFirst) > 0 {
		y.LabelFirst = make([]uint32, 1, m+1)
		y.LabelKey, y.LabelNumeric, y.LabelStr, y.LabelNum, y.LabelUnit = nil, nil, nil, nil, nil
		for _, i := range from {
			lo, hi := x.LabelFirst[i], x.LabelFirst[i+1]
			y.LabelKey = append(y.LabelKey, x.LabelKey[lo:hi]...)
			y.LabelNumeric = append(y.LabelNumeric, x.LabelNumeric[lo:hi]...)
			y.LabelStr = append(y.LabelStr, x.LabelStr[lo:hi]...)
			y.LabelNum = append(y.LabelNum, x.LabelNum[lo:hi]...)
			y.LabelUnit = append(y.LabelUnit, x.LabelUnit[lo:hi]...)
			y.LabelFirst = append(y.LabelFirst, uint32(len(y.LabelKey)))
		}
	}
	if len(x.ContentsStart) > 0 {
		// The first object has its sample's contents, the others none: the
		// same bytes, with empty ranges between.
		y.ContentsStart = make([]uint64, m+1)
		for j, i := range from {
			y.ContentsStart[j] = x.ContentsStart[i+1]
			if first(j) {
				y.ContentsStart[j] = x.ContentsStart[i]
			}
		}
		y.ContentsStart[m] = x.ContentsStart[n]
	}
	if st := x.Stream; st != nil {
		c := *st
		c.AllocFields = repeat(st.AllocFields, from)
		y.Stream = &c
	}
	return &y
}

// repeat returns col with entry i repeated for every object of node i, or
// col itself when it is empty (an optional column).
func repeat[T any](col []T, from []uint32) []T {
	if len(col) == 0 {
		return col
	}
	out := make([]T, len(from))
	for j, i := range from {
		out[j] = col[i]
	}
	return out
}
