//go:build !purego

package prefetch

import "unsafe"

// Load asks for the cache line at p to be loaded into every cache level.
// It never faults, whatever p is.
//
//go:noescape
func Load(p unsafe.Pointer)
