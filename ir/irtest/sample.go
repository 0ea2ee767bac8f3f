package irtest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// ReadSample returns the bytes of the test file at the path the elements
// join to, gunzipped when its name ends in ".gz": samples of formats that
// are read uncompressed are stored so, and a reader's tests and its
// writer's read the same ones. It fails the test when the file cannot be
// read.
func ReadSample(t testing.TB, path ...string) []byte {
	t.Helper()
	name := filepath.Join(path...)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(name) != ".gz" {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if b, err = io.ReadAll(zr); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}
