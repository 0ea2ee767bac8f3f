package ir_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

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
// field added to ir.FuchsiaFile, ir.FuchsiaSnapshot or ir.FuchsiaStream
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
		if f.Fuchsia == nil {
			continue
		}
		set["FuchsiaFile"] = true
		mark("FuchsiaFile", reflect.ValueOf(f.Fuchsia).Elem())
		for _, s := range f.Snapshots {
			if s.Fuchsia != nil {
				mark("FuchsiaSnapshot", reflect.ValueOf(s.Fuchsia).Elem())
			}
		}
	}
	if !set["FuchsiaFile"] {
		return []string{"FuchsiaFile"}
	}
	var out []string
	for _, name := range fieldPaths("FuchsiaFile", reflect.TypeOf(ir.FuchsiaFile{})) {
		if !set[name] {
			out = append(out, name)
		}
	}
	for _, name := range fieldPaths("FuchsiaSnapshot", reflect.TypeOf(ir.FuchsiaSnapshot{})) {
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
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(ir.Uints{}) && ft != reflect.TypeOf(ir.FuchsiaValueType{}) {
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
	if (a.Fuchsia == nil) != (b.Fuchsia == nil) {
		return []string{"FuchsiaFile presence"}
	}
	if a.Fuchsia != nil {
		cmp("FuchsiaFile", reflect.ValueOf(a.Fuchsia).Elem(), reflect.ValueOf(b.Fuchsia).Elem())
	}
	for i := range min(len(a.Snapshots), len(b.Snapshots)) {
		sa, sb := a.Snapshots[i].Fuchsia, b.Snapshots[i].Fuchsia
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

func roundTrip(t *testing.T, f *ir.File) *ir.File {
	t.Helper()
	var buf bytes.Buffer
	if err := ir.Encode(&buf, f); err != nil {
		t.Fatalf("encode: %v", err)
	}
	g, err := ir.Decode(&buf)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return g
}

// TestFuchsiaCodecCoversEveryField fails when a field of ir.FuchsiaFile,
// ir.FuchsiaSnapshot or ir.FuchsiaStream is added without codec support:
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
					f.Fuchsia.SampleSnapshot = nil
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
		if x := f.Snapshots[0].Fuchsia; len(x.Contents) > 4<<16 && len(x.LabelKey) > 1<<16 && len(x.Timestamp) > 0 {
			return f
		}
	}
}

// TestDecodeKeepsFuchsiaDetails checks what a column comparison might
// overlook: offset tables present with no entries ([0]) and absent (nil),
// absent optional node columns, extreme signed values, contents chunking.
func TestDecodeKeepsFuchsiaDetails(t *testing.T) {
	f := ctFuchsia()
	x := f.Fuchsia
	x.TimeNanos, x.DurationNanos, x.Period = math.MinInt64, math.MaxInt64, -1
	// A snapshot without nodes whose stack table is [0], one without a
	// stack table; label and contents offsets of no nodes.
	e0 := &ir.Snapshot{Root: ir.NoNode, NodeKinds: fuchsiair.NodeKinds, EdgeKinds: fuchsiair.EdgeKinds,
		Nodes:   ir.Nodes{FirstEdge: []uint32{0}},
		Fuchsia: &ir.FuchsiaSnapshot{StackFirst: []uint32{0}, LabelFirst: []uint32{0}, ContentsStart: []uint64{0}}}
	e1 := &ir.Snapshot{Root: ir.NoNode, NodeKinds: fuchsiair.NodeKinds, EdgeKinds: fuchsiair.EdgeKinds,
		Nodes: ir.Nodes{FirstEdge: []uint32{0}}, Fuchsia: &ir.FuchsiaSnapshot{}}
	f.Snapshots = append(f.Snapshots, e0, e1)
	x.SampleSnapshot = nil
	s0 := f.Snapshots[0].Fuchsia
	s0.Timestamp, s0.Thread = nil, nil
	for i := range s0.Flags {
		s0.Flags[i] &^= ir.FuchsiaTimestamp
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	g := roundTrip(t, f)
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
	}
	n := len(g.Snapshots)
	if s := g.Snapshots[n-2].Fuchsia; len(s.StackFirst) != 1 || len(s.LabelFirst) != 1 || len(s.ContentsStart) != 1 {
		t.Errorf("offset tables of no entries came back as %v %v %v", s.StackFirst, s.LabelFirst, s.ContentsStart)
	}
	if s := g.Snapshots[n-1].Fuchsia; s.StackFirst != nil || s.LabelFirst != nil || s.ContentsStart != nil {
		t.Errorf("absent offset tables came back as %v %v %v", s.StackFirst, s.LabelFirst, s.ContentsStart)
	}
	if s := g.Snapshots[0].Fuchsia; s.Timestamp != nil || s.Thread != nil {
		t.Errorf("absent node columns came back: %d timestamps, %d threads", len(s.Timestamp), len(s.Thread))
	}
	if gx := g.Fuchsia; gx.TimeNanos != math.MinInt64 || gx.DurationNanos != math.MaxInt64 || gx.Period != -1 {
		t.Errorf("profile times came back as %d %d %d", gx.TimeNanos, gx.DurationNanos, gx.Period)
	}
	for i, s := range g.Snapshots {
		if s.Dart != nil || s.V8 != nil || s.MoarVM != nil {
			t.Errorf("snapshot %d gained a section", i)
		}
	}

	// A location table of no locations with FirstLine [0], and without.
	for _, first := range [][]uint32{{0}, nil} {
		f := &ir.File{Format: ir.FormatFuchsia, Strings: []string{""}, Fuchsia: &ir.FuchsiaFile{
			SampleTypes: make([]ir.FuchsiaValueType, 2), Locations: ir.FuchsiaLocations{FirstLine: first}}}
		g := roundTrip(t, f)
		if !slicesEqualNil(g.Fuchsia.Locations.FirstLine, first) {
			t.Errorf("FirstLine %v came back as %v", first, g.Fuchsia.Locations.FirstLine)
		}
	}

	// Large: contents of several chunks.
	big := ctFuchsiaLarge()
	var buf bytes.Buffer
	if err := ir.Encode(&buf, big); err != nil {
		t.Fatal(err)
	}
	h, err := ir.Decode(&buf)
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

// TestEncodeRefusesOversizedFuchsia: a section the decoder would refuse is
// not written.
func TestEncodeRefusesOversizedFuchsia(t *testing.T) {
	f := &ir.File{Format: ir.FormatFuchsia, Strings: []string{""}, Fuchsia: &ir.FuchsiaFile{
		SampleTypes: make([]ir.FuchsiaValueType, 2), Comments: make([]uint32, 1<<16+1)}}
	var buf bytes.Buffer
	if err := ir.Encode(&buf, f); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("Encode = %v, want an error about the limit", err)
	}
}

// TestWriteTextFuchsia: the text dump shows the Fuchsia sections.
func TestWriteTextFuchsia(t *testing.T) {
	txt := ctText(t, ctFuchsia())
	for _, want := range []string{
		fmt.Sprintf("heapir %d\n", ir.Version), "\nfuchsia gzip=true sample_types=[\"objects\"/\"count\" \"allocated\"/\"bytes\"",
		"  fuchsia mapping m0 id=", "  fuchsia function fn0 id=", "  fuchsia location l0 id=", "  fuchsia sample snapshots [",
		"  fuchsia process name=", "  fuchsia columns timestamp", "  fuchsia thread t0 ", "  fuchsia stack k0 [",
		" count=1 flags=address", " labels=[", " contents=", " extra=[", " timestamp=",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("the dump lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(txt)
	}
}

// TestWriteTextFuchsiaStream: the text dump shows the stream details.
func TestWriteTextFuchsiaStream(t *testing.T) {
	// The first seed whose file also has unknown SnapshotHeader fields.
	f := ctFuchsiaStream()
	for seed := int64(1); seed < 100 && !slices.Contains(f.Snapshots[0].Fuchsia.Stream.UnknownRecord, ir.FuchsiaHeaderRecord); seed++ {
		f = ctFuchsiaStreamSized(seed, 1, 6)
	}
	txt := ctText(t, f)
	for _, want := range []string{
		"format \"fuchsia-fidl\"", "  fuchsia columns", " stream", "  fuchsia stream batches [", "  fuchsia stream stack chunks [k0:",
		"  fuchsia stream region r0 mapping=m", " fields=address+size+file_offset+build_id", "  fuchsia stream contents chunks [",
		"orphan@0x", "  fuchsia stream orphan contents ", "  fuchsia stream unknown u0 record=", " record=header ", " alloc_fields=",
		"+size+stack_key", "] key=", " bare=false key=",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("the dump lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(txt)
	}
}

// TestDecodeKeepsFuchsiaStreamDetails checks what a field comparison
// might overlook in the stream details: present but empty, unknown field
// offsets present with no fields ([0]) and absent, extreme values, the
// orphan and unknown field bytes in several chunks.
func TestDecodeKeepsFuchsiaStreamDetails(t *testing.T) {
	for _, first := range [][]uint32{{0}, nil} {
		f := &ir.File{Format: ir.FormatFuchsiaFIDL, Strings: []string{""}, Fuchsia: &ir.FuchsiaFile{SampleTypes: make([]ir.FuchsiaValueType, 2)},
			Snapshots: []*ir.Snapshot{{Root: ir.NoNode, NodeKinds: fuchsiair.NodeKinds, EdgeKinds: fuchsiair.EdgeKinds,
				Nodes: ir.Nodes{FirstEdge: []uint32{0}}, Fuchsia: &ir.FuchsiaSnapshot{Stream: &ir.FuchsiaStream{UnknownFirst: first}}}}}
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		g := roundTrip(t, f)
		if d := ir.Diff(f, g, 10); len(d) > 0 {
			t.Errorf("round trip differs:\n%s", strings.Join(d, "\n"))
		}
		st := g.Snapshots[0].Fuchsia.Stream
		if st == nil || !slicesEqualNil(st.UnknownFirst, first) {
			t.Errorf("stream details with UnknownFirst %v came back as %+v", first, st)
		}
	}

	// Extreme values, and orphan and unknown field bytes of several
	// chunks.
	f := ctFuchsiaStream()
	st := f.Snapshots[0].Fuchsia.Stream
	st.StackKey[0], st.ThreadKey[0] = math.MaxUint64, math.MaxUint64
	st.RegionVaddr[0] = math.MaxUint64
	st.RegionFields[0] |= ir.FuchsiaRegionVaddr
	big := make([]byte, 3<<16+5)
	for i := range big {
		big[i] = byte(i * 7)
	}
	st.ContentsChunkNode = append(st.ContentsChunkNode, ir.FuchsiaOrphanChunk)
	st.ContentsChunkSize = append(st.ContentsChunkSize, uint32(len(big)))
	st.OrphanAddress = append(st.OrphanAddress, math.MaxUint64)
	st.OrphanContents = append(st.OrphanContents, big...)
	st.Records = append(st.Records, ir.FuchsiaRecordContents, ir.FuchsiaRecordEndOfBatch)
	r := uint32(len(st.Records) - 2)
	if len(st.UnknownRecord) > 0 && st.UnknownRecord[len(st.UnknownRecord)-1] == ir.FuchsiaHeaderRecord {
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
// version 5. A version 5 stream relabelled as version 4 reads when it has
// no stream details, and is refused when it has.
func TestDecodeRefusesStreamDetailsInV4(t *testing.T) {
	for _, tc := range []struct {
		f       *ir.File
		wantErr string
	}{
		{ctFuchsia(), ""},
		{ctFuchsiaStream(), "arrived in version 5"},
	} {
		var buf bytes.Buffer
		if err := ir.Encode(&buf, tc.f); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if !bytes.HasPrefix(b, ctHeader(ir.Version)) {
			t.Fatalf("no version %d header", ir.Version)
		}
		b[len(ir.Magic)] = 4
		_, err := ir.Decode(bytes.NewReader(b))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s as version 4: %v", tc.f.Format, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s as version 4: error %v, want %q", tc.f.Format, err, tc.wantErr)
		}
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
// ir.FuchsiaFile and ir.FuchsiaSnapshot (found by reflection) must have a
// case here.
func TestDiffFuchsia(t *testing.T) {
	snap := func(f *ir.File) *ir.FuchsiaSnapshot { return f.Snapshots[0].Fuchsia }
	stream := func(f *ir.File) *ir.FuchsiaStream { return f.Snapshots[0].Fuchsia.Stream }
	tests := map[string]struct {
		change func(f *ir.File)
		want   string
	}{
		"FuchsiaFile.Gzip":              {func(f *ir.File) { f.Fuchsia.Gzip = false }, "gzip"},
		"FuchsiaFile.SampleTypes":       {func(f *ir.File) { f.Fuchsia.SampleTypes[1].Unit++ }, "sample types"},
		"FuchsiaFile.DefaultSampleType": {func(f *ir.File) { f.Fuchsia.DefaultSampleType++ }, "default sample type"},
		"FuchsiaFile.DropFrames":        {func(f *ir.File) { f.Fuchsia.DropFrames++ }, "drop frames"},
		"FuchsiaFile.KeepFrames":        {func(f *ir.File) { f.Fuchsia.KeepFrames++ }, "keep frames"},
		"FuchsiaFile.DocURL":            {func(f *ir.File) { f.Fuchsia.DocURL++ }, "doc url"},
		"FuchsiaFile.Comments":          {func(f *ir.File) { f.Fuchsia.Comments = f.Fuchsia.Comments[1:] }, "comments"},
		"FuchsiaFile.TimeNanos":         {func(f *ir.File) { f.Fuchsia.TimeNanos++ }, "fuchsia time"},
		"FuchsiaFile.DurationNanos":     {func(f *ir.File) { f.Fuchsia.DurationNanos++ }, "duration"},
		"FuchsiaFile.PeriodType":        {func(f *ir.File) { f.Fuchsia.PeriodType.Type++ }, "period type"},
		"FuchsiaFile.Period":            {func(f *ir.File) { f.Fuchsia.Period++ }, "fuchsia period "},
		"FuchsiaFile.Mappings.ID":       {func(f *ir.File) { f.Fuchsia.Mappings.ID[0]++ }, "mapping id"},
		"FuchsiaFile.Mappings.Start":    {func(f *ir.File) { f.Fuchsia.Mappings.Start[0]++ }, "mapping start"},
		"FuchsiaFile.Mappings.Limit":    {func(f *ir.File) { f.Fuchsia.Mappings.Limit[0]++ }, "mapping limit"},
		"FuchsiaFile.Mappings.Offset":   {func(f *ir.File) { f.Fuchsia.Mappings.Offset[0]++ }, "mapping offset"},
		"FuchsiaFile.Mappings.File":     {func(f *ir.File) { f.Fuchsia.Mappings.File[0]++ }, "mapping file"},
		"FuchsiaFile.Mappings.BuildID":  {func(f *ir.File) { f.Fuchsia.Mappings.BuildID[0]++ }, "build id"},
		"FuchsiaFile.Mappings.Flags":    {func(f *ir.File) { f.Fuchsia.Mappings.Flags[0] ^= 1 }, "mapping flags"},
		"FuchsiaFile.Functions.ID":      {func(f *ir.File) { f.Fuchsia.Functions.ID[0]++ }, "function id"},
		"FuchsiaFile.Functions.Name":    {func(f *ir.File) { f.Fuchsia.Functions.Name[0]++ }, "function name"},
		"FuchsiaFile.Functions.SystemName": {func(f *ir.File) { f.Fuchsia.Functions.SystemName[0]++ },
			"function system name"},
		"FuchsiaFile.Functions.Filename":  {func(f *ir.File) { f.Fuchsia.Functions.Filename[0]++ }, "function filename"},
		"FuchsiaFile.Functions.StartLine": {func(f *ir.File) { f.Fuchsia.Functions.StartLine[0]-- }, "start line"},
		"FuchsiaFile.Locations.ID":        {func(f *ir.File) { f.Fuchsia.Locations.ID[0]++ }, "location id"},
		"FuchsiaFile.Locations.Mapping":   {func(f *ir.File) { f.Fuchsia.Locations.Mapping[0]++ }, "location mapping"},
		"FuchsiaFile.Locations.Address":   {func(f *ir.File) { f.Fuchsia.Locations.Address[0]++ }, "location address"},
		"FuchsiaFile.Locations.Folded": {func(f *ir.File) { f.Fuchsia.Locations.Folded[0] = !f.Fuchsia.Locations.Folded[0] },
			"location folded"},
		"FuchsiaFile.Locations.FirstLine": {func(f *ir.File) { f.Fuchsia.Locations.FirstLine[1]++ }, "line offsets"},
		"FuchsiaFile.Locations.Function":  {func(f *ir.File) { f.Fuchsia.Locations.Function[0]++ }, "line function"},
		"FuchsiaFile.Locations.Line":      {func(f *ir.File) { f.Fuchsia.Locations.Line[0]++ }, "line line"},
		"FuchsiaFile.Locations.Column":    {func(f *ir.File) { f.Fuchsia.Locations.Column[0]++ }, "line column"},
		"FuchsiaFile.SampleSnapshot":      {func(f *ir.File) { f.Fuchsia.SampleSnapshot = nil }, "sample snapshot"},

		"FuchsiaSnapshot.HasProcessName": {func(f *ir.File) { snap(f).HasProcessName = !snap(f).HasProcessName }, "process name"},
		"FuchsiaSnapshot.HasProcessKoid": {func(f *ir.File) { snap(f).HasProcessKoid = !snap(f).HasProcessKoid }, "process koid"},
		"FuchsiaSnapshot.ProcessName":    {func(f *ir.File) { snap(f).ProcessName++ }, "process name"},
		"FuchsiaSnapshot.ProcessKoid":    {func(f *ir.File) { snap(f).ProcessKoid++ }, "process koid"},
		"FuchsiaSnapshot.Count":          {func(f *ir.File) { snap(f).Count.Set(0, 7) }, "node count"},
		"FuchsiaSnapshot.Flags":          {func(f *ir.File) { snap(f).Flags[0] ^= ir.FuchsiaBytes }, "node flags"},
		"FuchsiaSnapshot.Timestamp":      {func(f *ir.File) { snap(f).Timestamp = nil }, "node timestamp"},
		"FuchsiaSnapshot.Thread":         {func(f *ir.File) { snap(f).Thread = nil }, "node thread"},
		"FuchsiaSnapshot.Stack":          {func(f *ir.File) { snap(f).Stack[0]++ }, "node stack"},
		"FuchsiaSnapshot.ExtraValues":    {func(f *ir.File) { snap(f).ExtraValues[0]-- }, "extra values"},
		"FuchsiaSnapshot.ThreadName":     {func(f *ir.File) { snap(f).ThreadName = append(snap(f).ThreadName, 0) }, "thread name"},
		"FuchsiaSnapshot.ThreadKoid":     {func(f *ir.File) { snap(f).ThreadKoid = append(snap(f).ThreadKoid, 0) }, "thread koid"},
		"FuchsiaSnapshot.ThreadBare":     {func(f *ir.File) { snap(f).ThreadBare = append(snap(f).ThreadBare, true) }, "thread bare"},
		"FuchsiaSnapshot.StackFirst":     {func(f *ir.File) { snap(f).StackFirst = append(snap(f).StackFirst, 0) }, "stack offsets"},
		"FuchsiaSnapshot.StackLocation":  {func(f *ir.File) { snap(f).StackLocation = append(snap(f).StackLocation, 0) }, "stack location"},
		"FuchsiaSnapshot.LabelFirst":     {func(f *ir.File) { snap(f).LabelFirst = nil }, "label offsets"},
		"FuchsiaSnapshot.LabelKey":       {func(f *ir.File) { snap(f).LabelKey = append(snap(f).LabelKey, 0) }, "label key"},
		"FuchsiaSnapshot.LabelNumeric":   {func(f *ir.File) { snap(f).LabelNumeric = append(snap(f).LabelNumeric, true) }, "label numeric"},
		"FuchsiaSnapshot.LabelStr":       {func(f *ir.File) { snap(f).LabelStr = append(snap(f).LabelStr, 0) }, "label str"},
		"FuchsiaSnapshot.LabelNum":       {func(f *ir.File) { snap(f).LabelNum = append(snap(f).LabelNum, -1) }, "label num"},
		"FuchsiaSnapshot.LabelUnit":      {func(f *ir.File) { snap(f).LabelUnit = append(snap(f).LabelUnit, 0) }, "label unit"},
		"FuchsiaSnapshot.ContentsStart":  {func(f *ir.File) { snap(f).ContentsStart = nil }, "contents offsets"},
		"FuchsiaSnapshot.Contents":       {func(f *ir.File) { snap(f).Contents = append(snap(f).Contents, 0) }, "fuchsia contents"},
		"FuchsiaSnapshot.DerivedEdges":   {func(f *ir.File) { snap(f).DerivedEdges = !snap(f).DerivedEdges }, "derived edges"},

		// The stream details: changed in a stream-shaped base file.
		"FuchsiaSnapshot.Stream":         {func(f *ir.File) { snap(f).Stream = nil }, "stream details present"},
		"FuchsiaSnapshot.Stream.Records": {func(f *ir.File) { stream(f).Records = append(stream(f).Records, 0x80) }, "stream records"},
		"FuchsiaSnapshot.Stream.AllocFields": {func(f *ir.File) { stream(f).AllocFields[0] ^= ir.FuchsiaAllocCount },
			"stream allocation fields"},
		"FuchsiaSnapshot.Stream.StackKey": {func(f *ir.File) { stream(f).StackKey[0]++ }, "stream stack key"},
		"FuchsiaSnapshot.Stream.StackChunkStack": {func(f *ir.File) { stream(f).StackChunkStack = append(stream(f).StackChunkStack, 0) },
			"stream stack chunk stack"},
		"FuchsiaSnapshot.Stream.StackChunkSize": {func(f *ir.File) { stream(f).StackChunkSize[0]++ }, "stream stack chunk size"},
		"FuchsiaSnapshot.Stream.ThreadKey":      {func(f *ir.File) { stream(f).ThreadKey[0]++ }, "stream thread key"},
		"FuchsiaSnapshot.Stream.RegionMapping":  {func(f *ir.File) { stream(f).RegionMapping = append(stream(f).RegionMapping, 0) }, "stream region mapping"},
		"FuchsiaSnapshot.Stream.RegionFields":   {func(f *ir.File) { stream(f).RegionFields = append(stream(f).RegionFields, 0) }, "stream region fields"},
		"FuchsiaSnapshot.Stream.RegionVaddr":    {func(f *ir.File) { stream(f).RegionVaddr = append(stream(f).RegionVaddr, 0) }, "stream region vaddr"},
		"FuchsiaSnapshot.Stream.ContentsChunkNode": {func(f *ir.File) { stream(f).ContentsChunkNode = append(stream(f).ContentsChunkNode, 0) },
			"stream contents chunk node"},
		"FuchsiaSnapshot.Stream.ContentsChunkSize": {func(f *ir.File) { stream(f).ContentsChunkSize = append(stream(f).ContentsChunkSize, 0) },
			"stream contents chunk size"},
		"FuchsiaSnapshot.Stream.OrphanAddress": {func(f *ir.File) { stream(f).OrphanAddress = append(stream(f).OrphanAddress, 0) },
			"stream orphan address"},
		"FuchsiaSnapshot.Stream.OrphanContents": {func(f *ir.File) { stream(f).OrphanContents = append(stream(f).OrphanContents, 0) },
			"stream orphan contents"},
		"FuchsiaSnapshot.Stream.UnknownRecord": {func(f *ir.File) { stream(f).UnknownRecord = append(stream(f).UnknownRecord, 0) },
			"stream unknown record"},
		"FuchsiaSnapshot.Stream.UnknownOrdinal": {func(f *ir.File) { stream(f).UnknownOrdinal = append(stream(f).UnknownOrdinal, 7) },
			"stream unknown ordinal"},
		"FuchsiaSnapshot.Stream.UnknownFirst": {func(f *ir.File) { stream(f).UnknownFirst = nil }, "stream unknown offsets"},
		"FuchsiaSnapshot.Stream.UnknownBytes": {func(f *ir.File) { stream(f).UnknownBytes = append(stream(f).UnknownBytes, 0) },
			"stream unknown bytes"},
	}
	// Every field has a case.
	var fields []string
	fields = append(fields, fieldPaths("FuchsiaFile", reflect.TypeOf(ir.FuchsiaFile{}))...)
	fields = append(fields, fieldPaths("FuchsiaSnapshot", reflect.TypeOf(ir.FuchsiaSnapshot{}))...)
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
				for _, p := range zeroFields("FuchsiaSnapshot", reflect.ValueOf(s.Fuchsia).Elem()) {
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
			if !strings.Contains(strings.Join(d, "\n"), tc.want) {
				t.Errorf("differences %q do not mention %q", d, tc.want)
			}
		})
	}
	t.Run("section dropped", func(t *testing.T) {
		a, b := full(), full()
		b.Fuchsia = nil
		b.Snapshots[1].Fuchsia = nil
		d := strings.Join(ir.Diff(a, b, 0), "\n")
		if !strings.Contains(d, "fuchsia section present") || !strings.Contains(d, "snapshot 1: fuchsia section present") {
			t.Errorf("differences %q", d)
		}
	})
}
