package fuchsia

import "github.com/heapconv/heapconv/ir"

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
)

// Loss names what one process of a Fuchsia heapdump has that a file of
// another format cannot hold: the blocks' allocation timestamps and
// threads, their contents, labels beyond ffx's, the allocation stacks
// unless the target keeps them (V8 does, as allocation traces), and a FIDL
// stream's details unless the target is a stream (StreamLoss).
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
	loss.Merge(fs.StreamLoss(t.Name))
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
	return loss
}
