package conformance

import (
	"bytes"
	"errors"
	"testing"

	"github.com/heapconv/heapconv/ir/irstream"
	"github.com/heapconv/heapconv/ir/irtest"
)

// errTooMuch stops a writer that produces far more than its input justifies.
var errTooMuch = errors.New("output beyond the limit")

type limitWriter struct{ n, limit int }

func (w *limitWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.n > w.limit {
		return 0, errTooMuch
	}
	return len(p), nil
}

// FuzzWriters decodes arbitrary IR streams and hands what decodes to every
// writer: none may panic, and none may write more than a fixed multiple of
// the stream's size (an IR value is backed by stream bytes, so a writer's
// output is too).
func FuzzWriters(f *testing.F) {
	for i, o := range []irtest.Options{
		{MaxNodes: 6, Classes: true, Values: true, GCRoots: true, ExternalSizes: true},
		{MaxNodes: 6, Dart: &irtest.DartOptions{Hashes: true, Padding: true, ZeroRefs: true, External: true, Data: true}},
		{MaxNodes: 6, Dart: &irtest.DartOptions{OldRoot: true, Data: true}},
		irtest.V8Shaped(1, 6),
	} {
		var b bytes.Buffer
		if err := irstream.Encode(&b, irtest.Random(int64(i), o)); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := irstream.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, fm := range table {
			if fm.write == nil {
				continue
			}
			in := file
			if fm.oneSnapshot && len(file.Snapshots) != 1 {
				if len(file.Snapshots) == 0 {
					continue
				}
				if in, err = file.Select(0); err != nil {
					t.Fatal(err)
				}
			}
			w := &limitWriter{limit: 64<<20 + 4096*len(data)}
			if _, err := fm.write(w, in); errors.Is(err, errTooMuch) {
				t.Fatalf("%s writer: more than %d bytes from a %d-byte stream", fm.name, w.limit, len(data))
			}
		}
	})
}
