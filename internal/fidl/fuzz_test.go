package fidl

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// elementSeeds are persisted elements: the worked vectors of
// docs/formats/fuchsia.md and random
// elements of every kind.
func elementSeeds(tb testing.TB) [][]byte {
	out := [][]byte{unhex(tb, stackTraceVector), allocationVector(false), allocationVector(true)}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 12 {
		e := randomElement(rng)
		out = append(out, mustPersist(tb, &e))
	}
	return out
}

// streamSeeds are small container files.
func streamSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for seed := range int64(3) {
		procs := Synthetic(seed, SyntheticOptions{Processes: 1 + int(seed%2), Allocations: 3, StackTraces: 2, Threads: 1, Modules: 1, Contents: seed != 1, MaxBlockSize: 24, MaxStackDepth: 3})
		s, err := Emit(procs, seed != 0)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, streamBytes(tb, s))
	}
	s := build(false, []Element{stackTraceElement()}, nil)
	s.ReportError(2)
	return append(out, streamBytes(tb, s))
}

// FuzzDecode: no panics, bounded allocation (the slack allows for the fuzz
// worker's own goroutines), and decode∘encode is the
// identity on everything the decoder accepts.
func FuzzDecode(f *testing.F) {
	for _, b := range elementSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Element
		var err error
		if n := allocated(func() { err = Unpersist(b, &e) }); n > uint64(16*len(b))+1<<20 {
			t.Fatalf("allocated %d bytes for a %d-byte input", n, len(b))
		}
		if err != nil {
			formatError(t, err)
			return
		}
		out, err := Persist(&e)
		if err != nil {
			t.Fatalf("decoded element does not encode: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("not a fixed point:\n%x\n%x", b, out)
		}
	})
}

// FuzzReadStream: the same for container files, and reassembly does not
// panic.
func FuzzReadStream(f *testing.F) {
	for _, b := range streamSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s *Stream
		var err error
		if n := allocated(func() { s, err = ReadStream(bytes.NewReader(b), 0) }); n > uint64(32*len(b))+1<<20 {
			t.Fatalf("allocated %d bytes for a %d-byte input", n, len(b))
		}
		if err != nil {
			formatError(t, err)
			return
		}
		var w bytes.Buffer
		if _, err := s.WriteTo(&w); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), b) {
			t.Fatal("not a fixed point")
		}
		if _, err := s.Reassemble(); err != nil {
			formatError(t, err)
		}
	})
}

// TestWriteFuzzSeeds writes testdata/fuzz when FIDL_WRITE_FUZZ_SEEDS is
// set (the seeds are also added in code).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("FIDL_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set FIDL_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz")
	}
	for name, seeds := range map[string][][]byte{"FuzzDecode": elementSeeds(t), "FuzzReadStream": streamSeeds(t)} {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range seeds {
			data := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
