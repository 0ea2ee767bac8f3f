//go:build !purego

package slicesx

import "unsafe"

// mallocgc is the runtime's allocator. The runtime keeps it reachable by
// linkname for packages outside the standard library that allocate
// without clearing, and promises not to change its signature. With typ
// nil the memory holds no pointers.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

const (
	// minUncleared is the smallest slice, in bytes, left uncleared.
	minUncleared = 64 << 10
	// maxUncleared is the largest: beyond it make's own checks decide.
	maxUncleared = 1 << 46
)

func makeUncleared[T Number](length, capacity int) []T {
	size := unsafe.Sizeof(*new(T))
	if length < 0 || length > capacity || capacity < minUncleared/int(size) ||
		uint64(capacity) > maxUncleared/uint64(size) {
		return make([]T, length, capacity)
	}
	p := mallocgc(uintptr(capacity)*size, nil, false)
	return unsafe.Slice((*T)(p), capacity)[:length]
}

func fill[T Number](s []T, b byte) {
	if len(s) == 0 {
		return
	}
	bytes := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), uintptr(len(s))*unsafe.Sizeof(s[0]))
	for i := range bytes {
		bytes[i] = b
	}
}
