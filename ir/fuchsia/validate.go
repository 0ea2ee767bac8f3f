package fuchsia

import (
	"fmt"
	"unicode/utf8"

	"github.com/heapconv/heapconv/ir"
)

// Validate checks the profile's scalars, the tables' pprof ids, which
// locations have lines, the stream details across snapshots and the sample
// order.
func (m *File) Validate(f *ir.File, _ *ir.Snapshot) error {
	ns := uint32(len(f.Strings))
	str := func(what string, v uint32) error {
		if v >= ns {
			return fmt.Errorf("fuchsia: %s: string %d out of range (%d strings)", what, v, ns)
		}
		return nil
	}
	for i, t := range m.SampleTypes {
		if err := str(fmt.Sprintf("sample type %d", i), max(t.Type, t.Unit)); err != nil {
			return err
		}
	}
	if len(m.SampleTypes) < 2 {
		return fmt.Errorf("fuchsia: %d sample types (a heapdump profile has a count and a size)", len(m.SampleTypes))
	}
	for _, v := range append([]uint32{m.DefaultSampleType, m.DropFrames, m.KeepFrames, m.DocURL, m.PeriodType.Type, m.PeriodType.Unit}, m.Comments...) {
		if err := str("profile field", v); err != nil {
			return err
		}
	}
	mp, fn, lc := &m.Mappings, &m.Functions, &m.Locations
	// The line offsets are there when there are locations, and lines only
	// with them.
	if lc.Len() > 0 && len(lc.FirstLine) == 0 || len(lc.FirstLine) == 0 && len(lc.Function) > 0 {
		return fmt.Errorf("fuchsia: %d locations and %d lines, but no line offsets", lc.Len(), len(lc.Function))
	}
	for i, v := range lc.Function {
		if v == 0 {
			return fmt.Errorf("fuchsia: line %d: no function", i)
		}
	}
	for _, ids := range [][]uint64{mp.ID, fn.ID, lc.ID} {
		if err := uniqueIDs(ids); err != nil {
			return err
		}
	}
	if err := m.validateStreams(f); err != nil {
		return err
	}
	if len(m.SampleSnapshot) > 0 {
		counts := make([]int, len(f.Snapshots))
		for i, k := range m.SampleSnapshot {
			if int(k) >= len(f.Snapshots) {
				return fmt.Errorf("fuchsia: sample %d: snapshot %d out of range", i, k)
			}
			counts[k]++
		}
		for k, s := range f.Snapshots {
			if counts[k] != s.Nodes.Len() {
				return fmt.Errorf("fuchsia: snapshot %d has %d nodes but %d samples", k, s.Nodes.Len(), counts[k])
			}
		}
	}
	return nil
}

// uniqueIDs checks that pprof ids are non-zero and distinct, as pprof
// requires.
func uniqueIDs(ids []uint64) error {
	seen := make(map[uint64]struct{}, len(ids))
	for i, id := range ids {
		if id == 0 {
			return fmt.Errorf("fuchsia: entry %d has the reserved id 0", i)
		}
		if _, ok := seen[id]; ok {
			return fmt.Errorf("fuchsia: id %d appears twice", id)
		}
		seen[id] = struct{}{}
	}
	return nil
}

// Validate checks the process labels, the extra values, that the stack
// and label tables are there when they are used, the flags, the contents
// against the blocks' sizes, that only derived edges exist, and the stream
// details.
func (fs *Snapshot) Validate(f *ir.File, s *ir.Snapshot) error {
	n, ns := s.Nodes.Len(), uint32(len(f.Strings))
	m := FileOf(f)
	if m == nil {
		return fmt.Errorf("fuchsia: snapshot section without the file's")
	}
	if fs.HasProcessName && fs.ProcessName >= ns {
		return fmt.Errorf("fuchsia: process name: string %d out of range", fs.ProcessName)
	}
	if extra := len(m.SampleTypes) - 2; extra >= 0 && len(fs.ExtraValues) != extra*n {
		return fmt.Errorf("fuchsia: %d extra values for %d nodes of %d sample types", len(fs.ExtraValues), n, len(m.SampleTypes))
	}
	if len(fs.StackFirst) == 0 && (len(fs.StackLocation) > 0 || n > 0) {
		return fmt.Errorf("fuchsia: nodes or stack frames without a stack table")
	}
	if len(fs.LabelFirst) == 0 && len(fs.LabelKey) > 0 {
		return fmt.Errorf("fuchsia: labels without label offsets")
	}
	hasContents := false
	for i, fl := range fs.Flags {
		if fl&FlagTimestamp != 0 && len(fs.Timestamp) == 0 {
			return fmt.Errorf("fuchsia: node %d has a timestamp, but there is no timestamp column", i)
		}
		if fl&FlagContents != 0 {
			hasContents = true
		}
		if fl&^(FlagAddress|FlagBytes|FlagTimestamp|FlagContents) != 0 {
			return fmt.Errorf("fuchsia: node %d: unknown flags %#x", i, fl)
		}
	}
	if len(fs.ContentsStart) == 0 && len(fs.Contents) > 0 {
		return fmt.Errorf("fuchsia: %d contents bytes without contents offsets", len(fs.Contents))
	}
	if len(fs.ContentsStart) > 0 {
		for i := 0; i < n; i++ {
			l := fs.ContentsStart[i+1] - fs.ContentsStart[i]
			if fs.Flags[i]&FlagContents == 0 && l != 0 {
				return fmt.Errorf("fuchsia: node %d has %d contents bytes but no contents flag", i, l)
			}
			if fs.Flags[i]&FlagContents != 0 && l != s.Nodes.SelfSize.At(i) {
				return fmt.Errorf("fuchsia: node %d: %d contents bytes for a block of %d", i, l, s.Nodes.SelfSize.At(i))
			}
		}
	} else if hasContents {
		return fmt.Errorf("fuchsia: nodes flagged with contents, but there are none")
	}
	if s.Edges.Len() > 0 && !fs.DerivedEdges {
		return fmt.Errorf("fuchsia: %d edges, but a profile has none unless derived from contents", s.Edges.Len())
	}
	if fs.Stream != nil {
		if err := fs.Stream.validate(f, s, fs); err != nil {
			return fmt.Errorf("fuchsia stream: %w", err)
		}
	}
	return nil
}

// validateStreams checks what Stream sections need across the file:
// all snapshots have one or none; a single-process stream (no
// SnapshotHeader) is one snapshot; every mapping is the region of exactly
// one snapshot.
func (m *File) validateStreams(f *ir.File) error {
	n := 0
	for _, s := range f.Snapshots {
		if x := Of(s); x != nil && x.Stream != nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if n != len(f.Snapshots) {
		return fmt.Errorf("fuchsia stream: %d of %d snapshots have stream details (all or none do)", n, len(f.Snapshots))
	}
	multi := Of(f.Snapshots[0]).HasProcessName
	used := make([]bool, m.Mappings.Len())
	for k, s := range f.Snapshots {
		fs := Of(s)
		if fs.HasProcessName != multi || fs.HasProcessKoid != multi {
			return fmt.Errorf("fuchsia stream: snapshot %d: a multi-process stream has a SnapshotHeader with name and koid for every process, a single-process one none", k)
		}
		for _, mi := range fs.Stream.RegionMapping {
			if int(mi) >= len(used) {
				return fmt.Errorf("fuchsia stream: snapshot %d: mapping %d out of range (%d mappings)", k, mi, len(used))
			}
			if used[mi] {
				return fmt.Errorf("fuchsia stream: mapping %d is the region of two snapshots", mi)
			}
			used[mi] = true
		}
	}
	if !multi && len(f.Snapshots) != 1 {
		return fmt.Errorf("fuchsia stream: a single-process stream holds one snapshot, not %d", len(f.Snapshots))
	}
	for i, u := range used {
		if !u {
			return fmt.Errorf("fuchsia stream: mapping %d is no snapshot's region", i)
		}
	}
	if len(m.SampleSnapshot) > 0 {
		return fmt.Errorf("fuchsia stream: samples interleaved across snapshots")
	}
	return nil
}

// isLowerHex reports whether s is an even number of lowercase hex digits.
func isLowerHex(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// validate checks that the stream details agree with the snapshot, so that
// writing the elements back cannot fail and reading them again gives the
// same snapshot.
func (st *Stream) validate(f *ir.File, s *ir.Snapshot, fs *Snapshot) error {
	n := s.Nodes.Len()
	nstack := fs.Stacks()
	nthread := len(fs.ThreadName)
	var count [256]int
	prevEnd := true
	for i, r := range st.Records {
		switch r {
		case RecordAllocation, RecordStackTrace, RecordRegion, RecordContents, RecordThread:
			prevEnd = false
		case RecordEndOfBatch:
			if prevEnd {
				return fmt.Errorf("record %d: an empty batch inside the snapshot's data", i)
			}
			prevEnd = true
		default:
			return fmt.Errorf("record %d: unknown kind %d", i, r)
		}
		count[r]++
	}
	if !prevEnd {
		return fmt.Errorf("the last batch has no end")
	}
	for _, c := range []struct {
		kind int
		what string
		have int
	}{
		{RecordAllocation, "allocations (nodes)", n},
		{RecordStackTrace, "stack trace chunks", len(st.StackChunkStack)},
		{RecordRegion, "regions", len(st.RegionMapping)},
		{RecordContents, "contents chunks", len(st.ContentsChunkNode)},
		{RecordThread, "threads", nthread},
	} {
		if count[c.kind] != c.have {
			return fmt.Errorf("%d records of kind %d for %d %s", count[c.kind], c.kind, c.have, c.what)
		}
	}
	if len(fs.LabelKey) > 0 || len(fs.ExtraValues) > 0 {
		return fmt.Errorf("an element stream has no pprof labels or extra values")
	}

	// Allocations.
	for i, af := range st.AllocFields {
		fl := fs.Flags[i]
		switch {
		case af&^allocKnownMask != 0:
			return fmt.Errorf("node %d: unknown allocation field bits %#x", i, af)
		case af&(AllocSize|AllocStackKey) != AllocSize|AllocStackKey:
			return fmt.Errorf("node %d: an Allocation has a size and a stack trace key", i)
		case af&AllocAddress != 0 != (fl&FlagAddress != 0):
			return fmt.Errorf("node %d: address field and address flag disagree", i)
		case af&AllocAddress == 0 && s.Nodes.ID.At(i) != 0:
			return fmt.Errorf("node %d: an id without an address field", i)
		case af&AllocTimestamp != 0 != (fl&FlagTimestamp != 0):
			return fmt.Errorf("node %d: timestamp field and timestamp flag disagree", i)
		case af&AllocThreadKey != 0 != (len(fs.Thread) > 0 && fs.Thread[i] != 0):
			return fmt.Errorf("node %d: thread key field and thread disagree", i)
		case af&AllocCount == 0 && fs.Count.At(i) != 1:
			return fmt.Errorf("node %d: count %d without a count field (the default is 1)", i, fs.Count.At(i))
		case fl&FlagBytes == 0:
			return fmt.Errorf("node %d: every allocation has its size as the bytes label", i)
		}
	}
	addrs := make(map[uint64]bool, n)
	for i := 0; i < n; i++ {
		if fs.Flags[i]&FlagAddress != 0 {
			a := s.Nodes.ID.At(i)
			if addrs[a] {
				return fmt.Errorf("node %d: a second allocation at 0x%x", i, a)
			}
			addrs[a] = true
		}
	}

	// Stacks: keys unique, chunks cover each stack in order, first chunks
	// in stack order.
	if len(st.StackKey) != nstack {
		return fmt.Errorf("%d stack keys for %d stacks", len(st.StackKey), nstack)
	}
	seenKey := make(map[uint64]bool, nstack)
	for _, k := range st.StackKey {
		if seenKey[k] {
			return fmt.Errorf("stack key %d appears twice", k)
		}
		seenKey[k] = true
	}
	filled := make([]uint64, nstack)
	next := uint32(0)
	for c, k := range st.StackChunkStack {
		if k > next || k >= uint32(nstack) {
			return fmt.Errorf("stack chunk %d: stack %d out of order (stacks are in order of their first chunk)", c, k)
		}
		if k == next {
			next++
		}
		filled[k] += uint64(st.StackChunkSize[c])
	}
	for k := 0; k < nstack; k++ {
		if int(next) <= k {
			return fmt.Errorf("stack %d has no chunk", k)
		}
		if filled[k] != uint64(len(fs.StackOf(k))) {
			return fmt.Errorf("stack %d: chunks of %d addresses for %d frames", k, filled[k], len(fs.StackOf(k)))
		}
	}

	// Threads.
	if len(st.ThreadKey) != nthread {
		return fmt.Errorf("%d thread keys for %d threads", len(st.ThreadKey), nthread)
	}
	seenKey = make(map[uint64]bool, nthread)
	for t, k := range st.ThreadKey {
		if seenKey[k] {
			return fmt.Errorf("thread key %d appears twice", k)
		}
		seenKey[k] = true
		if fs.ThreadBare[t] {
			return fmt.Errorf("thread %d: a ThreadInfo has a name and a koid", t)
		}
		if name := f.Strings[fs.ThreadName[t]]; len(name) > 32 || !utf8.ValidString(name) {
			return fmt.Errorf("thread %d: name is not UTF-8 of at most 32 bytes", t)
		}
	}
	if fs.HasProcessName {
		if name := f.Strings[fs.ProcessName]; len(name) > 32 || !utf8.ValidString(name) {
			return fmt.Errorf("process name is not UTF-8 of at most 32 bytes")
		}
	}

	// Regions.
	mp := &FileOf(f).Mappings
	starts := make(map[uint64]bool, len(st.RegionMapping))
	for r, mi := range st.RegionMapping {
		rf := st.RegionFields[r]
		if rf&^regionKnownMask != 0 || rf&RegionRequired != RegionRequired {
			return fmt.Errorf("region %d: field bits %#x (address, size, file_offset and build_id are required)", r, rf)
		}
		if rf&RegionVaddr == 0 && st.RegionVaddr[r] != 0 {
			return fmt.Errorf("region %d: a vaddr without a vaddr field", r)
		}
		if rf&RegionName == 0 && mp.File[mi] != 0 && f.Strings[mp.File[mi]] != "" {
			return fmt.Errorf("region %d: a name without a name field", r)
		}
		if rf&RegionName != 0 && !utf8.ValidString(f.Strings[mp.File[mi]]) {
			return fmt.Errorf("region %d: name is not UTF-8", r)
		}
		if id := f.Strings[mp.BuildID[mi]]; len(id) > 64 || !isLowerHex(id) {
			return fmt.Errorf("region %d: build id %q is not the hex of at most 32 bytes", r, id)
		}
		if mp.Flags[mi] != 0 {
			return fmt.Errorf("region %d: mapping %d has symbolization flags", r, mi)
		}
		if starts[mp.Start[mi]] {
			return fmt.Errorf("region %d: a second region at 0x%x", r, mp.Start[mi])
		}
		starts[mp.Start[mi]] = true
	}

	// Contents chunks.
	got := make([]uint64, n)
	chunks := make([]bool, n)
	orphans, orphanBytes := 0, uint64(0)
	for c, node := range st.ContentsChunkNode {
		size := uint64(st.ContentsChunkSize[c])
		if node == OrphanChunk {
			if orphans >= len(st.OrphanAddress) {
				return fmt.Errorf("contents chunk %d: more orphan chunks than orphan addresses", c)
			}
			if addrs[st.OrphanAddress[orphans]] {
				return fmt.Errorf("contents chunk %d: orphan chunk at 0x%x, the address of an allocation", c, st.OrphanAddress[orphans])
			}
			orphans++
			orphanBytes += size
			continue
		}
		if int(node) >= n {
			return fmt.Errorf("contents chunk %d: node %d out of range", c, node)
		}
		if fs.Flags[node]&FlagContents == 0 {
			return fmt.Errorf("contents chunk %d: node %d has no contents", c, node)
		}
		got[node] += size
		chunks[node] = true
	}
	if orphans != len(st.OrphanAddress) || orphanBytes != uint64(len(st.OrphanContents)) {
		return fmt.Errorf("%d orphan chunks of %d bytes for %d orphan addresses and %d bytes", orphans, orphanBytes, len(st.OrphanAddress), len(st.OrphanContents))
	}
	for i := 0; i < n; i++ {
		if fs.Flags[i]&FlagContents == 0 {
			continue
		}
		if !chunks[i] || got[i] != s.Nodes.SelfSize.At(i) {
			return fmt.Errorf("node %d: contents chunks of %d bytes for a block of %d", i, got[i], s.Nodes.SelfSize.At(i))
		}
		if fs.Flags[i]&FlagAddress == 0 {
			return fmt.Errorf("node %d: contents without an address", i)
		}
	}

	// Unknown fields.
	nu := len(st.UnknownRecord)
	if len(st.UnknownFirst) == 0 && nu+len(st.UnknownBytes) > 0 {
		return fmt.Errorf("unknown fields without their offsets")
	}
	for k := 0; k < nu; k++ {
		r, ord := st.UnknownRecord[k], st.UnknownOrdinal[k]
		known := 0
		switch {
		case r == HeaderRecord:
			if !fs.HasProcessName {
				return fmt.Errorf("unknown field %d: a SnapshotHeader field, but the snapshot has no header", k)
			}
			known = 2
		case int(r) < len(st.Records):
			known = [...]int{RecordAllocation: 6, RecordStackTrace: 2, RecordRegion: 6,
				RecordContents: 2, RecordThread: 3, 0x80: 0}[min(int(st.Records[r]), 0x80)]
			if known == 0 {
				return fmt.Errorf("unknown field %d: record %d is not an element", k, r)
			}
		default:
			return fmt.Errorf("unknown field %d: record %d out of range", k, r)
		}
		if ord <= uint64(known) || ord > 64 {
			return fmt.Errorf("unknown field %d: ordinal %d is a known field or beyond a table's 64", k, ord)
		}
		if k > 0 {
			pr, po := st.UnknownRecord[k-1], st.UnknownOrdinal[k-1]
			if r < pr || r == pr && ord <= po {
				return fmt.Errorf("unknown field %d: not by record and increasing ordinal", k)
			}
		}
		if size := st.UnknownFirst[k+1] - st.UnknownFirst[k]; size != 4 && (size == 0 || size%8 != 0) {
			return fmt.Errorf("unknown field %d: %d payload bytes (4 inline, or a non-zero multiple of 8)", k, size)
		}
	}
	return nil
}
