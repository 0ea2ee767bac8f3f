package dart_test

import (
	"bytes"
	"testing"

	"github.com/heapconv/heapconv/internal/dartgen"
	rdart "github.com/heapconv/heapconv/readers/dart"
	wdart "github.com/heapconv/heapconv/writers/dart"
)

// benchHeap is a generated Flutter-app heap of about 1 M objects.
func benchHeap(b *testing.B) []byte { return benchHeapOf(b, dartgen.GenVM) }

// benchHeapOf is benchHeap as the writers of generation g write it.
func benchHeapOf(b *testing.B, g dartgen.Generation) []byte {
	b.Helper()
	return generated(b, dartgen.Options{Seed: 1, Objects: 1_000_000, Generation: g})
}

// generated returns the heap internal/dartgen writes for o.
func generated(tb testing.TB, o dartgen.Options) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := dartgen.Generate(&buf, o); err != nil {
		tb.Fatal(err)
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

// BenchmarkReadBytes reads the same heap in memory (ReadBytes), decoding
// it where it is.
func BenchmarkReadBytes(b *testing.B) {
	data := benchHeap(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rdart.ReadBytes(data, rdart.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadWithoutHashes reads the heap as VMs before 2021 wrote it,
// without identity hash codes: the split read's guess cannot know that
// there are none.
func BenchmarkReadWithoutHashes(b *testing.B) {
	data := benchHeapOf(b, dartgen.GenVMNoHash)
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

// BenchmarkScanLEB128 is the ceiling for any one-goroutine reader of the
// format: it visits the same heap's bytes once, assembling LEB128 numbers,
// and stores nothing. Compare BenchmarkRead with it, not with memory
// bandwidth: every number's length depends on its bytes, so the scan is a
// chain of dependent branches.
func BenchmarkScanLEB128(b *testing.B) {
	data := benchHeap(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var sum, v uint64
		var shift uint
		for _, c := range data {
			v |= uint64(c&0x7F) << (shift & 63)
			if c < 0x80 {
				sum += v
				v, shift = 0, 0
			} else {
				shift += 7
			}
		}
		scanSink = sum
	}
}

var scanSink uint64
