package fidl

import (
	"bytes"
	"io"
	"testing"
)

func benchStream(b *testing.B) []byte {
	s, err := Emit(Synthetic(1, SyntheticOptions{Allocations: 100000, Contents: true, MaxBlockSize: 512}), false)
	if err != nil {
		b.Fatal(err)
	}
	return streamBytes(b, s)
}

func BenchmarkReadStream(b *testing.B) {
	data := benchStream(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadStream(bytes.NewReader(data), 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReassemble(b *testing.B) {
	s, err := ReadStream(bytes.NewReader(benchStream(b)), 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Reassemble(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteTo(b *testing.B) {
	data := benchStream(b)
	s, err := ReadStream(bytes.NewReader(data), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
