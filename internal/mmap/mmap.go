// Package mmap maps a file into memory for reading, where the system
// allows it, so that a reader can decode the file's bytes where they are
// instead of copying them into buffers.
//
// A mapped file that another process truncates faults when the missing
// bytes are read; readers of mapped bytes turn such faults into errors
// with runtime/debug.SetPanicOnFault (see readers/dart.ReadBytes).
package mmap

import (
	"errors"
	"os"
)

// ErrUnsupported is returned where files cannot be mapped: the caller
// reads the file instead.
var ErrUnsupported = errors.New("mmap: files cannot be mapped here")

// Map maps the first size bytes of f, read-only, and returns them and a
// function that unmaps them. The bytes must not be used after unmap.
func Map(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, errors.New("mmap: the size cannot be mapped")
	}
	return mapFile(f, int(size))
}
