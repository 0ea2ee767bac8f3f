package ir

import (
	"io"
	"os"
)

// InputSize returns the size of what r will deliver when it can tell
// without reading (a regular file, a bytes or strings reader), else 0.
// Readers bound declared counts by it.
func InputSize(r io.Reader) int64 {
	switch r := r.(type) {
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := r.Seek(0, io.SeekCurrent); err == nil {
				return max(st.Size()-off, 0)
			}
			return st.Size()
		}
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(r.Len())
	}
	return 0
}
