package mmap_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/heapconv/heapconv/internal/mmap"
)

// TestMap: the mapped bytes are the file's; an empty file is refused.
func TestMap(t *testing.T) {
	want := bytes.Repeat([]byte("heapconv "), 100_000)
	name := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(name, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mmap.Map(f, int64(len(want)))
	if err == mmap.ErrUnsupported {
		t.Skip("files cannot be mapped here")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("the mapped bytes differ from the file's")
	}
	if err := unmap(); err != nil {
		t.Errorf("unmap: %v", err)
	}
	if _, _, err := mmap.Map(f, 0); err == nil {
		t.Errorf("mapping 0 bytes: no error")
	}
}
