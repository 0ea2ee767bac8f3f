//go:build !unix

package mmap

import "os"

func mapFile(*os.File, int) ([]byte, func() error, error) { return nil, nil, ErrUnsupported }
