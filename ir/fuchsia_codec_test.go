package ir_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"heapconv/ir"
	"heapconv/ir/irtest"
)

// ctFuchsia is a random Fuchsia file of three processes with every Fuchsia
// feature: the first seed from 1 on whose file has derived edges, contents,
// labels, threads, timestamps, lines and interleaved samples.
func ctFuchsia() *ir.File { return ctFuchsiaSized(1, 3, 6) }

// When no seed sets every field (a field was added to the sections, which
// TestFuchsiaCodecCoversEveryField reports), it returns the first file.
func ctFuchsiaSized(seed int64, snapshots, maxNodes int) *ir.File {
	gen := func(seed int64) *ir.File {
		return irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 1, MaxNodes: maxNodes, Snapshots: snapshots,
			Strings: irtest.AllStrings, MaxStringUnits: 4}, irtest.FuchsiaEverything())
	}
	for s := seed; s < seed+2000; s++ {
		if f := gen(s); fuchsiaComplete(f) {
			return f
		}
	}
	return gen(seed)
}

// fuchsiaComplete reports whether every field of the Fuchsia sections is
// set somewhere in f (not its zero value), found by reflection: a field
// added to ir.FuchsiaFile or ir.FuchsiaSnapshot counts too.
func fuchsiaComplete(f *ir.File) bool {
	return len(fuchsiaUnset(f)) == 0
}

// fuchsiaUnset names the fields of the Fuchsia sections that are at their
// zero value in f and every snapshot.
func fuchsiaUnset(f *ir.File) []string {
	var out []string
	if f.Fuchsia == nil {
		return []string{"FuchsiaFile"}
	}
	out = append(out, zeroFields("FuchsiaFile", reflect.ValueOf(f.Fuchsia).Elem())...)
	set := map[string]bool{}
	for _, s := range f.Snapshots {
		if s.Fuchsia == nil {
			continue
		}
		v := reflect.ValueOf(s.Fuchsia).Elem()
		for _, name := range fieldPaths("FuchsiaSnapshot", v.Type()) {
			if !fieldByPath(v, name).IsZero() {
				set[name] = true
			}
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
// nested table structs (not into ir.Uints or the value types, which are
// columns or scalars of their own).
func fieldPaths(prefix string, t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		if sf.Type.Kind() == reflect.Struct && sf.Type != reflect.TypeOf(ir.Uints{}) && sf.Type != reflect.TypeOf(ir.FuchsiaValueType{}) {
			out = append(out, fieldPaths(prefix+"."+sf.Name, sf.Type)...)
			continue
		}
		out = append(out, prefix+"."+sf.Name)
	}
	return out
}

// fieldByPath returns the field "Type.A.B" of v.
func fieldByPath(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".")[1:] {
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

// TestFuchsiaCodecCoversEveryField fails when a field of ir.FuchsiaFile or
// ir.FuchsiaSnapshot is added without codec support: the test file sets
// every field (found by reflection, so a new field is unset until the
// generator fills it), and the round trip must keep every field (compared
// by reflection, not by ir.Diff). TestDiffFuchsia checks Diff the same way.
func TestFuchsiaCodecCoversEveryField(t *testing.T) {
	var f *ir.File
	for seed := int64(0); seed < 200 && f == nil; seed++ {
		g := irtest.RandomFuchsia(seed, irtest.Options{MinNodes: 1, MaxNodes: 8, Snapshots: 3, Strings: irtest.AllStrings},
			irtest.FuchsiaEverything())
		if fuchsiaComplete(g) {
			f = g
		}
	}
	if f == nil {
		f = irtest.RandomFuchsia(0, irtest.Options{MinNodes: 1, MaxNodes: 8, Snapshots: 3}, irtest.FuchsiaEverything())
		t.Fatalf("no random Fuchsia file sets every field; unset in seed 0: %v (teach irtest.RandomFuchsia, the codec and ir.Diff the new fields)", fuchsiaUnset(f))
	}
	g := roundTrip(t, f)
	if d := fuchsiaFieldsEqual(f, g); len(d) > 0 {
		t.Errorf("fields not kept by the IR stream: %v", d)
	}
	if d := ir.Diff(f, g, 10); len(d) > 0 {
		t.Errorf("round trip differs: %v", d)
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
	e0 := &ir.Snapshot{Root: ir.NoNode, NodeKinds: ir.FuchsiaNodeKinds, EdgeKinds: ir.FuchsiaEdgeKinds,
		Nodes:   ir.Nodes{FirstEdge: []uint32{0}},
		Fuchsia: &ir.FuchsiaSnapshot{StackFirst: []uint32{0}, LabelFirst: []uint32{0}, ContentsStart: []uint64{0}}}
	e1 := &ir.Snapshot{Root: ir.NoNode, NodeKinds: ir.FuchsiaNodeKinds, EdgeKinds: ir.FuchsiaEdgeKinds,
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

// TestDiffFuchsia: Diff notices a change to any field of the Fuchsia
// sections, and nothing in an unchanged copy. Every field of
// ir.FuchsiaFile and ir.FuchsiaSnapshot (found by reflection) must have a
// case here.
func TestDiffFuchsia(t *testing.T) {
	snap := func(f *ir.File) *ir.FuchsiaSnapshot { return f.Snapshots[0].Fuchsia }
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
	// Snapshot 0 of the base file sets every per-snapshot field.
	// (When none does, the fields' cases fail.)
	full := func() *ir.File {
		for seed := int64(1); seed < 1000; seed++ {
			f := ctFuchsiaSized(seed, 3, 6)
			for i, s := range f.Snapshots {
				if len(zeroFields("FuchsiaSnapshot", reflect.ValueOf(s.Fuchsia).Elem())) == 0 {
					f.Snapshots[0], f.Snapshots[i] = f.Snapshots[i], f.Snapshots[0]
					return f
				}
			}
		}
		return ctFuchsia()
	}
	if d := ir.Diff(full(), full(), 0); len(d) > 0 {
		t.Fatalf("an unchanged copy differs: %v", d)
	}
	for _, name := range fields {
		tc, ok := tests[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			a, b := full(), full()
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
