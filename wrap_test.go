package heapconv

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv/ir/irstream"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv/ir"
)

func TestForOutput(t *testing.T) {
	tests := []struct {
		name, to        string
		format, wrapper string // "" for none
		native          bool
	}{
		{"x.heapsnapshot", "", "v8", "", false},
		{"x.heapsnapshot.gz", "", "v8", "gzip", false},
		{"X.HEAPSNAPSHOT.ZST", "", "v8", "zstd", false},
		{"x.dartheap.gz", "", "dart", "gzip", false},
		{"x.mvmheap.gz", "", "moarvm", "gzip", false},
		{"x.mvmheap.zst", "", "moarvm", "zstd", false},
		{"x.fidlstream.zst", "", "fuchsia-fidl", "zstd", false},
		{"x.heapir", "", "ir", "", false},
		{"x.heapir.zst", "", "ir", "", true},
		{"x.heapir.gz", "", "ir", "gzip", false},
		{"x.pb", "", "fuchsia", "", false},
		{"x.pb.gz", "", "fuchsia", "", true},
		{"x.pb.zst", "", "fuchsia", "zstd", false},
		{"dir.gz/x.heapsnapshot", "", "v8", "", false},
		{"archive.gz", "v8", "v8", "gzip", false},
		{"archive.zst", "ir", "ir", "", true},
		{"x.pb.gz", "v8", "v8", "gzip", false},
		{"x.gz", "", "", "", false},
		{"x.txt", "", "", "", false},
	}
	for _, tc := range tests {
		o, err := planOutput(tc.name, tc.to)
		if tc.format == "" {
			if !errors.Is(err, ErrNoFormat) {
				t.Errorf("%s --to %q: %v, want no format", tc.name, tc.to, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s --to %q: %v, want %s", tc.name, tc.to, err, tc.format)
			continue
		}
		wrapper := ""
		if o.wrapper != nil {
			wrapper = o.wrapper.Name
		}
		if o.format.Name != tc.format || wrapper != tc.wrapper || o.native != tc.native {
			t.Errorf("%s --to %q: %s wrapper %q native %v, want %s %q %v", tc.name, tc.to, o.format.Name, wrapper, o.native,
				tc.format, tc.wrapper, tc.native)
		}
	}
}

// TestOpen: the format is detected inside either wrapper, which is
// removed unless the format reads it itself; the data read is the file's.
func TestOpen(t *testing.T) {
	td := "testdata"
	files := []struct{ format, path string }{
		{"v8", filepath.Join(td, "v8", "small", "rows.heapsnapshot")},
		{"dart", filepath.Join(td, "dart", "synthetic_vm_layout.dartheap")},
		{"moarvm", filepath.Join(td, "moarvm", "nqp-1snap.mvmheap")},
		{"fuchsia", filepath.Join(td, "fuchsia", "ffx-test-2023.pb")},
		{"fuchsia-fidl", filepath.Join(td, "fuchsia-fidl", "ffx-test.fidlstream")},
	}
	var irFile bytes.Buffer
	if err := irstream.Encode(&irFile, &ir.File{Format: v8ir.Format}); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, wr := range append([]*wrapper{nil}, wrappers...) {
			stored := data
			name := "plain"
			if wr != nil {
				name = wr.Name
				var b bytes.Buffer
				zw, err := wr.NewWriter(&b, LevelDefault)
				if err != nil {
					t.Fatal(err)
				}
				zw.Write(data)
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				stored = b.Bytes()
			}
			t.Run(f.format+"/"+name, func(t *testing.T) {
				in, err := Open(bytes.NewReader(stored), nil)
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				if in.Format.Name != f.format {
					t.Errorf("detected %s", in.Format.Name)
				}
				if (wr == nil && in.Compression != "") || (wr != nil && in.Compression != wr.Name) {
					t.Errorf("compression %q, want %v", in.Compression, wr)
				}
				own := wr != nil && in.Format.ownWrapper == wr.Name
				want := data
				if own {
					want = stored
					if in.Unwrapped() {
						t.Errorf("the format's own %s wrapper was removed", wr.Name)
					}
				} else if in.Unwrapped() != (wr != nil) {
					t.Errorf("wrapper removed: %v, want %v", in.Unwrapped(), wr)
				}
				got, err := io.ReadAll(in.r)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("read %d bytes (%v), want the %d bytes of the file", len(got), err, len(want))
				}
			})
		}
	}
	t.Run("ir in zstd stays compressed", func(t *testing.T) {
		var b bytes.Buffer
		if err := irstream.EncodeZstd(&b, &ir.File{Format: v8ir.Format}); err != nil {
			t.Fatal(err)
		}
		in, err := Open(bytes.NewReader(b.Bytes()), nil)
		if err != nil || in.Format.Name != ir.FormatIR || in.Unwrapped() {
			t.Fatalf("%v %+v", err, in)
		}
	})
	t.Run("unknown inside", func(t *testing.T) {
		var b bytes.Buffer
		zw, _ := wrapperByName("gzip").NewWriter(&b, LevelDefault)
		zw.Write([]byte("hello"))
		zw.Close()
		if _, err := Open(&b, nil); !errors.Is(err, ErrUnrecognized) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if _, err := Open(bytes.NewReader(nil), nil); !errors.Is(err, ErrEmpty) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("--from", func(t *testing.T) {
		in, err := Open(bytes.NewReader(irFile.Bytes()), &ReadOptions{Format: "ir"})
		if err != nil || in.Format.Name != "ir" {
			t.Errorf("%v %+v", err, in)
		}
		if _, err := Open(bytes.NewReader(nil), &ReadOptions{Format: "nope"}); !errors.Is(err, ErrUnknownFormat) {
			t.Error("an unknown format was taken")
		}
	})
}

// TestWrapperErrors: a damaged compressed stream is a *ir.FormatError of
// the wrapper's name, with the offset in the compressed file.
func TestWrapperErrors(t *testing.T) {
	data := bytes.Repeat([]byte("heap snapshots compress well "), 10000)
	for _, wr := range wrappers {
		var b bytes.Buffer
		zw, _ := wr.NewWriter(&b, LevelDefault)
		zw.Write(data)
		zw.Close()
		z := b.Bytes()
		for _, damage := range []struct {
			name string
			data []byte
		}{
			{"cut", z[:len(z)/2]},
			{"flipped", append(append(bytes.Clone(z[:len(z)/2]), z[len(z)/2]^0xff), z[len(z)/2+1:]...)},
		} {
			zr, err := wr.NewReader(bufio.NewReader(bytes.NewReader(damage.data)))
			if err == nil {
				_, err = io.ReadAll(zr)
				zr.Close()
			}
			var fe *ir.FormatError
			if !errors.As(err, &fe) || fe.Format != wr.Name || fe.Offset <= 0 || fe.Offset > int64(len(damage.data)) {
				t.Errorf("%s %s: %v", wr.Name, damage.name, err)
			}
		}
	}
}
