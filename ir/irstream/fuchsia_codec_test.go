package irstream_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	dartir "github.com/heapconv/heapconv/ir/dart"
	"github.com/heapconv/heapconv/ir/irstream"
	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
	"github.com/heapconv/heapconv/ir/irtest"
)

// ctFuchsia is a random Fuchsia file of three processes with every Fuchsia
// feature of a profile: the first seed from 1 on whose file has derived
// edges, contents, labels, threads, timestamps, lines and interleaved
// samples (every field but the stream details, which a profile has not).
func ctFuchsia() *ir.File { return ctFuchsiaSized(1, 3, 6) }

// When no seed sets every field (a field was added to the sections, which
// TestFuchsiaCodecCoversEveryField reports), it returns the first file.
func ctFuchsiaSized(seed int64, snapshots, maxNodes int) *ir.File {
	gen := func(seed int64) *ir.File {
		return irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 1, MaxNodes: maxNodes, Snapshots: snapshots,
			Strings: irtest.AllStrings, MaxStringUnits: 4}, irtest.FuchsiaEverything())
	}
	for s := seed; s < seed+2000; s++ {
		if f := gen(s); profileComplete(f) {
			return f
		}
	}
	return gen(seed)
}

// ctFuchsiaStream is a random Fuchsia file read from a FIDL stream, of
// three processes, with every stream feature: the first seed from 1 on
// whose file, with ctFuchsia's, sets every field of the Fuchsia sections.
func ctFuchsiaStream() *ir.File { return ctFuchsiaStreamSized(1, 3, 6) }

// ctFuchsiaStreamSized is ctFuchsiaSized for stream-shaped files.
func ctFuchsiaStreamSized(seed int64, snapshots, maxNodes int) *ir.File {
	gen := func(seed int64) *ir.File {
		return irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 1, MaxNodes: maxNodes, Snapshots: snapshots,
			Strings: irtest.AllStrings, MaxStringUnits: 4}, irtest.FuchsiaStreamEverything())
	}
	profile := ctFuchsia()
	for s := seed; s < seed+2000; s++ {
		if f := gen(s); len(fuchsiaUnset(profile, f)) == 0 {
			return f
		}
	}
	return gen(seed)
}

// isStreamField reports whether a field path is of the stream details
// (FuchsiaSnapshot.Stream), which only a file read from a stream has.
func isStreamField(path string) bool {
	return path == "FuchsiaSnapshot.Stream" || strings.HasPrefix(path, "FuchsiaSnapshot.Stream.")
}

// profileComplete reports whether f sets every field of the Fuchsia
// sections but the stream details.
func profileComplete(f *ir.File) bool {
	for _, p := range fuchsiaUnset(f) {
		if !isStreamField(p) {
			return false
		}
	}
	return true
}

// fuchsiaComplete reports whether every field of the Fuchsia sections is
// set somewhere in the files (not its zero value), found by reflection: a
// field added to fuchsiair.File, fuchsiair.Snapshot or fuchsiair.Stream
// counts too. No one file can set them all (a stream has no labels, a
// profile no stream details): the coverage is that of a profile-shaped
// file and a stream-shaped one together.
func fuchsiaComplete(fs ...*ir.File) bool {
	return len(fuchsiaUnset(fs...)) == 0
}

// fuchsiaUnset names the fields of the Fuchsia sections that are at their
// zero value in every file and every snapshot of fs.
func fuchsiaUnset(fs ...*ir.File) []string {
	set := map[string]bool{}
	mark := func(prefix string, v reflect.Value) {
		for _, name := range fieldPaths(prefix, v.Type()) {
			if !fieldByPath(v, name).IsZero() {
				set[name] = true
			}
		}
	}
	for _, f := range fs {
		if fuchsiair.FileOf(f) == nil {
			continue
		}
		set["FuchsiaFile"] = true
		mark("FuchsiaFile", reflect.ValueOf(fuchsiair.FileOf(f)).Elem())
		for _, s := range f.Snapshots {
			if fuchsiair.Of(s) != nil {
				mark("FuchsiaSnapshot", reflect.ValueOf(fuchsiair.Of(s)).Elem())
			}
		}
	}
	if !set["FuchsiaFile"] {
		return []string{"FuchsiaFile"}
	}
	var out []string
	for _, name := range fieldPaths("FuchsiaFile", reflect.TypeOf(fuchsiair.File{})) {
		if !set[name] {
			out = append(out, name)
		}
	}
	for _, name := range fieldPaths("FuchsiaSnapshot", reflect.TypeOf(fuchsiair.Snapshot{})) {
		if !set[name] {
			out = append(out, name)
		}
	}
	return out
}

// fieldPaths lists a struct's fields as "Type.Field", descending into the
// nested table structs and the pointed-to ones (a pointer field is listed
// too: its presence is part of the file), not into ir.Uints or the value
// types, which are columns or scalars of their own.
func fieldPaths(prefix string, t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			out = append(out, prefix+"."+sf.Name)
			out = append(out, fieldPaths(prefix+"."+sf.Name, ft.Elem())...)
			continue
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(ir.Uints{}) && ft != reflect.TypeOf(fuchsiair.ValueType{}) {
			out = append(out, fieldPaths(prefix+"."+sf.Name, ft)...)
			continue
		}
		out = append(out, prefix+"."+sf.Name)
	}
	return out
}

// fieldByPath returns the field "Type.A.B" of v. Through a nil pointer,
// the fields are their zero values.
func fieldByPath(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".")[1:] {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v = reflect.Zero(v.Type().Elem())
			} else {
				v = v.Elem()
			}
		}
		v = v.FieldByName(name)
	}
	return v
}

// zeroFields names the fields of v at their zero value.
func zeroFields(prefix string, v reflect.Value) []string {
	var out []string
	for _, p := range fieldPaths(prefix, v.Type()) {
		if fieldByPath(v, p).IsZero() {
			out = append(out, p)
		}
	}
	return out
}

// sameField compares a field's values after a round trip: nil and empty
// slices are the same column.
func sameField(a, b reflect.Value) bool {
	if a.Kind() == reflect.Slice && a.Len() == 0 && b.Len() == 0 {
		return true
	}
	if a.Kind() == reflect.Pointer {
		// The pointed-to fields are compared one by one.
		return a.IsNil() == b.IsNil()
	}
	if a.Type() == reflect.TypeOf(ir.Uints{}) {
		ua, ub := a.Interface().(ir.Uints), b.Interface().(ir.Uints)
		return ua.Equal(&ub)
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// fuchsiaFieldsEqual compares every field of the Fuchsia sections of two
// files by reflection, independently of ir.Diff, and names those that
// differ.
func fuchsiaFieldsEqual(a, b *ir.File) []string {
	var out []string
	cmp := func(prefix string, va, vb reflect.Value) {
		for _, p := range fieldPaths(prefix, va.Type()) {
			if !sameField(fieldByPath(va, p), fieldByPath(vb, p)) {
				out = append(out, p)
			}
		}
	}
	if (fuchsiair.FileOf(a) == nil) != (fuchsiair.FileOf(b) == nil) {
		return []string{"FuchsiaFile presence"}
	}
	if fuchsiair.FileOf(a) != nil {
		cmp("FuchsiaFile", reflect.ValueOf(fuchsiair.FileOf(a)).Elem(), reflect.ValueOf(fuchsiair.FileOf(b)).Elem())
	}
	for i := range min(len(a.Snapshots), len(b.Snapshots)) {
		sa, sb := fuchsiair.Of(a.Snapshots[i]), fuchsiair.Of(b.Snapshots[i])
		if (sa == nil) != (sb == nil) {
			out = append(out, fmt.Sprintf("snapshot %d: FuchsiaSnapshot presence", i))
			continue
		}
		if sa != nil {
			cmp(fmt.Sprintf("snapshot %d: FuchsiaSnapshot", i), reflect.ValueOf(sa).Elem(), reflect.ValueOf(sb).Elem())
		}
	}
	return out
}

// TestFuchsiaCodecCoversEveryField fails when a field of fuchsiair.File,
// fuchsiair.Snapshot or fuchsiair.Stream is added without codec support:
// a profile-shaped test file and a stream-shaped one together set every
// field (found by reflection, so a new field is unset until the generator
// fills it), and the round trip of each must keep every field (compared by
// reflection, not by ir.Diff). TestDiffFuchsia checks Diff the same way.
func TestFuchsiaCodecCoversEveryField(t *testing.T) {
	opts := irtest.Options{MinNodes: 1, MaxNodes: 8, Snapshots: 3, Strings: irtest.AllStrings}
	var profile, stream *ir.File
	for seed := int64(0); seed < 200 && profile == nil; seed++ {
		if g := irtest.RandomFuchsia(seed, opts, irtest.FuchsiaEverything()); profileComplete(g) {
			profile = g
		}
	}
	if profile == nil {
		f := irtest.RandomFuchsia(0, opts, irtest.FuchsiaEverything())
		t.Fatalf("no random profile-shaped Fuchsia file sets every field but the stream details; unset in seed 0: %v "+
			"(teach irtest.RandomFuchsia, the codec and ir.Diff the new fields)", fuchsiaUnset(f))
	}
	for seed := int64(0); seed < 200 && stream == nil; seed++ {
		if g := irtest.RandomFuchsia(seed, opts, irtest.FuchsiaStreamEverything()); fuchsiaComplete(profile, g) {
			stream = g
		}
	}
	if stream == nil {
		f := irtest.RandomFuchsia(0, opts, irtest.FuchsiaStreamEverything())
		t.Fatalf("no random stream-shaped Fuchsia file sets the fields a profile cannot; unset in seed 0 and the profile: %v "+
			"(teach irtest.RandomFuchsia, the codec and ir.Diff the new fields)", fuchsiaUnset(profile, f))
	}
	for _, f := range []*ir.File{profile, stream} {
		g := roundTrip(t, f)
		if d := fuchsiaFieldsEqual(f, g); len(d) > 0 {
			t.Errorf("%s: fields not kept by the IR stream: %v", f.Format, d)
		}
		if d := ir.Diff(f, g, 10); len(d) > 0 {
			t.Errorf("%s: round trip differs: %v", f.Format, d)
		}
	}
}

// TestFuchsiaRoundTrips encodes and decodes random Fuchsia files of every
// shape, comparing with ir.Diff, field by field, and by text dump.
func TestFuchsiaRoundTrips(t *testing.T) {
	shapes := []struct {
		name string
		opts irtest.Options
		fo   irtest.FuchsiaOptions
	}{
		{"everything", irtest.Options{MaxNodes: 12, Snapshots: 3, Strings: irtest.AllStrings}, irtest.FuchsiaEverything()},
		{"merged", irtest.Options{MaxNodes: 12, Snapshots: 1}, irtest.FuchsiaOptions{Symbolized: true}},
		{"tags", irtest.Options{MaxNodes: 12, Snapshots: 2}, irtest.FuchsiaOptions{Tags: true, MultiProcess: true}},
		{"empty processes", irtest.Options{MinNodes: 0, MaxNodes: 0, Snapshots: 3}, irtest.FuchsiaEverything()},
		{"no snapshots", irtest.Options{MaxNodes: 0, Snapshots: 1}, irtest.FuchsiaOptions{ProfileFields: true}},
		{"stream", irtest.Options{MaxNodes: 12, Snapshots: 3, Strings: irtest.AllStrings}, irtest.FuchsiaStreamEverything()},
		{"stream single-process", irtest.Options{MaxNodes: 12, Snapshots: 1}, irtest.FuchsiaOptions{Stream: true, Contents: true}},
		{"stream empty processes", irtest.Options{MinNodes: 0, MaxNodes: 0, Snapshots: 3}, irtest.FuchsiaStreamEverything()},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			for seed := int64(0); seed < 25; seed++ {
				f := irtest.RandomFuchsia(seed, sh.opts, sh.fo)
				if sh.name == "no snapshots" {
					f.Snapshots = nil
					fuchsiair.FileOf(f).SampleSnapshot = nil
				}
				g := roundTrip(t, f)
				if d := ir.Diff(f, g, 10); len(d) > 0 {
					t.Fatalf("seed %d: round trip differs:\n%s", seed, strings.Join(d, "\n"))
				}
				if d := fuchsiaFieldsEqual(f, g); len(d) > 0 {
					t.Fatalf("seed %d: fields differ: %v", seed, d)
				}
				if a, b := ctText(t, f), ctText(t, g); a != b {
					t.Fatalf("seed %d: text dumps differ:\nbefore:\n%s\nafter:\n%s", seed, a, b)
				}
			}
		})
	}
}

// ctFuchsiaLarge has Fuchsia columns and contents that span several
// chunks: 70000 blocks with contents (several MiB of bytes in 64 KiB
// chunks), labels and timestamps.
func ctFuchsiaLarge() *ir.File {
	for seed := int64(0); ; seed++ {
		f := irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 70000, MaxNodes: 70000, Snapshots: 1, MaxStringUnits: 6},
			irtest.FuchsiaOptions{Tags: true, Contents: true, Labels: true, Symbolized: true, ExtraSampleTypes: true})
		if x := fuchsiair.Of(f.Snapshots[0]); len(x.Contents) > 4<<16 && len(x.LabelKey) > 1<<16 && len(x.Timestamp) > 0 {
			return f
		}
	}
}

// TestDecodeKeepsFuchsiaDetails checks what a column comparison might
// overlook: offset tables present with no entries ([0]) and absent (nil),
// absent optional node columns, extreme signed values, contents chunking.
func TestDecodeKeepsFuchsiaDetails(t *testing.T) {
	f := ctFuchsia()
	x := fuchsiair.FileOf(f)
	x.TimeNanos, x.DurationNanos, x.Period = math.MinInt64, math.MaxInt64, -1
	// A snapshot without nodes whose stack table is [0], one without a
	// stack table; label and contents offsets of no nodes.
	e0 := &ir.Snapshot{Root: ir.NoNode, NodeKinds: fuchsiair.NodeKinds, EdgeKinds: fuchsiair.EdgeKinds,
		Nodes:    ir.Nodes{FirstEdge: []uint32{0}},
		Sections: []ir.Section{&fuchsiair.Snapshot{StackFirst: []uint32{0}, LabelFirst: []uint32{0}, ContentsStart: []uint64{0}}}}
	e1 := &ir.Snapshot{Root: ir.NoNode, NodeKinds: fuchsiair.NodeKinds, EdgeKinds: fuchsiair.EdgeKinds,
		Nodes: ir.Nodes{FirstEdge: []uint32{0}}, Sections: []ir.Section{&fuchsiair.Snapshot{}}}
	f.Snapshots = append(f.Snapshots, e0, e1)
	x.SampleSnapshot = nil
	s0 := fuchsiair.Of(f.Snapshots[0])
	s0.Timestamp, s0.Thread = nil, nil
	for i := range s0.Flags {
		s0.Flags[i] &^= fuchsiair.FlagTimestamp
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	g := roundTrip(t, f)
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
	}
	n := len(g.Snapshots)
	if s := fuchsiair.Of(g.Snapshots[n-2]); len(s.StackFirst) != 1 || len(s.LabelFirst) != 1 || len(s.ContentsStart) != 1 {
		t.Errorf("offset tables of no entries came back as %v %v %v", s.StackFirst, s.LabelFirst, s.ContentsStart)
	}
	if s := fuchsiair.Of(g.Snapshots[n-1]); s.StackFirst != nil || s.LabelFirst != nil || s.ContentsStart != nil {
		t.Errorf("absent offset tables came back as %v %v %v", s.StackFirst, s.LabelFirst, s.ContentsStart)
	}
	if s := fuchsiair.Of(g.Snapshots[0]); s.Timestamp != nil || s.Thread != nil {
		t.Errorf("absent node columns came back: %d timestamps, %d threads", len(s.Timestamp), len(s.Thread))
	}
	if gx := fuchsiair.FileOf(g); gx.TimeNanos != math.MinInt64 || gx.DurationNanos != math.MaxInt64 || gx.Period != -1 {
		t.Errorf("profile times came back as %d %d %d", gx.TimeNanos, gx.DurationNanos, gx.Period)
	}
	for i, s := range g.Snapshots {
		if dartir.Of(s) != nil || v8ir.Of(s) != nil || moarvmir.Of(s) != nil {
			t.Errorf("snapshot %d gained a section", i)
		}
	}

	// A location table of no locations with FirstLine [0], and without.
	for _, first := range [][]uint32{{0}, nil} {
		f := &ir.File{Format: fuchsiair.Format, Strings: []string{""}, Sections: []ir.Section{&fuchsiair.File{
			SampleTypes: make([]fuchsiair.ValueType, 2), Locations: fuchsiair.Locations{FirstLine: first}}}}
		g := roundTrip(t, f)
		if !slicesEqualNil(fuchsiair.FileOf(g).Locations.FirstLine, first) {
			t.Errorf("FirstLine %v came back as %v", first, fuchsiair.FileOf(g).Locations.FirstLine)
		}
	}

	// Large: contents of several chunks.
	big := ctFuchsiaLarge()
	var buf bytes.Buffer
	if err := irstream.Encode(&buf, big); err != nil {
		t.Fatal(err)
	}
	h, err := irstream.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Diff(big, h, 10); len(d) > 0 {
		t.Errorf("large round trip differs:\n%s", strings.Join(d, "\n"))
	}
}

func slicesEqualNil[T comparable](a, b []T) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecodeFuchsiaTruncated cuts a small Fuchsia stream at every byte.
func TestDecodeFuchsiaTruncated(t *testing.T) {
	testDecodeTruncated(t, ctFuchsiaSized(1, 2, 3))
}

// TestDecodeFuchsiaCorrupted flips bytes of a small Fuchsia stream (see
// TestDecodeCorrupted).
func TestDecodeFuchsiaCorrupted(t *testing.T) {
	testDecodeCorrupted(t, ctFuchsiaSized(1, 2, 3), "fuchsia")
}

// TestDecodeKeepsFuchsiaStreamDetails checks what a field comparison
// might overlook in the stream details: present but empty, unknown field
// offsets present with no fields ([0]) and absent, extreme values, the
// orphan and unknown field bytes in several chunks.
func TestDecodeKeepsFuchsiaStreamDetails(t *testing.T) {
	for _, first := range [][]uint32{{0}, nil} {
		f := &ir.File{Format: fuchsiair.FormatFIDL, Strings: []string{""}, Sections: []ir.Section{&fuchsiair.File{SampleTypes: make([]fuchsiair.ValueType, 2)}},
			Snapshots: []*ir.Snapshot{{Root: ir.NoNode, NodeKinds: fuchsiair.NodeKinds, EdgeKinds: fuchsiair.EdgeKinds,
				Nodes: ir.Nodes{FirstEdge: []uint32{0}}, Sections: []ir.Section{&fuchsiair.Snapshot{Stream: &fuchsiair.Stream{UnknownFirst: first}}}}}}
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		g := roundTrip(t, f)
		if d := ir.Diff(f, g, 10); len(d) > 0 {
			t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
		}
		st := fuchsiair.Of(g.Snapshots[0]).Stream
		if st == nil || !slicesEqualNil(st.UnknownFirst, first) {
			t.Errorf("stream details with UnknownFirst %v came back as %+v", first, st)
		}
	}

	// Extreme values, and orphan and unknown field bytes of several
	// chunks.
	f := ctFuchsiaStream()
	st := fuchsiair.Of(f.Snapshots[0]).Stream
	st.StackKey[0], st.ThreadKey[0] = math.MaxUint64, math.MaxUint64
	st.RegionVaddr[0] = math.MaxUint64
	st.RegionFields[0] |= fuchsiair.RegionVaddr
	big := make([]byte, 3<<16+5)
	for i := range big {
		big[i] = byte(i * 7)
	}
	st.ContentsChunkNode = append(st.ContentsChunkNode, fuchsiair.OrphanChunk)
	st.ContentsChunkSize = append(st.ContentsChunkSize, uint32(len(big)))
	st.OrphanAddress = append(st.OrphanAddress, math.MaxUint64)
	st.OrphanContents = append(st.OrphanContents, big...)
	st.Records = append(st.Records, fuchsiair.RecordContents, fuchsiair.RecordEndOfBatch)
	r := uint32(len(st.Records) - 2)
	if len(st.UnknownRecord) > 0 && st.UnknownRecord[len(st.UnknownRecord)-1] == fuchsiair.HeaderRecord {
		t.Log("the header's unknown fields stay last")
	}
	// Insert the new record's unknown field before the header's (by
	// record, the header last).
	at := len(st.UnknownRecord)
	for at > 0 && st.UnknownRecord[at-1] > r {
		at--
	}
	if st.UnknownFirst == nil {
		st.UnknownFirst = []uint32{0}
	}
	payload := big[:2<<16+8*3]
	st.UnknownRecord = slices.Insert(st.UnknownRecord, at, r)
	st.UnknownOrdinal = slices.Insert(st.UnknownOrdinal, at, 64)
	off := st.UnknownFirst[at]
	st.UnknownBytes = slices.Insert(st.UnknownBytes, int(off), payload...)
	st.UnknownFirst = slices.Insert(st.UnknownFirst, at+1, off+uint32(len(payload)))
	for k := at + 2; k < len(st.UnknownFirst); k++ {
		st.UnknownFirst[k] += uint32(len(payload))
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	g := roundTrip(t, f)
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
	}
	if d := fuchsiaFieldsEqual(f, g); len(d) > 0 {
		t.Errorf("fields differ: %v", d)
	}
}

// TestDecodeRefusesStreamDetailsInV4: the stream details arrived in
// version 5. The version 5 sample, which has them, relabelled as version 4
// is refused; the version 4 sample reads.
func TestDecodeRefusesStreamDetailsInV4(t *testing.T) {
	v5, err := os.ReadFile("testdata/versions/v5-fuchsia-stream.heapir")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(v5, ctHeader(5)) {
		t.Fatal("the sample is not of version 5")
	}
	v5[len(irstream.Magic)] = 4
	if _, err := irstream.Decode(bytes.NewReader(v5)); err == nil || !strings.Contains(err.Error(), "arrived in version 5") {
		t.Errorf("stream details as version 4: error %v, want \"arrived in version 5\"", err)
	}
}

// TestDecodeFuchsiaStreamTruncated cuts a small stream-shaped stream at
// every byte.
func TestDecodeFuchsiaStreamTruncated(t *testing.T) {
	testDecodeTruncated(t, ctFuchsiaStreamSized(1, 2, 3))
}

// TestDecodeFuchsiaStreamCorrupted flips bytes of a small stream-shaped
// stream (see TestDecodeCorrupted).
func TestDecodeFuchsiaStreamCorrupted(t *testing.T) {
	testDecodeCorrupted(t, ctFuchsiaStreamSized(1, 2, 3), "fuchsia")
}

// TestDiffFuchsia: Diff notices a change to any field of the Fuchsia
// sections, and nothing in an unchanged copy. Every field of
// fuchsiair.File and fuchsiair.Snapshot (found by reflection) must have a
// case here.
func TestDiffFuchsia(t *testing.T) {
	snap := func(f *ir.File) *fuchsiair.Snapshot { return fuchsiair.Of(f.Snapshots[0]) }
	stream := func(f *ir.File) *fuchsiair.Stream { return fuchsiair.Of(f.Snapshots[0]).Stream }
	tests := map[string]struct {
		change func(f *ir.File)
	}{
		"FuchsiaFile.Gzip":                 {func(f *ir.File) { fuchsiair.FileOf(f).Gzip = false }},
		"FuchsiaFile.SampleTypes":          {func(f *ir.File) { fuchsiair.FileOf(f).SampleTypes[1].Unit++ }},
		"FuchsiaFile.DefaultSampleType":    {func(f *ir.File) { fuchsiair.FileOf(f).DefaultSampleType++ }},
		"FuchsiaFile.DropFrames":           {func(f *ir.File) { fuchsiair.FileOf(f).DropFrames++ }},
		"FuchsiaFile.KeepFrames":           {func(f *ir.File) { fuchsiair.FileOf(f).KeepFrames++ }},
		"FuchsiaFile.DocURL":               {func(f *ir.File) { fuchsiair.FileOf(f).DocURL++ }},
		"FuchsiaFile.Comments":             {func(f *ir.File) { fuchsiair.FileOf(f).Comments = fuchsiair.FileOf(f).Comments[1:] }},
		"FuchsiaFile.TimeNanos":            {func(f *ir.File) { fuchsiair.FileOf(f).TimeNanos++ }},
		"FuchsiaFile.DurationNanos":        {func(f *ir.File) { fuchsiair.FileOf(f).DurationNanos++ }},
		"FuchsiaFile.PeriodType":           {func(f *ir.File) { fuchsiair.FileOf(f).PeriodType.Type++ }},
		"FuchsiaFile.Period":               {func(f *ir.File) { fuchsiair.FileOf(f).Period++ }},
		"FuchsiaFile.Mappings.ID":          {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.ID[0]++ }},
		"FuchsiaFile.Mappings.Start":       {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.Start[0]++ }},
		"FuchsiaFile.Mappings.Limit":       {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.Limit[0]++ }},
		"FuchsiaFile.Mappings.Offset":      {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.Offset[0]++ }},
		"FuchsiaFile.Mappings.File":        {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.File[0]++ }},
		"FuchsiaFile.Mappings.BuildID":     {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.BuildID[0]++ }},
		"FuchsiaFile.Mappings.Flags":       {func(f *ir.File) { fuchsiair.FileOf(f).Mappings.Flags[0] ^= 1 }},
		"FuchsiaFile.Functions.ID":         {func(f *ir.File) { fuchsiair.FileOf(f).Functions.ID[0]++ }},
		"FuchsiaFile.Functions.Name":       {func(f *ir.File) { fuchsiair.FileOf(f).Functions.Name[0]++ }},
		"FuchsiaFile.Functions.SystemName": {func(f *ir.File) { fuchsiair.FileOf(f).Functions.SystemName[0]++ }},
		"FuchsiaFile.Functions.Filename":   {func(f *ir.File) { fuchsiair.FileOf(f).Functions.Filename[0]++ }},
		"FuchsiaFile.Functions.StartLine":  {func(f *ir.File) { fuchsiair.FileOf(f).Functions.StartLine[0]-- }},
		"FuchsiaFile.Locations.ID":         {func(f *ir.File) { fuchsiair.FileOf(f).Locations.ID[0]++ }},
		"FuchsiaFile.Locations.Mapping":    {func(f *ir.File) { fuchsiair.FileOf(f).Locations.Mapping[0]++ }},
		"FuchsiaFile.Locations.Address":    {func(f *ir.File) { fuchsiair.FileOf(f).Locations.Address[0]++ }},
		"FuchsiaFile.Locations.Folded":     {func(f *ir.File) { fuchsiair.FileOf(f).Locations.Folded[0] = !fuchsiair.FileOf(f).Locations.Folded[0] }},
		"FuchsiaFile.Locations.FirstLine":  {func(f *ir.File) { fuchsiair.FileOf(f).Locations.FirstLine[1]++ }},
		"FuchsiaFile.Locations.Function":   {func(f *ir.File) { fuchsiair.FileOf(f).Locations.Function[0]++ }},
		"FuchsiaFile.Locations.Line":       {func(f *ir.File) { fuchsiair.FileOf(f).Locations.Line[0]++ }},
		"FuchsiaFile.Locations.Column":     {func(f *ir.File) { fuchsiair.FileOf(f).Locations.Column[0]++ }},
		"FuchsiaFile.SampleSnapshot":       {func(f *ir.File) { fuchsiair.FileOf(f).SampleSnapshot = nil }},

		"FuchsiaSnapshot.HasProcessName": {func(f *ir.File) { snap(f).HasProcessName = !snap(f).HasProcessName }},
		"FuchsiaSnapshot.HasProcessKoid": {func(f *ir.File) { snap(f).HasProcessKoid = !snap(f).HasProcessKoid }},
		"FuchsiaSnapshot.ProcessName":    {func(f *ir.File) { snap(f).ProcessName++ }},
		"FuchsiaSnapshot.ProcessKoid":    {func(f *ir.File) { snap(f).ProcessKoid++ }},
		"FuchsiaSnapshot.Count":          {func(f *ir.File) { snap(f).Count.Set(0, 7) }},
		"FuchsiaSnapshot.Flags":          {func(f *ir.File) { snap(f).Flags[0] ^= fuchsiair.FlagBytes }},
		"FuchsiaSnapshot.Timestamp":      {func(f *ir.File) { snap(f).Timestamp = nil }},
		"FuchsiaSnapshot.Thread":         {func(f *ir.File) { snap(f).Thread = nil }},
		"FuchsiaSnapshot.Stack":          {func(f *ir.File) { snap(f).Stack[0]++ }},
		"FuchsiaSnapshot.ExtraValues":    {func(f *ir.File) { snap(f).ExtraValues[0]-- }},
		"FuchsiaSnapshot.ThreadName":     {func(f *ir.File) { snap(f).ThreadName = append(snap(f).ThreadName, 0) }},
		"FuchsiaSnapshot.ThreadKoid":     {func(f *ir.File) { snap(f).ThreadKoid = append(snap(f).ThreadKoid, 0) }},
		"FuchsiaSnapshot.ThreadBare":     {func(f *ir.File) { snap(f).ThreadBare = append(snap(f).ThreadBare, true) }},
		"FuchsiaSnapshot.StackFirst":     {func(f *ir.File) { snap(f).StackFirst = append(snap(f).StackFirst, 0) }},
		"FuchsiaSnapshot.StackLocation":  {func(f *ir.File) { snap(f).StackLocation = append(snap(f).StackLocation, 0) }},
		"FuchsiaSnapshot.LabelFirst":     {func(f *ir.File) { snap(f).LabelFirst = nil }},
		"FuchsiaSnapshot.LabelKey":       {func(f *ir.File) { snap(f).LabelKey = append(snap(f).LabelKey, 0) }},
		"FuchsiaSnapshot.LabelNumeric":   {func(f *ir.File) { snap(f).LabelNumeric = append(snap(f).LabelNumeric, true) }},
		"FuchsiaSnapshot.LabelStr":       {func(f *ir.File) { snap(f).LabelStr = append(snap(f).LabelStr, 0) }},
		"FuchsiaSnapshot.LabelNum":       {func(f *ir.File) { snap(f).LabelNum = append(snap(f).LabelNum, -1) }},
		"FuchsiaSnapshot.LabelUnit":      {func(f *ir.File) { snap(f).LabelUnit = append(snap(f).LabelUnit, 0) }},
		"FuchsiaSnapshot.ContentsStart":  {func(f *ir.File) { snap(f).ContentsStart = nil }},
		"FuchsiaSnapshot.Contents":       {func(f *ir.File) { snap(f).Contents = append(snap(f).Contents, 0) }},
		"FuchsiaSnapshot.DerivedEdges":   {func(f *ir.File) { snap(f).DerivedEdges = !snap(f).DerivedEdges }},

		// The stream details: changed in a stream-shaped base file.
		"FuchsiaSnapshot.Stream":                   {func(f *ir.File) { snap(f).Stream = nil }},
		"FuchsiaSnapshot.Stream.Records":           {func(f *ir.File) { stream(f).Records = append(stream(f).Records, 0x80) }},
		"FuchsiaSnapshot.Stream.AllocFields":       {func(f *ir.File) { stream(f).AllocFields[0] ^= fuchsiair.AllocCount }},
		"FuchsiaSnapshot.Stream.StackKey":          {func(f *ir.File) { stream(f).StackKey[0]++ }},
		"FuchsiaSnapshot.Stream.StackChunkStack":   {func(f *ir.File) { stream(f).StackChunkStack = append(stream(f).StackChunkStack, 0) }},
		"FuchsiaSnapshot.Stream.StackChunkSize":    {func(f *ir.File) { stream(f).StackChunkSize[0]++ }},
		"FuchsiaSnapshot.Stream.ThreadKey":         {func(f *ir.File) { stream(f).ThreadKey[0]++ }},
		"FuchsiaSnapshot.Stream.RegionMapping":     {func(f *ir.File) { stream(f).RegionMapping = append(stream(f).RegionMapping, 0) }},
		"FuchsiaSnapshot.Stream.RegionFields":      {func(f *ir.File) { stream(f).RegionFields = append(stream(f).RegionFields, 0) }},
		"FuchsiaSnapshot.Stream.RegionVaddr":       {func(f *ir.File) { stream(f).RegionVaddr = append(stream(f).RegionVaddr, 0) }},
		"FuchsiaSnapshot.Stream.ContentsChunkNode": {func(f *ir.File) { stream(f).ContentsChunkNode = append(stream(f).ContentsChunkNode, 0) }},
		"FuchsiaSnapshot.Stream.ContentsChunkSize": {func(f *ir.File) { stream(f).ContentsChunkSize = append(stream(f).ContentsChunkSize, 0) }},
		"FuchsiaSnapshot.Stream.OrphanAddress":     {func(f *ir.File) { stream(f).OrphanAddress = append(stream(f).OrphanAddress, 0) }},
		"FuchsiaSnapshot.Stream.OrphanContents":    {func(f *ir.File) { stream(f).OrphanContents = append(stream(f).OrphanContents, 0) }},
		"FuchsiaSnapshot.Stream.UnknownRecord":     {func(f *ir.File) { stream(f).UnknownRecord = append(stream(f).UnknownRecord, 0) }},
		"FuchsiaSnapshot.Stream.UnknownOrdinal":    {func(f *ir.File) { stream(f).UnknownOrdinal = append(stream(f).UnknownOrdinal, 7) }},
		"FuchsiaSnapshot.Stream.UnknownFirst":      {func(f *ir.File) { stream(f).UnknownFirst = nil }},
		"FuchsiaSnapshot.Stream.UnknownBytes":      {func(f *ir.File) { stream(f).UnknownBytes = append(stream(f).UnknownBytes, 0) }},
	}
	// Every field has a case.
	var fields []string
	fields = append(fields, fieldPaths("FuchsiaFile", reflect.TypeOf(fuchsiair.File{}))...)
	fields = append(fields, fieldPaths("FuchsiaSnapshot", reflect.TypeOf(fuchsiair.Snapshot{}))...)
	for _, name := range fields {
		if _, ok := tests[name]; !ok {
			t.Errorf("field %s has no Diff case: teach ir.Diff, the codec and this test the new field", name)
		}
	}
	if len(tests) != len(fields) {
		t.Errorf("%d cases for %d fields", len(tests), len(fields))
	}
	// Snapshot 0 of the base file sets every per-snapshot field of a
	// profile; snapshot 0 of the stream-shaped base every field of the
	// stream details. (When none does, the fields' cases fail.)
	first := func(gen func(seed int64) *ir.File, stream bool) *ir.File {
		for seed := int64(1); seed < 1000; seed++ {
			f := gen(seed)
			for i, s := range f.Snapshots {
				unset := 0
				for _, p := range zeroFields("FuchsiaSnapshot", reflect.ValueOf(fuchsiair.Of(s)).Elem()) {
					if isStreamField(p) == stream {
						unset++
					}
				}
				if unset == 0 {
					f.Snapshots[0], f.Snapshots[i] = f.Snapshots[i], f.Snapshots[0]
					return f
				}
			}
		}
		return gen(1)
	}
	full := func() *ir.File {
		return first(func(seed int64) *ir.File { return ctFuchsiaSized(seed, 3, 6) }, false)
	}
	fullStream := func() *ir.File {
		return first(func(seed int64) *ir.File { return ctFuchsiaStreamSized(seed, 3, 6) }, true)
	}
	for _, base := range []func() *ir.File{full, fullStream} {
		if d := ir.Diff(base(), base(), 0); len(d) > 0 {
			t.Fatalf("an unchanged copy differs: %v", d)
		}
	}
	for _, name := range fields {
		tc, ok := tests[name]
		if !ok {
			continue
		}
		base := full
		if isStreamField(name) {
			base = fullStream
		}
		t.Run(name, func(t *testing.T) {
			a, b := base(), base()
			tc.change(b)
			d := ir.Diff(a, b, 0)
			if len(d) == 0 {
				t.Fatal("no difference found")
			}
			if !strings.Contains(strings.Join(d, "\n"), "fuchsia") {
				t.Errorf("differences %q do not name a Fuchsia section or column", d)
			}
		})
	}
	t.Run("section dropped", func(t *testing.T) {
		a, b := full(), full()
		b.Sections = nil
		b.Snapshots[1].Sections = nil
		d := strings.Join(ir.Diff(a, b, 0), "\n")
		if !strings.Contains(d, "1 sections != 0") || !strings.Contains(d, "snapshot 1: 1 sections != 0") {
			t.Errorf("differences %q", d)
		}
	})
}
