package fuchsia_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/google/pprof/profile"

	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// pbField is one field of a protocol buffer message: a varint, or the
// payload of a length-delimited field.
type pbField struct {
	v   uint64
	b   []byte
	raw bool // length-delimited
}

// pbFields splits a message into its fields by number.
func pbFields(t *testing.T, b []byte) map[int][]pbField {
	t.Helper()
	out := map[int][]pbField{}
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad key at %x", b)
		}
		b = b[n:]
		num, wt := int(key>>3), int(key&7)
		switch wt {
		case fuchsiair.WireVarint:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				t.Fatalf("bad varint in field %d", num)
			}
			out[num] = append(out[num], pbField{v: v})
			b = b[n:]
		case fuchsiair.WireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				t.Fatalf("bad length in field %d", num)
			}
			out[num] = append(out[num], pbField{b: b[n : n+int(l)], raw: true})
			b = b[n+int(l):]
		default:
			t.Fatalf("field %d: wire type %d", num, wt)
		}
	}
	return out
}

// ints returns the integers of a repeated field, one per field or packed.
func ints(t *testing.T, fs []pbField) []uint64 {
	t.Helper()
	var out []uint64
	for _, f := range fs {
		if !f.raw {
			out = append(out, f.v)
			continue
		}
		for b := f.b; len(b) > 0; {
			v, n := binary.Uvarint(b)
			if n <= 0 {
				t.Fatal("bad packed varint")
			}
			out = append(out, v)
			b = b[n:]
		}
	}
	return out
}

// TestFieldNumbers checks the field numbers against google/pprof's
// encoder: a profile with every field set, written by pprof, holds each
// value at the number this package gives its field.
func TestFieldNumbers(t *testing.T) {
	fn := &profile.Function{ID: 9, Name: "fn", SystemName: "sys", Filename: "file.cc", StartLine: 17}
	m := &profile.Mapping{ID: 7, Start: 0x1000, Limit: 0x2000, Offset: 0x30, File: "libx.so", BuildID: "abcd",
		HasFunctions: true, HasLineNumbers: true}
	loc := &profile.Location{ID: 5, Mapping: m, Address: 0x1234, IsFolded: true,
		Line: []profile.Line{{Function: fn, Line: 42, Column: 3}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: fuchsiair.ObjectsType, Unit: fuchsiair.CountUnit},
			{Type: fuchsiair.AllocatedType, Unit: fuchsiair.BytesUnit}},
		Sample: []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1, 64},
			Label: map[string][]string{"k": {"v"}}, NumLabel: map[string][]int64{"n": {8}},
			NumUnit: map[string][]string{"n": {"u"}}}},
		Mapping: []*profile.Mapping{m}, Location: []*profile.Location{loc}, Function: []*profile.Function{fn},
		DropFrames: "drop", KeepFrames: "keep", TimeNanos: 1111, DurationNanos: 2222,
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"}, Period: 3333,
		Comments: []string{"c1"}, DefaultSampleType: fuchsiair.AllocatedType, DocURL: "https://doc",
	}
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	top := pbFields(t, buf.Bytes())
	var strs []string
	for _, f := range top[fuchsiair.ProfileStringTable] {
		strs = append(strs, string(f.b))
	}
	str := func(f []pbField) string {
		t.Helper()
		if len(f) != 1 || f[0].raw || f[0].v >= uint64(len(strs)) {
			t.Fatalf("not one string index: %+v", f)
		}
		return strs[f[0].v]
	}
	one := func(f []pbField) uint64 {
		t.Helper()
		if len(f) != 1 || f[0].raw {
			t.Fatalf("not one integer: %+v", f)
		}
		return f[0].v
	}
	msg := func(f []pbField) map[int][]pbField {
		t.Helper()
		if len(f) != 1 || !f[0].raw {
			t.Fatalf("not one message: %+v", f)
		}
		return pbFields(t, f[0].b)
	}
	check := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}

	// Profile.
	check("drop_frames", str(top[fuchsiair.ProfileDropFrames]), "drop")
	check("keep_frames", str(top[fuchsiair.ProfileKeepFrames]), "keep")
	check("time_nanos", one(top[fuchsiair.ProfileTimeNanos]), uint64(1111))
	check("duration_nanos", one(top[fuchsiair.ProfileDurationNanos]), uint64(2222))
	check("period", one(top[fuchsiair.ProfilePeriod]), uint64(3333))
	check("comment", str(top[fuchsiair.ProfileComment]), "c1")
	check("default_sample_type", str(top[fuchsiair.ProfileDefaultSampleType]), fuchsiair.AllocatedType)
	check("doc_url", str(top[fuchsiair.ProfileDocURL]), "https://doc")
	for n := 1; n <= fuchsiair.ProfileDocURL; n++ {
		if fuchsiair.ProfileSingular&(1<<n) != 0 && len(top[n]) != 1 {
			t.Errorf("singular field %d occurs %d times", n, len(top[n]))
		}
	}
	if got := len(top[fuchsiair.ProfileSampleType]); got != 2 {
		t.Fatalf("%d sample types", got)
	}
	vt := pbFields(t, top[fuchsiair.ProfileSampleType][1].b)
	check("sample type", str(vt[fuchsiair.ValueTypeType]), fuchsiair.AllocatedType)
	check("sample unit", str(vt[fuchsiair.ValueTypeUnit]), fuchsiair.BytesUnit)
	pt := msg(top[fuchsiair.ProfilePeriodType])
	check("period type", str(pt[fuchsiair.ValueTypeType]), "space")
	check("period unit", str(pt[fuchsiair.ValueTypeUnit]), "bytes")

	// Sample and labels.
	s := msg(top[fuchsiair.ProfileSample])
	if got := ints(t, s[fuchsiair.SampleLocationID]); !slices.Equal(got, []uint64{5}) {
		t.Errorf("sample location ids %v", got)
	}
	if got := ints(t, s[fuchsiair.SampleValue]); !slices.Equal(got, []uint64{1, 64}) {
		t.Errorf("sample values %v", got)
	}
	for _, l := range s[fuchsiair.SampleLabel] {
		lf := pbFields(t, l.b)
		switch str(lf[fuchsiair.LabelKey]) {
		case "k":
			check("label str", str(lf[fuchsiair.LabelStr]), "v")
		case "n":
			check("label num", one(lf[fuchsiair.LabelNum]), uint64(8))
			check("label num_unit", str(lf[fuchsiair.LabelNumUnit]), "u")
		default:
			t.Errorf("label %v", lf)
		}
	}

	// Mapping.
	mf := msg(top[fuchsiair.ProfileMapping])
	check("mapping id", one(mf[fuchsiair.MappingID]), uint64(7))
	check("memory_start", one(mf[fuchsiair.MappingMemoryStart]), uint64(0x1000))
	check("memory_limit", one(mf[fuchsiair.MappingMemoryLimit]), uint64(0x2000))
	check("file_offset", one(mf[fuchsiair.MappingFileOffset]), uint64(0x30))
	check("filename", str(mf[fuchsiair.MappingFilename]), "libx.so")
	check("build_id", str(mf[fuchsiair.MappingBuildID]), "abcd")
	// has_functions and has_line_numbers set; has_filenames and
	// has_inline_frames not (pprof writes only true booleans).
	for b, want := range []int{1, 0, 1, 0} {
		check("has_* flag", len(mf[fuchsiair.MappingHasFunctions+b]), want)
	}
	check("mapping flags", fuchsiair.MappingFlags, 4)

	// Location and line.
	lf := msg(top[fuchsiair.ProfileLocation])
	check("location id", one(lf[fuchsiair.LocationID]), uint64(5))
	check("mapping_id", one(lf[fuchsiair.LocationMappingID]), uint64(7))
	check("address", one(lf[fuchsiair.LocationAddress]), uint64(0x1234))
	check("is_folded", one(lf[fuchsiair.LocationIsFolded]), uint64(1))
	ln := msg(lf[fuchsiair.LocationLine])
	check("function_id", one(ln[fuchsiair.LineFunctionID]), uint64(9))
	check("line", one(ln[fuchsiair.LineLine]), uint64(42))
	check("column", one(ln[fuchsiair.LineColumn]), uint64(3))

	// Function.
	ff := msg(top[fuchsiair.ProfileFunction])
	check("function id", one(ff[fuchsiair.FunctionID]), uint64(9))
	check("name", str(ff[fuchsiair.FunctionName]), "fn")
	check("system_name", str(ff[fuchsiair.FunctionSystemName]), "sys")
	check("filename", str(ff[fuchsiair.FunctionFilename]), "file.cc")
	check("start_line", one(ff[fuchsiair.FunctionStartLine]), uint64(17))
}

func TestAddress(t *testing.T) {
	for _, a := range []uint64{0, 1, 0xabc, 1<<64 - 1} {
		b := fuchsiair.AppendAddress([]byte("x"), a)
		if got, ok := fuchsiair.ParseAddress(b[1:]); !ok || got != a {
			t.Errorf("%#x: %q parses as %#x, %v", a, b[1:], got, ok)
		}
	}
	if got := string(fuchsiair.AppendAddress(nil, 0x7f00ab)); got != "0x7f00ab" {
		t.Errorf("AppendAddress: %q", got)
	}
	// Spellings ffx does not write are not addresses.
	for _, s := range []string{"", "0x", "0x0abc", "0xABC", "0X1", "abc", "0x1g", "0x10000000000000000"} {
		if v, ok := fuchsiair.ParseAddress([]byte(s)); ok {
			t.Errorf("%q parses as %#x", s, v)
		}
	}
}

func TestThread(t *testing.T) {
	for _, c := range []struct {
		name string
		koid uint64
	}{{"main", 1234}, {"pool[3]", 0}, {"", 1<<64 - 1}, {"a]b[", 7}} {
		b := fuchsiair.AppendThread(nil, c.name, c.koid)
		name, koid, ok := fuchsiair.SplitThread(b)
		if !ok || string(name) != c.name || koid != c.koid {
			t.Errorf("%q splits into %q, %d, %v", b, name, koid, ok)
		}
	}
	if got := string(fuchsiair.AppendThread(nil, "main", 42)); got != "main[42]" {
		t.Errorf("AppendThread: %q", got)
	}
	for _, s := range []string{"main", "main[]", "main[01]", "main[x]", "main[18446744073709551616]", "[1"} {
		if name, koid, ok := fuchsiair.SplitThread([]byte(s)); ok {
			t.Errorf("%q splits into %q, %d", s, name, koid)
		}
	}
}

func TestIsAllocatorFrame(t *testing.T) {
	for name, want := range map[string]bool{
		"malloc":                           true,
		"operator new(unsigned long)":      true,
		"__rust_alloc":                     true,
		"alloc::alloc::exchange_malloc":    true,
		"std::__2::malloc":                 true,
		"scudo::Allocator<>::allocate":     true,
		"__scudo_allocate_hook::<u8>":      true,
		"with_profiler_and_call_site [1]":  true,
		"my_malloc":                        false,
		"mallocate":                        false,
		"Foo::new":                         false,
		"heapdump::with_profiler_and_site": false,
	} {
		if got := fuchsiair.IsAllocatorFrame(name); got != want {
			t.Errorf("IsAllocatorFrame(%q) = %v", name, got)
		}
	}
}
