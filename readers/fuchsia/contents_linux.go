package fuchsia

import (
	"errors"
	"fmt"
	"syscall"
)

// dirBlocks reads contents files relative to an open directory with bare
// system calls (openat, fstat, read, close): a directory holds one file per
// block, so the per-file cost is the reading cost, and os.File's and
// os.Root's extra calls per file tripled it.
type dirBlocks struct{ fd int }

// openBlockDir opens a contents directory.
func openBlockDir(dir string) (*dirBlocks, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return &dirBlocks{fd}, nil
}

// Close closes the directory.
func (d *dirBlocks) Close() error { return syscall.Close(d.fd) }

func (d *dirBlocks) read(name string, want uint64, arena *[]byte) ([]byte, error) {
	// The names are ours (fuchsiair.AppendContentsName: "0x…" or
	// "koid-0x…", no separator), so the file is in the directory.
	// O_NOFOLLOW: a symlink named like a block is not followed out of it;
	// O_NONBLOCK: opening a FIFO named like one does not wait for a writer
	// (fstat then refuses it).
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(d.fd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	switch {
	case errors.Is(err, syscall.ENOENT):
		return nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("not a regular file (a symbolic link)")
	case err != nil:
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("not a regular file")
	}
	if uint64(st.Size) != want {
		return nil, fmt.Errorf("%w: %d bytes, but the block has %d", errSize, st.Size, want)
	}
	b := claim(want, arena)
	for got := 0; got < len(b); {
		n, err := syscall.Read(fd, b[got:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, err
		case n == 0:
			return nil, fmt.Errorf("%w: shorter than its %d bytes", errSize, want)
		}
		got += n
	}
	return b, nil
}
