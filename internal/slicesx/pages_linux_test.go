package slicesx

import (
	"syscall"
	"testing"
)

// The two benchmarks below measure why Grow leaves its room unwritten:
// writing memory fresh from the system maps it a page at a time, each
// page a fault, which costs far more than clearing memory already mapped.
//
//	go test -run '^$' -bench Pages ./internal/slicesx

const pagesSize = 64 << 20

// BenchmarkPagesFresh writes one byte per 4 KiB page of anonymous memory
// just mapped: the cost of the page faults.
func BenchmarkPagesFresh(b *testing.B) {
	b.SetBytes(pagesSize)
	for b.Loop() {
		m, err := syscall.Mmap(-1, 0, pagesSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(m); i += 4096 {
			m[i] = 1
		}
		if err := syscall.Munmap(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPagesMapped clears the same amount of memory already mapped.
func BenchmarkPagesMapped(b *testing.B) {
	m, err := syscall.Mmap(-1, 0, pagesSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Munmap(m)
	for i := 0; i < len(m); i += 4096 {
		m[i] = 1
	}
	b.SetBytes(pagesSize)
	for b.Loop() {
		clear(m)
	}
}
