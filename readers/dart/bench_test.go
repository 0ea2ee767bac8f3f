package dart_test

import (
	"bytes"
	"testing"

	"heapconv/internal/dartgen"
	rdart "heapconv/readers/dart"
	wdart "heapconv/writers/dart"
)

// benchHeap is a generated Flutter-app heap of about 1 M objects.
func benchHeap(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	if _, err := dartgen.Generate(&buf, dartgen.Options{Seed: 1, Objects: 1_000_000}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkRead reads a 1 M-object heap (~24 MB) from memory.
func BenchmarkRead(b *testing.B) {
	data := benchHeap(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rdart.Read(bytes.NewReader(data), rdart.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite writes the same heap back.
func BenchmarkWrite(b *testing.B) {
	data := benchHeap(b)
	f, err := rdart.Read(bytes.NewReader(data), rdart.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var out bytes.Buffer
	for i := 0; i < b.N; i++ {
		out.Reset()
		if _, err := wdart.Write(&out, f, wdart.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
