package ir

import "fmt"

// FormatError reports malformed input: which format, where (byte offset in
// the input, or -1 when the problem is not tied to one place) and what.
type FormatError struct {
	Format string
	Offset int64
	Msg    string
	// Within, when set, says what Offset counts the bytes of when it is
	// not the file as given: "the decompressed data" for a file read
	// through gzip or zstd.
	Within string
}

func (e *FormatError) Error() string {
	switch {
	case e.Offset < 0:
		return fmt.Sprintf("%s: %s", e.Format, e.Msg)
	case e.Within != "":
		return fmt.Sprintf("%s: offset %d of %s: %s", e.Format, e.Offset, e.Within, e.Msg)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.Format, e.Offset, e.Msg)
}

// Decompressed is FormatError.Within for offsets in a file's decompressed
// data.
const Decompressed = "the decompressed data"

// Errorf returns a *FormatError.
func Errorf(format string, offset int64, msg string, args ...any) *FormatError {
	return &FormatError{Format: format, Offset: offset, Msg: fmt.Sprintf(msg, args...)}
}
