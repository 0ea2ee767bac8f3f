package moarvm

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	moarvmir "github.com/heapconv/heapconv/ir/moarvm"
)

// benchFile is HEAPCONV_BENCH_MOARVM (a big v3 file: scripts/gen-moarvm-bench.sh
// makes one from a real Rakudo run) or the 3-snapshot sample.
func benchFile(b *testing.B) []byte {
	b.Helper()
	name := os.Getenv("HEAPCONV_BENCH_MOARVM")
	if name == "" {
		name = "../../testdata/moarvm/nqp-3snap.mvmheap"
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkRead reads the whole file into the IR.
func BenchmarkRead(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read(bytes.NewReader(data), Options{Size: int64(len(data))}); err != nil {
			b.Fatal(err)
		}
	}
}

// compressedBlocks returns the zstd frames of every block the TOCs list.
func compressedBlocks(b *testing.B, data []byte) [][]byte {
	r := &reader{ra: bytes.NewReader(data), size: int64(len(data))}
	_, tocs, err := r.tocs()
	if err != nil {
		b.Fatal(err)
	}
	var frames [][]byte
	for _, t := range tocs {
		for _, bl := range t.blocks {
			switch {
			case bl.name == moarvmir.BlockStrings:
				frames = append(frames, data[bl.start+moarvmir.HeaderSize:bl.end])
			case moarvmir.EntrySize(bl.name) > 0:
				frames = append(frames, data[bl.start+moarvmir.ColumnHeaderSize:bl.end])
			}
		}
	}
	return frames
}

// BenchmarkDecompress is the peer of BenchmarkRead: bare zstd decompression
// of the same blocks, one after the other, into reused buffers. With
// HEAPCONV_BENCH_FRAMES naming a file, it also writes the frames there,
// concatenated, so that the zstd command can decompress the same bytes
// (scripts/bench-moarvm.sh).
func BenchmarkDecompress(b *testing.B) {
	data := benchFile(b)
	frames := compressedBlocks(b, data)
	if name := os.Getenv("HEAPCONV_BENCH_FRAMES"); name != "" {
		if err := os.WriteFile(name, bytes.Join(frames, nil), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var buf []byte
	for i := 0; i < b.N; i++ {
		for _, fr := range frames {
			if buf, err = d.DecodeAll(fr, buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecompressParallel decompresses the blocks on every core, as
// the reader does.
func BenchmarkDecompressParallel(b *testing.B) {
	data := benchFile(b)
	frames := compressedBlocks(b, data)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := make(chan []byte)
		var wg sync.WaitGroup
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
				if err != nil {
					panic(err)
				}
				defer d.Close()
				var buf []byte
				for fr := range next {
					if buf, err = d.DecodeAll(fr, buf[:0]); err != nil {
						panic(err)
					}
				}
			}()
		}
		for _, fr := range frames {
			next <- fr
		}
		close(next)
		wg.Wait()
	}
}
