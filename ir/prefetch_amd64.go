//go:build !purego

package ir

import "unsafe"

// prefetch asks the processor to start loading the cache line at p, which
// code will read a little later where the hardware cannot guess it (a
// hash table's slot, known long before it is read). It changes nothing
// and never faults, whatever p is. It is one instruction of assembly; on
// other architectures, and with the build tag purego (which CI tests), it
// does nothing.
//
//go:noescape
func prefetch(p unsafe.Pointer)
