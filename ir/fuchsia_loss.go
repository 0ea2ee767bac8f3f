package ir

// FuchsiaLoss names what one process of a Fuchsia heapdump (snapshot s of
// f) has that a file of another format cannot hold: the blocks'
// allocation timestamps and threads, their contents, labels beyond ffx's,
// the mappings' build ids, the allocation stacks unless the format keeps
// them (V8 does, as allocation traces), and a FIDL stream's details
// (FuchsiaStreamLoss). format names the target for
// the report ("a Dart file"). A snapshot without a Fuchsia section loses
// nothing here.
func FuchsiaLoss(f *File, s *Snapshot, format string, keepsStacks bool) LossReport {
	var loss LossReport
	fs := s.Fuchsia
	if fs == nil {
		return nil
	}
	add := func(n int, kind, what string) { loss.noPlace(n, kind, what, format) }
	timestamps, contents := 0, 0
	for _, fl := range fs.Flags {
		if fl&FuchsiaTimestamp != 0 {
			timestamps++
		}
		if fl&FuchsiaContents != 0 {
			contents++
		}
	}
	threads := 0
	for _, t := range fs.Thread {
		if t > 0 {
			threads++
		}
	}
	add(timestamps, LossTimestamps, "blocks' allocation timestamps")
	add(threads, LossThreads, "blocks' allocating threads")
	add(contents, LossFuchsiaContents, "blocks' contents")
	if len(fs.LabelFirst) > 0 {
		add(len(fs.LabelKey), LossFuchsiaLabels, "sample labels other than ffx's")
	}
	if !keepsStacks && fs.Stacks() > 0 {
		add(s.Nodes.Len(), LossAllocationStacks, "blocks' allocation stacks")
	}
	loss.Merge(FuchsiaStreamLoss(s, format))
	if ff := f.Fuchsia; ff != nil {
		ids := 0
		for _, b := range ff.Mappings.BuildID {
			if f.String(b) != "" {
				ids++
			}
		}
		add(ids, LossFuchsiaBuildIDs, "mappings with their build ids (what symbolizing needs)")
	}
	return loss
}

// FuchsiaStreamLoss names what a snapshot read from a FIDL SnapshotElement
// stream has beyond a pprof profile (its FuchsiaStream), for a format that
// cannot write the stream again; none for a snapshot without one.
func FuchsiaStreamLoss(s *Snapshot, format string) LossReport {
	var loss LossReport
	if s.Fuchsia != nil && s.Fuchsia.Stream != nil {
		loss.noPlace(len(s.Fuchsia.Stream.Records), LossFuchsiaStream,
			"FIDL stream records' order, batches and keys, regions' vaddrs and fields sent, contents chunking, orphan chunks and unknown fields", format)
	}
	return loss
}
