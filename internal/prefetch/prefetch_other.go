//go:build !amd64 || purego

package prefetch

import "unsafe"

// Load asks for the cache line at p to be loaded into every cache level:
// here it does nothing.
func Load(p unsafe.Pointer) {}
