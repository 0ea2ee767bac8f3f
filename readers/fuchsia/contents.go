package fuchsia

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/heapconv/heapconv/ir"
	fuchsiair "github.com/heapconv/heapconv/ir/fuchsia"
)

// readContents reads the contents file of every block of s that has an
// address. A missing file means the block could not be read (ffx skips
// those); a file of the wrong size is an error naming it. Files are read by
// several goroutines: a contents directory holds one file per block, and
// opening them dominates.
func readContents(br blockReader, path func(string) string, s *ir.Snapshot) error {
	fx := fuchsiair.Of(s)
	n := s.Nodes.Len()
	got := make([][]byte, n)
	var next atomic.Int64
	var firstErr error
	var errMu sync.Mutex
	workers := min(4*runtime.GOMAXPROCS(0), 32)
	var wg sync.WaitGroup
	const batch = 256
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var arena []byte
			var name []byte
			for {
				lo := int(next.Add(batch)) - batch
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+batch, n); i++ {
					if fx.Flags[i]&fuchsiair.FlagAddress == 0 {
						continue
					}
					size := s.Nodes.SelfSize.At(i)
					name = fuchsiair.AppendContentsName(name[:0], fx, s.Nodes.ID.At(i))
					b, err := br.read(string(name), size, &arena)
					if err != nil {
						errMu.Lock()
						if firstErr == nil {
							firstErr = fmt.Errorf("fuchsia: contents of block %s: %s: %w", name, path(string(name)), err)
						}
						errMu.Unlock()
						next.Store(int64(n))
						return
					}
					got[i] = b
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	var total uint64
	any := false
	for _, b := range got {
		if b != nil {
			total += uint64(len(b))
			any = true
		}
	}
	if !any {
		return nil
	}
	fx.Contents = make([]byte, 0, total)
	fx.ContentsStart = make([]uint64, n+1)
	for i, b := range got {
		if b != nil {
			fx.Contents = append(fx.Contents, b...)
			fx.Flags[i] |= fuchsiair.FlagContents
		}
		fx.ContentsStart[i+1] = uint64(len(fx.Contents))
	}
	return nil
}

// errSize is wrapped by the error for a contents file of the wrong size.
var errSize = errors.New("wrong size")

// blockReader reads contents files; several goroutines use it at once.
type blockReader interface {
	// read reads the file name, which must hold want bytes, into the
	// worker's arena; nil, nil when it does not exist.
	read(name string, want uint64, arena *[]byte) ([]byte, error)
}

// fsBlocks reads contents files from an fs.FS (Options.Contents, or the
// directory through an os.Root where there is no faster way).
type fsBlocks struct{ fsys fs.FS }

// claim returns want bytes of the worker's arena (blocks over 64 KiB get
// their own slice).
func claim(want uint64, arena *[]byte) []byte {
	if want > 1<<16 {
		return make([]byte, want)
	}
	if uint64(cap(*arena)-len(*arena)) < want {
		*arena = make([]byte, 0, 1<<20)
	}
	a := *arena
	b := a[len(a) : len(a)+int(want) : len(a)+int(want)]
	*arena = a[:len(a)+int(want)]
	return b
}

func (r fsBlocks) read(name string, want uint64, arena *[]byte) ([]byte, error) {
	fsys := r.fsys
	// Look before opening: opening a FIFO named like a block would wait
	// for a writer forever.
	st, err := fs.Stat(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if uint64(st.Size()) != want {
		return nil, fmt.Errorf("%w: %d bytes, but the block has %d", errSize, st.Size(), want)
	}
	b := claim(want, arena)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("%w: shorter than its %d bytes: %v", errSize, want, err)
	}
	return b, nil
}
