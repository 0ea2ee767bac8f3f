package formats

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

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
		{"-", "dart", "dart", "", false},
		{"x.gz", "", "", "", false},
		{"x.txt", "", "", "", false},
	}
	for _, tc := range tests {
		o := ForOutput(tc.name, tc.to)
		if tc.format == "" {
			if o != nil {
				t.Errorf("%s --to %q: %s, want no format", tc.name, tc.to, o.Format.Name)
			}
			continue
		}
		if o == nil {
			t.Errorf("%s --to %q: no format, want %s", tc.name, tc.to, tc.format)
			continue
		}
		wrapper := ""
		if o.Wrapper != nil {
			wrapper = o.Wrapper.Name
		}
		if o.Format.Name != tc.format || wrapper != tc.wrapper || o.Native != tc.native {
			t.Errorf("%s --to %q: %s wrapper %q native %v, want %s %q %v", tc.name, tc.to, o.Format.Name, wrapper, o.Native,
				tc.format, tc.wrapper, tc.native)
		}
	}
}

// TestOpen: the format is detected inside either wrapper, which is
// removed unless the format reads it itself; the data read is the file's.
func TestOpen(t *testing.T) {
	td := filepath.Join("..", "..", "testdata")
	files := []struct{ format, path string }{
		{"v8", filepath.Join(td, "v8", "small", "rows.heapsnapshot")},
		{"dart", filepath.Join(td, "dart", "synthetic_vm_layout.dartheap")},
		{"moarvm", filepath.Join(td, "moarvm", "nqp-1snap.mvmheap")},
		{"fuchsia", filepath.Join(td, "fuchsia", "ffx-test-2023.pb")},
		{"fuchsia-fidl", filepath.Join(td, "fuchsia-fidl", "ffx-test.fidlstream")},
	}
	var irFile bytes.Buffer
	if err := ir.Encode(&irFile, &ir.File{Format: ir.FormatV8}); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, wr := range append([]*Wrapper{nil}, Wrappers...) {
			stored := data
			name := "plain"
			if wr != nil {
				name = wr.Name
				var b bytes.Buffer
				zw, err := wr.NewWriter(&b)
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
				in, err := Open(bufio.NewReaderSize(bytes.NewReader(stored), 1<<20), "")
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				if in.Format.Name != f.format {
					t.Errorf("detected %s", in.Format.Name)
				}
				if in.Compressed != wr {
					t.Errorf("compression %v, want %v", in.Compressed, wr)
				}
				own := wr != nil && in.Format.OwnWrapper == wr.Name
				want := data
				if own {
					want = stored
					if in.Wrapper != nil {
						t.Errorf("the format's own %s wrapper was removed", wr.Name)
					}
				} else if in.Wrapper != wr {
					t.Errorf("wrapper removed %v, want %v", in.Wrapper, wr)
				}
				got, err := io.ReadAll(in.R)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("read %d bytes (%v), want the %d bytes of the file", len(got), err, len(want))
				}
			})
		}
	}
	t.Run("ir in zstd stays compressed", func(t *testing.T) {
		var b bytes.Buffer
		if err := ir.EncodeZstd(&b, &ir.File{Format: ir.FormatV8}); err != nil {
			t.Fatal(err)
		}
		in, err := Open(bufio.NewReaderSize(bytes.NewReader(b.Bytes()), 1<<20), "")
		if err != nil || in.Format.Name != ir.FormatIR || in.Wrapper != nil {
			t.Fatalf("%v %+v", err, in)
		}
	})
	t.Run("unknown inside", func(t *testing.T) {
		var b bytes.Buffer
		zw, _ := WrapperByName("gzip").NewWriter(&b)
		zw.Write([]byte("hello"))
		zw.Close()
		if _, err := Open(bufio.NewReaderSize(&b, 1<<20), ""); !errors.Is(err, ErrUnrecognized) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if _, err := Open(bufio.NewReaderSize(bytes.NewReader(nil), 1<<20), ""); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("--from", func(t *testing.T) {
		in, err := Open(bufio.NewReaderSize(bytes.NewReader(irFile.Bytes()), 1<<20), "ir")
		if err != nil || in.Format.Name != "ir" {
			t.Errorf("%v %+v", err, in)
		}
		if _, err := Open(bufio.NewReaderSize(bytes.NewReader(nil), 1<<20), "nope"); err == nil {
			t.Error("an unknown format was taken")
		}
	})
}

// TestWrapperErrors: a damaged compressed stream is a *ir.FormatError of
// the wrapper's name, with the offset in the compressed file.
func TestWrapperErrors(t *testing.T) {
	data := bytes.Repeat([]byte("heap snapshots compress well "), 10000)
	for _, wr := range Wrappers {
		var b bytes.Buffer
		zw, _ := wr.NewWriter(&b)
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
