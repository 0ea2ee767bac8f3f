package dart_test

import (
	"errors"
	"math"
	"os"
	"syscall"
	"testing"

	"github.com/heapconv/heapconv/internal/dartgen"
	"github.com/heapconv/heapconv/ir"
	rdart "github.com/heapconv/heapconv/readers/dart"
)

// TestReadBytesUnreadablePage: a page of the input that cannot be read
// faults in whichever goroutine decodes it first (one in the second
// half's objects, in the second goroutine); the read, split or not,
// returns an error at that page and does not crash.
func TestReadBytesUnreadablePage(t *testing.T) {
	data, page := mappedHeap(t, 40_000)
	// In the first half's objects, then in the second's.
	for _, at := range []int{len(data) / 4, len(data) * 3 / 4} {
		hole := at / page * page
		if err := syscall.Mprotect(data[hole:hole+page], syscall.PROT_NONE); err != nil {
			t.Fatal(err)
		}
		for _, splitMin := range []uint64{math.MaxUint64, 1} {
			restore := rdart.SetSplit(splitMin, nil, nil)
			_, err := rdart.ReadBytes(data, rdart.Options{})
			restore()
			var fe *ir.FormatError
			if !errors.As(err, &fe) || fe.Offset < int64(hole) || fe.Offset >= int64(hole+page) {
				t.Errorf("split from %d objects: page at %d unreadable, ReadBytes: %v", splitMin, hole, err)
			}
		}
		if err := syscall.Mprotect(data[hole:hole+page], syscall.PROT_READ); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadBytesFaultsInOrder: a page that cannot be read in the identity
// hash codes, which the second goroutine reads while the first joins the
// halves, gives the error at that page; one near the end, which a split
// read looks at before any object, does not hide damage before it: the
// error is the one on one core (and the race detector sees the second
// goroutine's recovery ordered with the first half's reads).
func TestReadBytesFaultsInOrder(t *testing.T) {
	data, page := mappedHeap(t, 100_000)
	readAll := func(splitMin uint64) error {
		defer rdart.SetSplit(splitMin, nil, nil)()
		_, err := rdart.ReadBytes(data, rdart.Options{})
		return err
	}
	protect := func(hole, prot int) {
		t.Helper()
		if err := syscall.Mprotect(data[hole:hole+page], prot); err != nil {
			t.Fatal(err)
		}
	}
	for _, back := range []int{70_000, 150_000, 250_000} { // in the hash codes
		hole := (len(data) - back) / page * page
		protect(hole, syscall.PROT_NONE)
		for range 8 { // the race detector needs a few to see a race
			var fe *ir.FormatError
			if err := readAll(1); !errors.As(err, &fe) || fe.Offset < int64(hole) || fe.Offset >= int64(hole+page) {
				t.Errorf("page at %d unreadable: %v", hole, err)
			}
		}
		protect(hole, syscall.PROT_READ)
	}
	// Damage a fifth of the way in, and a page near the end.
	at := len(data) / 5
	for ; at < len(data) && readAll(math.MaxUint64) == nil; at++ {
		data[at] ^= 0xff
		if readAll(math.MaxUint64) == nil {
			data[at] ^= 0xff
		}
	}
	want := readAll(math.MaxUint64)
	if want == nil {
		t.Fatal("no damage found")
	}
	protect((len(data)-1000)/page*page, syscall.PROT_NONE)
	if one, split := readAll(math.MaxUint64), readAll(1); one.Error() != want.Error() || split.Error() != want.Error() {
		t.Errorf("damage at %d and the last page unreadable:\none core %v\nsplit %v\nwant %v", at, one, split, want)
	}
}

// mappedHeap returns a generated heap of n objects in an anonymous
// mapping of its own, whose pages a test may make unreadable, and the
// page size.
func mappedHeap(t *testing.T, n int) ([]byte, int) {
	t.Helper()
	heap := generated(t, dartgen.Options{Seed: 4, Objects: n})
	page := os.Getpagesize()
	data, err := syscall.Mmap(-1, 0, (len(heap)+page-1)/page*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(data) })
	copy(data, heap)
	return data[:len(heap)], page
}
