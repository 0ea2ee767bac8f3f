package irstream_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// checkSeries joins files into a series and checks it (sameAsFiles).
func checkSeries(t *testing.T, files []*ir.File) {
	t.Helper()
	series, err := ir.JoinSeries(files...)
	if err != nil {
		t.Fatalf("JoinSeries: %v", err)
	}
	if err := series.Validate(); err != nil {
		t.Errorf("the series is not valid: %v", err)
	}
	sameAsFiles(t, series, files)
}

// 5. A string holding NUL and a digit collides with the key JoinSeries
// gives the second copy of a string a file holds twice.
func TestSeriesStringCopies(t *testing.T) {
	o := irtest.V8Shaped(2, 5)
	o.V8 = &irtest.V8Options{Layout: v8ir.LayoutRows}
	a := irtest.Random(1, o)
	b := irtest.Random(1, o)
	a.Strings = append(a.Strings, "a", "a")
	b.Strings = append(b.Strings, "a\x001")
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	checkSeries(t, []*ir.File{a, b})
	// Within one file, too.
	c := irtest.Random(1, o)
	c.Strings = append(c.Strings, "a", "a", "a\x001")
	checkSeries(t, []*ir.File{c})
}

// 6. A class named by the second copy of a string in one file and by the
// only copy in another: classKey takes both for one class.
func TestSeriesClassOfStringCopy(t *testing.T) {
	o := irtest.Options{MinNodes: 1, MaxNodes: 10, Dart: &irtest.DartOptions{Hashes: true}}
	a := irtest.Random(3, o)
	b := irtest.Random(3, o)
	// a: class 0 named by a second copy of its name.
	a.Strings = append(a.Strings, a.Strings[a.Classes.Name[0]])
	a.Classes.Name = slices.Clone(a.Classes.Name)
	a.Classes.Name[0] = uint32(len(a.Strings) - 1)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Run("a,b", func(t *testing.T) { checkSeries(t, []*ir.File{a, b}) })
	t.Run("b,a", func(t *testing.T) { checkSeries(t, []*ir.File{b, a}) })
}

// 7. Series of series, Select then re-join, through the stream and DecodeSnapshot.
func TestSeriesOfSeries(t *testing.T) {
	for seed := range int64(8) {
		o := irtest.Options{MinNodes: 1, MaxNodes: 30, Dart: &irtest.DartOptions{Hashes: true, External: true, Data: true, ZeroRefs: true}}
		var files []*ir.File
		for k := range 3 {
			f := irtest.Random(seed*7+int64(k%2), o) // repeats: shared classes
			files = append(files, f)
		}
		s1, err := ir.JoinSeries(files[0], files[1])
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ir.JoinSeries(s1, files[2])
		if err != nil {
			t.Fatal(err)
		}
		for n := range files {
			g, err := s2.Select(n)
			if err != nil {
				t.Fatal(err)
			}
			if d := ir.Diff(files[n], g, 5); len(d) > 0 {
				t.Fatalf("seed %d: series of series, Select(%d):\n%v", seed, n, d)
			}
		}
		// through the stream
		var buf bytes.Buffer
		if err := irstream.EncodeZstd(&buf, s2); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		for n := range files {
			g, err := irstream.DecodeSnapshot(bytes.NewReader(data), int64(len(data)), n)
			if err != nil {
				t.Fatal(err)
			}
			if d := ir.Diff(files[n], g, 5); len(d) > 0 {
				t.Fatalf("seed %d: DecodeSnapshot(%d):\n%v", seed, n, d)
			}
		}
	}
}
