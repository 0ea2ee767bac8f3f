package irstream

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/heapconv/heapconv/ir"
	"github.com/heapconv/heapconv/ir/irtest"
	v8ir "github.com/heapconv/heapconv/ir/v8"
)

// TestDecodeSnapshot reads each snapshot of a compressed stream alone,
// from its seek table, and compares it with the snapshot selected from
// the whole file: a series of evolving V8 snapshots (so that some are
// stored against a base, past a keyframe), and a file of snapshots that
// share its tables.
func TestDecodeSnapshot(t *testing.T) {
	o := irtest.V8Shaped(5, 30)
	o.V8 = &irtest.V8Options{Layout: v8ir.LayoutCompact, Escape: v8ir.EscapeV8, Detachedness: true}
	first := irtest.Random(5, o)
	r := rand.New(rand.NewPCG(5, 5))
	files := []*ir.File{first}
	for range keyframeInterval + 3 {
		prev := files[len(files)-1]
		next := *prev
		next.Snapshots = []*ir.Snapshot{evolve(prev.Snapshots[0], r)}
		files = append(files, &next)
	}
	series, err := ir.JoinSeries(files...)
	if err != nil {
		t.Fatal(err)
	}
	multi := irtest.Random(6, irtest.Everything(0, 20))
	for _, f := range []*ir.File{series, multi} {
		var buf bytes.Buffer
		if err := EncodeZstd(&buf, f); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		whole, err := Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("the whole stream: %v", err)
		}
		for n := range f.Snapshots {
			want, err := whole.Select(n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeSnapshot(bytes.NewReader(data), int64(len(data)), n)
			if err != nil {
				t.Fatalf("snapshot %d: %v", n, err)
			}
			if d := ir.Diff(want, got, 5); len(d) > 0 {
				t.Fatalf("snapshot %d read alone differs:\n%v", n, d)
			}
		}
		if _, err := DecodeSnapshot(bytes.NewReader(data), int64(len(data)), len(f.Snapshots)); err == nil {
			t.Errorf("snapshot %d of %d was read", len(f.Snapshots), len(f.Snapshots))
		}
	}
	based := 0
	for n := range series.Snapshots {
		if p := planBase(series, n); p != nil {
			based++
		} else if n%keyframeInterval != 0 {
			t.Errorf("snapshot %d is stored as it is", n)
		}
	}
	if based < keyframeInterval {
		t.Errorf("%d snapshots stored against a base", based)
	}
}

// TestDecodeSnapshotNoIndex checks that a stream without a usable seek
// table is ErrNoIndex (read whole instead), never a panic: a plain stream,
// a compressed one cut short or with its table damaged.
func TestDecodeSnapshotNoIndex(t *testing.T) {
	f := irtest.Random(7, irtest.Everything(1, 10))
	var plain, zst bytes.Buffer
	if err := Encode(&plain, f); err != nil {
		t.Fatal(err)
	}
	if err := EncodeZstd(&zst, f); err != nil {
		t.Fatal(err)
	}
	z := zst.Bytes()
	cases := map[string][]byte{
		"plain":          plain.Bytes(),
		"cut short":      z[:len(z)-3],
		"no table":       z[:len(z)-(8+8*(len(f.Snapshots)+2)+seekFooterLen)],
		"empty":          nil,
		"a frame longer": func() []byte { b := bytes.Clone(z); b[len(b)-seekFooterLen-8-8]++; return b }(),
	}
	moar := irtest.RandomMoarVM(3, irtest.Options{MinNodes: 2, MaxNodes: 9, Snapshots: 3}, irtest.MoarVMOptions{})
	var mz bytes.Buffer
	if err := EncodeZstd(&mz, moar); err != nil {
		t.Fatal(err)
	}
	cases["a file with sections of the file"] = mz.Bytes()
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeSnapshot(bytes.NewReader(data), int64(len(data)), 0)
			if !errors.Is(err, ErrNoIndex) {
				t.Errorf("got %v, want ErrNoIndex", err)
			}
		})
	}
	// Any byte of the table changed: an error or the right snapshot.
	want, _ := f.Select(0)
	tableStart := len(z) - (8 + 8*(len(f.Snapshots)+2) + seekFooterLen)
	for i := tableStart; i < len(z); i++ {
		b := bytes.Clone(z)
		b[i] ^= 0x55
		g, err := DecodeSnapshot(bytes.NewReader(b), int64(len(b)), 0)
		if err == nil {
			if d := ir.Diff(want, g, 1); len(d) > 0 {
				t.Errorf("byte %d of the table changed: a different snapshot %v", i-tableStart, d)
			}
		}
	}
}

// TestWriter checks the Writer against Encode (the same bytes, written a
// snapshot at a time) and its refusals: a snapshot more than declared
// (which leaves the stream whole), fewer at Close.
func TestWriter(t *testing.T) {
	f := irtest.Random(11, irtest.Everything(2, 30))
	for _, compress := range []bool{false, true} {
		var want, got bytes.Buffer
		var err error
		if compress {
			err = EncodeZstd(&want, f)
		} else {
			err = Encode(&want, f)
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(&got, f, len(f.Snapshots), WriterOptions{Compress: compress})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Snapshots {
			if err := w.WriteSnapshot(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteSnapshot(f.Snapshots[0]); err == nil {
			t.Error("a snapshot more than declared was written")
		}
		// The refusal leaves the stream as it was: it closes whole.
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("compressed %v: the Writer's stream differs from Encode's", compress)
		}
		var short bytes.Buffer
		w, err = NewWriter(&short, f, len(f.Snapshots)+1, WriterOptions{Compress: compress})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Snapshots {
			if err := w.WriteSnapshot(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err == nil {
			t.Errorf("compressed %v: Close with a snapshot missing succeeded", compress)
		}
	}
}
