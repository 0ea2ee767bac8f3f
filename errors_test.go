package heapconv_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// TestTruncatedInput: a file cut short is an *ir.FormatError that wraps
// ir.ErrTruncated, for every format read from its start. (A MoarVM file
// is read from its end, its index: cut short, that is damage like any
// other, and a version 3 file is recovered snapshot by snapshot.)
func TestTruncatedInput(t *testing.T) {
	for _, tc := range []struct{ format, path string }{
		{"v8", "testdata/v8/small/rows.heapsnapshot"},
		{"dart", "testdata/dart/synthetic_vm_layout.dartheap"},
		{"fuchsia-fidl", "testdata/fuchsia-fidl/ffx-test.fidlstream"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			data, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = heapconv.Read(bytes.NewReader(data[:len(data)/2]), &heapconv.ReadOptions{Format: tc.format})
			var fe *ir.FormatError
			if !errors.Is(err, ir.ErrTruncated) || !errors.As(err, &fe) || fe.Offset < 0 {
				t.Errorf("cut in half: %v, want an ir.ErrTruncated with an offset", err)
			}
		})
	}
}

// TestNewerSchemaVersion: an IR stream from a newer heapconv is refused
// with ir.ErrNewerVersion.
func TestNewerSchemaVersion(t *testing.T) {
	var b bytes.Buffer
	if err := ir.Encode(&b, &ir.File{Format: ir.FormatV8}); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	// The header is ["heapir", version]: the version is a positive fixint
	// right after the magic string.
	i := bytes.Index(data, []byte("heapir")) + len("heapir")
	if data[i] != byte(ir.Version) {
		t.Fatalf("byte %d is %#x, not the version %d", i, data[i], ir.Version)
	}
	data[i] = byte(ir.Version + 1)
	_, err := heapconv.Read(bytes.NewReader(data), nil)
	if !errors.Is(err, ir.ErrNewerVersion) {
		t.Errorf("%v, want ir.ErrNewerVersion", err)
	}
}
