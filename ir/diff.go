package ir

import (
	"fmt"
	"slices"
)

// Diff lists the differences between two files, at most max of them (all when
// max <= 0). An empty result means the files hold the same data: that is
// the round-trip criterion of the IR encoding.
func Diff(a, b *File, max int) []string {
	d := &differ{max: max}
	d.check(a.Format == b.Format, "format %q != %q", a.Format, b.Format)
	d.check(a.FormatVersion == b.FormatVersion, "format version %q != %q", a.FormatVersion, b.FormatVersion)
	d.check(a.Producer == b.Producer, "producer %q != %q", a.Producer, b.Producer)
	if len(a.Strings) != len(b.Strings) {
		d.addf("string count %d != %d", len(a.Strings), len(b.Strings))
	}
	for i := 0; i < min(len(a.Strings), len(b.Strings)) && !d.full(); i++ {
		d.check(a.Strings[i] == b.Strings[i], "string %d: %q != %q", i, a.Strings[i], b.Strings[i])
	}
	d.u32s("class name", a.Classes.Name, b.Classes.Name)
	d.u32s("class library", a.Classes.Library, b.Classes.Library)
	d.u32s("class field offset", a.Classes.FirstField, b.Classes.FirstField)
	d.u32s("class field name", a.Classes.FieldName, b.Classes.FieldName)
	switch {
	case (a.MoarVM == nil) != (b.MoarVM == nil):
		d.addf("moarvm section present %v != %v", a.MoarVM != nil, b.MoarVM != nil)
	case a.MoarVM != nil:
		d.moarvm(a.MoarVM, b.MoarVM)
	}
	switch {
	case (a.Fuchsia == nil) != (b.Fuchsia == nil):
		d.addf("fuchsia section present %v != %v", a.Fuchsia != nil, b.Fuchsia != nil)
	case a.Fuchsia != nil:
		d.fuchsia(a.Fuchsia, b.Fuchsia)
	}
	d.check(len(a.Snapshots) == len(b.Snapshots), "snapshot count %d != %d", len(a.Snapshots), len(b.Snapshots))
	for i := 0; i < min(len(a.Snapshots), len(b.Snapshots)) && !d.full(); i++ {
		d.prefix = fmt.Sprintf("snapshot %d: ", i)
		d.snapshot(a.Snapshots[i], b.Snapshots[i])
	}
	return d.out
}

type differ struct {
	out    []string
	max    int
	prefix string
}

func (d *differ) full() bool { return d.max > 0 && len(d.out) >= d.max }

func (d *differ) addf(format string, args ...any) {
	if !d.full() {
		d.out = append(d.out, d.prefix+fmt.Sprintf(format, args...))
	}
}

func (d *differ) check(ok bool, format string, args ...any) {
	if !ok {
		d.addf(format, args...)
	}
}

func (d *differ) u32s(what string, a, b []uint32) {
	if i := firstDiff(a, b); i >= 0 {
		d.addf("%s: lengths %d/%d, first difference at %d", what, len(a), len(b), i)
	}
}

func (d *differ) u8s(what string, a, b []uint8) {
	if i := firstDiff(a, b); i >= 0 {
		d.addf("%s: lengths %d/%d, first difference at %d", what, len(a), len(b), i)
	}
}

func (d *differ) uints(what string, a, b *Uints) {
	if i := a.FirstDiff(b); i >= 0 {
		d.addf("%s: lengths %d/%d, first difference at %d", what, a.Len(), b.Len(), i)
	}
}

func firstDiff[T comparable](a, b []T) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

func (d *differ) snapshot(a, b *Snapshot) {
	d.check(a.Name == b.Name, "name %d != %d", a.Name, b.Name)
	d.check(a.CaptureTime == b.CaptureTime, "capture time %d != %d", a.CaptureTime, b.CaptureTime)
	d.check(slices.Equal(a.Totals, b.Totals), "totals %v != %v", a.Totals, b.Totals)
	d.check(slices.Equal(a.NodeKinds, b.NodeKinds), "node kinds %q != %q", a.NodeKinds, b.NodeKinds)
	d.check(slices.Equal(a.EdgeKinds, b.EdgeKinds), "edge kinds %v != %v", a.EdgeKinds, b.EdgeKinds)
	d.check(a.Root == b.Root, "root %d != %d", a.Root, b.Root)
	d.check(slices.Equal(a.Roots, b.Roots), "roots differ")
	d.u8s("node kind", a.Nodes.Kind, b.Nodes.Kind)
	d.u32s("node name", a.Nodes.Name, b.Nodes.Name)
	d.u32s("node class", a.Nodes.Class, b.Nodes.Class)
	d.uints("node id", &a.Nodes.ID, &b.Nodes.ID)
	d.uints("node self size", &a.Nodes.SelfSize, &b.Nodes.SelfSize)
	d.uints("node external size", &a.Nodes.ExternalSize, &b.Nodes.ExternalSize)
	d.u32s("node edge offsets", a.Nodes.FirstEdge, b.Nodes.FirstEdge)
	d.u8s("edge kind", a.Edges.Kind, b.Edges.Kind)
	d.u32s("edge name", a.Edges.Name, b.Edges.Name)
	d.u32s("edge target", a.Edges.Target, b.Edges.Target)
	d.u32s("value node", a.Values.Node, b.Values.Node)
	d.u8s("value kind", valueKindBytes(a.Values.Kind), valueKindBytes(b.Values.Kind))
	if i := firstDiff(a.Values.Bits, b.Values.Bits); i >= 0 {
		d.addf("value bits differ at %d", i)
	}
	if i := firstDiff(a.Values.Aux, b.Values.Aux); i >= 0 {
		d.addf("value aux differs at %d", i)
	}
	switch {
	case (a.V8 == nil) != (b.V8 == nil):
		d.addf("v8 section present %v != %v", a.V8 != nil, b.V8 != nil)
	case a.V8 != nil:
		d.v8(a.V8, b.V8)
	}
	switch {
	case (a.Dart == nil) != (b.Dart == nil):
		d.addf("dart section present %v != %v", a.Dart != nil, b.Dart != nil)
	case a.Dart != nil:
		d.dart(a.Dart, b.Dart)
	}
	switch {
	case (a.MoarVM == nil) != (b.MoarVM == nil):
		d.addf("moarvm section present %v != %v", a.MoarVM != nil, b.MoarVM != nil)
	case a.MoarVM != nil:
		d.moarvmSnapshot(a.MoarVM, b.MoarVM)
	}
	switch {
	case (a.Fuchsia == nil) != (b.Fuchsia == nil):
		d.addf("fuchsia section present %v != %v", a.Fuchsia != nil, b.Fuchsia != nil)
	case a.Fuchsia != nil:
		d.fuchsiaSnapshot(a.Fuchsia, b.Fuchsia)
	}
}

// diffCol reports the first difference between two columns of any type. An
// offset table absent in one file and [0] in the other differ by length.
func diffCol[T comparable](d *differ, what string, a, b []T) {
	if i := firstDiff(a, b); i >= 0 {
		d.addf("%s: lengths %d/%d, first difference at %d", what, len(a), len(b), i)
	}
}

func (d *differ) fuchsia(a, b *FuchsiaFile) {
	d.check(a.Gzip == b.Gzip, "fuchsia gzip %v != %v", a.Gzip, b.Gzip)
	d.check(slices.Equal(a.SampleTypes, b.SampleTypes), "fuchsia sample types %v != %v", a.SampleTypes, b.SampleTypes)
	d.check(a.DefaultSampleType == b.DefaultSampleType, "fuchsia default sample type %d != %d", a.DefaultSampleType, b.DefaultSampleType)
	d.check(a.DropFrames == b.DropFrames, "fuchsia drop frames %d != %d", a.DropFrames, b.DropFrames)
	d.check(a.KeepFrames == b.KeepFrames, "fuchsia keep frames %d != %d", a.KeepFrames, b.KeepFrames)
	d.check(a.DocURL == b.DocURL, "fuchsia doc url %d != %d", a.DocURL, b.DocURL)
	d.check(slices.Equal(a.Comments, b.Comments), "fuchsia comments %v != %v", a.Comments, b.Comments)
	d.check(a.TimeNanos == b.TimeNanos, "fuchsia time %d != %d", a.TimeNanos, b.TimeNanos)
	d.check(a.DurationNanos == b.DurationNanos, "fuchsia duration %d != %d", a.DurationNanos, b.DurationNanos)
	d.check(a.PeriodType == b.PeriodType, "fuchsia period type %v != %v", a.PeriodType, b.PeriodType)
	d.check(a.Period == b.Period, "fuchsia period %d != %d", a.Period, b.Period)
	ma, mb := &a.Mappings, &b.Mappings
	diffCol(d, "fuchsia mapping id", ma.ID, mb.ID)
	diffCol(d, "fuchsia mapping start", ma.Start, mb.Start)
	diffCol(d, "fuchsia mapping limit", ma.Limit, mb.Limit)
	diffCol(d, "fuchsia mapping offset", ma.Offset, mb.Offset)
	diffCol(d, "fuchsia mapping file", ma.File, mb.File)
	diffCol(d, "fuchsia mapping build id", ma.BuildID, mb.BuildID)
	diffCol(d, "fuchsia mapping flags", ma.Flags, mb.Flags)
	fa, fb := &a.Functions, &b.Functions
	diffCol(d, "fuchsia function id", fa.ID, fb.ID)
	diffCol(d, "fuchsia function name", fa.Name, fb.Name)
	diffCol(d, "fuchsia function system name", fa.SystemName, fb.SystemName)
	diffCol(d, "fuchsia function filename", fa.Filename, fb.Filename)
	diffCol(d, "fuchsia function start line", fa.StartLine, fb.StartLine)
	la, lb := &a.Locations, &b.Locations
	diffCol(d, "fuchsia location id", la.ID, lb.ID)
	diffCol(d, "fuchsia location mapping", la.Mapping, lb.Mapping)
	diffCol(d, "fuchsia location address", la.Address, lb.Address)
	diffCol(d, "fuchsia location folded", la.Folded, lb.Folded)
	diffCol(d, "fuchsia location line offsets", la.FirstLine, lb.FirstLine)
	diffCol(d, "fuchsia line function", la.Function, lb.Function)
	diffCol(d, "fuchsia line line", la.Line, lb.Line)
	diffCol(d, "fuchsia line column", la.Column, lb.Column)
	diffCol(d, "fuchsia sample snapshot", a.SampleSnapshot, b.SampleSnapshot)
}

func (d *differ) fuchsiaSnapshot(a, b *FuchsiaSnapshot) {
	d.check(a.HasProcessName == b.HasProcessName && a.ProcessName == b.ProcessName,
		"fuchsia process name %d (present %v) != %d (present %v)", a.ProcessName, a.HasProcessName, b.ProcessName, b.HasProcessName)
	d.check(a.HasProcessKoid == b.HasProcessKoid && a.ProcessKoid == b.ProcessKoid,
		"fuchsia process koid %d (present %v) != %d (present %v)", a.ProcessKoid, a.HasProcessKoid, b.ProcessKoid, b.HasProcessKoid)
	d.check(a.DerivedEdges == b.DerivedEdges, "fuchsia derived edges %v != %v", a.DerivedEdges, b.DerivedEdges)
	d.uints("fuchsia node count", &a.Count, &b.Count)
	diffCol(d, "fuchsia node flags", a.Flags, b.Flags)
	diffCol(d, "fuchsia node timestamp", a.Timestamp, b.Timestamp)
	diffCol(d, "fuchsia node thread", a.Thread, b.Thread)
	diffCol(d, "fuchsia node stack", a.Stack, b.Stack)
	diffCol(d, "fuchsia extra values", a.ExtraValues, b.ExtraValues)
	diffCol(d, "fuchsia thread name", a.ThreadName, b.ThreadName)
	diffCol(d, "fuchsia thread koid", a.ThreadKoid, b.ThreadKoid)
	diffCol(d, "fuchsia thread bare", a.ThreadBare, b.ThreadBare)
	diffCol(d, "fuchsia stack offsets", a.StackFirst, b.StackFirst)
	diffCol(d, "fuchsia stack location", a.StackLocation, b.StackLocation)
	diffCol(d, "fuchsia label offsets", a.LabelFirst, b.LabelFirst)
	diffCol(d, "fuchsia label key", a.LabelKey, b.LabelKey)
	diffCol(d, "fuchsia label numeric", a.LabelNumeric, b.LabelNumeric)
	diffCol(d, "fuchsia label str", a.LabelStr, b.LabelStr)
	diffCol(d, "fuchsia label num", a.LabelNum, b.LabelNum)
	diffCol(d, "fuchsia label unit", a.LabelUnit, b.LabelUnit)
	diffCol(d, "fuchsia contents offsets", a.ContentsStart, b.ContentsStart)
	diffCol(d, "fuchsia contents", a.Contents, b.Contents)
	switch {
	case (a.Stream == nil) != (b.Stream == nil):
		d.addf("fuchsia stream details present %v != %v", a.Stream != nil, b.Stream != nil)
	case a.Stream != nil:
		d.fuchsiaStream(a.Stream, b.Stream)
	}
}

func (d *differ) fuchsiaStream(a, b *FuchsiaStream) {
	diffCol(d, "fuchsia stream records", a.Records, b.Records)
	diffCol(d, "fuchsia stream allocation fields", a.AllocFields, b.AllocFields)
	diffCol(d, "fuchsia stream stack key", a.StackKey, b.StackKey)
	diffCol(d, "fuchsia stream stack chunk stack", a.StackChunkStack, b.StackChunkStack)
	diffCol(d, "fuchsia stream stack chunk size", a.StackChunkSize, b.StackChunkSize)
	diffCol(d, "fuchsia stream thread key", a.ThreadKey, b.ThreadKey)
	diffCol(d, "fuchsia stream region mapping", a.RegionMapping, b.RegionMapping)
	diffCol(d, "fuchsia stream region fields", a.RegionFields, b.RegionFields)
	diffCol(d, "fuchsia stream region vaddr", a.RegionVaddr, b.RegionVaddr)
	diffCol(d, "fuchsia stream contents chunk node", a.ContentsChunkNode, b.ContentsChunkNode)
	diffCol(d, "fuchsia stream contents chunk size", a.ContentsChunkSize, b.ContentsChunkSize)
	diffCol(d, "fuchsia stream orphan address", a.OrphanAddress, b.OrphanAddress)
	diffCol(d, "fuchsia stream orphan contents", a.OrphanContents, b.OrphanContents)
	diffCol(d, "fuchsia stream unknown record", a.UnknownRecord, b.UnknownRecord)
	diffCol(d, "fuchsia stream unknown ordinal", a.UnknownOrdinal, b.UnknownOrdinal)
	diffCol(d, "fuchsia stream unknown offsets", a.UnknownFirst, b.UnknownFirst)
	diffCol(d, "fuchsia stream unknown bytes", a.UnknownBytes, b.UnknownBytes)
}

func (d *differ) moarvm(a, b *MoarVMFile) {
	d.check(a.Version == b.Version, "moarvm version %d != %d", a.Version, b.Version)
	d.check(a.HasMeta == b.HasMeta, "moarvm filemeta present %v != %v", a.HasMeta, b.HasMeta)
	d.check(a.Subversion == b.Subversion, "moarvm subversion %d != %d", a.Subversion, b.Subversion)
	d.check(a.StartTime == b.StartTime, "moarvm start time %d != %d", a.StartTime, b.StartTime)
	d.check(a.PID == b.PID && a.HasPID == b.HasPID, "moarvm pid %d (present %v) != %d (present %v)", a.PID, a.HasPID, b.PID, b.HasPID)
	d.check(a.EntryCount == b.EntryCount, "moarvm entry count %d != %d", a.EntryCount, b.EntryCount)
	d.check(slices.Equal(a.DataOrder, b.DataOrder), "moarvm data order %q != %q", a.DataOrder, b.DataOrder)
	d.check(a.StringCount == b.StringCount, "moarvm string heap %d != %d", a.StringCount, b.StringCount)
	d.u32s("moarvm frame name", a.FrameName, b.FrameName)
	d.u32s("moarvm frame cuid", a.FrameCUID, b.FrameCUID)
	d.u32s("moarvm frame line", a.FrameLine, b.FrameLine)
	d.u32s("moarvm frame file", a.FrameFile, b.FrameFile)
	if len(a.TOCs) != len(b.TOCs) {
		d.addf("moarvm TOC count %d != %d", len(a.TOCs), len(b.TOCs))
	} else {
		for i := range a.TOCs {
			ta, tb := &a.TOCs[i], &b.TOCs[i]
			same := ta.NewStrings == tb.NewStrings && ta.NewTypes == tb.NewTypes && ta.NewFrames == tb.NewFrames &&
				slices.Equal(ta.Blocks, tb.Blocks)
			d.check(same, "moarvm TOC %d: %+v != %+v", i, *ta, *tb)
		}
	}
	switch ra, rb := a.Recovery, b.Recovery; {
	case (ra == nil) != (rb == nil):
		d.addf("moarvm recovery present %v != %v", ra != nil, rb != nil)
	case ra != nil:
		d.check(*ra == *rb, "moarvm recovery %+v != %+v", *ra, *rb)
	}
}

func (d *differ) moarvmSnapshot(a, b *MoarVMSnapshot) {
	d.check(a.HasMeta == b.HasMeta, "moarvm snapmeta present %v != %v", a.HasMeta, b.HasMeta)
	d.check(a.SnapTime == b.SnapTime, "moarvm snap time %d != %d", a.SnapTime, b.SnapTime)
	d.check(a.GCSeqNum == b.GCSeqNum, "moarvm GC sequence number %d != %d", a.GCSeqNum, b.GCSeqNum)
	d.uints("moarvm TOFI", &a.TOFI, &b.TOFI)
	d.uints("moarvm reference start", &a.RefStart, &b.RefStart)
	// Boards absent (nil) and boards present but empty are different files.
	ha, hb := a.TopIDs != nil || a.TopScores != nil, b.TopIDs != nil || b.TopScores != nil
	d.check(ha == hb, "moarvm highscores present %v != %v", ha, hb)
	if i := firstDiff(a.TopIDs, b.TopIDs); i >= 0 {
		d.addf("moarvm top ids: lengths %d/%d, first difference at %d", len(a.TopIDs), len(b.TopIDs), i)
	}
	if i := firstDiff(a.TopScores, b.TopScores); i >= 0 {
		d.addf("moarvm top scores: lengths %d/%d, first difference at %d", len(a.TopScores), len(b.TopScores), i)
	}
}

func (d *differ) dart(a, b *DartSnapshot) {
	d.check(a.Flags == b.Flags, "dart flags %d != %d", a.Flags, b.Flags)
	d.check(a.ReferenceCount == b.ReferenceCount, "dart reference count %d != %d", a.ReferenceCount, b.ReferenceCount)
	d.check(a.IdentityHashes == b.IdentityHashes, "dart identity hashes %v != %v", a.IdentityHashes, b.IdentityHashes)
	d.check(a.Padding == b.Padding, "dart padding %d != %d", a.Padding, b.Padding)
	d.uints("dart class flags", &a.ClassFlags, &b.ClassFlags)
	d.u32s("dart class uri", a.ClassURI, b.ClassURI)
	d.u32s("dart class reserved", a.ClassReserved, b.ClassReserved)
	d.uints("dart field flags", &a.FieldFlags, &b.FieldFlags)
	d.uints("dart field index", &a.FieldIndex, &b.FieldIndex)
	d.u32s("dart field reserved", a.FieldReserved, b.FieldReserved)
	d.u32s("dart zero-reference node", a.ZeroRefNode, b.ZeroRefNode)
	d.u32s("dart zero-reference slot", a.ZeroRefSlot, b.ZeroRefSlot)
	d.u32s("dart external node", a.ExternalNode, b.ExternalNode)
	d.uints("dart external size", &a.ExternalSize, &b.ExternalSize)
	d.u32s("dart external name", a.ExternalName, b.ExternalName)
}

func valueKindBytes(k []ValueKind) []uint8 {
	b := make([]uint8, len(k))
	for i, x := range k {
		b[i] = uint8(x)
	}
	return b
}

func (d *differ) v8(a, b *V8Snapshot) {
	d.check(a.Header.Equal(&b.Header), "v8 header %s != %s", a.Header.describe(), b.Header.describe())
	if len(a.Keys) != len(b.Keys) {
		d.addf("v8 top-level keys: %d != %d", len(a.Keys), len(b.Keys))
	} else {
		for i := range a.Keys {
			ka, kb := a.Keys[i], b.Keys[i]
			same := ka.Name == kb.Name && (ka.Value == nil) == (kb.Value == nil) &&
				(ka.Value == nil || ka.Value.Equal(kb.Value))
			d.check(same, "v8 top-level key %d: %q != %q", i, ka.Name, kb.Name)
		}
	}
	d.check(a.Layout == b.Layout, "v8 layout %v != %v", a.Layout, b.Layout)
	d.check(a.Escape == b.Escape, "v8 escape %v != %v", a.Escape, b.Escape)
	d.columns("v8 node field", a.NodeExtra, b.NodeExtra)
	d.columns("v8 edge field", a.EdgeExtra, b.EdgeExtra)
	d.uints("v8 trace_function_infos", &a.TraceFunctionInfos, &b.TraceFunctionInfos)
	d.uints("v8 trace_tree", &a.TraceTree, &b.TraceTree)
	d.uints("v8 samples", &a.Samples, &b.Samples)
	d.uints("v8 locations", &a.Locations, &b.Locations)
}

func (d *differ) columns(what string, a, b []Column) {
	if len(a) != len(b) {
		d.addf("%s count %d != %d", what, len(a), len(b))
		return
	}
	for i := range a {
		d.check(a[i].Name == b[i].Name, "%s %d: name %q != %q", what, i, a[i].Name, b[i].Name)
		d.uints(what+" "+a[i].Name, &a[i].Values, &b[i].Values)
	}
}

// GraphDiff compares two snapshots as graphs, by meaning rather than by
// table index: node kinds and edge kinds by name, names and edge names by
// their strings. Converters use it to check that a format kept what it can
// hold. It lists at most max differences (all when max <= 0).
func GraphDiff(fa *File, a *Snapshot, fb *File, b *Snapshot, max int) []string {
	d := &differ{max: max}
	if a.Nodes.Len() != b.Nodes.Len() || a.Edges.Len() != b.Edges.Len() {
		d.addf("graph size: %d nodes %d edges != %d nodes %d edges", a.Nodes.Len(), a.Edges.Len(), b.Nodes.Len(), b.Edges.Len())
		return d.out
	}
	for i := 0; i < a.Nodes.Len() && !d.full(); i++ {
		d.check(a.NodeKindName(i) == b.NodeKindName(i), "node %d: kind %q != %q", i, a.NodeKindName(i), b.NodeKindName(i))
		d.check(fa.String(a.Nodes.Name[i]) == fb.String(b.Nodes.Name[i]), "node %d: name %q != %q", i,
			fa.String(a.Nodes.Name[i]), fb.String(b.Nodes.Name[i]))
		d.check(a.Nodes.ID.At(i) == b.Nodes.ID.At(i), "node %d: id %d != %d", i, a.Nodes.ID.At(i), b.Nodes.ID.At(i))
		d.check(a.Nodes.SelfSize.At(i) == b.Nodes.SelfSize.At(i), "node %d: self size %d != %d", i,
			a.Nodes.SelfSize.At(i), b.Nodes.SelfSize.At(i))
		d.check(a.Nodes.FirstEdge[i+1] == b.Nodes.FirstEdge[i+1], "node %d: edge offsets differ", i)
	}
	for e := 0; e < a.Edges.Len() && !d.full(); e++ {
		ka, kb := a.EdgeKindOf(e), b.EdgeKindOf(e)
		d.check(ka == kb, "edge %d: kind %v != %v", e, ka, kb)
		na, nb := edgeNameText(fa, a, e), edgeNameText(fb, b, e)
		d.check(na == nb, "edge %d: name %q != %q", e, na, nb)
		d.check(a.Edges.Target[e] == b.Edges.Target[e], "edge %d: target %d != %d", e, a.Edges.Target[e], b.Edges.Target[e])
	}
	return d.out
}

// EdgeName returns edge e's name as text: the string, or the index in
// decimal for indexed kinds.
func (f *File) EdgeName(s *Snapshot, e int) string { return edgeNameText(f, s, e) }

func edgeNameText(f *File, s *Snapshot, e int) string {
	if s.EdgeKindOf(e).Indexed {
		return fmt.Sprint(s.Edges.Name[e])
	}
	return f.String(s.Edges.Name[e])
}
