package heapconv_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/heapconv/heapconv"
	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
)

// TestDartFileMapped: a Dart file read by name is mapped into memory (on
// systems that map files) and gives the file a read of its bytes gives;
// one converted with a context, which must be able to stop the read, and
// one read from a stream are read instead, to the same file.
func TestDartFileMapped(t *testing.T) {
	var buf bytes.Buffer
	if _, err := dartgen.Generate(&buf, dartgen.Options{Seed: 6, Objects: 40_000}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "heap.dartheap")
	if err := os.WriteFile(name, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := rdart.Read(bytes.NewReader(buf.Bytes()), rdart.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mapped []bool
	defer heapconv.SetDartMapped(func(m bool) { mapped = append(mapped, m) })()
	got, err := heapconv.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Diff(want, got, 5); len(d) > 0 {
		t.Fatalf("read mapped, the file differs: %v", d)
	}
	if runtime.GOOS != "windows" && (len(mapped) != 1 || !mapped[0]) {
		t.Errorf("ReadFile: mapped %v, want [true]", mapped)
	}

	mapped = nil
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(dir, "out.heapir")
	if _, err := heapconv.ConvertFileContext(ctx, name, out, nil); err != nil {
		t.Fatal(err)
	}
	viaCtx, err := heapconv.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Diff(want, viaCtx, 5); len(d) > 0 {
		t.Fatalf("converted with a context, the file differs: %v", d)
	}
	if len(mapped) != 1 || mapped[0] {
		t.Errorf("ConvertFileContext: mapped %v, want [false]", mapped)
	}

	mapped = nil
	in, err := heapconv.Open(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := in.Read()
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Diff(want, streamed, 5); len(d) > 0 {
		t.Fatalf("read from a stream, the file differs: %v", d)
	}
	if len(mapped) != 1 || mapped[0] {
		t.Errorf("Open: mapped %v, want [false]", mapped)
	}
}
