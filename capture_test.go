package heapconv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/capture"
	"github.com/heapconv/heapconv/internal/fakevm"
	"github.com/heapconv/heapconv/ir"
)

// fakeProducers serves a small V8 file from a scripted inspector and a
// Dart file from a scripted Dart VM, each cut into chunks.
func fakeProducers(t *testing.T) (v8 *fakevm.Inspector, v8data []byte, dart *fakevm.DartVM, dartdata []byte) {
	t.Helper()
	var err error
	if v8data, err = os.ReadFile("testdata/v8/small/rows.heapsnapshot"); err != nil {
		t.Fatal(err)
	}
	if dartdata, err = os.ReadFile("testdata/dart/synthetic_vm_layout.dartheap"); err != nil {
		t.Fatal(err)
	}
	third := len(v8data) / 3
	v8 = &fakevm.Inspector{Browser: "node.js/v20.0.0", Pages: []fakevm.Page{{Type: "node", Title: "app.js"}},
		Chunks: []string{string(v8data[:third]), string(v8data[third : 2*third]), string(v8data[2*third:])}}
	half := len(dartdata) / 2
	dart = &fakevm.DartVM{AuthCode: "AbCd=", Version: "3.7.3", Isolates: []string{"main"},
		Chunks: [][]byte{dartdata[:half], dartdata[half:]}}
	v8.Start()
	dart.Start()
	t.Cleanup(v8.Close)
	t.Cleanup(dart.Close)
	return
}

func captureTo(t *testing.T, target, out string, opts *heapconv.CaptureOptions) (heapconv.CaptureReport, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return heapconv.CaptureFile(ctx, target, out, opts)
}

// TestCaptureFile captures from a scripted V8 inspector and Dart VM into
// every format: the producer's own is the bytes it sent; any other is
// what converting those bytes gives.
func TestCaptureFile(t *testing.T) {
	v8, v8data, dart, dartdata := fakeProducers(t)
	dir := t.TempDir()
	for _, src := range []struct {
		target string
		data   []byte
		own    string
	}{
		{v8.URL(), v8data, "heapsnapshot"},
		{dart.URI(), dartdata, "dartheap"},
	} {
		orig := filepath.Join(dir, "orig."+src.own)
		if err := os.WriteFile(orig, src.data, 0o644); err != nil {
			t.Fatal(err)
		}
		exts := []string{src.own, src.own + ".zst", "heapir.zst", "heapsnapshot", "dartheap", "mvmheap", "pb.gz", "fidlstream"}
		exts = slices.Compact(append(exts[:2], slices.DeleteFunc(exts[2:], func(e string) bool { return e == src.own })...))
		for _, ext := range exts {
			out := filepath.Join(dir, "captured-"+src.own+"."+ext)
			r, err := captureTo(t, src.target, out, nil)
			if err != nil {
				t.Errorf("%s → %s: %v", src.own, ext, err)
				continue
			}
			if len(r.Received) != 1 || r.Received[0] != int64(len(src.data)) || !slices.Equal(r.Outputs, []string{out}) {
				t.Errorf("%s → %s: report %+v", src.own, ext, r)
			}
			if ext == src.own || ext == src.own+".zst" {
				if got := readMaybeZstd(t, out); string(got) != string(src.data) {
					t.Errorf("%s → %s: %d bytes, not the %d the producer sent", src.own, ext, len(got), len(src.data))
				}
				if len(r.Losses) != 0 {
					t.Errorf("%s → %s: losses %v", src.own, ext, r.Losses)
				}
				continue
			}
			want := filepath.Join(dir, "converted-"+src.own+"."+ext)
			if _, err := heapconv.ConvertFile(orig, want, &heapconv.ConvertOptions{Overwrite: true}); err != nil {
				t.Fatal(err)
			}
			got, err := heapconv.ReadFile(out, nil)
			if err != nil {
				t.Fatalf("%s → %s: reading the capture: %v", src.own, ext, err)
			}
			wantFile, err := heapconv.ReadFile(want, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := ir.Diff(got, wantFile, 5); len(d) > 0 {
				t.Errorf("%s → %s: the capture differs from the converted file: %v", src.own, ext, d)
			}
		}
	}
}

func readMaybeZstd(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(name) != ".zst" {
		return data
	}
	d, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCaptureFileFailures: a capture that fails leaves no output, and
// what can be refused is refused before connecting.
func TestCaptureFileFailures(t *testing.T) {
	v8, _, dart, _ := fakeProducers(t)
	dir := t.TempDir()
	empty := func(t *testing.T) {
		t.Helper()
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "exists.heapsnapshot" {
				t.Errorf("left behind: %s", e.Name())
			}
		}
	}
	// Dropped in the middle, written directly or converted.
	v8.DropAfter, dart.DropAfter = 2, 1
	for _, c := range []struct{ target, out string }{
		{v8.URL(), "a.heapsnapshot"}, {v8.URL(), "a.heapsnapshot.zst"}, {v8.URL(), "a.heapir.zst"},
		{dart.URI(), "a.dartheap"}, {dart.URI(), "a.heapsnapshot"},
	} {
		_, err := captureTo(t, c.target, filepath.Join(dir, c.out), nil)
		if !errors.Is(err, capture.ErrDropped) {
			t.Errorf("%s → %s: %v, want ErrDropped", c.target, c.out, err)
		}
		empty(t)
	}
	// Fresh producers for the rest: a session of the dropping ones may be
	// running still, reading DropAfter (a data race, were it reset).
	v8, _, _, _ = fakeProducers(t)

	if err := os.WriteFile(filepath.Join(dir, "exists.heapsnapshot"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := v8.Connections.Load()
	for _, c := range []struct {
		out  string
		opts heapconv.CaptureOptions
		want error
	}{
		{"exists.heapsnapshot", heapconv.CaptureOptions{}, heapconv.ErrExists},
		{"s-%d.heapsnapshot", heapconv.CaptureOptions{Count: 3, Convert: heapconv.ConvertOptions{Overwrite: true}}, nil},
		{"exists.heapsnapshot", heapconv.CaptureOptions{Count: 2}, heapconv.ErrOutputName},
		{"out.unknown", heapconv.CaptureOptions{}, heapconv.ErrNoFormat},
		{"-", heapconv.CaptureOptions{}, heapconv.ErrOption},
	} {
		_, err := captureTo(t, v8.URL(), filepath.Join(dir, c.out), &c.opts)
		if c.out == "-" {
			_, err = captureTo(t, v8.URL(), "-", &c.opts)
		}
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.out, err)
			}
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.out, err, c.want)
		}
	}
	if got := v8.Connections.Load() - before; got != 1 {
		t.Errorf("%d connections, want 1 (for the series; the refusals come before connecting)", got)
	}
	for i := range 3 {
		if _, err := heapconv.ReadFile(filepath.Join(dir, "s-"+string(rune('0'+i))+".heapsnapshot"), nil); err != nil {
			t.Errorf("snapshot %d of the series: %v", i, err)
		}
	}
}
