//go:build !amd64 || purego

package ir

import "unsafe"

// prefetch asks the processor to start loading the cache line at p: here
// it does nothing (see prefetch_amd64.go).
func prefetch(p unsafe.Pointer) {}
