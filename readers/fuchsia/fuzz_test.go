package fuchsia_test

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/heapconv/heapconv/internal/fuchsiagen"
	"github.com/heapconv/heapconv/readers/fuchsia"
	wfuchsia "github.com/heapconv/heapconv/writers/fuchsia"
)

// FuzzRead checks that whatever Read accepts, pprof accepts once written,
// and that read → write is a fixed point after the first round.
func FuzzRead(f *testing.F) {
	for _, fx := range fuchsiagen.Fixtures() {
		snaps, wo, err := fx.Make()
		if err != nil {
			f.Fatal(err)
		}
		if len(snaps) == 0 || len(snaps[0].Allocations) > 200 {
			continue // seeds are small, so that fuzzing is fast
		}
		wo.Compression = fuchsiagen.CompressNone
		data, err := fuchsiagen.ProfileBytes(snaps, wo)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := fuchsia.ReadBytes(data, fuchsia.Options{})
		if err != nil {
			return
		}
		var out1 bytes.Buffer
		if _, err := wfuchsia.Write(&out1, g, wfuchsia.Options{NoGzip: true}); err != nil {
			t.Fatalf("write: %v", err)
		}
		p, err := profile.ParseUncompressed(out1.Bytes())
		if err != nil {
			t.Fatalf("pprof cannot parse the output: %v", err)
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("pprof finds the output invalid: %v", err)
		}
		h, err := fuchsia.ReadBytes(out1.Bytes(), fuchsia.Options{})
		if err != nil {
			t.Fatalf("reading the output: %v", err)
		}
		var out2 bytes.Buffer
		if _, err := wfuchsia.Write(&out2, h, wfuchsia.Options{NoGzip: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out1.Bytes(), out2.Bytes()) {
			t.Fatalf("not a fixed point")
		}
		if err := sameProfile(p, parse(t, out2.Bytes())); err != nil {
			t.Fatal(err)
		}
	})
}
