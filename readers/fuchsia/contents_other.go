//go:build !linux

package fuchsia

import "os"

// rootBlocks reads contents files through an os.Root: a symlink named
// like a block must not read a file from outside the directory.
type rootBlocks struct {
	fsBlocks
	root *os.Root
}

// openBlockDir opens a contents directory.
func openBlockDir(dir string) (*rootBlocks, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootBlocks{fsBlocks{root.FS()}, root}, nil
}

// Close closes the directory.
func (r *rootBlocks) Close() error { return r.root.Close() }
