package ir

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"strconv"
)

// WriteText writes the IR's readable text form: every table and column, one
// node per line followed by its edges. Golden tests compare it, and people
// read it to debug a conversion. Strings are Go-quoted.
func WriteText(w io.Writer, f *File) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	q := strconv.Quote
	p("heapir %d\n", Version)
	p("format %s\n", q(f.Format))
	p("format_version %s\n", q(f.FormatVersion))
	p("producer %s\n", q(f.Producer))
	p("strings %d\n", len(f.Strings))
	for i, s := range f.Strings {
		p("  s%d %s\n", i, q(s))
	}
	p("classes %d\n", f.Classes.Len())
	for c := 0; c < f.Classes.Len(); c++ {
		p("  c%d %s library=%s fields=[", c+1, q(f.String(f.Classes.Name[c])), q(f.String(f.Classes.Library[c])))
		for j := f.Classes.FirstField[c]; j < f.Classes.FirstField[c+1]; j++ {
			if j > f.Classes.FirstField[c] {
				p(" ")
			}
			p("%s", q(f.String(f.Classes.FieldName[j])))
		}
		p("]\n")
	}
	if m := f.MoarVM; m != nil {
		writeMoarVMText(p, f, m)
	}
	if m := f.Fuchsia; m != nil {
		writeFuchsiaText(p, f, m)
	}
	for si, s := range f.Snapshots {
		writeSnapshotText(p, f, si, s)
	}
	return bw.Flush()
}

func writeSnapshotText(p func(string, ...any), f *File, si int, s *Snapshot) {
	q := strconv.Quote
	p("snapshot %d name=%s capture_time=%d\n", si, q(f.String(s.Name)), s.CaptureTime)
	for _, t := range s.Totals {
		p("  total %s %d\n", t.Name, t.Value)
	}
	p("  node_kinds")
	for _, k := range s.NodeKinds {
		p(" %s", q(k))
	}
	p("\n  edge_kinds")
	for _, k := range s.EdgeKinds {
		if k.Indexed {
			p(" %s[i]", q(k.Name))
		} else {
			p(" %s", q(k.Name))
		}
	}
	p("\n")
	if s.Root == NoNode {
		p("  root none\n")
	} else {
		p("  root n%d\n", s.Root)
	}
	for _, r := range s.Roots {
		p("  gcroot n%d %s\n", r.Node, q(f.String(r.Category)))
	}
	p("  nodes %d edges %d values %d\n", s.Nodes.Len(), s.Edges.Len(), s.Values.Len())
	nd := &s.Nodes
	vi := 0
	for i := 0; i < nd.Len(); i++ {
		p("  n%d %s %s id=%d self=%d", i, q(s.NodeKindName(i)), q(f.String(nd.Name[i])), nd.ID.At(i), nd.SelfSize.At(i))
		if len(nd.Class) > 0 && nd.Class[i] > 0 {
			p(" class=c%d", nd.Class[i])
		}
		if nd.ExternalSize.Len() > 0 {
			p(" external=%d", nd.ExternalSize.At(i))
		}
		if s.V8 != nil {
			for _, c := range s.V8.NodeExtra {
				p(" %s=%d", c.Name, c.Values.At(i))
			}
		}
		if m := s.MoarVM; m != nil && i < m.TOFI.Len() && i < m.RefStart.Len() {
			p(" tofi=%d refs_at=%d", m.TOFI.At(i), m.RefStart.At(i))
		}
		if x := s.Fuchsia; x != nil {
			writeFuchsiaNodeText(p, f, x, i)
		}
		for vi < s.Values.Len() && int(s.Values.Node[vi]) == i {
			p(" value=%s", valueText(f, &s.Values, vi))
			vi++
		}
		p("\n")
		lo, hi := nd.EdgeRange(i)
		for e := lo; e < hi; e++ {
			k := s.EdgeKindOf(e)
			name := q(f.String(s.Edges.Name[e]))
			if k.Indexed {
				name = "[" + strconv.FormatUint(uint64(s.Edges.Name[e]), 10) + "]"
			}
			p("    %s %s -> n%d", k.Name, name, s.Edges.Target[e])
			if s.V8 != nil {
				for _, c := range s.V8.EdgeExtra {
					p(" %s=%d", c.Name, c.Values.At(e))
				}
			}
			p("\n")
		}
	}
	if v := s.V8; v != nil {
		p("  v8 layout=%s escape=%s\n", v.Layout, v.Escape)
		p("  v8 header %s\n", v.Header.String())
		p("  v8 keys")
		for _, k := range v.Keys {
			if k.Value != nil {
				p(" %s=%s", q(k.Name), k.Value.String())
			} else {
				p(" %s", q(k.Name))
			}
		}
		p("\n")
		uintsLine(p, "v8 trace_function_infos", &v.TraceFunctionInfos)
		uintsLine(p, "v8 trace_tree", &v.TraceTree)
		uintsLine(p, "v8 samples", &v.Samples)
		uintsLine(p, "v8 locations", &v.Locations)
	}
	if d := s.Dart; d != nil {
		p("  dart flags=%d reference_count=%d identity_hashes=%v padding=%d\n", d.Flags, d.ReferenceCount, d.IdentityHashes, d.Padding)
		c := &f.Classes
		for k := 0; k < d.ClassFlags.Len() && k < c.Len(); k++ {
			p("  dart c%d flags=%d uri=%s reserved=%s fields=[", k+1, d.ClassFlags.At(k), q(f.String(d.ClassURI[k])), q(f.String(d.ClassReserved[k])))
			for j := c.FirstField[k]; j < c.FirstField[k+1]; j++ {
				if j > c.FirstField[k] {
					p(" ")
				}
				p("%s@%d/flags=%d", q(f.String(c.FieldName[j])), d.FieldIndex.At(int(j)), d.FieldFlags.At(int(j)))
				if r := d.FieldReserved[j]; r != 0 {
					p("/reserved=%s", q(f.String(r)))
				}
			}
			p("]\n")
		}
		for k := range d.ZeroRefNode {
			p("  dart zero reference n%d slot %d\n", d.ZeroRefNode[k], d.ZeroRefSlot[k])
		}
		for k := range d.ExternalNode {
			p("  dart external n%d size=%d name=%s\n", d.ExternalNode[k], d.ExternalSize.At(k), q(f.String(d.ExternalName[k])))
		}
	}
	if m := s.MoarVM; m != nil {
		writeMoarVMSnapshotText(p, f, m)
	}
	if x := s.Fuchsia; x != nil {
		writeFuchsiaSnapshotText(p, f, x)
	}
}

// writeMoarVMText writes the file-level MoarVM section: the metadata, the
// static frames, what each inner TOC added, and the recovery.
func writeMoarVMText(p func(string, ...any), f *File, m *MoarVMFile) {
	q := strconv.Quote
	p("moarvm version=%d has_meta=%v subversion=%d start_time=%d pid=%d has_pid=%v entry_count=%d data_order=%s string_count=%d\n",
		m.Version, m.HasMeta, m.Subversion, m.StartTime, m.PID, m.HasPID, m.EntryCount, quoteList(m.DataOrder), m.StringCount)
	for i := range m.FrameName {
		if i >= len(m.FrameCUID) || i >= len(m.FrameLine) || i >= len(m.FrameFile) {
			break
		}
		p("  moarvm frame f%d %s cuid=%s line=%d file=%s\n", i, q(f.String(m.FrameName[i])), q(f.String(m.FrameCUID[i])),
			m.FrameLine[i], q(f.String(m.FrameFile[i])))
	}
	for i, t := range m.TOCs {
		p("  moarvm toc %d strings+%d types+%d frames+%d blocks=%s\n", i, t.NewStrings, t.NewTypes, t.NewFrames, quoteList(t.Blocks))
	}
	if r := m.Recovery; r != nil {
		p("  moarvm recovery damage_at=%d lost=%d reason=%s\n", r.DamageAt, r.Lost, q(r.Reason))
	}
}

// writeMoarVMSnapshotText writes a snapshot's MoarVM section (its TOFIs and
// reference starts are on the node lines). The highscores are shown board
// by board when they have the shape filemeta describes.
func writeMoarVMSnapshotText(p func(string, ...any), f *File, m *MoarVMSnapshot) {
	p("  moarvm has_meta=%v snap_time=%d gc_seq_num=%d\n", m.HasMeta, m.SnapTime, m.GCSeqNum)
	if m.TopIDs == nil && m.TopScores == nil {
		p("  moarvm highscores none\n")
		return
	}
	n := min(len(m.TopIDs), len(m.TopScores))
	boards, per, named := []string{""}, n, false
	if fm := f.MoarVM; fm != nil && len(fm.DataOrder) > 0 && fm.EntryCount > 0 && fm.EntryCount <= uint64(n) &&
		uint64(n) == uint64(len(fm.DataOrder))*fm.EntryCount && len(m.TopIDs) == len(m.TopScores) {
		boards, per, named = fm.DataOrder, int(fm.EntryCount), true
	}
	for b, name := range boards {
		p("  moarvm top")
		if named {
			p(" %s", strconv.Quote(name))
		}
		for i := b * per; i < (b+1)*per && i < n; i++ {
			p(" %d:%d", m.TopIDs[i], m.TopScores[i])
		}
		p("\n")
	}
	if len(m.TopIDs) != len(m.TopScores) {
		p("  moarvm top ids=%d scores=%d (lengths differ)\n", len(m.TopIDs), len(m.TopScores))
	}
}

func quoteList(l []string) string {
	b := []byte{'['}
	for i, s := range l {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendQuote(b, s)
	}
	return string(append(b, ']'))
}

func uintsLine(p func(string, ...any), what string, c *Uints) {
	p("  %s [", what)
	for i := 0; i < c.Len(); i++ {
		if i > 0 {
			p(" ")
		}
		p("%d", c.At(i))
	}
	p("]\n")
}

func valueText(f *File, v *Values, j int) string {
	switch v.Kind[j] {
	case ValueString:
		s := strconv.Quote(f.String(uint32(v.Bits[j])))
		if v.Aux[j] != 0 {
			s += fmt.Sprintf("(of %d)", v.Aux[j])
		}
		return s
	case ValueInt:
		s := strconv.FormatInt(int64(v.Bits[j]), 10)
		if v.Aux[j] != 0 {
			s += fmt.Sprintf("(aux %d)", v.Aux[j])
		}
		return s
	case ValueFloat:
		return strconv.FormatFloat(math.Float64frombits(v.Bits[j]), 'g', -1, 64)
	case ValueBool:
		return strconv.FormatBool(v.Bits[j] != 0)
	case ValueLength:
		return "len:" + strconv.FormatUint(v.Bits[j], 10)
	case ValueNull:
		return "null"
	}
	return "?"
}

// writeFuchsiaText writes the file-level Fuchsia section: the profile's
// scalars, then the mapping, function and location tables (a location's
// lines as function:line:column) and the sample order.
func writeFuchsiaText(p func(string, ...any), f *File, m *FuchsiaFile) {
	q := func(i uint32) string { return strconv.Quote(f.String(i)) }
	vt := func(t FuchsiaValueType) string { return q(t.Type) + "/" + q(t.Unit) }
	p("fuchsia gzip=%v sample_types=[", m.Gzip)
	for i, t := range m.SampleTypes {
		if i > 0 {
			p(" ")
		}
		p("%s", vt(t))
	}
	p("] default_sample_type=%s drop_frames=%s keep_frames=%s doc_url=%s comments=[",
		q(m.DefaultSampleType), q(m.DropFrames), q(m.KeepFrames), q(m.DocURL))
	for i, c := range m.Comments {
		if i > 0 {
			p(" ")
		}
		p("%s", q(c))
	}
	p("] time_nanos=%d duration_nanos=%d period_type=%s period=%d\n", m.TimeNanos, m.DurationNanos, vt(m.PeriodType), m.Period)
	mp := &m.Mappings
	for i := 0; i < mp.Len(); i++ {
		if i >= len(mp.Start) || i >= len(mp.Limit) || i >= len(mp.Offset) || i >= len(mp.File) || i >= len(mp.BuildID) || i >= len(mp.Flags) {
			break
		}
		p("  fuchsia mapping m%d id=%d start=%#x limit=%#x offset=%#x file=%s build_id=%s flags=%#x\n",
			i, mp.ID[i], mp.Start[i], mp.Limit[i], mp.Offset[i], q(mp.File[i]), q(mp.BuildID[i]), mp.Flags[i])
	}
	fn := &m.Functions
	for i := 0; i < fn.Len(); i++ {
		if i >= len(fn.Name) || i >= len(fn.SystemName) || i >= len(fn.Filename) || i >= len(fn.StartLine) {
			break
		}
		p("  fuchsia function fn%d id=%d name=%s system_name=%s filename=%s start_line=%d\n",
			i, fn.ID[i], q(fn.Name[i]), q(fn.SystemName[i]), q(fn.Filename[i]), fn.StartLine[i])
	}
	lc := &m.Locations
	if len(lc.FirstLine) == 0 {
		p("  fuchsia location lines none\n")
	}
	for i := 0; i < lc.Len(); i++ {
		if i >= len(lc.Mapping) || i >= len(lc.Address) || i >= len(lc.Folded) {
			break
		}
		mapping := "none"
		if v := lc.Mapping[i]; v > 0 {
			mapping = "m" + strconv.FormatUint(uint64(v-1), 10)
		}
		p("  fuchsia location l%d id=%d mapping=%s address=%#x folded=%v lines=[", i, lc.ID[i], mapping, lc.Address[i], lc.Folded[i])
		if i+1 < len(lc.FirstLine) {
			for j := lc.FirstLine[i]; j < lc.FirstLine[i+1] && int(j) < len(lc.Function) && int(j) < len(lc.Line) && int(j) < len(lc.Column); j++ {
				if j > lc.FirstLine[i] {
					p(" ")
				}
				p("fn%d:%d:%d", int64(lc.Function[j])-1, lc.Line[j], lc.Column[j])
			}
		}
		p("]\n")
	}
	if len(m.SampleSnapshot) > 0 {
		p("  fuchsia sample snapshots %v\n", m.SampleSnapshot)
	}
}

// writeFuchsiaNodeText adds node i's Fuchsia columns to its line.
func writeFuchsiaNodeText(p func(string, ...any), f *File, x *FuchsiaSnapshot, i int) {
	if i < x.Count.Len() {
		p(" count=%d", x.Count.At(i))
	}
	if i < len(x.Flags) {
		p(" flags=%s", fuchsiaFlagsText(x.Flags[i]))
	}
	if i < len(x.Stack) {
		p(" stack=k%d", x.Stack[i])
	}
	if i < len(x.Timestamp) {
		p(" timestamp=%d", x.Timestamp[i])
	}
	if i < len(x.Thread) && x.Thread[i] > 0 {
		p(" thread=t%d", x.Thread[i]-1)
	}
	if m := f.Fuchsia; m != nil && len(m.SampleTypes) > 2 {
		k := len(m.SampleTypes) - 2
		if (i+1)*k <= len(x.ExtraValues) {
			p(" extra=%v", x.ExtraValues[i*k:(i+1)*k])
		}
	}
	if i+1 < len(x.LabelFirst) {
		p(" labels=[")
		for j := x.LabelFirst[i]; j < x.LabelFirst[i+1] && int(j) < len(x.LabelKey); j++ {
			if j > x.LabelFirst[i] {
				p(" ")
			}
			if int(j) >= len(x.LabelNumeric) || int(j) >= len(x.LabelStr) || int(j) >= len(x.LabelNum) || int(j) >= len(x.LabelUnit) {
				break
			}
			p("%s=", strconv.Quote(f.String(x.LabelKey[j])))
			if x.LabelNumeric[j] {
				p("%d%s", x.LabelNum[j], strconv.Quote(f.String(x.LabelUnit[j])))
			} else {
				p("%s", strconv.Quote(f.String(x.LabelStr[j])))
			}
			if x.LabelNumeric[j] && x.LabelStr[j] != 0 || !x.LabelNumeric[j] && (x.LabelNum[j] != 0 || x.LabelUnit[j] != 0) {
				p("(str=%d num=%d unit=%d)", x.LabelStr[j], x.LabelNum[j], x.LabelUnit[j])
			}
		}
		p("]")
	}
	if i+1 < len(x.ContentsStart) {
		lo, hi := x.ContentsStart[i], x.ContentsStart[i+1]
		if lo <= hi && hi <= uint64(len(x.Contents)) && hi > lo {
			p(" contents=%s", bytesText(x.Contents[lo:hi]))
		}
	}
	if st := x.Stream; st != nil && i < len(st.AllocFields) {
		p(" alloc_fields=%s", bitsText(st.AllocFields[i], fuchsiaAllocFieldNames))
	}
}

// bytesText shows bytes as their count and hex, the first 32 of them and
// a hash of all when there are more.
func bytesText(c []byte) string {
	s := fmt.Sprintf("%d:%x", len(c), c[:min(len(c), 32)])
	if len(c) > 32 {
		h := fnv.New64a()
		h.Write(c)
		s += fmt.Sprintf("...fnv64a:%016x", h.Sum64())
	}
	return s
}

// The names of the FuchsiaStream field bits, bit 0 first.
var (
	fuchsiaAllocFieldNames  = []string{"address", "size", "stack_key", "timestamp", "thread_key", "count"}
	fuchsiaRegionFieldNames = []string{"address", "size", "file_offset", "build_id", "vaddr", "name"}
)

// bitsText names the bits of fl, bit k by names[k]; other bits in hex.
func bitsText(fl uint8, names []string) string {
	b := []byte{}
	for k, n := range names {
		if fl&(1<<k) != 0 {
			if len(b) > 0 {
				b = append(b, '+')
			}
			b = append(b, n...)
		}
	}
	if rest := fl &^ (1<<len(names) - 1); rest != 0 {
		if len(b) > 0 {
			b = append(b, '+')
		}
		b = fmt.Appendf(b, "%#x", rest)
	}
	if len(b) == 0 {
		return "0"
	}
	return string(b)
}

// fuchsiaFlagsText names a node's Fuchsia flags.
func fuchsiaFlagsText(fl uint8) string {
	return bitsText(fl, []string{"address", "bytes", "timestamp", "contents"})
}

// writeFuchsiaSnapshotText writes a snapshot's Fuchsia section: the
// process, which optional columns are present, the thread and stack tables
// (labels, contents and the node columns are on the node lines).
func writeFuchsiaSnapshotText(p func(string, ...any), f *File, x *FuchsiaSnapshot) {
	q := strconv.Quote
	p("  fuchsia process name=%s has_name=%v koid=%d has_koid=%v derived_edges=%v\n",
		q(f.String(x.ProcessName)), x.HasProcessName, x.ProcessKoid, x.HasProcessKoid, x.DerivedEdges)
	p("  fuchsia columns")
	for _, c := range []struct {
		name    string
		present bool
	}{
		{"timestamp", len(x.Timestamp) > 0}, {"thread", len(x.Thread) > 0}, {"labels", len(x.LabelFirst) > 0},
		{"contents", len(x.ContentsStart) > 0}, {"stacks", len(x.StackFirst) > 0},
		{"stream", x.Stream != nil}, {"stream_unknown_offsets", x.Stream != nil && len(x.Stream.UnknownFirst) > 0},
	} {
		if c.present {
			p(" %s", c.name)
		}
	}
	p("\n")
	for i := range x.ThreadName {
		if i >= len(x.ThreadKoid) || i >= len(x.ThreadBare) {
			break
		}
		p("  fuchsia thread t%d name=%s koid=%d bare=%v", i, q(f.String(x.ThreadName[i])), x.ThreadKoid[i], x.ThreadBare[i])
		if st := x.Stream; st != nil && i < len(st.ThreadKey) {
			p(" key=%d", st.ThreadKey[i])
		}
		p("\n")
	}
	for k := 0; k+1 < len(x.StackFirst); k++ {
		p("  fuchsia stack k%d [", k)
		for j := x.StackFirst[k]; j < x.StackFirst[k+1] && int(j) < len(x.StackLocation); j++ {
			if j > x.StackFirst[k] {
				p(" ")
			}
			p("l%d", x.StackLocation[j])
		}
		p("]")
		if st := x.Stream; st != nil && k < len(st.StackKey) {
			p(" key=%d", st.StackKey[k])
		}
		p("\n")
	}
	if n := len(x.StackFirst); n > 0 && int(x.StackFirst[n-1]) != len(x.StackLocation) {
		p("  fuchsia stack locations %v (not covered by the offsets)\n", x.StackLocation)
	}
	if st := x.Stream; st != nil {
		writeFuchsiaStreamText(p, st)
	}
}

// writeFuchsiaStreamText writes a snapshot's FuchsiaStream: the records
// batch by batch, the chunks, regions and unknown fields (the allocation
// fields are on the node lines, the keys on the stack and thread lines).
func writeFuchsiaStreamText(p func(string, ...any), st *FuchsiaStream) {
	kinds := map[uint8]string{FuchsiaRecordAllocation: "A", FuchsiaRecordStackTrace: "S", FuchsiaRecordRegion: "R",
		FuchsiaRecordContents: "C", FuchsiaRecordThread: "T"}
	p("  fuchsia stream batches")
	open := false
	for _, r := range st.Records {
		if r == FuchsiaRecordEndOfBatch {
			if !open {
				p(" [")
			}
			p("]")
			open = false
			continue
		}
		if !open {
			p(" [")
			open = true
		} else {
			p(" ")
		}
		if k, ok := kinds[r]; ok {
			p("%s", k)
		} else {
			p("%#x", r)
		}
	}
	if open {
		p(" (unended)")
	}
	p("\n")
	p("  fuchsia stream stack chunks [")
	for c, k := range st.StackChunkStack {
		if c > 0 {
			p(" ")
		}
		p("k%d:", k)
		if c < len(st.StackChunkSize) {
			p("%d", st.StackChunkSize[c])
		} else {
			p("?")
		}
	}
	p("]\n")
	for r, m := range st.RegionMapping {
		if r >= len(st.RegionFields) || r >= len(st.RegionVaddr) {
			break
		}
		p("  fuchsia stream region r%d mapping=m%d fields=%s vaddr=%#x\n", r, m, bitsText(st.RegionFields[r], fuchsiaRegionFieldNames), st.RegionVaddr[r])
	}
	p("  fuchsia stream contents chunks [")
	orphan := 0
	for c, node := range st.ContentsChunkNode {
		if c > 0 {
			p(" ")
		}
		if node == FuchsiaOrphanChunk {
			p("orphan")
			if orphan < len(st.OrphanAddress) {
				p("@%#x", st.OrphanAddress[orphan])
			}
			orphan++
		} else {
			p("n%d", node)
		}
		if c < len(st.ContentsChunkSize) {
			p(":%d", st.ContentsChunkSize[c])
		}
	}
	p("]\n")
	if len(st.OrphanAddress) > orphan {
		p("  fuchsia stream orphan addresses %#x (beyond the orphan chunks)\n", st.OrphanAddress[orphan:])
	}
	if len(st.OrphanContents) > 0 {
		p("  fuchsia stream orphan contents %s\n", bytesText(st.OrphanContents))
	}
	for k, r := range st.UnknownRecord {
		if k >= len(st.UnknownOrdinal) {
			break
		}
		rec := "header"
		if r != FuchsiaHeaderRecord {
			rec = "#" + strconv.FormatUint(uint64(r), 10)
		}
		p("  fuchsia stream unknown u%d record=%s ordinal=%d", k, rec, st.UnknownOrdinal[k])
		if k+1 < len(st.UnknownFirst) {
			lo, hi := st.UnknownFirst[k], st.UnknownFirst[k+1]
			if lo <= hi && int(hi) <= len(st.UnknownBytes) {
				p(" bytes=%s", bytesText(st.UnknownBytes[lo:hi]))
			}
		}
		p("\n")
	}
	if n := len(st.UnknownFirst); n > 0 && int(st.UnknownFirst[n-1]) != len(st.UnknownBytes) {
		p("  fuchsia stream unknown bytes %s (not covered by the offsets)\n", bytesText(st.UnknownBytes))
	}
}
