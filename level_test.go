package heapconv_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in   string
		want heapconv.Level
		ok   bool
	}{
		{"fast", heapconv.LevelFast, true},
		{"default", heapconv.LevelDefault, true},
		{"best", heapconv.LevelBest, true},
		{"", 0, false},
		{"Best", 0, false},
		{"9", 0, false},
		{"fastest", 0, false},
	}
	for _, tc := range tests {
		got, err := heapconv.ParseLevel(tc.in)
		switch {
		case tc.ok && (err != nil || got != tc.want):
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case !tc.ok && err == nil:
			t.Errorf("ParseLevel(%q) = %v, want an error", tc.in, got)
		case tc.ok && got.String() != tc.in:
			t.Errorf("%v.String() = %q, want %q (what ParseLevel takes)", tc.want, got.String(), tc.in)
		}
	}
	if s := heapconv.Level(9).String(); s != "Level(9)" {
		t.Errorf("Level(9).String() = %q", s)
	}
}

// levelHeap is a real Node 22 heap of 4.5 MB: big enough that each level
// compresses it to a different size. (A heap made by internal/v8gen is
// not: its JSON is so regular that zstd's fastest level beats its
// "better" one.)
const levelHeap = "testdata/v8/node22.heapsnapshot.zst"

func readLevelHeap(t *testing.T) *ir.File {
	t.Helper()
	f, err := heapconv.ReadFile(levelHeap, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWriteLevel writes one heap at each level into every kind of
// compressed output: each level must reach its compressor (fast writes a
// larger file than default, default than best), and every file must read
// back as the heap.
func TestWriteLevel(t *testing.T) {
	f, in := readLevelHeap(t), levelHeap
	levels := []heapconv.Level{heapconv.LevelFast, heapconv.LevelDefault, heapconv.LevelBest}
	for _, ext := range []string{".heapir.zst", ".heapsnapshot.zst", ".heapsnapshot.gz", ".mvmheap.zst"} {
		t.Run(ext, func(t *testing.T) {
			var sizes []int64
			for _, level := range levels {
				name := filepath.Join(t.TempDir(), "out"+ext)
				if _, err := heapconv.WriteFile(name, f, &heapconv.WriteOptions{Level: level}); err != nil {
					t.Fatalf("%v: %v", level, err)
				}
				st, err := os.Stat(name)
				if err != nil {
					t.Fatal(err)
				}
				sizes = append(sizes, st.Size())
				back, err := heapconv.ReadFile(name, nil)
				if err != nil {
					t.Fatalf("%v: reading back: %v", level, err)
				}
				if ext != ".mvmheap.zst" { // MoarVM holds a V8 heap with losses
					if d := ir.Diff(f, back, 3); len(d) > 0 {
						t.Fatalf("%v: read back differs: %v", level, d)
					}
				}
			}
			t.Logf("fast, default, best: %v bytes", sizes)
			if !(sizes[0] > sizes[1] && sizes[1] > sizes[2]) {
				t.Errorf("fast, default, best wrote %v bytes; want each smaller than the one before", sizes)
			}
		})
	}

	// ConvertFile compresses at the level too.
	t.Run("ConvertFile", func(t *testing.T) {
		var sizes []int64
		for _, level := range []heapconv.Level{heapconv.LevelFast, heapconv.LevelBest} {
			name := filepath.Join(t.TempDir(), "out.heapsnapshot.zst")
			if _, err := heapconv.ConvertFile(in, name, &heapconv.ConvertOptions{Write: heapconv.WriteOptions{Level: level}}); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, st.Size())
		}
		if sizes[0] <= sizes[1] {
			t.Errorf("fast wrote %d bytes, best %d; want best smaller", sizes[0], sizes[1])
		}
	})
}

// An uncompressed output is the same at every level.
func TestWriteLevelUncompressed(t *testing.T) {
	f := readLevelHeap(t)
	var outs [][]byte
	for _, level := range []heapconv.Level{heapconv.LevelFast, heapconv.LevelBest} {
		var b bytes.Buffer
		if _, err := heapconv.Write(&b, f, ir.FormatIR, &heapconv.WriteOptions{Level: level}); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.Bytes())
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("an uncompressed IR stream differs between levels")
	}
}

// A Level that is none of the constants is refused before anything is
// written.
func TestWriteLevelInvalid(t *testing.T) {
	f := readLevelHeap(t)
	opts := &heapconv.WriteOptions{Level: heapconv.Level(9), Compress: true}
	if _, err := heapconv.Write(new(bytes.Buffer), f, ir.FormatIR, opts); !errors.Is(err, heapconv.ErrOption) {
		t.Errorf("Write at Level(9): %v, want ErrOption", err)
	}
	name := filepath.Join(t.TempDir(), "out.heapsnapshot.gz")
	if _, err := heapconv.WriteFile(name, f, opts); !errors.Is(err, heapconv.ErrOption) {
		t.Errorf("WriteFile at Level(9): %v, want ErrOption", err)
	}
	if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteFile at Level(9) left %s behind (%v)", name, err)
	}
}
