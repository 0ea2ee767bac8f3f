package fuchsia_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/google/pprof/profile"
)

// parse gunzips when needed and parses without pprof's mapping massage.
func parse(t testing.TB, data []byte) *profile.Profile {
	t.Helper()
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		t.Fatalf("ParseUncompressed: %v", err)
	}
	return p
}

func norm[K comparable, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return nil
	}
	return m
}

// sameProfile compares two parsed profiles semantically: samples (values,
// labels, location ids), mappings, locations, functions and the other
// fields.
func sameProfile(a, b *profile.Profile) error {
	vt := func(v []*profile.ValueType) (s []string) {
		for _, x := range v {
			s = append(s, x.Type+"/"+x.Unit)
		}
		return
	}
	if !reflect.DeepEqual(vt(a.SampleType), vt(b.SampleType)) {
		return fmt.Errorf("sample types %v != %v", vt(a.SampleType), vt(b.SampleType))
	}
	if len(a.Sample) != len(b.Sample) {
		return fmt.Errorf("%d samples != %d", len(a.Sample), len(b.Sample))
	}
	for i := range a.Sample {
		x, y := a.Sample[i], b.Sample[i]
		if !reflect.DeepEqual(x.Value, y.Value) {
			return fmt.Errorf("sample %d: values %v != %v", i, x.Value, y.Value)
		}
		if !reflect.DeepEqual(norm(x.Label), norm(y.Label)) || !reflect.DeepEqual(norm(x.NumLabel), norm(y.NumLabel)) ||
			!reflect.DeepEqual(norm(x.NumUnit), norm(y.NumUnit)) {
			return fmt.Errorf("sample %d: labels %v %v %v != %v %v %v", i, x.Label, x.NumLabel, x.NumUnit, y.Label, y.NumLabel, y.NumUnit)
		}
		if len(x.Location) != len(y.Location) {
			return fmt.Errorf("sample %d: %d locations != %d", i, len(x.Location), len(y.Location))
		}
		for j := range x.Location {
			if x.Location[j].ID != y.Location[j].ID {
				return fmt.Errorf("sample %d: location %d: id %d != %d", i, j, x.Location[j].ID, y.Location[j].ID)
			}
		}
	}
	if len(a.Mapping) != len(b.Mapping) {
		return fmt.Errorf("%d mappings != %d", len(a.Mapping), len(b.Mapping))
	}
	for i := range a.Mapping {
		if !reflect.DeepEqual(*a.Mapping[i], *b.Mapping[i]) {
			return fmt.Errorf("mapping %d: %+v != %+v", i, *a.Mapping[i], *b.Mapping[i])
		}
	}
	if len(a.Function) != len(b.Function) {
		return fmt.Errorf("%d functions != %d", len(a.Function), len(b.Function))
	}
	for i := range a.Function {
		if !reflect.DeepEqual(*a.Function[i], *b.Function[i]) {
			return fmt.Errorf("function %d: %+v != %+v", i, *a.Function[i], *b.Function[i])
		}
	}
	if len(a.Location) != len(b.Location) {
		return fmt.Errorf("%d locations != %d", len(a.Location), len(b.Location))
	}
	for i := range a.Location {
		x, y := a.Location[i], b.Location[i]
		mid := func(l *profile.Location) uint64 {
			if l.Mapping == nil {
				return 0
			}
			return l.Mapping.ID
		}
		if x.ID != y.ID || x.Address != y.Address || x.IsFolded != y.IsFolded || mid(x) != mid(y) || len(x.Line) != len(y.Line) {
			return fmt.Errorf("location %d: %+v != %+v", i, *x, *y)
		}
		for j := range x.Line {
			if x.Line[j].Function.ID != y.Line[j].Function.ID || x.Line[j].Line != y.Line[j].Line || x.Line[j].Column != y.Line[j].Column {
				return fmt.Errorf("location %d line %d differs", i, j)
			}
		}
	}
	if a.DropFrames != b.DropFrames || a.KeepFrames != b.KeepFrames || a.TimeNanos != b.TimeNanos || a.DurationNanos != b.DurationNanos ||
		a.Period != b.Period || *a.PeriodType != *b.PeriodType || a.DefaultSampleType != b.DefaultSampleType || a.DocURL != b.DocURL ||
		!reflect.DeepEqual(norm2(a.Comments), norm2(b.Comments)) {
		return fmt.Errorf("profile fields differ")
	}
	return nil
}

func norm2(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
