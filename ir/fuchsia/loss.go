package fuchsia

import (
	"fmt"
	"strings"

	"github.com/heapconv/heapconv/ir"
)

// The kinds of loss of the Fuchsia sections.
const (
	// LossContents: the contents of heap blocks; Count is blocks.
	LossContents = "fuchsia-contents"
	// LossLabels: sample labels other than those ffx writes; Count is
	// labels.
	LossLabels = "fuchsia-labels"
	// LossBuildIDs: the build ids of a profile's mappings (what
	// symbolizing needs); Count is mappings.
	LossBuildIDs = "fuchsia-build-ids"
	// LossStream: what a FIDL SnapshotElement stream has beyond a pprof
	// profile (Stream: the records' order and batches, stack and thread
	// keys, the regions' vaddrs and the fields sent, contents chunking,
	// orphan chunks, unknown fields); Count is stream records.
	LossStream = "fuchsia-stream"
	// LossSampleValues: sample values beyond the first two (the count
	// and the bytes): a third sample type's, a Go heap profile's
	// inuse_objects and inuse_space; Count is values.
	LossSampleValues = "fuchsia-sample-values"
	// LossProfile: the Profile message's own fields: sample types other
	// than ffx's, comments, duration, period and period type, drop and
	// keep frames, doc URL, default sample type, and a time that is not
	// the capture time; Count is fields, each sample type and comment
	// one.
	LossProfile = "fuchsia-profile"
	// LossProcessKoids: the koids of a profile's processes (the
	// process_koid label, a stream's SnapshotHeader); Count is processes.
	LossProcessKoids = "fuchsia-process-koids"
	// LossSystemNames: symbolized functions' system (mangled) names;
	// Count is functions.
	LossSystemNames = "fuchsia-system-names"
	// LossStartLines: symbolized functions' start lines; Count is
	// functions.
	LossStartLines = "fuchsia-start-lines"
	// LossInlineFrames: which frames of a stack are functions inlined at
	// one program address (a symbolized location's lines; V8 keeps each as
	// a frame of its own); Count is locations of more than one line.
	LossInlineFrames = "fuchsia-inline-frames"
)

// Loss names what one process of a Fuchsia heapdump has that a file of
// another format cannot hold: the blocks' allocation timestamps and
// threads, their contents, labels beyond ffx's, sample values beyond count
// and bytes (SampleValuesLoss), the process's koid (its name is the
// snapshot's), the allocation stacks unless the target keeps them (V8
// does, as allocation traces), and a FIDL stream's details unless the
// target is a stream (StreamLoss).
func (fs *Snapshot) Loss(f *ir.File, s *ir.Snapshot, t ir.Target) ir.LossReport {
	if t.Format == FormatFIDL {
		return nil
	}
	var loss ir.LossReport
	if t.Format == Format {
		return fs.StreamLoss(t.Name)
	}
	add := func(n int, kind, what string) { loss.NoPlace(n, kind, what, t.Name) }
	timestamps, contents := 0, 0
	for _, fl := range fs.Flags {
		if fl&FlagTimestamp != 0 {
			timestamps++
		}
		if fl&FlagContents != 0 {
			contents++
		}
	}
	threads := 0
	for _, th := range fs.Thread {
		if th > 0 {
			threads++
		}
	}
	add(timestamps, ir.LossTimestamps, "blocks' allocation timestamps")
	add(threads, ir.LossThreads, "blocks' allocating threads")
	add(contents, LossContents, "blocks' contents")
	if len(fs.LabelFirst) > 0 {
		add(len(fs.LabelKey), LossLabels, "sample labels other than ffx's")
	}
	if !t.KeepsStacks && fs.Stacks() > 0 {
		add(s.Nodes.Len(), ir.LossAllocationStacks, "blocks' allocation stacks")
	}
	if fs.HasProcessKoid {
		loss.NoPlace(1, LossProcessKoids, "process koids (the process_koid label)", t.Name).
			WithExample(fmt.Sprintf("%s: %d", f.String(fs.ProcessName), fs.ProcessKoid))
	}
	loss.Merge(fs.SampleValuesLoss(f, t.Name))
	loss.Merge(fs.StreamLoss(t.Name))
	return loss
}

// SampleValuesLoss names the values of a process's samples beyond the
// first two, which are the block count and the bytes (Count and the node's
// size): only a profile holds them. The example names the sample types
// they are of.
func (fs *Snapshot) SampleValuesLoss(f *ir.File, format string) ir.LossReport {
	var loss ir.LossReport
	if l := loss.NoPlace(len(fs.ExtraValues), LossSampleValues, "sample values beyond count and bytes", format); l != nil {
		if m := FileOf(f); m != nil && len(m.SampleTypes) > 2 {
			var types []string
			for _, vt := range m.SampleTypes[2:] {
				types = append(types, f.String(vt.Type)+"/"+f.String(vt.Unit))
			}
			l.WithExample(strings.Join(types, ", "))
		}
	}
	return loss
}

// StreamLoss names what a snapshot read from a FIDL SnapshotElement stream
// has beyond a pprof profile (its Stream), for a format that cannot write
// the stream again; none for a snapshot without one.
func (fs *Snapshot) StreamLoss(format string) ir.LossReport {
	var loss ir.LossReport
	if fs.Stream != nil {
		loss.NoPlace(len(fs.Stream.Records), LossStream,
			"FIDL stream records' order, batches and keys, regions' vaddrs and fields sent, contents chunking, orphan chunks and unknown fields", format)
	}
	return loss
}

// Loss names the mappings' build ids, which only Fuchsia formats hold
// (but those of the mappings heapconv made, Mappings.Made, which stand for
// what the target keeps otherwise: classes, V8's script ids).
func (m *File) Loss(f *ir.File, _ *ir.Snapshot, t ir.Target) ir.LossReport {
	if t.Format == Format || t.Format == FormatFIDL {
		return nil
	}
	ids := 0
	for i, b := range m.Mappings.BuildID {
		if f.String(b) != "" && !m.Mappings.Made(i, f.Strings) {
			ids++
		}
	}
	var loss ir.LossReport
	loss.NoPlace(ids, LossBuildIDs, "mappings with their build ids (what symbolizing needs)", t.Name)
	loss.Merge(m.ProfileLoss(f, t.Name))
	// What symbolized frames say beyond a function, file and line: V8
	// keeps those (as allocation traces), no other format anything.
	systemNames, startLines, inlined := 0, 0, 0
	for k := range m.Functions.Len() {
		if f.String(m.Functions.SystemName[k]) != "" {
			systemNames++
		}
		if m.Functions.StartLine[k] != 0 {
			startLines++
		}
	}
	lc := &m.Locations
	for l := range lc.Len() {
		if lc.FirstLine[l+1]-lc.FirstLine[l] > 1 {
			inlined++
		}
	}
	loss.NoPlace(systemNames, LossSystemNames, "functions' system (mangled) names", t.Name)
	loss.NoPlace(startLines, LossStartLines, "functions' start lines", t.Name)
	loss.NoPlace(inlined, LossInlineFrames, "locations' groups of inlined functions (which frames share one program address)", t.Name)
	return loss
}

// ProfileLoss names the fields of the profile's own a file of another
// format has no place for (LossProfile): sample types other than the two
// ffx writes, comments, duration, period and its type, drop and keep
// frames, doc URL, default sample type, and a time the reader did not take
// for the snapshots' capture time (a positive one it took, which each
// writer names as capture-time when it cannot keep it). The example lists
// the fields.
func (m *File) ProfileLoss(f *ir.File, format string) ir.LossReport {
	var fields []string
	n := 0
	add := func(count int, name string) {
		if count > 0 {
			n += count
			if count > 1 {
				name = fmt.Sprintf("%d %s", count, name)
			}
			fields = append(fields, name)
		}
	}
	types := 0
	for k, vt := range m.SampleTypes {
		if k >= 2 || !ffxSampleType(f, k, vt) {
			types++
		}
	}
	add(types, "sample types")
	add(len(m.Comments), "comments")
	for _, x := range []struct {
		set  bool
		name string
	}{
		{m.TimeNanos < 0, "time_nanos"},
		{m.DurationNanos != 0, "duration_nanos"},
		{m.PeriodType != (ValueType{}), "period_type"},
		{m.Period != 0, "period"},
		{m.DropFrames != 0, "drop_frames"},
		{m.KeepFrames != 0, "keep_frames"},
		{m.DocURL != 0, "doc_url"},
		{m.DefaultSampleType != 0, "default_sample_type"},
	} {
		if x.set {
			add(1, x.name)
		}
	}
	var loss ir.LossReport
	if l := loss.NoPlace(n, LossProfile, "fields of the profile's own", format); l != nil {
		l.WithExample(strings.Join(fields, ", "))
	}
	return loss
}

// ffxSampleType reports whether vt is sample type k as ffx writes it:
// objects/count, then allocated/bytes; a writer of another format writes
// those back.
func ffxSampleType(f *ir.File, k int, vt ValueType) bool {
	want := [2][2]string{{ObjectsType, CountUnit}, {AllocatedType, BytesUnit}}
	return k < 2 && f.String(vt.Type) == want[k][0] && f.String(vt.Unit) == want[k][1]
}
