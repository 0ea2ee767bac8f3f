package heapconv_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"testing"

	"github.com/heapconv/heapconv/ir/irstream"
	v8ir "github.com/heapconv/heapconv/ir/v8"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/ir"
)

// TestTruncatedInput: a file cut short is an *ir.FormatError that wraps
// ir.ErrTruncated, wherever it is cut, for every format read from its
// start and for the compressed wrappers. (A MoarVM file is read from its
// end, its index: cut short, that is damage like any other, and a version
// 3 file is recovered snapshot by snapshot.)
func TestTruncatedInput(t *testing.T) {
	var irFile bytes.Buffer
	f, err := heapconv.ReadFile("testdata/dart/synthetic_vm_layout.dartheap", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := irstream.Encode(&irFile, f); err != nil {
		t.Fatal(err)
	}
	v8, err := os.ReadFile("testdata/v8/small/rows.heapsnapshot")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(v8)
	zw.Close()
	inputs := []struct {
		name, format string
		data         []byte
	}{
		{"v8", "v8", v8},
		{"dart", "dart", readFile(t, "testdata/dart/synthetic_vm_layout.dartheap")},
		{"fuchsia", "fuchsia", readFile(t, "testdata/fuchsia/ffx-test-current-tags.pb")},
		{"fuchsia-fidl", "fuchsia-fidl", readFile(t, "testdata/fuchsia-fidl/ffx-test.fidlstream")},
		{"ir", "ir", irFile.Bytes()},
		{"gzip", "", gz.Bytes()},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			for pct := 5; pct < 100; pct += 5 {
				cut := len(in.data) * pct / 100
				_, err := heapconv.Read(bytes.NewReader(in.data[:cut]), &heapconv.ReadOptions{Format: in.format})
				var fe *ir.FormatError
				if !errors.Is(err, ir.ErrTruncated) || !errors.As(err, &fe) || fe.Offset < 0 {
					t.Errorf("cut at %d of %d bytes: %v, want an ir.ErrTruncated with an offset", cut, len(in.data), err)
				}
			}
		})
	}
}

// readFile reads a test file.
func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNewerSchemaVersion: an IR stream from a newer heapconv is refused
// with ir.ErrNewerVersion.
func TestNewerSchemaVersion(t *testing.T) {
	var b bytes.Buffer
	if err := irstream.Encode(&b, &ir.File{Format: v8ir.Format}); err != nil {
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
